//! `pawns`: the command line (`cli/`, clap) and the benchmarks (`bench/`); the library
//! does the work.

use std::process::ExitCode;

mod bench;
mod cli;

use clap::Parser;
use cli::{BenchCmd, Cli, Cmd, ExportCmd, WorldCmd};

fn main() -> ExitCode {
    slow_purge();
    #[cfg(all(not(feature = "system-alloc"), feature = "heap-count"))]
    GLOBAL.announce();
    let cli = Cli::parse();
    no_huge_pages(matches!(cli.command, Cmd::Serve(_)));
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    match &cli.command {
        Cmd::Serve(a) => {
            if a.workers > 0 {
                builder.worker_threads(a.workers);
            }
            // The engine thread keeps the process's priority; the rest go lower.
            pawns::priority::set_thread_nice(a.thread_nice);
            pawns::priority::set_record_nice(a.record_nice);
            builder.on_thread_start(pawns::priority::background_thread);
        }
        // The load generator runs on one worker thread by default so that, on a small
        // machine, it takes as little CPU from the server it measures as it can.
        Cmd::Bench { what: BenchCmd::Agents(a) } => {
            builder.worker_threads(a.threads.max(1));
        }
        _ => {}
    }
    let rt = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = rt.block_on(async {
        match cli.command {
            Cmd::Serve(args) => cli::commands::serve(args).await,
            Cmd::Keygen(args) => cli::commands::keygen(args).await,
            Cmd::World { what: WorldCmd::Check(args) } => cli::commands::world_check(args),
            Cmd::Search(args) => cli::search::search(args).await,
            Cmd::Reindex(args) => cli::search::reindex(args).await,
            Cmd::Dream(args) => cli::dream::dream(args).await,
            Cmd::Mcp(args) => cli::mcp::bridge(args).await,
            Cmd::Agent(args) => cli::agent::agent(args).await,
            Cmd::Backup(args) => cli::commands::backup(args).await,
            Cmd::Compact(args) => cli::commands::compact(args).await,
            Cmd::Admin { what: cli::AdminCmd::Token(args) } => cli::commands::admin_token(args).await,
            Cmd::Admin { what: cli::AdminCmd::RotateToken(args) } => cli::commands::rotate_token(args).await,
            Cmd::Admin { what: cli::AdminCmd::RevokeKey(args) } => cli::commands::revoke_key(args).await,
            Cmd::Restore(args) => cli::commands::restore(args).await,
            Cmd::Eval(args) => cli::research::eval(args).await,
            Cmd::Experiment(args) => cli::research::experiment(args).await,
            Cmd::Replay(args) => cli::research::replay(args).await,
            Cmd::Branch(args) => cli::branch::branch(args).await,
            Cmd::Runs { what } => cli::runs::main(what).await,
            Cmd::Memcheck(args) => cli::memcheck::memcheck(args).await,
            Cmd::Export { what: ExportCmd::Decisions(args) } if args.format == "parquet" => cli::research::parquet(args, "decisions").await,
            Cmd::Export { what: ExportCmd::Sessions(args) } if args.format == "parquet" => cli::research::parquet(args, "sessions").await,
            Cmd::Export { what: ExportCmd::Tables(args) } => cli::research::parquet(args, "").await,
            Cmd::Export { what: ExportCmd::Decisions(args) } => cli::commands::export(args, true).await,
            Cmd::Export { what: ExportCmd::Sessions(args) } => cli::commands::export(args, false).await,
            Cmd::Export { what: ExportCmd::Memory(args) } => cli::commands::export_memory(args).await,
            Cmd::Bench { what: BenchCmd::Agents(args) } => bench::agents::agents(args).await,
            Cmd::Bench { what: BenchCmd::World(args) } => bench::world::run(args),
            Cmd::Bench { what: BenchCmd::Search(args) } => bench::search::run(args),
            Cmd::Bench { what: BenchCmd::Dream(args) } => bench::dream::run(args),
            Cmd::Bench { what: BenchCmd::Decide(args) } => bench::decide::run(args),
            Cmd::Bench { what: BenchCmd::Hud(args) } => bench::hud::run(args),
            Cmd::Bench { what: BenchCmd::Residents(args) } => bench::residents::run(args).await,
            Cmd::Bench { what: BenchCmd::Mind(args) } => bench::mind::run(args).await,
            Cmd::Bench { what: BenchCmd::Scripts(args) } => bench::scripts::run(args),
            Cmd::Bench { what: BenchCmd::Mud(args) } => bench::mud::run(args).await,
            Cmd::Bench { what: BenchCmd::Telnet(args) } => bench::telnet::run(args).await,
            Cmd::Bench { what: BenchCmd::Observatory(args) } => bench::observe::run(args).await,
            Cmd::Bench { what: BenchCmd::Eval(args) } => bench::eval::run(args),
            Cmd::Bench { what: BenchCmd::Machine(args) } => bench::machine::run(args),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Transparent huge pages off for this process. Where the kernel backs every large
/// anonymous mapping with 2 MiB pages (`always`, as on the machines we measure on), the
/// allocator's arenas are faulted in 2 MiB at a time: an idle agent session cost
/// ~230 KiB of RSS instead of ~90, and zeroing those pages was a visible part of the
/// search indexer's and the allocator's CPU.
///
/// A server whose operator asks mimalloc for large OS pages
/// (`MIMALLOC_ALLOW_LARGE_OS_PAGES=1`) has them: mimalloc then asks for huge pages on
/// its arenas alone (`madvise`), which is what a host that makes idle 4 KiB pages dear
/// to read again (`pawns bench machine`) rewards. The switch is inherited across
/// `exec`, so the server turns it back on (a server spawned by `bench agents --spawn`
/// inherits the load generator's "off"). Other commands, the load generators among
/// them, never get them, so a run's A/B changes the server alone.
fn no_huge_pages(serving: bool) {
    let off = !(serving && large_pages_asked());
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, off as libc::c_ulong, 0, 0, 0);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = off;
}

/// Whether mimalloc was asked for large OS pages (its own variable, either spelling).
fn large_pages_asked() -> bool {
    ["MIMALLOC_ALLOW_LARGE_OS_PAGES", "MIMALLOC_LARGE_OS_PAGES"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|x| matches!(x.trim().to_ascii_lowercase().as_str(), "1" | "on" | "yes" | "true")))
}

/// mimalloc's `purge_delay` (`mi_option_purge_delay` in mimalloc.h's option enum).
#[cfg(not(feature = "system-alloc"))]
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long freed memory stays with the allocator before it goes back to the OS.
/// mimalloc's default (1 s) is shorter than the search index's commit interval (2 s):
/// tantivy's indexing thread, started afresh at every commit, allocated its ~15 MiB of
/// zeroed arenas from memory just given back, and faulted every page in again (at 40
/// telnet players, 42,700 page faults in 20 s, 97 % of them there; 11,600 with 10 s, and
/// 0.90 -> 0.78 ms of server CPU per command). `MIMALLOC_PURGE_DELAY` still decides when set.
#[cfg(not(feature = "system-alloc"))]
const PURGE_DELAY_MS: std::os::raw::c_long = 10_000;

fn slow_purge() {
    #[cfg(not(feature = "system-alloc"))]
    {
        // mimalloc reads a valid setting itself; one it cannot read it drops silently,
        // so that one is named here and the server's default used.
        match std::env::var("MIMALLOC_PURGE_DELAY") {
            Ok(v) if v.trim().parse::<i64>().is_ok() => return,
            Ok(v) => eprintln!(
                "warning (invalid_env): MIMALLOC_PURGE_DELAY={v:?} is not a whole number of milliseconds (-1: never); using {PURGE_DELAY_MS}"
            ),
            Err(std::env::VarError::NotUnicode(_)) => {
                eprintln!("warning (invalid_env): MIMALLOC_PURGE_DELAY is not text; using {PURGE_DELAY_MS}")
            }
            Err(std::env::VarError::NotPresent) => {}
        }
        // SAFETY: sets one of mimalloc's integer options; no memory of ours is touched.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

/// Message fan-out allocates and frees many small buffers across threads; mimalloc
/// handles that pattern far better than the system allocator (see the closing note
/// of the foundation issue for the figures). The `system-alloc` feature leaves it out, so
/// that a heap profiler that intercepts malloc (heaptrack) sees every allocation.
#[cfg(all(not(feature = "system-alloc"), not(feature = "heap-count")))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The same allocator, its live bytes counted for `pawns_heap_live_bytes` (the
/// `heap-count` feature: a diagnostic build, one atomic add per allocation and free).
#[cfg(all(not(feature = "system-alloc"), feature = "heap-count"))]
#[global_allocator]
static GLOBAL: pawns::metrics::heap::Counting<mimalloc::MiMalloc> = pawns::metrics::heap::Counting(mimalloc::MiMalloc);

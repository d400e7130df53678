//! `pawns`: argument parsing, then the library does the work.

use std::process::ExitCode;

use clap::Parser;
use pawns::cli::{BenchCmd, Cli, Cmd, ExportCmd, WorldCmd};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    match &cli.command {
        Cmd::Serve(a) if a.workers > 0 => {
            builder.worker_threads(a.workers);
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
            Cmd::Serve(args) => pawns::commands::serve(args).await,
            Cmd::Keygen(args) => pawns::commands::keygen(args).await,
            Cmd::World { what: WorldCmd::Check(args) } => pawns::commands::world_check(args),
            Cmd::Search(args) => pawns::search::cli::search(args).await,
            Cmd::Reindex(args) => pawns::search::cli::reindex(args).await,
            Cmd::Dream(args) => pawns::memory::cli::dream(args).await,
            Cmd::Agent(args) => pawns::agent::cli::agent(args).await,
            Cmd::Backup(args) => pawns::commands::backup(args).await,
            Cmd::Restore(args) => pawns::commands::restore(args).await,
            Cmd::Export { what: ExportCmd::Sessions(args) } => pawns::commands::export(args, false).await,
            Cmd::Export { what: ExportCmd::Decisions(args) } => pawns::commands::export(args, true).await,
            Cmd::Bench { what: BenchCmd::Agents(args) } => pawns::bench::agents(args).await,
            Cmd::Bench { what: BenchCmd::World(args) } => pawns::bench_world::run(args),
            Cmd::Bench { what: BenchCmd::Search(args) } => pawns::bench_search::run(args),
            Cmd::Bench { what: BenchCmd::Dream(args) } => pawns::bench_dream::run(args),
            Cmd::Bench { what: BenchCmd::Decide(args) } => pawns::agent::bench::run(args),
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

/// Message fan-out allocates and frees many small buffers across threads; mimalloc
/// handles that pattern far better than the system allocator (see the closing note
/// of the foundation issue for the figures).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

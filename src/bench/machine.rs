//! `pawns bench machine`: what this machine does to memory that sits idle. A server
//! touches most of its state (sessions, characters, rooms, mobs) only every second or
//! so. On a bare machine a page read after sitting idle costs a cache and TLB miss, a
//! fraction of a microsecond; in a virtual machine, with nested page tables gone cold,
//! a few. On some hosts it costs tens of microseconds, and varies from hour to hour
//! (on this project's 2-core VM: 3 to 37 µs the same day), invisibly to the guest: no
//! page fault is counted, and the time shows as the process's own CPU. Every latency
//! and CPU-per-command figure is slowed by it, so `bench telnet` and `bench agents`
//! print this probe beside their figures. The disk's half (one durable commit's CPU
//! and time) is `sync_probe`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::bail;
use serde_json::json;

use crate::cli::BenchMachineArgs;

const PAGE: usize = 4096;

/// One probe: after every page of `buf` is written, wait `idle`, then read `reads`
/// distinct pages in a scattered order; the mean time per read, in microseconds.
/// `round` moves the read order, so that repeated probes on one buffer differ.
pub fn idle_read_us(buf: &mut [u8], idle: Duration, reads: usize, round: usize) -> f64 {
    let pages = buf.len() / PAGE;
    if pages == 0 || reads == 0 {
        return 0.0;
    }
    for p in 0..pages {
        buf[p * PAGE] = buf[p * PAGE].wrapping_add(1);
    }
    black_box(&mut *buf);
    std::thread::sleep(idle);
    let stride = coprime_stride(pages);
    let reads = reads.min(pages);
    let mut page = (round * 7_919) % pages;
    let mut sum = 0u8;
    let t0 = Instant::now();
    for k in 0..reads {
        // A different line in each page, so that no read hits a line another one loaded.
        let at = page * PAGE + (k * 64) % PAGE;
        sum = sum.wrapping_add(black_box(buf[at]));
        page = (page + stride) % pages;
    }
    let spent = t0.elapsed();
    black_box(sum);
    spent.as_secs_f64() * 1e6 / reads as f64
}

/// A step through `pages` that visits each page once before any twice (coprime with
/// it) and jumps far enough that no prefetcher follows it.
fn coprime_stride(pages: usize) -> usize {
    if pages <= 2 {
        return 1;
    }
    let mut s = pages / 2 + 1;
    while gcd(s, pages) != 1 {
        s += 1;
    }
    s
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The one-line probe the load generators print: 64 MB, 2 seconds idle.
pub fn quick_probe() -> f64 {
    let mut buf = vec![0u8; 64 << 20];
    idle_read_us(&mut buf, Duration::from_secs(2), 4_000, 0)
}

/// The line the load generators print under their figures.
pub fn probe_line(us: f64) -> String {
    let verdict = if us < 1.0 {
        "a cache and TLB miss, as on a bare machine"
    } else if us < 5.0 {
        "cold page walks, as in a virtual machine"
    } else {
        "far beyond a cache or TLB miss: the host is likely taking idle memory back, and every figure that touches idle state (sessions, rooms, mobs) is slowed by it"
    };
    format!("a page idle for 2 s costs {us:.2} µs to read again ({verdict})")
}

pub fn run(args: BenchMachineArgs) -> anyhow::Result<()> {
    if args.mb == 0 || args.mb > 16_384 {
        bail!("bad_args: --mb must be from 1 to 16384");
    }
    let pages = (args.mb << 20) / PAGE;
    if args.reads == 0 || args.reads > pages {
        bail!("bad_args: --reads must be from 1 to the pages in --mb ({pages})");
    }
    if args.idle.is_empty() {
        bail!("bad_args: --idle needs at least one duration");
    }
    if args.syncs > 0 && (args.sync_pages.is_empty() || args.sync_pages.contains(&0)) {
        bail!("bad_args: --sync-pages needs sizes of at least 1 page");
    }
    if args.syncs > 0 {
        super::sync_probe::check_dir(&args.sync_dir)?;
    }
    let mut buf = vec![0u8; args.mb << 20];
    let mut rows = Vec::new();
    for (round, idle) in args.idle.iter().enumerate() {
        if !args.json {
            eprintln!("idle {:?} ...", idle);
        }
        let us = idle_read_us(&mut buf, *idle, args.reads, round);
        rows.push(json!({"idle_s": idle.as_secs_f64(), "us_per_read": us}));
    }
    drop(buf);
    let mut syncs = Vec::new();
    if args.syncs > 0 {
        for &pages in &args.sync_pages {
            if !args.json {
                eprintln!("{} commits of {pages} page(s) in {} ...", args.syncs, args.sync_dir.display());
            }
            syncs.push(super::sync_probe::sync_cost(&args.sync_dir, pages, args.syncs)?);
        }
    }
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    if args.json {
        let sync_rows: Vec<_> = syncs.iter().map(|c| json!({"pages": c.pages, "cpu_us": c.cpu_us, "wall_us": c.wall_us})).collect();
        println!(
            "{}",
            json!({"cores": cores, "mb": args.mb, "reads": args.reads, "probes": rows, "sync_dir": args.sync_dir, "commits": args.syncs, "syncs": sync_rows})
        );
        return Ok(());
    }
    println!("====== pawns bench machine ======");
    println!("  {cores} cores; {} MB written, then {} of its pages read after each idle time:", args.mb, args.reads);
    for r in &rows {
        println!("  idle {:>6.1} s: {:>7.2} µs per page", r["idle_s"].as_f64().unwrap_or(0.0), r["us_per_read"].as_f64().unwrap_or(0.0));
    }
    println!("  (a bare machine: under 1 µs at any idle time; a virtual machine's page walks: a few µs; tens of µs: the host takes idle memory back)");
    if !syncs.is_empty() {
        println!("  durable commits in {} ({} each: pages written, then fdatasync):", args.sync_dir.display(), args.syncs);
        for c in &syncs {
            println!("  {:>4} page(s): {:>7.1} µs of CPU, {:>7.1} µs of wall time per commit", c.pages, c.cpu_us, c.wall_us);
        }
        println!("  {}", super::sync_probe::floor_line(&syncs[0]));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stride_visits_every_page_once() {
        for pages in [1, 2, 3, 4, 10, 16, 255, 256, 1000, 4096] {
            let s = coprime_stride(pages);
            let mut seen = vec![false; pages];
            let mut p = 0;
            for _ in 0..pages {
                assert!(!seen[p], "page {p} twice with {pages} pages, stride {s}");
                seen[p] = true;
                p = (p + s) % pages;
            }
            assert!(seen.iter().all(|v| *v));
        }
    }

    #[test]
    fn a_probe_reads_and_writes_every_page() {
        let mut buf = vec![0u8; 64 * PAGE];
        let us = idle_read_us(&mut buf, Duration::ZERO, 64, 3);
        assert!(us.is_finite() && us >= 0.0);
        // Every page was written once: its first byte went from 0 to 1.
        assert!((0..64).all(|p| buf[p * PAGE] == 1));
        assert_eq!(idle_read_us(&mut [], Duration::ZERO, 10, 0), 0.0);
    }

    #[test]
    fn the_line_says_which_kind_of_machine() {
        assert!(probe_line(0.4).contains("bare machine"));
        assert!(probe_line(2.5).contains("virtual machine"));
        assert!(probe_line(25.0).contains("taking idle memory back"));
        assert!(probe_line(25.0).starts_with("a page idle for 2 s costs 25.00 µs"));
    }
}

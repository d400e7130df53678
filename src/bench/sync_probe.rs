//! `pawns bench machine`'s disk half: what one durable commit costs this machine's disk
//! and kernel. The recorder keeps its promise (every record durable within
//! `DURABLE_PROMISE_US`) by syncing the data file at least once per promise while
//! anything is being recorded — twenty times a second and more — so the CPU of one
//! `fdatasync` (the kernel's writeback, the block layer, and in a virtual machine the
//! exit that tells the host) is a floor under the CPU of a recorded server, however few
//! commands it runs. This probe measures that floor where the data file would live.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};

const PAGE: u64 = 4096;
/// The scratch file's span: commits write pages scattered over it, as a copy-on-write
/// B-tree's new pages land wherever the allocator finds room.
const SPAN_PAGES: u64 = 16_384;

/// One probe's result: per commit (its pages written, then `fdatasync`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyncCost {
    pub pages: usize,
    /// This thread's CPU (user and system), µs.
    pub cpu_us: f64,
    /// Wall time, µs.
    pub wall_us: f64,
}

/// This thread's CPU time so far, µs.
fn thread_cpu_us() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 / 1e3
}

/// The scratch file, removed when dropped.
struct Scratch(PathBuf, File);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The directory a probe writes its scratch file in must be one (checked before any
/// probe runs, so a mistyped path fails at once).
pub fn check_dir(dir: &Path) -> anyhow::Result<()> {
    if !dir.is_dir() {
        bail!("bad_args: --sync-dir {}: not a directory", dir.display());
    }
    Ok(())
}

/// `commits` commits of `pages` scattered 4 KiB pages each, each followed by
/// `fdatasync`, in a scratch file in `dir` (removed after).
pub fn sync_cost(dir: &Path, pages: usize, commits: usize) -> anyhow::Result<SyncCost> {
    check_dir(dir)?;
    if pages == 0 || pages as u64 > SPAN_PAGES || commits == 0 {
        bail!("bad_args: pages per commit must be from 1 to {SPAN_PAGES}, and commits at least 1");
    }
    let path = dir.join(format!("pawns-bench-sync-{}.tmp", std::process::id()));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .with_context(|| format!("io_failed: cannot create a scratch file in {}", dir.display()))?;
    let scratch = Scratch(path, file);
    // The file's span exists and is on disk before timing: commits overwrite pages, as
    // a data file's commits do, rather than growing the file.
    scratch.1.set_len(SPAN_PAGES * PAGE).context("io_failed: cannot size the scratch file")?;
    let page = vec![0x5au8; PAGE as usize];
    for p in (0..SPAN_PAGES).step_by(64) {
        scratch.1.write_all_at(&page, p * PAGE).context("io_failed: cannot write the scratch file")?;
    }
    scratch.1.sync_all().context("io_failed: cannot sync the scratch file")?;
    let stride = SPAN_PAGES / 2 + 1; // odd, so coprime with the power-of-two span
    let mut at = 0u64;
    let (cpu0, t0) = (thread_cpu_us(), Instant::now());
    for _ in 0..commits {
        for _ in 0..pages {
            scratch.1.write_all_at(&page, at * PAGE).context("io_failed: cannot write the scratch file")?;
            at = (at + stride) % SPAN_PAGES;
        }
        scratch.1.sync_data().context("io_failed: cannot sync the scratch file")?;
    }
    let (cpu, wall) = (thread_cpu_us() - cpu0, t0.elapsed().as_secs_f64() * 1e6);
    Ok(SyncCost { pages, cpu_us: cpu / commits as f64, wall_us: wall / commits as f64 })
}

/// The least commits a second a recording server makes while anything is recorded.
pub fn promise_commits_per_s() -> f64 {
    1e6 / pawns::metrics::DURABLE_PROMISE_US as f64
}

/// The line that says what the cheapest commit means for a recorded server.
pub fn floor_line(c: &SyncCost) -> String {
    let per_s = promise_commits_per_s();
    let ms = c.cpu_us * per_s / 1000.0;
    format!(
        "keeping the {} ms promise takes at least {per_s:.0} commits a second while anything is recorded: {ms:.1} ms of CPU a second ({:.2} % of a core) in syncs alone, however few commands",
        pawns::metrics::DURABLE_PROMISE_US / 1000,
        ms / 10.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_syncs_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let c = sync_cost(dir.path(), 2, 3).unwrap();
        assert_eq!(c.pages, 2);
        assert!(c.wall_us > 0.0 && c.wall_us.is_finite(), "{c:?}");
        assert!(c.cpu_us >= 0.0 && c.cpu_us.is_finite(), "{c:?}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the scratch file is removed");
    }

    #[test]
    fn bad_places_and_sizes_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let e = sync_cost(&missing, 1, 1).unwrap_err().to_string();
        assert!(e.starts_with("bad_args: --sync-dir") && e.contains("not a directory"), "{e}");
        assert!(sync_cost(dir.path(), 0, 1).unwrap_err().to_string().starts_with("bad_args"));
        assert!(sync_cost(dir.path(), 1, 0).unwrap_err().to_string().starts_with("bad_args"));
        assert!(sync_cost(dir.path(), SPAN_PAGES as usize + 1, 1).unwrap_err().to_string().starts_with("bad_args"));
    }

    #[test]
    fn the_floor_is_the_promise_rate_times_one_sync() {
        assert_eq!(promise_commits_per_s(), 20.0);
        let line = floor_line(&SyncCost { pages: 1, cpu_us: 100.0, wall_us: 300.0 });
        assert!(line.contains("at least 20 commits a second"), "{line}");
        assert!(line.contains("2.0 ms of CPU a second (0.20 % of a core)"), "{line}");
    }
}

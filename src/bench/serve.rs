//! What the load generators share about the server they measure: starting one of their
//! own (`--spawn`: this binary's `pawns serve` on a scratch data file), its CPU and
//! memory from `/proc`, and its pulse timings from `/metrics`.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

/// A server started for one bench run; stopped (SIGTERM, then waited for) when dropped.
/// Its log is `server.log` in its scratch directory.
pub struct Spawned {
    child: Child,
    pub pid: u32,
    pub port: u16,
    /// The scratch directory holding its data file (kept with `--keep`).
    pub dir: PathBuf,
    keep: bool,
    stopped: bool,
}

impl Spawned {
    /// Starts `pawns serve` on a free port with a scratch data file, logins and
    /// connections from one address unthrottled,
    /// `world` imported (or the starter world), and `extra` flags; returns once `/health`
    /// answers.
    pub async fn start(world: Option<&PathBuf>, extra: &[String], keep: bool) -> anyhow::Result<Spawned> {
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!("pawns-bench-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let exe = std::env::current_exe().context("finding this program to start the server")?;
        let mut cmd = Command::new(exe);
        cmd.arg("serve").args(["--host", "127.0.0.1", "--port", &port.to_string(), "--db"]).arg(dir.join("bench.redb")).args([
            "--login-rate",
            "1000000",
            "--login-burst",
            "1000000",
        ]);
        if !extra.iter().any(|a| a == "--log" || a.starts_with("--log=")) {
            cmd.args(["--log", "warn"]);
        }
        // Every agent connects from 127.0.0.1: the per-address cap (10,000) would turn
        // the last of a 10,000-agent run away beside the bench's own HTTP calls.
        if !extra.iter().any(|a| a.starts_with("--max-per-ip")) {
            cmd.args(["--max-per-ip", "1000000"]);
        }
        if let Some(w) = world {
            cmd.arg("--world").arg(w);
        }
        // Its log (warnings: pulses that overran, a recorder falling behind) is kept beside its data.
        let log = std::fs::File::create(dir.join("server.log")).context("creating the server's log")?;
        let err = log.try_clone().context("creating the server's log")?;
        cmd.args(extra).stdin(Stdio::null()).stdout(log).stderr(err);
        let child = cmd.spawn().context("starting pawns serve")?;
        let mut s = Spawned { pid: child.id(), child, port, dir, keep, stopped: false };
        let base = s.base();
        let until = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = s.child.try_wait()? {
                let log = std::fs::read_to_string(s.dir.join("server.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(5).collect();
                bail!("the server exited before it was up ({status}): {}", tail.into_iter().rev().collect::<Vec<_>>().join(" | "));
            }
            if pawns::client::get(&format!("{base}/health")).await.is_ok() {
                break;
            }
            if Instant::now() > until {
                bail!("the server did not answer /health within 2 minutes");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        eprintln!("started pawns serve (pid {}) on port {port}, data and server.log in {}", s.pid, s.dir.display());
        Ok(s)
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}/ws", self.port)
    }
}

impl Spawned {
    /// Stops the server (as dropping it does), keeping its directory until the drop.
    pub fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        // SIGTERM: the server saves and stops in order (within 5 s).
        let _ = Command::new("kill").args(["-TERM", &self.pid.to_string()]).status();
        let until = Instant::now() + Duration::from_secs(15);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        self.stop();
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn free_port() -> anyhow::Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(l.local_addr()?.port())
}

/// CPU seconds (user + system) and RSS (KiB) of a process, from /proc (Linux).
pub fn proc_sample(pid: u32) -> Option<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let cpu = super::threads::stat_cpu_seconds(&stat)?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss_kb = status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some((cpu, rss_kb))
}

/// A process's resident memory split (KiB): anonymous (heap, caches) and file-backed
/// (the search index's segments, mapped; the binary), from /proc (Linux). A soak's
/// growth in the second is the index being read, not memory held.
pub fn rss_split(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = |key: &str| -> Option<u64> { status.lines().find(|l| l.starts_with(key))?.split_whitespace().nth(1)?.parse().ok() };
    Some((kb("RssAnon:")?, kb("RssFile:")? + kb("RssShmem:").unwrap_or(0)))
}

/// This process's own CPU seconds (the load generator's share of the machine).
pub fn own_cpu() -> f64 {
    proc_sample(std::process::id()).map(|s| s.0).unwrap_or(0.0)
}

/// Histograms of a server's `/metrics`, as (upper bound s, cumulative count): its
/// pulses' durations, its commands' way from being read to their reply written, how
/// long after the engine handed them over each commit made its records durable, and how
/// old its oldest record was at the hand-over (both empty when the server records
/// nothing).
pub struct ServerHistograms {
    pub pulses: Vec<(f64, u64)>,
    pub replies: Vec<(f64, u64)>,
    pub durable: Vec<(f64, u64)>,
    pub handover: Vec<(f64, u64)>,
}

/// One scrape of the server's [`ServerHistograms`].
pub async fn server_histograms(base: &str) -> Option<ServerHistograms> {
    let page = pawns::client::get(&format!("{base}/metrics")).await.ok()?;
    Some(ServerHistograms {
        pulses: parse_buckets(&page, "pawns_pulse_duration_seconds_bucket"),
        replies: parse_buckets(&page, "pawns_command_reply_seconds_bucket"),
        durable: parse_buckets(&page, "pawns_record_durable_lag_seconds_bucket"),
        handover: parse_buckets(&page, "pawns_record_handover_age_seconds_bucket"),
    })
}

/// The upper bound of the bucket holding quantile `q` of a [`bucket_delta`] (a
/// histogram says no more than that): `None` when it holds nothing.
pub fn bucket_quantile(delta: &[(f64, u64)], q: f64) -> Option<f64> {
    let total: u64 = delta.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return None;
    }
    let want = (total as f64 * q).ceil().max(1.0) as u64;
    let mut seen = 0;
    delta
        .iter()
        .find(|(_, n)| {
            seen += n;
            seen >= want
        })
        .map(|(le, _)| *le)
}

/// The record's promise over a [`bucket_delta`] of its durable lag: (p99 bound ms,
/// commits later than 50 ms, commits); none when nothing was committed.
pub fn durable_summary(delta: &[(f64, u64)]) -> Option<(f64, u64, u64)> {
    let commits: u64 = delta.iter().map(|(_, n)| n).sum();
    let late: u64 = delta.iter().filter(|(le, _)| *le > pawns::metrics::DURABLE_PROMISE_US as f64 / 1e6).map(|(_, n)| n).sum();
    Some((bucket_quantile(delta, 0.99)? * 1000.0, late, commits))
}

/// One unlabelled sample (a gauge or counter) from Prometheus text.
pub fn gauge(page: &str, name: &str) -> Option<f64> {
    page.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// A histogram's cumulative buckets from Prometheus text.
pub fn parse_buckets(page: &str, name: &str) -> Vec<(f64, u64)> {
    let mut out = Vec::new();
    for line in page.lines().filter(|l| l.starts_with(name)) {
        let Some(le) = line.split("le=\"").nth(1).and_then(|r| r.split('"').next()) else { continue };
        let le = if le == "+Inf" { f64::INFINITY } else { le.parse().unwrap_or(f64::NAN) };
        let Some(n) = line.rsplit(' ').next().and_then(|v| v.parse::<f64>().ok()) else { continue };
        out.push((le, n as u64));
    }
    out
}

/// Pulses per bucket between two scrapes: (upper bound s, pulses in (previous bound, bound]).
pub fn bucket_delta(before: &[(f64, u64)], after: &[(f64, u64)]) -> Vec<(f64, u64)> {
    let mut prev = 0;
    let mut out = Vec::new();
    for (i, (le, n)) in after.iter().enumerate() {
        let cum = n.saturating_sub(before.get(i).map(|b| b.1).unwrap_or(0));
        out.push((*le, cum.saturating_sub(prev)));
        prev = cum;
    }
    out
}

/// "≤1ms 812 · ≤2.5ms 40 · … " (empty buckets left out).
pub fn describe_buckets(delta: &[(f64, u64)]) -> String {
    delta
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(le, n)| if le.is_infinite() { format!(">10s {n}") } else { format!("≤{}ms {n}", le * 1000.0) })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The spawned server's data file and search index on disk (bytes): what the record
/// costs, read at the measured window's ends.
pub fn disk_bytes(dir: &std::path::Path) -> (u64, u64) {
    let db = dir.join("bench.redb");
    let file = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
    let index = std::fs::read_dir(pawns::search::index::index_dir(&db))
        .map(|d| d.flatten().filter_map(|e| e.metadata().ok()).filter(|m| m.is_file()).map(|m| m.len()).sum())
        .unwrap_or(0);
    (file, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gauge_is_read_by_its_whole_name() {
        let page = "# TYPE pawns_replay_ring_bytes gauge\npawns_replay_ring_bytes_x 1\npawns_replay_ring_bytes 2048\n";
        assert_eq!(gauge(page, "pawns_replay_ring_bytes"), Some(2048.0));
        assert_eq!(gauge(page, "pawns_record_backlog"), None);
    }

    #[test]
    fn buckets_parse_and_subtract() {
        let page = "# TYPE x histogram\npawns_pulse_duration_seconds_bucket{le=\"0.001\"} 5\npawns_pulse_duration_seconds_bucket{le=\"0.01\"} 9\npawns_pulse_duration_seconds_bucket{le=\"+Inf\"} 10\npawns_pulse_duration_seconds_sum 0.1\n";
        let b = parse_buckets(page, "pawns_pulse_duration_seconds_bucket");
        assert_eq!(b, vec![(0.001, 5), (0.01, 9), (f64::INFINITY, 10)]);
        let before = vec![(0.001, 2), (0.01, 3), (f64::INFINITY, 3)];
        assert_eq!(bucket_delta(&before, &b), vec![(0.001, 3), (0.01, 3), (f64::INFINITY, 1)]);
        assert_eq!(describe_buckets(&bucket_delta(&before, &b)), "≤1ms 3 · ≤10ms 3 · >10s 1");
    }

    #[test]
    fn a_quantile_is_the_bound_of_its_bucket() {
        let d = vec![(0.001, 90), (0.01, 9), (0.1, 1), (f64::INFINITY, 0)];
        assert_eq!(bucket_quantile(&d, 0.5), Some(0.001));
        assert_eq!(bucket_quantile(&d, 0.9), Some(0.001));
        assert_eq!(bucket_quantile(&d, 0.99), Some(0.01));
        assert_eq!(bucket_quantile(&d, 1.0), Some(0.1));
        assert_eq!(bucket_quantile(&[(0.001, 0)], 0.99), None);
    }
}

//! What the server measures about itself, for `GET /metrics` (Prometheus's text format,
//! `render.rs`) and for `/health`'s verdict (`health`).
//!
//! Counters and histograms are atomics any thread adds to without a lock: the engine
//! (pulses, commands, sessions, the engine's slow-consumer cuts), the links (theirs),
//! the recorder (`RecorderStats`), the indexer (`IndexerStats`) and the dreamer
//! (`DreamerStats`) each keep their own; the renderer reads them all.

pub mod heap;
pub mod render;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Memory the broadcasts' shared event tails hold (`net::shared_events::Tail`), counted
/// where they are made and dropped: the replay rings that keep them count a pointer each.
pub static SHARED_TAIL_BYTES: AtomicU64 = AtomicU64::new(0);

pub use crate::game::run::histogram::{Histogram, LateWindow};
pub use crate::game::run::stats::{EngineStats, Sessions, PULSE_OVERRUNS_DEGRADED, PULSE_WINDOW, STALL_US};
use std::sync::Arc;

pub use crate::record::recorder::{COMMITS_LATE_DEGRADED, COMMIT_WINDOW, DURABLE_PROMISE_US};

/// The engine's and the edge's measurements: the engine's own stats (pulses, commands,
/// sessions, the engine's slow-consumer cuts, admission), which it counts into as it runs,
/// and the links' beside them (the background threads keep theirs in their own stats).
/// It reads as the engine's stats too (`metrics.pulse`), which it extends.
pub struct Metrics {
    /// The engine's counters, shared with it.
    pub engine: Arc<EngineStats>,
    /// A command's whole way through the server: received by its session → its reply
    /// written to the socket.
    pub command_reply: Histogram,
    /// Sessions cut off because a JSON link's queue to the socket was full.
    pub slow_consumer_link: AtomicU64,
    /// Frames a JSON link's replay ring let go of to stay within its limits (a resume
    /// from before them is refused with `resume_failed`).
    pub replay_evicted: AtomicU64,
    /// Bytes and frames held by every JSON link's replay ring now.
    pub replay_bytes: AtomicU64,
    pub replay_frames: AtomicU64,
}

impl Metrics {
    /// The server's measurements around the engine's counters.
    pub fn over(engine: Arc<EngineStats>) -> Self {
        Metrics {
            engine,
            command_reply: Histogram::seconds(),
            slow_consumer_link: AtomicU64::new(0),
            replay_evicted: AtomicU64::new(0),
            replay_bytes: AtomicU64::new(0),
            replay_frames: AtomicU64::new(0),
        }
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::over(Arc::default())
    }
}

impl std::ops::Deref for Metrics {
    type Target = EngineStats;
    fn deref(&self) -> &EngineStats {
        &self.engine
    }
}

/// What `/health` looks at beyond the engine being alive. `now_us` is on the metrics'
/// monotonic clock; `unix_now_us` on the wall clock (the recorder's times).
pub struct HealthInputs<'a> {
    pub metrics: &'a Metrics,
    pub recorder: Option<&'a crate::record::RecorderStats>,
    pub now_us: u64,
    pub unix_now_us: u64,
}

impl<'a> HealthInputs<'a> {
    pub fn now(metrics: &'a Metrics, recorder: Option<&'a crate::record::RecorderStats>) -> Self {
        HealthInputs { metrics, recorder, now_us: metrics.since_epoch_us(), unix_now_us: crate::time::unix_us() }
    }
}

/// Why the server is degraded, if it is: each reason a stable code and a sentence.
pub fn degraded(h: &HealthInputs) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let m = h.metrics;
    let overruns = m.pulse_overruns_recent.load(Relaxed);
    if overruns >= PULSE_OVERRUNS_DEGRADED {
        out.push(("pulse_overrun", format!("{overruns} of the last {PULSE_WINDOW} pulses overran their length")));
    }
    if m.input_held.load(Relaxed) {
        out.push((
            "input_held",
            "the record is far behind: the engine takes input slowly (and puts pulses off) until it catches up".to_string(),
        ));
    }
    let last = m.last_pulse_us.load(Relaxed);
    if last > 0 && h.now_us.saturating_sub(last) > STALL_US {
        out.push(("engine_stalled", format!("no pulse has ended for {} ms", h.now_us.saturating_sub(last) / 1000)));
    }
    if let Some(r) = h.recorder {
        if let Some((since, why)) = r.failing_since() {
            let secs = h.unix_now_us.saturating_sub(since) / 1_000_000;
            out.push(("storage_failed", format!("the data file cannot be written (for {secs} s): {why}")));
        }
        let late = r.late_recent.load(Relaxed);
        if late >= COMMITS_LATE_DEGRADED {
            out.push((
                "recorder_behind",
                format!("{late} of the last {COMMIT_WINDOW} commits made records durable later than {} ms", DURABLE_PROMISE_US / 1000),
            ));
        }
        let backlog = r.backlog.load(Relaxed);
        let since = r.last_commit_end_us.load(Relaxed);
        if backlog > 0 && since > 0 && h.unix_now_us.saturating_sub(since) > STALL_US {
            out.push((
                "recorder_stalled",
                format!("{backlog} records wait and no commit has ended for {} ms", h.unix_now_us.saturating_sub(since) / 1000),
            ));
        }
    }
    out
}

/// This process's resident memory and CPU time, from /proc (Linux; `None` elsewhere).
pub fn process_sample() -> Option<(u64, f64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let rss_kb: u64 = status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let f: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some((rss_kb * 1024, ticks / 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn healthy_until_a_window_overruns_or_the_engine_stalls() {
        let m = Metrics::default();
        let now = 10_000_000;
        m.last_pulse_us.store(now - 100_000, Relaxed);
        assert!(degraded(&HealthInputs { metrics: &m, recorder: None, now_us: now, unix_now_us: now }).is_empty());
        m.pulse_overruns_recent.store(PULSE_OVERRUNS_DEGRADED, Relaxed);
        let d = degraded(&HealthInputs { metrics: &m, recorder: None, now_us: now, unix_now_us: now });
        assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), ["pulse_overrun"]);
        m.pulse_overruns_recent.store(0, Relaxed);
        let d = degraded(&HealthInputs { metrics: &m, recorder: None, now_us: now + STALL_US, unix_now_us: now });
        assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), ["engine_stalled"]);
    }

    #[test]
    fn a_late_or_stalled_recorder_degrades() {
        let m = Metrics::default();
        let r = crate::record::RecorderStats::default();
        let now = 10_000_000;
        assert!(degraded(&HealthInputs { metrics: &m, recorder: Some(&r), now_us: now, unix_now_us: now }).is_empty());
        r.late_recent.store(COMMITS_LATE_DEGRADED, Relaxed);
        r.backlog.store(7, Relaxed);
        r.last_commit_end_us.store(now - STALL_US - 1, Relaxed);
        let d = degraded(&HealthInputs { metrics: &m, recorder: Some(&r), now_us: now, unix_now_us: now });
        assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), ["recorder_behind", "recorder_stalled"]);
    }

    #[test]
    fn process_sample_reads_this_process() {
        let (rss, cpu) = process_sample().expect("linux /proc");
        assert!(rss > 1 << 20 && cpu >= 0.0);
    }
}

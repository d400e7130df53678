//! A soak's samples (`bench agents --sample-every`): every interval, the server's RSS
//! (total and anonymous), what its `/metrics` say holds memory, and the replies' p50/p99
//! over that interval; the memory's growth is judged after the first 10 minutes.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::agents::percentile;
use super::serve::{gauge, proc_sample, rss_split};

/// A soak's RSS is judged from this long into the measured window (start-up, the
/// indexer's and allocator's first growth are behind it by then).
pub const SETTLE_S: f64 = 600.0;

/// What the server's `/metrics` said beside an RSS sample (NaN: not on the page).
#[derive(Debug, Clone, Copy)]
pub struct Held {
    /// The replay rings' bytes.
    pub rings: f64,
    /// Records waiting for the recorder.
    pub backlog: f64,
    /// Objects in the world.
    pub objects: f64,
    /// The data file's page cache, bytes.
    pub store_cache: f64,
}

/// What the sampler saw, in order.
#[derive(Default)]
pub struct Samples {
    /// (seconds into the window, RSS KiB).
    pub rss: Vec<(f64, u64)>,
    /// (seconds, the RSS's anonymous part in KiB): what the process holds, without the
    /// index files it has mapped and read.
    pub anon: Vec<(f64, u64)>,
    /// Beside each RSS sample: what the server's gauges say holds memory.
    pub held: Vec<Held>,
    /// (seconds, the heap's live KiB) from a `heap-count` build's `pawns_heap_live_bytes`:
    /// what the program holds, where the RSS adds what the allocator keeps besides.
    pub heap: Vec<(f64, u64)>,
    /// Each interval's reply p99 (ms).
    pub p99s: Vec<f64>,
}

impl Samples {
    /// The soak's part of `bench agents --json`: every sample, and the growth judged
    /// both ways.
    pub fn json_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let growth = |s: &[(f64, u64)]| rss_growth(s, SETTLE_S).map(|(_, _, g)| g);
        let trend = |s: &[(f64, u64)]| rss_trend(s, SETTLE_S).map(|(_, _, g)| g);
        let v = json!({
            "rss_samples": self.rss.iter().map(|(t, kib)| json!([t, kib])).collect::<Vec<_>>(),
            // Beside each RSS sample: the replay rings' bytes, the record backlog, the world's
            // objects, the data file's page cache.
            "held_samples": self.held.iter().map(|h| json!([h.rings, h.backlog, h.objects, h.store_cache])).collect::<Vec<_>>(),
            "rss_growth_after_settling_percent": growth(&self.rss),
            "rss_anon_samples": self.anon.iter().map(|(t, kib)| json!([t, kib])).collect::<Vec<_>>(),
            "rss_anon_growth_after_settling_percent": growth(&self.anon),
            // The same judged by the least-squares line through every settled sample.
            "rss_trend_growth_percent": trend(&self.rss),
            "rss_anon_trend_growth_percent": trend(&self.anon),
            "p99_ms_per_sample": &self.p99s,
            "heap_live_samples": self.heap.iter().map(|(t, kib)| json!([t, kib])).collect::<Vec<_>>(),
            "heap_live_growth_after_settling_percent": growth(&self.heap),
            "heap_live_trend_growth_percent": trend(&self.heap),
        });
        match v {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        }
    }

    /// The soak's lines of the report (nothing when there were no samples).
    pub fn print(&self) {
        if let Some((from, to, g)) = rss_growth(&self.rss, SETTLE_S) {
            println!(
                "  soak:              RSS {:.1} MB at {SETTLE_S:.0}s, {:.1} MB at the end: {g:+.2}% ({} samples)",
                from as f64 / 1024.0,
                to as f64 / 1024.0,
                self.rss.len()
            );
        }
        for (what, s, rest) in [
            ("(anonymous):", &self.anon, "the rest is mapped index files"),
            ("(live heap): ", &self.heap, "the rest of the anonymous memory is the allocator's"),
        ] {
            if let Some((from, to, g)) = rss_growth(s, SETTLE_S) {
                println!(
                    "  soak {what} {:.1} MB at {SETTLE_S:.0}s, {:.1} MB at the end: {g:+.2}% ({rest})",
                    from as f64 / 1024.0,
                    to as f64 / 1024.0
                );
            }
        }
        for (what, s) in [("RSS", &self.rss), ("anonymous", &self.anon), ("live heap", &self.heap)] {
            if let Some((from, to, g)) = rss_trend(s, SETTLE_S) {
                println!(
                    "  soak trend ({what}): {:.1} → {:.1} MB on the least-squares line from {SETTLE_S:.0}s to the end: {g:+.2}%",
                    from / 1024.0,
                    to / 1024.0
                );
            }
        }
        let range =
            self.p99s.iter().copied().fold(None, |r: Option<(f64, f64)>, p| Some(r.map_or((p, p), |(lo, hi)| (lo.min(p), hi.max(p)))));
        if let Some((lo, hi)) = range {
            println!("  p99 over time:     {lo:.2}–{hi:.2} ms across the {} sampling intervals", self.p99s.len());
        }
    }
}

/// (RSS at the first sample at or after `settle_s`, at the last, growth in %), from
/// samples of (seconds, KiB); `None` when the run was shorter.
pub fn rss_growth(samples: &[(f64, u64)], settle_s: f64) -> Option<(u64, u64, f64)> {
    let from = samples.iter().find(|(t, _)| *t >= settle_s)?.1;
    let to = samples.last()?.1;
    (from > 0).then(|| (from, to, (to as f64 - from as f64) / from as f64 * 100.0))
}

/// The growth the samples' least-squares line shows from `settle_s` on: (the line's
/// KiB at the first settled sample, at the last, growth in %); `None` with fewer than
/// three settled samples. Two single samples are at the mercy of what comes and goes
/// (an index commit's arena, a sweep's buffers: ±4 % at 1,000 agents); the line is not.
pub fn rss_trend(samples: &[(f64, u64)], settle_s: f64) -> Option<(f64, f64, f64)> {
    let s: Vec<(f64, f64)> = samples.iter().filter(|(t, _)| *t >= settle_s).map(|(t, k)| (*t, *k as f64)).collect();
    if s.len() < 3 {
        return None;
    }
    let n = s.len() as f64;
    let mean_t = s.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_k = s.iter().map(|p| p.1).sum::<f64>() / n;
    let var = s.iter().map(|p| (p.0 - mean_t).powi(2)).sum::<f64>();
    if var == 0.0 {
        return None;
    }
    let slope = s.iter().map(|p| (p.0 - mean_t) * (p.1 - mean_k)).sum::<f64>() / var;
    let at = |t: f64| mean_k + slope * (t - mean_t);
    let (from, to) = (at(s[0].0), at(s[s.len() - 1].0));
    (from > 0.0).then(|| (from, to, (to - from) / from * 100.0))
}

/// Samples server `pid` (its `/metrics` at `base`) every `every` from `start`, printing
/// each line; `recent` hands over the reply latencies (µs) since the last sample.
pub fn spawn(
    every: Duration,
    pid: u32,
    start: Instant,
    base: String,
    recent: impl Fn() -> Vec<u32> + Send + 'static,
) -> (Arc<Mutex<Samples>>, tokio::task::JoinHandle<()>) {
    let out: Arc<Mutex<Samples>> = Arc::default();
    let samples = out.clone();
    let task = tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.tick().await;
        loop {
            tick.tick().await;
            let t = start.elapsed().as_secs_f64();
            let mut lat = recent();
            lat.sort_unstable();
            let (p50, p99) = (percentile(&lat, 0.5), percentile(&lat, 0.99));
            let page = pawns::client::get(&format!("{base}/metrics")).await.unwrap_or_default();
            let gauge = |name| gauge(&page, name).unwrap_or(f64::NAN);
            let held = Held {
                // The rings, and the broadcasts' tails they share.
                rings: gauge("pawns_replay_ring_bytes")
                    + Some(gauge("pawns_replay_shared_tail_bytes")).filter(|t| !t.is_nan()).unwrap_or(0.0),
                backlog: gauge("pawns_record_backlog"),
                objects: gauge("pawns_world_objects"),
                store_cache: gauge("pawns_store_cache_bytes"),
            };
            let heap = gauge("pawns_heap_live_bytes");
            let mut s = samples.lock().unwrap_or_else(|e| e.into_inner());
            if !lat.is_empty() {
                s.p99s.push(p99);
            }
            let Some((_, rss)) = proc_sample(pid) else { continue };
            let (a, f) = rss_split(pid).unwrap_or((0, 0));
            s.rss.push((t, rss));
            s.anon.push((t, a));
            s.held.push(held);
            let heap_note = if heap.is_nan() {
                String::new()
            } else {
                s.heap.push((t, (heap / 1024.0) as u64));
                format!(", live heap {:.1} MB", heap / 1048576.0)
            };
            eprintln!(
                "  t={t:>6.0}s server RSS {:.1} MB (anonymous {:.1}, files {:.1}; replay rings {:.1} MB, store cache {:.1} MB, record backlog {}, {} objects{heap_note}); {} replies, p50 {p50:.2} ms, p99 {p99:.2} ms",
                rss as f64 / 1024.0,
                a as f64 / 1024.0,
                f as f64 / 1024.0,
                held.rings / 1e6,
                held.store_cache / 1e6,
                held.backlog,
                held.objects,
                lat.len()
            );
        }
    });
    (out, task)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss_growth_is_judged_after_settling() {
        let s = [(0.0, 100), (300.0, 180), (600.0, 200), (3600.0, 208)];
        assert_eq!(rss_growth(&s, 600.0), Some((200, 208, 4.0)));
        assert_eq!(rss_growth(&s[..2], 600.0), None, "too short to judge");
    }

    /// The line through noisy samples: a flat series that swings ±5 % has no growth,
    /// where its first and last samples alone would say +10 %; a steady climb is measured
    /// exactly; the samples before settling are left out.
    #[test]
    fn the_trend_sees_through_the_swings() {
        let flat: Vec<(f64, u64)> = (0..=60).map(|i| (600.0 + 60.0 * i as f64, if i % 2 == 0 { 950 } else { 1050 })).collect();
        let mut swung = flat.clone();
        swung[0].1 = 950;
        swung.last_mut().unwrap().1 = 1045;
        assert!(rss_growth(&swung, 600.0).unwrap().2 > 9.0);
        let (_, _, g) = rss_trend(&flat, 600.0).unwrap();
        assert!(g.abs() < 0.5, "{g}");
        let climb: Vec<(f64, u64)> = (0..=10).map(|i| (300.0 * i as f64, 1000 + 10 * i)).collect();
        let (from, to, g) = rss_trend(&climb, 600.0).unwrap();
        assert!((from - 1020.0).abs() < 1e-6 && (to - 1100.0).abs() < 1e-6, "{from} {to}");
        assert!((g - 80.0 / 1020.0 * 100.0).abs() < 1e-9);
        assert_eq!(rss_trend(&climb[..4], 600.0), None, "two settled samples are not a line");
    }
}

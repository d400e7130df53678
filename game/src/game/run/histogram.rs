//! A fixed-bucket histogram any thread may add to without a lock (Prometheus's shape:
//! per-bucket counts, their sum and count), and a window that says whether something
//! has been late too often lately.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Bucket bounds for durations, seconds: 100 µs to 10 s.
pub const SECONDS: &[f64] = &[0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
/// Bucket bounds for counts (records in a commit).
pub const COUNTS: &[f64] = &[1.0, 10.0, 50.0, 100.0, 500.0, 1000.0, 5000.0, 10_000.0, 20_000.0];

/// Sums are kept as integers of this many units per 1 (µs for seconds).
const SCALE: f64 = 1_000_000.0;

pub struct Histogram {
    bounds: &'static [f64],
    /// One per bound, then +Inf; not cumulative (rendering accumulates).
    counts: Box<[AtomicU64]>,
    sum: AtomicU64,
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (_, sum, count) = self.snapshot();
        f.debug_struct("Histogram").field("count", &count).field("sum", &sum).finish()
    }
}

impl Histogram {
    pub fn new(bounds: &'static [f64]) -> Self {
        Histogram { bounds, counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(), sum: AtomicU64::new(0) }
    }

    pub fn seconds() -> Self {
        Self::new(SECONDS)
    }

    pub fn counts() -> Self {
        Self::new(COUNTS)
    }

    pub fn observe(&self, v: f64) {
        let v = if v.is_finite() { v.max(0.0) } else { 0.0 };
        let i = self.bounds.iter().position(|b| v <= *b).unwrap_or(self.bounds.len());
        self.counts[i].fetch_add(1, Relaxed);
        self.sum.fetch_add((v * SCALE) as u64, Relaxed);
    }

    pub fn observe_duration(&self, d: std::time::Duration) {
        self.observe(d.as_secs_f64());
    }

    /// (upper bound, cumulative count) per bucket, +Inf last; then the sum and count.
    pub fn snapshot(&self) -> (Vec<(f64, u64)>, f64, u64) {
        let mut acc = 0;
        let mut out = Vec::with_capacity(self.counts.len());
        for (i, c) in self.counts.iter().enumerate() {
            acc += c.load(Relaxed);
            out.push((self.bounds.get(i).copied().unwrap_or(f64::INFINITY), acc));
        }
        (out, self.sum.load(Relaxed) as f64 / SCALE, acc)
    }

    /// The smallest bucket bound under which at least `q` of the observations fall
    /// (an upper estimate of that quantile; +Inf past the last bound).
    pub fn quantile_bound(&self, q: f64) -> f64 {
        let (buckets, _, n) = self.snapshot();
        if n == 0 {
            return 0.0;
        }
        let want = (q * n as f64).ceil() as u64;
        buckets.iter().find(|(_, c)| *c >= want).map(|(b, _)| *b).unwrap_or(f64::INFINITY)
    }
}

/// Counts events and the late ones in consecutive windows of `len` events (kept by the
/// one thread that sees them); `add` gives the late count each time a window fills.
pub struct LateWindow {
    len: u32,
    seen: u32,
    late: u32,
}

impl LateWindow {
    pub fn new(len: u32) -> Self {
        LateWindow { len: len.max(1), seen: 0, late: 0 }
    }

    pub fn add(&mut self, late: bool) -> Option<u32> {
        self.seen += 1;
        self.late += late as u32;
        if self.seen < self.len {
            return None;
        }
        let n = self.late;
        self.seen = 0;
        self.late = 0;
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_inf_counts_everything() {
        let h = Histogram::seconds();
        for v in [0.00005, 0.0003, 0.0003, 0.02, 30.0] {
            h.observe(v);
        }
        let (b, sum, n) = h.snapshot();
        assert_eq!(n, 5);
        assert_eq!(b[0], (0.0001, 1));
        assert_eq!(b[2], (0.0005, 3));
        assert_eq!(b.iter().find(|(le, _)| *le == 0.025).map(|x| x.1), Some(4));
        assert_eq!(b.last(), Some(&(f64::INFINITY, 5)));
        assert!((sum - 30.02065).abs() < 1e-5, "{sum}");
        assert!(b.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    #[test]
    fn bad_values_count_as_zero() {
        let h = Histogram::counts();
        h.observe(f64::NAN);
        h.observe(-3.0);
        let (b, sum, n) = h.snapshot();
        assert_eq!((b[0].1, sum, n), (2, 0.0, 2));
    }

    #[test]
    fn quantile_bound_is_the_bucket_holding_it() {
        let h = Histogram::seconds();
        for _ in 0..98 {
            h.observe(0.002);
        }
        h.observe(0.3);
        h.observe(0.3);
        assert_eq!(h.quantile_bound(0.5), 0.0025);
        assert_eq!(h.quantile_bound(0.99), 0.5);
        assert_eq!(Histogram::seconds().quantile_bound(0.99), 0.0);
    }

    #[test]
    fn late_window_reports_when_full() {
        let mut w = LateWindow::new(4);
        let got: Vec<Option<u32>> = [true, false, true, true, false, false, false, false].into_iter().map(|l| w.add(l)).collect();
        assert_eq!(got, [None, None, None, Some(3), None, None, None, Some(0)]);
    }
}

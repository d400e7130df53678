//! The statistics the metrics share: proportions, means, percentile bootstrap intervals
//! (seeded, so a report is reproducible), a least-squares slope.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Resamples per bootstrap interval.
pub const BOOTSTRAP: usize = 1_000;
/// The seed every interval starts from: the same data gives the same interval.
pub const SEED: u64 = 0x005e_ed19;
/// Up to this many trials, a resample is drawn trial by trial.
const EXACT_UP_TO: u64 = 64;

/// k successes in n trials, the estimate and its 95 % bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Proportion {
    pub n: u64,
    pub k: u64,
    /// k / n; none without trials.
    pub p: Option<f64>,
}

impl Proportion {
    pub fn new(k: u64, n: u64) -> Proportion {
        Proportion { n, k, p: (n > 0).then(|| k as f64 / n as f64) }
    }
}

/// One resample's proportion: a Binomial(`n`, `p`) draw over `n`. Few trials are drawn
/// one by one; a wide binomial (variance ≥ 9) by its normal approximation; a narrow one
/// by counting geometric gaps between the rarer outcome (exact, O(np)). A million
/// decisions stay quick.
pub fn resample_p(rng: &mut SmallRng, n: u64, p: f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    if n <= EXACT_UP_TO {
        let k = (0..n).filter(|_| rng.gen::<f64>() < p).count();
        return k as f64 / n as f64;
    }
    let var = n as f64 * p * (1.0 - p);
    if var >= 9.0 {
        // Box–Muller, clamped to [0, n].
        let (u1, u2): (f64, f64) = (rng.gen::<f64>().max(f64::MIN_POSITIVE), rng.gen());
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        return (n as f64 * p + z * var.sqrt()).round().clamp(0.0, n as f64) / n as f64;
    }
    let (q, flip) = if p <= 0.5 { (p, false) } else { (1.0 - p, true) };
    if q <= 0.0 {
        return if flip { 1.0 } else { 0.0 };
    }
    // Trials until each success are Geometric(q): count the successes that fit in n.
    let log_q = (1.0 - q).ln();
    let (mut k, mut used) = (0u64, 0u64);
    loop {
        let u: f64 = rng.gen::<f64>().max(f64::MIN_POSITIVE);
        used += (u.ln() / log_q).floor() as u64 + 1;
        if used > n {
            break;
        }
        k += 1;
    }
    let k = if flip { n - k } else { k };
    k as f64 / n as f64
}

/// The 2.5th and 97.5th percentiles of `xs` (sorted here).
pub fn interval(mut xs: Vec<f64>) -> Option<[f64; 2]> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize];
    Some([at(0.025), at(0.975)])
}

/// The 95 % interval of |p₁ − p₂| by resampling both groups.
pub fn diff_interval(a: Proportion, b: Proportion, absolute: bool) -> Option<[f64; 2]> {
    let (pa, pb) = (a.p?, b.p?);
    let mut rng = SmallRng::seed_from_u64(SEED);
    let xs = (0..BOOTSTRAP)
        .map(|_| {
            let d = resample_p(&mut rng, a.n, pa) - resample_p(&mut rng, b.n, pb);
            if absolute {
                d.abs()
            } else {
                d
            }
        })
        .collect();
    interval(xs)
}

/// The mean of `xs` and its 95 % bootstrap interval.
pub fn mean_interval(xs: &[f64]) -> (Option<f64>, Option<[f64; 2]>) {
    if xs.is_empty() {
        return (None, None);
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let mut rng = SmallRng::seed_from_u64(SEED);
    let means = (0..BOOTSTRAP).map(|_| (0..xs.len()).map(|_| xs[rng.gen_range(0..xs.len())]).sum::<f64>() / xs.len() as f64).collect();
    (Some(mean), interval(means))
}

/// Least squares: the slope of y on x and the intercept (none for fewer than two
/// distinct x).
pub fn fit_line(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Wilson's score interval for k of n (95 %): it stays inside [0, 1] and keeps a width
/// at 0 and at n, where the bootstrap and the normal approximation give a point.
pub fn wilson(p: Proportion) -> Option<[f64; 2]> {
    let n = p.n as f64;
    let ph = p.p?;
    let z2 = Z95 * Z95;
    let centre = (ph + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (ph * (1.0 - ph) / n + z2 / (4.0 * n * n)).sqrt();
    Some([(centre - half).max(0.0), (centre + half).min(1.0)])
}

/// Newcombe's hybrid score interval (his method 10, 1998) for p₁ − p₂ (95 %), from each
/// proportion's Wilson interval.
pub fn newcombe(a: Proportion, b: Proportion) -> Option<[f64; 2]> {
    let (pa, pb) = (a.p?, b.p?);
    let ([la, ua], [lb, ub]) = (wilson(a)?, wilson(b)?);
    let d = pa - pb;
    let lower = d - ((pa - la).powi(2) + (ub - pb).powi(2)).sqrt();
    let upper = d + ((ua - pa).powi(2) + (pb - lb).powi(2)).sqrt();
    Some([lower, upper])
}

/// The interval of |p₁ − p₂| that Newcombe's interval of the difference implies: from 0
/// when the difference's interval holds 0.
pub fn abs_interval(ci: [f64; 2]) -> [f64; 2] {
    let [l, u] = ci;
    if l <= 0.0 && u >= 0.0 {
        [0.0, l.abs().max(u.abs())]
    } else {
        [l.abs().min(u.abs()), l.abs().max(u.abs())]
    }
}

/// Fisher's exact test of two proportions (two-sided: the tables no likelier than the
/// one seen): the p-value that the arms do not differ. None without trials in both.
pub fn fisher_exact(a: Proportion, b: Proportion) -> Option<f64> {
    if a.n == 0 || b.n == 0 {
        return None;
    }
    let (n1, n2, k) = (a.n, b.n, a.k + b.k);
    let n = n1 + n2;
    let ln_fact: Vec<f64> = std::iter::once(0.0)
        .chain((1..=n).scan(0.0, |acc, i| {
            *acc += (i as f64).ln();
            Some(*acc)
        }))
        .collect();
    let ln_choose = |n: u64, r: u64| ln_fact[n as usize] - ln_fact[r as usize] - ln_fact[(n - r) as usize];
    // P(X = x) for x successes in the first group, the margins fixed.
    let ln_p = |x: u64| ln_choose(n1, x) + ln_choose(n2, k - x) - ln_choose(n, k);
    let (lo, hi) = (k.saturating_sub(n2), k.min(n1));
    let seen = ln_p(a.k);
    let p: f64 = (lo..=hi).map(ln_p).filter(|l| *l <= seen + 1e-7).map(f64::exp).sum();
    Some(p.min(1.0))
}

/// The median of `xs` (sorted here).
pub fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    Some(if xs.len() % 2 == 1 { xs[m] } else { (xs[m - 1] + xs[m]) / 2.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formulas_give_what_a_hand_gives() {
        assert_eq!(Proportion::new(3, 4).p, Some(0.75));
        assert_eq!(Proportion::new(0, 0).p, None);
        assert_eq!(fit_line(&[(0.0, 1.0), (1.0, 0.9), (2.0, 0.8)]).map(|(s, i)| ((s * 1e9).round() / 1e9, i)), Some((-0.1, 1.0)));
        assert_eq!(fit_line(&[(1.0, 1.0), (1.0, 2.0)]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(interval((0..=1000).map(f64::from).collect()), Some([25.0, 975.0]));
    }

    /// Worked examples: Wilson and Newcombe's method 10 as in Newcombe (1998) Table II
    /// (56/70 − 48/80 → [0.0524, 0.3339]) and as statsmodels computes them
    /// (`proportion_confint(method='wilson')`, `confint_proportions_2indep(method=
    /// 'newcomb')`); Fisher's exact p as scipy's `fisher_exact` gives it.
    #[test]
    fn wilson_newcombe_and_fisher_match_worked_examples() {
        let close = |got: [f64; 2], want: [f64; 2]| (got[0] - want[0]).abs() < 1e-6 && (got[1] - want[1]).abs() < 1e-6;
        let p = Proportion::new;
        for (k, n, want) in [
            (81, 263, [0.255_288_519_878, 0.366_209_576_983]),
            (0, 10, [0.0, 0.277_532_799_863]),
            (10, 10, [0.722_467_200_137, 1.0]),
            (1, 1, [0.206_549_314_377, 1.0]),
        ] {
            let got = wilson(p(k, n)).unwrap();
            assert!(close(got, want), "{k}/{n}: {got:?}");
        }
        assert_eq!(wilson(p(0, 0)), None);
        for ((a, b), want) in [
            ((p(56, 70), p(48, 80)), [0.052_431_472_402, 0.333_872_654_037]),
            ((p(9, 10), p(3, 10)), [0.170_522_723_935, 0.809_017_973_535]),
            ((p(5, 56), p(0, 29)), [-0.038_137_147_904, 0.192_560_013_855]),
            ((p(10, 10), p(1, 1)), [-0.277_532_799_863, 0.793_450_685_623]),
        ] {
            let got = newcombe(a, b).unwrap();
            assert!(close(got, want), "{a:?} {b:?}: {got:?}");
        }
        // n = 1 against 10: a wide interval, never the point [0, 0].
        assert_eq!(abs_interval([-0.2775, 0.7935]), [0.0, 0.7935]);
        assert_eq!(abs_interval([-0.5, -0.1]), [0.1, 0.5]);
        for ((a, b), want) in [
            ((p(56, 70), p(48, 80)), 0.012_521_129_749),
            ((p(9, 10), p(3, 10)), 0.019_766_611_098),
            ((p(5, 56), p(0, 29)), 0.160_621_443_209),
            ((p(6, 7), p(2, 7)), 0.102_564_102_564),
            ((p(10, 10), p(1, 1)), 1.0),
        ] {
            let got = fisher_exact(a, b).unwrap();
            assert!((got - want).abs() < 1e-9, "{a:?} {b:?}: {got}");
        }
        assert_eq!(fisher_exact(p(1, 2), p(0, 0)), None);
    }

    #[test]
    fn every_way_of_resampling_keeps_the_binomials_mean_and_spread() {
        let mut rng = SmallRng::seed_from_u64(3);
        // Trial by trial, the normal approximation, and the geometric gaps (both tails).
        for (n, p) in [(40u64, 0.3f64), (5_000, 0.4), (5_000, 0.001), (5_000, 0.999)] {
            let draws: Vec<f64> = (0..4_000).map(|_| resample_p(&mut rng, n, p)).collect();
            let mean = draws.iter().sum::<f64>() / draws.len() as f64;
            let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
            let want = p * (1.0 - p) / n as f64;
            assert!((mean - p).abs() < 4.0 * (want / 4_000.0).sqrt() + 1e-9, "n {n} p {p}: mean {mean}");
            assert!((var / want - 1.0).abs() < 0.15, "n {n} p {p}: variance {var} against {want}");
        }
        assert_eq!(resample_p(&mut rng, 100, 0.0), 0.0);
        assert_eq!(resample_p(&mut rng, 100, 1.0), 1.0);
    }

    #[test]
    fn intervals_hold_the_estimate_and_narrow_with_more_trials() {
        let (a, b) = (Proportion::new(8, 10), Proportion::new(2, 10));
        let ci = diff_interval(a, b, true).unwrap();
        assert!(ci[0] < 0.6 && 0.6 < ci[1], "{ci:?}");
        let (a, b) = (Proportion::new(80_000, 100_000), Proportion::new(20_000, 100_000));
        let wide = ci[1] - ci[0];
        let ci = diff_interval(a, b, true).unwrap();
        assert!(ci[0] < 0.6 && 0.6 < ci[1] && ci[1] - ci[0] < wide / 10.0, "{ci:?}");
        assert_eq!(diff_interval(a, Proportion::new(0, 0), true), None);
        let (m, ci) = mean_interval(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(m, Some(2.5));
        let ci = ci.unwrap();
        assert!(ci[0] >= 1.0 && ci[0] < 2.5 && ci[1] > 2.5 && ci[1] <= 4.0, "{ci:?}");
        // Seeded: the same data, the same interval.
        assert_eq!(mean_interval(&[1.0, 2.0, 3.0, 4.0]).1, Some(ci));
    }
}

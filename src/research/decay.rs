//! Salience decay curves: each memory's salience across the dream cycles after the one
//! that made it (from the dream log), grouped by the valence the game gives its event
//! (the same band in both arms), with a least-squares slope — salience gained or lost
//! per cycle — and what was pruned, at what age.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::dataset::Dataset;
use super::stats::median;

/// The bands, most negative first.
pub const BANDS: [&str; 5] = ["-3..-2", "-1", "0", "+1", "+2..+3"];

pub fn band_of(game_valence: i8) -> &'static str {
    match game_valence {
        v if v <= -2 => BANDS[0],
        -1 => BANDS[1],
        0 => BANDS[2],
        1 => BANDS[3],
        _ => BANDS[4],
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Cycles since the dream that made the memory (0: right after it).
    pub age: u64,
    pub n: u64,
    pub mean: f64,
    /// The mean's 95 % interval (normal, from the saliences' spread); none for one point.
    #[serde(default)]
    pub ci: Option<[f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecayBand {
    pub arm: String,
    pub band: String,
    /// Distinct memories seen, and (age, salience) points.
    pub memories: u64,
    pub points: u64,
    /// Salience per cycle (negative: decaying), and the fitted salience at age 0.
    pub slope: Option<f64>,
    pub intercept: Option<f64>,
    pub curve: Vec<CurvePoint>,
    pub pruned: u64,
    /// Cycles from creation to pruning, median over the pruned.
    pub median_prune_age: Option<f64>,
}

#[derive(Default)]
struct Acc {
    memories: u64,
    n: f64,
    sx: f64,
    sy: f64,
    sxx: f64,
    sxy: f64,
    /// Age → (n, Σy, Σy²).
    curve: BTreeMap<u64, (u64, f64, f64)>,
    prune_ages: Vec<f64>,
}

impl Acc {
    fn add(&mut self, age: u64, y: f64) {
        let x = age as f64;
        self.n += 1.0;
        self.sx += x;
        self.sy += y;
        self.sxx += x * x;
        self.sxy += x * y;
        let c = self.curve.entry(age).or_default();
        c.0 += 1;
        c.1 += y;
        c.2 += y * y;
    }

    fn fit(&self) -> Option<(f64, f64)> {
        let d = self.n * self.sxx - self.sx * self.sx;
        if self.n < 2.0 || d.abs() < 1e-12 {
            return None;
        }
        let slope = (self.n * self.sxy - self.sx * self.sy) / d;
        Some((slope, (self.sy - slope * self.sx) / self.n))
    }
}

/// An agent's dream counts as valence-off when most sessions it read were.
pub fn decay(ds: &Dataset, arm_of: &dyn Fn(&str, bool) -> String) -> Vec<DecayBand> {
    let mut acc: BTreeMap<(String, &'static str), Acc> = BTreeMap::new();
    let mut by_agent: BTreeMap<&str, Vec<&super::dataset::DreamRow>> = BTreeMap::new();
    for d in &ds.dreams {
        by_agent.entry(d.agent.as_str()).or_default().push(d);
    }
    for dreams in by_agent.values_mut() {
        dreams.sort_by_key(|d| (d.snap.cycle, d.at_us));
        // Memory id → (cycle first seen, band).
        let mut born: HashMap<&str, (u64, &'static str)> = HashMap::new();
        for d in dreams.iter() {
            let s = &d.snap;
            let arm = arm_of(&d.agent, s.sessions_valence_off * 2 <= s.sessions);
            for m in &s.memories {
                let (c0, band) = *born.entry(m.id.as_str()).or_insert_with(|| {
                    acc.entry((arm.clone(), band_of(m.game_valence))).or_default().memories += 1;
                    (s.cycle, band_of(m.game_valence))
                });
                acc.entry((arm.clone(), band)).or_default().add(s.cycle.saturating_sub(c0), f64::from(m.salience));
            }
            for id in &s.pruned {
                if let Some((c0, band)) = born.get(id.as_str()) {
                    let a = acc.entry((arm.clone(), band)).or_default();
                    a.prune_ages.push(s.cycle.saturating_sub(*c0) as f64);
                }
            }
        }
    }
    acc.into_iter()
        .map(|((arm, band), a)| {
            let fit = a.fit();
            DecayBand {
                arm,
                band: band.into(),
                memories: a.memories,
                points: a.n as u64,
                slope: fit.map(|f| f.0),
                intercept: fit.map(|f| f.1),
                curve: a
                    .curve
                    .iter()
                    .map(|(age, (n, sum, sq))| {
                        let k = *n as f64;
                        let mean = sum / k;
                        let ci = (*n > 1).then(|| {
                            let sd = ((sq - k * mean * mean) / (k - 1.0)).max(0.0).sqrt();
                            let half = 1.96 * sd / k.sqrt();
                            [mean - half, mean + half]
                        });
                        CurvePoint { age: *age, n: *n, mean, ci }
                    })
                    .collect(),
                pruned: a.prune_ages.len() as u64,
                median_prune_age: median(a.prune_ages),
            }
        })
        .collect()
}

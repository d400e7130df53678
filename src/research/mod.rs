//! Research on agent memory from the server's own record (seed `000`: "Evaluation
//! metrics: Behavioral Persistence Score (BPS), Social Consequence Score (SCS), salience
//! decay curves, cost comparison"). Every definition the method leaves open is written
//! where it is computed, and gathered in `docs/research.md`.
//!
//! - `dataset.rs` — the record read once into plain rows (sessions, decisions, social
//!   acts, the dream log);
//! - `stats.rs` — proportions, means, seeded bootstrap intervals, least squares;
//! - `bps.rs`, `scs.rs`, `decay.rs`, `cost.rs` — the four metrics, pure;
//! - `report.rs` — the Markdown report; `plots.rs` — its SVG plots (plotters);
//! - `parquet.rs` — the record as Parquet files for DuckDB, pandas, polars, Spark;
//! - `experiment.rs` — the two-arm ablation against a running server.

pub mod bps;
pub mod cost;
pub mod dataset;
pub mod decay;
pub mod experiment;
pub mod parquet;
pub mod plots;
pub mod report;
pub mod scs;
pub mod stats;

use serde::{Deserialize, Serialize};

pub use dataset::{Dataset, Filter};

/// How sessions are split into arms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum By {
    /// `valence_on` and `valence_off` (the session's protocol §4 flag).
    #[default]
    Valence,
    /// One arm, `all`.
    None,
}

impl By {
    pub fn parse(s: &str) -> Result<By, String> {
        match s {
            "valence" => Ok(By::Valence),
            "none" => Ok(By::None),
            other => Err(format!("{other:?} is not a split: use valence or none")),
        }
    }

    pub fn arm(&self, valence: bool) -> String {
        match (self, valence) {
            (By::None, _) => "all".into(),
            (By::Valence, true) => "valence_on".into(),
            (By::Valence, false) => "valence_off".into(),
        }
    }
}

/// How much was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub agents: usize,
    pub sessions: usize,
    pub decisions: usize,
    pub trials: usize,
    pub social_events: usize,
    pub dreams: usize,
}

/// An evaluation: what `pawns eval --json` prints and the report is written from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub filter: Filter,
    pub by: By,
    pub sample: Sample,
    /// Sessions per arm.
    pub arms: Vec<(String, usize)>,
    pub bps: Vec<bps::Bps>,
    pub valence_effect: Vec<bps::ValenceEffect>,
    pub scs: scs::Scs,
    pub decay: Vec<decay::DecayBand>,
    pub cost: Vec<cost::Cost>,
    /// How long computing it took, ms (reading included).
    pub elapsed_ms: f64,
}

/// Computes every metric over a dataset.
pub fn evaluate(ds: &Dataset, filter: &Filter, by: By) -> Evaluation {
    let arm_of = move |v: bool| by.arm(v);
    let trials = bps::trials(ds, &arm_of);
    let mut agents: Vec<&str> = ds.sessions.iter().map(|s| s.agent.as_str()).collect();
    agents.sort_unstable();
    agents.dedup();
    let mut arms: std::collections::BTreeMap<String, usize> = Default::default();
    for s in &ds.sessions {
        *arms.entry(by.arm(s.valence)).or_default() += 1;
    }
    let scs = scs::scs(ds, &arm_of);
    Evaluation {
        filter: filter.clone(),
        by,
        sample: Sample {
            agents: agents.len(),
            sessions: ds.sessions.len(),
            decisions: ds.decisions.len(),
            trials: trials.len(),
            social_events: ds.socials.len(),
            dreams: ds.dreams.len(),
        },
        arms: arms.into_iter().collect(),
        bps: bps::scores(&trials),
        valence_effect: if by == By::Valence { bps::valence_effects(&trials) } else { Vec::new() },
        scs,
        decay: decay::decay(ds, &arm_of),
        cost: cost::cost(ds, &arm_of),
        elapsed_ms: 0.0,
    }
}

/// Reads the record and evaluates it.
pub fn evaluate_store(
    store: &pawns_storage::Store,
    filter: &Filter,
    by: By,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Evaluation, pawns_storage::StoreError> {
    let started = std::time::Instant::now();
    let ds = Dataset::read(store, filter, progress)?;
    let mut e = evaluate(&ds, filter, by);
    e.elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(e)
}

#[cfg(test)]
mod tests;

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
pub mod drift;
pub mod experiment;
pub mod lines;
pub mod memcheck;
pub mod memcheck_run;
pub mod parquet;
pub mod parquet_writer;
pub mod plots;
pub mod quality;
pub mod report;
pub mod runs;
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
    /// The arms a run gave its agents (`Filter::arms`); an agent it names none of is
    /// split by valence.
    Arm,
}

impl By {
    pub fn parse(s: &str) -> Result<By, String> {
        match s {
            "valence" => Ok(By::Valence),
            "none" => Ok(By::None),
            "arm" => Ok(By::Arm),
            other => Err(format!("{other:?} is not a split: use valence, arm (a run's arms) or none")),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            By::Valence => "valence",
            By::None => "none",
            By::Arm => "arm",
        }
    }

    /// The arm of an agent's session.
    pub fn arm(&self, filter: &Filter, agent: &str, valence: bool) -> String {
        match (self, valence) {
            (By::None, _) => "all".into(),
            (By::Arm, _) if filter.arms.contains_key(agent) => filter.arms[agent].clone(),
            (_, true) => "valence_on".into(),
            (_, false) => "valence_off".into(),
        }
    }
}

/// How much was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub agents: usize,
    pub sessions: usize,
    pub decisions: usize,
    /// Encounters counted (see `bps`), and all of them.
    pub trials: usize,
    #[serde(default)]
    pub encounters: usize,
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
    /// Every encounter, counted or not and why: the BPS can be checked from it.
    #[serde(default)]
    pub trials: Vec<bps::Trial>,
    /// What the metrics could not use.
    #[serde(default)]
    pub quality: quality::Quality,
    /// What consolidation changed in how each agent acts, session to session.
    #[serde(default)]
    pub drift: drift::Drift,
    /// The agents' memory asked what the record knows (issue 55): the deterministic
    /// reader's answers; `pawns memcheck` adds a model's.
    #[serde(default)]
    pub memcheck: Option<memcheck_run::Memcheck>,
    pub scs: scs::Scs,
    pub decay: Vec<decay::DecayBand>,
    pub cost: Vec<cost::Cost>,
    /// How long computing it took, ms (reading included).
    pub elapsed_ms: f64,
}

/// Computes every metric over a dataset.
pub fn evaluate(ds: &Dataset, filter: &Filter, by: By) -> Evaluation {
    let arm_of = |agent: &str, v: bool| by.arm(filter, agent, v);
    let trials = bps::trials(ds, &arm_of);
    let mut agents: Vec<&str> = ds.sessions.iter().map(|s| s.agent.as_str()).collect();
    agents.sort_unstable();
    agents.dedup();
    let mut arms: std::collections::BTreeMap<String, usize> = Default::default();
    for s in &ds.sessions {
        *arms.entry(by.arm(filter, &s.agent, s.valence)).or_default() += 1;
    }
    let scs = scs::scs(ds, &arm_of);
    Evaluation {
        filter: filter.clone(),
        by,
        sample: Sample {
            agents: agents.len(),
            sessions: ds.sessions.len(),
            decisions: ds.decisions.len(),
            trials: trials.iter().filter(|t| t.counted).count(),
            encounters: trials.len(),
            social_events: ds.socials.len(),
            dreams: ds.dreams.len(),
        },
        arms: arms.into_iter().collect(),
        bps: bps::scores(&trials),
        valence_effect: if by == By::None { Vec::new() } else { bps::valence_effects(&trials) },
        quality: quality::quality(ds, &trials, &arm_of),
        scs,
        decay: decay::decay(ds, &arm_of),
        cost: cost::cost(ds, &arm_of),
        drift: drift::drift(ds, &arm_of),
        trials,
        memcheck: None,
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
    e.memcheck = Some(memcheck_run::memcheck_store(store, filter)?);
    e.elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(e)
}

#[cfg(test)]
mod tests;

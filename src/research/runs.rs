//! Runs: an experiment, a server run an operator named (`serve --run NAME`), later a
//! branch — what ran, with what, when — kept in the data file's `runs` table. A run is a
//! selection (its agents, its time, its arms), so `eval`, `export` and `replay` can name
//! one, and `pawns runs compare` reads two side by side.

use std::collections::BTreeMap;

use pawns_storage::{Store, StoreError};
use serde::{Deserialize, Serialize};

use super::Filter;

/// One arm of a run: its agents and how they play.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Arm {
    /// `fsm/valence_on`, `llm/valence_off`…: a group and a valence (`bps::valence_arm`).
    pub name: String,
    pub policy: String,
    #[serde(default)]
    pub model: String,
    pub valence: bool,
    pub agents: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: String,
    /// `experiment`, `serve`.
    pub kind: String,
    pub started_us: u64,
    pub ended_us: Option<u64>,
    /// This build's version, and the command line that started the run.
    pub version: String,
    pub command_line: Vec<String>,
    pub seed: Option<u64>,
    /// Least time between two decisions of one agent, and one session's length.
    pub pace_ms: Option<u64>,
    pub session_secs: Option<f64>,
    /// The world the server played (its source) and its digest (`replay::run::world_digest`).
    pub world: String,
    pub world_digest: String,
    /// Empty: every agent that played while it ran (a server run).
    pub arms: Vec<Arm>,
    /// The run it branched from, and what was changed (issue 55).
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default)]
    pub change: Option<String>,
    /// A branch: where it left its parent (unix µs); the parent's future is from here.
    #[serde(default)]
    pub branched_at_us: Option<u64>,
    /// What the fleet did (an experiment's `FleetReport`).
    #[serde(default)]
    pub fleet: Option<serde_json::Value>,
}

impl Run {
    /// Its agents, lower-cased; none: every agent.
    pub fn agents(&self) -> Vec<String> {
        self.arms.iter().flat_map(|a| a.agents.iter().map(|n| n.to_ascii_lowercase())).collect()
    }

    /// What it selects: its agents' sessions begun while it ran, with their arms.
    pub fn filter(&self) -> Filter {
        let arms: BTreeMap<String, String> =
            self.arms.iter().flat_map(|a| a.agents.iter().map(move |n| (n.to_ascii_lowercase(), a.name.clone()))).collect();
        Filter { agents: self.agents(), since_us: self.started_us, until_us: self.ended_us, run: Some(self.id.clone()), arms }
    }
}

/// A run id: 1–64 letters, digits, `.`, `_`, `-`, starting with a letter or digit.
pub fn check_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && id.starts_with(|c: char| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{:?} is not a run id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
            id.chars().take(80).collect::<String>()
        ))
    }
}

/// A fresh id from the time: `r20261128-051203`.
pub fn new_id(now_us: u64) -> String {
    chrono::DateTime::from_timestamp_micros(now_us as i64)
        .map(|t| t.format("r%Y%m%d-%H%M%S").to_string())
        .unwrap_or_else(|| format!("r{now_us}"))
}

/// Registers a run in the data file: an id given is checked and must be new; none, one
/// is made from the time (a second apart if taken). The world and version are filled in.
pub fn register(store: &Store, mut run: Run) -> Result<Run, RunError> {
    if run.started_us == 0 {
        run.started_us = crate::time::unix_us();
    }
    run.version = env!("CARGO_PKG_VERSION").into();
    let (digest, source) = crate::replay::run::world_digest(store).map_err(RunError::Store)?;
    (run.world_digest, run.world) = (digest, source);
    for a in &run.arms {
        for n in &a.agents {
            crate::auth::names::check(n).map_err(|m| RunError::BadInput(format!("arm {}: {n:?}: {m}", a.name)))?;
        }
    }
    let given = !run.id.is_empty();
    if given {
        check_id(&run.id).map_err(RunError::BadInput)?;
    }
    for k in 0..10u64 {
        if !given {
            run.id = new_id(run.started_us + k * 1_000_000);
        }
        match store.put_run(&run.id, &run, true) {
            Ok(()) => return Ok(run),
            Err(StoreError::Exists(_)) if !given => continue,
            Err(StoreError::Exists(_)) => return Err(RunError::Exists(run.id)),
            Err(e) => return Err(RunError::Store(e)),
        }
    }
    Err(RunError::Exists(run.id))
}

/// Ends a run now, keeping what its fleet did.
pub fn end(store: &Store, id: &str, fleet: Option<serde_json::Value>) -> Result<Run, RunError> {
    let mut run = get(store, id)?;
    run.ended_us = Some(crate::time::unix_us());
    if fleet.is_some() {
        run.fleet = fleet;
    }
    store.put_run(id, &run, false).map_err(RunError::Store)?;
    Ok(run)
}

pub fn get(store: &Store, id: &str) -> Result<Run, RunError> {
    check_id(id).map_err(RunError::BadInput)?;
    store.run(id).map_err(RunError::Store)?.ok_or_else(|| RunError::NotFound(id.into()))
}

/// Every run, oldest first.
pub fn list(store: &Store) -> Result<Vec<Run>, StoreError> {
    let mut runs: Vec<Run> = store.runs()?;
    runs.sort_by(|a, b| (a.started_us, &a.id).cmp(&(b.started_us, &b.id)));
    Ok(runs)
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    BadInput(String),
    #[error("no run {0:?} (pawns runs list shows them)")]
    NotFound(String),
    #[error("a run {0:?} is already registered: name another")]
    Exists(String),
    #[error(transparent)]
    Store(StoreError),
}

impl RunError {
    pub fn code(&self) -> &'static str {
        match self {
            RunError::BadInput(_) => "bad_request",
            RunError::NotFound(_) => "no_such_run",
            RunError::Exists(_) => "run_exists",
            RunError::Store(e) => e.code(),
        }
    }
}

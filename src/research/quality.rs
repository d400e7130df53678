//! Data quality: what the metrics could not use, said rather than hidden — the
//! decisions by status (what the game took and what it refused), the encounters not
//! counted and why, agents stuck repeating a refused command, sessions with no decision.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::bps::Trial;
use super::dataset::Dataset;

/// Refused decisions of one verb in a row from which an agent is called stuck.
pub const STUCK_RUN: u64 = 10;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StatusCount {
    pub arm: String,
    pub status: String,
    pub n: u64,
    /// Of the arm's decisions.
    pub share: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Uncounted {
    pub arm: String,
    /// `refused`, `informed_only` (see `bps::Trial::why`).
    pub why: String,
    pub n: u64,
}

/// The longest run in a session, when it reaches `STUCK_RUN`, of one verb the game
/// refused (`refused`), or of one command line said again and again whatever the game
/// answered (`repeated`: a `consider` asked 1,000 times).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stuck {
    pub agent: String,
    pub session: u64,
    #[serde(default)]
    pub kind: String,
    pub verb: String,
    #[serde(default)]
    pub args: String,
    pub status: String,
    pub run: u64,
    /// The run's first decision.
    pub from_seq: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Silent {
    pub agent: String,
    pub session: u64,
    pub started_us: u64,
    pub ended_us: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    pub statuses: Vec<StatusCount>,
    pub uncounted: Vec<Uncounted>,
    pub stuck: Vec<Stuck>,
    pub silent_sessions: Vec<Silent>,
}

/// A run under way: (session index, its key, the last status, its length, its first seq).
type Run<'a> = (usize, (&'a str, &'a str), &'a str, u64, u64);

pub fn quality<'a>(ds: &'a Dataset, trials: &[Trial], arm_of: &dyn Fn(&str, bool) -> String) -> Quality {
    let mut statuses: BTreeMap<(String, &str), u64> = BTreeMap::new();
    let mut per_arm: BTreeMap<String, u64> = BTreeMap::new();
    let mut decided = vec![0u64; ds.sessions.len()];
    // Per session: the longest run of each kind.
    let mut stuck: BTreeMap<(usize, &str), Stuck> = BTreeMap::new();
    // The runs under way: (session, key, status, length, first seq), keyed by the verb and
    // status (refused) or by the whole line (repeated).
    let mut refused: Option<Run<'a>> = None;
    let mut repeated: Option<Run<'a>> = None;
    for d in &ds.decisions {
        let s = &ds.sessions[d.session];
        let arm = arm_of(&s.agent, s.valence);
        *statuses.entry((arm.clone(), d.status.as_str())).or_default() += 1;
        *per_arm.entry(arm).or_default() += 1;
        decided[d.session] += 1;
        let next = |run: Option<Run<'a>>, key: (&'a str, &'a str), counts: bool| match run {
            Some((sess, k, _, n, from)) if counts && sess == d.session && k == key => Some((sess, k, d.status.as_str(), n + 1, from)),
            _ if counts => Some((d.session, key, d.status.as_str(), 1, d.seq)),
            _ => None,
        };
        refused = next(refused, (d.verb.as_str(), d.status.as_str()), d.status != "ok");
        repeated = next(repeated, (d.verb.as_str(), d.args.as_str()), true);
        for (kind, run) in [("refused", refused), ("repeated", repeated)] {
            let Some((sess, (verb, _), status, n, from)) = run else { continue };
            if n >= STUCK_RUN && stuck.get(&(sess, kind)).is_none_or(|x| x.run < n) {
                let agent = ds.sessions[sess].agent.clone();
                let args = if kind == "repeated" { d.args.clone() } else { String::new() };
                let x = Stuck {
                    agent,
                    session: ds.sessions[sess].session,
                    kind: kind.into(),
                    verb: verb.into(),
                    args,
                    status: status.into(),
                    run: n,
                    from_seq: from,
                };
                stuck.insert((sess, kind), x);
            }
        }
    }
    let mut uncounted: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for t in trials.iter().filter(|t| !t.counted) {
        *uncounted.entry((t.arm.as_str(), t.why.as_str())).or_default() += 1;
    }
    let mut stuck: Vec<Stuck> = stuck.into_values().collect();
    stuck.sort_by(|a, b| b.run.cmp(&a.run).then(a.session.cmp(&b.session)));
    Quality {
        statuses: statuses
            .into_iter()
            .map(|((arm, status), n)| StatusCount { share: n as f64 / per_arm[&arm].max(1) as f64, arm, status: status.into(), n })
            .collect(),
        uncounted: uncounted.into_iter().map(|((arm, why), n)| Uncounted { arm: arm.into(), why: why.into(), n }).collect(),
        stuck,
        silent_sessions: ds
            .sessions
            .iter()
            .zip(&decided)
            .filter(|(_, n)| **n == 0)
            .map(|(s, _)| Silent { agent: s.agent.clone(), session: s.session, started_us: s.started_us, ended_us: s.ended_us })
            .collect(),
    }
}

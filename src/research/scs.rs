//! Social Consequence Score: how much an agent's stance toward another player moved
//! after something that player did to it, per unit of that act's valence.
//!
//! - **Stance** of one decision toward X, taken while X is in the room: attack X −2,
//!   flee −1, assist X +1, rescue X or give to X +2 (defend/give), anything else 0 (pass).
//! - **Event**: a social act X did to the agent (gift, cooperation, betrayal, greet,
//!   insult), with the valence the game gives the act itself (`social_valence`) — the
//!   same in both arms, since an ablation changes what memory feels, not what happened.
//!   Valence 0 (neutral speech, a plain greeting) has no score: counted, left out.
//! - **Before** is the mean stance over the last 20 decisions toward X since X's previous
//!   act (0 — passing — when there are none: a stranger is met neutrally); **after** the
//!   mean over the first 20 after it, until X's next act. No decision after: no score.
//! - SCS = (after − before) / valence. Summaries: mean per arm and act, with a seeded
//!   bootstrap interval over events.

use std::collections::{BTreeMap, HashMap};

use pawns_graph::SocialAct;
use serde::{Deserialize, Serialize};

use super::dataset::{Dataset, DecisionRow};
use super::stats::mean_interval;

/// Decisions on each side of an act that count.
pub const WINDOW: usize = 20;

/// A decision's stance toward `x` (who is in the room).
pub fn stance(d: &DecisionRow, x: &str) -> i8 {
    let names_x = || {
        d.args.split_whitespace().any(|w| {
            let w = w.rsplit('.').next().unwrap_or(w).to_lowercase();
            w.len() >= 2 && x.starts_with(&w)
        })
    };
    match d.verb.as_str() {
        "kill" | "k" | "hit" | "murder" | "backstab" | "bs" | "bash" | "kick" if names_x() => -2,
        "flee" | "retreat" => -1,
        "assist" if names_x() => 1,
        "rescue" | "give" if names_x() => 2,
        _ => 0,
    }
}

fn act_of(name: &str) -> Option<SocialAct> {
    Some(match name {
        "gift" => SocialAct::Gift,
        "cooperation" => SocialAct::Cooperation,
        "betrayal" => SocialAct::Betrayal,
        "greet" => SocialAct::Greet,
        "insult" => SocialAct::Insult,
        _ => return None,
    })
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScsEvent {
    pub arm: String,
    pub agent: String,
    pub other: String,
    pub act: String,
    pub at_us: u64,
    pub valence: i8,
    pub n_before: usize,
    pub n_after: usize,
    pub before: f64,
    pub after: Option<f64>,
    /// None: valence 0, or no decision toward them after.
    pub scs: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScsSummary {
    pub arm: String,
    /// An act, or `*` for all of them.
    pub act: String,
    /// Events scored, and those left out (valence 0, nothing after).
    pub n: usize,
    pub unscored: usize,
    pub mean: Option<f64>,
    pub ci: Option<[f64; 2]>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scs {
    pub summary: Vec<ScsSummary>,
    pub events: Vec<ScsEvent>,
}

fn mean(xs: &[i8]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().map(|x| f64::from(*x)).sum::<f64>() / xs.len() as f64)
}

pub fn scs(ds: &Dataset, arm_of: &dyn Fn(&str, bool) -> String) -> Scs {
    // (agent, other) → the stances toward them, in time order.
    let mut toward: HashMap<(&str, &str), Vec<(u64, i8)>> = HashMap::new();
    for d in &ds.decisions {
        let agent = ds.agent_of(d);
        for x in &d.players {
            // Ordered by when it ran (its record is made at its pulse's end).
            toward.entry((agent, x.as_str())).or_default().push((d.dispatched_us, stance(d, x)));
        }
    }
    // (agent, other) → the times of the other's acts, to bound each window.
    for list in toward.values_mut() {
        list.sort_by_key(|(t, _)| *t);
    }
    let mut acts: HashMap<(&str, &str), Vec<u64>> = HashMap::new();
    for s in &ds.socials {
        acts.entry((ds.sessions[s.session].agent.as_str(), s.other.as_str())).or_default().push(s.at_us);
    }
    let mut events = Vec::new();
    for s in &ds.socials {
        let session = &ds.sessions[s.session];
        let key = (session.agent.as_str(), s.other.as_str());
        let valence = act_of(&s.act).map(|a| pawns_graph::valence::social_valence(a, &s.text)).unwrap_or(0);
        let times = &acts[&key];
        let prev = times.iter().copied().filter(|t| *t < s.at_us).max().unwrap_or(0);
        let next = times.iter().copied().filter(|t| *t > s.at_us).min().unwrap_or(u64::MAX);
        let list = toward.get(&key).map(Vec::as_slice).unwrap_or(&[]);
        let before: Vec<i8> = list.iter().filter(|(t, _)| *t > prev && *t < s.at_us).map(|(_, v)| *v).collect();
        let before = &before[before.len().saturating_sub(WINDOW)..];
        let after: Vec<i8> = list.iter().filter(|(t, _)| *t > s.at_us && *t < next).take(WINDOW).map(|(_, v)| *v).collect();
        let (b, a) = (mean(before).unwrap_or(0.0), mean(&after));
        events.push(ScsEvent {
            arm: arm_of(&session.agent, session.valence),
            agent: session.agent.clone(),
            other: s.other.clone(),
            act: s.act.clone(),
            at_us: s.at_us,
            valence,
            n_before: before.len(),
            n_after: after.len(),
            before: b,
            after: a,
            scs: a.filter(|_| valence != 0).map(|a| (a - b) / f64::from(valence)),
        });
    }
    let mut groups: BTreeMap<(String, String), (Vec<f64>, usize)> = BTreeMap::new();
    for e in &events {
        for act in [e.act.clone(), "*".to_string()] {
            let g = groups.entry((e.arm.clone(), act)).or_default();
            match e.scs {
                Some(v) => g.0.push(v),
                None => g.1 += 1,
            }
        }
    }
    let summary = groups
        .into_iter()
        .map(|((arm, act), (xs, unscored))| {
            let (mean, ci) = mean_interval(&xs);
            ScsSummary { arm, act, n: xs.len(), unscored, mean, ci }
        })
        .collect();
    Scs { summary, events }
}

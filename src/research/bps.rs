//! Behavioral Persistence Score: |P(response | stimulus, memory) − P(response | stimulus,
//! no memory)| for the same stimulus kind, per agent and pooled, per arm.
//!
//! - A **trial** is an encounter: consecutive decisions of one session facing the same
//!   stimulus (kind and target) in the same room (where it decided). Its **response** is
//!   the first of those decisions that does something (`look`, `score`, `consider`… only
//!   inform, and are passed over, as are commands the game did not take: unknown, refused
//!   over the rate); an encounter of nothing but such decisions is no trial.
//! - **Memory**: the encounter's first decision carries an injected memory about the
//!   target (`Stimulus.memory_id`); **no memory**: it does not (never met before it was
//!   dreamed, or what happened fell out of the summary).
//! - P is estimated as k/n over trials; the interval is a seeded percentile bootstrap of
//!   |p̂₁ − p̂₂| (both groups resampled). Bands: ≥ 0.3 strong, < 0.1 none, else moderate
//!   (the Dark Pawns evaluation method's thresholds).
//! - The headline response per stimulus: `avoid` (flee, or leave the room) for a killer,
//!   betrayer or attacker; `approach` (help, give, talk) for a benefactor; `attack`
//!   otherwise. Every response is in the JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::dataset::Dataset;
use super::stats::{diff_interval, Proportion};

/// What a decision does, as the metrics group it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    Flee,
    Leave,
    Attack,
    Help,
    Talk,
    Other,
}

/// The responses a score is computed for: the acts, and two unions.
pub const RESPONSES: [&str; 8] = ["avoid", "approach", "attack", "flee", "leave", "help", "talk", "other"];

const DIRS: [&str; 6] = ["north", "east", "south", "west", "up", "down"];
/// Verbs that act on no one; `actions` is a HUD message that ran no game command (it
/// kept memory, set knowledge): no response to what the agent met.
const INFORM: [&str; 25] = [
    "look",
    "l",
    "examine",
    "exa",
    "score",
    "sc",
    "inventory",
    "inv",
    "i",
    "equipment",
    "eq",
    "who",
    "consider",
    "con",
    "exits",
    "help",
    "where",
    "time",
    "weather",
    "affects",
    "skills",
    "spells",
    "glance",
    "read",
    "actions",
];
const ATTACK: [&str; 10] = ["kill", "k", "hit", "murder", "backstab", "bs", "bash", "kick", "shoot", "steal"];
const HELP: [&str; 6] = ["assist", "rescue", "give", "follow", "group", "heal"];
const TALK: [&str; 9] = ["say", "'", "tell", "whisper", "ask", "shout", "gossip", "emote", "reply"];

/// What a verb does; none for the commands that only inform.
pub fn act_of(verb: &str) -> Option<Act> {
    let v = verb.to_ascii_lowercase();
    // `'hello` and `:waves` are speech and emotes, however they are split.
    if v.starts_with('\'') || v.starts_with(':') {
        return Some(Act::Talk);
    }
    if INFORM.contains(&v.as_str()) {
        return None;
    }
    Some(if v == "flee" || v == "retreat" {
        Act::Flee
    } else if !v.is_empty() && DIRS.iter().any(|d| d.starts_with(v.as_str())) {
        Act::Leave
    } else if ATTACK.contains(&v.as_str()) {
        Act::Attack
    } else if HELP.contains(&v.as_str()) {
        Act::Help
    } else if TALK.contains(&v.as_str()) {
        Act::Talk
    } else {
        Act::Other
    })
}

/// Whether an act counts as `response`.
pub fn counts_as(act: Act, response: &str) -> bool {
    match response {
        "avoid" => matches!(act, Act::Flee | Act::Leave),
        "approach" => matches!(act, Act::Help | Act::Talk),
        "attack" => act == Act::Attack,
        "flee" => act == Act::Flee,
        "leave" => act == Act::Leave,
        "help" => act == Act::Help,
        "talk" => act == Act::Talk,
        _ => act == Act::Other,
    }
}

/// The response the stimulus is expected to move.
pub fn headline(stimulus: &str) -> &'static str {
    match stimulus {
        "killer" | "betrayer" | "attacker" => "avoid",
        "benefactor" => "approach",
        _ => "attack",
    }
}

/// One trial: who, in which arm, facing what, with or without memory, doing what.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    pub agent: String,
    pub arm: String,
    pub stimulus: String,
    pub memory: bool,
    pub act: Act,
}

/// The trials in the record: one per encounter that did something.
pub fn trials(ds: &Dataset, arm_of: &dyn Fn(bool) -> String) -> Vec<Trial> {
    let mut out = Vec::new();
    let mut i = 0;
    let ds_len = ds.decisions.len();
    while i < ds_len {
        let first = &ds.decisions[i];
        let key = (first.session, &first.kind, &first.target, first.room);
        let mut j = i;
        let mut act = None;
        while j < ds_len {
            let d = &ds.decisions[j];
            if (d.session, &d.kind, &d.target, d.room) != key {
                break;
            }
            // A command the game did not take (unknown, refused over the rate) is no response.
            if act.is_none() && !matches!(d.status.as_str(), "unknown_command" | "rate_limited" | "empty") {
                act = act_of(&d.verb);
            }
            j += 1;
        }
        if let Some(act) = act.filter(|_| !first.kind.is_empty() && first.kind != "none") {
            let s = &ds.sessions[first.session];
            out.push(Trial {
                agent: s.agent.clone(),
                arm: arm_of(s.valence),
                stimulus: first.kind.clone(),
                memory: first.memory_id.is_some(),
                act,
            });
        }
        i = j;
    }
    out
}

/// One score: an arm, an agent (`*`: all of them), a stimulus, a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bps {
    pub arm: String,
    pub agent: String,
    pub stimulus: String,
    pub response: String,
    pub memory: Proportion,
    pub no_memory: Proportion,
    /// None when either group has no trials.
    pub bps: Option<f64>,
    pub ci: Option<[f64; 2]>,
    /// `strong`, `moderate`, `none`, or `n/a`.
    pub band: String,
}

pub fn band(bps: Option<f64>) -> &'static str {
    match bps {
        None => "n/a",
        Some(b) if b >= 0.3 => "strong",
        Some(b) if b < 0.1 => "none",
        Some(_) => "moderate",
    }
}

/// (trials, trials counting as the response).
fn tally<'a>(ts: impl Iterator<Item = &'a Trial>, response: &str) -> Proportion {
    let (mut n, mut k) = (0, 0);
    for t in ts {
        n += 1;
        k += u64::from(counts_as(t.act, response));
    }
    Proportion::new(k, n)
}

/// The score of one group of trials (one arm, one stimulus; one agent or all).
pub fn score(group: &[&Trial], arm: &str, agent: &str, stimulus: &str, response: &str) -> Bps {
    let pick = |memory: bool| group.iter().copied().filter(move |t| t.memory == memory);
    let (m, nm) = (tally(pick(true), response), tally(pick(false), response));
    let bps = m.p.zip(nm.p).map(|(a, b)| (a - b).abs());
    Bps {
        arm: arm.into(),
        agent: agent.into(),
        stimulus: stimulus.into(),
        response: response.into(),
        memory: m,
        no_memory: nm,
        bps,
        ci: diff_interval(m, nm, true),
        band: band(bps).into(),
    }
}

/// Every arm's scores: pooled for every response, per agent for the headline one.
pub fn scores(trials: &[Trial]) -> Vec<Bps> {
    let mut cells: BTreeMap<(&str, &str), BTreeMap<&str, Vec<&Trial>>> = BTreeMap::new();
    for t in trials {
        cells.entry((t.arm.as_str(), t.stimulus.as_str())).or_default().entry(t.agent.as_str()).or_default().push(t);
    }
    let mut out = Vec::new();
    for ((arm, stimulus), agents) in cells {
        let all: Vec<&Trial> = agents.values().flatten().copied().collect();
        for r in RESPONSES {
            out.push(score(&all, arm, "*", stimulus, r));
        }
        for (a, group) in agents {
            out.push(score(&group, arm, a, stimulus, headline(stimulus)));
        }
    }
    out
}

/// The valence effect: P(response | stimulus, memory) with valence on, minus with it
/// off, for the headline response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValenceEffect {
    pub stimulus: String,
    pub response: String,
    pub valence_on: Proportion,
    pub valence_off: Proportion,
    pub diff: Option<f64>,
    pub ci: Option<[f64; 2]>,
}

pub fn valence_effects(trials: &[Trial]) -> Vec<ValenceEffect> {
    let mut kinds: Vec<&str> = trials.iter().map(|t| t.stimulus.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|s| {
            let r = headline(s);
            let p = |arm: &str| tally(trials.iter().filter(|t| t.arm == arm && t.stimulus == s && t.memory), r);
            let (on, off) = (p("valence_on"), p("valence_off"));
            ValenceEffect {
                stimulus: s.into(),
                response: r.into(),
                valence_on: on,
                valence_off: off,
                diff: on.p.zip(off.p).map(|(a, b)| a - b),
                ci: diff_interval(on, off, false),
            }
        })
        .filter(|e| e.valence_on.n > 0 && e.valence_off.n > 0)
        .collect()
}

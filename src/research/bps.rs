//! Behavioral Persistence Score: |P(response | stimulus, memory) − P(response | stimulus,
//! no memory)| for the same stimulus kind, per agent and pooled, per arm.
//!
//! - A **trial** is an encounter: consecutive decisions of one session facing the same
//!   stimulus (kind and target) in the same room (where it decided). Its **response** is
//!   the first of those decisions that does something and that the game took (status
//!   `ok`): `look`, `score`, `consider`… only inform and are passed over, and so is every
//!   command the game did not take — unknown, over the rate, and refused by the game
//!   (`failed`: "You are too exhausted"; `wrong_position`: a flee while resting;
//!   `invalid_target`). An encounter with no such command is not counted; the per-trial
//!   table keeps it with why (`refused`, `informed_only`) and the report's data quality
//!   section counts them.
//! - **Memory**: the encounter's first decision carries an injected memory about the
//!   target (`Stimulus.memory_id`); **no memory**: it does not (never met before it was
//!   dreamed, or what happened fell out of the summary).
//! - P is estimated as k/n over trials, each with its Wilson interval; the interval of
//!   |p̂₁ − p̂₂| comes from Newcombe's hybrid score interval of the difference (from 0 when
//!   that holds 0), and Fisher's exact test gives the p-value of no difference. These
//!   behave at 0 and 1 and at n = 1, where a bootstrap gives a point. Bands: ≥ 0.3
//!   strong, < 0.1 none, else moderate (the Dark Pawns evaluation method's thresholds) —
//!   only with at least `MIN_N` trials in each group; below that, `too_few`.
//! - The headline response per stimulus: `avoid` (flee, or leave the room) for a killer,
//!   betrayer or attacker; `approach` (help, give, talk) for a benefactor; `attack`
//!   otherwise. Every response is in the JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::dataset::Dataset;
use super::stats::{abs_interval, fisher_exact, newcombe, wilson, Proportion};

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

/// One encounter: who, in which arm, facing what, with or without memory, what it did,
/// and whether it counts (the per-trial table: `trials.parquet`, `evaluation.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// Its number in the evaluation, in the record's order.
    pub encounter: u64,
    pub agent: String,
    /// The session's id.
    pub session: u64,
    pub arm: String,
    pub stimulus: String,
    pub target: Option<String>,
    /// The room it decided in (before its commands ran).
    pub room: u32,
    /// Its first decision's `seq`, and how many decisions it spans.
    pub seq: u64,
    pub decisions: u32,
    /// The memory about the target injected at login, if any.
    pub memory_id: Option<String>,
    pub memory: bool,
    /// What it did: the first command the game took (`ok`) that does something, and its `seq`.
    pub act: Option<Act>,
    pub response_seq: Option<u64>,
    pub counted: bool,
    /// Why not, when not counted: `refused` (every command that would have acted was
    /// refused by the game: too tired, the wrong position, no such target, unknown, over
    /// the rate), `informed_only` (it only looked).
    pub why: String,
}

/// Every encounter with a stimulus in the record (counted or not, and why).
pub fn trials(ds: &Dataset, arm_of: &dyn Fn(&str, bool) -> String) -> Vec<Trial> {
    let mut out = Vec::new();
    let mut i = 0;
    let ds_len = ds.decisions.len();
    while i < ds_len {
        let first = &ds.decisions[i];
        let key = (first.session, &first.kind, &first.target, first.room);
        let mut j = i;
        let (mut act, mut refused) = (None, false);
        while j < ds_len {
            let d = &ds.decisions[j];
            if (d.session, &d.kind, &d.target, d.room) != key {
                break;
            }
            // Only a command the game took is a response.
            if act.is_none() {
                if let Some(a) = act_of(&d.verb) {
                    if d.status == "ok" {
                        act = Some((a, d.seq));
                    } else {
                        refused = true;
                    }
                }
            }
            j += 1;
        }
        if !first.kind.is_empty() && first.kind != "none" {
            let s = &ds.sessions[first.session];
            out.push(Trial {
                encounter: out.len() as u64,
                agent: s.agent.clone(),
                session: s.session,
                arm: arm_of(&s.agent, s.valence),
                stimulus: first.kind.clone(),
                target: first.target.clone(),
                room: first.room,
                seq: first.seq,
                decisions: (j - i) as u32,
                memory_id: first.memory_id.clone(),
                memory: first.memory_id.is_some(),
                act: act.map(|(a, _)| a),
                response_seq: act.map(|(_, s)| s),
                counted: act.is_some(),
                why: match (act, refused) {
                    (Some(_), _) => String::new(),
                    (None, true) => "refused".into(),
                    (None, false) => "informed_only".into(),
                },
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
    /// Each group's Wilson interval.
    pub memory_ci: Option<[f64; 2]>,
    pub no_memory_ci: Option<[f64; 2]>,
    /// None when either group has no trials.
    pub bps: Option<f64>,
    /// The interval of |p₁ − p₂| from Newcombe's interval of the difference.
    pub ci: Option<[f64; 2]>,
    /// Fisher's exact test of the two groups (two-sided).
    pub p_value: Option<f64>,
    /// `strong`, `moderate`, `none`; `too_few` under `MIN_N` trials in a group; `n/a`.
    pub band: String,
}

/// The fewest trials in each group for a band to be given.
pub const MIN_N: u64 = 10;

pub fn band(bps: Option<f64>, memory: Proportion, no_memory: Proportion) -> &'static str {
    match bps {
        None => "n/a",
        Some(_) if memory.n < MIN_N || no_memory.n < MIN_N => "too_few",
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
        k += u64::from(t.act.is_some_and(|a| counts_as(a, response)));
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
        memory_ci: wilson(m),
        no_memory_ci: wilson(nm),
        bps,
        ci: newcombe(m, nm).map(abs_interval),
        p_value: fisher_exact(m, nm),
        band: band(bps, m, nm).into(),
    }
}

/// Every arm's scores over the counted trials: pooled for every response, per agent for
/// the headline one.
pub fn scores(trials: &[Trial]) -> Vec<Bps> {
    let mut cells: BTreeMap<(&str, &str), BTreeMap<&str, Vec<&Trial>>> = BTreeMap::new();
    for t in trials.iter().filter(|t| t.counted) {
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
/// off, for the headline response — between arms that differ only in valence
/// (`valence_on`/`valence_off`, or a run's `X/valence_on` and `X/valence_off`: `group` X).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValenceEffect {
    #[serde(default)]
    pub group: String,
    pub stimulus: String,
    pub response: String,
    pub valence_on: Proportion,
    pub valence_off: Proportion,
    pub on_ci: Option<[f64; 2]>,
    pub off_ci: Option<[f64; 2]>,
    pub diff: Option<f64>,
    /// Newcombe's interval of the difference.
    pub ci: Option<[f64; 2]>,
    pub p_value: Option<f64>,
}

/// An arm's group and valence: `valence_on` → ("", true), `llm/valence_off` → ("llm", false).
pub fn valence_arm(arm: &str) -> Option<(&str, bool)> {
    let (group, v) = arm.rsplit_once('/').unwrap_or(("", arm));
    match v {
        "valence_on" => Some((group, true)),
        "valence_off" => Some((group, false)),
        _ => None,
    }
}

pub fn valence_effects(trials: &[Trial]) -> Vec<ValenceEffect> {
    // (group, stimulus) → the trials with valence on, and off.
    type Arms<'a> = (Vec<&'a Trial>, Vec<&'a Trial>);
    let mut cells: BTreeMap<(&str, &str), Arms> = BTreeMap::new();
    for t in trials.iter().filter(|t| t.counted && t.memory) {
        if let Some((group, on)) = valence_arm(&t.arm) {
            let c = cells.entry((group, t.stimulus.as_str())).or_default();
            if on {
                c.0.push(t)
            } else {
                c.1.push(t)
            }
        }
    }
    cells
        .into_iter()
        .filter(|(_, (on, off))| !on.is_empty() && !off.is_empty())
        .map(|((group, s), (on_t, off_t))| {
            let r = headline(s);
            let (on, off) = (tally(on_t.into_iter(), r), tally(off_t.into_iter(), r));
            ValenceEffect {
                group: group.into(),
                stimulus: s.into(),
                response: r.into(),
                valence_on: on,
                valence_off: off,
                on_ci: wilson(on),
                off_ci: wilson(off),
                diff: on.p.zip(off.p).map(|(a, b)| a - b),
                ci: newcombe(on, off),
                p_value: fisher_exact(on, off),
            }
        })
        .collect()
}

//! Memorable events: what extraction finds in the recorded stream, with the facts the
//! engine knew when it happened (levels, hit points), so valence is computed, not guessed.

use serde::{Deserialize, Serialize};

/// What kind of social act.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SocialAct {
    /// Said or told something (content decides the valence by keyword sentiment).
    Speech,
    /// Greeted someone (a wave, a bow, "hello").
    Greet,
    /// Gave the agent an item, or the agent gave one.
    Gift,
    /// Healed or assisted (helped in a fight) an ally.
    Cooperation,
    /// Attacked a member of its own group.
    Betrayal,
    /// Insulted or threatened.
    Insult,
}

/// One memorable thing, as the game knew it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum EventKind {
    /// The agent killed something.
    Kill { victim: String, victim_level: u8, agent_level: u8, victim_is_player: bool },
    /// The agent died.
    Death { killer: Option<String> },
    /// The agent fled a fight, at this share of its hit points (0–100).
    Flee { from: Option<String>, hp_pct: u8 },
    /// The agent was hurt down to `hp` of `max_hp` by `by`.
    Hurt { by: Option<String>, hp: i32, max_hp: i32 },
    /// A social act between the agent and `other`; `by_agent` says who did it.
    Social { act: SocialAct, other: String, by_agent: bool, text: String },
    /// The agent got an item (`from`: who gave it, if anyone).
    Acquire { item: String, item_level: u8, from: Option<String> },
    /// The agent reached a level.
    LevelUp { level: u8 },
    /// The agent walked from one room to this event's room (the world map; no memory
    /// of its own).
    Move {
        from_vnum: u32,
        from_name: String,
        /// The exit taken (`north`...), when the move was a step through one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dir: Option<String>,
    },
}

/// An event with where and when it happened and which records it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemEvent {
    /// Stable across dreams: `"{session}:{seq}"` of the record it came from.
    pub id: String,
    /// Unix µs when it happened (not when it was dreamed).
    pub at_us: u64,
    pub session: u64,
    pub room_vnum: u32,
    pub room_name: String,
    pub kind: EventKind,
    /// Recorded in a `valence: false` session (protocol §4, the ablation): the event
    /// counts with valence 0 — no emotional salience, no feeling in the summary.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub valence_off: bool,
}

impl MemEvent {
    /// The event's valence as memory counts it: the game's rule, or 0 in an ablation
    /// session.
    pub fn valence(&self) -> i8 {
        if self.valence_off {
            0
        } else {
            crate::valence::valence(&self.kind)
        }
    }

    /// The other party, if any (a mob, a player).
    pub fn other(&self) -> Option<&str> {
        let who = match &self.kind {
            EventKind::Kill { victim, .. } => Some(victim.as_str()),
            EventKind::Death { killer } => killer.as_deref(),
            EventKind::Flee { from, .. } => from.as_deref(),
            EventKind::Hurt { by, .. } => by.as_deref(),
            EventKind::Social { other, .. } => Some(other.as_str()),
            EventKind::Acquire { from, .. } => from.as_deref(),
            EventKind::LevelUp { .. } | EventKind::Move { .. } => None,
        };
        who.filter(|w| !w.is_empty())
    }

    /// Whether the other party is a player (known for kills and social acts).
    pub fn other_is_player(&self) -> bool {
        match &self.kind {
            EventKind::Kill { victim_is_player, .. } => *victim_is_player,
            EventKind::Social { .. } => true,
            EventKind::Acquire { from, .. } => from.is_some(),
            _ => false,
        }
    }
}

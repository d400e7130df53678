//! Whom an agent knows and what it remembers at login: the vocabulary the engine
//! classifies a decision's stimulus by, and the memory messages a login carries. Made by
//! the server's memory (`memory::encounters`, `memory::login`), read by the engine.

use serde::{Deserialize, Serialize};

use crate::event::{EventKind, SocialAct};

/// A hurt that leaves the agent under this share of its hit points (percent) is memorable.
pub const HURT_PCT: i64 = 15;

/// Why someone present matters to the agent, weakest first: a stimulus names the
/// strongest relation in the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Never met.
    #[default]
    Stranger,
    /// Met (talked, greeted, traded words) with nothing above.
    Known,
    /// The agent killed one of them.
    Prey,
    /// Gave the agent something or helped it.
    Benefactor,
    /// Hurt the agent badly, or the agent fled from them.
    Attacker,
    /// Turned on the agent or insulted it.
    Betrayer,
    /// Killed the agent.
    Killer,
}

impl Relation {
    pub const ALL: [Relation; 7] = [
        Relation::Stranger,
        Relation::Known,
        Relation::Prey,
        Relation::Benefactor,
        Relation::Attacker,
        Relation::Betrayer,
        Relation::Killer,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            Relation::Stranger => "stranger",
            Relation::Known => "known",
            Relation::Prey => "prey",
            Relation::Benefactor => "benefactor",
            Relation::Attacker => "attacker",
            Relation::Betrayer => "betrayer",
            Relation::Killer => "killer",
        }
    }

    pub fn parse(s: &str) -> Option<Relation> {
        Relation::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// What one memorable event makes of its other party.
    pub fn of_event(kind: &EventKind) -> Relation {
        match kind {
            EventKind::Death { .. } => Relation::Killer,
            EventKind::Hurt { .. } | EventKind::Flee { .. } => Relation::Attacker,
            EventKind::Kill { .. } => Relation::Prey,
            EventKind::Acquire { .. } => Relation::Benefactor,
            EventKind::Social { act, by_agent: false, .. } => match act {
                SocialAct::Gift | SocialAct::Cooperation => Relation::Benefactor,
                SocialAct::Betrayal | SocialAct::Insult => Relation::Betrayer,
                SocialAct::Greet | SocialAct::Speech => Relation::Known,
            },
            EventKind::Social { .. } | EventKind::LevelUp { .. } | EventKind::Move { .. } => Relation::Known,
        }
    }
}

/// Someone the agent knows of at login: the relation, and the injected memory about them
/// felt most strongly (what a decision's stimulus records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownEntity {
    /// Lower-cased.
    pub name: String,
    pub relation: Relation,
    pub memory_id: Option<String>,
    pub memory_valence: Option<f32>,
}

/// The memory messages for one login.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoginMemory {
    pub block: String,
    /// Memories (event lines) in `block`.
    pub count: usize,
    /// Sessions the summary covers.
    pub summaries: usize,
    pub summary: String,
    /// The memories injected (event ids), stored with the session.
    pub memory_ids: Vec<String>,
    /// The agent's soul entries (§12): always given, first.
    pub soul: Vec<String>,
    /// Everyone the agent knows of, and the injected memory about each (the decisions'
    /// stimuli: `memory::encounters`).
    pub known: Vec<KnownEntity>,
}

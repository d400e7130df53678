//! The record of play: what every agent (and, by default, every human) decided, saw and
//! became, session by session. Written by the server's recorder in group commits;
//! read by export, search indexing and (later) dreaming.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A character's state at one moment: before a command, after its pulse.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct StateSnapshot {
    pub hp: i32,
    pub max_hp: i32,
    pub mana: i32,
    pub max_mana: i32,
    pub moves: i32,
    pub max_moves: i32,
    pub position: String,
    pub room_vnum: u32,
    /// Shared with the room (and the opponent's name with the character).
    pub room_name: Arc<str>,
    /// Whom the character is fighting, by name.
    pub fighting: Option<Arc<str>>,
    pub level: u8,
    pub exp: i64,
    pub gold: i64,
}

/// What the agent last saw before it decided: the research methodology's stimulus.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Stimulus {
    /// Names are shared with the game's characters (no copy per decision).
    pub mobs_present: Vec<Arc<str>>,
    /// The last one who came into the agent's room.
    pub last_entered: Option<Arc<str>>,
    /// The last thing said or told to the agent ("Ann says, 'hi'").
    pub last_message: Option<Arc<str>>,
    /// The other players in the room, by name.
    #[serde(default)]
    pub players_present: Vec<Arc<str>>,
    /// What the research metrics call the stimulus: who here matters most to the agent
    /// and why, from what happened between them (never pruned, valence-independent):
    /// `killer`, `betrayer`, `attacker`, `benefactor`, `prey`, `known`, `stranger`, or
    /// `none` when nobody else is here. Empty in records older than the metrics.
    #[serde(default)]
    pub kind: String,
    /// That one, lower-cased as the game names them ("a cave bear", "bram").
    #[serde(default)]
    pub target: Option<String>,
    /// The memory injected at login that is about the target (the one felt most
    /// strongly), by id (`ev:{session}:{seq}`); none: no injected memory of them.
    #[serde(default)]
    pub memory_id: Option<String>,
    /// That memory's valence as injected (0 in a `valence: false` session).
    #[serde(default)]
    pub memory_valence: Option<f32>,
}

/// What the client says about itself (login) and about this command (its `data`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ClientFields {
    pub harness: Option<String>,
    pub model: Option<String>,
    pub version: Option<String>,
    pub tokens_prompt: Option<u64>,
    pub tokens_completion: Option<u64>,
    pub latency_ms: Option<f64>,
}

/// One model call the client made for a decision (issue 53): what it asked, what came
/// back, and what it cost. A decision keeps every call behind it — the models that
/// failed first, then the one that answered.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LlmCall {
    pub model: String,
    /// How the answer was asked for: `json_schema`, `json_object`, `tool`, `text`.
    pub form: String,
    /// The messages sent: the system prompt and the user's.
    pub system: String,
    pub user: String,
    /// The answer's text (a tool call's arguments), none when the call failed.
    pub answer: Option<String>,
    pub tokens_prompt: Option<u64>,
    pub tokens_completion: Option<u64>,
    pub latency_ms: f64,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// The client shortened the messages to fit the protocol's frame.
    pub cut: bool,
}

/// One command, everything about it. The record log writes it field by field in
/// `codec`'s `BodyOut` too (its times as differences): a field added here must be
/// written there as well, in the same place (a test counts them).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DecisionRecord {
    /// 1 for the session's first command.
    pub turn: u64,
    /// The verb as typed, and the rest of the line.
    pub command: String,
    pub args: String,
    /// ok, unknown_command, invalid_target, wrong_position, failed, rate_limited, empty.
    pub status: String,
    pub pre: StateSnapshot,
    pub post: StateSnapshot,
    /// Unix µs: the session read it, the engine ran it, its pulse ended.
    pub received_us: u64,
    pub dispatched_us: u64,
    pub completed_us: u64,
    /// completed − received.
    pub latency_us: u64,
    pub stimulus: Stimulus,
    /// Memories injected at login: on the session's first decision (the session's
    /// metadata holds them for all of it).
    pub memory_ids: Vec<String>,
    pub client: ClientFields,
    /// The client's correlation id, if it sent one.
    pub re: Option<String>,
    /// Why the client chose it (protocol §5 `reason`, ≤ 500 characters); none in
    /// records older than the field.
    #[serde(default)]
    pub reason: Option<String>,
    /// The model calls behind it, as the client reported them (`llm`); none in records
    /// older than the field.
    #[serde(default)]
    pub llm: Vec<LlmCall>,
}

/// A change in what a character is or has.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Transition {
    /// `max` and `by` (whom the character was fighting at the pulse's end) since the
    /// memory issue; older records read them as 0 and none.
    Hp {
        from: i32,
        to: i32,
        #[serde(default)]
        max: i32,
        #[serde(default)]
        by: Option<String>,
    },
    Level {
        from: u8,
        to: u8,
    },
    Exp {
        from: i64,
        to: i64,
    },
    Gold {
        from: i64,
        to: i64,
    },
    Room {
        from: u32,
        to: u32,
        name: String,
    },
    ItemAcquired {
        vnum: u32,
        name: String,
        level: u8,
    },
    ItemLost {
        vnum: u32,
        name: String,
    },
    Equipped {
        slot: u8,
        vnum: u32,
        name: String,
    },
    Unequipped {
        slot: u8,
        vnum: u32,
        name: String,
    },
    Death {
        killer: Option<String>,
        exp_lost: i64,
    },
    /// `level` is the killer's own level at the kill (0 in records older than memory).
    Kill {
        victim: String,
        victim_level: u8,
        victim_is_player: bool,
        #[serde(default)]
        level: u8,
    },
    /// A social act between two players, as the engine saw it: `act` is `gift`,
    /// `cooperation` (healed, assisted, rescued), `betrayal` (attacked its own group),
    /// `greet` or `insult` (a social aimed at the other); `by_me` says who acted;
    /// `text` is what was given, or the social's name.
    Social {
        act: String,
        other: String,
        by_me: bool,
        text: String,
    },
    /// Something the agent keeps itself (§12): `layer` is `memory` (remembered),
    /// `summary` (made by self-care), `shared` (received by a neural link); `id` is the
    /// record's in its mind. Indexed, so `recall` finds it through the search index.
    Mind {
        layer: String,
        id: u64,
        text: String,
    },
}

/// What one record of a session stream is.
///
/// Written as serde's internally tagged enum (`kind` first, then the variant's fields);
/// read by `body_de`, which takes the record log's arrays without serde's buffering of
/// every record (the derived reader buffered each one into a tree before reading it).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecordBody {
    /// A command and everything about it (also the session's action).
    Decision(Box<DecisionRecord>),
    /// Something the agent was sent: `event_type` is the protocol's event type.
    /// The text is shared with what was sent: a crowd's broadcast is one string.
    Observation {
        event_type: String,
        text: Arc<str>,
        from: Option<Arc<str>>,
    },
    Transition(Transition),
}

impl RecordBody {
    /// The kind as the search index and exports name it.
    pub fn kind(&self) -> &'static str {
        match self {
            RecordBody::Decision(_) => "action",
            RecordBody::Observation { .. } => "observation",
            RecordBody::Transition(_) => "transition",
        }
    }
}

/// One entry of a session stream. The record log writes it field by field in
/// `codec::encode_records_into` too: a field added here must be written there as well,
/// in the same place.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EventRecord {
    pub session: u64,
    /// 1, 2, 3... within the session, in the order things happened.
    pub seq: u64,
    /// Lower-cased character name (shared by the session's records).
    pub agent: Arc<str>,
    /// Unix µs when it happened.
    pub at_us: u64,
    /// Room the character was in.
    pub room_vnum: u32,
    pub body: RecordBody,
}

/// A session: one login of one character, to its end.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct SessionMeta {
    pub session: u64,
    /// Lower-cased character name.
    pub agent: String,
    pub is_agent: bool,
    pub started_us: u64,
    pub ended_us: Option<u64>,
    /// quit, rent, linkdead, shutdown, replaced...
    pub ended_how: Option<String>,
    pub harness: Option<String>,
    pub model: Option<String>,
    pub version: Option<String>,
    pub tier: Option<String>,
    /// `false` for a protocol §4 `valence:false` session: recorded with valence 0.
    pub valence: bool,
    /// Records in the stream so far.
    pub records: u64,
    /// The batch that holds the session's start (set by the store).
    #[serde(default)]
    pub first_batch: u64,
    /// The memories injected at login (`memory_summary`), by id (`ev:{session}:{seq}`).
    #[serde(default)]
    pub memory_ids: Vec<String>,
    /// Once ended: no record of the session is in a batch after this one (set by the
    /// store; 0 for sessions ended before schema 10 and for running ones).
    #[serde(default)]
    pub last_batch: u64,
}

/// One group commit's worth.
#[derive(Debug, Clone, Default)]
pub struct RecordBatch {
    /// Sessions begun or ended (replacing their row).
    pub sessions: Vec<SessionMeta>,
    pub records: Vec<EventRecord>,
    /// Span segments to write as given: (session, chunk keys holding it). Only closing
    /// the sessions of a file written before migration 10 asks for them; a sweep lists
    /// what it packs itself.
    pub spans: Vec<(u64, Vec<u64>)>,
    /// Pack the log's tail with this commit (one chunk per session, listed in its
    /// spans) and move `spans_through` to the last batch.
    pub sweep: bool,
    /// Packs built off the writer (`Store::build_packs`) to apply with this commit.
    pub packs: Option<crate::pack::Packs>,
    /// Chunks of the engine's journal: (run, encoded chunk), appended to the run in order.
    pub journal: Vec<(u64, Vec<u8>)>,
    /// Model calls to journal by prompt hash (kept only where the hash is new).
    pub model_calls: Vec<(String, LlmCall)>,
}

/// Days since 1970-01-01 (UTC) of a Unix µs time.
pub fn day_of(at_us: u64) -> u32 {
    (at_us / 86_400_000_000) as u32
}

//! What the engine sends to a session. The session renders it: JSON for agents and
//! browsers, text for telnet. The engine never formats JSON envelopes or touches sockets.

use std::sync::Arc;

use serde::Serialize;

/// An `event`'s `data.type` (protocol §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    Text,
    Combat,
    Say,
    Tell,
    Shout,
    Gossip,
    Emote,
    Enter,
    Leave,
    Death,
    LevelUp,
    System,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Text => "text",
            EventKind::Combat => "combat",
            EventKind::Say => "say",
            EventKind::Tell => "tell",
            EventKind::Shout => "shout",
            EventKind::Gossip => "gossip",
            EventKind::Emote => "emote",
            EventKind::Enter => "enter",
            EventKind::Leave => "leave",
            EventKind::Death => "death",
            EventKind::LevelUp => "level_up",
            EventKind::System => "system",
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RoomState {
    pub vnum: u32,
    pub name: Arc<str>,
    pub description: Arc<str>,
    pub exits: Vec<&'static str>,
    pub doors: Vec<DoorView>,
    /// Names shared with the characters (a crowd's look copies none).
    pub players: Vec<Arc<str>>,
    /// (extension) Players present beyond those listed, in a crowd.
    #[serde(skip_serializing_if = "is_zero")]
    pub players_more: usize,
    pub mobs: Vec<Arc<str>>,
    /// Shared with the objects (a floor of corpses copies no name per `state`).
    pub items: Vec<Arc<str>>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DoorView {
    pub direction: &'static str,
    pub state: &'static str,
    pub keyword: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PlayerState {
    pub name: String,
    pub health: i32,
    pub max_health: i32,
    pub mana: i32,
    pub max_mana: i32,
    #[serde(rename = "move")]
    pub moves: i32,
    pub max_move: i32,
    pub level: u8,
    pub exp: i64,
    pub gold: i64,
    pub position: &'static str,
    pub class: &'static str,
    pub race: &'static str,
    pub str: u8,
    pub int: u8,
    pub wis: u8,
    pub dex: u8,
    pub con: u8,
    pub cha: u8,
    pub is_agent: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StateData {
    pub player: PlayerState,
    pub room: RoomState,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What one engine step sent one session, in order: the item of a session's queue. A
/// session renders a batch and writes it to its socket at once (one write, not one per
/// message).
pub type Outs = Vec<Out>;

/// One output for one session.
#[derive(Debug, Clone)]
pub enum Out {
    /// Text is shared: a broadcast clones a pointer per recipient, not the words.
    Event {
        kind: EventKind,
        text: Arc<str>,
        from: Option<Arc<str>>,
        re: Option<Arc<str>>,
    },
    State {
        data: Box<StateData>,
        re: Option<Arc<str>>,
    },
    /// Changed variables, already in protocol JSON form, in the fixed variable order.
    Vars {
        values: Vec<(&'static str, serde_json::Value)>,
        re: Option<Arc<str>>,
        resumed: Option<bool>,
    },
    /// A coded error produced by the engine (not by the session).
    /// `extra` fields are merged into `data` (e.g. `variables` for `unknown_variable`).
    Error {
        code: &'static str,
        message: String,
        re: Option<Arc<str>>,
        extra: Option<serde_json::Value>,
    },
    /// Protocol §7, at login: the newest session's block of the agent's memory.
    MemoryBootstrap {
        block: Arc<str>,
        count: usize,
        summaries: usize,
        /// The agent's soul entries (§12), always given (`soul` in `data` when any).
        soul: Arc<[String]>,
    },
    /// Protocol §7, at login: the whole summary (sent at the top level and under `data`).
    MemorySummary(Arc<str>),
    /// A reply of the engine's own, rendered as `{"type": kind, "data": data}`
    /// (`actions_result`); telnet sessions ignore it.
    Reply {
        kind: &'static str,
        data: serde_json::Value,
        re: Option<Arc<str>>,
    },
    /// Telnet prompt line (`< 20hp 100m 80mv >`); JSON sessions ignore it.
    Prompt(String),
    /// The player's `color` level for its telnet session (`None`: as its client says
    /// it can); JSON sessions ignore it.
    Colour(Option<u8>),
    /// Not sent: the batch answers a command its session read at this instant. The
    /// session times the reply's whole way (`pawns_command_reply_seconds`) once the
    /// batch is written to the socket.
    Answered(std::time::Instant),
    /// The engine is done with this session: `quit`, takeover, or shutdown.
    Close {
        code: &'static str,
        message: String,
    },
}

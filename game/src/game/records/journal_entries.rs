//! What the engine journals (`journal.rs` writes it, `pawns replay` reads it back):
//! the boot, each pulse's times, each input with where it came in, and cut sessions.

use serde::{Deserialize, Serialize};

use pawns_storage::{BoardRecord, CharacterRecord, ChatRoomRecord, HouseRecord};

/// Journal format version (in the boot entry). 2: a pulse's decisions and transitions
/// are recorded in the flush's pass over the players, after the crowd notices (a
/// version-1 run's records came in another order and would not compare). 3: a crowd's
/// people hear its notice in turns by character id, not the whole room at once. 4: in a
/// crowd, a guard turning someone back, a flight and a respawn are gathered into the
/// notice, not told to the whole room. 5: mobs and objects take their turns in id order
/// (`turn_slots`); a pulse runs queued commands (`World::waiting`), the combat round
/// its fighters and the effects' count their characters (`World::affected`) in id order,
/// where all went in hash map order.
pub const JOURNAL_VERSION: u32 = 5;

/// How the engine was started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Boot {
    pub version: u32,
    /// The run's id: its boot time (µs).
    pub run: u64,
    pub seed: u64,
    pub pulse_us: u64,
    pub start_room: Option<u32>,
    /// The game hour at pulse 0, as resolved.
    pub start_hour: u64,
    pub record_humans: bool,
    pub scripts: bool,
    pub linkdead_grace_us: u64,
    pub save_interval_us: u64,
    /// SHA-256 of the world's stored zones and what the world was read from.
    pub world_digest: String,
    pub world_source: String,
    pub houses: Vec<HouseRecord>,
    pub chat_rooms: Vec<ChatRoomRecord>,
    pub boards: Vec<BoardRecord>,
}

/// What a login said about its client.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientRecord {
    pub harness: Option<String>,
    pub model: Option<String>,
    pub version: Option<String>,
    pub tier: Option<String>,
    pub valence: bool,
    pub memory: Option<pawns_graph::known::LoginMemory>,
    pub notice: Option<String>,
    #[serde(default)]
    pub display: bool,
}

/// A result an `actions` message's session made itself (§12): its index, and the JSON
/// value or the (code, message) of its error.
pub type Premade = (usize, Result<String, (String, String)>);

/// A message that changed the world (the engine's `EngineMsg`, without its channels).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Input {
    Enter {
        record: Box<CharacterRecord>,
        link_id: u64,
        json: bool,
        client: Box<ClientRecord>,
        resumed: Option<bool>,
    },
    Command {
        char_id: u64,
        link_id: u64,
        line: String,
        id: Option<String>,
        received_us: u64,
        tokens_prompt: Option<u64>,
        tokens_completion: Option<u64>,
        latency_ms: Option<f64>,
        #[serde(default)]
        reason: Option<String>,
        #[serde(default)]
        llm: Vec<pawns_storage::LlmCall>,
    },
    Subscribe {
        char_id: u64,
        link_id: u64,
        names: Vec<String>,
        add: bool,
        re: Option<String>,
    },
    Detach {
        char_id: u64,
        link_id: u64,
    },
    Reattach {
        char_id: u64,
        link_id: u64,
        resync: bool,
    },
    Resync {
        char_id: u64,
        link_id: u64,
    },
    RateLimited {
        char_id: u64,
        link_id: u64,
        command: String,
    },
    Actions {
        char_id: u64,
        link_id: u64,
        batch: String,
        re: Option<String>,
        premade: Vec<Premade>,
    },
    Say {
        char_id: u64,
        text: String,
    },
    MindRecorded {
        name: String,
        items: Vec<(String, u64, String)>,
    },
    Hud {
        char_id: u64,
        link_id: u64,
        beat: bool,
    },
    ResidentKnown {
        name: String,
        kind: String,
        prompt: String,
        model: Option<String>,
        join_room: Option<u64>,
    },
    ResidentRetired {
        name: String,
    },
    ResidentTell {
        to: String,
        text: String,
    },
    /// The server stopped: every session ended.
    Shutdown,
    /// A branch of the run begins here (`pawns branch`): every player is saved where it
    /// stands and leaves the world, its session ended `branched`; scripts start afresh.
    Branch,
}

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Entry {
    Boot(Box<Boot>),
    /// A pulse that recorded something, and the times it stamped: from its start, and
    /// from its flush.
    Tick {
        pulse: u64,
        start_us: u64,
        flush_us: u64,
    },
    /// A message, handled after `pulse` pulses (`drain` 0) or inside pulse `pulse` at its
    /// `drain`th look at the inbox; `at_us`: the time its records carry.
    Input {
        pulse: u64,
        drain: u32,
        at_us: u64,
        input: Input,
    },
    /// A session found full (a slow consumer) at this character's `nth` delivery: its
    /// link was cut.
    Cut {
        char_id: u64,
        nth: u64,
    },
}

//! Typed records kept in the store. Plain data: the game converts to and from these.

use serde::{Deserialize, Serialize};

/// A login identity. Humans have a password hash; agents log in with keys (`AgentKeyRecord`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Account {
    /// The character name as the player typed it (case kept for display).
    pub name: String,
    /// argon2 PHC string; `None` for a character that only agents keys log in.
    pub password_hash: Option<String>,
    pub is_agent: bool,
    /// Unix seconds.
    pub created: u64,
    /// Made without a password or a key on a server that takes guests (`serve
    /// --guests`): it cannot log in again, and its memory has the small quota.
    #[serde(default)]
    pub guest: bool,
}

/// An agent key, stored by the SHA-256 of the key so the key itself never touches disk.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AgentKeyRecord {
    /// Lower-cased character name the key logs in.
    pub name: String,
    pub created: u64,
    pub revoked: bool,
    /// An admin gave this key a person's character (one that logs in with a password):
    /// `keygen --take-over`. Without it, a key never opens such a character.
    #[serde(default)]
    pub takes_over: bool,
}

/// An object a character carries, with whatever it contains (bags hold things).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ObjRecord {
    pub vnum: u32,
    pub contains: Vec<ObjRecord>,
}

/// What lies on the floor of a house room.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct HouseRecord {
    pub room_vnum: u32,
    pub contents: Vec<ObjRecord>,
}

/// Everything that makes a character the same after a restart.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CharacterRecord {
    pub name: String,
    pub is_agent: bool,
    pub class: u8,
    pub race: u8,
    pub sex: u8,
    pub level: u8,
    pub exp: i64,
    pub gold: i64,
    pub hit: i32,
    pub max_hit: i32,
    pub mana: i32,
    pub max_mana: i32,
    pub moves: i32,
    pub max_moves: i32,
    /// str, int, wis, dex, con, cha.
    pub abilities: [u8; 6],
    pub alignment: i32,
    pub room_vnum: u32,
    pub inventory: Vec<ObjRecord>,
    /// (wear slot index, object).
    pub equipment: Vec<(u8, ObjRecord)>,
    pub deaths: u32,
    pub kills: u32,
    /// Unix seconds of the last save.
    pub saved_at: u64,
    /// Spells and skills learned: (name, percent).
    #[serde(default)]
    pub skills: Vec<(String, u8)>,
    /// Practice sessions not yet spent at a guild master.
    #[serde(default)]
    pub practices: u32,
    /// Drunk, full, thirst (0..=24) when the world has food; absent in older records.
    #[serde(default)]
    pub conditions: Option<[i8; 3]>,
    /// What an agent keeps of its HUD between sessions: its knowledge store and the
    /// settings its actions made. Older rows read as none.
    #[serde(default)]
    pub hud: Option<HudRecord>,
    /// Coins kept at the bank (the `bank` special); absent in older records.
    #[serde(default)]
    pub bank_gold: i64,
    /// Hit points below which the character flees by itself (`wimpy`; 0: never);
    /// absent in older records.
    #[serde(default)]
    pub wimp_level: u32,
    /// Mud hours left in jail (Dark Pawns); absent in older records.
    #[serde(default)]
    pub jail_timer: u32,
    /// What `title` set (shown after the name in `who`); absent in older records.
    #[serde(default)]
    pub title: String,
    /// What the telnet prompt shows (`prompt`: bits 1 hit points, 2 mana, 4 moves;
    /// `None`: all three).
    #[serde(default)]
    pub prompt: Option<u8>,
    /// The player's aliases (`alias`), in the order made.
    #[serde(default)]
    pub aliases: Vec<(String, String)>,
    /// Dark Pawns's hometown: 1 Kir Drax'in, 2 Kir-Oshi, 3 Alaozar (0: none chosen).
    #[serde(default)]
    pub hometown: u8,
    /// Dark Pawns's tattoo, 1 + its number at the tattooist (0: none).
    #[serde(default)]
    pub tattoo: u8,
    /// `color` (0 off … 3 complete; `None`: as the telnet client says it can).
    #[serde(default)]
    pub colour: Option<u8>,
}

/// An agent's HUD settings and knowledge (protocol §11).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HudRecord {
    /// The knowledge store, as JSON text (the agent's own keys and values).
    pub knowledge: String,
    /// Room id → attention (`"30%"` or `"%*"`).
    pub attention: Vec<(String, String)>,
    /// Room id → words per minute.
    pub wpm: Vec<(String, u32)>,
    /// The display name `set_name` chose.
    pub display_name: Option<String>,
    /// May this agent create, alter and retire agents (`create_agent`…)? Set by an admin.
    #[serde(default)]
    pub can_create_agents: bool,
    /// The newest messages of each conversation context, oldest first (protocol §11: a
    /// context's history survives a restart); absent in older records.
    #[serde(default)]
    pub heard: Vec<HudHeardRecord>,
    /// `recent_actions`, oldest first; absent in older records.
    #[serde(default)]
    pub recent: Vec<HudActionRecord>,
}

/// A message an agent's HUD kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HudHeardRecord {
    pub id: u64,
    pub at_us: u64,
    /// The context's id as a HUD names it (`here`, `group`, `tells`, `gossip`, a chat room's number).
    pub context: String,
    pub sender: Option<String>,
    pub shown: Option<String>,
    pub content: String,
    /// The event type (`say`, `tell`…).
    pub kind: String,
    pub you: bool,
    pub reply_to: Option<u64>,
}

/// An action in `recent_actions`: what was done and how it ended.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HudActionRecord {
    pub at_us: u64,
    pub line: String,
    pub status: String,
}

/// A character's chat room (protocol §11.2): its id is its owner's stable id.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRoomRecord {
    pub id: u64,
    /// The owner's character name.
    pub owner: String,
    pub billboard: Option<String>,
    /// Keys others present with `request_access`.
    pub keys: Vec<String>,
    /// Character names of the members other than the owner.
    pub members: Vec<String>,
    pub requests: Vec<AccessRequestRecord>,
}

/// A pending `request_access`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccessRequestRecord {
    pub id: u64,
    pub requester: String,
    pub key: String,
    pub at_us: u64,
}

/// The messages on the boards of one object vnum (the `gen_board` special).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BoardRecord {
    pub vnum: u32,
    /// Oldest first.
    pub messages: Vec<BoardMessage>,
}

/// One message on a board.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BoardMessage {
    pub author: String,
    pub subject: String,
    pub body: String,
    /// Unix seconds.
    pub posted: u64,
}

/// An agent the server runs itself (a resident agent, issue 15).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResidentRecord {
    pub name: String,
    /// `persona` (its prompt is a personality seed) or `bot` (its prompt is a role).
    pub kind: String,
    pub prompt: String,
    /// The model it asks; `None`: the server's `--llm-model`.
    pub model: Option<String>,
    pub can_create_agents: bool,
    /// `admin`, or the agent that made it with `create_agent`.
    pub created_by: String,
    pub created_at_us: u64,
    pub retired_at_us: Option<u64>,
}

/// One record of the memory an agent keeps itself (protocol §12): a soul entry, a
/// long-term memory, a summary, a diary day, a relationship, a conversation line, a
/// neural link. What replaces a record keeps the older version in `history`; what is
/// forgotten, archived or removed is ended (`ended_us`, `ended`), never deleted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MindRecord {
    pub id: u64,
    pub layer: u8,
    pub text: String,
    /// When it was made (unix µs).
    pub at_us: u64,
    /// Where the agent stood then.
    pub room_vnum: Option<u32>,
    pub room: Option<String>,
    /// The diary's date (YYYY-MM-DD), a relationship's or conversation's partner
    /// (lower-cased), a summary's theme.
    pub key: Option<String>,
    /// Layer-specific fields: mood, location; type, trust, tone, rationale, notes;
    /// `from` (a memory shared by a neural link), `source_ids`…
    pub fields: std::collections::BTreeMap<String, String>,
    pub ended_us: Option<u64>,
    /// Why it ended: `forgotten`, `removed`, `archived`.
    pub ended: Option<String>,
    /// Earlier versions, oldest first, each with when it was replaced.
    pub history: Vec<MindVersion>,
}

/// A replaced version of a mind record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MindVersion {
    pub text: String,
    pub fields: std::collections::BTreeMap<String, String>,
    pub at_us: u64,
    pub replaced_us: u64,
}

/// Per agent: the next id of its mind records and what self-care has done.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MindMeta {
    pub next_id: u64,
    /// The newest memory id a self-care summarized (the seed's watermark).
    pub summarized_through: u64,
    pub self_cares: u32,
    /// Conversation lines at or before this time (unix µs) are archived and summarized
    /// (the seed's `conv_summarized_until`).
    #[serde(default)]
    pub conv_summarized_until_us: u64,
    /// Live (not forgotten, not archived) memories: the HUD's `memory_count` without
    /// reading them all.
    #[serde(default)]
    pub live_memories: u64,
    /// What the agent's mind holds, by layer: records and their stored bytes (every
    /// version and every ended record too: nothing is deleted). Kept by `mind_put`.
    #[serde(default)]
    pub usage: std::collections::BTreeMap<u8, LayerUsage>,
    /// `usage` has been counted from the rows (files from before it was kept).
    #[serde(default)]
    pub usage_counted: bool,
}

/// One layer's share of an agent's mind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LayerUsage {
    pub records: u64,
    pub bytes: u64,
}

//! Table definitions: the one place that names what lives in the file.
//!
//! Values are version-byte-prefixed rmp-serde records (see `codec`), so a record's layout
//! can change without a rewrite of the whole table.

use redb::TableDefinition;

/// Store-wide settings: `schema_version` (u32 LE), `token_key` (32 bytes), `world_source`.
pub const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Lower-cased character name → `Account`.
pub const ACCOUNTS: TableDefinition<&str, &[u8]> = TableDefinition::new("accounts");
/// Lower-cased character name → `CharacterRecord`.
pub const CHARACTERS: TableDefinition<&str, &[u8]> = TableDefinition::new("characters");
/// SHA-256 of an agent key (hex) → `AgentKeyRecord`. The key itself is never stored.
pub const AGENT_KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("agent_keys");
/// Zone vnum → one encoded zone of the imported world (rooms, mobs, objects, shops, resets).
pub const WORLD_ZONES: TableDefinition<u32, &[u8]> = TableDefinition::new("world_zones");
/// House room vnum → `HouseRecord` (the objects lying there). Since migration 2.
pub const HOUSES: TableDefinition<u32, &[u8]> = TableDefinition::new("houses");

// The record of play (migration 3).

/// Session id → `SessionMeta`.
pub const SESSIONS: TableDefinition<u64, &[u8]> = TableDefinition::new("sessions");
/// (agent name lower-cased, session start in µs, session id) → nothing: an agent's
/// sessions in time order.
pub const AGENT_SESSIONS: TableDefinition<(&str, u64, u64), ()> = TableDefinition::new("agent_sessions");
/// (batch id, session id) → the records one group commit wrote for one session
/// (`Vec<EventRecord>`, in `seq` order); since migration 10 (sweep, session) → the
/// session's pack of the sweep, and since pack groups (sweep, first session) → a group
/// of consecutive sessions' packs (`pack_group`). Batch ids count commits (1, 2, 3...), so a
/// commit appends at the tree's end whatever the number of sessions recording at once,
/// a reader that follows the log reads it in key order, and one session's records are
/// read without decoding anyone else's. Since migration 5.
pub const RECORD_CHUNKS: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("record_chunks");
/// (session id, first batch id of the segment) → a segment of the list of batches that
/// hold the session's records (`Vec<u64>`, ascending). Written by the recorder when the
/// session ended and at each sweep, from migration 5 to 9; since migration 10 only when
/// a start closes the sessions an older build left open (packs are found through
/// `record_sweeps`). META `spans_through` names the batch through which every
/// session's chunks are listed or packed.
pub const SESSION_SPANS: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("session_spans");
/// Batch id → one group commit's records not yet packed: a parts value (see `parts`)
/// with a part per session. Each sweep packs the rows here into `record_chunks` (one
/// pack per session, keyed (the sweep's newest row, session)) and drops them, so it
/// holds a sweep's worth (10 s, less under load). Since migration 10.
pub const RECORD_TAIL: TableDefinition<u64, &[u8]> = TableDefinition::new("record_tail");
/// A sweep's key (the newest tail row it packed) → how many session packs it wrote under
/// that key in `record_chunks`. A session's packs are found by looking up (sweep,
/// session) for each sweep in its lifetime: a sweep writes one row here, not one per
/// session in an index keyed by session (which would touch a page per session). Since
/// migration 10.
pub const RECORD_SWEEPS: TableDefinition<u64, u64> = TableDefinition::new("record_sweeps");
/// A record dictionary's id (xxh3 of its bytes) → its bytes (a zstd dictionary the
/// packs of a stretch of the record were compressed with; see `dicts`). Written with
/// the first packs that use it, never changed or dropped.
pub const RECORD_DICTS: TableDefinition<u64, &[u8]> = TableDefinition::new("record_dicts");
/// META key: every session's spans are complete through this batch id (u64 LE).
pub const SPANS_THROUGH: &str = "spans_through";
/// Day (days since 1970-01-01, UTC) → the first batch id committed that day.
pub const RECORD_DAYS: TableDefinition<u32, u64> = TableDefinition::new("record_days");

// The agents' memory (migration 4).

/// Agent name lower-cased → its memory (graph, summary, dream watermark, last result),
/// an encoded record whose type the server's memory module owns.
pub const MEMORIES: TableDefinition<&str, &[u8]> = TableDefinition::new("memories");

// Chat rooms and resident agents (migration 6).

/// Chat room id (= its owner's stable id) → a `ChatRoomRecord`.
pub const CHAT_ROOMS: TableDefinition<u64, &[u8]> = TableDefinition::new("chat_rooms");
/// Agent name lower-cased → a `ResidentRecord` (an agent the server runs itself).
pub const RESIDENTS: TableDefinition<&str, &[u8]> = TableDefinition::new("residents");

// The memory an agent keeps itself (migration 7).

/// (agent lower-cased, layer, id) → a `MindRecord`.
pub const MIND: TableDefinition<(&str, u8, u64), &[u8]> = TableDefinition::new("mind");
/// Agent lower-cased → a `MindMeta`.
pub const MIND_META: TableDefinition<&str, &[u8]> = TableDefinition::new("mind_meta");

// Bulletin boards (migration 8).

/// Board object vnum → a `BoardRecord`.
pub const BOARDS: TableDefinition<u32, &[u8]> = TableDefinition::new("boards");

// The dream log and the engine's journal (migration 9).

/// (agent lower-cased, dream end in unix µs) → one dream's snapshot, an encoded record
/// whose type the server's memory module owns.
pub const DREAM_LOG: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("dream_log");
/// (run id = its boot time in µs, chunk number) → a chunk of the engine's journal (its
/// inputs in order), an encoded record whose type the server's replay module owns.
pub const JOURNAL: TableDefinition<(u64, u64), &[u8]> = TableDefinition::new("journal");

// The run registry (migration 11).

/// Run id → one run (an experiment, a named server run, a branch), an encoded record
/// whose type the server's research module owns.
pub const RUNS: TableDefinition<&str, &[u8]> = TableDefinition::new("runs");
/// The model-call journal: a prompt's hash (hex SHA-256 of model, system and user
/// message, made by the server) → the first answered `LlmCall` with that prompt. Filled
/// from the decisions' traces as they are committed; a branch's agents read it first.
pub const MODEL_CALLS: TableDefinition<&str, &[u8]> = TableDefinition::new("model_calls");

// Retired: the version-3 record log, converted and dropped by migration 5.

/// Batch id → every record one group commit wrote (`Vec<EventRecord>`), everyone's mixed.
pub const RECORD_BATCHES_V3: TableDefinition<u64, &[u8]> = TableDefinition::new("record_batches");
/// Session id → the batch ids holding its records (`Vec<u64>`), written when it ended.
pub const SESSION_BATCHES_V3: TableDefinition<u64, &[u8]> = TableDefinition::new("session_batches");

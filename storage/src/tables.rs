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
/// Batch id (1, 2, 3... in commit order) → every record one group commit wrote
/// (`Vec<EventRecord>`). Append-only: a commit adds one row at the end of the tree, so
/// its cost does not grow with the number of sessions recording at once.
pub const RECORD_BATCHES: TableDefinition<u64, &[u8]> = TableDefinition::new("record_batches");
/// Session id → the batch ids holding its records (`Vec<u64>`), written when the
/// session ends. A session without a row (still running, or cut short by a crash) is
/// read by scanning the batches from its first one.
pub const SESSION_BATCHES: TableDefinition<u64, &[u8]> = TableDefinition::new("session_batches");
/// Day (days since 1970-01-01, UTC) → the first batch id committed that day.
pub const RECORD_DAYS: TableDefinition<u32, u64> = TableDefinition::new("record_days");

// The agents' memory (migration 4).

/// Agent name lower-cased → its memory (graph, summary, dream watermark, last result),
/// an encoded record whose type the server's memory module owns.
pub const MEMORIES: TableDefinition<&str, &[u8]> = TableDefinition::new("memories");

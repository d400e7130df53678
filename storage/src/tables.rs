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

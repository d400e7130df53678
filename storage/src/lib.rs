//! The redb store of `pawns`: one file holds accounts, characters, agent keys, the world
//! and the schema version. Every read the game needs is a typed method here.
//!
//! redb allows one writer process per file; a second process gets
//! [`StoreError::Locked`] with the path, never a corrupted file.

pub mod backup;
mod body_de;
pub mod codec;
pub mod log;
mod log_view;
pub mod memory;
pub mod migrate;
pub mod mind;
pub mod pack;
pub mod parts;
pub mod recording;
pub mod records;
pub mod tables;

use std::path::{Path, PathBuf};

pub use log::{LogReader, SessionScan};
pub use log_view::SharedLog;
pub use pack::Packs;
pub use recording::*;
pub use records::*;
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata};

/// Errors of the store, typed so callers can tell a held file from a newer one.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the data file {path} is held by another process (is a server running? stop it, or use its HTTP API)")]
    Locked { path: PathBuf },
    #[error("the data file was written by a newer pawns (schema version {found}; this build reads up to {supported}); upgrade pawns")]
    TooNew { found: u32, supported: u32 },
    #[error("the data file is damaged: {0}")]
    Corrupt(String),
    #[error("record encoding: {0}")]
    Codec(String),
    #[error("{0} already exists; a backup never overwrites a file")]
    Exists(PathBuf),
    #[error("storage: {0}")]
    Redb(redb::Error),
}

impl StoreError {
    /// A stable code for programs and logs.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Locked { .. } => "store_locked",
            StoreError::TooNew { .. } => "store_too_new",
            StoreError::Corrupt(_) => "store_corrupt",
            StoreError::Codec(_) => "store_codec",
            StoreError::Exists(_) => "backup_exists",
            StoreError::Redb(_) => "store_io",
        }
    }
}

pub(crate) fn redb_err<E: Into<redb::Error>>(e: E) -> StoreError {
    StoreError::Redb(e.into())
}

/// redb page cache.
pub const CACHE_BYTES: usize = 128 << 20;

/// The open data file.
pub struct Store {
    db: Database,
    path: PathBuf,
}

/// What `open` found and did, for the log line at start-up.
#[derive(Debug, Clone)]
pub struct OpenReport {
    pub created: bool,
    pub migrations_applied: Vec<u32>,
}

impl Store {
    /// Opens (or creates) the data file and applies pending migrations in one transaction.
    pub fn open(path: impl AsRef<Path>) -> Result<(Store, OpenReport), StoreError> {
        let path = path.as_ref().to_path_buf();
        let created = !path.exists() || std::fs::metadata(&path).map(|m| m.len() == 0).unwrap_or(true);
        // redb's page cache defaults to 1 GiB; the game's working set is far smaller, and
        // memory is better spent on sessions.
        let db = Database::builder().set_cache_size(CACHE_BYTES).create(&path).map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => StoreError::Locked { path: path.clone() },
            redb::DatabaseError::Storage(redb::StorageError::Corrupted(msg)) => StoreError::Corrupt(msg),
            other => redb_err(other),
        })?;
        let tx = db.begin_write().map_err(redb_err)?;
        let applied = migrate::run(&tx)?;
        tx.commit().map_err(redb_err)?;
        Ok((Store { db, path }, OpenReport { created, migrations_applied: applied }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn schema_version(&self) -> Result<u32, StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        let v = migrate::file_version(&tx)?;
        tx.abort().map_err(redb_err)?;
        Ok(v)
    }

    /// The page cache: bytes it holds (read cache and write buffer, at most
    /// [`CACHE_BYTES`] and the write buffer's own cap) and pages evicted from it so far.
    pub fn cache_stats(&self) -> (usize, u64) {
        let s = self.db.cache_stats();
        (s.used_bytes(), s.evictions())
    }

    /// Direct access for crates that add their own tables in their own migrations.
    pub fn database(&self) -> &Database {
        &self.db
    }

    // ---- meta ----

    pub fn meta_get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let t = tx.open_table(tables::META).map_err(redb_err)?;
        Ok(t.get(key).map_err(redb_err)?.map(|v| v.value().to_vec()))
    }

    pub fn meta_put(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        {
            let mut t = tx.open_table(tables::META).map_err(redb_err)?;
            t.insert(key, value).map_err(redb_err)?;
        }
        tx.commit().map_err(redb_err)
    }

    /// Returns the value under `key`, creating it with `make` if absent (one transaction).
    pub fn meta_get_or_init(&self, key: &str, make: impl FnOnce() -> Vec<u8>) -> Result<Vec<u8>, StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        let value = {
            let mut t = tx.open_table(tables::META).map_err(redb_err)?;
            let existing = t.get(key).map_err(redb_err)?.map(|v| v.value().to_vec());
            match existing {
                Some(v) => v,
                None => {
                    let v = make();
                    t.insert(key, v.as_slice()).map_err(redb_err)?;
                    v
                }
            }
        };
        tx.commit().map_err(redb_err)?;
        Ok(value)
    }

    // ---- accounts and characters ----

    pub fn account(&self, name: &str) -> Result<Option<Account>, StoreError> {
        self.get_record(tables::ACCOUNTS, &name.to_ascii_lowercase())
    }

    pub fn character(&self, name: &str) -> Result<Option<CharacterRecord>, StoreError> {
        self.get_record(tables::CHARACTERS, &name.to_ascii_lowercase())
    }

    /// Creates an account and its character together; `false` if the name exists.
    pub fn create_character(&self, account: &Account, ch: &CharacterRecord) -> Result<bool, StoreError> {
        let key = account.name.to_ascii_lowercase();
        let tx = self.db.begin_write().map_err(redb_err)?;
        {
            let mut accounts = tx.open_table(tables::ACCOUNTS).map_err(redb_err)?;
            if accounts.get(key.as_str()).map_err(redb_err)?.is_some() {
                return Ok(false);
            }
            accounts.insert(key.as_str(), codec::encode(account)?.as_slice()).map_err(redb_err)?;
            let mut chars = tx.open_table(tables::CHARACTERS).map_err(redb_err)?;
            chars.insert(key.as_str(), codec::encode(ch)?.as_slice()).map_err(redb_err)?;
        }
        tx.commit().map_err(redb_err)?;
        Ok(true)
    }

    pub fn put_account(&self, account: &Account) -> Result<(), StoreError> {
        let key = account.name.to_ascii_lowercase();
        self.put_records(tables::ACCOUNTS, &[(key, codec::encode(account)?)])
    }

    /// Saves many characters in one transaction (the save writer batches).
    pub fn save_characters(&self, chars: &[CharacterRecord]) -> Result<(), StoreError> {
        let mut rows = Vec::with_capacity(chars.len());
        for c in chars {
            rows.push((c.name.to_ascii_lowercase(), codec::encode(c)?));
        }
        self.put_records(tables::CHARACTERS, &rows)
    }

    pub fn count_characters(&self) -> Result<u64, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let t = tx.open_table(tables::CHARACTERS).map_err(redb_err)?;
        t.len().map_err(redb_err)
    }

    // ---- agent keys ----

    pub fn put_agent_key(&self, key_hash: &str, rec: &AgentKeyRecord) -> Result<(), StoreError> {
        self.put_records(tables::AGENT_KEYS, &[(key_hash.to_string(), codec::encode(rec)?)])
    }

    pub fn agent_key(&self, key_hash: &str) -> Result<Option<AgentKeyRecord>, StoreError> {
        self.get_record(tables::AGENT_KEYS, key_hash)
    }

    /// Is the name anyone's already: an account, or a key made for it (a key's
    /// character is made at its first login)? Scans the keys: for rare checks only.
    pub fn name_claimed(&self, name: &str) -> Result<bool, StoreError> {
        if self.account(name)?.is_some() {
            return Ok(true);
        }
        let lower = name.to_ascii_lowercase();
        let keys: Vec<AgentKeyRecord> = self.decode_all(tables::AGENT_KEYS)?;
        Ok(keys.iter().any(|k| !k.revoked && k.name == lower))
    }

    // ---- world ----

    /// Replaces the whole imported world with the given encoded zones, in one transaction.
    pub fn replace_world(&self, zones: &[(u32, Vec<u8>)], source: &str) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        {
            let mut t = tx.open_table(tables::WORLD_ZONES).map_err(redb_err)?;
            t.retain(|_, _| false).map_err(redb_err)?;
            for (vnum, bytes) in zones {
                t.insert(*vnum, bytes.as_slice()).map_err(redb_err)?;
            }
            let mut meta = tx.open_table(tables::META).map_err(redb_err)?;
            meta.insert("world_source", source.as_bytes()).map_err(redb_err)?;
        }
        tx.commit().map_err(redb_err)
    }

    /// Saves what lies in house rooms (each record replaces that room's row).
    pub fn put_houses(&self, houses: &[HouseRecord]) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        {
            let mut t = tx.open_table(tables::HOUSES).map_err(redb_err)?;
            for h in houses {
                t.insert(h.room_vnum, codec::encode(h)?.as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)
    }

    /// Saves chat rooms (each record replaces that room's row).
    pub fn put_chat_rooms(&self, rooms: &[ChatRoomRecord]) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        {
            let mut t = tx.open_table(tables::CHAT_ROOMS).map_err(redb_err)?;
            for r in rooms {
                t.insert(r.id, codec::encode(r)?.as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)
    }

    /// Every chat room, in id order.
    pub fn chat_rooms(&self) -> Result<Vec<ChatRoomRecord>, StoreError> {
        self.decode_all(tables::CHAT_ROOMS)
    }

    /// Saves boards (each record replaces that vnum's row).
    pub fn put_boards(&self, boards: &[BoardRecord]) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        {
            let mut t = tx.open_table(tables::BOARDS).map_err(redb_err)?;
            for b in boards {
                t.insert(b.vnum, codec::encode(b)?.as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)
    }

    /// Every board, in vnum order.
    pub fn boards(&self) -> Result<Vec<BoardRecord>, StoreError> {
        self.decode_all(tables::BOARDS)
    }

    /// Writes (or replaces) a resident agent's row.
    pub fn put_resident(&self, r: &ResidentRecord) -> Result<(), StoreError> {
        self.put_records(tables::RESIDENTS, &[(r.name.to_ascii_lowercase(), codec::encode(r)?)])
    }

    /// One resident agent by name (any case).
    pub fn resident(&self, name: &str) -> Result<Option<ResidentRecord>, StoreError> {
        self.get_record(tables::RESIDENTS, &name.to_ascii_lowercase())
    }

    /// Every resident agent, retired ones too, by name.
    pub fn residents(&self) -> Result<Vec<ResidentRecord>, StoreError> {
        self.decode_all(tables::RESIDENTS)
    }

    /// Every saved house room.
    pub fn houses(&self) -> Result<Vec<HouseRecord>, StoreError> {
        self.decode_all(tables::HOUSES)
    }

    /// Every row of a table of records, decoded, in key order.
    fn decode_all<K: redb::Key + 'static, T: serde::de::DeserializeOwned>(
        &self,
        def: redb::TableDefinition<K, &[u8]>,
    ) -> Result<Vec<T>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let t = tx.open_table(def).map_err(redb_err)?;
        let mut out = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            let (_, v) = row.map_err(redb_err)?;
            out.push(codec::decode(v.value())?);
        }
        Ok(out)
    }

    pub fn session(&self, session: u64) -> Result<Option<SessionMeta>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let t = tx.open_table(tables::SESSIONS).map_err(redb_err)?;
        let row = t.get(session).map_err(redb_err)?;
        row.map(|v| codec::decode(v.value())).transpose()
    }

    /// An agent's sessions, oldest first, started at or after `since_us`.
    pub fn agent_sessions(&self, agent: &str, since_us: u64) -> Result<Vec<SessionMeta>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        agent_sessions_in(&tx, agent, since_us)
    }

    /// Every session, in id order.
    pub fn all_sessions(&self) -> Result<Vec<SessionMeta>, StoreError> {
        self.decode_all(tables::SESSIONS)
    }

    /// Every imported zone, in vnum order.
    pub fn world_zones(&self) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let t = tx.open_table(tables::WORLD_ZONES).map_err(redb_err)?;
        let mut out = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            let (k, v) = row.map_err(redb_err)?;
            out.push((k.value(), v.value().to_vec()));
        }
        Ok(out)
    }

    // ---- helpers ----

    fn get_record<T: serde::de::DeserializeOwned>(
        &self,
        table: redb::TableDefinition<&str, &[u8]>,
        key: &str,
    ) -> Result<Option<T>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let t = tx.open_table(table).map_err(redb_err)?;
        let row = t.get(key).map_err(redb_err)?;
        match row {
            Some(v) => Ok(Some(codec::decode(v.value())?)),
            None => Ok(None),
        }
    }

    fn put_records(&self, table: redb::TableDefinition<&str, &[u8]>, rows: &[(String, Vec<u8>)]) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        {
            let mut t = tx.open_table(table).map_err(redb_err)?;
            for (k, v) in rows {
                t.insert(k.as_str(), v.as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)
    }
}

/// An agent's sessions that started at or after `since_us`, in start order, as `tx` sees them.
pub(crate) fn agent_sessions_in(tx: &redb::ReadTransaction, agent: &str, since_us: u64) -> Result<Vec<SessionMeta>, StoreError> {
    let agent = agent.to_ascii_lowercase();
    let idx = tx.open_table(tables::AGENT_SESSIONS).map_err(redb_err)?;
    let sessions = tx.open_table(tables::SESSIONS).map_err(redb_err)?;
    let mut out = Vec::new();
    for row in idx.range((agent.as_str(), since_us, 0)..=(agent.as_str(), u64::MAX, u64::MAX)).map_err(redb_err)? {
        let (k, _) = row.map_err(redb_err)?;
        let (_, _, id) = k.value();
        if let Some(v) = sessions.get(id).map_err(redb_err)? {
            out.push(codec::decode(v.value())?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

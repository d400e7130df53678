//! The redb store of `pawns`: one file holds accounts, characters, agent keys, the world
//! and the schema version. Every read the game needs is a typed method here.
//!
//! redb allows one writer process per file; a second process gets
//! [`StoreError::Locked`] with the path, never a corrupted file.

pub mod backup;
mod body_de;
pub mod codec;
pub mod dicts;
pub mod files;
mod fit;
pub mod journal;
pub mod log;
mod log_view;
pub mod memory;
pub mod migrate;
pub mod mind;
pub mod pack;
pub mod pack_frame;
pub mod pack_group;
pub mod parts;
pub mod recording;
pub mod records;
mod runs;
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
    #[error("no data file at {0} (pass --db FILE, or --server URL for a running server)")]
    Missing(PathBuf),
    #[error("{0} was opened read-only; this command does not change it")]
    ReadOnly(PathBuf),
    #[error("{path} has schema version {found} and this pawns reads {current}; let `pawns serve` (or any command that writes) migrate it first, or read a migrated backup")]
    NeedsMigration { path: PathBuf, found: u32, current: u32 },
    #[error("{0} was not closed cleanly and must be repaired, which writes: start `pawns serve` on it once, or read a backup")]
    NeedsRepair(PathBuf),
    #[error("{0}")]
    File(files::FileError),
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
            StoreError::Missing(_) => "db_missing",
            StoreError::File(e) => e.code(),
            StoreError::NeedsRepair(_) => "store_needs_repair",
            StoreError::ReadOnly(_) => "store_read_only",
            StoreError::NeedsMigration { .. } => "store_needs_migration",
            StoreError::Redb(_) => "store_io",
        }
    }
}

/// A data file must be there, and be a file with something in it.
fn must_exist(path: &Path) -> Result<(), StoreError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() > 0 => Ok(()),
        Ok(m) if m.is_file() => Err(StoreError::Corrupt(format!("{} is empty: not a pawns data file", path.display()))),
        _ => Err(StoreError::Missing(path.to_path_buf())),
    }
}

pub(crate) fn redb_err<E: Into<redb::Error>>(e: E) -> StoreError {
    StoreError::Redb(e.into())
}

/// redb page cache.
pub const CACHE_BYTES: usize = 128 << 20;

/// The open data file.
pub struct Store {
    db: Db,
    path: PathBuf,
    /// The dictionary the packer compresses with (see `dicts`).
    pack_dict: dicts::PackDict,
}

/// Opened for writing (the server, and the commands that change the file), or for
/// reading only (the file is left byte for byte as it was, and may sit on a read-only
/// mount).
enum Db {
    Rw(Database),
    Ro(redb::ReadOnlyDatabase),
}

/// What `open` found and did, for the log line at start-up.
#[derive(Debug, Clone)]
pub struct OpenReport {
    pub created: bool,
    pub migrations_applied: Vec<u32>,
    /// Record dictionaries left out as damaged (`dicts`): the packs made with them
    /// cannot be read.
    pub damaged_dicts: usize,
}

/// What redb said when a file would not open, as ours. redb panics on some damaged
/// files rather than erring: that is caught here too, so a damaged file is always a
/// clear error and never a crash.
fn opened<T>(path: &Path, open: impl FnOnce() -> Result<T, redb::DatabaseError>) -> Result<T, StoreError> {
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(open));
    match caught {
        Ok(Ok(db)) => Ok(db),
        Ok(Err(redb::DatabaseError::DatabaseAlreadyOpen)) => Err(StoreError::Locked { path: path.to_path_buf() }),
        Ok(Err(redb::DatabaseError::RepairAborted)) => Err(StoreError::NeedsRepair(path.to_path_buf())),
        Ok(Err(redb::DatabaseError::Storage(redb::StorageError::Corrupted(msg)))) => Err(StoreError::Corrupt(msg)),
        Ok(Err(redb::DatabaseError::Storage(redb::StorageError::Io(e)))) if e.kind() == std::io::ErrorKind::InvalidData => {
            Err(StoreError::Corrupt(e.to_string()))
        }
        Ok(Err(other)) => Err(redb_err(other)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "it could not be read".into());
            Err(StoreError::Corrupt(format!("{} is not a pawns data file, or is damaged ({what})", path.display())))
        }
    }
}

impl Store {
    /// Opens the data file, creating it if there is none, and applies pending migrations
    /// in one transaction. Only `serve` and `keygen --db` create a file: every other
    /// command opens an existing one ([`Store::open_existing`], [`Store::open_read_only`]).
    pub fn open(path: impl AsRef<Path>) -> Result<(Store, OpenReport), StoreError> {
        let path = path.as_ref().to_path_buf();
        let created = !path.exists() || std::fs::metadata(&path).map(|m| m.len() == 0).unwrap_or(true);
        // redb's page cache defaults to 1 GiB; the game's working set is far smaller, and
        // memory is better spent on sessions.
        let db = opened(&path, || Database::builder().set_cache_size(CACHE_BYTES).create(&path))?;
        let store = Store { db: Db::Rw(db), path, pack_dict: Default::default() };
        let applied = store.migrate()?;
        let damaged_dicts = store.load_dicts()?;
        Ok((store, OpenReport { created, migrations_applied: applied, damaged_dicts }))
    }

    /// Opens a data file that must already exist (`Missing` names the path otherwise),
    /// for writing. An empty file is not a data file.
    pub fn open_existing(path: impl AsRef<Path>) -> Result<(Store, OpenReport), StoreError> {
        let path = path.as_ref();
        must_exist(path)?;
        let db = opened(path, || Database::builder().set_cache_size(CACHE_BYTES).open(path))?;
        let store = Store { db: Db::Rw(db), path: path.to_path_buf(), pack_dict: Default::default() };
        let applied = store.migrate()?;
        let damaged_dicts = store.load_dicts()?;
        Ok((store, OpenReport { created: false, migrations_applied: applied, damaged_dicts }))
    }

    /// Opens an existing data file for reading only: nothing is written to it (it stays
    /// byte for byte as it was, and may be on a read-only mount). A file from a schema
    /// older than `migrate::READABLE_FROM` is refused (`store_needs_migration`):
    /// migrating writes.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref();
        must_exist(path)?;
        let db = opened(path, || Database::builder().set_cache_size(CACHE_BYTES).open_read_only(path))?;
        let store = Store { db: Db::Ro(db), path: path.to_path_buf(), pack_dict: Default::default() };
        let found = store.schema_version()?;
        if found > migrate::CURRENT_VERSION {
            return Err(StoreError::TooNew { found, supported: migrate::CURRENT_VERSION });
        }
        if found < migrate::READABLE_FROM {
            return Err(StoreError::NeedsMigration { path: path.to_path_buf(), found, current: migrate::CURRENT_VERSION });
        }
        store.load_dicts()?;
        Ok(store)
    }

    fn migrate(&self) -> Result<Vec<u32>, StoreError> {
        let tx = self.begin_write()?;
        let applied = migrate::run(&tx)?;
        tx.commit().map_err(redb_err)?;
        Ok(applied)
    }

    /// Whether this handle may write (see [`Store::open_read_only`]).
    pub fn writable(&self) -> bool {
        matches!(self.db, Db::Rw(_))
    }

    /// A read transaction.
    pub fn begin_read(&self) -> Result<redb::ReadTransaction, StoreError> {
        match &self.db {
            Db::Rw(db) => db.begin_read().map_err(redb_err),
            Db::Ro(db) => db.begin_read().map_err(redb_err),
        }
    }

    /// A write transaction; `ReadOnly` on a file opened for reading.
    pub fn begin_write(&self) -> Result<redb::WriteTransaction, StoreError> {
        match &self.db {
            Db::Rw(db) => db.begin_write().map_err(redb_err),
            Db::Ro(_) => Err(StoreError::ReadOnly(self.path.clone())),
        }
    }

    /// Checks every page of the file against its checksums (the file must be open for
    /// writing, and nobody else may hold it: `pawns restore` checks a copy).
    pub fn check_integrity(&mut self) -> Result<bool, StoreError> {
        match &mut self.db {
            Db::Rw(db) => db.check_integrity().map_err(redb_err),
            Db::Ro(_) => Err(StoreError::ReadOnly(self.path.clone())),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn schema_version(&self) -> Result<u32, StoreError> {
        let tx = self.begin_read()?;
        let t = match tx.open_table(tables::META) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
            Err(e) => return Err(redb_err(e)),
        };
        migrate::version_in(&t)
    }

    /// The page cache: bytes it holds (read cache and write buffer, at most
    /// [`CACHE_BYTES`] and the write buffer's own cap) and pages evicted from it so far.
    pub fn cache_stats(&self) -> (usize, u64) {
        let s = match &self.db {
            Db::Rw(db) => db.cache_stats(),
            Db::Ro(db) => db.cache_stats(),
        };
        (s.used_bytes(), s.evictions())
    }

    // ---- meta ----

    pub fn meta_get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let tx = self.begin_read()?;
        let t = tx.open_table(tables::META).map_err(redb_err)?;
        Ok(t.get(key).map_err(redb_err)?.map(|v| v.value().to_vec()))
    }

    pub fn meta_put(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let tx = self.begin_write()?;
        {
            let mut t = tx.open_table(tables::META).map_err(redb_err)?;
            t.insert(key, value).map_err(redb_err)?;
        }
        tx.commit().map_err(redb_err)
    }

    /// Returns the value under `key`, creating it with `make` if absent (one transaction).
    pub fn meta_get_or_init(&self, key: &str, make: impl FnOnce() -> Vec<u8>) -> Result<Vec<u8>, StoreError> {
        let tx = self.begin_write()?;
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
        let tx = self.begin_write()?;
        {
            let mut accounts = tx.open_table(tables::ACCOUNTS).map_err(redb_err)?;
            if accounts.get(key.as_str()).map_err(redb_err)?.is_some() {
                return Ok(false);
            }
            accounts.insert(key.as_str(), codec::encode(account)?.as_slice()).map_err(redb_err)?;
            let mut chars = tx.open_table(tables::CHARACTERS).map_err(redb_err)?;
            chars.insert(key.as_str(), codec::encode_packed(ch)?.as_slice()).map_err(redb_err)?;
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
            rows.push((c.name.to_ascii_lowercase(), codec::encode_packed(c)?));
        }
        self.put_records(tables::CHARACTERS, &rows)
    }

    /// Every character's name (lower case): who may be written to.
    pub fn character_names(&self) -> Result<Vec<String>, StoreError> {
        let tx = self.begin_read()?;
        let t = tx.open_table(tables::CHARACTERS).map_err(redb_err)?;
        let mut names = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            let (k, _) = row.map_err(redb_err)?;
            names.push(k.value().to_string());
        }
        Ok(names)
    }

    pub fn count_characters(&self) -> Result<u64, StoreError> {
        let tx = self.begin_read()?;
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

    /// Revokes every key of `name` in one transaction; how many were live.
    pub fn revoke_agent_keys(&self, name: &str) -> Result<u64, StoreError> {
        let lower = name.to_ascii_lowercase();
        let tx = self.begin_write()?;
        let mut n = 0;
        {
            let mut t = tx.open_table(tables::AGENT_KEYS).map_err(redb_err)?;
            let mut live = Vec::new();
            for row in t.iter().map_err(redb_err)? {
                let (k, v) = row.map_err(redb_err)?;
                let rec: AgentKeyRecord = codec::decode(v.value())?;
                if rec.name == lower && !rec.revoked {
                    live.push((k.value().to_string(), rec));
                }
            }
            for (k, mut rec) in live {
                rec.revoked = true;
                t.insert(k.as_str(), codec::encode(&rec)?.as_slice()).map_err(redb_err)?;
                n += 1;
            }
        }
        tx.commit().map_err(redb_err)?;
        Ok(n)
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
        let tx = self.begin_write()?;
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
        let tx = self.begin_write()?;
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
        let tx = self.begin_write()?;
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
        let tx = self.begin_write()?;
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
        let tx = self.begin_read()?;
        let t = tx.open_table(def).map_err(redb_err)?;
        let mut out = Vec::new();
        for row in t.iter().map_err(redb_err)? {
            let (_, v) = row.map_err(redb_err)?;
            out.push(codec::decode(v.value())?);
        }
        Ok(out)
    }

    pub fn session(&self, session: u64) -> Result<Option<SessionMeta>, StoreError> {
        let tx = self.begin_read()?;
        let t = tx.open_table(tables::SESSIONS).map_err(redb_err)?;
        let row = t.get(session).map_err(redb_err)?;
        row.map(|v| codec::decode(v.value())).transpose()
    }

    /// An agent's sessions, oldest first, started at or after `since_us`.
    pub fn agent_sessions(&self, agent: &str, since_us: u64) -> Result<Vec<SessionMeta>, StoreError> {
        let tx = self.begin_read()?;
        agent_sessions_in(&tx, agent, since_us)
    }

    /// Every session, in id order.
    pub fn all_sessions(&self) -> Result<Vec<SessionMeta>, StoreError> {
        self.decode_all(tables::SESSIONS)
    }

    /// Every imported zone, in vnum order.
    pub fn world_zones(&self) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
        let tx = self.begin_read()?;
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
        let tx = self.begin_read()?;
        let t = tx.open_table(table).map_err(redb_err)?;
        let row = t.get(key).map_err(redb_err)?;
        match row {
            Some(v) => Ok(Some(codec::decode(v.value())?)),
            None => Ok(None),
        }
    }

    fn put_records(&self, table: redb::TableDefinition<&str, &[u8]>, rows: &[(String, Vec<u8>)]) -> Result<(), StoreError> {
        let tx = self.begin_write()?;
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

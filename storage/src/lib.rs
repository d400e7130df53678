//! The redb store of `pawns`: one file holds accounts, characters, agent keys, the world
//! and the schema version. Every read the game needs is a typed method here.
//!
//! redb allows one writer process per file; a second process gets
//! [`StoreError::Locked`] with the path, never a corrupted file.

pub mod backup;
pub mod codec;
pub mod memory;
pub mod migrate;
pub mod recording;
pub mod records;
pub mod tables;

use std::path::{Path, PathBuf};

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

    /// Commits one batch of the record in a single transaction: sessions replace their
    /// rows (keeping the batch they started in), the records become the next batch of the
    /// log. Returns the batch id (0 when the batch held no records).
    pub fn write_records(&self, batch: &RecordBatch) -> Result<u64, StoreError> {
        let tx = self.db.begin_write().map_err(redb_err)?;
        let mut id = 0;
        {
            let mut log = tx.open_table(tables::RECORD_BATCHES).map_err(redb_err)?;
            let next = log.last().map_err(redb_err)?.map(|(k, _)| k.value() + 1).unwrap_or(1);
            if !batch.records.is_empty() {
                id = next;
                log.insert(id, codec::encode(&batch.records)?.as_slice()).map_err(redb_err)?;
                let mut days = tx.open_table(tables::RECORD_DAYS).map_err(redb_err)?;
                let last_day = days.last().map_err(redb_err)?.map(|(k, _)| k.value());
                let day = day_of(batch.records[0].at_us);
                if last_day.is_none_or(|d| day > d) {
                    days.insert(day, id).map_err(redb_err)?;
                }
            }
            let mut sessions = tx.open_table(tables::SESSIONS).map_err(redb_err)?;
            let mut by_agent = tx.open_table(tables::AGENT_SESSIONS).map_err(redb_err)?;
            for s in &batch.sessions {
                let mut s = s.clone();
                let first = sessions.get(s.session).map_err(redb_err)?.map(|v| codec::decode::<SessionMeta>(v.value())).transpose()?;
                s.first_batch = first.map(|f| f.first_batch).filter(|b| *b > 0).unwrap_or(next);
                sessions.insert(s.session, codec::encode(&s)?.as_slice()).map_err(redb_err)?;
                by_agent.insert((s.agent.as_str(), s.started_us, s.session), ()).map_err(redb_err)?;
            }
            let mut closed = tx.open_table(tables::SESSION_BATCHES).map_err(redb_err)?;
            for (session, earlier) in &batch.closed {
                let mut ids = earlier.clone();
                if id > 0 && batch.records.iter().any(|r| r.session == *session) {
                    ids.push(id);
                }
                closed.insert(*session, codec::encode(&ids)?.as_slice()).map_err(redb_err)?;
            }
        }
        tx.commit().map_err(redb_err)?;
        Ok(id)
    }

    pub fn session(&self, session: u64) -> Result<Option<SessionMeta>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let t = tx.open_table(tables::SESSIONS).map_err(redb_err)?;
        let row = t.get(session).map_err(redb_err)?;
        row.map(|v| codec::decode(v.value())).transpose()
    }

    /// An agent's sessions, oldest first, started at or after `since_us`.
    pub fn agent_sessions(&self, agent: &str, since_us: u64) -> Result<Vec<SessionMeta>, StoreError> {
        let agent = agent.to_ascii_lowercase();
        let tx = self.db.begin_read().map_err(redb_err)?;
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

    /// Every session, in id order.
    pub fn all_sessions(&self) -> Result<Vec<SessionMeta>, StoreError> {
        self.decode_all(tables::SESSIONS)
    }

    /// One session's stream, in order: from the batches its end listed, or (still
    /// running) by scanning the log from the batch it started in.
    pub fn session_records(&self, session: u64) -> Result<Vec<EventRecord>, StoreError> {
        // A session with no row has nothing to scan from (its first batch is unknown).
        let meta = self.session(session)?.unwrap_or(SessionMeta { session, first_batch: u64::MAX, ..Default::default() });
        let mut out = Vec::new();
        self.scan_session(&meta, 0, &mut |r| out.push(r))?;
        out.sort_by_key(|r| r.seq);
        Ok(out)
    }

    /// Many sessions' streams at once, each in order: every batch involved is read once
    /// (one pass over the log for sessions whose end did not list their batches).
    pub fn sessions_records(&self, sessions: &[SessionMeta]) -> Result<std::collections::HashMap<u64, Vec<EventRecord>>, StoreError> {
        use std::collections::{BTreeSet, HashMap, HashSet};
        let tx = self.db.begin_read().map_err(redb_err)?;
        let log = tx.open_table(tables::RECORD_BATCHES).map_err(redb_err)?;
        let listed_t = tx.open_table(tables::SESSION_BATCHES).map_err(redb_err)?;
        let wanted: HashSet<u64> = sessions.iter().map(|s| s.session).collect();
        let mut batches: BTreeSet<u64> = BTreeSet::new();
        let mut scan_from = u64::MAX;
        for s in sessions {
            match listed_t.get(s.session).map_err(redb_err)? {
                Some(v) => batches.extend(codec::decode::<Vec<u64>>(v.value())?),
                None => scan_from = scan_from.min(s.first_batch.max(1)),
            }
        }
        let mut out: HashMap<u64, Vec<EventRecord>> = sessions.iter().map(|s| (s.session, Vec::new())).collect();
        let mut take = |bytes: &[u8]| -> Result<(), StoreError> {
            for r in codec::decode::<Vec<EventRecord>>(bytes)? {
                if wanted.contains(&r.session) {
                    out.entry(r.session).or_default().push(r);
                }
            }
            Ok(())
        };
        for id in batches.iter().copied().filter(|b| *b < scan_from) {
            if let Some(v) = log.get(id).map_err(redb_err)? {
                take(v.value())?;
            }
        }
        if scan_from != u64::MAX {
            for row in log.range(scan_from..).map_err(redb_err)? {
                let (_, v) = row.map_err(redb_err)?;
                take(v.value())?;
            }
        }
        for v in out.values_mut() {
            v.sort_by_key(|r| r.seq);
            v.dedup_by_key(|r| r.seq);
        }
        Ok(out)
    }

    /// Sessions a stopped server left open (no end recorded): closed as `how`, with the
    /// batches that hold them found in one pass over the log. Returns how many.
    pub fn close_open_sessions(&self, how: &str, now_us: u64) -> Result<usize, StoreError> {
        let open: Vec<SessionMeta> = self.all_sessions()?.into_iter().filter(|s| s.ended_us.is_none()).collect();
        if open.is_empty() {
            return Ok(0);
        }
        let records = self.sessions_records(&open)?;
        let tx = self.db.begin_read().map_err(redb_err)?;
        let log = tx.open_table(tables::RECORD_BATCHES).map_err(redb_err)?;
        let from = open.iter().map(|s| s.first_batch.max(1)).min().unwrap_or(1);
        let mut holding: std::collections::HashMap<u64, Vec<u64>> = std::collections::HashMap::new();
        for row in log.range(from..).map_err(redb_err)? {
            let (k, v) = row.map_err(redb_err)?;
            let mut seen = std::collections::HashSet::new();
            for r in codec::decode::<Vec<EventRecord>>(v.value())? {
                if seen.insert(r.session) {
                    holding.entry(r.session).or_default().push(k.value());
                }
            }
        }
        drop(log);
        drop(tx);
        let mut batch = RecordBatch::default();
        for mut s in open {
            let rs = records.get(&s.session);
            s.records = rs.map(|r| r.len() as u64).unwrap_or(0);
            s.ended_us = Some(rs.and_then(|r| r.last()).map(|r| r.at_us).unwrap_or(now_us));
            s.ended_how = Some(how.to_string());
            batch.closed.push((s.session, holding.remove(&s.session).unwrap_or_default()));
            batch.sessions.push(s);
        }
        let n = batch.sessions.len();
        self.write_records(&batch)?;
        Ok(n)
    }

    /// The records of up to `limit` batches after batch `after`, in commit order, each
    /// with its batch id (the watermark a reader such as the search index keeps).
    pub fn records_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, EventRecord)>, StoreError> {
        let batches = self.batches_after(after, limit)?;
        Ok(batches.into_iter().flat_map(|(id, records)| records.into_iter().map(move |r| (id, r))).collect())
    }

    /// Up to `limit` batches after batch `after`, in commit order, each whole (a batch
    /// retention emptied is still listed, so a reader's watermark moves past it).
    pub fn batches_after(&self, after: u64, limit: usize) -> Result<Vec<(u64, Vec<EventRecord>)>, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let log = tx.open_table(tables::RECORD_BATCHES).map_err(redb_err)?;
        let mut out = Vec::new();
        for row in log.range(after.saturating_add(1)..).map_err(redb_err)?.take(limit) {
            let (k, v) = row.map_err(redb_err)?;
            out.push((k.value(), codec::decode(v.value())?));
        }
        Ok(out)
    }

    /// The last batch id committed (0: none).
    pub fn last_record_id(&self) -> Result<u64, StoreError> {
        let tx = self.db.begin_read().map_err(redb_err)?;
        let log = tx.open_table(tables::RECORD_BATCHES).map_err(redb_err)?;
        let last = log.last().map_err(redb_err)?.map(|(k, _)| k.value()).unwrap_or(0);
        Ok(last)
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

#[cfg(test)]
mod tests;

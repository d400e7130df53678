//! Backups: a consistent snapshot of the whole file into a new one, taken from a single
//! read transaction (so a running server keeps writing while it is copied), and a check
//! that a file opens and what it holds.

use std::path::Path;

use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition, TableHandle};

use crate::{redb_err, tables, Store, StoreError};

/// What `Store::compact` did: the file's size before, after redb's compaction in place,
/// and at the end (smaller again when a fresh copy was put in place).
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    pub before: u64,
    pub in_place: u64,
    pub after: u64,
    /// Why no fresh copy was made (a full disk), if one was not.
    pub copy_skipped: Option<String>,
}

/// Rows per write transaction in the copy.
const ROWS_PER_TX: usize = 5_000;

/// What a data file holds, for `pawns restore` and backup reports.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Inventory {
    pub schema_version: u32,
    pub accounts: u64,
    pub characters: u64,
    pub agent_keys: u64,
    pub world_zones: u64,
    pub houses: u64,
    pub sessions: u64,
    /// Group commits in the record log (their ids run 1..=last_batch).
    pub record_batches: u64,
    /// (batch, session) chunks: one per session per commit (schema 5 to 9), one per
    /// session per sweep (since schema 10).
    #[serde(default)]
    pub record_chunks: u64,
    pub last_batch: u64,
    /// Agents with a memory (since schema 4).
    #[serde(default)]
    pub memories: u64,
    /// Chat rooms (since schema 6).
    #[serde(default)]
    pub chat_rooms: u64,
    /// Agents the server runs itself (since schema 6).
    #[serde(default)]
    pub residents: u64,
    /// Records of the memory agents keep themselves (since schema 7).
    #[serde(default)]
    pub mind_records: u64,
    pub world_source: Option<String>,
}

impl Store {
    /// Writes a snapshot of everything into a new file at `out` (which must not exist).
    /// `progress(rows_copied, rows_total)` is called as it goes.
    /// The copy is written under a temporary name beside `out` and put in place when it
    /// is complete and opens (`files`): a failure (a full disk) leaves no file at `out`.
    pub fn backup_to(&self, out: &Path, progress: &mut dyn FnMut(u64, u64)) -> Result<Inventory, StoreError> {
        let mut new = crate::files::create(out, false).map_err(|e| match e {
            crate::files::FileError::Exists(p) => StoreError::Exists(p),
            other => StoreError::File(other),
        })?;
        let file = new.take_file().ok_or_else(|| StoreError::Corrupt("the backup's file was not open".into()))?;
        let dst = redb::Builder::new().create_with_backend(redb::backends::FileBackend::new(file).map_err(redb_err)?).map_err(redb_err)?;
        self.copy_all(&dst, progress)?;
        drop(dst);
        let inventory = {
            let copy = Store::open_read_only(new.tmp_path())?;
            copy.inventory()?
        };
        new.commit().map_err(StoreError::File)?;
        Ok(inventory)
    }

    /// Starts a branch's file at `out` (which must not exist): who may play (accounts,
    /// characters, keys), the world, the resident agents, the run registry and the
    /// model-call journal; not the record, the journal, memory or the house, chat room
    /// and board contents, which `pawns branch` writes as they stood at the branch point.
    pub fn branch_to(&self, out: &Path) -> Result<(), StoreError> {
        let mut new = crate::files::create(out, false).map_err(|e| match e {
            crate::files::FileError::Exists(p) => StoreError::Exists(p),
            other => StoreError::File(other),
        })?;
        let rtx = self.begin_read()?;
        let file = new.take_file().ok_or_else(|| StoreError::Corrupt("the branch's file was not open".into()))?;
        let dst = redb::Builder::new().create_with_backend(redb::backends::FileBackend::new(file).map_err(redb_err)?).map_err(redb_err)?;
        let mut p = |_: u64| {};
        copy(&rtx, &dst, tables::META, &mut p)?;
        {
            // The record's packing state is the parent's: the branch's record starts empty.
            let wtx = dst.begin_write().map_err(redb_err)?;
            wtx.open_table(tables::META).map_err(redb_err)?.remove(tables::SPANS_THROUGH).map_err(redb_err)?;
            wtx.commit().map_err(redb_err)?;
        }
        for def in [tables::ACCOUNTS, tables::CHARACTERS, tables::AGENT_KEYS, tables::RESIDENTS, tables::RUNS, tables::MODEL_CALLS] {
            copy(&rtx, &dst, def, &mut p)?;
        }
        copy(&rtx, &dst, tables::WORLD_ZONES, &mut p)?;
        drop(dst);
        new.commit().map_err(StoreError::File)?;
        Ok(())
    }

    /// Gives the file's free pages back, offline: redb's compaction in place (in
    /// two-phase commits: a crash midway leaves the file as a commit left it), then, when
    /// it is smaller, a fresh copy of everything put in place of the file.
    ///
    /// redb's compaction moves the highest pages down while a lower slot of their size is
    /// free, and stops at the first that has none: on a 1,000-agent record it left 8.3 of
    /// 43.5 MB free, where a copy of the same rows took 34.1 MB. The copy is written under
    /// a temporary name beside the file (`files`), checked to hold every table with every
    /// row, synced, then renamed over the file while this handle still holds the old one
    /// (nobody can write the old file meanwhile), and the handle reopened on the new. A
    /// copy that cannot be written (a full disk) leaves the file compacted in place, and
    /// says why (`Compaction::copy_skipped`).
    ///
    /// Only a file opened for writing, with no transaction open, can be compacted.
    pub fn compact(&mut self) -> Result<Compaction, StoreError> {
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let before = size(&self.path);
        let crate::Db::Rw(db) = &mut self.db else {
            return Err(StoreError::Corrupt("a file opened read-only cannot be compacted".into()));
        };
        while db.compact().map_err(|e| StoreError::Redb(redb::Error::from(e)))? {}
        let in_place = size(&self.path);
        let copy_skipped = self.rewrite(in_place)?.err().map(|e| format!("{e} ({})", e.code()));
        Ok(Compaction { before, in_place, after: size(&self.path), copy_skipped })
    }

    /// The fresh copy of `compact`, put in place if smaller than `in_place` bytes. The
    /// inner error: the copy was not made or not put in place, and the file is as redb's
    /// compaction left it; the outer: it was put in place and could not be opened again.
    fn rewrite(&mut self, in_place: u64) -> Result<Result<(), StoreError>, StoreError> {
        let made = (|| -> Result<bool, StoreError> {
            let mut new = crate::files::create_beside(&self.path).map_err(StoreError::File)?;
            let file = new.take_file().ok_or_else(|| StoreError::Corrupt("the copy's file was not open".into()))?;
            {
                let dst = redb::Builder::new()
                    .create_with_backend(redb::backends::FileBackend::new(file).map_err(redb_err)?)
                    .map_err(redb_err)?;
                self.copy_all(&dst, &mut |_, _| {})?;
            }
            let copied = std::fs::metadata(new.tmp_path()).map(|m| m.len()).unwrap_or(u64::MAX);
            if copied >= in_place {
                return Ok(false);
            }
            // Opened as a data file before it replaces one.
            drop(Store::open_read_only(new.tmp_path())?);
            new.commit_over_data_file().map_err(StoreError::File)?;
            Ok(true)
        })();
        match made {
            Ok(true) => {}
            Ok(false) => return Ok(Ok(())),
            Err(e) => return Ok(Err(e)),
        }
        let path = self.path.clone();
        let reopened = crate::opened(&path, || Database::builder().set_cache_size(crate::CACHE_BYTES).open(&path))?;
        self.db = crate::Db::Rw(reopened);
        Ok(Ok(()))
    }

    /// Copies every table into `dst` (a new, empty file), then checks that the copy has
    /// every table this file has with as many rows: a table added to the file and not
    /// to this list is an error, never a backup or a compaction that leaves it behind.
    fn copy_all(&self, dst: &Database, progress: &mut dyn FnMut(u64, u64)) -> Result<(), StoreError> {
        let rtx = self.begin_read()?;
        let total = rows(&rtx)?;
        let mut done = 0u64;
        let mut p = |n: u64| {
            done += n;
            progress(done, total);
        };
        copy(&rtx, dst, tables::META, &mut p)?;
        copy(&rtx, dst, tables::ACCOUNTS, &mut p)?;
        copy(&rtx, dst, tables::CHARACTERS, &mut p)?;
        copy(&rtx, dst, tables::AGENT_KEYS, &mut p)?;
        copy(&rtx, dst, tables::WORLD_ZONES, &mut p)?;
        copy(&rtx, dst, tables::HOUSES, &mut p)?;
        copy(&rtx, dst, tables::SESSIONS, &mut p)?;
        copy(&rtx, dst, tables::AGENT_SESSIONS, &mut p)?;
        copy(&rtx, dst, tables::RECORD_CHUNKS, &mut p)?;
        copy(&rtx, dst, tables::SESSION_SPANS, &mut p)?;
        copy(&rtx, dst, tables::RECORD_DAYS, &mut p)?;
        copy(&rtx, dst, tables::MEMORIES, &mut p)?;
        copy(&rtx, dst, tables::CHAT_ROOMS, &mut p)?;
        copy(&rtx, dst, tables::RESIDENTS, &mut p)?;
        copy(&rtx, dst, tables::MIND, &mut p)?;
        copy(&rtx, dst, tables::MIND_META, &mut p)?;
        copy(&rtx, dst, tables::BOARDS, &mut p)?;
        copy(&rtx, dst, tables::DREAM_LOG, &mut p)?;
        copy(&rtx, dst, tables::JOURNAL, &mut p)?;
        copy(&rtx, dst, tables::RECORD_TAIL, &mut p)?;
        copy(&rtx, dst, tables::RECORD_SWEEPS, &mut p)?;
        copy(&rtx, dst, tables::RECORD_DICTS, &mut p)?;
        copy(&rtx, dst, tables::RUNS, &mut p)?;
        copy(&rtx, dst, tables::MODEL_CALLS, &mut p)?;
        let copy_tx = dst.begin_read().map_err(redb_err)?;
        for handle in rtx.list_tables().map_err(redb_err)? {
            let name = handle.name().to_string();
            let theirs = rtx.open_untyped_table(handle).map_err(redb_err)?.len().map_err(redb_err)?;
            let ours = copy_tx
                .list_tables()
                .map_err(redb_err)?
                .find(|h| h.name() == name)
                .map(|h| copy_tx.open_untyped_table(h).and_then(|t| t.len().map_err(Into::into)))
                .transpose()
                .map_err(redb_err)?;
            if ours.unwrap_or(0) != theirs {
                return Err(StoreError::Corrupt(format!(
                    "table {name} was not copied whole ({} of {theirs} rows): nothing was replaced",
                    ours.unwrap_or(0)
                )));
            }
        }
        Ok(())
    }

    /// Counts what the file holds.
    pub fn inventory(&self) -> Result<Inventory, StoreError> {
        let rtx = self.begin_read()?;
        let len = |n: Result<u64, StoreError>| n.unwrap_or(0);
        Ok(Inventory {
            schema_version: self.schema_version()?,
            accounts: len(count(&rtx, tables::ACCOUNTS)),
            characters: len(count(&rtx, tables::CHARACTERS)),
            agent_keys: len(count(&rtx, tables::AGENT_KEYS)),
            world_zones: len(count(&rtx, tables::WORLD_ZONES)),
            houses: len(count(&rtx, tables::HOUSES)),
            sessions: len(count(&rtx, tables::SESSIONS)),
            record_batches: self.last_record_id()?,
            record_chunks: len(count(&rtx, tables::RECORD_CHUNKS)),
            last_batch: self.last_record_id()?,
            memories: len(count(&rtx, tables::MEMORIES)),
            chat_rooms: len(count(&rtx, tables::CHAT_ROOMS)),
            residents: len(count(&rtx, tables::RESIDENTS)),
            mind_records: len(count(&rtx, tables::MIND)),
            world_source: self.meta_get("world_source")?.map(|b| String::from_utf8_lossy(&b).into_owned()),
        })
    }
}

fn count<K: redb::Key + 'static, V: redb::Value + 'static>(rtx: &ReadTransaction, def: TableDefinition<K, V>) -> Result<u64, StoreError> {
    match rtx.open_table(def) {
        Ok(t) => t.len().map_err(redb_err),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(0),
        Err(e) => Err(redb_err(e)),
    }
}

fn rows(rtx: &ReadTransaction) -> Result<u64, StoreError> {
    Ok(count(rtx, tables::META)?
        + count(rtx, tables::ACCOUNTS)?
        + count(rtx, tables::CHARACTERS)?
        + count(rtx, tables::AGENT_KEYS)?
        + count(rtx, tables::WORLD_ZONES)?
        + count(rtx, tables::HOUSES)?
        + count(rtx, tables::SESSIONS)?
        + count(rtx, tables::AGENT_SESSIONS)?
        + count(rtx, tables::RECORD_CHUNKS)?
        + count(rtx, tables::SESSION_SPANS)?
        + count(rtx, tables::RECORD_DAYS)?
        + count(rtx, tables::MEMORIES)?
        + count(rtx, tables::CHAT_ROOMS)?
        + count(rtx, tables::RESIDENTS)?
        + count(rtx, tables::MIND)?
        + count(rtx, tables::MIND_META)?
        + count(rtx, tables::BOARDS)?
        + count(rtx, tables::DREAM_LOG)?
        + count(rtx, tables::JOURNAL)?
        + count(rtx, tables::RECORD_TAIL)?
        + count(rtx, tables::RECORD_SWEEPS)?
        + count(rtx, tables::RECORD_DICTS)?
        + count(rtx, tables::RUNS)?)
}

/// Copies one table, a few thousand rows per write transaction.
fn copy<K: redb::Key + 'static, V: redb::Value + 'static>(
    rtx: &ReadTransaction,
    dst: &Database,
    def: TableDefinition<K, V>,
    progress: &mut dyn FnMut(u64),
) -> Result<(), StoreError> {
    let src = match rtx.open_table(def) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(()),
        Err(e) => return Err(redb_err(e)),
    };
    let mut iter = src.iter().map_err(redb_err)?;
    loop {
        let wtx = dst.begin_write().map_err(redb_err)?;
        let mut n = 0;
        {
            let mut t = wtx.open_table(def).map_err(redb_err)?;
            for row in iter.by_ref().take(ROWS_PER_TX) {
                let (k, v) = row.map_err(redb_err)?;
                t.insert(k.value(), v.value()).map_err(redb_err)?;
                n += 1;
            }
        }
        wtx.commit().map_err(redb_err)?;
        progress(n);
        if n < ROWS_PER_TX as u64 {
            return Ok(());
        }
    }
}

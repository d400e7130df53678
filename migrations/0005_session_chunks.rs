//! Migration 5: the record log keyed by session.
//!
//! Frozen once released. Version 3 kept one row per group commit holding everyone's
//! records, so reading one session decoded every batch written during its life. This
//! step converts that log into `record_chunks` ((batch, session) → that session's
//! records of the batch) and the end-of-session lists into `session_spans`
//! ((session, first batch) → the batches holding it), then drops the old tables. Batch
//! ids, sessions and days are unchanged, so the search index's watermark stays valid.
//! It reads every old batch once, in the one transaction that opening the file runs.

use std::collections::BTreeMap;

use redb::{ReadableTable, TableError, WriteTransaction};

use crate::{codec, redb_err, tables, EventRecord, StoreError};

pub const VERSION: u32 = 5;

pub fn apply(tx: &WriteTransaction) -> Result<(), StoreError> {
    let mut chunks = tx.open_table(tables::RECORD_CHUNKS).map_err(redb_err)?;
    let mut spans = tx.open_table(tables::SESSION_SPANS).map_err(redb_err)?;
    match tx.open_table(tables::RECORD_BATCHES_V3) {
        Ok(old) => {
            for row in old.iter().map_err(redb_err)? {
                let (k, v) = row.map_err(redb_err)?;
                let records: Vec<EventRecord> = codec::decode(v.value())?;
                let mut by_session: BTreeMap<u64, Vec<EventRecord>> = BTreeMap::new();
                for r in records {
                    by_session.entry(r.session).or_default().push(r);
                }
                for (session, rs) in by_session {
                    chunks.insert((k.value(), session), codec::encode(&rs)?.as_slice()).map_err(redb_err)?;
                }
            }
        }
        Err(TableError::TableDoesNotExist(_)) => {}
        Err(e) => return Err(redb_err(e)),
    }
    match tx.open_table(tables::SESSION_BATCHES_V3) {
        Ok(old) => {
            for row in old.iter().map_err(redb_err)? {
                let (k, v) = row.map_err(redb_err)?;
                let mut ids: Vec<u64> = codec::decode(v.value())?;
                ids.sort_unstable();
                ids.dedup();
                if let Some(&first) = ids.first() {
                    spans.insert((k.value(), first), codec::encode(&ids)?.as_slice()).map_err(redb_err)?;
                }
            }
        }
        Err(TableError::TableDoesNotExist(_)) => {}
        Err(e) => return Err(redb_err(e)),
    }
    drop((chunks, spans));
    tx.delete_table(tables::RECORD_BATCHES_V3).map_err(redb_err)?;
    tx.delete_table(tables::SESSION_BATCHES_V3).map_err(redb_err)?;
    Ok(())
}

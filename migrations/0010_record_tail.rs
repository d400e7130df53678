//! Migration 10: the record log's tail (issue 20).
//!
//! Frozen once released. Adds `record_tail`: batch id → one group commit's records, a
//! part per session, LZ4-compressed together; a sweep packs them into `record_chunks`,
//! one pack per session (a parts value keyed by the batches it holds), and notes itself
//! in `record_sweeps` (sweep key → packs written). Chunks written before stay as they
//! are: a reader tells a pack from one by its first byte.

use redb::WriteTransaction;

pub const VERSION: u32 = 10;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::RECORD_TAIL)?;
    tx.open_table(crate::tables::RECORD_SWEEPS)?;
    Ok(())
}

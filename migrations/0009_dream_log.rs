//! Migration 9: the dream log (the research metrics, issue 19).
//!
//! Frozen once released. Adds `dream_log`: (agent lower-cased, dream end in µs) → one
//! dream's snapshot (every memory's salience and valence after it, what it pruned, its
//! cost), so salience can be followed across dream cycles.

use redb::WriteTransaction;

pub const VERSION: u32 = 9;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::DREAM_LOG)?;
    Ok(())
}

//! Migration 9: research (issue 19).
//!
//! Frozen once released. Adds `dream_log`: (agent lower-cased, dream end in µs) → one
//! dream's snapshot (every memory's salience and valence after it, what it pruned, its
//! cost), so salience can be followed across dream cycles; and `journal`: (run, chunk)
//! → the engine's inputs in order (the boot, every message that changed the world with
//! the pulse it came in, the pulses' times), so a run can be replayed.

use redb::WriteTransaction;

pub const VERSION: u32 = 9;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::DREAM_LOG)?;
    tx.open_table(crate::tables::JOURNAL)?;
    Ok(())
}

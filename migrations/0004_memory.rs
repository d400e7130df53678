//! Migration 4: the agents' memory.
//!
//! Frozen once released. Adds `memories` (agent name lower-cased → the agent's memory:
//! its graph, its summary, how far into its record it has dreamed, and the last dream's
//! result), written by the dreamer, read at login.

use redb::WriteTransaction;

pub const VERSION: u32 = 4;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::MEMORIES)?;
    Ok(())
}

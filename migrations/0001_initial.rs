//! Migration 1: the first schema.
//!
//! Frozen once released: a later change to the layout is a new numbered step, never an
//! edit here, because files already written with this step must keep opening.
//!
//! Creates the tables every later version starts from: `meta`, `accounts`, `characters`,
//! `agent_keys` and `world_zones`.

use redb::WriteTransaction;

pub const VERSION: u32 = 1;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::META)?;
    tx.open_table(crate::tables::ACCOUNTS)?;
    tx.open_table(crate::tables::CHARACTERS)?;
    tx.open_table(crate::tables::AGENT_KEYS)?;
    tx.open_table(crate::tables::WORLD_ZONES)?;
    Ok(())
}

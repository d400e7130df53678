//! Migration 2: houses.
//!
//! Frozen once released. Adds `houses`: room vnum → the objects lying in that house
//! room (a `HouseRecord`), so what is dropped in a house survives restarts.

use redb::WriteTransaction;

pub const VERSION: u32 = 2;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::HOUSES)?;
    Ok(())
}

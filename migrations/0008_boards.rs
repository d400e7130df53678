//! Migration 8: bulletin boards (the `gen_board` special procedure, issue 17).
//!
//! Frozen once released. Adds `boards`: board object vnum → a `BoardRecord` (every
//! message posted on the boards of that vnum, oldest first), as CircleMUD kept one
//! message file per board vnum.

use redb::WriteTransaction;

pub const VERSION: u32 = 8;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::BOARDS)?;
    Ok(())
}

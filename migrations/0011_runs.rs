//! Migration 11: the run registry (issue 54).
//!
//! Frozen once released. Adds `runs`: run id → one run (an experiment, a named server
//! run, a branch), an encoded record whose type the server's research module owns.

use redb::WriteTransaction;

pub const VERSION: u32 = 11;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::RUNS)?;
    Ok(())
}

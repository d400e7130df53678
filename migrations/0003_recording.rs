//! Migration 3: the record of play.
//!
//! Frozen once released. Adds `sessions` (session → its metadata), `agent_sessions`
//! (agent, start, session: an agent's sessions in time order), `record_batches` (batch id
//! in commit order → every decision, observation and transition one group commit wrote:
//! an append-only log that the search index follows), `session_batches` (session → the
//! batches holding it, written when it ends) and `record_days` (day → first batch id of
//! that day, so a day is a contiguous id range to archive or drop).

use redb::WriteTransaction;

pub const VERSION: u32 = 3;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::SESSIONS)?;
    tx.open_table(crate::tables::AGENT_SESSIONS)?;
    tx.open_table(crate::tables::RECORD_BATCHES_V3)?;
    tx.open_table(crate::tables::SESSION_BATCHES_V3)?;
    tx.open_table(crate::tables::RECORD_DAYS)?;
    Ok(())
}

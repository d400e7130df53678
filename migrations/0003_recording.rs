//! Migration 3: the record of play.
//!
//! Frozen once released. Adds `sessions` (session → its metadata), `agent_sessions`
//! (agent, start, session: an agent's sessions in time order), `records` (session, seq →
//! one decision, action, observation or state transition), `record_log` (a global id in
//! commit order → session, seq: what the search index follows) and `record_days` (day →
//! first id of that day, so a day is a contiguous id range to archive or drop).

use redb::WriteTransaction;

pub const VERSION: u32 = 3;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::SESSIONS)?;
    tx.open_table(crate::tables::AGENT_SESSIONS)?;
    tx.open_table(crate::tables::RECORDS)?;
    tx.open_table(crate::tables::RECORD_LOG)?;
    tx.open_table(crate::tables::RECORD_DAYS)?;
    Ok(())
}

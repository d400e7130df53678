//! Migration 7: the memory an agent keeps itself (protocol §12, issue 16).
//!
//! Frozen once released. Adds `mind`: (agent lower-cased, layer, id) → a `MindRecord`
//! (soul entries, long-term memories and their summaries, diary days, relationships,
//! conversations, neural links — one table, one range per agent and layer), and
//! `mind_meta`: agent → a `MindMeta` (its next id, the self-care watermark).

use redb::WriteTransaction;

pub const VERSION: u32 = 7;

pub fn apply(tx: &WriteTransaction) -> Result<(), redb::Error> {
    tx.open_table(crate::tables::MIND)?;
    tx.open_table(crate::tables::MIND_META)?;
    Ok(())
}

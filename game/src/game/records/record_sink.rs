//! Where the engine's records go. The engine builds them and hands them over without
//! waiting (`Engine::hand_over_records`); what takes them — the recorder thread, or a
//! replay's capture — belongs to the layers above and is reached through this trait,
//! so the engine names no service.

use pawns_storage::{EventRecord, SessionMeta};

/// One thing to record: records and session rows share one ordered stream, so a
/// session's end never overtakes its last records.
pub enum RecItem {
    Record(EventRecord),
    Session(SessionMeta),
    /// A chunk of the engine's journal: (run, encoded entries).
    Journal(u64, Vec<u8>),
}

/// What takes the engine's records.
pub trait RecordSink: Send + Sync {
    /// Hands over everything gathered since the last call, without waiting.
    fn send(&self, items: Vec<RecItem>);
    /// Records handed over and not yet durable (what admission holds input back by).
    fn backlog(&self) -> u64;
}

pub mod decisions;
pub mod journal;
pub mod journal_entries;
pub mod persist;
pub mod record_sink;
pub mod recording;

//! The record of play outside the engine: the recorder task that group-commits what
//! the engine emits into the data file.

pub mod export;
pub mod recorder;

pub use recorder::{spawn_recorder, RecItem, RecorderHandle, RecorderStats};

/// Unix time in microseconds.
pub fn unix_us() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

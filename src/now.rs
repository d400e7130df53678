//! The wall clock, in the units the store and the protocol use. One place, so every
//! timestamp is read the same way (a clock before 1970 reads as 0, never a panic).

use std::time::{SystemTime, UNIX_EPOCH};

/// Unix time in seconds.
pub fn unix_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Unix time in microseconds.
pub fn unix_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

/// Whether stderr is a terminal: log lines are coloured only there, never in a file or pipe.
pub fn stderr_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr())
}

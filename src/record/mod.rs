//! The record of play outside the engine: the recorder task that group-commits what
//! the engine emits into the data file.

pub mod export;
pub mod model_journal;
pub mod otlp;
pub mod recorder;
pub mod watch;

pub use recorder::{spawn_recorder, RecItem, RecorderHandle, RecorderStats};

pub use crate::time::unix_us;

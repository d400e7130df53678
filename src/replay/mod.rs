//! Deterministic replay. The engine is a function of its world, its seed and its inputs:
//! while it runs it journals everything else it is given (`game/records/journal.rs`) — the boot
//! (seed, world digest, the houses, chat rooms and boards it restored, the game hour),
//! every message that changes the world with the pulse it came in (and, for the few
//! handled in the middle of a long pulse, where in it), and the wall-clock times its
//! records carry. `pawns replay` (`run.rs`) rebuilds the engine from the boot, feeds it
//! the same inputs at the same pulses, and compares what it records with the record,
//! byte for byte.
//!
//! Time is the engine's own: every record a step makes (a pulse, a message) is stamped
//! with the time the step began (`Engine.now_us`), read from the wall clock once and
//! journaled, so a replay stamps the same.

pub mod branch;
mod branch_file;
pub mod change;
pub mod run;

/// What the engine journals: its types (it writes them), read back by `run.rs`.
pub use crate::game::records::journal_entries::{Boot, ClientRecord, Entry, Input, JOURNAL_VERSION};

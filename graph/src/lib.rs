//! `pawns-graph`: an agent's memory, as the engine keeps it for the agent.
//!
//! Pure: no I/O, no clocks, no randomness. Events in (extracted from the record by the
//! server), a consolidated graph and a narrative summary out; the same input gives the
//! same output, and dreaming the same input twice changes nothing the second time.

pub mod event;
pub mod graph;
pub mod known;
pub mod profile;
pub mod summary;
pub mod valence;

pub use event::{EventKind, MemEvent, SocialAct};
pub use graph::{CycleReport, EdgeKind, MemoryGraph, Node, NodeKind, Params, StoredGraph};
pub use profile::{Observed, Profile};
pub use summary::{build_summary, build_summary_with, count_tokens, tier_budget, token_lines, Summary, SummaryOptions};
pub use valence::valence;

#[cfg(test)]
mod tests;

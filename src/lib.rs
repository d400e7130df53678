//! `pawns`: a persistent multi-user dungeon where AI agents play beside humans.
//!
//! The library is the server, the agent client and the tools' work; the command line
//! (`src/cli/`, clap) and the benchmarks (`src/bench/`) belong to the binary.
// The engine and the leaves below it are their own crate; they keep their paths here.
pub use pawns_game::{dg, game, hud, priority, script, time, worldfile};

pub mod agent;
pub mod auth;
pub mod client;
pub mod memory;
pub mod metrics;
pub mod mind;
pub mod net;
pub mod protocol;
pub mod record;
pub mod replay;
pub mod research;
pub mod resident;
pub mod search;
pub mod server;

//! `pawns`: a persistent multi-user dungeon where AI agents play beside humans.
//!
//! The library is the server, the agent client and the tools' work; the command line
//! (`src/cli/`, clap) and the benchmarks (`src/bench/`) belong to the binary.
pub mod agent;
pub mod auth;
pub mod client;
pub mod dg;
pub mod game;
pub mod hud;
pub mod memory;
pub mod metrics;
pub mod mind;
pub mod net;
pub mod priority;
pub mod protocol;
pub mod record;
pub mod replay;
pub mod research;
pub mod resident;
pub mod script;
pub mod search;
pub mod server;
pub mod time;
pub mod worldfile;

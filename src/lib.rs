//! `pawns`: a persistent multi-user dungeon where AI agents play beside humans.
pub mod agent;
pub mod auth;
pub mod bench;
pub mod bench_dream;
pub mod bench_search;
pub mod bench_world;
pub mod cli;
pub mod commands;
pub mod game;
pub mod memory;
pub mod net;
pub mod now;
pub mod protocol;
pub mod record;
pub mod search;
pub mod server;
pub mod worldfile;

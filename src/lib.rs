//! `pawns`: a persistent multi-user dungeon where AI agents play beside humans.
pub mod worldfile;
pub mod game;
pub mod protocol;
pub mod auth;
pub mod net;
pub mod server;
pub mod bench;
pub mod cli;
pub mod commands;

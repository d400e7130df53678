//! `pawns`: a persistent multi-user dungeon where AI agents play beside humans.
pub mod worldfile;
pub mod game;

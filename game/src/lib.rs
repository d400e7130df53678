//! `pawns-game`: the engine — one owner of the world, its rules and its loop — with what
//! it is made of: the Lua sandbox (`script`), DG Scripts (`dg`) and the area-file reader
//! (`worldfile`); and the leaves below it: the time helpers (`time`), the pure HUD parts
//! (`hud`), character names (`names`) and thread priorities (`priority`).
//!
//! It depends on the storage and graph crates and on no network, search index, export
//! format or the `pawns` crate: the compiler holds the layers (ARCHITECTURE.md). The
//! `pawns` crate re-exports these modules under their old paths.
pub mod dg;
pub mod game;
pub mod hud;
pub mod names;
pub mod priority;
pub mod script;
pub mod time;
pub mod worldfile;

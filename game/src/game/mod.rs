//! The game engine: one task owns the world and advances it 10 pulses a second.
//!
//! Sessions talk to it only through [`EngineMsg`]; it answers through each session's
//! bounded [`Out`] channel with `try_send`, so it never waits on a socket or the disk.

pub mod actions;
pub mod admission;
pub mod agents;
pub mod boundary;
pub mod character;
pub mod chat;
pub mod chat_rooms;
pub mod clean;
pub mod clock;
pub mod combat;
pub mod commands;
pub mod crowd;
pub mod deliver;
pub mod dg_host;
pub mod dg_run;
pub mod doors;
pub mod engine;
pub mod entering;
pub mod flush;
pub mod food;
pub mod groups;
pub mod histogram;
pub mod houses;
pub mod hud;
pub mod inbox;
pub mod journal;
pub mod journal_entries;
pub mod kit;
pub mod lua;
pub mod magic;
pub mod messaging;
pub mod mobs;
pub mod mud_vars;
pub mod output;
pub mod persist;
pub mod pulse_stats;
pub mod record_sink;
pub mod recording;
pub mod render;
pub mod script_bench;
pub mod scripted;
pub mod shops;
pub mod smoke;
pub mod socials;
pub mod specials;
pub mod spells;
pub mod stats;
pub mod tables;
pub mod targeting;
pub mod turn_slots;
pub mod update;
pub mod vars;
pub mod world;
pub mod world_check;
#[cfg(test)]
mod world_input_tests;
pub mod zones;

pub use engine::{Engine, EngineConfig, EngineHandle, EngineMsg, EnterReply};
pub use output::{EventKind, Out, Outs};

#[cfg(test)]
pub(crate) mod tests;

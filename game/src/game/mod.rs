//! The game engine: one task owns the world and advances it 10 pulses a second.
//!
//! Sessions talk to it only through [`EngineMsg`]; it answers through each session's
//! bounded [`Out`] channel with `try_send`, so it never waits on a socket or the disk.
//!
//! By concept: `model/` the world model (the live world, characters, the fixed tables,
//! targeting); `rules/` the rules (combat, magic, groups, shops, food, doors, houses,
//! mobs, zones, the special procedures…); `run/` the loop and its inbox (the engine task
//! and its pulse, what each message does, entering the world, admission, the stats);
//! `send/` what the engine sends and how (outputs, delivery, the pulse's flush, act
//! messages, rendering, the HUD's parts); `records/` what it hands the record and the
//! save writer (recording, the journal, the record sink, persistence); `scripting/` the
//! world's Lua scripts and DG triggers as the engine runs them; `commands/` every command
//! handler, by family; `tools/` what runs a world outside a server (the smoke run, the
//! script bench, `world check`).

pub mod commands;
pub mod model;
pub mod records;
pub mod rules;
pub mod run;
pub mod scripting;
pub mod send;
pub mod tools;

#[cfg(test)]
mod original_tests;
#[cfg(test)]
mod world_input_tests;

pub use run::engine::{Engine, EngineConfig, EngineHandle, EngineMsg, EnterReply};
pub use send::output::{EventKind, Out, Outs};

#[cfg(test)]
pub(crate) mod tests;

//! The engine's side of the world's Lua scripts: what the sandbox (`script/`) is given
//! to run them against this engine. `tables.rs` builds the snapshot tables scripts see
//! (`ch`, `me`, `obj`, `room`) and writes back the fields the original wrote back;
//! `api.rs` and `api_world.rs` are the functions scripts call, each acting through the
//! engine's own rules. `game/scripting/scripted.rs` is where the engine fires each trigger.

pub mod api;
pub mod api_world;
pub mod tables;

#[cfg(test)]
mod host_tests;
#[cfg(test)]
mod world_tests;

use crate::script::host::Bindings;

/// The engine's functions and tables, as every Lua state of it is made with them.
pub const BINDINGS: Bindings = Bindings { register, register_late: api::register_dofile, call_starts };

fn register(lua: &mlua::Lua) -> mlua::Result<()> {
    lua.set_app_data(tables::Originals::default());
    api::register(lua)
}

/// A top-level call begins: what the last one was shown is forgotten.
fn call_starts(lua: &mlua::Lua) {
    if let Some(o) = lua.app_data_ref::<tables::Originals>() {
        o.0.borrow_mut().clear();
    }
}

//! The Lua state, on the engine's thread: one per engine, kept in a thread-local
//! (`Lua` is `!Send`; nothing locks it), made the first time a script runs.
//!
//! It opens only the string, table and math libraries (no io, no os, no debug), drops
//! `math.random` (scripts draw from the engine's seeded dice through `number`), loads
//! the compatibility layer and the world's `globals.lua`, and compiles each script
//! file once. Every call runs under a [`Budget`]: an instruction count and a
//! wall-clock limit checked by a hook every 1,000 instructions, and a memory ceiling;
//! once tripped, every later hook, host function and `pcall` raises again, so a
//! script cannot catch its way out.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Value, VmState};

use super::ScriptBook;

/// Instructions one top-level call may run (nested calls share it).
pub const INSTRUCTION_BUDGET: u64 = 1_000_000;
/// How often the hook looks (instructions).
pub const HOOK_EVERY: u32 = 1_000;
/// Wall-clock time one top-level call may take.
pub const TIME_BUDGET: Duration = Duration::from_millis(50);
/// Memory one top-level call may add to the state.
pub const CALL_MEMORY: usize = 16 << 20;
/// The state's ceiling between calls.
pub const STATE_MEMORY: usize = 128 << 20;
/// Triggers firing triggers (an `action` that greets…) stop this deep.
pub const MAX_DEPTH: u32 = 4;

/// What the running call may still spend.
#[derive(Default)]
pub struct Budget {
    pub instructions: Cell<u64>,
    pub started: Cell<Option<Instant>>,
    /// Why the call was stopped, once it was.
    pub tripped: Cell<Option<&'static str>>,
    pub depth: Cell<u32>,
}

impl Budget {
    /// The error a tripped budget raises (again and again).
    pub fn check(&self) -> mlua::Result<()> {
        match self.tripped.get() {
            Some(why) => Err(mlua::Error::runtime(why)),
            None => Ok(()),
        }
    }
}

pub struct Host {
    pub lua: Lua,
    call_starts: fn(&Lua),
}

/// What the engine adds to a state (the sandbox knows no engine): the functions
/// scripts call, set before the Lua-4 compatibility layer loads; those set once the
/// layer's loaders are gone (`dofile`); and what each top-level call starts afresh.
pub struct Bindings {
    pub register: fn(&Lua) -> mlua::Result<()>,
    pub register_late: fn(&Lua) -> mlua::Result<()>,
    pub call_starts: fn(&Lua),
}

/// The world's script files, kept with the state (for `dofile` at any time).
struct Sources(std::collections::BTreeMap<String, String>);

/// Registry tables: compiled files by path, and the files that failed, with why.
const CHUNKS: &str = "pawns.chunks";
const CHUNK_ERRORS: &str = "pawns.chunk_errors";

thread_local! {
    static HOSTS: RefCell<HashMap<u64, Rc<Host>>> = RefCell::new(HashMap::new());
}

/// The Lua state of engine `book.uid` on this thread, made on first use with `bindings`.
pub fn host(book: &ScriptBook, bindings: &Bindings) -> Result<Rc<Host>, String> {
    if let Some(h) = HOSTS.with(|h| h.borrow().get(&book.uid).cloned()) {
        return Ok(h);
    }
    let h = Rc::new(Host::new(book, bindings).map_err(|e| format!("cannot start Lua: {e}"))?);
    HOSTS.with(|hosts| hosts.borrow_mut().insert(book.uid, h.clone()));
    Ok(h)
}

/// Forgets engine `uid`'s state (a world reload, or the engine ending).
pub fn drop_host(uid: u64) {
    let _ = HOSTS.try_with(|h| h.borrow_mut().remove(&uid));
}

/// Whether `e` is what a tripped budget or a failed allocation raised.
pub fn is_budget_error(lua: &Lua, e: &mlua::Error) -> bool {
    let tripped = lua.app_data_ref::<Budget>().is_some_and(|b| b.tripped.get().is_some());
    tripped || matches!(e, mlua::Error::MemoryError(_)) || e.to_string().contains("not enough memory")
}

impl Host {
    fn new(book: &ScriptBook, bindings: &Bindings) -> mlua::Result<Host> {
        let lua = Lua::new_with(StdLib::STRING | StdLib::TABLE | StdLib::MATH, LuaOptions::default())?;
        lua.set_app_data(Budget::default());
        lua.set_app_data(Sources(book.sources.clone()));
        lua.set_named_registry_value(CHUNKS, lua.create_table()?)?;
        lua.set_named_registry_value(CHUNK_ERRORS, lua.create_table()?)?;
        lua.set_memory_limit(STATE_MEMORY)?;
        lua.set_hook(HookTriggers::new().every_nth_instruction(HOOK_EVERY), |lua, _| {
            let Some(b) = lua.app_data_ref::<Budget>() else { return Ok(VmState::Continue) };
            b.check()?;
            let n = b.instructions.get() + HOOK_EVERY as u64;
            b.instructions.set(n);
            if n > INSTRUCTION_BUDGET {
                b.tripped.set(Some("instruction budget exceeded"));
            } else if b.started.get().is_some_and(|s| s.elapsed() > TIME_BUDGET) {
                b.tripped.set(Some("time budget exceeded"));
            }
            b.check()?;
            Ok(VmState::Continue)
        })?;
        let g = lua.globals();
        let math: mlua::Table = g.get("math")?;
        math.set("random", Value::Nil)?;
        math.set("randomseed", Value::Nil)?;
        // `__pawns_check(err)`: raises again what a script may not catch.
        g.set(
            "__pawns_check",
            lua.create_function(|lua, err: Value| {
                if let Some(b) = lua.app_data_ref::<Budget>() {
                    b.check()?;
                }
                let text = match &err {
                    Value::String(s) => s.to_string_lossy(),
                    Value::Error(e) => e.to_string(),
                    _ => String::new(),
                };
                if text.contains("not enough memory") {
                    return Err(mlua::Error::runtime("not enough memory"));
                }
                Ok(())
            })?,
        )?;
        (bindings.register)(&lua)?;
        let host = Host { lua, call_starts: bindings.call_starts };
        host.start_call();
        let compat = host.lua.load(super::compat::SOURCE).set_name("=compat4.lua").set_mode(mlua::chunk::ChunkMode::Text).exec();
        // The loaders go once the layer holds its own `load` (for `dostring`).
        for name in ["load", "loadfile", "dofile", "require", "collectgarbage", "loadstring"] {
            host.lua.globals().set(name, Value::Nil)?;
        }
        (bindings.register_late)(&host.lua)?;
        compat?;
        // The world's own globals (constants in `default()`), as the original booted.
        if let Some(src) = book.sources.get("globals.lua") {
            host.lua.load(src.as_str()).set_name("=globals.lua").set_mode(mlua::chunk::ChunkMode::Text).exec()?;
            if let Ok(Value::Function(f)) = host.lua.globals().get::<Value>("default") {
                f.call::<()>(())?;
            }
        }
        host.end_call();
        Ok(host)
    }

    pub fn budget(&self) -> mlua::AppDataRef<'_, Budget> {
        self.lua.app_data_ref::<Budget>().expect("the budget is set when the state is made")
    }

    /// A top-level call begins: a fresh budget and the per-call memory ceiling.
    pub fn start_call(&self) {
        (self.call_starts)(&self.lua);
        let b = self.budget();
        b.instructions.set(0);
        b.started.set(Some(Instant::now()));
        b.tripped.set(None);
        let _ = self.lua.set_memory_limit(self.lua.used_memory() + CALL_MEMORY);
    }

    /// A top-level call ended: back to the state's ceiling.
    pub fn end_call(&self) {
        let b = self.budget();
        b.started.set(None);
        b.tripped.set(None);
        let _ = self.lua.set_memory_limit(STATE_MEMORY.max(self.lua.used_memory() + CALL_MEMORY));
    }

    /// The compiled file at `path` (under the scripts folder), compiled once.
    pub fn chunk(&self, path: &str) -> Result<Function, String> {
        chunk(&self.lua, path)
    }
}

/// The compiled file at `path`, compiled once per state (a failure is kept too).
pub fn chunk(lua: &Lua, path: &str) -> Result<Function, String> {
    let chunks: mlua::Table = lua.named_registry_value(CHUNKS).map_err(|e| e.to_string())?;
    let errors: mlua::Table = lua.named_registry_value(CHUNK_ERRORS).map_err(|e| e.to_string())?;
    if let Ok(Value::Function(f)) = chunks.raw_get::<Value>(path) {
        return Ok(f);
    }
    if let Ok(Value::String(e)) = errors.raw_get::<Value>(path) {
        return Err(e.to_string_lossy());
    }
    let compiled = match lua.app_data_ref::<Sources>() {
        Some(sources) => compile(lua, &sources.0, path),
        None => Err("no scripts".into()),
    };
    let _ = match &compiled {
        Ok(f) => chunks.raw_set(path, f.clone()),
        Err(e) => errors.raw_set(path, e.as_str()),
    };
    compiled
}

/// Compiles one file (text only, never bytecode), its Lua-4 table loops rewritten.
pub fn compile(lua: &Lua, sources: &std::collections::BTreeMap<String, String>, path: &str) -> Result<Function, String> {
    let Some((name, source)) = super::resolve(sources, path) else {
        return Err(format!("no such script file: scripts/{path}"));
    };
    let source = super::compat::rewrite_table_for(source);
    lua.load(source.as_ref()).set_name(format!("={name}")).set_mode(mlua::chunk::ChunkMode::Text).into_function().map_err(|e| e.to_string())
}

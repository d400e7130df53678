//! The world's Lua scripts (Dark Pawns): an embedded Lua 5.4 that runs the original
//! scripts as they are, at the moments the original server ran them.
//!
//! - `ScriptBook` (here) is plain data the engine owns: the world's script files, which
//!   prototype carries which file with which trigger mask (`Script:` lines of mobs, `R`
//!   lines of rooms, `S` lines of objects), the scripts disabled after an error, and
//!   the cost of every call.
//! - `host.rs` is the Lua state. It lives on the engine's thread (a thread-local keyed
//!   by the engine; `Lua` is not `Send` and is never locked) and holds the compiled
//!   chunks, the instruction and memory budget, and the Lua-4 compatibility layer
//!   (`compat.rs`, `data/lua/compat4.lua`).
//! - The engine's side is `game/scripting/lua/`: the snapshot tables scripts see (`ch`, `me`,
//!   `obj`, `room`) and the fields the original wrote back, the functions scripts call
//!   (`act`, `say`, `action`, `oload`, `spell`, `tport`…), each acting through the
//!   engine's own rules, given to the state as `host::Bindings` (this sandbox knows no
//!   engine); `game/scripting/scripted.rs` is where the engine fires each trigger.

pub mod compat;
pub mod host;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use crate::worldfile::WorldProto;

/// What a script is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScriptKind {
    Mob,
    Room,
    Obj,
}

impl ScriptKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ScriptKind::Mob => "mob",
            ScriptKind::Room => "room",
            ScriptKind::Obj => "obj",
        }
    }
}

/// Every trigger of the original, with its mask bit and the Lua function it calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trigger {
    Bribe,
    Greet,
    OnGive,
    Sound,
    Death,
    OnPulseAll,
    OnPulsePc,
    Fight,
    MobCmd,
    Enter,
    RoomPulse,
    OnDrop,
    OnGet,
    RoomCmd,
    ObjCmd,
    ObjPulse,
}

impl Trigger {
    /// (the kind it belongs to, its mask bit, the Lua function it calls).
    pub fn spec(self) -> (ScriptKind, u32, &'static str) {
        use ScriptKind::*;
        match self {
            Trigger::Bribe => (Mob, 2, "bribe"),
            Trigger::Greet => (Mob, 4, "greet"),
            Trigger::OnGive => (Mob, 8, "ongive"),
            Trigger::Sound => (Mob, 16, "sound"),
            Trigger::Death => (Mob, 32, "death"),
            Trigger::OnPulseAll => (Mob, 64, "onpulse_all"),
            Trigger::OnPulsePc => (Mob, 128, "onpulse_pc"),
            Trigger::Fight => (Mob, 256, "fight"),
            Trigger::MobCmd => (Mob, 512, "oncmd"),
            Trigger::Enter => (Room, 2, "enter"),
            Trigger::RoomPulse => (Room, 4, "onpulse"),
            Trigger::OnDrop => (Room, 8, "ondrop"),
            Trigger::OnGet => (Room, 16, "onget"),
            Trigger::RoomCmd => (Room, 32, "oncmd"),
            Trigger::ObjCmd => (Obj, 2, "oncmd"),
            Trigger::ObjPulse => (Obj, 4, "onpulse"),
        }
    }

    pub fn function(self) -> &'static str {
        self.spec().2
    }
}

/// A script line: the file (under `scripts/<kind>/`) and its trigger mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub file: String,
    pub mask: u32,
}

/// Reads `122/healer.lua 24` (a mask may be written with letters, as `asciiflag_conv`
/// took it; a line without a mask has none). `0 0` is the original's placeholder.
pub fn parse_attachment(line: &str) -> Option<Attachment> {
    let mut words = line.split_whitespace();
    let file = words.next()?;
    if file == "0" || !file.ends_with(".lua") {
        return None;
    }
    let mask = match words.next() {
        None => 0,
        Some(m) => crate::worldfile::lexer::flags(m).map(|v| v as u32).unwrap_or(0),
    };
    Some(Attachment { file: file.to_string(), mask })
}

/// Where a called script file lives: `scripts/mob/x.lua` → `mob/x.lua`, with the
/// original's files since moved to `archive/` found there too. `None` for a path that
/// would leave the scripts folder.
pub fn resolve<'a>(sources: &'a BTreeMap<String, String>, path: &str) -> Option<(&'a str, &'a str)> {
    let rel = path.trim().trim_start_matches("./");
    let rel = rel.strip_prefix("scripts/").unwrap_or(rel);
    if rel.split('/').any(|c| c == ".." || c.is_empty()) || rel.starts_with('/') {
        return None;
    }
    let archived = rel.rsplit_once('/').map(|(dir, file)| format!("{dir}/archive/{file}"));
    std::iter::once(rel.to_string()).chain(archived).find_map(|p| sources.get_key_value(&p).map(|(k, v)| (k.as_str(), v.as_str())))
}

/// The per-call cost of scripts, for `pawns bench` and the closing figures.
#[derive(Debug, Default, Clone)]
pub struct ScriptStats {
    pub calls: u64,
    pub errors: u64,
    /// Microseconds per top-level call, the most recent 65,536.
    pub micros: Vec<u32>,
}

impl ScriptStats {
    pub fn note(&mut self, took: Duration) {
        self.calls += 1;
        let us = took.as_micros().min(u32::MAX as u128) as u32;
        if self.micros.len() < 65_536 {
            self.micros.push(us);
        } else {
            let i = (self.calls % 65_536) as usize;
            self.micros[i] = us;
        }
    }

    /// (p50, p99) in microseconds.
    pub fn percentiles(&self) -> (u32, u32) {
        let mut v = self.micros.clone();
        if v.is_empty() {
            return (0, 0);
        }
        v.sort_unstable();
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.50), at(0.99))
    }
}

/// The world's scripts as data: the engine owns it; the Lua state is in `host`.
#[derive(Default)]
pub struct ScriptBook {
    /// Path under the scripts folder → source.
    pub sources: BTreeMap<String, String>,
    /// (kind, vnum) → its script.
    pub attached: HashMap<(ScriptKind, u32), Attachment>,
    /// Scripts off until the world is reloaded: (kind, vnum) → why.
    pub disabled: HashMap<(ScriptKind, u32), String>,
    /// Object vnums with an `onpulse` script (the 4-second pass looks only at these).
    pub pulsing_objs: HashSet<u32>,
    /// Off entirely (`serve --no-scripts`, or a world without scripts).
    pub off: bool,
    pub stats: ScriptStats,
    /// This engine's key for its Lua state on the engine thread.
    pub uid: u64,
}

impl ScriptBook {
    pub fn new(world: &WorldProto) -> ScriptBook {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut b = ScriptBook { uid: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed), ..Default::default() };
        b.sources = world.lua_scripts.iter().map(|s| (s.path.clone(), s.source.clone())).collect();
        for (kind, vnum, line) in attachments(world) {
            // A mask of 0 never fires (Dark Pawns's room 3023): not attached.
            if let Some(a) = parse_attachment(&line).filter(|a| a.mask != 0) {
                if kind == ScriptKind::Obj && a.mask & Trigger::ObjPulse.spec().1 != 0 {
                    b.pulsing_objs.insert(vnum);
                }
                // One script per prototype; a later line replaces the first.
                b.attached.insert((kind, vnum), a);
            }
        }
        b
    }

    /// The script `kind vnum` runs for `trigger`, unless it is off.
    pub fn script_for(&self, kind: ScriptKind, vnum: u32, trigger: Trigger) -> Option<&Attachment> {
        if self.off || self.attached.is_empty() {
            return None;
        }
        let (k, bit, _) = trigger.spec();
        debug_assert_eq!(k, kind);
        let a = self.attached.get(&(kind, vnum))?;
        (a.mask & bit != 0 && !self.disabled.contains_key(&(kind, vnum))).then_some(a)
    }

    /// The file of an attachment: `scripts/<kind>/<file>`.
    pub fn file_path(kind: ScriptKind, file: &str) -> String {
        format!("{}/{}", kind.as_str(), file)
    }
}

/// Every script line of a world: (kind, vnum, the line after its `Script:`/`R`/`S`).
pub fn attachments(world: &WorldProto) -> Vec<(ScriptKind, u32, String)> {
    let mut out = Vec::new();
    for m in &world.mobs {
        for (k, v) in &m.specs {
            if k.eq_ignore_ascii_case("script") {
                out.push((ScriptKind::Mob, m.vnum, v.clone()));
            }
        }
    }
    for r in &world.rooms {
        for s in &r.scripts {
            out.push((ScriptKind::Room, r.vnum, s.clone()));
        }
    }
    for o in &world.objs {
        for s in &o.scripts {
            out.push((ScriptKind::Obj, o.vnum, s.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_lines_read_as_the_original_read_them() {
        assert_eq!(parse_attachment("122/healer.lua 24"), Some(Attachment { file: "122/healer.lua".into(), mask: 24 }));
        assert_eq!(parse_attachment("portal.lua 2"), Some(Attachment { file: "portal.lua".into(), mask: 2 }));
        assert_eq!(parse_attachment("0 0"), None, "the placeholder");
        assert_eq!(parse_attachment("x.lua"), Some(Attachment { file: "x.lua".into(), mask: 0 }));
        assert_eq!(parse_attachment("x.lua de").map(|a| a.mask), Some(8 + 16), "letters as asciiflag_conv");
        assert_eq!(parse_attachment(""), None);
    }

    #[test]
    fn called_files_resolve_inside_the_scripts_folder_and_its_archive() {
        let sources: BTreeMap<String, String> =
            [("mob/archive/fighter.lua", "a"), ("mob/no_move.lua", "b")].into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(resolve(&sources, "scripts/mob/fighter.lua").map(|r| r.0), Some("mob/archive/fighter.lua"));
        assert_eq!(resolve(&sources, "scripts/mob/no_move.lua").map(|r| r.0), Some("mob/no_move.lua"));
        assert_eq!(resolve(&sources, "scripts/../secret.lua"), None);
        assert_eq!(resolve(&sources, "/etc/passwd"), None);
        assert_eq!(resolve(&sources, "scripts/mob/cleric.lua"), None);
    }

    #[test]
    fn trigger_masks_follow_the_original() {
        assert_eq!(Trigger::Fight.spec(), (ScriptKind::Mob, 256, "fight"));
        assert_eq!(Trigger::RoomCmd.spec(), (ScriptKind::Room, 32, "oncmd"));
        assert_eq!(Trigger::ObjCmd.spec(), (ScriptKind::Obj, 2, "oncmd"));
    }
}

/// What `pawns world check` says of a world's scripts.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ScriptCheck {
    /// `.lua` files in the world's scripts folder.
    pub files: usize,
    /// Prototypes carrying a script: mobs, rooms, objects.
    pub attached: [usize; 3],
    /// Attached scripts that do not compile or name a missing file: "mob 14412:
    /// mob/144/hisc.lua: …".
    pub failing: Vec<String>,
}

/// Compiles every script a world attaches (in a throwaway state, no world).
pub fn check(world: &WorldProto) -> ScriptCheck {
    let mut c = ScriptCheck { files: world.lua_scripts.len(), ..Default::default() };
    let book = ScriptBook::new(world);
    let lua = mlua::Lua::new_with(mlua::StdLib::STRING | mlua::StdLib::TABLE | mlua::StdLib::MATH, mlua::LuaOptions::default());
    let mut attached: Vec<_> = book.attached.iter().collect();
    attached.sort_by_key(|((k, v), _)| (*k, *v));
    for ((kind, vnum), a) in attached {
        c.attached[*kind as usize] += 1;
        let path = ScriptBook::file_path(*kind, &a.file);
        let result = match &lua {
            Ok(lua) => host::compile(lua, &book.sources, &path).map(|_| ()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = result {
            c.failing.push(format!("{} {vnum}: {path}: {e}", kind.as_str()));
        }
    }
    c
}

/// Compiles one source as a world file would be (the table loops rewritten), in a
/// throwaway state: what `world check` and the fuzz target do.
pub fn compile_source(source: &str) -> Result<(), String> {
    let lua = mlua::Lua::new_with(mlua::StdLib::STRING | mlua::StdLib::TABLE | mlua::StdLib::MATH, mlua::LuaOptions::default())
        .map_err(|e| e.to_string())?;
    let sources: BTreeMap<String, String> = [("x.lua".to_string(), source.to_string())].into_iter().collect();
    host::compile(&lua, &sources, "x.lua").map(|_| ())
}

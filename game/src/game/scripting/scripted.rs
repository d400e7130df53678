//! Where the world's Lua scripts run (see `script/`): one call ([`Engine::run_script`])
//! and the trigger points, at the moments the original server fired them.
//!
//! | trigger | fired from |
//! |---|---|
//! | mob `greet`, room `enter` | `move_char_dir` (walking, fleeing, following) |
//! | mob `sound`, `onpulse_all`, `onpulse_pc` | `mob_activity`, after the procedure |
//! | room `onpulse`, obj `onpulse` | [`Engine::script_activity`], every 4 s |
//! | mob `fight` | the end of every `hit` by a mob |
//! | mob `death` | `die`, a mob killed by another, before its corpse |
//! | mob `ongive`, `bribe` | `give` (a thing, coins) to a mob |
//! | room `onget`, `ondrop` | `get`, `drop` |
//! | room, obj, mob `oncmd` | `command_special`, in the original's order |

use std::time::Instant;

use mlua::Value;

use crate::game::model::world::{CharId, ObjId, RoomId};
use crate::game::run::engine::Engine;
use crate::game::scripting::lua::tables::{self, ENGINE_KEY};
use crate::script::host::{self, MAX_DEPTH};
use crate::script::{ScriptBook, ScriptKind, Trigger};

/// The globals a call sets, kept and put back around it (a nested call must not leave
/// its own behind for the caller).
const GLOBALS: [&str; 5] = ["ch", "me", "obj", "room", "argument"];

/// What a trigger passes its script.
#[derive(Default, Clone)]
pub struct ScriptCtx {
    pub ch: Option<CharId>,
    pub me: Option<CharId>,
    pub obj: Option<ObjId>,
    pub room: Option<RoomId>,
    pub argument: Option<String>,
}

impl Engine {
    /// Runs `trigger` of the script prototype `kind vnum` carries, if any: the file is
    /// run again in the shared globals (as the original re-ran it), then its trigger
    /// function; the answer is its number (nil is 0). An error is logged with its
    /// file and line and turns that prototype's script off until the world reloads.
    pub fn run_script(&mut self, kind: ScriptKind, vnum: u32, trigger: Trigger, ctx: ScriptCtx) -> i64 {
        let Some(att) = self.scripts.script_for(kind, vnum, trigger) else { return 0 };
        let path = ScriptBook::file_path(kind, &att.file);
        let host = match host::host(&self.scripts, &crate::game::scripting::lua::BINDINGS) {
            Ok(h) => h,
            Err(e) => {
                tracing::error!(target: "pawns::script", "{e}; scripts are off");
                self.scripts.off = true;
                return 0;
            }
        };
        let depth = host.budget().depth.get();
        if depth >= MAX_DEPTH {
            tracing::debug!(target: "pawns::script", "{path}: {} not run, triggers {MAX_DEPTH} deep", trigger.function());
            return 0;
        }
        let chunk = match host.chunk(&path) {
            Ok(f) => f,
            Err(e) => {
                self.disable_script(kind, vnum, &path, trigger, e);
                return 0;
            }
        };
        if depth == 0 {
            host.start_call();
        }
        host.budget().depth.set(depth + 1);
        let started = Instant::now();
        let lua = host.lua.clone();
        let g = lua.globals();
        let saved: Vec<Value> = GLOBALS.iter().map(|k| g.raw_get(*k).unwrap_or(Value::Nil)).collect();
        let lent: Value = lua.named_registry_value(ENGINE_KEY).unwrap_or(Value::Nil);
        let result = lua.scope(|scope| {
            let ud = scope.create_any_userdata_ref_mut(self)?;
            lua.set_named_registry_value(ENGINE_KEY, &ud)?;
            ud.borrow_scoped::<Engine, _>(|e| -> mlua::Result<()> {
                let me_room = ctx.me.and_then(|m| e.world.ch(m)).map(|m| m.room);
                if let Some(c) = ctx.ch {
                    g.raw_set("ch", tables::char_table(&lua, e, c)?)?;
                }
                if let Some(m) = ctx.me {
                    g.raw_set("me", tables::char_table(&lua, e, m)?)?;
                }
                if let Some(o) = ctx.obj {
                    g.raw_set("obj", tables::obj_table(&lua, e, o)?)?;
                }
                if let Some(r) = ctx.room.or(me_room) {
                    g.raw_set("room", tables::room_table(&lua, e, r, ctx.me)?)?;
                }
                if let Some(a) = &ctx.argument {
                    g.raw_set("argument", a.as_str())?;
                }
                Ok(())
            })??;
            chunk.call::<()>(())?;
            let answer = match g.raw_get::<Value>(trigger.function())? {
                Value::Function(f) => f.call::<Value>(())?,
                _ => Value::Nil,
            };
            // The original wrote back global `ch` (never `me`: scripts say
            // `save_char(me)` or `ch = me` when they mean it).
            if ctx.ch.is_some() {
                if let Value::Table(t) = g.raw_get::<Value>("ch")? {
                    ud.borrow_mut_scoped::<Engine, _>(|e| tables::write_char(&lua, e, &t))??;
                }
            }
            Ok(tables::int(&answer))
        });
        let _ = lua.set_named_registry_value(ENGINE_KEY, lent);
        for (k, v) in GLOBALS.iter().zip(saved) {
            let _ = g.raw_set(*k, v);
        }
        host.budget().depth.set(depth);
        if depth == 0 {
            host.end_call();
            self.scripts.stats.note(started.elapsed());
        }
        match result {
            Ok(n) => n,
            Err(e) => {
                self.scripts.stats.errors += 1;
                self.disable_script(kind, vnum, &path, trigger, e.to_string());
                0
            }
        }
    }

    /// Makes the Lua state now (its libraries, the compatibility layer, the world's
    /// `globals.lua`), so the first trigger in play does not pay for it.
    pub fn warm_scripts(&mut self) {
        if !self.scripts.off && !self.scripts.attached.is_empty() {
            if let Err(e) = host::host(&self.scripts, &crate::game::scripting::lua::BINDINGS) {
                tracing::error!(target: "pawns::script", "{e}; scripts are off");
                self.scripts.off = true;
            }
        }
    }

    fn disable_script(&mut self, kind: ScriptKind, vnum: u32, path: &str, trigger: Trigger, why: String) {
        // The first line says where (`mob/x.lua:12: …`); the traceback follows.
        let first = why.lines().next().unwrap_or("").to_string();
        tracing::warn!(target: "pawns::script", kind = kind.as_str(), vnum, trigger = trigger.function(), "{path}: {first}; off until the world reloads");
        self.scripts.disabled.insert((kind, vnum), format!("{path} ({}): {first}", trigger.function()));
    }

    fn mob_vnum(&self, id: CharId) -> Option<u32> {
        self.world.ch(id).and_then(|c| c.npc_vnum)
    }

    /// A mob's script trigger with the mob as `me`.
    pub fn mob_script(&mut self, mob: CharId, trigger: Trigger, ch: Option<CharId>, obj: Option<ObjId>, argument: Option<String>) -> i64 {
        let Some(vnum) = self.mob_vnum(mob) else { return 0 };
        if self.scripts.script_for(ScriptKind::Mob, vnum, trigger).is_none() {
            return 0;
        }
        self.run_script(ScriptKind::Mob, vnum, trigger, ScriptCtx { ch, me: Some(mob), obj, room: None, argument })
    }

    /// A room's script trigger with the actor as both `ch` and `me`.
    pub fn room_script(&mut self, room: RoomId, trigger: Trigger, actor: CharId, obj: Option<ObjId>, argument: Option<String>) -> i64 {
        let vnum = self.world.rooms[room].proto.vnum;
        if self.scripts.script_for(ScriptKind::Room, vnum, trigger).is_none() {
            return 0;
        }
        self.run_script(ScriptKind::Room, vnum, trigger, ScriptCtx { ch: Some(actor), me: Some(actor), obj, room: Some(room), argument })
    }

    /// An object's script trigger.
    pub fn obj_script(&mut self, obj: ObjId, trigger: Trigger, actor: Option<CharId>, argument: Option<String>) -> i64 {
        let Some(vnum) = self.world.obj(obj).map(|o| o.vnum) else { return 0 };
        if self.scripts.script_for(ScriptKind::Obj, vnum, trigger).is_none() {
            return 0;
        }
        let room = tables::obj_room(self, obj);
        self.run_script(ScriptKind::Obj, vnum, trigger, ScriptCtx { ch: actor, me: actor, obj: Some(obj), room, argument })
    }

    /// After a walk into `to`: each mob there greets the mover (unless it sneaks),
    /// then the room's `enter` runs.
    pub fn arrival_scripts(&mut self, mover: CharId, to: RoomId) {
        if self.scripts.attached.is_empty() {
            return;
        }
        if !self.affected(mover, crate::game::rules::spells::AffectKind::Sneak) {
            for m in self.world.behaving_in(to, mover) {
                if self.world.ch(mover).is_some_and(|c| c.room == to) && self.world.ch(m).is_some_and(|c| c.room == to) {
                    self.mob_script(m, Trigger::Greet, Some(mover), None, None);
                }
            }
        }
        if self.world.ch(mover).is_some_and(|c| c.room == to) {
            self.room_script(to, Trigger::Enter, mover, None, None);
        }
    }

    /// Every 4 s for each: a room's `onpulse` once per player in it, and every object's
    /// `onpulse` (not drink containers, fountains or corpses; a carried or worn one in
    /// its carrier's room). Called every pulse, each player and object in its own
    /// pulse of the 40, so a crowd on a scripted floor is not one long pulse.
    pub fn script_activity(&mut self) {
        if self.scripts.attached.is_empty() || self.scripts.off {
            return;
        }
        let slot = self.pulse % crate::game::run::engine::PULSES_PER_MOB_AI;
        let mine = |id: u64| id % crate::game::run::engine::PULSES_PER_MOB_AI == slot;
        let players: Vec<CharId> = self.world.players.values().copied().filter(|p| mine(*p)).collect();
        for p in players {
            if let Some(room) = self.world.ch(p).map(|c| c.room) {
                self.room_script(room, Trigger::RoomPulse, p, None, None);
            }
        }
        if self.scripts.pulsing_objs.is_empty() {
            return;
        }
        let objs: Vec<ObjId> = self
            .world
            .objs_due(self.pulse)
            .iter()
            .filter_map(|id| self.world.objs.get(id))
            .filter(|o| self.scripts.pulsing_objs.contains(&o.vnum))
            .filter(|o| {
                !(matches!(o.item_type, crate::game::model::tables::item_type::DRINKCON | 23)
                    || o.vnum == 0 && o.keywords.contains("corpse"))
            })
            .map(|o| o.id)
            .collect();
        for o in objs {
            self.obj_script(o, Trigger::ObjPulse, None, None);
        }
    }

    /// A mob's turn (not fighting): `sound` (one time in 16, a player present), then
    /// `onpulse_all` (anyone else present; non-zero ends the turn), then `onpulse_pc`
    /// (a player present). Whether the mob's turn is over.
    pub fn mob_turn_scripts(&mut self, mob: CharId) -> bool {
        let Some(vnum) = self.mob_vnum(mob) else { return false };
        if !self.scripts.attached.contains_key(&(ScriptKind::Mob, vnum)) {
            return false;
        }
        let Some(room) = self.world.ch(mob).map(|c| c.room) else { return false };
        let others = |e: &Engine| e.world.rooms[room].people.iter().any(|p| *p != mob);
        let player = |e: &Engine| e.world.rooms[room].people.iter().any(|p| e.world.ch(*p).is_some_and(|c| c.pc.is_some()));
        if player(self) && self.scripts.script_for(ScriptKind::Mob, vnum, Trigger::Sound).is_some() && self.roll(0, 15) == 0 {
            self.mob_script(mob, Trigger::Sound, Some(mob), None, None);
        }
        if self.world.ch(mob).is_some_and(|c| c.room == room)
            && others(self)
            && self.mob_script(mob, Trigger::OnPulseAll, Some(mob), None, None) != 0
        {
            return true;
        }
        if self.world.ch(mob).is_some_and(|c| c.room == room) && player(self) {
            self.mob_script(mob, Trigger::OnPulsePc, Some(mob), None, None);
        }
        self.world.ch(mob).is_none_or(|c| c.room != room)
    }

    /// `oncmd` in the original's `special()` order around one actor, with the
    /// procedures: the room's, then each worn thing's, each carried thing's, each
    /// mob's here, each thing's on the floor. Scripts of the first four hear players
    /// only; the floor's hear anyone. `Some` when one took the command.
    pub fn command_scripts(&mut self, ch: CharId, argument: &str, stage: CmdStage) -> bool {
        let Some(c) = self.world.ch(ch) else { return false };
        let pc = c.pc.is_some();
        let room = c.room;
        let arg = || Some(argument.to_string());
        match stage {
            CmdStage::Room => pc && self.room_script(room, Trigger::RoomCmd, ch, None, arg()) != 0,
            CmdStage::Thing(o) => {
                let on_floor = self.world.obj(o).is_some_and(|o| matches!(o.loc, crate::game::model::world::ObjLoc::Room(_)));
                (pc || on_floor) && self.obj_script(o, Trigger::ObjCmd, Some(ch), arg()) != 0
            }
            CmdStage::Mob(m) => pc && self.mob_script(m, Trigger::MobCmd, Some(ch), None, arg()) != 0,
        }
    }
}

/// Where in `special()`'s order a command is offered.
#[derive(Clone, Copy)]
pub enum CmdStage {
    Room,
    Thing(ObjId),
    Mob(CharId),
}

//! The functions scripts call (the original's `cmdlib`): registered once per state,
//! each reaching the world through the engine lent to the running call (a scoped
//! userdata in the registry), acting through the engine's own rules — `say` is the
//! `say` command's code, `action` the dispatcher, `spell` the spells', `number` the
//! engine's seeded dice. Predicates answer `1` or nil, as Lua 4 had no booleans.
//!
//! This file: registration, the helpers, talking and acting (`act`, `say`, `emote`,
//! `tell`, `gossip`, `social`, `echo`, `action`, `spell`, `tport`, `follow`), `number`,
//! `round`, `log`, `skip_spaces`, `dofile`. `api_world.rs`: things, rooms, flags.

use mlua::{AnyUserData, Lua, Table, Value};

use super::tables::{self, char_of, int, obj_of, room_of, ENGINE_KEY};
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// Lends the engine to `f`, unless the budget is spent or no trigger is running.
pub fn with_engine<R>(lua: &Lua, f: impl FnOnce(&mut Engine) -> mlua::Result<R>) -> mlua::Result<R> {
    check(lua)?;
    let ud: AnyUserData = match lua.named_registry_value::<Value>(ENGINE_KEY)? {
        Value::UserData(ud) => ud,
        _ => return Err(mlua::Error::runtime("the world is not reachable outside a trigger")),
    };
    ud.borrow_mut_scoped::<Engine, _>(f)?
}

/// A spent budget raises again in every host function.
pub fn check(lua: &Lua) -> mlua::Result<()> {
    match lua.app_data_ref::<crate::script::host::Budget>() {
        Some(b) => b.check(),
        None => Ok(()),
    }
}

pub fn truthy(b: bool) -> Value {
    if b {
        Value::Integer(1)
    } else {
        Value::Nil
    }
}

pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string_lossy(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// The character global `name` (`me`, `ch`) names.
pub fn global_char(lua: &Lua, e: &Engine, name: &str) -> Option<CharId> {
    char_of(e, &lua.globals().get::<Value>(name).ok()?)
}

/// After `spell` or `tport` moved or changed them: `me` and `ch` are snapshotted again.
pub fn resnapshot(lua: &Lua, e: &Engine, who: CharId) -> mlua::Result<()> {
    for g in ["me", "ch"] {
        if global_char(lua, e, g) == Some(who) {
            lua.globals().set(g, tables::char_table(lua, e, who)?)?;
        }
    }
    Ok(())
}

fn to_of(v: &Value) -> To {
    match int(v) {
        2 => To::Victim,
        3 => To::NotVictim,
        4 => To::Actor,
        _ => To::Room,
    }
}

fn set(lua: &Lua, name: &str, f: mlua::Function) -> mlua::Result<()> {
    lua.globals().set(name, f)
}

/// Registers every function and the lazy-field metatables.
pub fn register(lua: &Lua) -> mlua::Result<()> {
    let lazy = lua.create_function(|lua, (t, key): (Table, Value)| {
        let key = text(&key);
        if !matches!(key.as_str(), "objs" | "wear" | "leader" | "contents" | "char") {
            return Ok(Value::Nil);
        }
        let v = with_engine(lua, |e| tables::lazy_field(lua, e, &t, &key))?;
        t.raw_set(key, v.clone())?;
        Ok(v)
    })?;
    for key in [tables::CHAR_META, tables::OBJ_META, tables::ROOM_META] {
        let meta = lua.create_table()?;
        meta.set("__index", lazy.clone())?;
        lua.set_named_registry_value(key, meta)?;
    }

    set(
        lua,
        "act",
        lua.create_function(|lua, (msg, _hide, actor, obj, vict, to): (Value, Value, Value, Value, Value, Value)| {
            let msg = text(&msg).trim_end_matches(['\r', '\n']).to_string();
            with_engine(lua, |e| {
                let (a, o, v) = (char_of(e, &actor), obj_of(e, &obj), char_of(e, &vict));
                match a {
                    Some(a) => e.act(&msg, a, v, o, to_of(&to), EventKind::Text),
                    None => {
                        // No actor: the object gives the room (the original allowed it).
                        if let Some(room) = o.and_then(|o| tables::obj_room(e, o)) {
                            let short = o.and_then(|o| e.world.obj(o)).map(|o| o.short_descr.clone()).unwrap_or_default();
                            e.send_room(room, &[], EventKind::Text, &msg.replace("$p", &short), None);
                        }
                    }
                }
                Ok(())
            })
        })?,
    )?;
    set(
        lua,
        "number",
        lua.create_function(|lua, (lo, hi): (Value, Value)| with_engine(lua, |e| Ok(e.roll(int(&lo) as i32, int(&hi) as i32))))?,
    )?;
    set(
        lua,
        "round",
        lua.create_function(|lua, x: Value| {
            check(lua)?;
            Ok(int(&x))
        })?,
    )?;
    set(
        lua,
        "skip_spaces",
        lua.create_function(|lua, s: Value| {
            check(lua)?;
            Ok(text(&s).trim_start().to_string())
        })?,
    )?;
    set(
        lua,
        "log",
        lua.create_function(|lua, s: Value| {
            check(lua)?;
            tracing::info!(target: "pawns::script", "{}", text(&s));
            Ok(())
        })?,
    )?;
    // me says, emotes, gossips; tells someone by name.
    for (name, verb) in [("say", 0u8), ("emote", 1), ("gossip", 2)] {
        set(
            lua,
            name,
            lua.create_function(move |lua, s: Value| {
                let s = text(&s);
                with_engine(lua, |e| {
                    if let Some(me) = global_char(lua, e, "me") {
                        match verb {
                            0 => e.do_say(me, &s),
                            1 => e.do_emote(me, &s),
                            _ => e.do_gossip(me, &s),
                        };
                    }
                    Ok(())
                })
            })?,
        )?;
    }
    set(
        lua,
        "tell",
        lua.create_function(|lua, (who, s): (Value, Value)| {
            let line = format!("{} {}", text(&who), text(&s));
            with_engine(lua, |e| {
                if let Some(me) = global_char(lua, e, "me") {
                    e.do_tell(me, &line);
                }
                Ok(())
            })
        })?,
    )?;
    set(
        lua,
        "social",
        lua.create_function(|lua, (vict, name): (Value, Value)| {
            let name = text(&name);
            with_engine(lua, |e| {
                let (Some(me), Some(i)) = (global_char(lua, e, "me"), e.find_social(&name)) else { return Ok(()) };
                let target =
                    char_of(e, &vict).and_then(|v| e.world.ch(v)).map(|v| v.keywords.split_whitespace().next().unwrap_or("").to_string());
                e.do_social(me, i, target.as_deref().unwrap_or(""));
                Ok(())
            })
        })?,
    )?;
    set(
        lua,
        "echo",
        lua.create_function(|lua, (target, kind, msg): (Value, Value, Value)| {
            let (kind, msg) = (text(&kind), text(&msg).trim_end_matches(['\r', '\n']).to_string());
            with_engine(lua, |e| {
                let rooms: Vec<usize> = match kind.as_str() {
                    "room" => room_of(e, &target).into_iter().collect(),
                    "zone" | "local" | "outdoor" => {
                        let Some(zone) = char_of(e, &target).and_then(|c| e.world.ch(c)).map(|c| e.world.rooms[c.room].proto.zone) else {
                            return Ok(());
                        };
                        (0..e.world.rooms.len()).filter(|r| e.world.rooms[*r].proto.zone == zone).collect()
                    }
                    "global" => {
                        let players: Vec<CharId> = e.world.players.values().copied().collect();
                        for p in players {
                            e.send_text(p, &msg);
                        }
                        return Ok(());
                    }
                    _ => return Ok(()),
                };
                for r in rooms {
                    if !e.world.rooms[r].people.is_empty() {
                        e.send_room(r, &[], EventKind::Text, &msg, None);
                    }
                }
                Ok(())
            })
        })?,
    )?;
    // action(ch, line): the command runs now, as the original's command_interpreter
    // did (no queue, no wait), and may fire triggers of its own.
    set(
        lua,
        "action",
        lua.create_function(|lua, (who, line): (Value, Value)| {
            let line = text(&line);
            with_engine(lua, |e| {
                if let Some(id) = char_of(e, &who) {
                    let saved = e.cur.take();
                    e.dispatch(id, &line);
                    e.cur = saved;
                }
                Ok(())
            })
        })?,
    )?;
    // spell(vict, obj, spellnum, vocal): `me` casts at its own level.
    set(
        lua,
        "spell",
        lua.create_function(|lua, (vict, _obj, num, vocal): (Value, Value, Value, Value)| {
            with_engine(lua, |e| {
                let Some(me) = global_char(lua, e, "me") else { return Ok(()) };
                let Some(name) = crate::game::rules::spells::spell_by_number(int(&num)) else {
                    tracing::debug!(target: "pawns::script", "spell {} is not one pawns has", int(&num));
                    return Ok(());
                };
                let target = char_of(e, &vict).unwrap_or(me);
                if int(&vocal) != 0 {
                    e.mob_cast(me, target, name);
                } else {
                    e.spell_effect(name, me, target);
                }
                resnapshot(lua, e, target)?;
                resnapshot(lua, e, me)
            })
        })?,
    )?;
    // tport(ch, vnum): moved and shown the room; no `enter` fires.
    set(
        lua,
        "tport",
        lua.create_function(|lua, (who, vnum): (Value, Value)| {
            with_engine(lua, |e| {
                let (Some(id), Some(to)) = (char_of(e, &who), e.world.room_of_vnum(int(&vnum).max(0) as u32)) else { return Ok(()) };
                e.world.char_from_room(id);
                e.world.char_to_room(id, to);
                e.show_room(id);
                resnapshot(lua, e, id)
            })
        })?,
    )?;
    set(
        lua,
        "follow",
        lua.create_function(|lua, (leader, charm): (Value, Value)| {
            with_engine(lua, |e| {
                let (Some(me), Some(l)) = (global_char(lua, e, "me"), char_of(e, &leader)) else { return Ok(()) };
                if me != l {
                    e.add_follower(me, l);
                    if int(&charm) != 0 {
                        let pulses = 24 * crate::game::rules::clock::PULSES_PER_MUD_HOUR;
                        e.add_affect(
                            me,
                            crate::game::rules::spells::Affect { kind: crate::game::rules::spells::AffectKind::Charm, pulses, modifier: 0 },
                        );
                    }
                }
                Ok(())
            })
        })?,
    )?;
    super::api_world::register(lua)
}

/// `dofile("scripts/mob/x.lua")`: runs that file in the shared globals (compiled once;
/// a moved file is found in `archive/`); a missing one is `nil, "file error"`.
pub fn register_dofile(lua: &Lua) -> mlua::Result<()> {
    set(
        lua,
        "dofile",
        lua.create_function(|lua, path: Value| {
            let path = text(&path);
            check(lua)?;
            match crate::script::host::chunk(lua, &path) {
                Ok(f) => f.call::<mlua::MultiValue>(()),
                Err(_) => Ok(mlua::MultiValue::from_vec(vec![Value::Nil, Value::String(lua.create_string("file error")?)])),
            }
        })?,
    )
}

//! The functions scripts call about things, rooms and flags: loading and extracting
//! (`oload`, `mload`, `extobj`, `extchar`), moving things (`objfrom`, `objto`,
//! `equip_char`, `steal`), finding them (`obj_list`, `inworld`, `load_room`,
//! `direction`), predicates (`isnpc`, `iscorpse`, `isfighting`, `cansee`, `canget`,
//! `item_check`, the `*_flagged` family), and writing tables back (`save_*`).
//!
//! pawns has no player flags (outlaw, vampire, werewolf) nor hunting or mounts:
//! `plr_flagged`, `ishunt` and `mount` answer nil and `plr_flags`, `set_hunt`,
//! `set_skill` change nothing, so scripts that test them take their ordinary branch.

use std::collections::VecDeque;

use mlua::{Lua, Value};

use super::api::{global_char, text, truthy, with_engine};
use super::tables::{self, char_of, int, obj_of, room_of};
use crate::game::model::tables::{item_type, wear_flag};
use crate::game::model::world::{ObjId, ObjLoc};
use crate::game::rules::spells::{Affect, AffectKind};
use crate::game::run::engine::Engine;

/// The original's `AFF_*` bit indexes that name something pawns has.
fn affect_of(bit: i64) -> Option<AffectKind> {
    Some(match bit {
        0 => AffectKind::Blind,
        9 => AffectKind::Curse,
        11 => AffectKind::Poison,
        15 => AffectKind::Sneak,
        21 => AffectKind::Charm,
        _ => return None,
    })
}

fn is_corpse(e: &Engine, o: ObjId) -> bool {
    e.world.obj(o).is_some_and(|o| o.vnum == 0 && o.item_type == item_type::CONTAINER && o.keywords.contains("corpse"))
}

/// A thing `me` can name among `list`.
fn named(e: &Engine, list: &[ObjId], name: &str) -> Option<ObjId> {
    e.find_obj_in(list, name)
}

/// Exit bits as the original's `exit_info`: door, closed, locked, pickproof.
fn exit_bits(e: &Engine, room: usize, dir: usize) -> i64 {
    let r = &e.world.rooms[room];
    let Some(Some(x)) = r.proto.exits.get(dir) else { return 0 };
    let d = r.doors[dir];
    let door = x.door_flags & 1 != 0;
    (door as i64) | ((d.closed as i64) << 1) | ((d.locked as i64) << 2) | ((((x.door_flags & 2) != 0) as i64) << 3)
}

/// The first step from room `from` toward room `to` (breadth first): 0–5, or -2 when
/// already there, -3 when no way leads there, -1 for a room that does not exist.
pub fn first_step(e: &Engine, from: u32, to: u32) -> i64 {
    let (Some(a), Some(b)) = (e.world.room_of_vnum(from), e.world.room_of_vnum(to)) else { return -1 };
    if a == b {
        return -2;
    }
    let mut first: Vec<Option<u8>> = vec![None; e.world.rooms.len()];
    let mut seen = vec![false; e.world.rooms.len()];
    seen[a] = true;
    let mut q = VecDeque::from([a]);
    while let Some(r) = q.pop_front() {
        for d in 0..6 {
            let Some(n) = e.world.passable(r, d) else { continue };
            if seen[n] {
                continue;
            }
            seen[n] = true;
            first[n] = if r == a { Some(d as u8) } else { first[r] };
            if n == b {
                return first[n].map(|d| d as i64).unwrap_or(-3);
            }
            q.push_back(n);
        }
    }
    -3
}

fn set(lua: &Lua, name: &str, f: mlua::Function) -> mlua::Result<()> {
    lua.globals().set(name, f)
}

/// A function of one table that answers from the engine.
fn query(lua: &Lua, name: &str, f: fn(&mut Engine, &Lua, &Value) -> mlua::Result<Value>) -> mlua::Result<()> {
    set(lua, name, lua.create_function(move |lua, v: Value| with_engine(lua, |e| f(e, lua, &v)))?)
}

pub fn register(lua: &Lua) -> mlua::Result<()> {
    query(lua, "isnpc", |e, _, v| Ok(truthy(char_of(e, v).and_then(|c| e.world.ch(c)).is_some_and(|c| c.is_npc()))))?;
    query(lua, "iscorpse", |e, _, v| Ok(truthy(obj_of(e, v).is_some_and(|o| is_corpse(e, o)))))?;
    query(lua, "canget", |e, _, v| {
        Ok(truthy(obj_of(e, v).and_then(|o| e.world.obj(o)).is_some_and(|o| o.wear_flags & wear_flag::TAKE != 0)))
    })?;
    query(lua, "isfighting", |e, lua, v| match char_of(e, v).and_then(|c| e.world.ch(c)).and_then(|c| c.fighting) {
        Some(f) => tables::char_table(lua, e, f),
        None => Ok(Value::Nil),
    })?;
    query(lua, "cansee", |e, lua, v| {
        let blind = global_char(lua, e, "me").is_some_and(|m| e.affected(m, AffectKind::Blind));
        Ok(truthy(char_of(e, v).is_some() && !blind))
    })?;
    query(lua, "ishunt", |_, _, _| Ok(Value::Nil))?;
    query(lua, "extobj", |e, _, v| {
        if let Some(o) = obj_of(e, v) {
            e.world.extract_obj(o);
        }
        Ok(Value::Nil)
    })?;
    query(lua, "extchar", |e, _, v| {
        // Mobs only: a script never deletes a player.
        if let Some(c) = char_of(e, v).filter(|c| e.world.ch(*c).is_some_and(|c| c.is_npc())) {
            for f in e.world.attackers_of(c) {
                e.stop_fighting(f);
            }
            e.world.extract_char(c);
        }
        Ok(Value::Nil)
    })?;
    query(lua, "unaffect", |e, _, v| {
        if let Some(c) = char_of(e, v) {
            if let Some(ch) = e.world.chars.get_mut(&c) {
                ch.affects.clear();
            }
            e.recompute_armour(c);
        }
        Ok(Value::Nil)
    })?;
    query(lua, "save_char", |e, lua, v| {
        if let Value::Table(t) = v {
            tables::write_char(lua, e, t)?;
        }
        Ok(Value::Nil)
    })?;
    query(lua, "save_obj", |e, _, v| {
        if let Value::Table(t) = v {
            tables::write_obj(e, t)?;
        }
        Ok(Value::Nil)
    })?;
    query(lua, "save_room", |e, _, v| {
        if let (Some(r), Value::Table(t)) = (room_of(e, v), v) {
            let sect = int(&t.raw_get("sect")?);
            e.world.rooms[r].proto.sector = sect.clamp(0, 20) as _;
        }
        Ok(Value::Nil)
    })?;
    query(lua, "load_room", |e, lua, v| match e.world.room_of_vnum(int(v).max(0) as u32) {
        Some(r) => tables::room_table(lua, e, r, global_char(lua, e, "me")),
        None => Ok(Value::Nil),
    })?;
    query(lua, "item_check", |e, lua, v| {
        let me_vnum = global_char(lua, e, "me").and_then(|m| e.world.ch(m)).and_then(|m| m.npc_vnum);
        let ty = obj_of(e, v).and_then(|o| e.world.obj(o)).map(|o| o.item_type);
        let buys = e.world.shops.iter().any(|s| {
            Some(s.keeper as u32) == me_vnum
                && ty.is_some_and(|t| s.buy_types.iter().any(|b| b.split_whitespace().next() == Some(&t.to_string())))
        });
        Ok(truthy(buys))
    })?;
    // oload(ch, vnum, "room"|"char") and mload(vnum, room vnum): the new thing's table.
    set(
        lua,
        "oload",
        lua.create_function(|lua, (who, vnum, place): (Value, Value, Value)| {
            with_engine(lua, |e| {
                let Some(c) = char_of(e, &who) else { return Ok(Value::Nil) };
                let Some(o) = e.world.create_obj(int(&vnum).max(0) as u32) else { return Ok(Value::Nil) };
                match text(&place).as_str() {
                    "room" => {
                        let room = e.world.ch(c).map(|c| c.room).unwrap_or(0);
                        e.world.obj_to_room(o, room);
                    }
                    _ => e.world.obj_to_char(o, c),
                }
                tables::obj_table(lua, e, o)
            })
        })?,
    )?;
    set(
        lua,
        "mload",
        lua.create_function(|lua, (vnum, room): (Value, Value)| {
            with_engine(lua, |e| {
                let Some(r) = e.world.room_of_vnum(int(&room).max(0) as u32) else { return Ok(Value::Nil) };
                let mut rng = std::mem::replace(&mut e.rng, rand::SeedableRng::seed_from_u64(0));
                let id = e.world.create_mob(int(&vnum).max(0) as u32, r, &mut |lo, hi| rand::Rng::gen_range(&mut rng, lo..=hi.max(lo)));
                e.rng = rng;
                let Some(id) = id else { return Ok(Value::Nil) };
                tables::char_table(lua, e, id)
            })
        })?,
    )?;
    set(
        lua,
        "objfrom",
        lua.create_function(|lua, (obj, _place): (Value, Value)| {
            with_engine(lua, |e| {
                if let Some(o) = obj_of(e, &obj) {
                    e.world.obj_from(o);
                }
                Ok(())
            })
        })?,
    )?;
    set(
        lua,
        "objto",
        lua.create_function(|lua, (obj, place, to): (Value, Value, Value)| {
            with_engine(lua, |e| {
                let Some(o) = obj_of(e, &obj) else { return Ok(()) };
                match text(&place).as_str() {
                    "room" => {
                        if let Some(r) = e.world.room_of_vnum(int(&to).max(0) as u32) {
                            e.world.obj_to_room(o, r);
                        }
                    }
                    "char" => {
                        if let Some(c) = char_of(e, &to) {
                            e.world.obj_to_char(o, c);
                        }
                    }
                    "obj" => {
                        if let Some(c) = obj_of(e, &to).filter(|c| *c != o) {
                            e.world.obj_to_obj(o, c);
                        }
                    }
                    _ => {}
                }
                Ok(())
            })
        })?,
    )?;
    set(
        lua,
        "equip_char",
        lua.create_function(|lua, (who, obj): (Value, Value)| {
            with_engine(lua, |e| {
                let (Some(c), Some(o)) = (char_of(e, &who), obj_of(e, &obj)) else { return Ok(()) };
                let Some(thing) = e.world.obj(o) else { return Ok(()) };
                if thing.loc != ObjLoc::Carried(c) {
                    return Ok(());
                }
                let eq = e.world.ch(c).map(|c| c.equipment).unwrap_or_default();
                if let Ok(slot) = crate::game::model::tables::wear_slot_for(thing.item_type, thing.wear_flags, |s| eq[s].is_none()) {
                    e.world.equip(o, c, slot);
                    e.recompute_armour(c);
                }
                Ok(())
            })
        })?,
    )?;
    set(
        lua,
        "steal",
        lua.create_function(|lua, (vict, obj): (Value, Value)| {
            with_engine(lua, |e| {
                let (Some(me), Some(v), Some(o)) = (global_char(lua, e, "me"), char_of(e, &vict), obj_of(e, &obj)) else { return Ok(()) };
                if e.world.obj(o).is_some_and(|o| o.loc == ObjLoc::Carried(v)) {
                    e.world.obj_to_char(o, me);
                }
                Ok(())
            })
        })?,
    )?;
    set(
        lua,
        "raw_kill",
        lua.create_function(|lua, (vict, _killer, _ty): (Value, Value, Value)| {
            with_engine(lua, |e| {
                if let Some(v) = char_of(e, &vict) {
                    // As the original: no `death` trigger, no experience.
                    e.die(v, None);
                }
                Ok(())
            })
        })?,
    )?;
    // obj_list(name, where): finds a thing `me` can name; sets global `obj` (and `ch`
    // for "vict", which names a character in the room).
    set(
        lua,
        "obj_list",
        lua.create_function(|lua, (name, place): (Value, Value)| {
            let (name, place) = (text(&name), text(&place));
            with_engine(lua, |e| {
                let Some(me) = global_char(lua, e, "me") else { return Ok(Value::Nil) };
                let Some(m) = e.world.ch(me) else { return Ok(Value::Nil) };
                let room = m.room;
                let found = match place.as_str() {
                    "room" => named(e, &e.world.rooms[room].contents, &name),
                    "char" => {
                        let worn: Vec<ObjId> = m.equipment.iter().flatten().copied().collect();
                        named(e, &worn, &name).or_else(|| named(e, &m.inventory, &name))
                    }
                    "cont" | "corpse" => {
                        let holders: Vec<ObjId> = m
                            .inventory
                            .iter()
                            .chain(e.world.rooms[room].contents.iter())
                            .copied()
                            .filter(|o| {
                                if place == "corpse" {
                                    is_corpse(e, *o)
                                } else {
                                    e.world.obj(*o).is_some_and(|o| !o.contains.is_empty())
                                }
                            })
                            .collect();
                        holders.iter().find_map(|h| e.world.obj(*h).and_then(|h| named(e, &h.contains, &name)))
                    }
                    "vict" => {
                        return match e.find_char_room(me, &name) {
                            Some(v) => {
                                lua.globals().set("ch", tables::char_table(lua, e, v)?)?;
                                Ok(Value::Integer(1))
                            }
                            None => Ok(Value::Nil),
                        };
                    }
                    _ => None,
                };
                match found {
                    Some(o) => {
                        lua.globals().set("obj", tables::obj_table(lua, e, o)?)?;
                        Ok(Value::Integer(1))
                    }
                    None => Ok(Value::Nil),
                }
            })
        })?,
    )?;
    // inworld("mob", vnum) / inworld("char", name): the oldest such in the world.
    set(
        lua,
        "inworld",
        lua.create_function(|lua, (what, key): (Value, Value)| {
            with_engine(lua, |e| {
                let found = match text(&what).as_str() {
                    "mob" => {
                        let v = int(&key) as u32;
                        e.world.chars.values().filter(|c| c.npc_vnum == Some(v)).map(|c| c.id).min()
                    }
                    _ => e.find_player(&text(&key)),
                };
                match found {
                    Some(c) => tables::char_table(lua, e, c),
                    None => Ok(Value::Nil),
                }
            })
        })?,
    )?;
    set(
        lua,
        "direction",
        lua.create_function(|lua, (from, to): (Value, Value)| {
            with_engine(lua, |e| Ok(first_step(e, int(&from).max(0) as u32, int(&to).max(0) as u32)))
        })?,
    )?;
    set(
        lua,
        "exit_flagged",
        lua.create_function(|lua, (room, dir, mask): (Value, Value, Value)| {
            with_engine(lua, |e| {
                let (Some(r), d) = (room_of(e, &room), int(&dir)) else { return Ok(Value::Nil) };
                Ok(truthy((0..6).contains(&d) && exit_bits(e, r, d as usize) & int(&mask) != 0))
            })
        })?,
    )?;
    set(
        lua,
        "exit_flags",
        lua.create_function(|lua, (room, dir, op, mask): (Value, Value, Value, Value)| {
            with_engine(lua, |e| {
                let (Some(r), d, m, on) = (room_of(e, &room), int(&dir), int(&mask), text(&op) == "set") else { return Ok(()) };
                if (0..6).contains(&d) && e.world.rooms[r].proto.exits[d as usize].is_some() {
                    let door = &mut e.world.rooms[r].doors[d as usize];
                    if m & 2 != 0 {
                        door.closed = on;
                    }
                    if m & 4 != 0 {
                        door.locked = on;
                    }
                }
                Ok(())
            })
        })?,
    )?;
    flags(lua)
}

/// The `*_flagged` tests and `*_flags` setters.
fn flags(lua: &Lua) -> mlua::Result<()> {
    set(
        lua,
        "aff_flagged",
        lua.create_function(|lua, (who, bit): (Value, Value)| {
            with_engine(lua, |e| Ok(truthy(char_of(e, &who).zip(affect_of(int(&bit))).is_some_and(|(c, k)| e.affected(c, k)))))
        })?,
    )?;
    set(
        lua,
        "aff_flags",
        lua.create_function(|lua, (who, op, bit): (Value, Value, Value)| {
            with_engine(lua, |e| {
                let (Some(c), Some(kind)) = (char_of(e, &who), affect_of(int(&bit))) else { return Ok(()) };
                if text(&op) == "set" {
                    if !e.affected(c, kind) {
                        e.add_affect(c, Affect { kind, pulses: crate::game::rules::clock::PULSES_PER_MUD_HOUR * 24, modifier: -1 });
                    }
                } else if let Some(ch) = e.world.chars.get_mut(&c) {
                    ch.affects.retain(|a| a.kind != kind);
                }
                e.recompute_armour(c);
                Ok(())
            })
        })?,
    )?;
    for (test, change, is_obj) in [("mob_flagged", "mob_flags", false), ("obj_flagged", "obj_extra", true)] {
        set(
            lua,
            test,
            lua.create_function(move |lua, (thing, bit): (Value, Value)| {
                with_engine(lua, |e| {
                    let b = int(&bit);
                    let bits = if is_obj {
                        obj_of(e, &thing).and_then(|o| e.world.obj(o)).map(|o| o.extra_flags)
                    } else {
                        char_of(e, &thing).and_then(|c| e.world.ch(c)).map(|c| c.mob_flags)
                    };
                    Ok(truthy((0..64).contains(&b) && bits.is_some_and(|f| f & (1 << b) != 0)))
                })
            })?,
        )?;
        set(
            lua,
            change,
            lua.create_function(move |lua, (thing, op, bit): (Value, Value, Value)| {
                with_engine(lua, |e| {
                    let b = int(&bit);
                    if !(0..64).contains(&b) {
                        return Ok(());
                    }
                    let on = text(&op) == "set";
                    let f = if is_obj {
                        obj_of(e, &thing).and_then(|o| e.world.objs.get_mut(&o)).map(|o| &mut o.extra_flags)
                    } else {
                        char_of(e, &thing).and_then(|c| e.world.chars.get_mut(&c)).filter(|c| c.is_npc()).map(|c| &mut c.mob_flags)
                    };
                    if let Some(f) = f {
                        if on {
                            *f |= 1 << b;
                        } else {
                            *f &= !(1 << b);
                        }
                    }
                    Ok(())
                })
            })?,
        )?;
    }
    for name in ["plr_flagged", "mount"] {
        set(lua, name, lua.create_function(|lua, _: mlua::MultiValue| super::api::check(lua).map(|_| Value::Nil))?)?;
    }
    for name in ["plr_flags", "set_hunt", "set_skill", "extra"] {
        set(lua, name, lua.create_function(|lua, _: mlua::MultiValue| super::api::check(lua))?)?;
    }
    Ok(())
}

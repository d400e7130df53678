//! The tables scripts see, as the original built them (`char_to_table`,
//! `obj_to_table`, `room_to_table`): fresh snapshots per call, each holding a hidden
//! handle (`__id`, never reused, so a stale one is detected) in place of the C pointer.
//! Lists that can be long (`room.char`, `objs`, `wear`, `contents`, `leader`) are built
//! on first read.
//!
//! Writes to a table do nothing until `save_char`/`save_obj`/`save_room`, or the
//! write-back of global `ch` at the end of a call; only the fields the original wrote
//! back are applied, with its clamps, and only those the script changed (so a stale
//! snapshot never undoes what the engine did meanwhile).

use mlua::{Lua, Table, Value};

use crate::game::model::tables::{Position, MAX_LEVEL};
use crate::game::model::world::{CharId, ObjId, ObjLoc, RoomId};
use crate::game::run::engine::Engine;

/// Registry names: the engine lent to the running call, and the lazy-field metatables.
pub const ENGINE_KEY: &str = "pawns.engine";
pub const CHAR_META: &str = "pawns.meta.char";
pub const OBJ_META: &str = "pawns.meta.obj";
pub const ROOM_META: &str = "pawns.meta.room";

/// Fields of a character the original wrote back.
const CHAR_BACK: &[&str] = &["align", "gold", "level", "hp", "pos", "timer", "bank", "exp", "mana", "move"];

fn position_of(n: i64) -> Position {
    match n {
        i64::MIN..=0 => Position::Dead,
        1 => Position::MortallyWounded,
        2 => Position::Incapacitated,
        3 => Position::Stunned,
        4 => Position::Sleeping,
        5 => Position::Resting,
        6 => Position::Sitting,
        7 => Position::Fighting,
        _ => Position::Standing,
    }
}

/// A number as C's `(int)lua_tonumber` took it: truncated, and 0 for anything else.
pub fn int(v: &Value) -> i64 {
    match v {
        Value::Integer(i) => *i,
        Value::Number(n) if n.is_finite() => n.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64,
        Value::String(s) => s.to_str().ok().and_then(|s| s.trim().parse::<f64>().ok()).map(|n| n.trunc() as i64).unwrap_or(0),
        Value::Boolean(true) => 1,
        _ => 0,
    }
}

/// The character a table names, if it is one and still in the world.
pub fn char_of(e: &Engine, v: &Value) -> Option<CharId> {
    let Value::Table(t) = v else { return None };
    if t.raw_get::<String>("__kind").ok()? != "char" {
        return None;
    }
    let id = t.raw_get::<i64>("__id").ok()? as CharId;
    e.world.ch(id).map(|_| id)
}

pub fn obj_of(e: &Engine, v: &Value) -> Option<ObjId> {
    let Value::Table(t) = v else { return None };
    if t.raw_get::<String>("__kind").ok()? != "obj" {
        return None;
    }
    let id = t.raw_get::<i64>("__id").ok()? as ObjId;
    e.world.obj(id).map(|_| id)
}

pub fn room_of(e: &Engine, v: &Value) -> Option<RoomId> {
    let Value::Table(t) = v else { return None };
    let r = t.raw_get::<i64>("__room").ok()?;
    (r >= 0 && (r as usize) < e.world.rooms.len()).then_some(r as usize)
}

fn with_meta(lua: &Lua, t: &Table, key: &str) -> mlua::Result<()> {
    if let Ok(Value::Table(m)) = lua.named_registry_value::<Value>(key) {
        t.set_metatable(Some(m))?;
    }
    Ok(())
}

/// The write-back fields of a character as a table shows them (in `CHAR_BACK` order).
fn back_values(c: &crate::game::model::character::Char) -> [Option<i64>; 10] {
    let pc = c.pc.as_ref();
    [
        Some(c.alignment as i64),
        Some(c.gold),
        Some(c.level as i64),
        Some(c.hit as i64),
        Some(c.position as i64),
        c.pc.is_none().then_some(c.wait as i64),
        pc.map(|p| p.bank_gold),
        pc.map(|_| c.exp),
        pc.map(|_| c.mana as i64),
        pc.map(|_| c.moves as i64),
    ]
}

/// The write-back fields of every character a call was shown (cleared per top-level
/// call): a field is written back only if the script changed it.
#[derive(Default)]
pub struct Originals(pub std::cell::RefCell<std::collections::HashMap<CharId, [Option<i64>; 10]>>);

/// `ch`, `me`, `room.char[i]`…: nil for one who is gone.
pub fn char_table(lua: &Lua, e: &Engine, id: CharId) -> mlua::Result<Value> {
    let Some(c) = e.world.ch(id) else { return Ok(Value::Nil) };
    let t = lua.create_table()?;
    t.raw_set("__kind", "char")?;
    t.raw_set("__id", id as i64)?;
    t.raw_set("name", c.name.to_string())?;
    t.raw_set("alias", c.keywords.clone())?;
    t.raw_set("align", c.alignment)?;
    t.raw_set("gold", c.gold)?;
    t.raw_set("level", c.level)?;
    t.raw_set("hp", c.hit)?;
    t.raw_set("maxhp", c.max_hit)?;
    t.raw_set("pos", c.position as i64)?;
    t.raw_set("evil", if c.alignment <= -350 { 1 } else { 0 })?;
    match (&c.pc, c.npc_vnum) {
        (Some(pc), _) => {
            t.raw_set("id", id as i64)?;
            t.raw_set("exp", c.exp)?;
            t.raw_set("bank", pc.bank_gold)?;
            t.raw_set("mana", c.mana)?;
            t.raw_set("move", c.moves)?;
            t.raw_set("cha", c.abilities[5])?;
            t.raw_set("jail", 0)?;
            t.raw_set("tattoo", 0)?;
            t.raw_set("followers", c.followers.len())?;
        }
        (None, vnum) => {
            t.raw_set("vnum", vnum.unwrap_or(0))?;
            t.raw_set("timer", c.wait)?;
        }
    }
    // What the script was shown, kept on the Rust side for the write-back.
    if let Some(o) = lua.app_data_ref::<Originals>() {
        o.0.borrow_mut().insert(id, back_values(c));
    }
    with_meta(lua, &t, CHAR_META)?;
    Ok(Value::Table(t))
}

/// `obj`, `objs[i]`, `contents[i]`.
pub fn obj_table(lua: &Lua, e: &Engine, id: ObjId) -> mlua::Result<Value> {
    let Some(o) = e.world.obj(id) else { return Ok(Value::Nil) };
    let t = lua.create_table()?;
    t.raw_set("__kind", "obj")?;
    t.raw_set("__id", id as i64)?;
    t.raw_set("name", &*o.short_descr)?;
    t.raw_set("alias", o.keywords.clone())?;
    t.raw_set("vnum", o.vnum)?;
    t.raw_set("cost", o.cost)?;
    t.raw_set("type", o.item_type)?;
    t.raw_set("weight", o.weight)?;
    let perc = e.world.obj_protos.get(&o.vnum).and_then(|p| p.load_percent).unwrap_or(100.0).round() as i64;
    t.raw_set("perc_load", perc)?;
    t.raw_set("timer", o.timer.unwrap_or(0))?;
    let val = lua.create_table()?;
    for (i, v) in o.values.iter().enumerate() {
        val.raw_set(i + 1, *v)?;
    }
    t.raw_set("val", val)?;
    with_meta(lua, &t, OBJ_META)?;
    Ok(Value::Table(t))
}

/// `room`, `load_room(vnum)`: `char` leaves out `me`, as the original's did.
pub fn room_table(lua: &Lua, e: &Engine, room: RoomId, me: Option<CharId>) -> mlua::Result<Value> {
    let Some(r) = e.world.rooms.get(room) else { return Ok(Value::Nil) };
    let t = lua.create_table()?;
    t.raw_set("__room", room as i64)?;
    t.raw_set("__me", me.map(|m| m as i64))?;
    t.raw_set("vnum", r.proto.vnum)?;
    t.raw_set("name", r.proto.name.to_string())?;
    t.raw_set("sect", r.proto.sector)?;
    let exits = lua.create_table()?;
    for (d, x) in r.proto.exits.iter().enumerate() {
        if let Some(x) = x {
            if x.to_room >= 0 {
                exits.raw_set(d, x.to_room)?;
            }
        }
    }
    t.raw_set("exit", exits)?;
    with_meta(lua, &t, ROOM_META)?;
    Ok(Value::Table(t))
}

fn list(lua: &Lua, items: Vec<Value>, nil_if_empty: bool) -> mlua::Result<Value> {
    if items.is_empty() && nil_if_empty {
        return Ok(Value::Nil);
    }
    Ok(Value::Table(lua.create_sequence_from(items)?))
}

/// The lazy fields: what `t[key]` is when first read.
pub fn lazy_field(lua: &Lua, e: &Engine, t: &Table, key: &str) -> mlua::Result<Value> {
    if let Some(id) = char_of(e, &Value::Table(t.clone())) {
        let c = e.world.ch(id).expect("char_of checked it");
        return match key {
            "objs" => list(lua, c.inventory.iter().map(|o| obj_table(lua, e, *o)).collect::<mlua::Result<_>>()?, true),
            "wear" => list(lua, c.equipment.iter().flatten().map(|o| obj_table(lua, e, *o)).collect::<mlua::Result<_>>()?, true),
            "leader" => match c.master {
                Some(m) => char_table(lua, e, m),
                None => Ok(Value::Nil),
            },
            _ => Ok(Value::Nil),
        };
    }
    if let Some(id) = obj_of(e, &Value::Table(t.clone())) {
        let o = e.world.obj(id).expect("obj_of checked it");
        return match key {
            "contents" => list(lua, o.contains.iter().map(|c| obj_table(lua, e, *c)).collect::<mlua::Result<_>>()?, true),
            _ => Ok(Value::Nil),
        };
    }
    if let Some(room) = room_of(e, &Value::Table(t.clone())) {
        let me = t.raw_get::<Option<i64>>("__me")?.map(|m| m as CharId);
        let r = &e.world.rooms[room];
        return match key {
            "char" => {
                list(lua, r.people.iter().filter(|p| Some(**p) != me).map(|p| char_table(lua, e, *p)).collect::<mlua::Result<_>>()?, false)
            }
            "objs" => list(lua, r.contents.iter().map(|o| obj_table(lua, e, *o)).collect::<mlua::Result<_>>()?, true),
            _ => Ok(Value::Nil),
        };
    }
    Ok(Value::Nil)
}

/// `table_to_char`: the fields the script changed, with the original's clamps.
pub fn write_char(lua: &Lua, e: &mut Engine, t: &Table) -> mlua::Result<()> {
    let Some(id) = char_of(e, &Value::Table(t.clone())) else { return Ok(()) };
    let shown = lua.app_data_ref::<Originals>().and_then(|o| o.0.borrow().get(&id).copied());
    let mut changed = Vec::new();
    for (i, k) in CHAR_BACK.iter().enumerate() {
        let now: Value = t.raw_get(*k)?;
        let was = shown.and_then(|s| s[i]);
        if now.is_nil() || was == Some(int(&now)) {
            continue;
        }
        changed.push((*k, int(&now)));
    }
    if changed.is_empty() {
        return Ok(());
    }
    let Some(c) = e.world.chars.get_mut(&id) else { return Ok(()) };
    let npc = c.is_npc();
    for (k, v) in &changed {
        let v32 = (*v).clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        match *k {
            "align" => c.alignment = v32.clamp(-1000, 1000),
            "gold" => c.gold = (*v).max(0),
            "level" => c.level = (*v).clamp(1, MAX_LEVEL as i64) as u8,
            "hp" => c.hit = v32,
            "pos" => c.position = position_of(*v),
            "timer" if npc => c.wait = (*v).clamp(0, u32::MAX as i64) as _,
            "bank" if !npc => {
                if let Some(pc) = c.pc.as_mut() {
                    pc.bank_gold = (*v).max(0);
                }
            }
            "exp" if !npc => c.exp = (*v).max(0),
            "mana" if !npc => c.mana = v32,
            "move" if !npc => c.moves = v32,
            _ => {}
        }
    }
    c.mark_dirty();
    // Hit points the script took may kill, as the engine's own damage would.
    if changed.iter().any(|(k, _)| *k == "hp") {
        let hp = e.world.ch(id).map(|c| c.hit).unwrap_or(1);
        if hp <= 0 {
            e.damage(id, id, 0, crate::game::rules::combat::TYPE_SUFFERING);
        }
    }
    Ok(())
}

/// `save_obj`: name, cost, weight, values, timer.
pub fn write_obj(e: &mut Engine, t: &Table) -> mlua::Result<()> {
    let Some(id) = obj_of(e, &Value::Table(t.clone())) else { return Ok(()) };
    let name: Option<String> = t.raw_get("name")?;
    let cost = int(&t.raw_get("cost")?);
    let weight = int(&t.raw_get("weight")?);
    let timer = int(&t.raw_get("timer")?);
    let val: Option<Table> = t.raw_get("val")?;
    let Some(o) = e.world.objs.get_mut(&id) else { return Ok(()) };
    if let Some(n) = name.filter(|n| !n.is_empty()) {
        o.short_descr = n.chars().take(200).collect::<String>().into();
    }
    o.cost = cost.clamp(0, i32::MAX as i64) as i32;
    o.weight = weight.clamp(1, i32::MAX as i64) as i32;
    o.timer = (timer > 0).then_some(timer.min(u32::MAX as i64) as u32);
    if let Some(val) = val {
        for i in 0..4 {
            o.values[i] = int(&val.raw_get(i + 1)?).clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        }
    }
    Ok(())
}

/// Where an object is, as a room (the carrier's room for a carried or worn one).
pub fn obj_room(e: &Engine, id: ObjId) -> Option<RoomId> {
    let mut at = id;
    for _ in 0..16 {
        match e.world.obj(at)?.loc {
            ObjLoc::Room(r) => return Some(r),
            ObjLoc::Carried(c) | ObjLoc::Worn(c, _) => return e.world.ch(c).map(|c| c.room),
            ObjLoc::In(o) => at = o,
            ObjLoc::Nowhere => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_taken_as_c_took_them() {
        assert_eq!(int(&Value::Number(2.9)), 2);
        assert_eq!(int(&Value::Number(-2.9)), -2);
        assert_eq!(int(&Value::Integer(7)), 7);
        assert_eq!(int(&Value::Nil), 0);
        assert_eq!(int(&Value::Number(f64::NAN)), 0);
        assert_eq!(position_of(4), Position::Sleeping);
        assert_eq!(position_of(99), Position::Standing);
        assert_eq!(position_of(-1), Position::Dead);
    }
}

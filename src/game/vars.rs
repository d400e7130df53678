//! The 19 protocol variables: computing them from the world and diffing them against
//! what a session was last sent (protocol §6). Deltas are value-compared, never marked.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use super::character::Char;
use super::tables::{Position, WEAR_SLOTS};
use super::targeting::target_string;
use super::world::World;
use crate::worldfile::DIR_NAMES;

pub const VAR_NAMES: [&str; 19] = [
    "HEALTH",
    "MAX_HEALTH",
    "MANA",
    "MAX_MANA",
    "MOVE",
    "MAX_MOVE",
    "GOLD",
    "POSITION",
    "LEVEL",
    "EXP",
    "ROOM_VNUM",
    "ROOM_NAME",
    "ROOM_EXITS",
    "ROOM_MOBS",
    "ROOM_ITEMS",
    "FIGHTING",
    "INVENTORY",
    "EQUIPMENT",
    "EVENTS",
];
pub const EVENTS_VAR: usize = 18;

/// A set of variables as bits in `VAR_NAMES` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VarSet(pub u32);

impl VarSet {
    pub const ALL: VarSet = VarSet((1 << 19) - 1);
    pub fn empty() -> VarSet {
        VarSet(0)
    }
    pub fn contains(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Parses names (or `*`); returns the set and the names that are not variables.
    pub fn parse(names: &[String]) -> (VarSet, Vec<String>) {
        let mut set = 0u32;
        let mut unknown = Vec::new();
        for n in names {
            if n == "*" {
                set = VarSet::ALL.0;
                continue;
            }
            match VAR_NAMES.iter().position(|v| v.eq_ignore_ascii_case(n)) {
                Some(i) => set |= 1 << i,
                None => unknown.push(n.clone()),
            }
        }
        (VarSet(set), unknown)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoomMobVar {
    pub name: String,
    pub instance_id: String,
    pub target_string: String,
    pub vnum: u32,
    pub fighting: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemVar {
    pub name: String,
    pub vnum: u32,
    pub instance_id: String,
    pub target_string: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EquipVar {
    pub name: String,
    pub vnum: u32,
    pub instance_id: String,
}

/// The variables that depend only on the room (the same for everyone in it), computed
/// once per room per flush and shared.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomVars {
    pub room_vnum: u32,
    pub room_name: String,
    pub room_exits: Vec<&'static str>,
    pub room_mobs: Vec<RoomMobVar>,
    pub room_items: Vec<ItemVar>,
}

/// Every variable but `EVENTS`, as typed values (cheap to compare).
#[derive(Debug, Clone, PartialEq)]
pub struct VarValues {
    pub health: i32,
    pub max_health: i32,
    pub mana: i32,
    pub max_mana: i32,
    pub moves: i32,
    pub max_moves: i32,
    pub gold: i64,
    pub position: &'static str,
    pub level: u8,
    pub exp: i64,
    pub room: Arc<RoomVars>,
    pub fighting: bool,
    pub inventory: Vec<ItemVar>,
    pub equipment: Vec<(usize, EquipVar)>,
}

/// Room variables already computed during one flush.
pub type RoomCache = HashMap<usize, Arc<RoomVars>>;

pub fn mob_instance_id(vnum: u32, id: u64) -> String {
    format!("mob_{vnum}_{id}")
}
pub fn obj_instance_id(vnum: u32, id: u64) -> String {
    format!("obj_{vnum}_{id}")
}

pub fn position_of(c: &Char) -> &'static str {
    if c.fighting.is_some() && c.position >= Position::Fighting {
        Position::Fighting.as_str()
    } else {
        c.position.as_str()
    }
}

/// Exits a player can see, in the fixed order.
pub fn visible_exits(world: &World, room: usize) -> Vec<&'static str> {
    let r = &world.rooms[room];
    (0..6)
        .filter(|d| r.proto.exits[*d].as_ref().is_some_and(|e| !crate::game::doors::hidden(e, &r.doors[*d])))
        .map(|d| DIR_NAMES[d])
        .collect()
}

fn item_vars(world: &World, ids: &[u64]) -> Vec<ItemVar> {
    let objs: Vec<_> = ids.iter().filter_map(|i| world.objs.get(i)).collect();
    let kws: Vec<&str> = objs.iter().map(|o| o.keywords.as_str()).collect();
    objs.iter()
        .enumerate()
        .map(|(i, o)| ItemVar {
            name: o.short_descr.clone(),
            vnum: o.vnum,
            instance_id: obj_instance_id(o.vnum, o.id),
            target_string: target_string(&kws, i),
        })
        .collect()
}

pub fn room_vars(world: &World, room_id: usize) -> RoomVars {
    let room = &world.rooms[room_id];
    // Each mob's target string counts who answers to its keyword before it in the room
    // (everyone: that is how `kill 2.rat` is read), through the occupants' signatures, so
    // a crowd of players is not read for it.
    let room_mobs = room
        .npcs
        .iter()
        .filter_map(|m| world.chars.get(m))
        .map(|c| RoomMobVar {
            name: c.name.clone(),
            instance_id: mob_instance_id(c.npc_vnum.unwrap_or(0), c.id),
            target_string: occupant_target(world, room, c),
            vnum: c.npc_vnum.unwrap_or(0),
            fighting: c.fighting.is_some(),
        })
        .collect();
    RoomVars {
        room_vnum: room.proto.vnum,
        room_name: room.proto.name.clone(),
        room_exits: visible_exits(world, room_id),
        room_mobs,
        room_items: item_vars(world, &room.contents),
    }
}

/// What to type to target `c`, an occupant of `room`: its first keyword, numbered by
/// the occupants before it who answer to it too (`targeting::target_string`'s rule).
fn occupant_target(world: &World, room: &crate::game::world::Room, c: &Char) -> String {
    let kw = super::targeting::first_keyword(&c.keywords);
    let q = super::targeting::query_sig(&kw);
    let mut n = 1;
    for (p, sig) in room.people.iter().zip(&room.sigs) {
        if *p == c.id {
            break;
        }
        if sig & q == q && world.chars.get(p).is_some_and(|o| super::targeting::is_name(&kw, &o.keywords)) {
            n += 1;
        }
    }
    if n == 1 {
        kw
    } else {
        format!("{n}.{kw}")
    }
}

/// Every variable, fresh.
pub fn compute(world: &World, ch: &Char) -> VarValues {
    compute_cached(world, ch, &mut RoomCache::new(), &RoomCache::new(), VarSet::ALL)
}

/// The variables in `subs` (the others are left empty, and are never compared).
/// Room variables come from `cache`, built once per room per flush; a room whose
/// variables equal last flush's (`prev`) reuses that value, so comparing it for each
/// occupant is a pointer check.
pub fn compute_cached(world: &World, ch: &Char, cache: &mut RoomCache, prev: &RoomCache, subs: VarSet) -> VarValues {
    let room = if (10..=14).any(|i| subs.contains(i)) {
        cache
            .entry(ch.room)
            .or_insert_with(|| {
                let fresh = room_vars(world, ch.room);
                match prev.get(&ch.room) {
                    Some(old) if **old == fresh => old.clone(),
                    _ => Arc::new(fresh),
                }
            })
            .clone()
    } else {
        empty_room()
    };
    let equipment = if subs.contains(17) {
        ch.equipment
            .iter()
            .enumerate()
            .filter_map(|(slot, o)| {
                let o = world.objs.get(o.as_ref()?)?;
                Some((slot, EquipVar { name: o.short_descr.clone(), vnum: o.vnum, instance_id: obj_instance_id(o.vnum, o.id) }))
            })
            .collect()
    } else {
        Vec::new()
    };
    VarValues {
        health: ch.hit,
        max_health: ch.max_hit,
        mana: ch.mana,
        max_mana: ch.max_mana,
        moves: ch.moves,
        max_moves: ch.max_moves,
        gold: ch.gold,
        position: position_of(ch),
        level: ch.level,
        exp: ch.exp,
        room,
        fighting: ch.fighting.is_some(),
        inventory: if subs.contains(16) { item_vars(world, &ch.inventory) } else { Vec::new() },
        equipment,
    }
}

fn empty_room() -> Arc<RoomVars> {
    thread_local! {
        static EMPTY: Arc<RoomVars> = Arc::new(RoomVars { room_vnum: 0, room_name: String::new(), room_exits: Vec::new(), room_mobs: Vec::new(), room_items: Vec::new() });
    }
    EMPTY.with(|e| e.clone())
}

/// JSON for variable `i` (not `EVENTS`).
pub fn value_of(v: &VarValues, i: usize) -> Value {
    match i {
        0 => json!(v.health),
        1 => json!(v.max_health),
        2 => json!(v.mana),
        3 => json!(v.max_mana),
        4 => json!(v.moves),
        5 => json!(v.max_moves),
        6 => json!(v.gold),
        7 => json!(v.position),
        8 => json!(v.level),
        9 => json!(v.exp),
        10 => json!(v.room.room_vnum),
        11 => json!(v.room.room_name),
        12 => json!(v.room.room_exits),
        13 => json!(v.room.room_mobs),
        14 => json!(v.room.room_items),
        15 => json!(v.fighting),
        16 => json!(v.inventory),
        17 => {
            let mut m = serde_json::Map::new();
            for (slot, e) in &v.equipment {
                m.insert(WEAR_SLOTS[*slot].to_string(), json!(e));
            }
            Value::Object(m)
        }
        _ => Value::Null,
    }
}

/// Whether variable `i` differs between two snapshots.
pub fn differs(a: &VarValues, b: &VarValues, i: usize) -> bool {
    match i {
        0 => a.health != b.health,
        1 => a.max_health != b.max_health,
        2 => a.mana != b.mana,
        3 => a.max_mana != b.max_mana,
        4 => a.moves != b.moves,
        5 => a.max_moves != b.max_moves,
        6 => a.gold != b.gold,
        7 => a.position != b.position,
        8 => a.level != b.level,
        9 => a.exp != b.exp,
        10..=14 if Arc::ptr_eq(&a.room, &b.room) => false,
        10 => a.room.room_vnum != b.room.room_vnum,
        11 => a.room.room_name != b.room.room_name,
        12 => a.room.room_exits != b.room.room_exits,
        13 => a.room.room_mobs != b.room.room_mobs,
        14 => a.room.room_items != b.room.room_items,
        15 => a.fighting != b.fighting,
        16 => a.inventory != b.inventory,
        17 => a.equipment != b.equipment,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_reports_unknown_names_and_star() {
        let (set, unknown) = VarSet::parse(&["HEALTH".into(), "bogus".into(), "fighting".into()]);
        assert!(set.contains(0) && set.contains(15) && !set.contains(1));
        assert_eq!(unknown, vec!["bogus".to_string()]);
        assert_eq!(VarSet::parse(&["*".into()]).0, VarSet::ALL);
        assert_eq!(VAR_NAMES.len(), 19);
    }
}

//! The 19 protocol variables: computing them from the world and diffing them against
//! what a session was last sent (protocol §6). Deltas are value-compared, never marked.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use crate::game::model::character::Char;
use crate::game::model::tables::{Position, WEAR_SLOTS};
use crate::game::model::world::World;
use crate::worldfile::DIR_NAMES;

/// The 19 variables (protocol §6), in the protocol's order. Their wire names are
/// `VAR_NAMES`, the one table: a MUD client's names for them (MSDP's `HEALTH_MAX`,
/// GMCP's `maxhp`) are mapped to these, never to strings, so they cannot drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    Health,
    MaxHealth,
    Mana,
    MaxMana,
    Move,
    MaxMove,
    Gold,
    Position,
    Level,
    Exp,
    RoomVnum,
    RoomName,
    RoomExits,
    RoomMobs,
    RoomItems,
    Fighting,
    Inventory,
    Equipment,
    Events,
}

impl Var {
    /// Every variable, in the protocol's order (`ALL[v as usize] == v`).
    pub const ALL: [Var; 19] = [
        Var::Health,
        Var::MaxHealth,
        Var::Mana,
        Var::MaxMana,
        Var::Move,
        Var::MaxMove,
        Var::Gold,
        Var::Position,
        Var::Level,
        Var::Exp,
        Var::RoomVnum,
        Var::RoomName,
        Var::RoomExits,
        Var::RoomMobs,
        Var::RoomItems,
        Var::Fighting,
        Var::Inventory,
        Var::Equipment,
        Var::Events,
    ];

    /// Its name on the wire (`vars` messages, subscriptions).
    pub const fn name(self) -> &'static str {
        VAR_NAMES[self as usize]
    }

    /// The variable a name names, in any case.
    pub fn named(name: &str) -> Option<Var> {
        VAR_NAMES.iter().position(|v| v.eq_ignore_ascii_case(name)).map(|i| Var::ALL[i])
    }
}

/// The variables' wire names, in `Var` order.
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
pub const EVENTS_VAR: usize = Var::Events as usize;

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
            match Var::named(n) {
                Some(v) => set |= 1 << v as usize,
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
    /// Shared with the object (a list of what is carried copies no name).
    pub name: Arc<str>,
    pub vnum: u32,
    pub instance_id: String,
    pub target_string: String,
    /// The object and a hash of its keywords (what its target string is made of): a
    /// carried list whose objects all match needs no new value (see `same_items`).
    #[serde(skip)]
    pub id: u64,
    #[serde(skip)]
    pub keywords_hash: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EquipVar {
    pub name: Arc<str>,
    pub vnum: u32,
    pub instance_id: String,
    #[serde(skip)]
    pub id: u64,
}

/// The variables that depend only on the room (the same for everyone in it), computed
/// once per room per flush and shared.
#[derive(Debug, Clone, PartialEq)]
pub struct RoomVars {
    pub room_vnum: u32,
    pub room_name: String,
    pub room_exits: Vec<&'static str>,
    pub room_mobs: Vec<RoomMobVar>,
    /// Shared with the last flush's when the floor has not changed (a floor piled with
    /// corpses is not rebuilt every pulse).
    pub room_items: Arc<Vec<ItemVar>>,
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
    /// Shared with the last flush's values while the belongings are unchanged.
    pub inventory: Arc<Vec<ItemVar>>,
    pub equipment: Arc<Vec<(usize, EquipVar)>>,
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
        .filter(|d| r.proto.exits[*d].as_ref().is_some_and(|e| !crate::game::rules::doors::hidden(e, &r.doors[*d])))
        .map(|d| DIR_NAMES[d])
        .collect()
}

fn item_vars(world: &World, ids: &[u64]) -> Vec<ItemVar> {
    // Each item's number (`2.corpse`) counts the items before it that answer to its
    // keyword (`targeting::target_string`'s rule). Those are counted by their keyword
    // lists, each distinct one once: a floor piled with five hundred corpses is a few
    // lists, where reading every item before each was 125,000 comparisons a pulse.
    let mut seen: Vec<(&str, usize)> = Vec::new();
    let mut out = Vec::with_capacity(ids.len());
    for o in ids.iter().filter_map(|i| world.objs.get(i)) {
        let kw = crate::game::model::targeting::first_keyword(&o.keywords);
        let n = seen.iter().filter(|(k, _)| crate::game::model::targeting::is_name(&kw, k)).map(|(_, c)| c).sum::<usize>() + 1;
        match seen.iter_mut().find(|(k, _)| *k == o.keywords) {
            Some((_, c)) => *c += 1,
            None => seen.push((&o.keywords, 1)),
        }
        out.push(ItemVar {
            name: o.short_descr.clone(),
            vnum: o.vnum,
            instance_id: obj_instance_id(o.vnum, o.id),
            target_string: if n == 1 { kw } else { format!("{n}.{kw}") },
            id: o.id,
            keywords_hash: keywords_hash(&o.keywords),
        });
    }
    out
}

fn keywords_hash(k: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(k)
}

/// Whether `prev` is still what `item_vars(world, ids)` would make: the same objects,
/// in order, with the same names and keywords (reading them costs no allocation, and
/// most players' belongings do not change from one pulse to the next).
fn same_items(world: &World, ids: &[u64], prev: &[ItemVar]) -> bool {
    let mut n = 0;
    for o in ids.iter().filter_map(|i| world.objs.get(i)) {
        let Some(p) = prev.get(n) else { return false };
        if p.id != o.id || p.vnum != o.vnum || p.name != o.short_descr || p.keywords_hash != keywords_hash(&o.keywords) {
            return false;
        }
        n += 1;
    }
    n == prev.len()
}

fn equipment_vars(world: &World, ch: &Char) -> Vec<(usize, EquipVar)> {
    ch.equipment
        .iter()
        .enumerate()
        .filter_map(|(slot, o)| {
            let o = world.objs.get(o.as_ref()?)?;
            Some((slot, EquipVar { name: o.short_descr.clone(), vnum: o.vnum, instance_id: obj_instance_id(o.vnum, o.id), id: o.id }))
        })
        .collect()
}

/// Whether `prev` is still what `equipment_vars` would make.
fn same_equipment(world: &World, ch: &Char, prev: &[(usize, EquipVar)]) -> bool {
    let mut n = 0;
    for (slot, o) in ch.equipment.iter().enumerate() {
        let Some(o) = o.as_ref().and_then(|o| world.objs.get(o)) else { continue };
        let Some((s, p)) = prev.get(n) else { return false };
        if *s != slot || p.id != o.id || p.vnum != o.vnum || p.name != o.short_descr {
            return false;
        }
        n += 1;
    }
    n == prev.len()
}

pub fn room_vars(world: &World, room_id: usize, prev: Option<&RoomVars>) -> RoomVars {
    let room = &world.rooms[room_id];
    // Each mob's target string counts who answers to its keyword before it in the room
    // (everyone: that is how `kill 2.rat` is read), through the occupants' signatures, so
    // a crowd of players is not read for it.
    let room_mobs = room
        .npcs
        .iter()
        .filter_map(|m| world.chars.get(m))
        .map(|c| RoomMobVar {
            name: c.name.to_string(),
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
        room_items: match prev {
            Some(p) if same_items(world, &room.contents, &p.room_items) => p.room_items.clone(),
            _ => Arc::new(item_vars(world, &room.contents)),
        },
    }
}

/// What to type to target `c`, an occupant of `room`: its first keyword, numbered by
/// the occupants before it who answer to it too (`targeting::target_string`'s rule).
fn occupant_target(world: &World, room: &crate::game::model::world::Room, c: &Char) -> String {
    let kw = crate::game::model::targeting::first_keyword(&c.keywords);
    let q = crate::game::model::targeting::query_sig(&kw);
    let mut n = 1;
    for (p, sig) in room.people.iter().zip(&room.sigs) {
        if *p == c.id {
            break;
        }
        if sig & q == q && world.chars.get(p).is_some_and(|o| crate::game::model::targeting::is_name(&kw, &o.keywords)) {
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
    compute_cached(world, ch, &mut RoomCache::new(), &RoomCache::new(), VarSet::ALL, None)
}

/// The variables in `subs` (the others are left empty, and are never compared).
/// Room variables come from `cache`, built once per room per flush; a room whose
/// variables equal last flush's (`prev`) reuses that value, so comparing it for each
/// occupant is a pointer check. Belongings equal to `last`'s (what the session was last
/// sent) are `last`'s values, shared rather than made again.
pub fn compute_cached(
    world: &World,
    ch: &Char,
    cache: &mut RoomCache,
    prev: &RoomCache,
    subs: VarSet,
    last: Option<&VarValues>,
) -> VarValues {
    let room = if (10..=14).any(|i| subs.contains(i)) {
        cache
            .entry(ch.room)
            .or_insert_with(|| {
                let fresh = room_vars(world, ch.room, prev.get(&ch.room).map(|p| &**p));
                match prev.get(&ch.room) {
                    Some(old) if **old == fresh => old.clone(),
                    _ => Arc::new(fresh),
                }
            })
            .clone()
    } else {
        empty_room()
    };
    let equipment = match last {
        _ if !subs.contains(17) => NO_EQUIPMENT.with(Arc::clone),
        Some(l) if same_equipment(world, ch, &l.equipment) => l.equipment.clone(),
        _ => Arc::new(equipment_vars(world, ch)),
    };
    let inventory = match last {
        _ if !subs.contains(16) => NO_ITEMS.with(Arc::clone),
        Some(l) if same_items(world, &ch.inventory, &l.inventory) => l.inventory.clone(),
        _ => Arc::new(item_vars(world, &ch.inventory)),
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
        inventory,
        equipment,
    }
}

thread_local! {
    static NO_ITEMS: Arc<Vec<ItemVar>> = Arc::new(Vec::new());
    static NO_EQUIPMENT: Arc<Vec<(usize, EquipVar)>> = Arc::new(Vec::new());
}

fn empty_room() -> Arc<RoomVars> {
    thread_local! {
        static EMPTY: Arc<RoomVars> = Arc::new(RoomVars { room_vnum: 0, room_name: String::new(), room_exits: Vec::new(), room_mobs: Vec::new(), room_items: Arc::new(Vec::new()) });
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
            for (slot, e) in v.equipment.iter() {
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
        16 => !Arc::ptr_eq(&a.inventory, &b.inventory) && a.inventory != b.inventory,
        17 => !Arc::ptr_eq(&a.equipment, &b.equipment) && a.equipment != b.equipment,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_var_is_its_own_place_and_name() {
        for (i, v) in super::Var::ALL.into_iter().enumerate() {
            assert_eq!(v as usize, i);
            assert_eq!(super::Var::named(&v.name().to_lowercase()), Some(v));
        }
        assert_eq!(super::Var::named("HEALTH_MAX"), None, "MSDP's name is the client's, not ours");
    }

    use super::*;

    #[test]
    fn parse_reports_unknown_names_and_star() {
        let (set, unknown) = VarSet::parse(&["HEALTH".into(), "bogus".into(), "fighting".into()]);
        assert!(set.contains(0) && set.contains(15) && !set.contains(1));
        assert_eq!(unknown, vec!["bogus".to_string()]);
        assert_eq!(VarSet::parse(&["*".into()]).0, VarSet::ALL);
        assert_eq!(VAR_NAMES.len(), 19);
    }

    /// Belongings unchanged since the last flush are the last values, shared (no new
    /// strings per player per pulse); any change to what is carried, worn, or to a
    /// carried object's name or keywords makes new ones.
    #[test]
    fn unchanged_belongings_are_shared_and_changes_are_seen() {
        let proto = crate::worldfile::load(&crate::worldfile::StarterWorld).unwrap().world;
        let mob_vnum = proto.mobs[0].vnum;
        let mut objs = proto.objs.iter().map(|o| o.vnum);
        let (a, b) = (objs.next().unwrap(), objs.next().unwrap());
        let mut w = World::new(proto);
        let ch = w.create_mob(mob_vnum, 0, &mut |lo, _| lo).unwrap();
        let o1 = w.create_obj(a).unwrap();
        w.obj_to_char(o1, ch);
        let fresh = |w: &World, last: Option<&VarValues>| {
            compute_cached(w, w.ch(ch).unwrap(), &mut RoomCache::new(), &RoomCache::new(), VarSet::ALL, last)
        };
        let first = fresh(&w, None);
        assert_eq!(first.inventory.len(), 1);
        let again = fresh(&w, Some(&first));
        assert!(Arc::ptr_eq(&first.inventory, &again.inventory) && Arc::ptr_eq(&first.equipment, &again.equipment));
        assert!(!differs(&first, &again, 16) && !differs(&first, &again, 17));

        // A renamed object is a new value, and equal to what a fresh computation makes.
        w.objs.get_mut(&o1).unwrap().short_descr = "a renamed thing".into();
        let renamed = fresh(&w, Some(&again));
        assert!(differs(&again, &renamed, 16));
        assert_eq!(renamed, fresh(&w, None));
        // So are new keywords (the target string is made of them).
        w.objs.get_mut(&o1).unwrap().keywords = "zzz".into();
        let rekeyed = fresh(&w, Some(&renamed));
        assert!(!Arc::ptr_eq(&renamed.inventory, &rekeyed.inventory));
        assert_eq!(rekeyed.inventory[0].target_string, "zzz");
        // A second object, then wearing the first: both lists change.
        let o2 = w.create_obj(b).unwrap();
        w.obj_to_char(o2, ch);
        let two = fresh(&w, Some(&rekeyed));
        assert_eq!(two.inventory.len(), 2);
        w.equip(o1, ch, 5);
        let worn = fresh(&w, Some(&two));
        assert!(differs(&two, &worn, 16) && differs(&two, &worn, 17));
        assert_eq!(worn, fresh(&w, None));
        assert!(Arc::ptr_eq(&worn.equipment, &fresh(&w, Some(&worn)).equipment));
    }

    /// A floor that has not changed is the last flush's list, shared; any object
    /// dropped makes a new one, equal to a fresh computation.
    #[test]
    fn an_unchanged_floor_is_shared() {
        let proto = crate::worldfile::load(&crate::worldfile::StarterWorld).unwrap().world;
        let vnums: Vec<u32> = proto.objs.iter().map(|o| o.vnum).take(3).collect();
        let mut w = World::new(proto);
        for v in &vnums {
            let o = w.create_obj(*v).unwrap();
            w.obj_to_room(o, 0);
        }
        let first = room_vars(&w, 0, None);
        let again = room_vars(&w, 0, Some(&first));
        assert!(Arc::ptr_eq(&first.room_items, &again.room_items));
        let o = w.create_obj(vnums[0]).unwrap();
        w.obj_to_room(o, 0);
        let more = room_vars(&w, 0, Some(&again));
        assert!(!Arc::ptr_eq(&again.room_items, &more.room_items));
        assert_eq!(more, room_vars(&w, 0, None));
    }

    proptest::proptest! {
        /// Items are numbered as `targeting::target_string` numbers them, however their
        /// keywords repeat and prefix one another.
        #[test]
        fn item_numbers_follow_the_targeting_rule(kws in proptest::collection::vec("(the |a )?(rat|ra|rats|corpse|cor|sword|a)( rat| corpse| x)?", 0..40)) {
            let proto = crate::worldfile::load(&crate::worldfile::StarterWorld).unwrap().world;
            let vnum = proto.objs[0].vnum;
            let mut w = World::new(proto);
            let ids: Vec<u64> = kws.iter().map(|k| {
                let o = w.create_obj(vnum).unwrap();
                w.objs.get_mut(&o).unwrap().keywords = k.clone();
                o
            }).collect();
            let refs: Vec<&str> = kws.iter().map(String::as_str).collect();
            let got: Vec<String> = item_vars(&w, &ids).into_iter().map(|v| v.target_string).collect();
            let want: Vec<String> = (0..refs.len()).map(|i| crate::game::model::targeting::target_string(&refs, i)).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}

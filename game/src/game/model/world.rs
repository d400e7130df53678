//! The live world: rooms with their occupants, and every character and object in play.
//!
//! Owned by the engine task alone; nothing here locks. Characters and objects get ids
//! from one counter that never repeats, so `instance_id`s stay stable for their life.

use std::collections::HashMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::game::model::character::Char;
use crate::game::model::tables::{item_type, Position, NUM_WEARS};
use crate::worldfile::{MobProto, ObjProto, RoomProto, ShopProto, WorldProto, ZoneProto};

pub type CharId = u64;
pub type ObjId = u64;
pub type RoomId = usize;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DoorState {
    pub closed: bool,
    pub locked: bool,
    /// A secret door someone found with `search` (hidden again when a reset closes it).
    pub revealed: bool,
}

pub struct Room {
    pub proto: RoomProto,
    /// Characters here, newest arrival first (CircleMUD order). Changed only by
    /// `char_to_room` and `char_from_room`, which keep `sigs`, `npcs` and `pcs` with it.
    pub people: Vec<CharId>,
    /// Beside `people`, index for index: what each occupant can answer to
    /// (`targeting::name_sig`, and whether it is a mob), so a search through a crowd
    /// reads one small array instead of every character in it.
    pub sigs: Vec<u64>,
    /// The mobs here, in `people`'s order.
    pub npcs: Vec<CharId>,
    /// Players here.
    pub pcs: usize,
    pub contents: Vec<ObjId>,
    pub doors: [DoorState; 6],
    /// Mobs here with a procedure or a script (a command's `special()` pass looks at
    /// the people only where there are some).
    pub behaving: u32,
    /// The name and the description (trimmed) as `state` shows them, made once and
    /// shared by every look (room texts never change while the server runs).
    pub state_name: Arc<str>,
    pub state_description: Arc<str>,
    /// The name and description with their builder's colours (tbaMUD's codes as colour
    /// marks), when they had any.
    pub coloured: Option<Box<(String, String)>>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ObjLoc {
    Nowhere,
    Room(RoomId),
    Carried(CharId),
    Worn(CharId, usize),
    In(ObjId),
}

#[derive(Debug, Clone)]
pub struct Obj {
    pub id: ObjId,
    pub vnum: u32,
    pub keywords: String,
    pub short_descr: Arc<str>,
    pub long_descr: String,
    pub item_type: u32,
    pub wear_flags: u64,
    pub extra_flags: u64,
    pub values: [i32; 4],
    pub weight: i32,
    pub cost: i32,
    pub affects: Vec<(i32, i32)>,
    pub loc: ObjLoc,
    pub contains: Vec<ObjId>,
    /// Pulses until it crumbles (corpses).
    pub timer: Option<u32>,
    /// Level of the thing (the corpse's owner level, or derived from cost): memory uses it.
    pub level: u8,
}

pub struct ZoneRt {
    pub proto: ZoneProto,
    /// Pulses since the last reset.
    pub age: u64,
}

pub struct World {
    /// The world has food in it, so players get hungry and thirsty.
    pub uses_food: bool,
    /// The sun is set or down (mud hours 21 to 4): outdoor rooms of the classic worlds
    /// are dark without a light. The engine sets it as the hours turn.
    pub night: bool,
    /// Shipped socials merged with the world's own, by name.
    pub socials: Vec<crate::worldfile::social::SocialProto>,
    /// What the world says about itself: welcome, respawn texts (and start room, kit).
    pub profile: crate::worldfile::profile::WorldProfile,
    pub rooms: Vec<Room>,
    pub room_index: HashMap<u32, RoomId>,
    pub mob_protos: HashMap<u32, MobProto>,
    /// Mob vnum → the special procedure it runs (from the world's `specials.tsv`, only
    /// those this server implements: `game/specials`).
    pub mob_specials: HashMap<u32, String>,
    /// Mob vnums with a special procedure or a script: their mobs are `behaves`.
    pub behaving_vnums: std::collections::HashSet<u32>,
    /// Object vnum → its special procedure (boards, banks, moon gates…).
    pub obj_specials: HashMap<u32, String>,
    /// Room vnum → its special procedure.
    pub room_specials: HashMap<u32, String>,
    pub obj_protos: HashMap<u32, ObjProto>,
    pub zones: Vec<ZoneRt>,
    pub shops: Vec<ShopProto>,
    /// Each shopkeeper's vnum and whether every shop it keeps fights back (a shop's
    /// bitvector bit 1, `WILL_START_FIGHT`): read on every blow (`protection.rs`).
    pub keepers: FxHashMap<u32, bool>,
    /// Fx-hashed: ids are ours (not attacker-chosen), and these maps are read on every hot path.
    pub chars: FxHashMap<CharId, Char>,
    pub objs: FxHashMap<ObjId, Obj>,
    /// Live instances per vnum (zone max counts are world-wide).
    pub mob_count: HashMap<u32, u32>,
    pub obj_count: HashMap<u32, u32>,
    /// Lower-case name → player character in the world (connected or link-dead).
    /// Lower-cased name → the player. Fx-hashed: iterated in the same order every run
    /// given the same logins, so a replay acts in the same order (`replay`).
    pub players: FxHashMap<String, CharId>,
    /// Who is fighting each character (CircleMUD's combat list, turned around): a flight,
    /// a death or a departure stops its attackers by reading this, not every character in
    /// the world (at 10,000 agents each flight read 60,000). Kept by `set_fighting`,
    /// `clear_fighting` and `extract_char`, the only writers of `Char::fighting`.
    attackers: FxHashMap<CharId, Vec<CharId>>,
    /// Mobs and objects by their pulse of the 4-second beat (`turn_slots.rs`), kept by
    /// `create_mob` and `extract_char`, `create_obj`, `insert_obj` and `extract_obj`, the
    /// only ways in and out of `chars` (for mobs) and `objs`.
    mob_turns: crate::game::model::turn_slots::TurnSlots,
    obj_turns: crate::game::model::turn_slots::TurnSlots,
    /// Players the pulse has something to do for: a command queued, or a wait state
    /// to count down (`Engine::dispatch_queued`), so that a pulse does not read every
    /// player to find them. Joined by `Engine::handle_command`'s queueing and by
    /// `set_wait`, the only ways to either; left by the pulse that finds neither.
    pub waiting: std::collections::BTreeSet<CharId>,
    /// Characters with spell effects counting down (`Engine::affect_update`, every
    /// second, and poison's every mud hour read these, not every character). Joined by
    /// `Engine::add_affect`, the only way an effect starts; left when the last wears off.
    pub affected: std::collections::BTreeSet<CharId>,
    next_id: u64,
}

impl World {
    pub fn new(proto: WorldProto) -> World {
        let mut room_index = HashMap::new();
        let rooms: Vec<Room> = proto
            .rooms
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| {
                room_index.insert(r.vnum, i);
                // A world imported before the reader knew that a file's 2 is a pickproof
                // *door* (`wld.rs`) has the bare 2 stored: it is one.
                for e in r.exits.iter_mut().flatten() {
                    if e.door_flags == 2 {
                        e.door_flags = 1 | 2;
                    }
                }
                let mut doors = [DoorState::default(); 6];
                for (d, e) in r.exits.iter().enumerate() {
                    if let Some(e) = e {
                        if e.door_flags & 1 != 0 {
                            doors[d] = DoorState { closed: true, locked: false, revealed: false };
                        }
                    }
                }
                let (state_name, state_description) = (r.name.as_str().into(), r.description.trim_end().into());
                Room {
                    proto: r,
                    people: Vec::new(),
                    sigs: Vec::new(),
                    npcs: Vec::new(),
                    pcs: 0,
                    contents: Vec::new(),
                    doors,
                    behaving: 0,
                    state_name,
                    state_description,
                    coloured: None,
                }
            })
            .collect();
        let uses_food = proto.objs.iter().any(|o| o.item_type == crate::game::model::tables::item_type::FOOD);
        let specials_of = |kind: crate::worldfile::specials::SpecialKind| -> HashMap<u32, String> {
            proto
                .specials
                .iter()
                .filter(|a| a.kind == kind && crate::worldfile::specials::SUPPORTED.contains(&a.special.as_str()))
                .map(|a| (a.vnum, a.special.clone()))
                .collect()
        };
        let mob_specials = specials_of(crate::worldfile::specials::SpecialKind::Mob);
        let obj_specials = specials_of(crate::worldfile::specials::SpecialKind::Obj);
        let room_specials = specials_of(crate::worldfile::specials::SpecialKind::Room);
        World {
            rooms,
            room_index,
            uses_food,
            night: false,
            socials: crate::worldfile::social::merged(&proto.socials),
            profile: proto.profile,
            mob_protos: proto.mobs.into_iter().map(|m| (m.vnum, m)).collect(),
            behaving_vnums: mob_specials.keys().copied().collect(),
            mob_specials,
            obj_specials,
            room_specials,
            obj_protos: proto.objs.into_iter().map(|o| (o.vnum, o)).collect(),
            zones: proto.zones.into_iter().map(|z| ZoneRt { proto: z, age: 0 }).collect(),
            keepers: {
                let mut k: FxHashMap<u32, bool> = FxHashMap::default();
                for s in proto.shops.iter().filter(|s| s.keeper >= 0) {
                    let fights = k.entry(s.keeper as u32).or_insert(true);
                    *fights &= s.bitvector & 1 != 0;
                }
                k
            },
            shops: proto.shops,
            chars: FxHashMap::default(),
            attackers: FxHashMap::default(),
            objs: FxHashMap::default(),
            mob_count: HashMap::new(),
            obj_count: HashMap::new(),
            players: FxHashMap::default(),
            mob_turns: Default::default(),
            obj_turns: Default::default(),
            waiting: Default::default(),
            affected: Default::default(),
            next_id: 1,
        }
    }

    /// The mobs whose turn falls in `pulse` (of the 4-second beat), in id order.
    pub fn mobs_due(&self, pulse: u64) -> &[CharId] {
        self.mob_turns.due(pulse)
    }

    /// Every mob, in turn order.
    pub fn mob_ids(&self) -> impl Iterator<Item = CharId> + '_ {
        self.mob_turns.all()
    }

    /// The objects whose turn falls in `pulse`, in id order.
    pub fn objs_due(&self, pulse: u64) -> &[ObjId] {
        self.obj_turns.due(pulse)
    }

    /// A character's wait state (pulses before its next command runs): `at_least` keeps
    /// a longer one. The only writer of `Char::wait` for players, so that the pulse
    /// counts it down (`waiting`).
    pub fn set_wait(&mut self, id: CharId, pulses: u32, at_least: bool) {
        let Some(c) = self.chars.get_mut(&id) else { return };
        c.wait = if at_least { c.wait.max(pulses) } else { pulses };
        if c.wait > 0 && c.pc.is_some() {
            self.waiting.insert(id);
        }
    }

    pub fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub fn room_of_vnum(&self, vnum: u32) -> Option<RoomId> {
        self.room_index.get(&vnum).copied()
    }

    /// Where an exit leads if it can be walked through now (it exists, its door is open,
    /// its room exists).
    pub fn passable(&self, room: RoomId, dir: usize) -> Option<RoomId> {
        let r = &self.rooms[room];
        let exit = r.proto.exits.get(dir)?.as_ref()?;
        if r.doors[dir].closed {
            return None;
        }
        self.room_of_vnum(exit.to_room as u32)
    }

    /// CircleMUD's `IS_DARK`: a room flagged DARK (`a`), or a classic world's outdoor
    /// room at night, is dark unless someone here holds a burning light (a light's third
    /// value is its hours, 0 burnt out).
    pub fn is_dark(&self, room: RoomId) -> bool {
        let r = &self.rooms[room];
        // Out of doors at night in Dark Pawns and tbaMUD (not inside, not in a city).
        let classic = self.profile.family != crate::worldfile::profile::Family::Circle;
        let night_out =
            classic && self.night && r.proto.sector > 1 && r.proto.flags[0] & crate::game::model::tables::room_flag::INDOORS == 0;
        (r.proto.flags[0] & 1 != 0 || night_out)
            && !r.people.iter().filter_map(|p| self.ch(*p)).any(|c| {
                c.equipment[0]
                    .and_then(|o| self.obj(o))
                    .is_some_and(|o| o.item_type == crate::game::model::tables::item_type::LIGHT && o.values[2] != 0)
            })
    }

    /// Whether `id` sees in the dark (a mob born with infravision).
    pub fn sees_in_dark(&self, id: CharId) -> bool {
        self.ch(id).and_then(|c| c.npc_vnum).and_then(|v| self.mob_protos.get(&v)).is_some_and(|p| p.affect_flags[0] & (1 << 10) != 0)
    }

    pub fn zone_of_room(&self, room: RoomId) -> u32 {
        self.rooms[room].proto.zone
    }

    // ---- characters ----

    pub fn ch(&self, id: CharId) -> Option<&Char> {
        self.chars.get(&id)
    }

    pub fn char_to_room(&mut self, id: CharId, room: RoomId) {
        if let Some(c) = self.chars.get_mut(&id) {
            c.room = room;
            let r = &mut self.rooms[room];
            r.people.insert(0, id);
            r.sigs.insert(0, crate::game::model::targeting::occupant_sig(&c.keywords, c.is_npc()));
            if c.is_npc() {
                r.npcs.insert(0, id);
            } else {
                r.pcs += 1;
            }
            if c.behaves {
                r.behaving += 1;
            }
        }
    }

    /// The mobs in `room` with a procedure, a script or triggers, but `except`
    /// (nothing to scan where there are none: a crowd of players costs nothing).
    pub fn behaving_in(&self, room: RoomId, except: CharId) -> Vec<CharId> {
        if self.rooms[room].behaving == 0 {
            return Vec::new();
        }
        self.rooms[room].people.iter().copied().filter(|p| *p != except && self.ch(*p).is_some_and(|c| c.behaves)).collect()
    }

    pub fn char_from_room(&mut self, id: CharId) {
        if let Some(c) = self.chars.get(&id) {
            let r = &mut self.rooms[c.room];
            let Some(at) = r.people.iter().position(|p| *p == id) else { return };
            r.people.remove(at);
            r.sigs.remove(at);
            if c.is_npc() {
                r.npcs.retain(|p| *p != id);
            } else {
                r.pcs = r.pcs.saturating_sub(1);
            }
            if c.behaves {
                r.behaving = r.behaving.saturating_sub(1);
            }
        }
    }

    pub fn move_char(&mut self, id: CharId, room: RoomId) {
        self.char_from_room(id);
        self.char_to_room(id, room);
    }

    /// Creates a mob from its prototype in a room.
    pub fn create_mob(&mut self, vnum: u32, room: RoomId, roll: &mut impl FnMut(i32, i32) -> i32) -> Option<CharId> {
        let proto = self.mob_protos.get(&vnum)?;
        let id = self.next_id;
        let mut ch = Char::from_mob(id, proto, room, roll);
        ch.behaves = self.behaving_vnums.contains(&vnum);
        self.next_id += 1;
        self.chars.insert(id, ch);
        self.mob_turns.insert(id);
        self.char_to_room(id, room);
        *self.mob_count.entry(vnum).or_default() += 1;
        Some(id)
    }

    /// Removes a character and everything it carries from the world.
    pub fn extract_char(&mut self, id: CharId) {
        self.char_from_room(id);
        let Some(c) = self.chars.remove(&id) else {
            return;
        };
        for o in c.inventory.iter().copied().chain(c.equipment.iter().flatten().copied()) {
            self.extract_obj(o);
        }
        if let Some(v) = c.npc_vnum {
            self.mob_turns.remove(id);
            if let Some(n) = self.mob_count.get_mut(&v) {
                *n = n.saturating_sub(1);
            }
        } else {
            self.players.remove(&c.name.to_ascii_lowercase());
        }
        // It leaves its leader, and its followers are on their own.
        if let Some(m) = c.master.and_then(|m| self.chars.get_mut(&m)) {
            m.followers.retain(|f| *f != id);
        }
        for f in &c.followers {
            if let Some(fc) = self.chars.get_mut(f) {
                fc.master = None;
                fc.grouped = false;
                fc.affects.retain(|a| a.kind != crate::game::rules::spells::AffectKind::Charm);
            }
        }
        // Anyone fighting it stops.
        if let Some(t) = c.fighting {
            self.forget_attacker(t, id);
        }
        for a in self.attackers.remove(&id).unwrap_or_default() {
            if let Some(other) = self.chars.get_mut(&a) {
                other.fighting = None;
                if other.position == Position::Fighting {
                    other.position = Position::Standing;
                }
            }
        }
    }

    // ---- fights ----

    /// `a` starts fighting `b` (it fought no one).
    pub fn set_fighting(&mut self, a: CharId, b: CharId) {
        let Some(c) = self.chars.get_mut(&a) else { return };
        if let Some(old) = c.fighting.replace(b) {
            self.forget_attacker(old, a);
        }
        self.attackers.entry(b).or_default().push(a);
    }

    /// `a` stops fighting; returns whom it fought.
    pub fn clear_fighting(&mut self, a: CharId) -> Option<CharId> {
        let t = self.chars.get_mut(&a)?.fighting.take()?;
        self.forget_attacker(t, a);
        Some(t)
    }

    fn forget_attacker(&mut self, target: CharId, a: CharId) {
        if let Some(list) = self.attackers.get_mut(&target) {
            list.retain(|x| *x != a);
            if list.is_empty() {
                self.attackers.remove(&target);
            }
        }
    }

    /// Everyone fighting `id`.
    pub fn attackers_of(&self, id: CharId) -> Vec<CharId> {
        self.attackers.get(&id).cloned().unwrap_or_default()
    }

    /// Everyone fighting anyone, in id order: the combat round's list, from the index
    /// rather than from every character in the world.
    pub fn fighters(&self) -> Vec<CharId> {
        let mut all: Vec<CharId> = self.attackers.values().flatten().copied().collect();
        all.sort_unstable();
        all
    }

    /// Whether the index of attackers says what the characters say (checked by debug
    /// builds at every combat round).
    #[cfg(any(test, debug_assertions))]
    pub fn attackers_consistent(&self) -> bool {
        let mut want: FxHashMap<CharId, Vec<CharId>> = FxHashMap::default();
        for c in self.chars.values() {
            if let Some(t) = c.fighting {
                want.entry(t).or_default().push(c.id);
            }
        }
        let sorted = |m: &FxHashMap<CharId, Vec<CharId>>| {
            let mut v: Vec<(CharId, Vec<CharId>)> = m.iter().map(|(k, l)| (*k, l.clone())).collect();
            v.iter_mut().for_each(|(_, l)| l.sort_unstable());
            v.sort_unstable();
            v
        };
        sorted(&want) == sorted(&self.attackers)
    }

    // ---- objects ----

    pub fn obj(&self, id: ObjId) -> Option<&Obj> {
        self.objs.get(&id)
    }

    pub fn create_obj(&mut self, vnum: u32) -> Option<ObjId> {
        let p = self.obj_protos.get(&vnum)?;
        let id = self.next_id;
        let obj = Obj {
            id,
            vnum,
            keywords: p.keywords.clone(),
            short_descr: p.short_descr.as_str().into(),
            long_descr: p.long_descr.clone(),
            item_type: p.item_type,
            wear_flags: p.wear_flags[0],
            extra_flags: p.extra_flags[0],
            values: p.values,
            weight: p.weight,
            cost: p.cost,
            affects: p.affects.clone(),
            loc: ObjLoc::Nowhere,
            contains: Vec::new(),
            timer: None,
            level: obj_level(p),
        };
        self.next_id += 1;
        self.objs.insert(id, obj);
        self.obj_turns.insert(id);
        *self.obj_count.entry(vnum).or_default() += 1;
        Some(id)
    }

    /// Inserts an object that was built by hand (a corpse, a pile of coins).
    pub fn insert_obj(&mut self, mut obj: Obj) -> ObjId {
        let id = self.new_id();
        obj.id = id;
        obj.loc = ObjLoc::Nowhere;
        self.objs.insert(id, obj);
        self.obj_turns.insert(id);
        id
    }

    /// Takes an object out of wherever it is.
    pub fn obj_from(&mut self, id: ObjId) {
        let Some(loc) = self.objs.get(&id).map(|o| o.loc) else {
            return;
        };
        match loc {
            ObjLoc::Room(r) => self.rooms[r].contents.retain(|o| *o != id),
            ObjLoc::Carried(c) => {
                if let Some(ch) = self.chars.get_mut(&c) {
                    ch.inventory.retain(|o| *o != id)
                }
            }
            ObjLoc::Worn(c, slot) => {
                if let Some(ch) = self.chars.get_mut(&c) {
                    ch.equipment[slot] = None;
                }
                self.take_name(id, None);
            }
            ObjLoc::In(p) => {
                if let Some(parent) = self.objs.get_mut(&p) {
                    parent.contains.retain(|o| *o != id)
                }
            }
            ObjLoc::Nowhere => {}
        }
        if let Some(o) = self.objs.get_mut(&id) {
            o.loc = ObjLoc::Nowhere;
        }
    }

    pub fn obj_to_room(&mut self, id: ObjId, room: RoomId) {
        self.obj_from(id);
        self.rooms[room].contents.insert(0, id);
        if let Some(o) = self.objs.get_mut(&id) {
            o.loc = ObjLoc::Room(room);
        }
    }

    pub fn obj_to_char(&mut self, id: ObjId, ch: CharId) {
        self.obj_from(id);
        if let Some(c) = self.chars.get_mut(&ch) {
            c.inventory.insert(0, id);
        }
        if let Some(o) = self.objs.get_mut(&id) {
            o.loc = ObjLoc::Carried(ch);
        }
    }

    pub fn obj_to_obj(&mut self, id: ObjId, container: ObjId) {
        self.obj_from(id);
        if let Some(c) = self.objs.get_mut(&container) {
            c.contains.insert(0, id);
        }
        if let Some(o) = self.objs.get_mut(&id) {
            o.loc = ObjLoc::In(container);
        }
    }

    pub fn equip(&mut self, id: ObjId, ch: CharId, slot: usize) {
        if slot >= NUM_WEARS {
            return;
        }
        self.obj_from(id);
        if let Some(c) = self.chars.get_mut(&ch) {
            c.equipment[slot] = Some(id);
        }
        if let Some(o) = self.objs.get_mut(&id) {
            o.loc = ObjLoc::Worn(ch, slot);
        }
        self.take_name(id, Some(ch));
    }

    /// Dark Pawns's ITEM_TAKE_NAME (extra flag bit 17): worn, a thing is its wearer's
    /// ("Bob's tunic", from its keywords); taken off, "a tunic" again.
    fn take_name(&mut self, id: ObjId, wearer: Option<CharId>) {
        if self.profile.family != crate::worldfile::profile::Family::DarkPawns {
            return;
        }
        let owner = wearer.and_then(|c| self.chars.get(&c)).filter(|c| c.pc.is_some()).map(|c| c.name.to_string());
        let Some(o) = self.objs.get_mut(&id) else { return };
        if o.extra_flags & (1 << 17) == 0 {
            return;
        }
        let name = o.keywords.clone();
        o.short_descr = match owner {
            Some(who) => format!("{who}'s {name}").into(),
            None if wearer.is_none() => {
                let an = if name.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) { "an" } else { "a" };
                format!("{an} {name}").into()
            }
            None => return,
        };
    }

    /// Destroys an object and its contents.
    pub fn extract_obj(&mut self, id: ObjId) {
        self.obj_from(id);
        if let Some(o) = self.objs.remove(&id) {
            self.obj_turns.remove(id);
            for c in o.contains {
                if let Some(child) = self.objs.get_mut(&c) {
                    child.loc = ObjLoc::Nowhere;
                }
                self.extract_obj(c);
            }
            if let Some(n) = self.obj_count.get_mut(&o.vnum) {
                *n = n.saturating_sub(1);
            }
        }
    }

    /// Total weight carried in inventory (with contents).
    pub fn carried_weight(&self, ch: CharId) -> i32 {
        self.chars.get(&ch).map(|c| c.inventory.iter().map(|o| self.obj_weight(*o)).sum()).unwrap_or(0)
    }

    pub fn obj_weight(&self, id: ObjId) -> i32 {
        self.objs.get(&id).map(|o| o.weight + o.contains.iter().map(|c| self.obj_weight(*c)).sum::<i32>()).unwrap_or(0)
    }

    pub fn is_money(&self, id: ObjId) -> bool {
        self.objs.get(&id).map(|o| o.item_type == item_type::MONEY).unwrap_or(false)
    }
}

/// A rough item level for memory: the level an item's price suggests, capped at 100.
pub fn obj_level(p: &ObjProto) -> u8 {
    let by_cost = ((p.cost.max(0) as f64).sqrt() / 3.0) as i64;
    by_cost.clamp(0, 100) as u8
}

//! What a DG script's variables and commands mean in this world: `%actor.name%`,
//! `%self.room%`, `%random.char%`…, and `%send%`, `%echo%`, `%force%`, `%load%`,
//! `%purge%`, `%teleport%`, `%damage%`, `%door%`… (a mob's other lines are its own
//! commands, through the dispatcher). Entities are named by uids: `\u{1f}c12` a
//! character, `\u{1f}o34` an object, `\u{1f}r3001` a room (by vnum).

use crate::dg::program::Host;
use crate::dg::subst::Vars;
use crate::dg::Attach;
use crate::game::model::tables::{class_name, Position};
use crate::game::model::world::{CharId, ObjId, ObjLoc, RoomId};
use crate::game::run::engine::Engine;
use crate::game::scripting::dg_run::{DgCtx, Owner};
use crate::game::send::output::EventKind;
use crate::worldfile::DIR_NAMES;

pub fn char_uid(id: CharId) -> String {
    format!("\u{1f}c{id}")
}
pub fn obj_uid(id: ObjId) -> String {
    format!("\u{1f}o{id}")
}

/// The script commands (after their `m`/`o`/`w` prefix).
const SCRIPT_CMDS: &[&str] = &[
    "send",
    "echo",
    "echoaround",
    "zoneecho",
    "asound",
    "force",
    "load",
    "purge",
    "teleport",
    "damage",
    "door",
    "goto",
    "kill",
    "junk",
    "at",
    "timer",
    "follow",
    "transform",
];

pub struct DgHostCtx<'a> {
    pub e: &'a mut Engine,
    pub owner: Owner,
    pub attach: Attach,
    pub ctx: &'a DgCtx,
    /// The trigger running (its errors are noted against it).
    pub trig: u32,
    /// Where `%at%` sends one command.
    pub at: Option<RoomId>,
}

pub(super) enum Ent {
    Char(CharId),
    Obj(ObjId),
    Room(RoomId),
}

impl DgHostCtx<'_> {
    fn room_uid(&self, r: RoomId) -> String {
        format!("\u{1f}r{}", self.e.world.rooms[r].proto.vnum)
    }

    pub(super) fn owner_uid(&self) -> String {
        match self.owner {
            Owner::Mob(c) => char_uid(c),
            Owner::Obj(o) => obj_uid(o),
            Owner::Room(r) => self.room_uid(r),
        }
    }

    /// The room the script acts in.
    pub fn here(&self) -> Option<RoomId> {
        if self.at.is_some() {
            return self.at;
        }
        match self.owner {
            Owner::Mob(c) => self.e.world.ch(c).map(|c| c.room),
            Owner::Obj(o) => crate::game::scripting::lua::tables::obj_room(self.e, o),
            Owner::Room(r) => Some(r),
        }
    }

    pub(super) fn ent(&self, uid: &str) -> Option<Ent> {
        let rest = uid.trim().strip_prefix('\u{1f}')?;
        let (k, n) = rest.split_at(1);
        let n: u64 = n.parse().ok()?;
        match k {
            "c" => self.e.world.ch(n).map(|_| Ent::Char(n)),
            "o" => self.e.world.obj(n).map(|_| Ent::Obj(n)),
            "r" => self.e.world.room_of_vnum(n as u32).map(Ent::Room),
            _ => None,
        }
    }

    /// A character named by uid, `self`, a keyword here, or a player's name.
    pub(super) fn target_char(&self, s: &str) -> Option<CharId> {
        let s = s.trim();
        if let Some(Ent::Char(c)) = self.ent(s) {
            return Some(c);
        }
        if s.eq_ignore_ascii_case("self") {
            return match self.owner {
                Owner::Mob(c) => Some(c),
                _ => None,
            };
        }
        let room = self.here()?;
        let kw = s.to_ascii_lowercase();
        self.e.world.rooms[room]
            .people
            .iter()
            .copied()
            .find(|p| self.e.world.ch(*p).is_some_and(|c| crate::game::model::targeting::is_name(&kw, &c.keywords)))
            .or_else(|| self.e.find_player(&kw))
    }

    fn globals_of(&self, uid: &str) -> Option<&std::collections::BTreeMap<String, String>> {
        self.e.dg.globals.get(uid)
    }

    fn char_field(&mut self, c: CharId, field: &str, arg: Option<&str>) -> Option<String> {
        let ch = self.e.world.ch(c)?;
        let n = |v: i64| Some(v.to_string());
        match field {
            "name" => Some(ch.name.to_string()),
            "shortdesc" => Some(ch.name.to_string()),
            "alias" => Some(ch.keywords.clone()),
            "id" => Some(char_uid(c)),
            // `.vnum(N)`: whether it is mob N (a player never is); bare, its vnum.
            "vnum" => match arg.and_then(|a| a.trim().parse::<i64>().ok()) {
                Some(want) => n((ch.npc_vnum.map(|v| v as i64) == Some(want)) as i64),
                None => n(ch.npc_vnum.map(|v| v as i64).unwrap_or(-1)),
            },
            // The abilities; with an argument it is added (3 to 18, 25 for a mob).
            "str" | "int" | "wis" | "dex" | "con" | "cha" => {
                let i = ["str", "int", "wis", "dex", "con", "cha"].iter().position(|f| *f == field)?;
                let top = if ch.is_npc() { 25 } else { 18 };
                if let Some(add) = arg.and_then(|a| a.trim().parse::<i32>().ok()) {
                    let c = self.e.world.chars.get_mut(&c)?;
                    c.abilities[i] = (c.abilities[i] as i32 + add).clamp(3, top) as u8;
                    c.mark_dirty();
                }
                n(self.e.world.ch(c)?.abilities[i] as i64)
            }
            "level" => n(ch.level as i64),
            "class" => Some(if ch.class == 0 { "Magic User".to_string() } else { class_name(ch.class).to_string() }),
            "sex" => Some(["neutral", "male", "female"][(ch.sex as usize).min(2)].into()),
            "heshe" => Some(ch.he().into()),
            "hisher" => Some(ch.his().into()),
            "himher" => Some(
                match ch.sex {
                    1 => "him",
                    2 => "her",
                    _ => "it",
                }
                .into(),
            ),
            "hitp" => n(ch.hit as i64),
            "maxhitp" => n(ch.max_hit as i64),
            "mana" => n(ch.mana as i64),
            "maxmana" => n(ch.max_mana as i64),
            "move" => n(ch.moves as i64),
            "maxmove" => n(ch.max_moves as i64),
            "align" => n(ch.alignment as i64),
            "is_pc" => n(ch.pc.is_some() as i64),
            "is_killer" | "is_thief" => n(0),
            "canbeseen" => n(1),
            "pos" | "hunger" | "thirst" | "drunk" => self.char_state(c, field, arg),
            "room" => Some(self.room_uid(ch.room)),
            "fighting" => Some(ch.fighting.map(char_uid).unwrap_or_default()),
            "master" => Some(ch.master.map(char_uid).unwrap_or_default()),
            "next_in_room" => {
                let people = &self.e.world.rooms[ch.room].people;
                let i = people.iter().position(|p| *p == c)?;
                Some(people.get(i + 1).copied().map(char_uid).unwrap_or_default())
            }
            "gold" => {
                if let Some(add) = arg.and_then(|a| a.trim().parse::<i64>().ok()) {
                    let c = self.e.world.chars.get_mut(&c)?;
                    c.gold = (c.gold + add).max(0);
                    c.mark_dirty();
                }
                n(self.e.world.ch(c)?.gold)
            }
            "exp" => {
                if let Some(add) = arg.and_then(|a| a.trim().parse::<i64>().ok()) {
                    self.e.gain_exp(c, add);
                }
                n(self.e.world.ch(c)?.exp)
            }
            "varexists" => {
                let name = arg?.trim().to_string();
                n(self.globals_of(&char_uid(c)).is_some_and(|g| g.contains_key(&name)) as i64)
            }
            "inventory" | "has_item" => {
                let want: u32 = arg?.trim().parse().ok()?;
                let found = ch
                    .inventory
                    .iter()
                    .chain(ch.equipment.iter().flatten())
                    .copied()
                    .find(|o| self.e.world.obj(*o).is_some_and(|o| o.vnum == want));
                if field == "has_item" {
                    n(found.is_some() as i64)
                } else {
                    Some(found.map(obj_uid).unwrap_or_default())
                }
            }
            "eq" => {
                // tbaMUD: `*` answers whether anything is worn; a slot (every name
                // `%load%` takes, or its number) what is worn there.
                let slot = arg.unwrap_or("").trim();
                if slot == "*" {
                    return Some(if ch.equipment.iter().any(Option::is_some) { "1".into() } else { String::new() });
                }
                let found = crate::game::model::tables::script_slot(slot).and_then(|s| ch.equipment[s]);
                Some(found.map(obj_uid).unwrap_or_default())
            }
            other => self.globals_of(&char_uid(c)).and_then(|g| g.get(other).cloned()),
        }
    }

    fn obj_field(&self, o: ObjId, field: &str) -> Option<String> {
        let ob = self.e.world.obj(o)?;
        let n = |v: i64| Some(v.to_string());
        match field {
            "name" | "alias" => Some(ob.keywords.clone()),
            "shortdesc" => Some(ob.short_descr.to_string()),
            "id" => Some(obj_uid(o)),
            "vnum" => n(ob.vnum as i64),
            "cost" => n(ob.cost as i64),
            // tbaMUD names the type (`%object.type% == FOOD`).
            "type" => {
                Some(crate::game::model::tables::ITEM_TYPE_NAMES.get(ob.item_type as usize).copied().unwrap_or("UNDEFINED").to_string())
            }
            "weight" => n(ob.weight as i64),
            "timer" => n(ob.timer.unwrap_or(0) as i64),
            "val0" | "val1" | "val2" | "val3" => n(ob.values[field[3..].parse::<usize>().ok()?] as i64),
            "carried_by" => Some(match ob.loc {
                ObjLoc::Carried(c) => char_uid(c),
                _ => String::new(),
            }),
            "worn_by" => Some(match ob.loc {
                ObjLoc::Worn(c, _) => char_uid(c),
                _ => String::new(),
            }),
            "room" => crate::game::scripting::lua::tables::obj_room(self.e, o).map(|r| self.room_uid(r)),
            "contents" => Some(ob.contains.first().copied().map(obj_uid).unwrap_or_default()),
            "next_in_list" => {
                let list: &[ObjId] = match ob.loc {
                    ObjLoc::Room(r) => &self.e.world.rooms[r].contents,
                    ObjLoc::Carried(c) => &self.e.world.ch(c)?.inventory,
                    ObjLoc::In(p) => &self.e.world.obj(p)?.contains,
                    _ => &[],
                };
                let i = list.iter().position(|x| *x == o)?;
                Some(list.get(i + 1).copied().map(obj_uid).unwrap_or_default())
            }
            other => self.globals_of(&obj_uid(o)).and_then(|g| g.get(other).cloned()),
        }
    }

    fn room_field(&self, r: RoomId, field: &str) -> Option<String> {
        let room = &self.e.world.rooms[r];
        match field {
            "vnum" => Some(room.proto.vnum.to_string()),
            "name" => Some(room.proto.name.to_string()),
            "id" => Some(self.room_uid(r)),
            "people" => Some(room.people.first().copied().map(char_uid).unwrap_or_default()),
            "contents" => Some(room.contents.first().copied().map(obj_uid).unwrap_or_default()),
            d if DIR_NAMES.contains(&d) => {
                let dir = DIR_NAMES.iter().position(|x| *x == d)?;
                Some(self.e.world.passable(r, dir).map(|t| self.room_uid(t)).unwrap_or_default())
            }
            other => self.globals_of(&self.room_uid(r)).and_then(|g| g.get(other).cloned()),
        }
    }

    /// Sets (or, with `None`, removes) one of an entity's global variables.
    fn put_global(&mut self, uid: String, name: &str, value: Option<&str>) {
        let g = self.e.dg.globals.entry(uid).or_default();
        match value {
            Some(v) => g.insert(name.to_string(), v.to_string()),
            None => g.remove(name),
        };
    }

    fn send_to(&mut self, who: CharId, text: &str) {
        self.e.send_text(who, text);
    }

    fn script_command(&mut self, name: &str, rest: &str) -> Result<(), String> {
        let (first, tail) = rest.split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((rest, ""));
        match name {
            "send" => {
                if let Some(c) = self.target_char(first) {
                    self.send_to(c, tail);
                }
            }
            "echo" => {
                if let Some(r) = self.here() {
                    self.e.send_room(r, &[], EventKind::Text, rest, None);
                }
            }
            "echoaround" => {
                if let Some(c) = self.target_char(first) {
                    let room = self.e.world.ch(c).map(|c| c.room).unwrap_or(0);
                    self.e.send_room(room, &[c], EventKind::Text, tail, None);
                }
            }
            "zoneecho" => {
                let zone = first.parse::<u32>().ok().and_then(|v| self.e.world.room_of_vnum(v)).map(|r| self.e.world.rooms[r].proto.zone);
                if let Some(z) = zone {
                    let rooms: Vec<RoomId> = (0..self.e.world.rooms.len())
                        .filter(|r| self.e.world.rooms[*r].proto.zone == z && !self.e.world.rooms[*r].people.is_empty())
                        .collect();
                    for r in rooms {
                        self.e.send_room(r, &[], EventKind::Text, tail, None);
                    }
                }
            }
            "asound" => {
                if let Some(here) = self.here() {
                    for d in 0..6 {
                        if let Some(t) = self.e.world.passable(here, d).filter(|t| *t != here) {
                            self.e.send_room(t, &[], EventKind::Text, rest, None);
                        }
                    }
                }
            }
            "force" => {
                let targets: Vec<CharId> = if first.eq_ignore_ascii_case("all") {
                    self.here().map(|r| self.e.world.rooms[r].people.clone()).unwrap_or_default()
                } else {
                    self.target_char(first).into_iter().collect()
                };
                for t in targets {
                    if Owner::Mob(t) != self.owner {
                        let saved = self.e.cur.take();
                        self.e.dispatch(t, tail);
                        self.e.cur = saved;
                    }
                }
            }
            "at" => self.at(first, tail)?,
            "load" => self.load(first, tail)?,
            "purge" => self.purge(first),
            "teleport" => {
                let to_vnum = tail.split_whitespace().next().and_then(|v| v.parse::<u32>().ok()).ok_or("teleport where?")?;
                let to = self.e.world.room_of_vnum(to_vnum).ok_or_else(|| format!("teleport: no room {to_vnum}"))?;
                let who: Vec<CharId> = if first.eq_ignore_ascii_case("all") {
                    self.here().map(|r| self.e.world.rooms[r].people.clone()).unwrap_or_default()
                } else {
                    self.target_char(first).into_iter().collect()
                };
                // As tbaMUD: moved without a word or a look (the scripts follow it with
                // `%force% %actor% look`); a JSON client still gets its new state.
                for c in who {
                    self.e.world.char_from_room(c);
                    self.e.world.char_to_room(c, to);
                    self.e.send_state(c);
                }
            }
            "damage" => {
                // tbaMUD took `atoi` of it: `24 + 2` (a `set`, not an `eval`) is 24.
                let word = tail.split_whitespace().next().unwrap_or("");
                let digits: String =
                    word.chars().enumerate().take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && *c == '-')).map(|(_, c)| c).collect();
                let amount: i32 = digits.parse().map_err(|_| "damage how much?")?;
                if let Some(c) = self.target_char(first) {
                    if amount < 0 {
                        if let Some(ch) = self.e.world.chars.get_mut(&c) {
                            ch.hit = (ch.hit - amount).min(ch.max_hit);
                        }
                    } else {
                        self.e.damage(c, c, amount, crate::game::rules::combat::TYPE_SUFFERING);
                    }
                }
            }
            "door" => self.door(first, tail)?,
            "goto" => {
                let (Owner::Mob(m), Some(to)) = (self.owner, first.parse::<u32>().ok().and_then(|v| self.e.world.room_of_vnum(v))) else {
                    return Ok(());
                };
                self.e.world.char_from_room(m);
                self.e.world.char_to_room(m, to);
            }
            "kill" => {
                if let (Owner::Mob(m), Some(v)) = (self.owner, self.target_char(first)) {
                    self.e.hit(m, v);
                }
            }
            "junk" => {
                if let Owner::Mob(m) = self.owner {
                    let inv = self.e.world.ch(m).map(|c| c.inventory.clone()).unwrap_or_default();
                    if let Some(o) = self.e.find_obj_in(&inv, first) {
                        self.e.world.extract_obj(o);
                    }
                }
            }
            "timer" => self.otimer(first)?,
            "follow" => self.mfollow(first)?,
            "transform" => self.transform(first)?,
            _ => return Err(format!("{name} is not supported here")),
        }
        Ok(())
    }

    /// `%load% mob <vnum>` / `%load% obj <vnum> [target] [slot]`.
    fn load(&mut self, what: &str, rest: &str) -> Result<(), String> {
        let mut w = rest.split_whitespace();
        let vnum: u32 = w.next().and_then(|v| v.parse().ok()).ok_or("load what vnum?")?;
        let room = self.here().ok_or("load: nowhere")?;
        match what {
            "mob" | "m" => {
                let mut rng = std::mem::replace(&mut self.e.rng, rand::SeedableRng::seed_from_u64(0));
                let id = self.e.world.create_mob(vnum, room, &mut |lo, hi| rand::Rng::gen_range(&mut rng, lo..=hi.max(lo)));
                self.e.rng = rng;
                let id = id.ok_or_else(|| format!("load: no mob {vnum}"))?;
                self.e.dg_fire(Owner::Mob(id), 'n', DgCtx::default());
            }
            "obj" | "o" => {
                let o = self.e.world.create_obj(vnum).ok_or_else(|| format!("load: no object {vnum}"))?;
                match w.next().and_then(|t| self.target_char(t)) {
                    // `%load% obj N %actor% head`: worn there when the slot is free and
                    // the thing fits it (tbaMUD's equip_char), else carried.
                    Some(c) => {
                        let slot = w.next().and_then(crate::game::model::tables::script_slot).filter(|s| {
                            let free = self.e.world.ch(c).is_some_and(|ch| ch.equipment[*s].is_none());
                            let fits =
                                self.e.world.obj(o).is_some_and(|x| x.wear_flags & crate::game::model::tables::slot_wear_flag(*s) != 0);
                            free && fits
                        });
                        match slot {
                            Some(s) => {
                                self.e.world.equip(o, c, s);
                                self.e.recompute_armour(c);
                            }
                            None => self.e.world.obj_to_char(o, c),
                        }
                    }
                    None => match self.owner {
                        Owner::Mob(m) => self.e.world.obj_to_char(o, m),
                        _ => self.e.world.obj_to_room(o, room),
                    },
                }
            }
            _ => return Err(format!("load {what}?")),
        }
        Ok(())
    }

    fn purge(&mut self, target: &str) {
        // `%purge% self` (tbaMUD's `obj_purge`/`wpurge` take "self" as the script's own
        // thing or mob).
        if target.eq_ignore_ascii_case("self") {
            match self.owner {
                Owner::Obj(o) => self.e.world.extract_obj(o),
                Owner::Mob(m) => self.e.world.extract_char(m),
                Owner::Room(_) => {}
            }
            return;
        }
        let Some(room) = self.here() else { return };
        if target.is_empty() {
            // Everything here but players and the script's owner.
            let mobs: Vec<CharId> = self.e.world.rooms[room]
                .people
                .iter()
                .copied()
                .filter(|p| Owner::Mob(*p) != self.owner && self.e.world.ch(*p).is_some_and(|c| c.is_npc()))
                .collect();
            for m in mobs {
                self.e.world.extract_char(m);
            }
            for o in self.e.world.rooms[room].contents.clone() {
                self.e.world.extract_obj(o);
            }
            return;
        }
        match self.ent(target) {
            Some(Ent::Obj(o)) => self.e.world.extract_obj(o),
            _ => {
                if let Some(c) = self.target_char(target).filter(|c| self.e.world.ch(*c).is_some_and(|c| c.is_npc())) {
                    let foes = self.e.world.attackers_of(c);
                    for f in foes {
                        self.e.stop_fighting(f);
                    }
                    self.e.world.extract_char(c);
                }
            }
        }
    }

    /// `%door% <room> <direction> <flags|room|purge> [value]`.
    fn door(&mut self, room: &str, rest: &str) -> Result<(), String> {
        let r = room.parse::<u32>().ok().and_then(|v| self.e.world.room_of_vnum(v)).ok_or("door: no such room")?;
        let mut w = rest.split_whitespace();
        let dir = w.next().and_then(|d| DIR_NAMES.iter().position(|x| x.starts_with(&d.to_ascii_lowercase()))).ok_or("door: which way?")?;
        let field = w.next().unwrap_or("");
        let value = w.next().unwrap_or("");
        match field {
            "purge" => self.e.world.rooms[r].proto.exits[dir] = None,
            "room" => {
                let to: i32 = value.parse().map_err(|_| "door room: a vnum")?;
                match &mut self.e.world.rooms[r].proto.exits[dir] {
                    Some(x) => x.to_room = to,
                    x => {
                        *x = Some(crate::worldfile::ExitProto {
                            description: String::new(),
                            keywords: String::new(),
                            door_flags: 0,
                            key: -1,
                            to_room: to,
                        })
                    }
                }
            }
            "flags" => {
                let bits = crate::worldfile::lexer::flags(value).unwrap_or(0);
                if let Some(x) = &mut self.e.world.rooms[r].proto.exits[dir] {
                    x.door_flags = (bits & 1) as _;
                }
                let d = &mut self.e.world.rooms[r].doors[dir];
                d.closed = bits & 2 != 0;
                d.locked = bits & 4 != 0;
            }
            _ => {}
        }
        Ok(())
    }
}

impl Vars for DgHostCtx<'_> {
    fn var(&mut self, name: &str) -> Option<String> {
        match name {
            "self" => Some(self.owner_uid()),
            "actor" => self.ctx.actor.map(char_uid),
            "object" | "obj" => self.ctx.object.map(obj_uid),
            "victim" => self.ctx.victim.map(char_uid),
            "random" | "time" => Some(String::new()),
            n if SCRIPT_CMDS.contains(&n) => Some(format!("{}{n}", self.attach.prefix())),
            n => self.ctx.vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.clone()).or_else(|| {
                let uid = self.owner_uid();
                self.globals_of(&uid).and_then(|g| g.get(n).cloned())
            }),
        }
    }

    fn field(&mut self, base: Option<&str>, value: &str, field: &str, arg: Option<&str>) -> Option<String> {
        match base {
            Some("random") => {
                if let Ok(n) = field.parse::<i32>() {
                    return Some(self.e.roll(1, n.max(1)).to_string());
                }
                let room = self.here()?;
                return match field {
                    "char" => {
                        let people: Vec<CharId> =
                            self.e.world.rooms[room].people.iter().copied().filter(|p| Owner::Mob(*p) != self.owner).collect();
                        if people.is_empty() {
                            return Some(String::new());
                        }
                        let i = self.e.roll(0, people.len() as i32 - 1) as usize;
                        Some(char_uid(people[i]))
                    }
                    "dir" => {
                        let dirs: Vec<usize> = (0..6).filter(|d| self.e.world.passable(room, *d).is_some()).collect();
                        if dirs.is_empty() {
                            return Some(String::new());
                        }
                        let i = self.e.roll(0, dirs.len() as i32 - 1) as usize;
                        Some(DIR_NAMES[dirs[i]].to_string())
                    }
                    _ => None,
                };
            }
            Some("time") => {
                let hour = self.e.hour() as i64;
                return match field {
                    "hour" => Some(hour.to_string()),
                    _ => Some("0".into()),
                };
            }
            _ => {}
        }
        let ent = self.ent(value)?;
        // `.vnum(N)` of a thing or a room: whether it is N (tbaMUD).
        if let (Ent::Obj(_) | Ent::Room(_), "vnum", Some(want)) = (&ent, field, arg.and_then(|a| a.trim().parse::<i64>().ok())) {
            let vnum = match ent {
                // What the engine makes (corpses, coins) has no prototype: tbaMUD's
                // NOTHING, 65535 (its fido looks for corpses so).
                Ent::Obj(o) => self.e.world.obj(o).map(|x| if x.vnum == 0 { 65535 } else { x.vnum as i64 }),
                Ent::Room(r) => Some(self.e.world.rooms[r].proto.vnum as i64),
                Ent::Char(_) => None,
            };
            return Some(((vnum == Some(want)) as i64).to_string());
        }
        match ent {
            Ent::Char(c) => self.char_field(c, field, arg),
            Ent::Obj(o) => self.obj_field(o, field),
            Ent::Room(r) => self.room_field(r, field),
        }
    }
}

impl Host for DgHostCtx<'_> {
    fn error(&mut self, message: String) {
        self.e.dg.stats.errors += 1;
        tracing::warn!(target: "pawns::dg", trigger = self.trig, "SCRIPT ERROR: trigger {}: {message}", self.trig);
        self.e.dg.last_errors.insert(self.trig, message);
    }

    fn command(&mut self, line: &str) -> Result<(), String> {
        let (w, rest) = line.split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((line, ""));
        let lower = w.to_ascii_lowercase();
        // The driver's own commands, any owner (`dg_commands.rs`).
        if let Some(done) = self.driver_command(&lower, rest) {
            return done;
        }
        if lower.len() > 1 && lower.starts_with(['m', 'o', 'w']) && SCRIPT_CMDS.contains(&&lower[1..]) {
            return self.script_command(&lower[1..], rest);
        }
        match self.owner {
            Owner::Mob(m) => {
                if self.e.world.ch(m).is_some_and(|c| c.position > Position::Dead) {
                    let saved = self.e.cur.take();
                    self.e.dispatch(m, line);
                    self.e.cur = saved;
                }
                Ok(())
            }
            _ => Err(format!("{w} is no command for a {} script", if self.attach == Attach::Obj { "object" } else { "room" })),
        }
    }

    fn set_global(&mut self, name: &str, value: Option<&str>) {
        let uid = self.owner_uid();
        self.put_global(uid, name, value);
    }

    fn pulse_of_day(&self) -> u64 {
        let per_hour = crate::game::rules::clock::PULSES_PER_MUD_HOUR;
        (self.e.start_hour * per_hour + self.e.pulse) % (24 * per_hour)
    }

    fn remote(&mut self, name: &str, value: Option<&str>, target: &str) {
        let uid = target.trim().to_string();
        if self.ent(&uid).is_some() {
            self.put_global(uid, name, value);
        }
    }
}

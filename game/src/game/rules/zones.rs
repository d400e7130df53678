//! Zone resets: CircleMUD reset commands with world-wide max counts and the if-flag rule,
//! plus the Dark Pawns additions: the load-% roll for objects and `R` (remove).
//!
//! An object reset (`O`, `G`, `E`, `P`) loads only if the world-wide count is under the
//! command's max *and* the object's load roll succeeds (Dark Pawns objects carry a load
//! percentage; stock objects always pass). A failed roll counts as a failed command,
//! so the if-flag commands that depend on it are skipped too.

use crate::game::model::tables::Position;
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;

impl Engine {
    pub fn reset_all_zones(&mut self) {
        for z in 0..self.world.zones.len() {
            self.reset_zone(z);
        }
    }

    /// Ages zones and resets those whose lifespan has passed (per their reset mode).
    pub fn zone_update(&mut self) {
        // Rules count pulses: a game minute is 600 pulses whatever a pulse lasts.
        let per_minute = 600u64;
        for z in 0..self.world.zones.len() {
            let zone = &mut self.world.zones[z];
            zone.age += crate::game::run::engine::PULSES_PER_ZONE_CHECK;
            let lifespan = zone.proto.lifespan.max(1) as u64 * per_minute;
            if zone.age < lifespan || zone.proto.reset_mode == 0 {
                continue;
            }
            let vnum = zone.proto.vnum;
            if zone.proto.reset_mode == 1 && self.zone_has_players(vnum) {
                continue;
            }
            self.reset_zone(z);
        }
    }

    fn zone_has_players(&self, zone: u32) -> bool {
        self.world.players.values().filter_map(|id| self.world.ch(*id)).any(|c| self.world.rooms[c.room].proto.zone == zone)
    }

    pub fn reset_zone(&mut self, z: usize) {
        self.world.zones[z].age = 0;
        let cmds = self.world.zones[z].proto.commands.clone();
        let mut last_ok = false;
        let mut last_mob: Option<CharId> = None;
        let mut last_obj: Option<ObjId> = None;
        for c in cmds {
            if c.if_flag && !last_ok {
                continue;
            }
            let [a0, a1, a2, _] = c.args;
            let count = |w: &crate::game::model::world::World, vnum: i32, mob: bool| -> i32 {
                let m = if mob { &w.mob_count } else { &w.obj_count };
                m.get(&(vnum.max(0) as u32)).copied().unwrap_or(0) as i32
            };
            last_ok = match c.command {
                'M' => match self.world.room_of_vnum(a2 as u32) {
                    Some(room) if count(&self.world, a0, true) < a1 => {
                        let mut rng = std::mem::replace(&mut self.rng, rand::SeedableRng::seed_from_u64(0));
                        let id = self.world.create_mob(a0 as u32, room, &mut |lo, hi| rand::Rng::gen_range(&mut rng, lo..=hi.max(lo)));
                        self.rng = rng;
                        last_mob = id;
                        if let Some(id) = id.filter(|id| self.world.ch(*id).is_some_and(|c| c.behaves)) {
                            self.dg_fire(crate::game::scripting::dg_run::Owner::Mob(id), 'n', Default::default());
                        }
                        id.is_some()
                    }
                    _ => false,
                },
                'O' => match self.world.room_of_vnum(a2 as u32) {
                    // A house's floor belongs to its owner, not to the zone.
                    Some(room) if self.world.rooms[room].proto.flags[0] & crate::game::model::tables::room_flag::HOUSE != 0 => false,
                    Some(room) if count(&self.world, a0, false) < a1 && self.load_roll(a0) => {
                        last_obj = self.world.create_obj(a0 as u32);
                        if let Some(o) = last_obj {
                            self.world.obj_to_room(o, room);
                        }
                        last_obj.is_some()
                    }
                    _ => false,
                },
                'G' | 'E' => match last_mob {
                    Some(m) if self.world.ch(m).is_some() && count(&self.world, a0, false) < a1 && self.load_roll(a0) => {
                        last_obj = self.world.create_obj(a0 as u32);
                        match last_obj {
                            Some(o) if c.command == 'E' && (0..18).contains(&a2) => {
                                self.world.equip(o, m, a2 as usize);
                                true
                            }
                            Some(o) => {
                                self.world.obj_to_char(o, m);
                                true
                            }
                            None => false,
                        }
                    }
                    _ => false,
                },
                'P' => {
                    let container = last_obj
                        .filter(|o| self.world.obj(*o).is_some_and(|o| o.vnum as i32 == a2))
                        .or_else(|| self.world.objs.values().find(|o| o.vnum as i32 == a2).map(|o| o.id));
                    match container {
                        Some(cont) if count(&self.world, a0, false) < a1 && self.load_roll(a0) => match self.world.create_obj(a0 as u32) {
                            Some(o) => {
                                self.world.obj_to_obj(o, cont);
                                true
                            }
                            None => false,
                        },
                        _ => false,
                    }
                }
                'D' => match self.world.room_of_vnum(a0 as u32) {
                    Some(room) if (0..6).contains(&a1) && self.world.rooms[room].proto.exits[a1 as usize].is_some() => {
                        let (closed, locked) = match a2 {
                            0 => (false, false),
                            1 => (true, false),
                            _ => (true, true),
                        };
                        self.set_door_one_side(room, a1 as usize, closed, locked);
                        true
                    }
                    _ => false,
                },
                'R' => match self.world.room_of_vnum(a0 as u32) {
                    Some(room) => {
                        let found = self.world.rooms[room]
                            .contents
                            .iter()
                            .copied()
                            .find(|o| self.world.obj(*o).is_some_and(|o| o.vnum as i32 == a1));
                        if let Some(o) = found {
                            self.world.extract_obj(o);
                        }
                        true
                    }
                    None => false,
                },
                _ => false,
            };
        }
        // Freshly loaded mobs stand in their default position.
        if let Some(m) = last_mob {
            if let Some(c) = self.world.chars.get_mut(&m) {
                if c.position == Position::Dead {
                    c.position = Position::Standing;
                }
            }
        }
        // tbaMUD's zone-reset triggers (`f`) of the zone's rooms, each its narg's chance.
        if !self.dg.off && !self.dg.triggers.is_empty() {
            let zone = self.world.zones[z].proto.vnum;
            let rooms: Vec<usize> = (0..self.world.rooms.len())
                .filter(|r| self.world.rooms[*r].proto.zone == zone && !self.world.rooms[*r].proto.triggers.is_empty())
                .collect();
            for r in rooms {
                let roll = self.roll(1, 100);
                let ctx = crate::game::scripting::dg_run::DgCtx::default();
                self.dg_fire_first(crate::game::scripting::dg_run::Owner::Room(r), 'f', ctx, |narg, _| roll <= narg);
            }
        }
    }

    /// The object's load roll: its load percentage (Dark Pawns), or always.
    fn load_roll(&mut self, vnum: i32) -> bool {
        let Some(p) = self.world.obj_protos.get(&(vnum.max(0) as u32)).and_then(|o| o.load_percent) else {
            return true;
        };
        if p >= 100.0 {
            return true;
        }
        rand::Rng::gen_range(&mut self.rng, 0.0f32..100.0) < p
    }

    /// A `D` reset sets the named side of the exit only, as CircleMUD does: the way back
    /// may be another exit, or one-way, or lead elsewhere, and its own `D` (if it has a
    /// door) sets it. The two sides of a real door then stay in step because opening and
    /// closing move both sides (checking that the way back leads here).
    fn set_door_one_side(&mut self, room: usize, dir: usize, closed: bool, locked: bool) {
        let door = &mut self.world.rooms[room].doors[dir];
        door.closed = closed;
        door.locked = locked;
        door.revealed &= !closed;
    }
}

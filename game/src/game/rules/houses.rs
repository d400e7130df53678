//! Houses and rent. A room flagged HOUSE keeps what lies on its floor across restarts:
//! once a second the engine compares each house's contents with what it last saved and
//! queues the rooms that changed for the save writer (and all of them at shutdown).
//! `rent` at an innkeeper saves the character with its gear and ends the session; the
//! character comes back in the inn.

use std::collections::HashMap;

use pawns_storage::{HouseRecord, ObjRecord};

use crate::game::model::tables::room_flag;
use crate::game::model::world::{CharId, RoomId};
use crate::game::run::engine::Engine;

/// What each house room held when it was last saved (room vnum → contents).
#[derive(Default)]
pub struct HouseBook {
    saved: HashMap<u32, Vec<ObjRecord>>,
    /// The world's house rooms (rooms never change flags, so found once).
    rooms: Option<Vec<RoomId>>,
}

/// Where a character is, as the memory it keeps itself records it (`mind`): the
/// engine's answer to `EngineMsg::Whereabouts`.
#[derive(Debug, Clone, Default)]
pub struct Whereabouts {
    /// The character's name.
    pub name: String,
    pub room_vnum: Option<u32>,
    pub room: Option<String>,
    /// At home: a house room, an inn (a room with an innkeeper), or the temple.
    pub at_home: bool,
}

impl Engine {
    fn house_rooms(&mut self) -> Vec<RoomId> {
        if self.houses.rooms.is_none() {
            let rooms = (0..self.world.rooms.len()).filter(|r| self.world.rooms[*r].proto.flags[0] & room_flag::HOUSE != 0).collect();
            self.houses.rooms = Some(rooms);
        }
        self.houses.rooms.clone().unwrap_or_default()
    }

    fn house_record(&self, room: RoomId) -> HouseRecord {
        HouseRecord {
            room_vnum: self.world.rooms[room].proto.vnum,
            contents: self.world.rooms[room].contents.iter().filter_map(|o| self.obj_record(*o)).collect(),
        }
    }

    /// Puts saved house contents back on their floors (at start, after the first reset).
    pub fn restore_houses(&mut self, houses: &[HouseRecord]) {
        for h in houses {
            let Some(room) = self.world.room_of_vnum(h.room_vnum) else {
                tracing::warn!(room = h.room_vnum, "a saved house room is not in this world; its contents stay in the file");
                continue;
            };
            if self.world.rooms[room].proto.flags[0] & room_flag::HOUSE == 0 {
                continue;
            }
            for o in h.contents.iter().rev() {
                if let Some(obj) = self.make_obj(o) {
                    self.world.obj_to_room(obj, room);
                }
            }
            self.houses.saved.insert(h.room_vnum, h.contents.clone());
        }
    }

    /// Queues every house whose floor changed since it was last saved (`all`: every house).
    pub fn save_houses(&mut self, all: bool) {
        let mut changed = Vec::new();
        for room in self.house_rooms() {
            let rec = self.house_record(room);
            if all || self.houses.saved.get(&rec.room_vnum) != Some(&rec.contents) {
                self.houses.saved.insert(rec.room_vnum, rec.contents.clone());
                changed.push(rec);
            }
        }
        if !changed.is_empty() {
            self.saves.save_houses(changed);
        }
    }

    pub(crate) fn innkeeper_in(&self, room: RoomId) -> Option<CharId> {
        self.world.rooms[room].people.iter().copied().find(|p| {
            self.world.ch(*p).is_some_and(|m| {
                m.is_npc()
                    && m.keywords
                        .split_whitespace()
                        .any(|k| matches!(k.to_ascii_lowercase().as_str(), "receptionist" | "innkeeper" | "clerk"))
            })
        })
    }

    /// Where a player stands, and whether that is home (protocol §12's self-care): a
    /// house room, an inn (a room with its keeper), or the temple (the start room).
    pub fn whereabouts(&self, ch: CharId) -> Whereabouts {
        let Some(room) = self.world.ch(ch).map(|c| c.room) else { return Default::default() };
        let r = &self.world.rooms[room];
        let at_home = r.proto.flags[0] & room_flag::HOUSE != 0 || room == self.start_room || self.innkeeper_in(room).is_some();
        let name = self.world.ch(ch).map(|c| c.name.to_string()).unwrap_or_default();
        Whereabouts { name, room_vnum: Some(r.proto.vnum), room: Some(r.proto.name.to_string()), at_home }
    }
}

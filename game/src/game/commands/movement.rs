//! Walking, fleeing, and what a character sees on arrival.

use super::CmdStatus;
use crate::game::model::tables::move_cost;
use crate::game::model::world::{CharId, RoomId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::DIR_NAMES;

impl Engine {
    pub fn do_move(&mut self, ch: CharId, dir: usize) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        let room = c.room;
        let Some(exit) = self.world.rooms[room].proto.exits[dir].clone() else {
            self.send_text(ch, "Alas, you cannot go that way...");
            return CmdStatus::Failed;
        };
        if self.world.rooms[room].doors[dir].closed {
            if crate::game::rules::doors::hidden(&exit, &self.world.rooms[room].doors[dir]) {
                self.send_text(ch, "Alas, you cannot go that way...");
            } else {
                let kw = exit.keywords.split_whitespace().next().unwrap_or("door");
                self.send_text(ch, &format!("The {kw} seems to be closed."));
            }
            return CmdStatus::Failed;
        }
        let Some(to) = self.world.room_of_vnum(exit.to_room as u32) else {
            self.send_text(ch, "Alas, you cannot go that way...");
            return CmdStatus::Failed;
        };
        let family = self.world.profile.family;
        let need = (move_cost(self.world.rooms[room].proto.sector, family) + move_cost(self.world.rooms[to].proto.sector, family)) / 2;
        let tired = c.pc.is_some() && c.moves < need;
        // A leave trigger that answers 0 keeps the character here.
        if !tired && !self.dg_leave(ch, room, dir) {
            return CmdStatus::Failed;
        }
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        // Riding (Dark Pawns): the mount pays, and goes nowhere indoors.
        if let Some(m) = self.mount_of(ch) {
            if self.world.rooms[to].proto.flags[0] & crate::game::model::tables::room_flag::INDOORS != 0 {
                self.send_text(ch, "You can't ride in there! Dismount first!");
                return CmdStatus::Failed;
            }
            let Some(mc) = self.world.chars.get_mut(&m) else { return CmdStatus::Failed };
            if mc.moves < need {
                self.send_text(ch, "Your mount is too exhausted to carry you further.");
                return CmdStatus::Failed;
            }
            mc.moves -= need;
        } else {
            if c.pc.is_some() && c.moves < need {
                self.send_text(ch, "You are too exhausted.");
                return CmdStatus::Failed;
            }
            if let Some(c) = self.world.chars.get_mut(&ch) {
                if c.pc.is_some() {
                    c.moves -= need;
                }
            }
        }
        self.move_char_dir(ch, dir, to);
        self.followers_follow(ch, room, dir);
        CmdStatus::Ok
    }

    /// Moves a character through an exit with the leave/arrive messages, then shows the room.
    pub fn move_char_dir(&mut self, ch: CharId, dir: usize, to: RoomId) {
        let Some(from) = self.world.ch(ch).map(|c| c.room) else {
            return;
        };
        let name = self.pers(ch);
        let mount = self.mount_of(ch);
        let on = mount.map(|m| format!(" on {}", self.pers(m))).unwrap_or_default();
        self.world.char_from_room(ch);
        if mount.is_some() {
            self.announce(from, ch, false, &format!("{name} rides {}{on}.", DIR_NAMES[dir]));
        } else {
            self.announce(from, ch, false, &format!("{name} leaves {}.", DIR_NAMES[dir]));
        }
        self.world.char_to_room(ch, to);
        // The mount goes under its rider, unannounced.
        if let Some(m) = mount {
            self.world.char_from_room(m);
            self.world.char_to_room(m, to);
        }
        // Dark Pawns says where one came from ("arrives from the south", "climbs in
        // from below"); CircleMUD and tbaMUD only that one came.
        let arrival = if self.world.profile.family == crate::worldfile::profile::Family::DarkPawns {
            match (dir, mount.is_some()) {
                (0..=3, true) => format!("{name} rides in from the {}{on}.", DIR_NAMES[[2, 3, 0, 1][dir]]),
                (0..=3, false) => format!("{name} arrives from the {}.", DIR_NAMES[[2, 3, 0, 1][dir]]),
                (4, _) => format!("{name} climbs in from below."),
                _ => format!("{name} climbs in from above."),
            }
        } else {
            format!("{name} has arrived.")
        };
        // A mob's own entry trigger may send it back before anyone sees it come.
        if self.world.ch(ch).is_some_and(|c| c.is_npc() && c.behaves) {
            self.dg_entry(ch, from);
            if self.world.ch(ch).is_none_or(|c| c.room != to) {
                return;
            }
        }
        self.announce(to, ch, true, &arrival);
        self.show_room(ch);
        self.arrival_scripts(ch, to);
        self.dg_arrival(ch, to, dir);
    }

    /// The room as text, then `state` for JSON sessions.
    pub fn show_room(&mut self, ch: CharId) {
        if self.world.ch(ch).is_some_and(|c| c.pc.is_some()) {
            let text = self.room_text(ch, false);
            self.send_text(ch, &text);
            self.send_state(ch);
        }
    }

    /// Tries up to six random directions; succeeds through the first open exit.
    pub fn flee(&mut self, ch: CharId) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        let room = c.room;
        let npc = c.is_npc();
        for _ in 0..6 {
            let dir = self.roll(0, 5) as usize;
            let Some(to) = self.world.passable(room, dir) else {
                continue;
            };
            if npc && self.world.rooms[to].proto.zone != self.world.rooms[room].proto.zone {
                continue;
            }
            self.tell_flight(ch);
            for f in self.world.attackers_of(ch) {
                self.stop_fighting(f);
            }
            self.stop_fighting(ch);
            self.send_text(ch, "You flee head over heels.");
            self.move_char_dir(ch, dir, to);
            return CmdStatus::Ok;
        }
        self.tell_flight(ch);
        self.send_text(ch, "PANIC!  You couldn't escape!");
        CmdStatus::Failed
    }

    /// "Ann panics, and attempts to flee!" to the room, or, in a crowd, with the next
    /// notice.
    fn tell_flight(&mut self, ch: CharId) {
        if !self.note_crowd_deed(ch, "Fleeing") {
            self.act("$n panics, and attempts to flee!", ch, None, None, To::Room, EventKind::Combat);
        }
    }
}

/// Dark Pawns's `ROOM_BFR` (bit 17): no recall from here.
const ROOM_BAD_FOR_RECALL: u64 = 1 << 17;

impl Engine {
    /// `recall` (Dark Pawns's own command): a character of level 5 or less is carried
    /// back to the temple, unless it fights or stands where recall is barred. Other
    /// worlds have no such command (their scripts may hear the word first).
    pub fn do_recall(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        if self.world.profile.family != crate::worldfile::profile::Family::DarkPawns {
            self.huh(ch);
            return CmdStatus::UnknownCommand;
        }
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let refusal = if c.level > 5 || c.is_npc() {
            Some("This command is not available for someone of your experience!")
        } else if self.world.rooms[c.room].proto.flags[0] & ROOM_BAD_FOR_RECALL != 0 {
            Some("You can't recall from this magickal place.")
        } else if c.fighting.is_some() {
            Some("Your concentration is broken by your fighting!")
        } else {
            None
        };
        if let Some(r) = refusal {
            self.send_text(ch, r);
            return CmdStatus::Failed;
        }
        self.act("$n disappears.", ch, None, None, To::Room, EventKind::Leave);
        // Each hometown's temple (Kir-Oshi's 18201, Alaozar's 21258; Kir Drax'in's the start).
        let home = match self.hometown(ch) {
            2 => self.world.room_of_vnum(18201),
            3 => self.world.room_of_vnum(21258),
            _ => None,
        };
        let start = home.unwrap_or(self.start_room);
        self.world.move_char(ch, start);
        self.act("$n appears in the middle of the room.", ch, None, None, To::Room, EventKind::Enter);
        let look = self.room_text(ch, false);
        self.send_text(ch, &look);
        self.send_state(ch);
        CmdStatus::Ok
    }
}

//! Doors and container lids: open, close, lock, unlock, on both sides of an exit.

use crate::game::model::tables::{cont, item_type};
use crate::game::model::world::{CharId, RoomId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::DIR_NAMES;

/// Exit flag for a hidden door (found with `search`); the other bits are CircleMUD's.
pub const EX_SECRET: u32 = 1 << 4;

pub const REV_DIR: [usize; 6] = [2, 3, 0, 1, 5, 4];

/// Door bit in the file's door flags for a door that cannot be picked.
pub const EX_PICKPROOF: u32 = 1 << 1;

/// A closed secret door nobody has found: no exit as far as anyone can tell.
pub fn hidden(exit: &crate::worldfile::ExitProto, st: &crate::game::model::world::DoorState) -> bool {
    exit.door_flags & EX_SECRET != 0 && st.closed && !st.revealed
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DoorOp {
    Open,
    Close,
    Lock,
    Unlock,
}

impl DoorOp {
    fn verb(self) -> &'static str {
        match self {
            DoorOp::Open => "open",
            DoorOp::Close => "close",
            DoorOp::Lock => "lock",
            DoorOp::Unlock => "unlock",
        }
    }
}

pub fn parse_dir(s: &str) -> Option<usize> {
    let s = s.to_ascii_lowercase();
    if s.is_empty() {
        return None;
    }
    DIR_NAMES.iter().position(|d| d.starts_with(&s))
}

impl Engine {
    /// The exit in `room` that `arg` names: a direction, or a door keyword.
    pub fn find_door(&self, room: RoomId, arg: &str, dir_arg: Option<&str>) -> Option<usize> {
        let r = &self.world.rooms[room];
        let door = |d: usize| r.proto.exits[d].as_ref().is_some_and(|e| e.door_flags & 1 != 0 && !hidden(e, &r.doors[d]));
        if let Some(d) = dir_arg.and_then(parse_dir) {
            return door(d).then_some(d);
        }
        if let Some(d) = parse_dir(arg) {
            if door(d) {
                return Some(d);
            }
        }
        (0..6).find(|d| door(*d) && r.proto.exits[*d].as_ref().is_some_and(|e| crate::game::model::targeting::is_name(arg, &e.keywords)))
    }

    fn has_key(&self, ch: CharId, key: i32) -> bool {
        if key < 0 {
            return false;
        }
        let Some(c) = self.world.ch(ch) else {
            return false;
        };
        c.inventory.iter().chain(c.equipment[17].iter()).any(|o| self.world.obj(*o).is_some_and(|o| o.vnum as i32 == key))
    }

    /// A picked lock: the door stays closed, unlocked on both sides.
    pub fn unlock_door(&mut self, room: RoomId, dir: usize) {
        self.set_door(room, dir, true, false);
    }

    pub(crate) fn set_door(&mut self, room: RoomId, dir: usize, closed: bool, locked: bool) {
        self.world.rooms[room].doors[dir].closed = closed;
        self.world.rooms[room].doors[dir].locked = locked;
        if let Some(to) = self.world.rooms[room].proto.exits[dir].as_ref().map(|e| e.to_room) {
            if let Some(other) = self.world.room_of_vnum(to as u32) {
                let back = REV_DIR[dir];
                if self.world.rooms[other].proto.exits[back].as_ref().is_some_and(|e| e.to_room == self.world.rooms[room].proto.vnum as i32)
                {
                    self.world.rooms[other].doors[back].closed = closed;
                    self.world.rooms[other].doors[back].locked = locked;
                }
            }
        }
    }

    /// open/close/lock/unlock on a door or a container. Returns false when nothing happened.
    pub fn door_command(&mut self, ch: CharId, args: &str, op: DoorOp) -> bool {
        let mut words = args.split_whitespace();
        let Some(arg) = words.next() else {
            self.send_text(ch, &format!("{} what?", crate::game::send::messaging::capitalize(op.verb())));
            return false;
        };
        let dir_arg = words.next();
        let Some(room) = self.world.ch(ch).map(|c| c.room) else {
            return false;
        };
        // A container first (inventory, then room), unless a direction was given.
        if dir_arg.is_none() && parse_dir(arg).is_none() {
            if let Some(obj) = self.find_obj_here(ch, arg) {
                return self.container_op(ch, obj, op);
            }
        }
        let Some(dir) = self.find_door(room, arg, dir_arg) else {
            self.send_text(
                ch,
                &format!("There doesn't seem to be {} {} here.", if arg.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }, arg),
            );
            return false;
        };
        let exit = self.world.rooms[room].proto.exits[dir].clone().unwrap();
        let st = self.world.rooms[room].doors[dir];
        let kw = exit.keywords.split_whitespace().next().unwrap_or("door").to_string();
        let msg = match op {
            DoorOp::Open if !st.closed => Err("It's already open!"),
            DoorOp::Open if st.locked => Err("It seems to be locked."),
            DoorOp::Close if st.closed => Err("It's already closed!"),
            DoorOp::Lock if !st.closed => Err("You have to close it first."),
            DoorOp::Lock if st.locked => Err("It's already locked!"),
            DoorOp::Lock if exit.key < 0 => Err("There's no keyhole."),
            DoorOp::Lock if !self.has_key(ch, exit.key) => Err("You don't seem to have the proper key."),
            DoorOp::Unlock if !st.closed => Err("It's not closed."),
            DoorOp::Unlock if !st.locked => Err("It's already unlocked."),
            DoorOp::Unlock if exit.key < 0 => Err("There's no keyhole."),
            DoorOp::Unlock if !self.has_key(ch, exit.key) => Err("You don't seem to have the proper key."),
            _ => Ok(()),
        };
        if let Err(m) = msg {
            self.send_text(ch, m);
            return false;
        }
        // tbaMUD's door triggers: one answering 0 stops it without a word.
        let word = match op {
            DoorOp::Open => "open",
            DoorOp::Close => "close",
            DoorOp::Lock => "lock",
            DoorOp::Unlock => "unlock",
        };
        if !self.dg_door(ch, word, dir) {
            return false;
        }
        match op {
            DoorOp::Open => self.set_door(room, dir, false, false),
            DoorOp::Close => self.set_door(room, dir, true, false),
            DoorOp::Lock => self.set_door(room, dir, true, true),
            DoorOp::Unlock => self.set_door(room, dir, true, false),
        }
        self.send_text(ch, if matches!(op, DoorOp::Lock | DoorOp::Unlock) { "*Click*" } else { "Ok." });
        let verb = match op {
            DoorOp::Open => "opens",
            DoorOp::Close => "closes",
            DoorOp::Lock => "locks",
            DoorOp::Unlock => "unlocks",
        };
        self.act(&format!("$n {verb} the {kw}."), ch, None, None, To::Room, EventKind::System);
        // The other side hears it.
        if matches!(op, DoorOp::Open | DoorOp::Close) {
            if let Some(other) = self.world.room_of_vnum(exit.to_room as u32) {
                let word = if op == DoorOp::Open { "opened" } else { "closed" };
                self.send_room(other, &[], EventKind::System, &format!("The {kw} is {word} from the other side."), None);
            }
        }
        let _ = DIR_NAMES;
        true
    }

    fn container_op(&mut self, ch: CharId, obj: u64, op: DoorOp) -> bool {
        let Some(o) = self.world.obj(obj) else {
            return false;
        };
        if o.item_type != item_type::CONTAINER {
            self.send_text(ch, "That's not a container.");
            return false;
        }
        let flags = o.values[1];
        let key = o.values[2];
        let err = match op {
            _ if flags & cont::CLOSEABLE == 0 => Some("You can't do that."),
            DoorOp::Open if flags & cont::CLOSED == 0 => Some("But it's already open!"),
            DoorOp::Open if flags & cont::LOCKED != 0 => Some("It seems to be locked."),
            DoorOp::Close if flags & cont::CLOSED != 0 => Some("But it's already closed!"),
            DoorOp::Lock if flags & cont::CLOSED == 0 => Some("Maybe you should close it first..."),
            DoorOp::Lock if flags & cont::LOCKED != 0 => Some("It is locked already."),
            DoorOp::Unlock if flags & cont::LOCKED == 0 => Some("Oh.. it wasn't locked, after all.."),
            DoorOp::Lock | DoorOp::Unlock if key < 0 => Some("That thing can't be locked."),
            DoorOp::Lock | DoorOp::Unlock if !self.has_key(ch, key) => Some("You don't seem to have the proper key."),
            _ => None,
        };
        if let Some(m) = err {
            self.send_text(ch, m);
            return false;
        }
        if let Some(o) = self.world.objs.get_mut(&obj) {
            match op {
                DoorOp::Open => o.values[1] &= !cont::CLOSED,
                DoorOp::Close => o.values[1] |= cont::CLOSED,
                DoorOp::Lock => o.values[1] |= cont::LOCKED,
                DoorOp::Unlock => o.values[1] &= !cont::LOCKED,
            }
        }
        self.send_text(ch, if matches!(op, DoorOp::Lock | DoorOp::Unlock) { "*Click*" } else { "Ok." });
        self.act(&format!("$n {}s $p.", op.verb()), ch, None, Some(obj), To::Room, EventKind::System);
        true
    }
}

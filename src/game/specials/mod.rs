//! The classic special procedures, natively (issue 17): what the world's `specials.tsv`
//! assigns to mobs, objects and rooms. They are called where CircleMUD called them:
//!
//! - in the mob's turn of `mob_activity`, before its ordinary behaviour (a procedure
//!   that acts ends the mob's turn): `fido`, `janitor`, `thief`, `cityguard`;
//! - in the combat round, after the mob's blow: `magic_user`, `cleric`, `fighter`,
//!   `snake`;
//! - when a character types a command, before the command runs (`command_special`,
//!   the original's `special()`): the room's procedure, then the mobs', then what the
//!   character carries and wears, then what lies on the floor; one that takes the
//!   command ends it: `guild_guard`, `bank`, `gen_board`, `moon_gate`. (`guild` is
//!   honoured by `practice`, see `spells::guild_master_here`.)
//!
//! `worldfile::specials::SUPPORTED` lists these names; `pawns world check` lists every
//! other name a world assigns as not supported.

pub mod board;
mod fight;
pub mod places;
mod town;

#[cfg(test)]
mod tests;

use super::commands::CmdStatus;
use super::engine::Engine;
use super::world::{CharId, ObjId};

impl Engine {
    /// Runs mob `id`'s procedure `name` in its turn (not fighting); whether it acted.
    pub(crate) fn run_special(&mut self, id: CharId, name: &str) -> bool {
        match name {
            "fido" => self.spec_fido(id),
            "janitor" => self.spec_janitor(id),
            "thief" => self.spec_thief(id),
            "cityguard" => self.spec_cityguard(id),
            _ => false,
        }
    }

    /// Runs fighting mob `id`'s procedure `name` in the combat round; whether it acted.
    pub(crate) fn fight_special(&mut self, id: CharId, name: &str) -> bool {
        match name {
            "magic_user" => self.spec_magic_user(id),
            "cleric" => self.spec_cleric(id),
            "fighter" => self.spec_fighter(id),
            "snake" => self.spec_snake(id),
            _ => false,
        }
    }

    /// The procedure a mob runs, if any (through its prototype).
    pub(crate) fn mob_special(&self, id: CharId) -> Option<&str> {
        let vnum = self.world.ch(id)?.npc_vnum?;
        self.world.mob_specials.get(&vnum).map(String::as_str)
    }

    fn obj_special(&self, id: ObjId) -> Option<&str> {
        let vnum = self.world.obj(id)?.vnum;
        self.world.obj_specials.get(&vnum).map(String::as_str)
    }

    /// Offers command `cmd` (its full name) to the procedures around `ch`; `Some` when
    /// one took it.
    pub(crate) fn command_special(&mut self, ch: CharId, cmd: &str, args: &str) -> Option<CmdStatus> {
        if self.world.mob_specials.is_empty() && self.world.obj_specials.is_empty() && self.world.room_specials.is_empty() {
            return None;
        }
        let c = self.world.ch(ch)?;
        let room = c.room;
        let mut things: Vec<ObjId> = c.equipment.iter().flatten().copied().collect();
        things.extend(c.inventory.iter().copied());
        things.extend(self.world.rooms[room].contents.iter().copied());
        let mobs: Vec<(CharId, String)> = self.world.rooms[room]
            .people
            .iter()
            .filter(|p| **p != ch)
            .filter_map(|p| Some((*p, self.mob_special(*p)?.to_string())))
            .collect();
        for (mob, name) in mobs {
            let taken = match name.as_str() {
                "guild_guard" => self.spec_guild_guard(mob, ch, cmd),
                _ => None,
            };
            if taken.is_some() {
                return taken;
            }
        }
        let objs: Vec<(ObjId, String)> = things.into_iter().filter_map(|o| Some((o, self.obj_special(o)?.to_string()))).collect();
        for (obj, name) in objs {
            let taken = match name.as_str() {
                "bank" => self.spec_bank(ch, cmd, args),
                "gen_board" => self.spec_board(ch, obj, cmd, args),
                "moon_gate" => self.spec_moon_gate(ch, obj, cmd, args),
                _ => None,
            };
            if taken.is_some() {
                return taken;
            }
        }
        None
    }

    /// The commands only a procedure gives meaning to (`enter`, `deposit`, `read`…):
    /// anywhere else, the original's answer.
    pub fn do_not_here(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        self.send_text(ch, "Sorry, but you cannot do that here!");
        CmdStatus::Failed
    }
}

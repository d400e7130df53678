//! The classic special procedures, natively (issue 17): what the world's `specials.tsv`
//! assigns to mobs, objects and rooms. They are called where CircleMUD called them:
//!
//! - in the mob's turn of `mob_activity`, before its ordinary behaviour (a procedure
//!   that acts ends the mob's turn): `fido`, `janitor`, `thief`, `cityguard`;
//! - in the combat round, after the mob's blow: `magic_user`, `cleric`, `fighter`,
//!   `snake`;
//! - these two only for a mob whose file gives it `MOB_SPEC` (as the original: Dark
//!   Pawns assigns `magic_user` to its apprentice sorcerer 8081, whose file lacks the
//!   flag, so it never casts);
//! - when a character types a command, before the command runs (`command_special`,
//!   the original's `special()`): the room's procedure, then the mobs', then what the
//!   character carries and wears, then what lies on the floor; one that takes the
//!   command ends it: `guild_guard`, `bank`, `gen_board`, `moon_gate`. (`guild` is
//!   honoured by `practice`, see `spells::guild_master_here`.)
//!
//! `worldfile::specials::SUPPORTED` lists these names; `pawns world check` lists every
//! other name a world assigns as not supported.

mod artisans;
pub mod board;
mod fight;
pub mod jail;
pub mod places;
mod post;
mod services;
mod town;

#[cfg(test)]
mod tests;

use crate::game::commands::CmdStatus;
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;
use crate::game::scripting::scripted::CmdStage;
use crate::script::ScriptKind;

impl Engine {
    /// Runs mob `id`'s procedure `name` in its turn (not fighting); whether it acted.
    pub(crate) fn run_special(&mut self, id: CharId, name: &str) -> bool {
        match name {
            "fido" => self.spec_fido(id),
            "janitor" => self.spec_janitor(id),
            "thief" => self.spec_thief(id),
            "cityguard" => self.spec_cityguard(id),
            "take_to_jail" => self.spec_take_to_jail(id),
            "citizen" => self.spec_citizen(id),
            "butler" => self.spec_butler(id),
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

    /// Offers command `cmd` (its full name) to the procedures and `oncmd` scripts around
    /// `ch`, in the original's `special()` order: the room, each worn thing, each carried
    /// thing, each mob here, each thing on the floor (a thing's procedure before its
    /// script). `Some` when one took it.
    pub(crate) fn command_special(&mut self, ch: CharId, cmd: &str, args: &str) -> Option<CmdStatus> {
        let scripts = !self.scripts.attached.is_empty() && !self.scripts.off;
        // The room's own procedure first (Dark Pawns's burning hut takes any command).
        if let Some(r) = self.world.ch(ch).map(|c| c.room) {
            let vnum = self.world.rooms[r].proto.vnum;
            match self.world.room_specials.get(&vnum).cloned().as_deref() {
                Some("start_room") if self.spec_start_room(r) => return Some(CmdStatus::Ok),
                Some("dump") => {
                    if let Some(status) = self.spec_dump(ch, r, cmd, args) {
                        return Some(status);
                    }
                }
                _ => {}
            }
        }
        let specials = !(self.world.mob_specials.is_empty() && self.world.obj_specials.is_empty());
        if !scripts && !specials {
            return None;
        }
        // The script hears the full command name and the rest of the line ("enter portal").
        let argument = if args.is_empty() { cmd.to_string() } else { format!("{cmd} {args}") };
        let taken = Some(CmdStatus::Ok);
        if scripts && self.command_scripts(ch, &argument, CmdStage::Room) {
            return taken;
        }
        let c = self.world.ch(ch)?;
        let room = c.room;
        let active = |e: &Engine, o: &ObjId| {
            e.world.obj(*o).is_some_and(|o| {
                e.world.obj_specials.contains_key(&o.vnum) || (scripts && e.scripts.attached.contains_key(&(ScriptKind::Obj, o.vnum)))
            })
        };
        let carried: Vec<ObjId> = c.equipment.iter().flatten().chain(c.inventory.iter()).copied().filter(|o| active(self, o)).collect();
        for o in carried {
            if let Some(status) = self.thing_special(ch, o, cmd, args) {
                return Some(status);
            }
            if scripts && self.command_scripts(ch, &argument, CmdStage::Thing(o)) {
                return taken;
            }
        }
        // Only mobs with a procedure or a script are asked, and only where there are
        // some (a crowd of players costs nothing here).
        for mob in self.world.behaving_in(room, ch) {
            let special = self.mob_special(mob).map(str::to_string);
            let status = match special.as_deref() {
                Some("guild_guard") => self.spec_guild_guard(mob, ch, cmd),
                Some(s @ ("jailguard" | "outofjailguard")) => self.spec_jail_guard(ch, s, cmd),
                Some("mortician") => self.spec_mortician(mob, ch, cmd),
                Some("prostitute") => self.spec_prostitute(mob, ch, cmd),
                Some("chosen_guard") => self.spec_chosen_guard(mob, ch, cmd),
                Some("stableboy") => self.spec_stableboy(mob, ch, cmd, args),
                Some("tattoo1") => self.spec_tattooist(mob, ch, cmd, args),
                Some("postmaster") => self.spec_postmaster(mob, ch, cmd, args),
                Some("identifier") => self.spec_identifier(mob, ch, cmd, args),
                _ => None,
            };
            if status.is_some() {
                return status;
            }
            if scripts && self.command_scripts(ch, &argument, CmdStage::Mob(mob)) {
                return taken;
            }
        }
        let floor: Vec<ObjId> = self.world.rooms[room].contents.iter().copied().filter(|o| active(self, o)).collect();
        for o in floor {
            if let Some(status) = self.thing_special(ch, o, cmd, args) {
                return Some(status);
            }
            if scripts && self.command_scripts(ch, &argument, CmdStage::Thing(o)) {
                return taken;
            }
        }
        None
    }

    /// A thing's procedure, offered a command.
    fn thing_special(&mut self, ch: CharId, obj: ObjId, cmd: &str, args: &str) -> Option<CmdStatus> {
        match self.obj_special(obj)?.to_string().as_str() {
            "bank" => self.spec_bank(ch, cmd, args),
            "gen_board" => self.spec_board(ch, obj, cmd, args),
            "moon_gate" => self.spec_moon_gate(ch, obj, cmd, args),
            _ => None,
        }
    }
}

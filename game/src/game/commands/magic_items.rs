//! Potions, scrolls, wands and staves (`quaff`, `recite`, `use`; issue 51): the spells an
//! object holds, cast at the object's level as CircleMUD's `mag_objectmagic` casts them
//! — a potion on the one who drinks it, a scroll on its target (or its reader), a wand
//! on whom it points at, a staff on everyone else in the room; wands and staves spend a
//! charge. The spell numbers are CircleMUD's (Dark Pawns and tbaMUD keep them); a spell
//! pawns does not have does nothing.

use super::CmdStatus;
use crate::game::model::tables::{item_type, Position};
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::profile::Family;

/// CircleMUD's word of recall: to the temple (only objects cast it here).
const WORD_OF_RECALL: i32 = 42;

/// The level a wand or staff without one casts at.
const DEFAULT_LEVEL: i32 = 12;

impl Engine {
    pub fn do_quaff(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.use_item(ch, args, "quaff")
    }

    pub fn do_recite(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.use_item(ch, args, "recite")
    }

    pub fn do_use(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.use_item(ch, args, "use")
    }

    fn use_item(&mut self, ch: CharId, args: &str, how: &str) -> CmdStatus {
        let (what, target) = args.trim().split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((args.trim(), ""));
        if what.is_empty() {
            self.send_text(ch, &format!("What do you want to {how}?"));
            return CmdStatus::InvalidTarget;
        }
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let held: Vec<ObjId> = c.equipment[17].into_iter().collect();
        let pool = if how == "use" { held } else { held.into_iter().chain(c.inventory.iter().copied()).collect() };
        let Some(o) = self.find_obj_in(&pool, what) else {
            let an = if what.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) { "an" } else { "a" };
            let line = if how == "use" && self.world.profile.family != Family::DarkPawns {
                format!("You don't seem to be holding {an} {what}.")
            } else {
                format!("You don't seem to have {an} {what}.")
            };
            self.send_text(ch, &line);
            return CmdStatus::InvalidTarget;
        };
        let Some(obj) = self.world.obj(o) else { return CmdStatus::Failed };
        let (kind, values) = (obj.item_type, obj.values);
        let wrong = match how {
            "quaff" if kind != item_type::POTION => Some("You can only quaff potions."),
            "recite" if kind != item_type::SCROLL => Some("You can only recite scrolls."),
            "use" if kind != item_type::WAND && kind != item_type::STAFF => Some("You can't seem to figure out how to use it."),
            _ => None,
        };
        if let Some(w) = wrong {
            self.send_text(ch, w);
            return CmdStatus::Failed;
        }
        let level = if values[0] > 0 { values[0] } else { DEFAULT_LEVEL };
        match kind {
            item_type::POTION => {
                if !self.dg_consume(ch, o, "quaff") {
                    return CmdStatus::Failed;
                }
                self.act("You quaff $p.", ch, None, Some(o), To::Actor, EventKind::Text);
                self.act("$n quaffs $p.", ch, None, Some(o), To::Room, EventKind::System);
                self.world.extract_obj(o);
                self.world.set_wait(ch, 2, false);
                for n in &values[1..] {
                    self.object_spell(ch, ch, *n, level);
                }
            }
            item_type::SCROLL => {
                let victim = if target.is_empty() { Some(ch) } else { self.find_char_room(ch, target) };
                let Some(victim) = victim else {
                    self.act("There is nothing to here to affect with $p.", ch, None, Some(o), To::Actor, EventKind::Text);
                    return CmdStatus::InvalidTarget;
                };
                self.act("You recite $p which dissolves.", ch, None, Some(o), To::Actor, EventKind::Text);
                self.act("$n recites $p.", ch, None, Some(o), To::Room, EventKind::System);
                self.world.extract_obj(o);
                self.world.set_wait(ch, 2, false);
                for n in &values[1..] {
                    self.object_spell(ch, victim, *n, level);
                }
            }
            item_type::STAFF => {
                self.act("You tap $p three times on the ground.", ch, None, Some(o), To::Actor, EventKind::Text);
                self.act("$n taps $p three times on the ground.", ch, None, Some(o), To::Room, EventKind::System);
                if !self.spend_charge(ch, o) {
                    return CmdStatus::Failed;
                }
                let room = self.world.ch(ch).map(|c| c.room).unwrap_or(0);
                for p in self.world.rooms[room].people.clone().into_iter().filter(|p| *p != ch) {
                    self.object_spell(ch, p, values[3], level);
                }
            }
            _ => {
                // A wand: pointed at someone here (oneself included).
                let Some(victim) = (if target.is_empty() { None } else { self.find_char_room(ch, target) }) else {
                    self.act("At what should $p be pointed?", ch, None, Some(o), To::Actor, EventKind::Text);
                    return CmdStatus::InvalidTarget;
                };
                if victim == ch {
                    self.act("You point $p at yourself.", ch, None, Some(o), To::Actor, EventKind::Text);
                    self.act("$n points $p at $mself.", ch, None, Some(o), To::Room, EventKind::System);
                } else {
                    self.act("You point $p at $N.", ch, Some(victim), Some(o), To::Actor, EventKind::Text);
                    self.act("$n points $p at $N.", ch, Some(victim), Some(o), To::NotVictim, EventKind::System);
                    self.act("$n points $p at you.", ch, Some(victim), Some(o), To::Victim, EventKind::System);
                }
                if !self.spend_charge(ch, o) {
                    return CmdStatus::Failed;
                }
                self.object_spell(ch, victim, values[3], level);
            }
        }
        CmdStatus::Ok
    }

    /// A wand's or staff's charge (its third value), or "It seems powerless."
    fn spend_charge(&mut self, ch: CharId, o: ObjId) -> bool {
        let charges = self.world.obj(o).map(|x| x.values[2]).unwrap_or(0);
        if charges <= 0 {
            self.send_text(ch, "It seems powerless.");
            self.act("Nothing seems to happen.", ch, None, None, To::Room, EventKind::System);
            return false;
        }
        if let Some(x) = self.world.objs.get_mut(&o) {
            x.values[2] -= 1;
        }
        self.world.set_wait(ch, 2, false);
        true
    }

    /// Spell number `n` from an object, at `level`, on `victim` (nothing for 0 or one pawns
    /// does not have; an attack starts a fight as a cast one does).
    fn object_spell(&mut self, ch: CharId, victim: CharId, n: i32, level: i32) {
        let name = if n == WORD_OF_RECALL { Some("word of recall") } else { crate::game::rules::spells::spell_by_number(n as i64) };
        let Some(name) = name else { return };
        if self.world.ch(victim).is_none_or(|v| v.position <= Position::Dead) {
            return;
        }
        if name == "word of recall" {
            self.act("$n disappears.", victim, None, None, To::Room, EventKind::Leave);
            let start = self.start_room;
            self.world.move_char(victim, start);
            self.act("$n appears in the middle of the room.", victim, None, None, To::Room, EventKind::Enter);
            self.show_room(victim);
            return;
        }
        let offensive =
            crate::game::rules::spells::find_spell(name).is_some_and(|s| s.target == crate::game::rules::spells::Target::Offensive);
        if offensive && victim != ch && !self.may_attack(ch, victim) {
            return;
        }
        self.spell_effect_at(name, ch, victim, level);
        if offensive && victim != ch && self.world.ch(victim).is_some_and(|v| v.position > Position::Dead) {
            self.start_fight(ch, victim);
        }
    }
}

//! Procedures of the fight, run in the combat round after the mob's blow:
//! `magic_user` and `cleric` cast, `fighter` kicks and bashes, `snake` poisons.

use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// The damage spell a `magic_user` of `level` casts (CircleMUD's ladder).
pub fn mage_spell(level: u8) -> &'static str {
    match level {
        0..=5 => "magic missile",
        6..=7 => "chill touch",
        8..=9 => "burning hands",
        10..=11 => "shocking grasp",
        12..=13 => "lightning bolt",
        14..=17 => "color spray",
        _ => "fireball",
    }
}

impl Engine {
    /// Whom a fighting mob's spell goes to: now and then another of those fighting it,
    /// else the one it fights (when that one is here).
    fn spell_victim(&mut self, id: CharId) -> Option<CharId> {
        let c = self.world.ch(id)?;
        let room = c.room;
        let fighting = c.fighting;
        let foes: Vec<CharId> =
            self.world.rooms[room].people.iter().copied().filter(|p| self.world.ch(*p).is_some_and(|v| v.fighting == Some(id))).collect();
        for f in foes {
            if self.roll(0, 4) == 0 {
                return Some(f);
            }
        }
        fighting.filter(|f| self.world.ch(*f).is_some_and(|v| v.room == room))
    }

    /// `magic_user`: blinds and curses now and then; one round in five casts the damage
    /// spell of its level.
    pub(super) fn spec_magic_user(&mut self, id: CharId) -> bool {
        let Some(victim) = self.spell_victim(id) else { return false };
        let Some(c) = self.world.ch(id) else { return false };
        let (level, evil) = (c.level, c.alignment < -350);
        let mut cast = false;
        if level > 7 && self.roll(0, 8) == 0 {
            self.mob_cast(id, victim, "blindness");
            cast = true;
        }
        if level > 12 && self.roll(0, 12) == 0 && self.world.ch(victim).is_some() {
            self.mob_cast(id, victim, if evil { "curse" } else { "dispel evil" });
            cast = true;
        }
        if self.roll(0, 4) != 0 || self.world.ch(victim).is_none_or(|v| v.position <= crate::game::model::tables::Position::Dead) {
            return cast;
        }
        self.mob_cast(id, victim, mage_spell(level));
        true
    }

    /// `cleric`: a hurt cleric heals itself; otherwise one round in four it curses or
    /// smites by its level (harm, earthquake, blindness).
    pub(super) fn spec_cleric(&mut self, id: CharId) -> bool {
        let Some(c) = self.world.ch(id) else { return false };
        let (level, hurt) = (c.level, c.hit < c.max_hit / 2);
        if hurt && self.roll(0, 2) == 0 {
            self.mob_cast(id, id, if level >= 16 { "heal" } else { "cure critic" });
            return true;
        }
        if self.roll(0, 3) != 0 {
            return false;
        }
        let Some(victim) = self.spell_victim(id) else { return false };
        let cursed = self.affected(victim, crate::game::rules::spells::AffectKind::Curse);
        let spell = match level {
            _ if !cursed && self.roll(0, 2) == 0 => "curse",
            19.. => "harm",
            12.. => "earthquake",
            6.. => "blindness",
            _ => return false,
        };
        self.mob_cast(id, victim, spell);
        true
    }

    /// `fighter`: one round in four, a kick or a bash at the one it fights.
    pub(super) fn spec_fighter(&mut self, id: CharId) -> bool {
        let Some(victim) = self.spell_victim(id) else { return false };
        if self.roll(0, 3) != 0 {
            return false;
        }
        if self.roll(0, 1) == 0 {
            self.perform_kick(id, victim);
        } else {
            self.perform_bash(id, victim);
        }
        true
    }

    /// `snake`: now and then (more often the higher its level) a poisonous bite.
    pub(super) fn spec_snake(&mut self, id: CharId) -> bool {
        let Some(c) = self.world.ch(id) else { return false };
        let level = c.level as i32;
        let Some(victim) = c.fighting.filter(|v| self.world.ch(*v).is_some_and(|v| v.room == c.room)) else { return false };
        if self.roll(0, (42 - level).max(0)) != 0 {
            return false;
        }
        self.act("$n bites $N!", id, Some(victim), None, To::NotVictim, EventKind::Combat);
        self.act("$n bites you!", id, Some(victim), None, To::Victim, EventKind::Combat);
        self.magic_effect("poison", id, victim, level);
        true
    }
}

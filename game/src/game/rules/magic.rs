//! The spells past the first few, with CircleMUD's dice: the mage's damage ladder
//! (chill touch … fireball), blindness, curse and poison, and the cleric's earthquake,
//! dispel evil, heal and harm. Players learn them at their class levels (`spells`);
//! the `magic_user` and `cleric` special procedures cast them without mana
//! ([`Engine::mob_cast`]), as the original's `cast_spell` from a procedure did.

use crate::game::model::tables::Position;
use crate::game::model::world::CharId;
use crate::game::rules::clock::PULSES_PER_MUD_HOUR;
use crate::game::rules::spells::{Affect, AffectKind};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// Hit points poison takes every mud hour.
pub const POISON_DAMAGE: i32 = 2;

/// What an effect does to its bearer's chance to hit.
pub fn hitroll_of(a: &Affect) -> i32 {
    match a.kind {
        AffectKind::Blind => -4,
        AffectKind::Curse | AffectKind::Bless => a.modifier,
        _ => 0,
    }
}

/// Damage dice for the damage spells: (number, size, bonus), CircleMUD's `mag_damage`.
pub fn damage_dice(name: &str) -> Option<(i32, i32, i32)> {
    Some(match name {
        "chill touch" => (1, 6, 1),
        "shocking grasp" => (5, 8, 5),
        "lightning bolt" => (7, 8, 7),
        "color spray" => (9, 8, 9),
        "fireball" => (11, 8, 11),
        "dispel evil" => (6, 8, 6),
        "harm" => (8, 8, 8),
        _ => return None,
    })
}

impl Engine {
    /// The effect of a spell `spells::spell_effect` does not handle itself.
    pub(crate) fn magic_effect(&mut self, name: &str, ch: CharId, victim: CharId, level: i32) {
        if let Some((n, size, bonus)) = damage_dice(name) {
            if name == "dispel evil" && self.world.ch(victim).is_some_and(|v| v.alignment >= -350) {
                self.act("The gods protect $N.", ch, Some(victim), None, To::Actor, EventKind::Combat);
                return;
            }
            let dam = self.dice(n, size) + bonus;
            self.damage(ch, victim, dam, crate::game::rules::combat::TYPE_SPELL);
            return;
        }
        if let Some(kind) = name.strip_suffix(" breath") {
            // A dragon's breath (what the world's scripts ask for): its level in dice.
            self.act(&format!("$n breathes {kind} at $N!"), ch, Some(victim), None, To::NotVictim, EventKind::Combat);
            self.act(&format!("$n breathes {kind} at you!"), ch, Some(victim), None, To::Victim, EventKind::Combat);
            let dam = self.dice(level.max(1) / 2 + 1, 10);
            self.damage(ch, victim, dam, crate::game::rules::combat::TYPE_SPELL);
            return;
        }
        match name {
            "blindness" | "curse" | "poison" => {
                let (kind, modifier, hours, to_victim, to_room) = match name {
                    "blindness" => (AffectKind::Blind, -4, 2, "You have been blinded!", "$n seems to be blinded!"),
                    "curse" => (AffectKind::Curse, -1, 1 + level as u64 / 2, "You feel very uncomfortable.", "$n briefly glows red!"),
                    _ => (AffectKind::Poison, -2, level.max(1) as u64, "You feel very sick.", "$n gets violently ill!"),
                };
                if self.affected(victim, kind) {
                    self.send_text(ch, "Nothing seems to happen.");
                    return;
                }
                self.add_affect(victim, Affect { kind, pulses: hours * PULSES_PER_MUD_HOUR, modifier });
                self.send_text(victim, to_victim);
                self.act(to_room, victim, None, None, To::Room, EventKind::Combat);
                self.recompute_armour(victim);
            }
            "heal" => {
                if let Some(v) = self.world.chars.get_mut(&victim) {
                    v.hit = (v.hit + 100 + level).min(v.max_hit);
                }
                self.send_text(victim, "A warm feeling fills your body.");
                self.update_pos(victim);
            }
            "earthquake" => self.earthquake(ch, level),
            _ => {}
        }
    }

    /// Earthquake: everyone standing in the room but the caster's own side falls hurt;
    /// a mob's quake spares other mobs, as the original's did.
    fn earthquake(&mut self, ch: CharId, level: i32) {
        let Some(c) = self.world.ch(ch) else { return };
        let room = c.room;
        let npc = c.is_npc();
        self.send_text(ch, "You gesture and the earth begins to shake all around you!");
        self.act("$n gracefully gestures and the earth begins to shake violently!", ch, None, None, To::Room, EventKind::Combat);
        let side = self.group_members(ch);
        let victims: Vec<CharId> = self.world.rooms[room]
            .people
            .iter()
            .copied()
            .filter(|p| *p != ch && !side.contains(p))
            .filter(|p| self.world.ch(*p).is_some_and(|v| v.position > Position::Dead && !(npc && v.is_npc())))
            .collect();
        for v in victims {
            let dam = self.dice(2, 8) + level;
            self.damage(ch, v, dam, crate::game::rules::combat::TYPE_SPELL);
            if self.world.ch(v).is_some_and(|c| c.position > Position::Dead) {
                self.start_fight(ch, v);
            }
        }
    }

    /// A special procedure's cast: the words, then the effect; no mana, no roll.
    pub(crate) fn mob_cast(&mut self, ch: CharId, victim: CharId, name: &str) {
        self.act(&format!("$n utters the words, '{name}'."), ch, None, None, To::Room, EventKind::Combat);
        self.spell_effect(name, ch, victim);
        if ch != victim && self.world.ch(victim).is_some_and(|v| v.position > Position::Dead) {
            let defensive =
                crate::game::rules::spells::find_spell(name).is_some_and(|s| s.target == crate::game::rules::spells::Target::Defensive);
            if !defensive {
                self.start_fight(ch, victim);
            }
        }
    }

    /// Every mud hour, poison hurts whoever carries it (as in CircleMUD, it can kill).
    pub fn poison_tick(&mut self) {
        let poisoned: Vec<CharId> = (self.world.affected.iter().copied())
            .filter(|id| self.world.ch(*id).is_some_and(|c| c.affects.iter().any(|a| a.kind == AffectKind::Poison)))
            .collect();
        for id in poisoned {
            self.send_text(id, "You feel the poison burning in your veins.");
            self.damage(id, id, POISON_DAMAGE, crate::game::rules::combat::TYPE_SUFFERING);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_dice_follow_circlemud() {
        assert_eq!(damage_dice("fireball"), Some((11, 8, 11)));
        assert_eq!(damage_dice("chill touch"), Some((1, 6, 1)));
        assert_eq!(damage_dice("armor"), None);
        let blind = Affect { kind: AffectKind::Blind, pulses: 1, modifier: 0 };
        let curse = Affect { kind: AffectKind::Curse, pulses: 1, modifier: -1 };
        assert_eq!(hitroll_of(&blind) + hitroll_of(&curse), -5);
    }
}

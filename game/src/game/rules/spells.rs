//! Spells and skills: what each class can learn and at what level, `practice` at a
//! guild master, `cast` with mana, and the effects spells leave (`Affect`).
//!
//! A spell or skill must be practised before use; each practice session raises it by
//! a step that depends on intelligence (CircleMUD's rule, capped at 75%, the rest comes
//! from use). A cast rolls against that percentage: a failed roll costs half the mana.

use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// Practice sessions a new character starts with.
pub const STARTING_PRACTICES: u32 = 5;
/// Practice sessions gained per level.
pub const PRACTICES_PER_LEVEL: u32 = 2;
/// The most a practice session can teach; use does the rest.
pub const MAX_PRACTICE: u8 = 75;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An enemy in the room (or the one being fought).
    Offensive,
    /// Anyone in the room, the caster when no one is named.
    Defensive,
    /// A mob in the room (not a player).
    Mob,
    /// A skill used through its own command, not `cast`.
    Skill,
    /// Everyone in the room but the caster's side (earthquake): no target is named.
    Area,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AffectKind {
    /// AC bonus (CircleMUD scale: -20 is two points of armour).
    Armor,
    /// +hitroll, and a little AC.
    Bless,
    /// Follows its master and obeys `order`.
    Charm,
    /// Moving unseen (no arrival or departure messages).
    Sneak,
    /// Blinded: -4 to hit, 4 points worse armour.
    Blind,
    /// Cursed: `modifier` to hit.
    Curse,
    /// Poisoned: loses hit points every mud hour (see `magic::poison_tick`).
    Poison,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Affect {
    pub kind: AffectKind,
    /// Pulses left.
    pub pulses: u64,
    pub modifier: i32,
}

pub struct Spell {
    pub name: &'static str,
    pub mana: i32,
    pub target: Target,
    /// Lowest level per class that may learn it: (class, level).
    pub levels: &'static [(u8, u8)],
}

use crate::game::model::tables::class::{CLERIC, MAGE, NINJA, PSIONIC, THIEF, WARRIOR};

pub static SPELLS: &[Spell] = &[
    Spell { name: "magic missile", mana: 15, target: Target::Offensive, levels: &[(MAGE, 1), (PSIONIC, 2)] },
    Spell { name: "burning hands", mana: 20, target: Target::Offensive, levels: &[(MAGE, 5)] },
    Spell { name: "cure light", mana: 10, target: Target::Defensive, levels: &[(CLERIC, 1), (PSIONIC, 4)] },
    Spell { name: "cure critic", mana: 25, target: Target::Defensive, levels: &[(CLERIC, 9)] },
    Spell { name: "armor", mana: 10, target: Target::Defensive, levels: &[(MAGE, 4), (CLERIC, 1), (PSIONIC, 3)] },
    Spell { name: "bless", mana: 15, target: Target::Defensive, levels: &[(CLERIC, 5)] },
    Spell { name: "charm person", mana: 25, target: Target::Mob, levels: &[(MAGE, 8), (PSIONIC, 10)] },
    Spell { name: "kick", mana: 0, target: Target::Skill, levels: &[(WARRIOR, 1), (NINJA, 1)] },
    Spell { name: "bash", mana: 0, target: Target::Skill, levels: &[(WARRIOR, 3)] },
    Spell { name: "rescue", mana: 0, target: Target::Skill, levels: &[(WARRIOR, 3), (NINJA, 5)] },
    Spell { name: "backstab", mana: 0, target: Target::Skill, levels: &[(THIEF, 3), (NINJA, 1)] },
    Spell { name: "sneak", mana: 0, target: Target::Skill, levels: &[(THIEF, 1), (NINJA, 2)] },
    Spell { name: "hide", mana: 0, target: Target::Skill, levels: &[(THIEF, 5), (NINJA, 3)] },
    Spell { name: "pick lock", mana: 0, target: Target::Skill, levels: &[(THIEF, 2)] },
    // Dark Pawns's levels (tbaMUD: steal at 4, track for thieves at 6 too).
    Spell { name: "steal", mana: 0, target: Target::Skill, levels: &[(THIEF, 3)] },
    Spell { name: "track", mana: 0, target: Target::Skill, levels: &[(WARRIOR, 9)] },
    // CircleMUD's ladder, at its class levels (what `magic_user` and `cleric` mobs cast).
    Spell { name: "chill touch", mana: 15, target: Target::Offensive, levels: &[(MAGE, 3)] },
    Spell { name: "shocking grasp", mana: 30, target: Target::Offensive, levels: &[(MAGE, 7)] },
    Spell { name: "lightning bolt", mana: 30, target: Target::Offensive, levels: &[(MAGE, 9)] },
    Spell { name: "color spray", mana: 30, target: Target::Offensive, levels: &[(MAGE, 11)] },
    Spell { name: "fireball", mana: 40, target: Target::Offensive, levels: &[(MAGE, 15)] },
    Spell { name: "blindness", mana: 35, target: Target::Offensive, levels: &[(MAGE, 9), (CLERIC, 6)] },
    Spell { name: "curse", mana: 80, target: Target::Offensive, levels: &[(MAGE, 14)] },
    Spell { name: "poison", mana: 50, target: Target::Offensive, levels: &[(MAGE, 14), (CLERIC, 8)] },
    Spell { name: "earthquake", mana: 40, target: Target::Area, levels: &[(CLERIC, 12)] },
    Spell { name: "dispel evil", mana: 40, target: Target::Offensive, levels: &[(CLERIC, 14)] },
    Spell { name: "heal", mana: 60, target: Target::Defensive, levels: &[(CLERIC, 16)] },
    Spell { name: "harm", mana: 75, target: Target::Offensive, levels: &[(CLERIC, 19)] },
];

pub fn find_spell(name: &str) -> Option<&'static Spell> {
    let n = name.trim().to_ascii_lowercase();
    if n.is_empty() {
        return None;
    }
    SPELLS.iter().find(|s| s.name == n).or_else(|| SPELLS.iter().find(|s| s.name.starts_with(&n)))
}

/// The level at which `class` may learn `spell`, if ever.
pub fn learn_level(spell: &Spell, class: u8) -> Option<u8> {
    spell.levels.iter().find(|(c, _)| *c == class).map(|(_, l)| *l)
}

/// How much one practice session teaches a character with intelligence `int`.
pub fn practice_gain(int: u8) -> u8 {
    (int / 2).clamp(3, 12)
}

/// A spell by its name or an abbreviation of it ("magic mis", "cure light"), among
/// those CircleMUD numbers (`spell_by_number`).
pub fn spell_named(name: &str) -> Option<&'static str> {
    let n = name.trim().to_ascii_lowercase();
    if n.is_empty() {
        return None;
    }
    let all = (1..=206).filter_map(spell_by_number);
    let words: Vec<&str> = n.split_whitespace().collect();
    all.clone().find(|s| *s == n).or_else(|| {
        all.into_iter().find(|s| {
            let sw: Vec<&str> = s.split_whitespace().collect();
            words.len() <= sw.len() && words.iter().zip(&sw).all(|(w, x)| x.starts_with(w))
        })
    })
}

/// A spell's CircleMUD number (what a cast trigger's `%spell%` is).
pub fn spell_number(name: &str) -> Option<i64> {
    (1..=206).find(|n| spell_by_number(*n) == Some(name))
}

/// The spell a CircleMUD spell number names (the originals' `SPELL_*`, which Dark
/// Pawns's scripts and both families' potions, scrolls, wands and staves use); the ones
/// pawns does not have are `None` (an object's word of recall, 42, is `magic_items`'s).
pub fn spell_by_number(n: i64) -> Option<&'static str> {
    Some(match n {
        1 => "armor",
        3 => "bless",
        4 => "blindness",
        5 => "burning hands",
        7 => "charm person",
        8 => "chill touch",
        10 => "color spray",
        15 => "cure critic",
        16 => "cure light",
        17 => "curse",
        22 => "dispel evil",
        23 => "earthquake",
        26 => "fireball",
        27 => "harm",
        28 => "heal",
        30 => "lightning bolt",
        32 => "magic missile",
        33 => "poison",
        37 => "shocking grasp",
        202 => "fire breath",
        203 => "gas breath",
        204 => "frost breath",
        205 => "acid breath",
        206 => "lightning breath",
        _ => return None,
    })
}

/// Splits `cast 'magic missile' goblin` into the spell name and the rest.
pub fn parse_cast(args: &str) -> Option<(&str, &str)> {
    let a = args.trim();
    if let Some(rest) = a.strip_prefix('\'') {
        let end = rest.find('\'')?;
        return Some((rest[..end].trim(), rest[end + 1..].trim()));
    }
    // Without quotes: the longest spell name the words start with.
    let lower = a.to_ascii_lowercase();
    let best = SPELLS.iter().filter(|s| lower == s.name || lower.starts_with(&format!("{} ", s.name))).max_by_key(|s| s.name.len())?;
    Some((&a[..best.name.len()], a[best.name.len()..].trim()))
}

impl Engine {
    fn skill_of(&self, ch: CharId, name: &str) -> u8 {
        match self.world.ch(ch) {
            Some(c) if c.is_npc() => (c.level as u32 * 3 + 20).min(95) as u8,
            Some(c) => c.pc.as_ref().and_then(|p| p.skills.get(name).copied()).unwrap_or(0),
            None => 0,
        }
    }

    /// Rolls a use of a skill or spell: `true` if it works.
    pub fn skill_roll(&mut self, ch: CharId, name: &str) -> bool {
        let pct = self.skill_of(ch, name) as i32;
        self.roll(1, 101) <= pct
    }

    /// Whether `ch` knows `name` well enough to try it; says so when not.
    pub fn knows(&mut self, ch: CharId, name: &str) -> bool {
        if self.skill_of(ch, name) == 0 {
            self.send_text(ch, "You have no idea how to do that.");
            return false;
        }
        true
    }

    /// A guild master for this class in the room: a mob whose keywords say `guildmaster`
    /// and name the class (as the world files write them).
    pub(crate) fn guild_master_here(&self, ch: CharId, class: u8) -> Option<CharId> {
        let room = self.world.ch(ch)?.room;
        let words: &[&str] = match class {
            MAGE => &["mage", "magic", "wizard", "sorcerer"],
            CLERIC => &["cleric", "priest"],
            THIEF => &["thief", "rogue"],
            WARRIOR => &["warrior", "fighter"],
            NINJA => &["ninja", "thief", "warrior"],
            _ => &["psionic", "mage", "magic"],
        };
        self.world.rooms[room].people.iter().copied().find(|p| {
            // The world's `guild` procedure makes a master of any class it names (or
            // of every class, when its keywords name none: the original taught the
            // player's own class).
            if self.mob_special(*p) == Some("guild") {
                // Dark Pawns's and tbaMUD's `guild` teaches whoever asks (their guild
                // guards keep the other classes out).
                if self.world.profile.family != crate::worldfile::profile::Family::Circle {
                    return true;
                }
                let named = self.world.ch(*p).and_then(|m| crate::game::rules::specials::places::class_named(&m.keywords));
                return named.is_none_or(|c| c == class || (class == NINJA && matches!(c, THIEF | WARRIOR)));
            }
            self.world.ch(*p).is_some_and(|m| {
                let kw = m.keywords.to_ascii_lowercase();
                m.is_npc() && kw.contains("guildmaster") && words.iter().any(|w| kw.split_whitespace().any(|k| k == *w))
            })
        })
    }

    pub(crate) fn spell_effect(&mut self, name: &str, ch: CharId, victim: CharId) {
        let level = self.world.ch(ch).map(|c| c.level as i32).unwrap_or(1);
        self.spell_effect_at(name, ch, victim, level);
    }

    /// A spell's effect at `level` (a potion's, a scroll's, a wand's own level).
    pub(crate) fn spell_effect_at(&mut self, name: &str, ch: CharId, victim: CharId, level: i32) {
        match name {
            "magic missile" | "burning hands" => {
                let dam = if name == "magic missile" { self.dice(1, 8) + 1 + level / 2 } else { self.dice(3, 8) + level };
                self.damage(ch, victim, dam, crate::game::rules::combat::TYPE_SPELL);
            }
            "cure light" | "cure critic" => {
                let heal = if name == "cure light" { self.dice(1, 8) + 1 + level / 4 } else { self.dice(3, 8) + 3 + level / 4 };
                if let Some(v) = self.world.chars.get_mut(&victim) {
                    v.hit = (v.hit + heal).min(v.max_hit);
                }
                self.send_text(victim, "You feel better.");
                self.update_pos(victim);
            }
            "armor" | "bless" => {
                let kind = if name == "armor" { AffectKind::Armor } else { AffectKind::Bless };
                if self.world.ch(victim).is_some_and(|v| v.affects.iter().any(|a| a.kind == kind)) {
                    self.send_text(ch, "Nothing seems to happen.");
                    return;
                }
                let (modifier, hours) = if kind == AffectKind::Armor { (-20, 24) } else { (1, 6) };
                self.add_affect(victim, Affect { kind, pulses: hours * crate::game::rules::clock::PULSES_PER_MUD_HOUR, modifier });
                self.send_text(victim, if kind == AffectKind::Armor { "You feel someone protecting you." } else { "You feel righteous." });
            }
            "charm person" => self.charm(ch, victim, level),
            other => self.magic_effect(other, ch, victim, level),
        }
    }

    fn charm(&mut self, ch: CharId, victim: CharId, level: i32) {
        let Some(v) = self.world.ch(victim) else { return };
        if !v.is_npc() {
            self.send_text(ch, "You can't charm other players.");
            return;
        }
        let v_fighting = v.fighting;
        if v.affects.iter().any(|a| a.kind == AffectKind::Charm) || v.level as i32 > level {
            self.act("$N resists your charms.", ch, Some(victim), None, To::Actor, EventKind::Text);
            // A failed charm makes an enemy.
            if v_fighting.is_none() {
                self.hit(victim, ch);
            }
            return;
        }
        if v_fighting.is_some() {
            self.stop_fighting(victim);
        }
        self.stop_follower(victim);
        self.add_follower(victim, ch);
        let int = self.world.ch(victim).map(|c| c.abilities[1] as u64).unwrap_or(11).max(1);
        let hours = (24 * 18 / int).max(1);
        self.add_affect(
            victim,
            Affect { kind: AffectKind::Charm, pulses: hours * crate::game::rules::clock::PULSES_PER_MUD_HOUR, modifier: 0 },
        );
        self.act("Isn't $n just such a nice fellow?", ch, Some(victim), None, To::Victim, EventKind::Text);
        self.act("$N looks at you with adoring eyes.", ch, Some(victim), None, To::Actor, EventKind::Text);
    }

    pub fn add_affect(&mut self, ch: CharId, a: Affect) {
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.affects.retain(|x| x.kind != a.kind);
            c.affects.push(a);
            self.world.affected.insert(ch);
        }
        self.recompute_armour(ch);
    }

    pub fn affected(&self, ch: CharId, kind: AffectKind) -> bool {
        self.world.ch(ch).is_some_and(|c| c.affects.iter().any(|a| a.kind == kind))
    }

    /// Counts spell effects down (every second, by the pulse), for the characters that
    /// have any (`World::affected`), in id order; a charm that wears off sets the mob free.
    pub fn affect_update(&mut self, elapsed: u64) {
        // Debug builds (every test) check that no character's effects escape the list.
        #[cfg(debug_assertions)]
        assert!(
            self.world.chars.values().all(|c| c.affects.is_empty() || self.world.affected.contains(&c.id)),
            "World::affected lists every character with a spell effect"
        );
        if self.world.affected.is_empty() {
            return;
        }
        let mut expired: Vec<(CharId, AffectKind)> = Vec::new();
        let ids: Vec<CharId> = self.world.affected.iter().copied().collect();
        for id in ids {
            let Some(c) = self.world.chars.get_mut(&id) else {
                self.world.affected.remove(&id);
                continue;
            };
            for a in c.affects.iter_mut() {
                a.pulses = a.pulses.saturating_sub(elapsed);
                if a.pulses == 0 {
                    expired.push((c.id, a.kind));
                }
            }
            c.affects.retain(|a| a.pulses > 0);
            if c.affects.is_empty() {
                self.world.affected.remove(&id);
            }
        }
        for (id, kind) in expired {
            match kind {
                AffectKind::Armor => self.send_text(id, "You feel less protected."),
                AffectKind::Bless => self.send_text(id, "You feel less righteous."),
                AffectKind::Charm => {
                    self.stop_follower(id);
                }
                AffectKind::Sneak => self.send_text(id, "You feel less sneaky."),
                AffectKind::Blind => self.send_text(id, "You feel a cloak of blindness dissolve."),
                AffectKind::Curse => self.send_text(id, "You feel more optimistic."),
                AffectKind::Poison => self.send_text(id, "You feel less sick."),
            }
            self.recompute_armour(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_arguments() {
        assert_eq!(parse_cast("'magic missile' goblin"), Some(("magic missile", "goblin")));
        assert_eq!(parse_cast("'cure light' self"), Some(("cure light", "self")));
        assert_eq!(parse_cast("'armor'"), Some(("armor", "")));
        assert_eq!(parse_cast("armor"), Some(("armor", "")));
        assert_eq!(parse_cast("magic missile 2.goblin"), Some(("magic missile", "2.goblin")));
        assert_eq!(parse_cast("'unclosed"), None);
        assert_eq!(find_spell("magic").map(|s| s.name), Some("magic missile"));
        assert_eq!(find_spell("cure l").map(|s| s.name), Some("cure light"));
        assert!(find_spell("").is_none());
    }

    #[test]
    fn classes_learn_their_own_spells() {
        let mm = find_spell("magic missile").unwrap();
        assert_eq!(learn_level(mm, MAGE), Some(1));
        assert_eq!(learn_level(mm, WARRIOR), None);
        assert_eq!(learn_level(find_spell("kick").unwrap(), WARRIOR), Some(1));
        assert_eq!(practice_gain(18), 9);
        assert_eq!(practice_gain(3), 3);
    }
}

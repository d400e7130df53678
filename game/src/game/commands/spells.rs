//! Magic: `cast`, `practice`, `order` (the spell table and affects are `spells.rs`, the spells themselves `magic.rs`).

use super::CmdStatus;
use crate::game::model::tables::Position;
use crate::game::model::world::CharId;
use crate::game::rules::spells::{find_spell, learn_level, parse_cast, practice_gain, AffectKind, Target, MAX_PRACTICE, SPELLS};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    pub fn do_practice(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let (class, level, int) = (c.class, c.level, c.abilities[1]);
        let Some(pc) = c.pc.as_ref() else { return CmdStatus::Failed };
        let practices = pc.practices;
        let family = self.world.profile.family;
        // Dark Pawns and tbaMUD teach as their C does (`practice.rs`); pawns's own
        // world keeps its percentages.
        let dark_pawns = family != crate::worldfile::profile::Family::Circle;
        let tba = family == crate::worldfile::profile::Family::TbaMud;
        // `SPLSKL`: casters know spells, the others skills.
        let what = if matches!(class, 0 | 1) || (!tba && matches!(class, 4 | 5 | 9 | 11)) { "spell" } else { "skill" };
        if args.trim().is_empty() {
            let s = if practices == 1 { "" } else { "s" };
            let mut text = if dark_pawns {
                let what = if tba { what } else { "skill" };
                format!("You have {practices} practice session{s} remaining.\nYou know of the following {what}s:\n")
            } else {
                format!("You have {practices} practice session{s} left.\nYou know:\n")
            };
            for s in SPELLS.iter().filter(|s| learn_level(s, class).is_some_and(|l| l <= level)) {
                let pct = pc.skills.get(s.name).copied().unwrap_or(0);
                // Dark Pawns says how good in words (its `how_good`).
                if dark_pawns {
                    text.push_str(&format!("{:<20}  {}\n", s.name, crate::game::rules::practice::how_good(pct)));
                } else {
                    text.push_str(&format!("  {:<20} {:>3}%\n", s.name, pct));
                }
            }
            self.send_text(ch, text.trim_end());
            return CmdStatus::Ok;
        }
        let Some(master) = self.guild_master_here(ch, class) else {
            self.send_text(ch, "You can only practice skills in your guild.");
            return CmdStatus::Failed;
        };
        let name = args.trim().trim_matches('\'');
        if dark_pawns && practices == 0 {
            self.send_text(ch, "You do not seem to be able to practice now.");
            return CmdStatus::Failed;
        }
        let Some(spell) = find_spell(name).filter(|s| learn_level(s, class).is_some_and(|l| l <= level)) else {
            if dark_pawns {
                self.send_text(ch, &format!("You do not know of that {what}."));
            } else {
                self.act("$N tells you, 'You do not know of that.'", ch, Some(master), None, To::Actor, EventKind::Tell);
            }
            return CmdStatus::InvalidTarget;
        };
        if practices == 0 {
            self.send_text(ch, "You do not seem to be able to practice now.");
            return CmdStatus::Failed;
        }
        let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) else { return CmdStatus::Failed };
        let now = pc.skills.get(spell.name).copied().unwrap_or(0);
        let learned = if dark_pawns { crate::game::rules::practice::prac_params(class, tba).0 } else { MAX_PRACTICE };
        if now >= learned {
            self.send_text(ch, "You are already learned in that area.");
            return CmdStatus::Failed;
        }
        pc.practices -= 1;
        let next = if dark_pawns {
            crate::game::rules::practice::practised(class, int, now, tba)
        } else {
            (now + practice_gain(int)).min(MAX_PRACTICE)
        };
        pc.skills.insert(spell.name.to_string(), next);
        pc.dirty = true;
        if dark_pawns {
            self.send_text(ch, "You practice for a while...");
        } else {
            self.send_text(ch, &format!("You practice {} for a while... ({next}%)", spell.name));
        }
        if next >= learned {
            self.send_text(ch, "You are now learned in that area.");
        }
        CmdStatus::Ok
    }

    pub fn do_cast(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let Some((name, rest)) = parse_cast(args) else {
            self.send_text(ch, "Cast what where?  Spell names go in single quotes: cast 'magic missile' goblin");
            return CmdStatus::InvalidTarget;
        };
        let Some(spell) = find_spell(name).filter(|s| s.target != Target::Skill) else {
            self.send_text(ch, "Cast what?!?");
            return CmdStatus::InvalidTarget;
        };
        if !self.knows(ch, spell.name) {
            return CmdStatus::Failed;
        }
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let fighting = c.fighting;
        let mana = c.mana;
        let target = match spell.target {
            Target::Offensive => match (rest.is_empty(), fighting) {
                (true, Some(f)) => Some(f),
                _ => self.find_char_room(ch, rest),
            },
            Target::Area => Some(ch),
            Target::Defensive if rest.is_empty() => Some(ch),
            _ => self.find_char_room(ch, rest),
        };
        let Some(victim) = target else {
            self.send_text(ch, if rest.is_empty() { "Whom should the spell be cast upon?" } else { "Nobody here by that name." });
            return CmdStatus::InvalidTarget;
        };
        if spell.target == Target::Offensive && victim == ch {
            self.send_text(ch, "You can't cast that on yourself!");
            return CmdStatus::InvalidTarget;
        }
        if spell.target == Target::Offensive && !self.may_attack(ch, victim) {
            return CmdStatus::Failed;
        }
        if mana < spell.mana {
            self.send_text(ch, "You haven't the energy to cast that spell!");
            return CmdStatus::Failed;
        }
        self.world.set_wait(ch, 2, false);
        if !self.skill_roll(ch, spell.name) {
            if let Some(c) = self.world.chars.get_mut(&ch) {
                c.mana -= spell.mana / 2;
            }
            self.send_text(ch, "You lost your concentration!");
            return CmdStatus::Failed;
        }
        self.send_text(ch, "Ok.");
        self.act(&format!("$n utters the words, '{}'.", spell.name), ch, None, None, To::Room, EventKind::Text);
        // tbaMUD's cast triggers (the room's, the target's) may stop it: the words were
        // spoken, no mana is spent.
        if !self.dg_cast_allowed(ch, victim, spell.name) {
            return CmdStatus::Failed;
        }
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.mana -= spell.mana;
        }
        self.spell_effect(spell.name, ch, victim);
        // An attack spell starts a fight, as a blow does (if both still stand).
        if spell.target == Target::Offensive && self.world.ch(victim).is_some_and(|v| v.position > Position::Dead) {
            self.start_fight(ch, victim);
        }
        if spell.target == Target::Defensive {
            self.record_social(ch, victim, "cooperation", spell.name);
        }
        CmdStatus::Ok
    }

    /// `order <follower|followers> <command>`: charmed followers do as they are told.
    pub fn do_order(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let Some((who, command)) = args.trim().split_once(char::is_whitespace) else {
            self.send_text(ch, "Order who to do what?");
            return CmdStatus::InvalidTarget;
        };
        let followers: Vec<CharId> = self.world.ch(ch).map(|c| c.followers.clone()).unwrap_or_default();
        let here = self.world.ch(ch).map(|c| c.room);
        let targets: Vec<CharId> = if who.eq_ignore_ascii_case("followers") || who.eq_ignore_ascii_case("all") {
            followers.iter().copied().filter(|f| self.world.ch(*f).map(|c| c.room) == here).collect()
        } else {
            self.find_char_room(ch, who).into_iter().collect()
        };
        if targets.is_empty() {
            self.send_text(ch, "That person isn't here.");
            return CmdStatus::InvalidTarget;
        }
        self.act(&format!("$n issues the order '{}'.", command.trim()), ch, None, None, To::Room, EventKind::Text);
        self.send_text(ch, "Ok.");
        for t in targets {
            let obeys = self.world.ch(t).is_some_and(|c| c.master == Some(ch)) && self.affected(t, AffectKind::Charm);
            if !obeys {
                self.act("$N has an indifferent look.", ch, Some(t), None, To::Actor, EventKind::Text);
                continue;
            }
            if self.world.ch(t).is_some_and(|c| c.position < Position::Resting) {
                continue;
            }
            // The mob runs the command through the same dispatcher as everyone.
            let saved = self.cur.take();
            self.dispatch(t, command.trim());
            self.cur = saved;
        }
        CmdStatus::Ok
    }
}

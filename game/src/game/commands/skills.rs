//! Skills used through their own commands: kick, bash, rescue, backstab, sneak, hide,
//! pick (lock), and `search` for secret doors (anyone may search; thieves do it best).
//! Each must be practised first (see `spells`), and rolls against what was learned.

use super::CmdStatus;
use crate::game::model::tables::Position;
use crate::game::model::world::CharId;
use crate::game::rules::doors::{hidden, EX_PICKPROOF};
use crate::game::rules::spells::{Affect, AffectKind};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    /// The opponent a fighting skill names, or the one being fought.
    fn skill_victim(&mut self, ch: CharId, args: &str, what: &str) -> Option<CharId> {
        let arg = args.split_whitespace().next().unwrap_or("");
        let v = if arg.is_empty() { self.world.ch(ch).and_then(|c| c.fighting) } else { self.find_char_room(ch, arg) };
        match v {
            Some(v) if v == ch => {
                self.send_text(ch, "Aren't we funny today...");
                None
            }
            Some(v) if self.may_attack(ch, v) => Some(v),
            Some(_) => None,
            None => {
                self.send_text(ch, &format!("{what} whom?"));
                None
            }
        }
    }

    pub fn do_kick(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if !self.knows(ch, "kick") {
            return CmdStatus::Failed;
        }
        let Some(v) = self.skill_victim(ch, args, "Kick") else { return CmdStatus::InvalidTarget };
        self.perform_kick(ch, v);
        CmdStatus::Ok
    }

    /// A kick (the command's, and the `fighter` procedure's).
    pub(crate) fn perform_kick(&mut self, ch: CharId, v: CharId) {
        let level = self.world.ch(ch).map(|c| c.level as i32).unwrap_or(1);
        let dam = if self.skill_roll(ch, "kick") { (level / 2).max(1) + self.dice(1, 4) } else { 0 };
        self.start_fight(ch, v);
        self.damage(ch, v, dam, 0);
        self.set_wait(ch, 6);
    }

    pub fn do_bash(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if !self.knows(ch, "bash") {
            return CmdStatus::Failed;
        }
        let Some(v) = self.skill_victim(ch, args, "Bash") else { return CmdStatus::InvalidTarget };
        self.perform_bash(ch, v);
        CmdStatus::Ok
    }

    /// A bash (the command's, and the `fighter` procedure's).
    pub(crate) fn perform_bash(&mut self, ch: CharId, v: CharId) {
        self.start_fight(ch, v);
        if self.skill_roll(ch, "bash") {
            self.act("You send $N sprawling with a powerful bash!", ch, Some(v), None, To::Actor, EventKind::Combat);
            self.act("$n sends you sprawling with a powerful bash!", ch, Some(v), None, To::Victim, EventKind::Combat);
            self.act("$n sends $N sprawling with a powerful bash!", ch, Some(v), None, To::NotVictim, EventKind::Combat);
            self.damage(ch, v, 1, 5);
            if let Some(c) = self.world.chars.get_mut(&v) {
                if c.position > Position::Sitting {
                    c.position = Position::Sitting;
                }
            }
            self.world.set_wait(v, 4, true);
        } else {
            self.act("You miss $N and fall over!", ch, Some(v), None, To::Actor, EventKind::Combat);
            self.act("$n tries to bash you and falls over!", ch, Some(v), None, To::Victim, EventKind::Combat);
            if let Some(c) = self.world.chars.get_mut(&ch) {
                c.position = Position::Sitting;
            }
        }
        self.set_wait(ch, 8);
    }

    pub fn do_rescue(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if !self.knows(ch, "rescue") {
            return CmdStatus::Failed;
        }
        let arg = args.split_whitespace().next().unwrap_or("");
        let Some(friend) = self.find_char_room(ch, arg).filter(|f| *f != ch) else {
            self.send_text(ch, "Whom do you want to rescue?");
            return CmdStatus::InvalidTarget;
        };
        let room = self.world.ch(ch).map(|c| c.room);
        let attacker = self.world.chars.values().find(|c| c.fighting == Some(friend) && Some(c.room) == room && c.id != ch).map(|c| c.id);
        let Some(attacker) = attacker else {
            self.act("But nobody is fighting $M!", ch, Some(friend), None, To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        };
        if !self.skill_roll(ch, "rescue") {
            self.send_text(ch, "You fail the rescue!");
            self.set_wait(ch, 4);
            return CmdStatus::Failed;
        }
        self.send_text(ch, "Banzai!  To the rescue...");
        self.act("You are rescued by $N, you are confused!", friend, Some(ch), None, To::Actor, EventKind::Combat);
        self.act("$n heroically rescues $N!", ch, Some(friend), None, To::NotVictim, EventKind::Combat);
        self.record_social(ch, friend, "cooperation", "rescue");
        self.stop_fighting(friend);
        self.stop_fighting(attacker);
        if self.world.ch(ch).is_some_and(|c| c.fighting.is_some()) {
            self.stop_fighting(ch);
        }
        self.start_fight(ch, attacker);
        self.start_fight(attacker, ch);
        self.set_wait(ch, 4);
        CmdStatus::Ok
    }

    pub fn do_backstab(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if !self.knows(ch, "backstab") {
            return CmdStatus::Failed;
        }
        if self.world.ch(ch).is_some_and(|c| c.fighting.is_some()) {
            self.send_text(ch, "You can't backstab while fighting!");
            return CmdStatus::Failed;
        }
        let Some(v) = self.skill_victim(ch, args, "Backstab") else { return CmdStatus::InvalidTarget };
        let pierce = self
            .world
            .ch(ch)
            .and_then(|c| c.equipment[16])
            .and_then(|o| self.world.obj(o))
            .is_some_and(|o| o.values[3] == 11 || o.values[3] == 14);
        if !pierce {
            self.send_text(ch, "Only piercing weapons can be used for backstabbing.");
            return CmdStatus::Failed;
        }
        if self.world.ch(v).is_some_and(|c| c.fighting.is_some()) {
            self.send_text(ch, "You can't backstab a fighting person -- they're too alert!");
            return CmdStatus::Failed;
        }
        if self.skill_roll(ch, "backstab") {
            let level = self.world.ch(ch).map(|c| c.level as i32).unwrap_or(1);
            let mult = 2 + level / 8;
            let dam = (self.dice(2, 4) + level / 2) * mult;
            self.start_fight(ch, v);
            self.damage(ch, v, dam, 14);
        } else {
            self.start_fight(ch, v);
            self.damage(ch, v, 0, 14);
        }
        self.set_wait(ch, 4);
        CmdStatus::Ok
    }

    pub fn do_sneak(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        if !self.knows(ch, "sneak") {
            return CmdStatus::Failed;
        }
        self.send_text(ch, "Okay, you'll try to move silently for a while.");
        if self.skill_roll(ch, "sneak") {
            let level = self.world.ch(ch).map(|c| c.level as u64).unwrap_or(1);
            self.add_affect(
                ch,
                Affect { kind: AffectKind::Sneak, pulses: level * crate::game::rules::clock::PULSES_PER_MUD_HOUR, modifier: 0 },
            );
        }
        CmdStatus::Ok
    }

    pub fn do_hide(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        if !self.knows(ch, "hide") {
            return CmdStatus::Failed;
        }
        self.send_text(ch, "You attempt to hide yourself.");
        if self.skill_roll(ch, "hide") {
            // Hiding is sneaking while standing still: nobody hears you come or go.
            self.add_affect(ch, Affect { kind: AffectKind::Sneak, pulses: crate::game::rules::clock::PULSES_PER_MUD_HOUR, modifier: 0 });
        }
        CmdStatus::Ok
    }

    /// `search`: looks for secret doors here. Thieves find them most of the time.
    pub fn do_search(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let room = c.room;
        let chance = if matches!(c.class, 2 | 8) { 75 } else { 35 };
        let secret: Vec<usize> = (0..6)
            .filter(|d| self.world.rooms[room].proto.exits[*d].as_ref().is_some_and(|e| hidden(e, &self.world.rooms[room].doors[*d])))
            .collect();
        self.set_wait(ch, 2);
        self.act("$n searches the area carefully.", ch, None, None, To::Room, EventKind::Text);
        let mut found = false;
        for d in secret {
            if self.roll(1, 100) <= chance {
                self.world.rooms[room].doors[d].revealed = true;
                let kw =
                    self.world.rooms[room].proto.exits[d].as_ref().and_then(|e| e.keywords.split_whitespace().next()).unwrap_or("door");
                let text = format!("You find a secret {kw} {}!", dir_phrase(d));
                self.send_text(ch, &text);
                found = true;
            }
        }
        if !found {
            self.send_text(ch, "You don't find anything you didn't see before.");
        }
        CmdStatus::Ok
    }

    /// `pick <door|direction>`: a thief's way through a lock without the key.
    pub fn do_pick(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if !self.knows(ch, "pick lock") {
            return CmdStatus::Failed;
        }
        let mut words = args.split_whitespace();
        let Some(arg) = words.next() else {
            self.send_text(ch, "Pick what?");
            return CmdStatus::InvalidTarget;
        };
        let Some(room) = self.world.ch(ch).map(|c| c.room) else { return CmdStatus::Failed };
        let Some(dir) = self.find_door(room, arg, words.next()) else {
            self.send_text(ch, &format!("There doesn't seem to be a {arg} here."));
            return CmdStatus::InvalidTarget;
        };
        let exit = self.world.rooms[room].proto.exits[dir].clone().expect("find_door finds exits");
        let st = self.world.rooms[room].doors[dir];
        let refusal = if !st.closed {
            Some("It's not closed.")
        } else if !st.locked {
            Some("Oh.. it wasn't locked, after all..")
        } else if exit.door_flags & EX_PICKPROOF != 0 {
            Some("It resists your attempts to pick it.")
        } else {
            None
        };
        if let Some(r) = refusal {
            self.send_text(ch, r);
            return CmdStatus::Failed;
        }
        self.set_wait(ch, 4);
        if !self.skill_roll(ch, "pick lock") {
            self.send_text(ch, "You failed to pick the lock.");
            return CmdStatus::Failed;
        }
        self.unlock_door(room, dir);
        self.send_text(ch, "The lock quickly yields to your skills.");
        self.act("$n skillfully picks the lock.", ch, None, None, To::Room, EventKind::Text);
        CmdStatus::Ok
    }

    fn set_wait(&mut self, ch: CharId, pulses: u32) {
        self.world.set_wait(ch, pulses, true);
    }
}

fn dir_phrase(d: usize) -> &'static str {
    ["to the north", "to the east", "to the south", "to the west", "above you", "below you"][d.min(5)]
}

//! Starting fights and sizing up opponents.

use super::CmdStatus;
use crate::game::model::tables::room_flag;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    pub fn do_kill(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let arg = args.split_whitespace().next().unwrap_or("");
        if arg.is_empty() {
            self.send_text(ch, "Hit whom?");
            return CmdStatus::InvalidTarget;
        }
        let Some(victim) = self.find_char_room(ch, arg) else {
            self.send_text(ch, "They aren't here.");
            return CmdStatus::InvalidTarget;
        };
        if victim == ch {
            self.send_text(ch, "You hit yourself..OUCH!.");
            return CmdStatus::InvalidTarget;
        }
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        if self.world.rooms[c.room].proto.flags[0] & room_flag::PEACEFUL != 0 {
            self.send_text(ch, "This room just has such a peaceful, easy feeling...");
            return CmdStatus::Failed;
        }
        if !self.may_attack(ch, victim) {
            return CmdStatus::Failed;
        }
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        if c.fighting == Some(victim) {
            self.send_text(ch, "You do the best you can!");
            return CmdStatus::Ok;
        }
        if c.fighting.is_some() {
            // Switch targets.
            self.stop_fighting(ch);
        }
        // pawns's own world says so; the classic servers just strike.
        let family = self.world.profile.family;
        if family == crate::worldfile::profile::Family::Circle {
            self.act("You attack $N!", ch, Some(victim), None, To::Actor, EventKind::Combat);
        }
        // tbaMUD's `do_hit`: the faster side strikes first (dexterity; a tie by a coin),
        // so a slow attacker is struck before it can swing.
        let faster = |e: &mut Engine| {
            let (a, b) = (e.world.ch(ch).map_or(0, |c| c.dex()), e.world.ch(victim).map_or(0, |c| c.dex()));
            a > b || (a == b && e.roll(1, 2) == 1)
        };
        if family == crate::worldfile::profile::Family::TbaMud && !faster(self) {
            self.hit(victim, ch);
            self.world.set_wait(ch, 2, false);
            return CmdStatus::Ok;
        }
        self.hit(ch, victim);
        self.world.set_wait(ch, 2, false);
        CmdStatus::Ok
    }

    pub fn do_consider(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let Some(victim) = self.find_char_room(ch, args.trim()) else {
            self.send_text(ch, "Consider killing who?");
            return CmdStatus::InvalidTarget;
        };
        if victim == ch {
            self.send_text(ch, "Easy!  Very easy indeed!");
            return CmdStatus::Ok;
        }
        if self.world.profile.family == crate::worldfile::profile::Family::DarkPawns {
            let (Some(c), Some(v)) = (self.world.ch(ch), self.world.ch(victim)) else { return CmdStatus::Failed };
            let (hitdiff, leveldiff, hp, level) = (v.hit - c.hit, v.level as i32 - c.level as i32, c.hit, c.level as i32);
            let (mine, theirs) = (self.damage_roll(ch), self.damage_roll(victim));
            let line = dp_consider(theirs - mine, hitdiff, leveldiff, hp, level);
            self.act(&line, ch, Some(victim), None, To::Actor, EventKind::Text);
            return CmdStatus::Ok;
        }
        let diff = self.world.ch(victim).map(|v| v.level as i32).unwrap_or(0) - self.world.ch(ch).map(|c| c.level as i32).unwrap_or(0);
        let msg = match diff {
            i32::MIN..=-10 => "Now where did that chicken go?",
            -9..=-5 => "You could do it with a needle!",
            -4..=-2 => "Easy.",
            -1 => "Fairly easy.",
            0 => "The perfect match!",
            1 => "You would need some luck!",
            2 => "You would need a lot of luck!",
            3 => "You would need a lot of luck and great equipment!",
            4..=5 => "Do you feel lucky, punk?",
            6..=10 => "Are you mad!?",
            _ => "You ARE mad!",
        };
        self.send_text(ch, msg);
        CmdStatus::Ok
    }
}

/// Dark Pawns's `consider`: how hard it hits, how hurt it is, how seasoned it is,
/// against the one considering (`hp`, `level`), in one sentence.
pub fn dp_consider(damdiff: i32, hitdiff: i32, leveldiff: i32, hp: i32, level: i32) -> String {
    let dam = match damdiff {
        d if d > 20 => "$N looks like $E could eat you for lunch, ",
        d if d > 10 => "$N looks like $E could tear you up in a fight, ",
        d if d > 5 => "$N looks like $E could hurt you in a fight, ",
        d if d > -3 => "$N looks like a fair fight, ",
        d if d > -5 => "$N looks like an easy kill, ",
        d if d > -10 => "$N looks like a very easy kill, ",
        _ => "$N might not even be worth the effort to kill, ",
    };
    let shape = match hitdiff {
        h if h > 4 * hp => "in much better physical shape than you, ",
        h if h > 2 * hp => "in a lot better physical shape than you, ",
        h if h > hp => "in better physical shape than you, ",
        h if h >= 0 => "in about the same physical shape as you, ",
        h if h > -25 => "in a little worse physical shape as you, ",
        h if h > -50 => "in a worse physical shape than you, ",
        _ => "in a lot worse physical shape than you, ",
    };
    let seasoned = match leveldiff {
        l if l > level => "and moves with an ease telling\nof many won battles.",
        l if l > level / 2 => "and seems to know $S opponent.",
        l if l > -1 => "and seems about as confident in\nbattle as you do.",
        l if l > -3 => "and seems less confident in\nbattle than you do.",
        l if l > -5 => "and seems much less confident in\nbattle than you do.",
        l if l > -7 => "and seems ready to run from a\nfight.",
        _ => "and seems like $E's never been\nin battle before.",
    };
    format!("{dam}looks to be\n{shape}{seasoned}")
}

impl Engine {
    /// One blow's damage before the dice of armour (Dark Pawns's `consider` rolls it):
    /// strength's bonus, damroll, and the weapon's dice (a mob's own, a bare hand's 0 to
    /// a third of the level).
    fn damage_roll(&mut self, id: CharId) -> i32 {
        let Some(c) = self.world.ch(id) else { return 0 };
        let base = crate::game::model::tables::str_bonus(c.str_()).1 + c.damroll;
        let weapon =
            c.equipment[16].and_then(|o| self.world.obj(o)).filter(|o| o.item_type == crate::game::model::tables::item_type::WEAPON);
        let (npc, level, dice) = (c.is_npc(), c.level as i32, c.npc_damage);
        let roll = match weapon.map(|w| (w.values[1], w.values[2])) {
            Some((n, s)) => self.dice(n, s),
            None if npc => self.dice(dice.num, dice.size),
            None => self.roll(0, level / 3),
        };
        base + roll
    }

    /// `wimpy [hit points]`: at how many hit points a fight is fled (CircleMUD's
    /// `do_wimpy`, its words; 0 fights to the end; at most a third of one's hit points).
    pub fn do_wimpy(&mut self, ch: CharId, args: &str) -> CmdStatus {
        // tbaMUD has no `wimpy` command.
        if self.world.profile.family == crate::worldfile::profile::Family::TbaMud {
            self.huh(ch);
            return CmdStatus::UnknownCommand;
        }
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let Some(pc) = c.pc.as_ref() else { return CmdStatus::Failed };
        let (now, max_hit) = (pc.wimp_level, c.max_hit.max(0) as u32);
        let arg = args.split_whitespace().next().unwrap_or("");
        if arg.is_empty() {
            let line = if now > 0 {
                format!("Your current wimp level is {now} hit points.")
            } else {
                "At the moment, you're not a wimp.  (sure, sure...)".to_string()
            };
            self.send_text(ch, &line);
            return CmdStatus::Ok;
        }
        if !arg.starts_with(|c: char| c.is_ascii_digit()) {
            self.send_text(ch, "Specify at how many hit points you want to wimp out at.  (0 to disable)");
            return CmdStatus::InvalidTarget;
        }
        let level: u64 = arg.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap_or(u64::MAX);
        let line = if level == 0 {
            "Okay, you'll now tough out fights to the bitter end.".to_string()
        } else if level > max_hit as u64 {
            "That doesn't make much sense, now does it?".to_string()
        } else if level > (max_hit / 3) as u64 {
            "You can't set your wimp level above one third your hit points.".to_string()
        } else {
            format!("Okay, you'll wimp out if you drop below {level} hit points.")
        };
        let set = level == 0 || level <= (max_hit / 3) as u64;
        if set {
            if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
                pc.wimp_level = level as u32;
                pc.dirty = true;
            }
        }
        self.send_text(ch, &line);
        if set {
            CmdStatus::Ok
        } else {
            CmdStatus::Failed
        }
    }
}

//! `steal` and `track`, as CircleMUD's family plays them (Dark Pawns's words where they
//! differ).

use super::CmdStatus;
use crate::game::model::tables::{room_flag, Position, MAX_LEVEL};
use crate::game::model::world::{CharId, RoomId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::profile::Family;

/// `dex_app_skill[dex].p_pocket`, dexterity 0 to 25.
const P_POCKET: [i32; 26] = [-99, -90, -80, -70, -60, -50, -40, -30, -20, -15, -10, -5, 0, 0, 0, 0, 0, 5, 10, 15, 15, 20, 20, 25, 25, 25];

/// The most gold one theft takes.
const MAX_STOLEN: i64 = 1782;

impl Engine {
    fn learned(&self, ch: CharId, skill: &str) -> i32 {
        self.world.ch(ch).and_then(|c| c.pc.as_ref()).and_then(|p| p.skills.get(skill).copied()).unwrap_or(0) as i32
    }

    /// `steal <thing|coins|gold> <victim>`: the roll is 1–101 less dexterity's bonus,
    /// against the skill (a sleeping victim always loses; a shopkeeper never); a thing's
    /// weight counts against it; gold comes 1–10 % at a time. A mob that catches a
    /// thief attacks.
    pub fn do_steal(&mut self, ch: CharId, args: &str) -> CmdStatus {
        // tbaMUD asks for the skill first.
        if self.world.profile.family == Family::TbaMud && self.learned(ch, "steal") == 0 {
            self.send_text(ch, "You have no idea how to do that.");
            return CmdStatus::Failed;
        }
        let mut w = args.split_whitespace();
        let (Some(what), Some(whom)) = (w.next(), w.next()) else {
            self.send_text(ch, "Steal what from who?");
            return CmdStatus::InvalidTarget;
        };
        let Some(victim) = self.find_char_room(ch, whom) else {
            self.send_text(ch, "Steal what from who?");
            return CmdStatus::InvalidTarget;
        };
        if victim == ch {
            self.send_text(ch, "Come on now, that's rather stupid!");
            return CmdStatus::InvalidTarget;
        }
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let room = c.room;
        let dark_pawns = self.world.profile.family == Family::DarkPawns;
        if self.world.rooms[room].proto.flags[0] & room_flag::PEACEFUL != 0 {
            self.send_text(
                ch,
                if dark_pawns {
                    "You can't contemplate stealing in such a place!"
                } else {
                    "This room just has such a peaceful, easy feeling..."
                },
            );
            return CmdStatus::Failed;
        }
        let (dex, c_level, c_name) = ((c.abilities[3] as usize).min(25), c.level as i32, c.name.to_string());
        let roll = self.roll(1, 101);
        let Some(v) = self.world.ch(victim) else { return CmdStatus::Failed };
        // tbaMUD's default `pt_setting` is off.
        if v.pc.is_some() && self.world.profile.family == Family::TbaMud {
            self.send_text(ch, "Stealing from players is not allowed.");
            return CmdStatus::Failed;
        }
        // Dark Pawns: only an outlaw robs players (pawns has no outlaws: no one does).
        if v.pc.is_some() && dark_pawns {
            let (vn, tn) = (v.name.to_string(), c_name);
            self.send_text(ch, &format!("You can not steal from {vn} because you are not an Outlaw!"));
            self.send_text(victim, &format!("{tn} failed to steal from you because {tn} is not an Outlaw!"));
            return CmdStatus::Failed;
        }
        let mut percent = roll - P_POCKET[dex];
        let asleep = v.position <= Position::Sleeping;
        let v_level = v.level as i32;
        if asleep {
            percent = -1;
        }
        let keeper = self.world.shops.iter().any(|s| Some(s.keeper as u32) == v.npc_vnum);
        if keeper || v.level > MAX_LEVEL || v.pc.is_some() {
            percent = 101;
        }
        let (v_gold, v_inv, v_eq) = (v.gold, v.inventory.clone(), v.equipment);
        let skill = self.learned(ch, "steal");
        self.world.set_wait(ch, 2, false);
        if what.eq_ignore_ascii_case("coins") || what.eq_ignore_ascii_case("gold") {
            if percent > skill {
                self.send_text(ch, "Oops..");
                self.act("You discover that $n has $s hands in your wallet.", ch, Some(victim), None, To::Victim, EventKind::Text);
                self.act("$n tries to steal gold from $N.", ch, Some(victim), None, To::NotVictim, EventKind::Text);
                self.caught_stealing(ch, victim);
                return CmdStatus::Failed;
            }
            let gold = (v_gold * self.roll(1, 10) as i64 / 100).min(MAX_STOLEN);
            if gold > 0 {
                if let Some(t) = self.world.chars.get_mut(&victim) {
                    t.gold -= gold;
                }
                if let Some(t) = self.world.chars.get_mut(&ch) {
                    t.gold += gold;
                    t.mark_dirty();
                }
            }
            let line = match gold {
                0 => "You couldn't get any gold...".to_string(),
                1 => "You manage to swipe a solitary gold coin.".to_string(),
                n => format!("Bingo!  You got {n} gold coins."),
            };
            self.send_text(ch, &line);
            return CmdStatus::Ok;
        }
        let carried = self.find_obj_in(&v_inv, what);
        let worn = v_eq
            .iter()
            .flatten()
            .copied()
            .find(|o| self.world.obj(*o).is_some_and(|x| crate::game::model::targeting::is_name(what, &x.keywords)));
        match (carried, worn) {
            (Some(o), _) => {
                percent += self.world.obj(o).map_or(0, |x| x.weight) + (v_level - c_level).max(0);
                if percent > skill {
                    self.act("$N catches you trying to steal something...", ch, Some(victim), None, To::Actor, EventKind::Text);
                    self.act("$n tried to steal something from you!", ch, Some(victim), None, To::Victim, EventKind::Text);
                    self.act("$n tries to steal something from $N.", ch, Some(victim), None, To::NotVictim, EventKind::Text);
                    self.caught_stealing(ch, victim);
                    return CmdStatus::Failed;
                }
                self.world.obj_to_char(o, ch);
                self.send_text(ch, "Got it!");
                CmdStatus::Ok
            }
            (None, Some(o)) => {
                if !asleep {
                    self.send_text(ch, "Steal the equipment now?  Impossible!");
                    return CmdStatus::Failed;
                }
                if percent > skill {
                    self.act("You try to unequip $p, but fail!", ch, None, Some(o), To::Actor, EventKind::Text);
                    return CmdStatus::Failed;
                }
                self.act("You unequip $p and steal it.", ch, None, Some(o), To::Actor, EventKind::Text);
                self.act("$n steals $p from $N.", ch, Some(victim), Some(o), To::NotVictim, EventKind::Text);
                self.world.obj_to_char(o, ch);
                self.recompute_armour(victim);
                CmdStatus::Ok
            }
            (None, None) => {
                self.act("$E hasn't got that item.", ch, Some(victim), None, To::Actor, EventKind::Text);
                CmdStatus::InvalidTarget
            }
        }
    }

    /// A thief caught: an awake mob attacks.
    fn caught_stealing(&mut self, ch: CharId, victim: CharId) {
        if self.world.ch(victim).is_some_and(|v| v.is_npc() && v.awake() && v.fighting.is_none()) {
            self.hit(victim, ch);
        }
    }

    /// `track <name>`: the first step of the shortest way to someone anywhere in the
    /// world (closed doors do not stop a tracker; water and NOTRACK rooms do); a failed
    /// roll against the skill points a random open way.
    pub fn do_track(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let skill = self.learned(ch, "track");
        if skill == 0 {
            self.send_text(ch, "You have no idea how.");
            return CmdStatus::Failed;
        }
        let name = args.split_whitespace().next().unwrap_or("");
        if name.is_empty() {
            self.send_text(ch, "Whom are you trying to track?");
            return CmdStatus::InvalidTarget;
        }
        let Some(from) = self.world.ch(ch).map(|c| c.room) else { return CmdStatus::Failed };
        let target = self.find_char_room(ch, name).or_else(|| self.find_player(name)).or_else(|| {
            let kw = name.to_ascii_lowercase();
            let mut ids: Vec<CharId> =
                self.world.chars.values().filter(|c| crate::game::model::targeting::is_name(&kw, &c.keywords)).map(|c| c.id).collect();
            ids.sort_unstable();
            ids.first().copied()
        });
        let Some(target) = target.filter(|t| *t != ch) else {
            self.send_text(ch, "You can't sense a trail to them from here.");
            return CmdStatus::InvalidTarget;
        };
        let to = self.world.ch(target).map(|c| c.room).unwrap_or(from);
        if to == from {
            self.send_text(ch, "You're already in the same room!!");
            return CmdStatus::Ok;
        }
        let Some(dir) = self.first_step(from, to) else {
            self.act("You can't sense a trail to $M from here.", ch, Some(target), None, To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        };
        let dir = if self.roll(0, 101) >= skill {
            let open: Vec<usize> = (0..6).filter(|d| self.world.passable(from, *d).is_some()).collect();
            if open.is_empty() {
                self.send_text(ch, "There doesn't seem to be any way out of here!");
                return CmdStatus::Ok;
            }
            open[self.roll(0, open.len() as i32 - 1) as usize]
        } else {
            dir
        };
        self.send_text(ch, &format!("You sense a trail {} from here!", crate::worldfile::DIR_NAMES[dir]));
        CmdStatus::Ok
    }

    /// The first direction of the shortest way from `from` to `to` (`find_first_step`).
    fn first_step(&self, from: RoomId, to: RoomId) -> Option<usize> {
        let mut seen = vec![false; self.world.rooms.len()];
        seen[from] = true;
        let mut queue = std::collections::VecDeque::new();
        for d in 0..6 {
            if let Some(r) = self.track_exit(from, d).filter(|r| !seen[*r]) {
                seen[r] = true;
                queue.push_back((r, d));
            }
        }
        while let Some((room, first)) = queue.pop_front() {
            if room == to {
                return Some(first);
            }
            for d in 0..6 {
                if let Some(r) = self.track_exit(room, d).filter(|r| !seen[*r]) {
                    seen[r] = true;
                    queue.push_back((r, first));
                }
            }
        }
        None
    }

    /// Where a tracker may follow an exit: through doors, not into water or NOTRACK.
    fn track_exit(&self, room: RoomId, d: usize) -> Option<RoomId> {
        let exit = self.world.rooms[room].proto.exits[d].as_ref()?;
        let to = self.world.room_of_vnum(exit.to_room as u32)?;
        let r = &self.world.rooms[to].proto;
        (r.flags[0] & room_flag::NOTRACK == 0 && !matches!(r.sector, 6 | 7)).then_some(to)
    }
}

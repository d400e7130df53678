//! Procedures of the streets, run in the mob's turn: `fido` and `janitor` clean up,
//! `thief` picks pockets, `cityguard` keeps the peace.

use crate::game::model::tables::{item_type, wear_flag, Position, MAX_LEVEL};
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// The most a janitor considers trash (gold): drink containers are always trash.
const TRASH_COST: i32 = 15;

impl Engine {
    /// `fido`: a corpse in the room is devoured; what it held falls to the floor.
    pub(super) fn spec_fido(&mut self, id: CharId) -> bool {
        let Some(room) = self.world.ch(id).map(|c| c.room) else { return false };
        let corpse = self.world.rooms[room].contents.iter().copied().find(|o| {
            self.world.obj(*o).is_some_and(|o| o.vnum == 0 && o.item_type == item_type::CONTAINER && o.keywords.contains("corpse"))
        });
        let Some(corpse) = corpse else { return false };
        self.act("$n savagely devours a corpse.", id, None, None, To::Room, EventKind::System);
        let held: Vec<_> = self.world.obj(corpse).map(|o| o.contains.clone()).unwrap_or_default();
        for o in held {
            self.world.obj_to_room(o, room);
        }
        self.world.extract_obj(corpse);
        true
    }

    /// `janitor`: picks up one piece of trash (something cheap it can carry, or any
    /// drink container; in Dark Pawns anything it can carry).
    pub(super) fn spec_janitor(&mut self, id: CharId) -> bool {
        let Some(room) = self.world.ch(id).map(|c| c.room) else { return false };
        // Dark Pawns's janitor takes the first thing that can be taken, whatever it cost.
        let any = self.world.profile.family == crate::worldfile::profile::Family::DarkPawns;
        let trash = self.world.rooms[room].contents.iter().copied().find(|o| {
            self.world
                .obj(*o)
                .is_some_and(|o| o.wear_flags & wear_flag::TAKE != 0 && (any || o.item_type == item_type::DRINKCON || o.cost < TRASH_COST))
        });
        let Some(trash) = trash else { return false };
        self.act("$n picks up some trash.", id, None, None, To::Room, EventKind::System);
        self.world.obj_to_char(trash, id);
        true
    }

    /// `thief`: one player in five in the room has a hand in their purse. An awake
    /// victim notices one time in (the thief's level + 1); otherwise 1–10 % of their
    /// gold is gone, unseen (CircleMUD's `npc_steal`).
    pub(super) fn spec_thief(&mut self, id: CharId) -> bool {
        let Some(c) = self.world.ch(id) else { return false };
        if c.position != Position::Standing {
            return false;
        }
        let level = c.level as i32;
        let people = self.world.rooms[c.room].people.clone();
        for v in people {
            let Some(victim) = self.world.ch(v) else { continue };
            let (player, awake) = (victim.pc.is_some() && victim.level < MAX_LEVEL, victim.position > Position::Sleeping);
            if !player || self.roll(0, 4) != 0 {
                continue;
            }
            if awake && self.roll(0, level) == 0 {
                self.act("You discover that $n has $s hands in your wallet.", id, Some(v), None, To::Victim, EventKind::Text);
                self.act("$n tries to steal gold from $N.", id, Some(v), None, To::NotVictim, EventKind::Text);
            } else {
                let pct = self.roll(1, 10) as i64;
                let gold = self.world.ch(v).map(|c| c.gold * pct / 100).unwrap_or(0);
                if gold > 0 {
                    if let Some(c) = self.world.chars.get_mut(&v) {
                        c.gold -= gold;
                        c.mark_dirty();
                    }
                    if let Some(t) = self.world.chars.get_mut(&id) {
                        t.gold += gold;
                    }
                }
            }
            return true;
        }
        false
    }

    /// `cityguard`: the evilest one in the room who is fighting someone good (a mob,
    /// or a player fighting a mob) is charged; otherwise, now and then, the least
    /// charming is spat upon (CircleMUD's procedure; this world has no killer or thief
    /// flags for it to read).
    pub(super) fn spec_cityguard(&mut self, id: CharId) -> bool {
        let Some(c) = self.world.ch(id) else { return false };
        if c.position < Position::Resting || c.fighting.is_some() {
            return false;
        }
        let room = c.room;
        let mut evil: Option<(i32, CharId)> = None;
        let mut spittle: Option<(u8, CharId)> = None;
        for &p in &self.world.rooms[room].people {
            let Some(t) = self.world.ch(p) else { continue };
            if p == id {
                continue;
            }
            if let Some(f) = t.fighting.and_then(|f| self.world.ch(f)) {
                let mob_fight = t.is_npc() || f.is_npc();
                if mob_fight && t.alignment < evil.map_or(1000, |(a, _)| a) && f.alignment >= 0 {
                    evil = Some((t.alignment, p));
                }
            }
            let cha = t.abilities[5];
            if cha < spittle.map_or(6, |(c, _)| c) {
                spittle = Some((cha, p));
            }
        }
        if let Some((_, e)) = evil {
            self.act("$n screams 'PROTECT THE INNOCENT!  BANZAI!  CHARGE!  ARARARAGGGHH!'", id, None, None, To::Room, EventKind::Say);
            self.hit(id, e);
            return true;
        }
        if let Some((_, s)) = spittle {
            if self.roll(0, 9) == 0 {
                self.act("$n spits on $N.", id, Some(s), None, To::NotVictim, EventKind::Emote);
                self.act("$n spits on you.", id, Some(s), None, To::Victim, EventKind::Emote);
                return true;
            }
        }
        false
    }
}

impl Engine {}

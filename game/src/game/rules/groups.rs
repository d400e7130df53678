//! Following and groups: `follow`, `group`, `ungroup`, `gtell`, `assist`, the split of
//! experience among a group, and who may attack whom (player killing above level 10).

use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// Players at or below this level can neither attack nor be attacked by players.
pub const PK_PROTECTED_LEVEL: u8 = 10;

/// Each member's share of a kill worth `exp`, split among `members` present (CircleMUD
/// gives a group a small bonus for working together: a tenth per extra member).
pub fn group_share(exp: i64, members: usize) -> i64 {
    let members = members.max(1) as i64;
    let pool = exp + exp * (members - 1) / 10;
    (pool / members).max(1)
}

impl Engine {
    /// Whether `ch` may attack `victim` (says why not when it may not).
    pub fn may_attack(&mut self, ch: CharId, victim: CharId) -> bool {
        let (Some(a), Some(v)) = (self.world.ch(ch), self.world.ch(victim)) else { return false };
        if a.pc.is_some() && v.pc.is_some() {
            // tbaMUD's default `pk_setting` is off.
            if self.world.profile.family == crate::worldfile::profile::Family::TbaMud && ch != victim {
                self.send_text(ch, "Player killing is not permitted.");
                return false;
            }
            if a.level <= PK_PROTECTED_LEVEL {
                self.send_text(ch, &format!("You may not attack other players until you are above level {PK_PROTECTED_LEVEL}."));
                return false;
            }
            if v.level <= PK_PROTECTED_LEVEL {
                self.send_text(ch, &format!("Players of level {PK_PROTECTED_LEVEL} and below are protected."));
                return false;
            }
        }
        if v.master == Some(ch) && self.affected(victim, crate::game::rules::spells::AffectKind::Charm) {
            self.act("$N is just such a good friend, you simply can't hit $M.", ch, Some(victim), None, To::Actor, EventKind::Text);
            return false;
        }
        // Turning on one's own group is a betrayal, and remembered as one.
        if ch != victim && self.group_members(ch).len() > 1 && self.group_members(ch).contains(&victim) {
            self.record_social(ch, victim, "betrayal", "");
        }
        true
    }

    /// The leader of `ch`'s group (itself when it leads or is alone).
    pub fn leader_of(&self, ch: CharId) -> CharId {
        self.world.ch(ch).and_then(|c| c.master.filter(|_| c.grouped)).unwrap_or(ch)
    }

    /// Everyone in `ch`'s group (the leader and its grouped followers), `ch` included.
    pub fn group_members(&self, ch: CharId) -> Vec<CharId> {
        let leader = self.leader_of(ch);
        let Some(l) = self.world.ch(leader) else { return vec![ch] };
        if !l.grouped {
            return vec![ch];
        }
        let mut out = vec![leader];
        out.extend(l.followers.iter().copied().filter(|f| self.world.ch(*f).is_some_and(|c| c.grouped)));
        out
    }

    pub fn add_follower(&mut self, ch: CharId, leader: CharId) {
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.master = Some(leader);
        }
        if let Some(l) = self.world.chars.get_mut(&leader) {
            if !l.followers.contains(&ch) {
                l.followers.push(ch);
            }
        }
        self.act("You now follow $N.", ch, Some(leader), None, To::Actor, EventKind::Text);
        self.act("$n starts following you.", ch, Some(leader), None, To::Victim, EventKind::Text);
        self.act("$n starts to follow $N.", ch, Some(leader), None, To::NotVictim, EventKind::Text);
    }

    /// `ch` stops following whoever it follows (and leaves the group).
    pub fn stop_follower(&mut self, ch: CharId) {
        let Some(master) = self.world.ch(ch).and_then(|c| c.master) else { return };
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.master = None;
            c.grouped = false;
        }
        if let Some(m) = self.world.chars.get_mut(&master) {
            m.followers.retain(|f| *f != ch);
            if m.followers.is_empty() {
                m.grouped = false;
            }
        }
        if self.world.ch(master).is_some() {
            self.act("You stop following $N.", ch, Some(master), None, To::Actor, EventKind::Text);
            self.act("$n stops following you.", ch, Some(master), None, To::Victim, EventKind::Text);
        }
        if self.affected(ch, crate::game::rules::spells::AffectKind::Charm) {
            if let Some(c) = self.world.chars.get_mut(&ch) {
                c.affects.retain(|a| a.kind != crate::game::rules::spells::AffectKind::Charm);
            }
        }
    }

    /// Before a character leaves the world: nobody follows it and it follows nobody.
    pub fn die_follower(&mut self, ch: CharId) {
        self.stop_follower(ch);
        let followers = self.world.ch(ch).map(|c| c.followers.clone()).unwrap_or_default();
        for f in followers {
            self.stop_follower(f);
        }
    }

    /// After `leader` went through `dir` from `from`: followers standing there come too.
    pub fn followers_follow(&mut self, leader: CharId, from: usize, dir: usize) {
        let followers = self.world.ch(leader).map(|c| c.followers.clone()).unwrap_or_default();
        for f in followers {
            let ready = self
                .world
                .ch(f)
                .is_some_and(|c| c.room == from && c.position == crate::game::model::tables::Position::Standing && c.fighting.is_none());
            if ready {
                self.act("You follow $N.", f, Some(leader), None, To::Actor, EventKind::Text);
                self.do_move(f, dir);
            }
        }
    }

    /// Experience for a kill by `killer` worth `exp` to it: shared with the group
    /// members in the same room. Returns (member, share) for each.
    pub fn group_gain(&self, killer: CharId, exp: i64) -> Vec<(CharId, i64)> {
        let room = self.world.ch(killer).map(|c| c.room);
        let present: Vec<CharId> = self
            .group_members(killer)
            .into_iter()
            .filter(|m| self.world.ch(*m).is_some_and(|c| Some(c.room) == room && c.pc.is_some()))
            .collect();
        if present.len() <= 1 {
            return vec![(killer, exp)];
        }
        let share = group_share(exp, present.len());
        present.into_iter().map(|m| (m, share)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::group_share;

    #[test]
    fn shares_split_with_a_small_bonus() {
        assert_eq!(group_share(100, 1), 100);
        assert_eq!(group_share(100, 2), 55);
        assert_eq!(group_share(90, 3), 36);
        assert_eq!(group_share(0, 4), 1);
    }
}

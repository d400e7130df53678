//! Following and groups: `follow`, `group`, `ungroup`, `gtell`, `assist`, the split of
//! experience among a group, and who may attack whom (player killing above level 10).

use super::commands::CmdStatus;
use super::engine::Engine;
use super::messaging::To;
use super::output::EventKind;
use super::world::CharId;

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
            if a.level <= PK_PROTECTED_LEVEL {
                self.send_text(ch, &format!("You may not attack other players until you are above level {PK_PROTECTED_LEVEL}."));
                return false;
            }
            if v.level <= PK_PROTECTED_LEVEL {
                self.send_text(ch, &format!("Players of level {PK_PROTECTED_LEVEL} and below are protected."));
                return false;
            }
        }
        if v.master == Some(ch) && self.affected(victim, super::spells::AffectKind::Charm) {
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
        if self.affected(ch, super::spells::AffectKind::Charm) {
            if let Some(c) = self.world.chars.get_mut(&ch) {
                c.affects.retain(|a| a.kind != super::spells::AffectKind::Charm);
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
            let ready =
                self.world.ch(f).is_some_and(|c| c.room == from && c.position == super::tables::Position::Standing && c.fighting.is_none());
            if ready {
                self.act("You follow $N.", f, Some(leader), None, To::Actor, EventKind::Text);
                self.do_move(f, dir);
            }
        }
    }

    pub fn do_follow(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let arg = args.split_whitespace().next().unwrap_or("");
        if arg.is_empty() {
            match self.world.ch(ch).and_then(|c| c.master) {
                Some(m) => self.act("You are following $N.", ch, Some(m), None, To::Actor, EventKind::Text),
                None => self.send_text(ch, "You are not following anyone."),
            }
            return CmdStatus::Ok;
        }
        let Some(leader) = self.find_char_room(ch, arg) else {
            self.send_text(ch, "I see no person by that name here!");
            return CmdStatus::InvalidTarget;
        };
        if self.affected(ch, super::spells::AffectKind::Charm) {
            self.send_text(ch, "But you only feel like following your master!");
            return CmdStatus::Failed;
        }
        if leader == ch {
            if self.world.ch(ch).is_some_and(|c| c.master.is_none()) {
                self.send_text(ch, "You are already following yourself.");
                return CmdStatus::Ok;
            }
            self.stop_follower(ch);
            return CmdStatus::Ok;
        }
        if self.world.ch(ch).is_some_and(|c| c.master == Some(leader)) {
            self.act("You are already following $N.", ch, Some(leader), None, To::Actor, EventKind::Text);
            return CmdStatus::Ok;
        }
        // No circles: the one you would follow must not (in the end) follow you.
        let mut m = Some(leader);
        for _ in 0..100 {
            match m {
                Some(x) if x == ch => {
                    self.send_text(ch, "Sorry, but following in loops is not allowed.");
                    return CmdStatus::Failed;
                }
                Some(x) => m = self.world.ch(x).and_then(|c| c.master),
                None => break,
            }
        }
        self.stop_follower(ch);
        self.add_follower(ch, leader);
        CmdStatus::Ok
    }

    pub fn do_group(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let arg = args.split_whitespace().next().unwrap_or("");
        if arg.is_empty() {
            let members = self.group_members(ch);
            if members.len() < 2 {
                self.send_text(ch, "But you are not the member of a group!");
                return CmdStatus::Ok;
            }
            let leader = self.leader_of(ch);
            let mut text = String::from("Your group consists of:");
            for m in members {
                if let Some(c) = self.world.ch(m) {
                    text.push_str(&format!(
                        "\n  [{:>3} {}] {:<16} {}/{}H {}/{}M {}/{}V{}",
                        c.level,
                        super::tables::class_name(c.class).chars().take(2).collect::<String>(),
                        c.name,
                        c.hit,
                        c.max_hit,
                        c.mana,
                        c.max_mana,
                        c.moves,
                        c.max_moves,
                        if m == leader { " (Head of group)" } else { "" }
                    ));
                }
            }
            self.send_text(ch, &text);
            return CmdStatus::Ok;
        }
        if self.world.ch(ch).is_some_and(|c| c.master.is_some()) {
            self.send_text(ch, "You can not enroll group members without being head of a group.");
            return CmdStatus::Failed;
        }
        let followers = self.world.ch(ch).map(|c| c.followers.clone()).unwrap_or_default();
        let here = self.world.ch(ch).map(|c| c.room);
        let targets: Vec<CharId> = if arg.eq_ignore_ascii_case("all") {
            followers.iter().copied().filter(|f| self.world.ch(*f).is_some_and(|c| Some(c.room) == here && !c.grouped)).collect()
        } else {
            match self.find_char_room(ch, arg) {
                Some(t) if t == ch || followers.contains(&t) => vec![t],
                Some(t) => {
                    self.act("$N must follow you to enter your group.", ch, Some(t), None, To::Actor, EventKind::Text);
                    return CmdStatus::Failed;
                }
                None => {
                    self.send_text(ch, "There is no such person!");
                    return CmdStatus::InvalidTarget;
                }
            }
        };
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.grouped = true;
        }
        for t in targets.into_iter().filter(|t| *t != ch) {
            let was = self.world.ch(t).is_some_and(|c| c.grouped);
            if let Some(c) = self.world.chars.get_mut(&t) {
                c.grouped = !was;
            }
            if was {
                self.act("$N is no longer a member of your group.", ch, Some(t), None, To::Actor, EventKind::Text);
                self.act("You have been kicked out of $n's group!", ch, Some(t), None, To::Victim, EventKind::Text);
            } else {
                self.act("$N is now a member of your group.", ch, Some(t), None, To::Actor, EventKind::Text);
                self.act("You are now a member of $n's group.", ch, Some(t), None, To::Victim, EventKind::Text);
                self.act("$N is now a member of $n's group.", ch, Some(t), None, To::NotVictim, EventKind::Text);
            }
        }
        CmdStatus::Ok
    }

    pub fn do_ungroup(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let arg = args.split_whitespace().next().unwrap_or("");
        if self.world.ch(ch).is_some_and(|c| c.master.is_some()) || !self.world.ch(ch).is_some_and(|c| c.grouped) {
            self.send_text(ch, "But you lead no group!");
            return CmdStatus::Failed;
        }
        let followers = self.world.ch(ch).map(|c| c.followers.clone()).unwrap_or_default();
        if arg.is_empty() {
            for f in followers {
                if self.world.ch(f).is_some_and(|c| c.grouped) {
                    if let Some(c) = self.world.chars.get_mut(&f) {
                        c.grouped = false;
                    }
                    self.act("$N has disbanded the group.", f, Some(ch), None, To::Actor, EventKind::Text);
                    if !self.affected(f, super::spells::AffectKind::Charm) {
                        self.stop_follower(f);
                    }
                }
            }
            if let Some(c) = self.world.chars.get_mut(&ch) {
                c.grouped = false;
            }
            self.send_text(ch, "You disband the group.");
            return CmdStatus::Ok;
        }
        let Some(t) = self.find_char_room(ch, arg).filter(|t| followers.contains(t)) else {
            self.send_text(ch, "This person is not following you!");
            return CmdStatus::InvalidTarget;
        };
        self.act("$N is no longer a member of your group.", ch, Some(t), None, To::Actor, EventKind::Text);
        self.act("You have been kicked out of $n's group!", ch, Some(t), None, To::Victim, EventKind::Text);
        self.stop_follower(t);
        CmdStatus::Ok
    }

    pub fn do_gtell(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let msg = args.trim();
        let members = self.group_members(ch);
        if members.len() < 2 {
            self.send_text(ch, "But you are not the member of a group!");
            return CmdStatus::Failed;
        }
        if msg.is_empty() {
            self.send_text(ch, "Yes, but WHAT do you want to group-tell?");
            return CmdStatus::InvalidTarget;
        }
        let name = self.pers(ch);
        // One message for the whole group, in the group's conversation (not a tell).
        let text: std::sync::Arc<str> = format!("{name} tells the group, '{msg}'").into();
        let from: std::sync::Arc<str> = name.clone().into();
        self.message_ids.context = Some(super::hud::Context::Group);
        for m in members.into_iter().filter(|m| *m != ch) {
            self.send_shared(m, EventKind::Tell, text.clone(), Some(from.clone()));
        }
        self.message_ids.context = None;
        self.send_text(ch, &format!("You tell the group, '{msg}'"));
        CmdStatus::Ok
    }

    pub fn do_assist(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if self.world.ch(ch).is_some_and(|c| c.fighting.is_some()) {
            self.send_text(ch, "You're already fighting!  How can you assist someone else?");
            return CmdStatus::Failed;
        }
        let arg = args.split_whitespace().next().unwrap_or("");
        let Some(helpee) = (!arg.is_empty()).then(|| self.find_char_room(ch, arg)).flatten() else {
            self.send_text(ch, if arg.is_empty() { "Whom do you wish to assist?" } else { "No-one by that name here." });
            return CmdStatus::InvalidTarget;
        };
        if helpee == ch {
            self.send_text(ch, "You can't help yourself any more than this!");
            return CmdStatus::InvalidTarget;
        }
        let Some(opponent) = self.world.ch(helpee).and_then(|h| h.fighting) else {
            self.act("But nobody is fighting $M!", ch, Some(helpee), None, To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        };
        if !self.may_attack(ch, opponent) {
            return CmdStatus::Failed;
        }
        self.send_text(ch, "You join the fight!");
        self.act("$N assists you!", helpee, Some(ch), None, To::Actor, EventKind::Combat);
        self.act("$n assists $N.", ch, Some(helpee), None, To::NotVictim, EventKind::Combat);
        self.record_social(ch, helpee, "cooperation", "assist");
        self.hit(ch, opponent);
        CmdStatus::Ok
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

//! Following and groups: `follow`, `group`, `ungroup`, `gtell`, `assist` (the rules of who follows and shares are `groups.rs`).

use super::CmdStatus;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
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
        if self.affected(ch, crate::game::rules::spells::AffectKind::Charm) {
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
                        crate::game::model::tables::class_name(c.class).chars().take(2).collect::<String>(),
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
                    if !self.affected(f, crate::game::rules::spells::AffectKind::Charm) {
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
        let own = format!("You tell the group, '{msg}'");
        self.send_text(ch, &own);
        self.message_ids.context = Some(crate::game::send::hud::Context::Group);
        self.utterance(ch, |e| {
            // The speaker's own copy, in its HUD's group context (its screen had the line).
            e.hear(ch, EventKind::Tell, &std::sync::Arc::from(own.as_str()), None);
            for m in members.into_iter().filter(|m| *m != ch) {
                e.send_shared(m, EventKind::Tell, text.clone(), Some(from.clone()));
            }
        });
        self.message_ids.context = None;
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
}

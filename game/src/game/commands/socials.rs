//! `socials` and the socials themselves, tried after the command table (the table is `worldfile/social.rs`'s).

use super::CmdStatus;
use crate::game::model::tables::Position;
use crate::game::model::world::CharId;
use crate::game::rules::socials::social_act;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    pub fn do_social(&mut self, ch: CharId, index: usize, args: &str) -> CmdStatus {
        let Some(social) = self.world.socials.get(index).cloned() else { return CmdStatus::Failed };
        if self.world.ch(ch).is_some_and(|c| c.position < Position::Resting) {
            self.send_text(ch, "You can't do that in your state.");
            return CmdStatus::WrongPosition;
        }
        let m = |i: usize| social.messages[i].clone();
        let arg = args.split_whitespace().next().unwrap_or("");
        if arg.is_empty() {
            if let Some(t) = m(0) {
                self.act(&t, ch, None, None, To::Actor, EventKind::Emote);
            }
            if let Some(t) = m(1) {
                self.act(&t, ch, None, None, To::Room, EventKind::Emote);
            }
            return CmdStatus::Ok;
        }
        let Some(victim) = self.find_char_room(ch, arg) else {
            self.send_text(ch, &m(5).unwrap_or_else(|| "I don't see anyone by that name here.".into()));
            return CmdStatus::InvalidTarget;
        };
        if victim == ch {
            if let Some(t) = m(6) {
                self.act(&t, ch, None, None, To::Actor, EventKind::Emote);
            }
            if let Some(t) = m(7) {
                self.act(&t, ch, None, None, To::Room, EventKind::Emote);
            }
            return CmdStatus::Ok;
        }
        if self.world.ch(victim).is_some_and(|v| (v.position as i32) < social.min_victim_position.min(Position::Standing as i32)) {
            self.act("$N is not in a proper position for that.", ch, Some(victim), None, To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        }
        if let Some(t) = m(2) {
            self.act(&t, ch, Some(victim), None, To::Actor, EventKind::Emote);
        }
        if let Some(t) = m(3) {
            self.act(&t, ch, Some(victim), None, To::NotVictim, EventKind::Emote);
        }
        if let Some(t) = m(4) {
            self.act(&t, ch, Some(victim), None, To::Victim, EventKind::Emote);
        }
        if let Some(act) = social_act(&social.name) {
            self.record_social(ch, victim, act, &social.name);
        }
        CmdStatus::Ok
    }

    pub fn do_socials(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        let names: Vec<&str> = self.world.socials.iter().map(|s| s.name.as_str()).collect();
        let mut text = String::from("Socials:");
        for chunk in names.chunks(6) {
            text.push('\n');
            text.push_str(chunk.iter().map(|n| format!("{n:<13}")).collect::<String>().trim_end());
        }
        self.send_text(ch, &text);
        CmdStatus::Ok
    }
}

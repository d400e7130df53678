//! Talking: say, tell, shout (zone), gossip (world), emote.

use super::CmdStatus;
use crate::game::model::character::EventEntry;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::output::EventKind;

/// Longest thing one can say at once.
const MAX_SPEECH: usize = 512;

fn clip(s: &str) -> &str {
    let s = s.trim();
    &s[..s.floor_char_boundary(MAX_SPEECH)]
}

impl Engine {
    pub fn do_say(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let msg = clip(args);
        if msg.is_empty() {
            self.send_text(ch, "Yes, but WHAT do you want to say?");
            return CmdStatus::InvalidTarget;
        }
        let name = self.pers(ch);
        let room = self.world.ch(ch).map(|c| c.room).unwrap_or(0);
        // Dark Pawns's speech has a verb from its last mark ("Ann asks, '…?'"), and the
        // speaker's own line no comma; the others say, as CircleMUD and tbaMUD do.
        let (they, you) = if self.world.profile.family == crate::worldfile::profile::Family::DarkPawns {
            match msg.chars().last() {
                Some('!') => ("exclaims,", "exclaim"),
                Some('?') => ("asks,", "ask"),
                Some('.') => ("states,", "state"),
                _ => ("says,", "say"),
            }
        } else {
            ("says,", "say,")
        };
        // Mobs' names begin in lower case ("a sparring partner"); a sentence does not.
        let line = crate::game::send::messaging::capitalize(&format!("{name} {they} '{msg}'"));
        self.utterance(ch, |e| {
            e.send_event(ch, EventKind::Say, format!("You {you} '{msg}'"), None);
            e.room_event(room, &[ch], EventKind::Say, "say", &line, Some(&name));
        });
        // DG speech triggers hear what was said (not a mob's own words).
        let msg = msg.to_string();
        self.dg_speech(ch, &msg);
        CmdStatus::Ok
    }

    pub fn do_tell(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let Some((who, msg)) = args.trim().split_once(char::is_whitespace) else {
            self.send_text(ch, "Who do you wish to tell what??");
            return CmdStatus::InvalidTarget;
        };
        let msg = clip(msg);
        let Some(v) = self.find_player(who) else {
            self.send_text(ch, "No-one by that name here.");
            return CmdStatus::InvalidTarget;
        };
        if v == ch {
            self.send_text(ch, "You try to tell yourself something.");
            return CmdStatus::InvalidTarget;
        }
        let name = self.pers(ch);
        let vname = self.pers(v);
        self.utterance(ch, |e| {
            e.send_event(ch, EventKind::Tell, format!("You tell {vname}, '{msg}'"), None);
            e.send_event(
                v,
                EventKind::Tell,
                crate::game::send::messaging::capitalize(&format!("{name} tells you, '{msg}'")),
                Some(name.clone()),
            );
        });
        if self.world.ch(v).is_some_and(|c| c.is_agent()) {
            self.push_event(v, EventEntry { kind: "tell", text: Some(msg.into()), from: Some(name.into()), command: None, count: None });
        }
        CmdStatus::Ok
    }

    fn broadcast(&mut self, ch: CharId, msg: &str, kind: EventKind, events_type: &'static str, verb: &str, zone_only: bool) -> CmdStatus {
        let msg = clip(msg);
        if msg.is_empty() {
            self.send_text(ch, &format!("Yes, {verb}, fine, {verb} we must, but WHAT???"));
            return CmdStatus::InvalidTarget;
        }
        let name = self.pers(ch);
        let zone = self.world.ch(ch).map(|c| self.world.zone_of_room(c.room));
        let listeners: Vec<CharId> = self.world.players.values().copied().filter(|p| *p != ch).collect();
        // One message, everyone's copy (the listeners' worded alike, shared).
        let heard: std::sync::Arc<str> = crate::game::send::messaging::capitalize(&format!("{name} {verb}s, '{msg}'")).into();
        let from: std::sync::Arc<str> = name.as_str().into();
        self.utterance(ch, |e| {
            e.send_event(ch, kind, format!("You {verb}, '{msg}'"), None);
            for p in listeners {
                let Some(c) = e.world.ch(p) else { continue };
                if zone_only && Some(e.world.zone_of_room(c.room)) != zone {
                    continue;
                }
                let agent = c.is_agent();
                e.send_shared(p, kind, heard.clone(), Some(from.clone()));
                if agent {
                    e.push_event(
                        p,
                        EventEntry {
                            kind: events_type,
                            text: Some(msg.into()),
                            from: Some(name.as_str().into()),
                            command: None,
                            count: None,
                        },
                    );
                }
            }
        });
        CmdStatus::Ok
    }

    pub fn do_shout(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.broadcast(ch, args, EventKind::Shout, "shout", "shout", true)
    }

    pub fn do_gossip(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.broadcast(ch, args, EventKind::Gossip, "gossip", "gossip", false)
    }

    pub fn do_emote(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let msg = clip(args);
        if msg.is_empty() {
            self.send_text(ch, "Yes.. But what?");
            return CmdStatus::InvalidTarget;
        }
        let name = self.pers(ch);
        let text = crate::game::send::messaging::capitalize(&format!("{name} {msg}"));
        let room = self.world.ch(ch).map(|c| c.room).unwrap_or(0);
        self.utterance(ch, |e| {
            e.send_event(ch, EventKind::Emote, text.clone(), None);
            e.room_event(room, &[ch], EventKind::Emote, "emote", &text, Some(&name));
        });
        CmdStatus::Ok
    }
}

//! Telling characters what happens: direct text, CircleMUD-style `act` templates, and
//! the `EVENTS` entries agents see.

use std::sync::Arc;

use crate::game::model::character::EventEntry;
use crate::game::model::world::{CharId, ObjId, RoomId};
use crate::game::run::engine::Engine;
use crate::game::send::output::{EventKind, Out};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum To {
    Actor,
    Victim,
    /// Everyone in the actor's room but the actor.
    Room,
    /// Everyone in the actor's room but the actor and the victim.
    NotVictim,
}

impl Engine {
    /// The `re` a message to `id` carries: the id of the command being handled, if it is theirs.
    pub fn re_for(&self, id: CharId) -> Option<Arc<str>> {
        match &self.cur {
            Some((actor, re)) if *actor == id => re.clone(),
            _ => None,
        }
    }

    /// Sends one event to a player; mobs get nothing.
    pub fn send_event(&mut self, id: CharId, kind: EventKind, text: String, from: Option<String>) {
        self.send_shared(id, kind, text.into(), from.map(Into::into));
    }

    /// Sends one event whose text is already shared (broadcasts build it once).
    pub fn send_shared(&mut self, id: CharId, kind: EventKind, text: Arc<str>, from: Option<Arc<str>>) {
        // A tbaMUD world's colour codes (in its scripts' lines, its players' words) are
        // taken out before anyone sees them.
        let text = if self.world.profile.family == crate::worldfile::profile::Family::TbaMud && text.contains('@') {
            match crate::worldfile::colour::strip_tba(&text) {
                std::borrow::Cow::Owned(s) => Arc::from(s),
                std::borrow::Cow::Borrowed(_) => text,
            }
        } else {
            text
        };
        let re = self.re_for(id);
        // Colour marks are for a person's screen only (telnet, the web client): the
        // record, the HUD and an agent read the words (`colour`).
        let marked = text.contains(crate::game::send::colour::MARK);
        let plain: Arc<str> = if marked { crate::game::send::colour::strip(&text).into() } else { text.clone() };
        // The record has what the player was sent, whether or not a socket took it.
        if self.world.ch(id).and_then(|c| c.pc.as_ref()).is_some_and(|p| p.rec.is_some()) {
            self.observe(id, kind, &plain, from.as_ref());
        }
        self.hear(id, kind, &plain, from.as_ref());
        let mut json = false;
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            let Some(link) = pc.link.as_ref() else { return };
            json = !link.screen();
            pc.sent_this_pulse = true;
        }
        let text = if json { plain } else { text };
        self.deliver(id, Out::Event { kind, text, from, re });
    }

    pub fn send_text(&mut self, id: CharId, text: &str) {
        self.send_shared(id, EventKind::Text, text.into(), None);
    }

    /// Sends to everyone awake in a room except `except`.
    pub fn send_room(&mut self, room: RoomId, except: &[CharId], kind: EventKind, text: &str, from: Option<&str>) {
        let text: Arc<str> = text.into();
        let from: Option<Arc<str>> = from.map(Into::into);
        let people: Vec<CharId> = self.world.rooms[room]
            .people
            .iter()
            .copied()
            .filter(|p| !except.contains(p) && self.world.ch(*p).is_some_and(|c| c.pc.is_some() && c.awake()))
            .collect();
        for p in people {
            self.send_shared(p, kind, text.clone(), from.clone());
        }
    }

    /// The name of `id` as others see it ("Brenda", "a small goblin").
    pub fn pers(&self, id: CharId) -> String {
        self.world.ch(id).map(|c| c.name.to_string()).unwrap_or_else(|| "someone".into())
    }

    /// `pers`, shared with the character rather than copied.
    pub fn shared_name(&self, id: CharId) -> Arc<str> {
        self.world.ch(id).map(|c| c.name.clone()).unwrap_or_else(|| "someone".into())
    }

    /// Expands `$n $N $e $E $m $M $s $S $p` and capitalises the first letter.
    pub fn expand(&self, template: &str, actor: CharId, victim: Option<CharId>, obj: Option<ObjId>) -> String {
        let mut out = String::with_capacity(template.len() + 16);
        let mut chars = template.chars();
        while let Some(c) = chars.next() {
            if c != '$' {
                out.push(c);
                continue;
            }
            let Some(code) = chars.next() else { break };
            let a = self.world.ch(actor);
            let v = victim.and_then(|v| self.world.ch(v));
            match code {
                'n' => out.push_str(&self.pers(actor)),
                'N' => out.push_str(&victim.map(|v| self.pers(v)).unwrap_or_default()),
                'e' => out.push_str(a.map(|c| c.he()).unwrap_or("it")),
                'E' => out.push_str(v.map(|c| c.he()).unwrap_or("it")),
                'm' => out.push_str(a.map(|c| him(c.sex)).unwrap_or("it")),
                'M' => out.push_str(v.map(|c| him(c.sex)).unwrap_or("it")),
                's' => out.push_str(a.map(|c| c.his()).unwrap_or("its")),
                'S' => out.push_str(v.map(|c| c.his()).unwrap_or("its")),
                'p' => out.push_str(&obj.and_then(|o| self.world.obj(o)).map(|o| o.short_descr.clone()).unwrap_or_default()),
                '$' => out.push('$'),
                other => {
                    out.push('$');
                    out.push(other);
                }
            }
        }
        capitalize(&out)
    }

    /// CircleMUD's `act`.
    pub fn act(&mut self, template: &str, actor: CharId, victim: Option<CharId>, obj: Option<ObjId>, to: To, kind: EventKind) {
        let Some(room) = self.world.ch(actor).map(|c| c.room) else {
            return;
        };
        let text = self.expand(template, actor, victim, obj);
        let from = Some(self.pers(actor));
        // tbaMUD's act triggers: the mobs who read this line may answer it.
        if !self.dg.off && !self.dg.triggers.is_empty() && self.world.rooms[room].behaving > 0 {
            self.dg_act(room, &text, actor, victim, obj, to);
        }
        match to {
            To::Actor => self.send_event(actor, kind, text, None),
            To::Victim => {
                if let Some(v) = victim {
                    if self.world.ch(v).is_some_and(|c| c.awake() || kind == EventKind::Combat) {
                        self.send_event(v, kind, text, from);
                    }
                }
            }
            To::Room => self.send_room(room, &[actor], kind, &text, from.as_deref()),
            To::NotVictim => {
                let except: Vec<CharId> = [Some(actor), victim].into_iter().flatten().collect();
                self.send_room(room, &except, kind, &text, from.as_deref())
            }
        }
    }

    pub fn act_room_others(&mut self, actor: CharId, template: &str) {
        self.act(template, actor, None, None, To::Room, EventKind::System);
    }

    /// Tells everyone in the room and records an `EVENTS` entry for the agents there.
    pub fn room_event(
        &mut self,
        room: RoomId,
        except: &[CharId],
        kind: EventKind,
        events_type: &'static str,
        text: &str,
        from: Option<&str>,
    ) {
        let people: Vec<CharId> = self.world.rooms[room].people.iter().copied().filter(|p| !except.contains(p)).collect();
        self.tell_some(&people, kind, events_type, &text.into(), from.map(Into::into));
    }

    /// `room_event` for some of a room's people: those awake hear it (one shared text),
    /// the agents among them get an `EVENTS` entry.
    pub fn tell_some(&mut self, people: &[CharId], kind: EventKind, events_type: &'static str, text: &Arc<str>, from: Option<Arc<str>>) {
        for &p in people {
            if self.world.ch(p).is_some_and(|c| c.pc.is_some() && c.awake()) {
                self.send_shared(p, kind, text.clone(), from.clone());
            }
        }
        for &p in people {
            if self.world.ch(p).is_some_and(|c| c.is_agent()) {
                self.push_event(
                    p,
                    EventEntry { kind: events_type, text: Some(text.clone()), from: from.clone(), command: None, count: None },
                );
            }
        }
    }
}

fn him(sex: u8) -> &'static str {
    match sex {
        1 => "him",
        2 => "her",
        _ => "it",
    }
}

pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// "1 gold coin", "7 gold coins".
pub fn gold_coins(n: i64) -> String {
    if n == 1 {
        "1 gold coin".to_string()
    } else {
        format!("{n} gold coins")
    }
}

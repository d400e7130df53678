//! A character entering the world (a new login, a takeover, a reconnect) and what its
//! session is sent then: subscriptions, the server notice, the injected memory, every
//! variable.

use std::sync::Arc;

use crate::game::model::character::{Char, ClientInfo, Link};
use crate::game::model::world::CharId;
use crate::game::run::engine::{Engine, EnterReply};
use crate::game::send::output::Out;
use crate::game::send::vars::{self, VarSet, EVENTS_VAR, VAR_NAMES};

impl Engine {
    /// Places a character in the world, or hands an in-world one to a new link.
    pub(crate) fn enter(&mut self, record: pawns_storage::CharacterRecord, link: Link, resumed: Option<bool>) -> EnterReply {
        let key = record.name.to_ascii_lowercase();
        let client = link.client.clone();
        if let Some(&id) = self.world.players.get(&key) {
            // Takeover or reconnect: the old link (if any) is told and closed.
            let was_linked = self.world.ch(id).and_then(|c| c.pc.as_ref()).is_some_and(|p| p.link.is_some() && p.linkdead_since.is_none());
            // The old link hears why it ends (a link-dead one just ends).
            self.close_link(id, "session_taken_over", "This character logged in from elsewhere.");
            // A new login is a new session for the record.
            self.end_session(id, "replaced");
            self.begin_session(id, &client);
            if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
                pc.link = Some(link);
                pc.linkdead_since = None;
                pc.last_sent = None;
                pc.queue.clear();
            }
            if let Some(level) = self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.prefs.colour) {
                self.deliver(id, crate::game::send::output::Out::Colour(Some(level)));
            }
            // state and vars come first (protocol §4), then the words.
            self.send_state(id);
            self.send_all_vars(id, resumed);
            self.send_memory(id, &client);
            self.send_notice(id, &client);
            self.send_text(id, if was_linked { "You take over your own body, already in use!" } else { "Reconnecting." });
            // A new page (the web client) starts from an empty screen: the room, as on entering.
            if self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).is_some_and(|l| l.json && l.screen()) {
                let look = self.room_text(id, false);
                self.send_text(id, &look);
            }
            if !was_linked {
                self.announce_here(id, true, "has reconnected.");
            }
            return EnterReply { char_id: id, reconnected: true };
        }
        let id = self.world.new_id();
        let room = self.world.room_of_vnum(record.room_vnum).unwrap_or(self.start_room);
        let mut ch = Char::from_record(id, &record, room, None);
        if let Some(pc) = ch.pc.as_mut() {
            pc.link = Some(link);
            pc.last_save_pulse = self.pulse;
        }
        self.world.chars.insert(id, ch);
        self.restore_heard(id);
        self.world.players.insert(key.clone(), id);
        self.chat.ensure_room(&record.name);
        self.load_gear(id, &record);
        self.world.char_to_room(id, room);
        self.begin_session(id, &client);
        self.announce_here(id, true, "has entered the game.");
        self.send_state(id);
        self.send_all_vars(id, resumed);
        self.send_memory(id, &client);
        self.send_notice(id, &client);
        // The player's own colour choice, for its telnet session.
        if let Some(level) = record.colour {
            self.deliver(id, crate::game::send::output::Out::Colour(Some(level.min(3))));
        }
        let welcome = self.world.profile.welcome.clone();
        self.send_text(id, &welcome);
        // tbaMUD greets a new character (its do_start's first login).
        if record.saved_at == 0 && self.world.profile.family == crate::worldfile::profile::Family::TbaMud {
            self.send_text(
                id,
                "Welcome.  This is your new tbaMUD character!  You can now earn gold,\ngain experience, find weapons and equipment, and much more -- while\nmeeting people from around the world!",
            );
        }
        // A person sees where it stands, as the servers' `look_at_room` on entering shows
        // it (an agent has its `state`; the web client gets the room like any other).
        if self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).is_some_and(Link::screen) {
            let look = self.room_text(id, false);
            self.send_text(id, &look);
        }
        self.registered.insert(key.clone());
        if self.has_mail(&key) {
            self.send_text(id, "You have mail waiting.");
        }
        // The room's login triggers (tbaMUD's enter_player_game).
        self.dg_login(room, id);
        EnterReply { char_id: id, reconnected: false }
    }

    pub(in crate::game) fn subscribe(&mut self, id: CharId, names: &[String], add: bool, re: Option<Arc<str>>) {
        let (set, unknown) = VarSet::parse(names);
        let Some(ch) = self.world.ch(id) else { return };
        let Some(pc) = ch.pc.as_ref() else { return };
        let before = pc.subscribed;
        let after = if add { VarSet(before.0 | set.0) } else { VarSet(before.0 & !set.0) };
        let newly = VarSet(after.0 & !before.0);
        let values = if add && !newly.is_empty() {
            let v = vars::compute(&self.world, ch);
            let mut out = Vec::new();
            for (i, name) in VAR_NAMES.iter().enumerate() {
                if newly.contains(i) {
                    out.push((*name, if i == EVENTS_VAR { serde_json::json!([]) } else { vars::value_of(&v, i) }));
                }
            }
            Some(out)
        } else {
            None
        };
        let fresh = vars::compute(&self.world, ch);
        // A MUD client (telnet with GMCP/MSDP) also starts from the room and itself.
        let mud = pc.link.as_ref().is_some_and(Link::screen);
        let values = values.map(|mut v| {
            if mud {
                v.push((crate::game::send::mud_vars::ROOM_INFO, crate::game::send::mud_vars::room_info(&self.world, ch.room)));
                v.push((crate::game::send::mud_vars::CHAR_INFO, crate::game::send::mud_vars::char_info(&self.world, ch)));
            }
            v
        });
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else {
            return;
        };
        pc.subscribed = after;
        pc.mud_char = None;
        // What was just sent (and what the next flush compares against) is the full picture.
        if pc.last_sent.is_some() {
            pc.last_sent = Some(Box::new(fresh));
        }
        if !unknown.is_empty() {
            let error = Out::Error {
                code: "unknown_variable",
                message: format!("unknown variable(s): {}", unknown.join(", ")),
                re: re.clone(),
                extra: Some(serde_json::json!({ "variables": unknown })),
            };
            self.deliver(id, error);
        }
        if let Some(values) = values {
            self.deliver(id, Out::Vars { values, re, resumed: None });
        }
    }

    /// Protocol §7: an agent with memory gets `memory_bootstrap` then `memory_summary`,
    /// right after `vars`; the memories injected are stored with its session.
    fn send_notice(&mut self, id: CharId, client: &ClientInfo) {
        if let Some(n) = &client.notice {
            self.send_event(id, crate::game::send::output::EventKind::System, n.clone(), None);
        }
    }

    fn send_memory(&mut self, id: CharId, client: &ClientInfo) {
        let Some(m) = client.memory.clone() else { return };
        self.note_memory_ids(id, &m.memory_ids);
        self.note_known(id, &m.known, client.valence);
        if m.summary.trim().is_empty() {
            return;
        }
        if !self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).is_some_and(|l| l.json) {
            return;
        }
        let block =
            Out::MemoryBootstrap { block: m.block.as_str().into(), count: m.count, summaries: m.summaries, soul: m.soul.clone().into() };
        if self.deliver(id, block) {
            self.deliver(id, Out::MemorySummary(m.summary.as_str().into()));
        }
    }

    /// Sends every one of the 19 variables (login, resync).
    pub fn send_all_vars(&mut self, id: CharId, resumed: Option<bool>) {
        let Some(ch) = self.world.ch(id) else { return };
        let v = vars::compute(&self.world, ch);
        let mut values = Vec::with_capacity(19);
        for (i, name) in VAR_NAMES.iter().enumerate() {
            values.push((*name, if i == EVENTS_VAR { serde_json::json!([]) } else { vars::value_of(&v, i) }));
        }
        let re = self.re_for(id);
        let mut json = false;
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            pc.last_sent = Some(Box::new(v));
            json = pc.link.as_ref().is_some_and(|l| l.json);
        }
        if json {
            self.deliver(id, Out::Vars { values, re, resumed });
        }
    }
}

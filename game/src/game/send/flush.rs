//! The end of every pulse: crowd notices, real variable deltas, `EVENTS`, and telnet
//! prompts. Values are computed and compared with what each session was last sent.

use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::mud_vars;
use crate::game::send::output::Out;
use crate::game::send::vars::{self, EVENTS_VAR, VAR_NAMES};

/// Players whose memory the flush asks for ahead of reading it (see `warm_players`).
const WARM_AHEAD: usize = 32;

impl Engine {
    /// End of pulse: real variable deltas, EVENTS, and telnet prompts.
    pub(crate) fn flush(&mut self) {
        self.flush_started();
        let ids: Vec<CharId> = self.world.players.values().copied().collect();
        if !self.crowd.is_empty() {
            self.flush_crowds();
        }
        let recording = self.recorder.is_some();
        let mut rooms = vars::RoomCache::new();
        let prev_rooms = std::mem::take(&mut self.room_vars);
        for (n, id) in ids.iter().copied().enumerate() {
            if n % 256 == 255 {
                self.drain_inbox();
            }
            if n % WARM_AHEAD == 0 {
                self.warm_players(&ids[n..(n + WARM_AHEAD).min(ids.len())]);
            }
            // The pulse is over: its decisions get their post-state, its changes become
            // transitions — in the same pass as the player's variables, so a crowd's
            // characters are fetched from memory once per pulse, not twice.
            if recording {
                self.finish_pulse_records(id);
            }
            self.flush_player(id, &mut rooms, &prev_rooms);
        }
        self.room_vars = rooms;
    }

    /// A command's actor gets its variables' changes with its reply, in the same write,
    /// rather than at the pulse's end (which then finds nothing new for it).
    pub(crate) fn flush_actor(&mut self, id: CharId) {
        let prev = std::mem::take(&mut self.room_vars);
        let mut rooms = vars::RoomCache::new();
        self.flush_player(id, &mut rooms, &prev);
        self.room_vars = prev;
    }

    /// One player's part of the flush: its variables' changes, `EVENTS`, its prompt.
    fn flush_player(&mut self, id: CharId, rooms: &mut vars::RoomCache, prev_rooms: &vars::RoomCache) {
        let Some(ch) = self.world.ch(id) else {
            return;
        };
        let Some(pc) = ch.pc.as_ref() else { return };
        let Some(link) = pc.link.as_ref() else {
            return;
        };
        let json = link.json;
        let screen = link.screen();
        let subs = pc.subscribed;
        if !json && subs.is_empty() {
            self.telnet_prompt(id);
            return;
        }
        if subs.is_empty() {
            if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
                pc.events.clear();
                pc.events_dropped = 0;
                pc.pulse_re = None;
            }
            return;
        }
        let now = vars::compute_cached(&self.world, ch, rooms, prev_rooms, subs, pc.last_sent.as_deref());
        let mut values = Vec::new();
        match pc.last_sent.as_deref() {
            Some(last) => {
                for (i, name) in VAR_NAMES.iter().enumerate().take(EVENTS_VAR) {
                    if subs.contains(i) && vars::differs(last, &now, i) {
                        values.push((*name, vars::value_of(&now, i)));
                    }
                }
            }
            None => {
                for (i, name) in VAR_NAMES.iter().enumerate().take(EVENTS_VAR) {
                    if subs.contains(i) {
                        values.push((*name, vars::value_of(&now, i)));
                    }
                }
            }
        }
        // A MUD client (GMCP/MSDP over telnet) also gets the room as mappers read it
        // and who it fights, each only when it changed.
        let mud_char = screen.then(|| mud_vars::char_info(&self.world, ch));
        if screen && values.iter().any(|(n, _)| matches!(*n, "ROOM_VNUM" | "ROOM_NAME" | "ROOM_EXITS")) {
            values.push((mud_vars::ROOM_INFO, mud_vars::room_info(&self.world, ch.room)));
        }
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else {
            return;
        };
        if let Some(info) = mud_char {
            if pc.mud_char.as_deref() != Some(&info) {
                values.push((mud_vars::CHAR_INFO, info.clone()));
                pc.mud_char = Some(Box::new(info));
            }
        }
        if subs.contains(EVENTS_VAR) && (!pc.events.is_empty() || pc.events_dropped > 0) {
            let mut list: Vec<serde_json::Value> = Vec::with_capacity(pc.events.len() + 1);
            if pc.events_dropped > 0 {
                list.push(serde_json::json!({"type": "events_dropped", "count": pc.events_dropped}));
            }
            list.extend(pc.events.drain(..).map(|e| serde_json::to_value(e).unwrap_or_default()));
            pc.events_dropped = 0;
            values.push(("EVENTS", serde_json::Value::Array(list)));
        } else if !subs.contains(EVENTS_VAR) {
            pc.events.clear();
        }
        match pc.last_sent.as_mut() {
            Some(last) => **last = now,
            None => pc.last_sent = Some(Box::new(now)),
        }
        let re = if json { pc.pulse_re.take() } else { None };
        if !values.is_empty() {
            self.deliver(id, Out::Vars { values, re, resumed: None });
        }
        if !json {
            // Gauges first, then the prompt the text ends with.
            self.telnet_prompt(id);
        }
    }

    /// A telnet session gets a prompt after a pulse that sent it anything, and right
    /// after each command it typed (`run_command`): a MUD client takes the prompt (with
    /// its GA/EOR) as the end of the reply, so the reply's prompt must not wait for the
    /// pulse to end. What others do later in the pulse gets a prompt of its own then.
    pub(crate) fn telnet_prompt(&mut self, id: CharId) {
        let Some(ch) = self.world.ch(id) else { return };
        if ch.pc.as_ref().is_some_and(|pc| pc.sent_this_pulse) {
            let p = crate::game::send::render::prompt(ch, self.world.profile.family);
            self.deliver(id, Out::Prompt(p));
        }
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            pc.sent_this_pulse = false;
            pc.pulse_re = None;
        }
    }
}

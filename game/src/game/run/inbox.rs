//! What the engine does with each message of its inbox: logins, commands (run now or
//! queued, one per player per pulse), subscriptions, link changes, HUD and actions
//! requests, `who`. The loop that reads the inbox and the pulse is `engine.rs`.

use std::sync::Arc;
use std::time::Instant;

use crate::game::model::character::{EventEntry, Queued};
use crate::game::model::world::CharId;
use crate::game::records::recording::CommandMeta;
use crate::game::run::engine::{Engine, EngineMsg, MAX_QUEUED};
use crate::game::send::output::Out;

impl EngineMsg {
    /// The character whose session sent this message (its reply goes out at once).
    pub(crate) fn session_char(&self) -> Option<CharId> {
        match self {
            EngineMsg::Command { char_id, .. }
            | EngineMsg::Subscribe { char_id, .. }
            | EngineMsg::Reattach { char_id, .. }
            | EngineMsg::Resync { char_id, .. }
            | EngineMsg::RateLimited { char_id, .. }
            | EngineMsg::Actions { char_id, .. }
            | EngineMsg::Say { char_id, .. } => Some(*char_id),
            _ => None,
        }
    }
}

impl Engine {
    /// A command from a session (or an action): run now if the player has not acted
    /// this pulse, else queued (one command per player per pulse).
    pub(crate) fn handle_command(
        &mut self,
        char_id: CharId,
        link_id: u64,
        line: String,
        id: Option<Arc<str>>,
        (received, received_us): (Instant, u64),
        client: Option<Box<crate::game::records::recording::CommandClient>>,
    ) {
        if !self.pc_link_matches(char_id, link_id) {
            return;
        }
        // Whatever the client, a line reaches the game without terminal controls.
        let line = crate::game::run::clean::clean_line(line);
        let Some(ch) = self.world.chars.get_mut(&char_id) else {
            return;
        };
        let idle = ch.wait == 0;
        let Some(pc) = ch.pc.as_mut() else {
            return;
        };
        // A player who has not acted this pulse acts now: one command per pulse
        // still holds, and the reply does not wait for the next tick.
        if idle && pc.queue.is_empty() && pc.acted_pulse != self.pulse {
            pc.acted_pulse = self.pulse;
            pc.pulse_re = id.clone();
            self.run_command(char_id, &line, CommandMeta { received, received_us, re: id, client });
            self.stats.command_ran(received.elapsed());
            self.deliver(char_id, Out::Answered(received));
            return;
        }
        if pc.queue.len() >= MAX_QUEUED {
            let refusal =
                Out::Error { code: "rate_limited", message: "too many commands waiting — slow down".into(), re: id.clone(), extra: None };
            self.deliver(char_id, refusal);
            self.record_unrun(char_id, &line, "rate_limited", id, received_us, client);
            return;
        }
        pc.queue.push_back(Queued { line, id, received, received_us, client });
        self.world.waiting.insert(char_id);
    }

    /// Handles one message; the session it came from gets what it was sent at once (a
    /// reply never waits for the pulse), everyone else at the pulse's end.
    pub(in crate::game) fn handle(&mut self, msg: EngineMsg) {
        let actor = msg.session_char();
        let command = matches!(msg, EngineMsg::Command { .. } | EngineMsg::Actions { .. });
        self.handle_msg(msg);
        if let Some(id) = actor {
            if command {
                // Its variables go with its reply: one write.
                self.flush_actor(id);
            }
            self.send_outbox(id);
        }
    }

    fn handle_msg(&mut self, msg: EngineMsg) {
        self.journal_msg(&msg);
        match msg {
            EngineMsg::Enter { record, link, resumed, reply } => {
                let r = self.enter(*record, link, resumed);
                self.send_outbox(r.char_id);
                let _ = reply.send(r);
            }
            EngineMsg::Command { char_id, link_id, line, id, received, client } => {
                let received_us = self.command_received_us.take().unwrap_or_else(|| self.received_us(received));
                self.handle_command(char_id, link_id, line, id, (received, received_us), client);
            }
            EngineMsg::Resident(note) => self.resident_note(note),
            EngineMsg::Actions { char_id, link_id, batch, re, premade } => {
                if self.pc_link_matches(char_id, link_id) {
                    self.apply_actions(char_id, batch, re, premade);
                }
            }
            EngineMsg::MindRecorded { name, items } => {
                if let Some(id) = self.world.players.get(&name.to_ascii_lowercase()).copied() {
                    for (layer, mid, text) in items {
                        self.record_transition(id, pawns_storage::Transition::Mind { layer: layer.into(), id: mid, text });
                    }
                }
            }
            EngineMsg::Say { char_id, text } => self.send_text(char_id, text.trim_end()),
            EngineMsg::Whereabouts { char_id, reply } => {
                let _ = reply.send(self.whereabouts(char_id));
            }
            EngineMsg::Subscribe { char_id, link_id, names, add, re } => {
                if self.pc_link_matches(char_id, link_id) {
                    self.subscribe(char_id, &names, add, re);
                }
            }
            EngineMsg::Detach { char_id, link_id } => {
                if self.pc_link_matches(char_id, link_id) {
                    let pulse = self.pulse;
                    if let Some(pc) = self.world.chars.get_mut(&char_id).and_then(|c| c.pc.as_mut()) {
                        if pc.link.as_ref().is_some_and(|l| !l.json) {
                            pc.link = None;
                        }
                        pc.linkdead_since = Some(pulse);
                    }
                    self.save_char(char_id);
                    self.announce_here(char_id, false, "has lost their link.");
                }
            }
            EngineMsg::Reattach { char_id, link_id, resync } => {
                if self.pc_link_matches(char_id, link_id) {
                    if let Some(pc) = self.world.chars.get_mut(&char_id).and_then(|c| c.pc.as_mut()) {
                        pc.linkdead_since = None;
                    }
                    self.announce_here(char_id, true, "has reconnected.");
                    if resync {
                        self.send_state(char_id);
                        self.send_all_vars(char_id, Some(false));
                    }
                }
            }
            EngineMsg::Resync { char_id, link_id } => {
                if self.pc_link_matches(char_id, link_id) {
                    self.send_state(char_id);
                    self.send_all_vars(char_id, Some(false));
                }
            }
            EngineMsg::RateLimited { char_id, link_id, command } => {
                if self.pc_link_matches(char_id, link_id) {
                    self.record_refused(char_id, &command, "rate_limited", None, self.now_us);
                    self.push_event(
                        char_id,
                        EventEntry { kind: "rate_limited", text: None, from: None, command: Some(command), count: None },
                    );
                }
            }
            EngineMsg::Hud { char_id, link_id, beat, reply } => {
                if !self.pc_link_matches(char_id, link_id) {
                    let _ = reply.send(None);
                    return;
                }
                let parts = self.hud_parts(char_id).map(|(parts, heartbeat_s)| {
                    let until = self.world.ch(char_id).and_then(|c| c.pc.as_ref()).and_then(|p| p.hud.asleep_until_us);
                    let name = self.world.ch(char_id).map(|c| c.name.to_string()).unwrap_or_default();
                    crate::game::send::hud::HudSnapshot {
                        parts,
                        heartbeat_s,
                        asleep: until.is_some_and(|u| u > crate::time::unix_us()),
                        name,
                    }
                });
                if beat {
                    if let Some(pc) = self.world.chars.get_mut(&char_id).and_then(|c| c.pc.as_mut()) {
                        pc.hud.heartbeat.beat();
                    }
                }
                let _ = reply.send(parts);
            }
            EngineMsg::HudOf { name, reply } => {
                let id = self.world.players.get(&name.to_ascii_lowercase()).copied();
                let snap = id.and_then(|char_id| {
                    let until = self.world.ch(char_id).and_then(|c| c.pc.as_ref()).and_then(|p| p.hud.asleep_until_us);
                    let name = self.world.ch(char_id).map(|c| c.name.to_string()).unwrap_or_default();
                    self.hud_parts(char_id).map(|(parts, heartbeat_s)| crate::game::send::hud::HudSnapshot {
                        parts,
                        heartbeat_s,
                        asleep: until.is_some_and(|u| u > crate::time::unix_us()),
                        name,
                    })
                });
                let _ = reply.send(snap);
            }
            EngineMsg::Who { reply } => {
                let list =
                    self.world.players.values().filter_map(|id| self.world.ch(*id)).map(|c| (c.name.to_string(), c.is_agent())).collect();
                let _ = reply.send(list);
            }
            EngineMsg::Shutdown { .. } => {}
        }
    }
}

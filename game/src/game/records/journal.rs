//! The engine's journal (read back by `pawns replay`): live, every message that changes the
//! world is written down with the pulse it came in and the time its records carry, and
//! each pulse that recorded something with its times; in a replay the same times and
//! inputs are fed back at the same places. The engine reads the wall clock only here.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};

use crate::game::model::character::{ClientInfo, Link};
use crate::game::records::journal_entries::{Boot, ClientRecord, Entry, Input};
use crate::game::records::record_sink::RecItem;
use crate::game::run::engine::{Engine, EngineMsg};

/// Entries waiting to be handed to the recorder with the records.
pub struct Journal {
    pub run: u64,
    pub entries: Vec<Entry>,
    /// When the pulse in progress began, and its flush.
    tick_start_us: u64,
    tick_flush_us: u64,
}

/// What a replay feeds the engine inside pulses: the pulses' times, and the inputs that
/// were handled in the middle of one.
#[derive(Default)]
pub struct ReplayFeed {
    pub ticks: HashMap<u64, (u64, u64)>,
    /// (pulse, look at the inbox, time, input), in order.
    pub mid: VecDeque<(u64, u32, u64, Input)>,
    /// The sessions' queues: kept open and emptied, so nothing a replay sends is refused.
    pub outs: Vec<mpsc::Receiver<crate::game::send::output::Outs>>,
    /// Where the run cut slow consumers: (character, its nth delivery).
    pub cuts: std::collections::HashSet<(u64, u64)>,
}

/// Capacity of a replayed link's queue (emptied after every step).
const REPLAY_QUEUE: usize = 1 << 16;

fn client_record(c: &ClientInfo) -> ClientRecord {
    ClientRecord {
        harness: c.harness.clone(),
        model: c.model.clone(),
        version: c.version.clone(),
        tier: c.tier.clone(),
        valence: c.valence,
        memory: c.memory.as_deref().cloned(),
        notice: c.notice.clone(),
        display: c.display,
    }
}

/// A code the engine knows, as the `&'static str` its outcomes carry.
fn static_code(code: String) -> &'static str {
    Box::leak(code.into_boxed_str())
}

impl Engine {
    /// Starts journaling this run with its boot entry.
    pub fn begin_journal(&mut self, boot: Boot) {
        self.journal = Some(Journal { run: boot.run, entries: vec![Entry::Boot(Box::new(boot))], tick_start_us: 0, tick_flush_us: 0 });
    }

    /// Goes on journaling run `run` (a branch: its journal so far is the parent's,
    /// written by `pawns branch`, up to the branch point).
    pub fn continue_journal(&mut self, run: u64) {
        self.journal = Some(Journal { run, entries: Vec::new(), tick_start_us: 0, tick_flush_us: 0 });
    }

    fn push_entry(&mut self, e: Entry) {
        if let Some(j) = self.journal.as_mut() {
            j.entries.push(e);
        }
    }

    /// When the session read a command, in the engine's time.
    pub(crate) fn received_us(&self, received: Instant) -> u64 {
        self.now_us.saturating_sub(received.elapsed().as_micros() as u64)
    }

    /// Live: a message that changes the world sets the step's time and is written down.
    pub(crate) fn journal_msg(&mut self, msg: &EngineMsg) {
        if self.replay.is_some() {
            return;
        }
        let input = match msg {
            EngineMsg::Enter { record, link, resumed, .. } => Input::Enter {
                record: record.clone(),
                link_id: link.id,
                json: link.json,
                client: Box::new(client_record(&link.client)),
                resumed: *resumed,
            },
            EngineMsg::Command { char_id, link_id, line, id, received, client } => {
                self.now_us = crate::time::unix_us();
                let c = client.as_deref().cloned().unwrap_or_default();
                // Read once: what the record says is what the journal says.
                let received_us = self.received_us(*received);
                self.command_received_us = Some(received_us);
                Input::Command {
                    char_id: *char_id,
                    link_id: *link_id,
                    line: line.clone(),
                    id: id.as_deref().map(str::to_string),
                    received_us,
                    tokens_prompt: c.tokens_prompt,
                    tokens_completion: c.tokens_completion,
                    latency_ms: c.latency_ms,
                    reason: c.reason,
                    llm: c.llm,
                }
            }
            EngineMsg::Subscribe { char_id, link_id, names, add, re } => Input::Subscribe {
                char_id: *char_id,
                link_id: *link_id,
                names: names.clone(),
                add: *add,
                re: re.as_deref().map(str::to_string),
            },
            EngineMsg::Detach { char_id, link_id } => Input::Detach { char_id: *char_id, link_id: *link_id },
            EngineMsg::Reattach { char_id, link_id, resync } => Input::Reattach { char_id: *char_id, link_id: *link_id, resync: *resync },
            EngineMsg::Resync { char_id, link_id } => Input::Resync { char_id: *char_id, link_id: *link_id },
            EngineMsg::RateLimited { char_id, link_id, command } => {
                Input::RateLimited { char_id: *char_id, link_id: *link_id, command: command.clone() }
            }
            EngineMsg::Actions { char_id, link_id, batch, re, premade } => Input::Actions {
                char_id: *char_id,
                link_id: *link_id,
                batch: batch.to_string(),
                re: re.as_deref().map(str::to_string),
                premade: premade
                    .iter()
                    .map(|(i, o)| (*i, o.as_ref().map(|v| v.to_string()).map_err(|(c, m)| (c.to_string(), m.clone()))))
                    .collect(),
            },
            EngineMsg::Say { char_id, text } => Input::Say { char_id: *char_id, text: text.clone() },
            EngineMsg::MindRecorded { name, items } => {
                Input::MindRecorded { name: name.clone(), items: items.iter().map(|(l, id, t)| (l.to_string(), *id, t.clone())).collect() }
            }
            EngineMsg::Hud { char_id, link_id, beat, .. } => Input::Hud { char_id: *char_id, link_id: *link_id, beat: *beat },
            EngineMsg::Resident(note) => match note {
                crate::game::run::agents::ResidentNote::Known { name, info, join_room } => Input::ResidentKnown {
                    name: name.clone(),
                    kind: info.kind.clone(),
                    prompt: info.prompt.clone(),
                    model: info.model.clone(),
                    join_room: *join_room,
                },
                crate::game::run::agents::ResidentNote::Retired { name } => Input::ResidentRetired { name: name.clone() },
                crate::game::run::agents::ResidentNote::Tell { to, text } => Input::ResidentTell { to: to.clone(), text: text.clone() },
            },
            // Questions that change nothing.
            EngineMsg::Who { .. } | EngineMsg::HudOf { .. } | EngineMsg::Whereabouts { .. } | EngineMsg::Shutdown { .. } => return,
        };
        if !matches!(input, Input::Command { .. }) {
            self.now_us = crate::time::unix_us();
        }
        let (pulse, drain, at_us) = (self.pulse, self.draining, self.now_us);
        self.push_entry(Entry::Input { pulse, drain, at_us, input });
    }

    /// Live: the server is stopping (its sessions end now).
    pub(crate) fn journal_shutdown(&mut self) {
        if self.replay.is_none() {
            self.now_us = crate::time::unix_us();
            let (pulse, at_us) = (self.pulse, self.now_us);
            self.push_entry(Entry::Input { pulse, drain: 0, at_us, input: Input::Shutdown });
        }
    }

    /// A pulse begins: its time (the clock live, the journal in a replay); returns the
    /// records gathered so far, to tell whether the pulse recorded anything.
    pub(crate) fn tick_started(&mut self) -> usize {
        self.drain_calls = 0;
        match self.replay.as_ref() {
            None => {
                self.now_us = crate::time::unix_us();
                if let Some(j) = self.journal.as_mut() {
                    j.tick_start_us = self.now_us;
                }
            }
            Some(f) => {
                if let Some((start, _)) = f.ticks.get(&(self.pulse + 1)) {
                    self.now_us = *start;
                }
            }
        }
        self.rec_out.len()
    }

    /// The pulse's flush: its second time.
    pub(crate) fn flush_started(&mut self) {
        match self.replay.as_ref() {
            None => {
                self.now_us = crate::time::unix_us();
                if let Some(j) = self.journal.as_mut() {
                    j.tick_flush_us = self.now_us;
                }
            }
            Some(f) => {
                if let Some((_, flush)) = f.ticks.get(&self.pulse) {
                    self.now_us = *flush;
                }
            }
        }
    }

    /// A pulse ended: live, one that recorded something is journaled with its times.
    pub(crate) fn tick_ended(&mut self, recorded_before: usize) {
        self.drain_calls = 0;
        if self.replay.is_some() {
            self.replay_empty_queues();
            return;
        }
        if let Some(j) = self.journal.as_ref().filter(|_| self.rec_out.len() > recorded_before) {
            let (pulse, start_us, flush_us) = (self.pulse, j.tick_start_us, j.tick_flush_us);
            self.push_entry(Entry::Tick { pulse, start_us, flush_us });
        }
    }

    /// Hands the journaled entries to the recorder (with the records of the same step).
    pub(crate) fn hand_over_journal(&mut self, items: &mut Vec<RecItem>) {
        let Some(j) = self.journal.as_mut() else { return };
        if j.entries.is_empty() {
            return;
        }
        let entries = std::mem::take(&mut j.entries);
        match pawns_storage::codec::encode_compact(&entries) {
            Ok(bytes) => items.push(RecItem::Journal(j.run, bytes)),
            Err(e) => tracing::error!("the journal could not be encoded: {e}"),
        }
    }

    /// Replay: the inputs handled at this look at the inbox in this pulse.
    pub(crate) fn replay_drain(&mut self) {
        let (pulse, drain) = (self.pulse, self.drain_calls);
        loop {
            let Some(f) = self.replay.as_mut() else { return };
            match f.mid.front() {
                Some((p, d, _, _)) if *p == pulse && *d == drain => {}
                _ => return,
            }
            let Some((_, _, at_us, input)) = f.mid.pop_front() else { return };
            self.replay_input(at_us, input);
        }
    }

    /// Replay: empties the sessions' queues (what they were sent is not compared).
    pub(crate) fn replay_empty_queues(&mut self) {
        if let Some(f) = self.replay.as_mut() {
            for rx in &mut f.outs {
                while rx.try_recv().is_ok() {}
            }
        }
    }

    /// Replay: one input, as the live engine handled it.
    pub fn replay_input(&mut self, at_us: u64, input: Input) {
        self.now_us = at_us;
        let msg = match input {
            Input::Enter { record, link_id, json, client, resumed } => {
                let (tx, rx) = mpsc::channel(REPLAY_QUEUE);
                if let Some(f) = self.replay.as_mut() {
                    f.outs.push(rx);
                }
                let client = *client;
                let client = Arc::new(ClientInfo {
                    harness: client.harness,
                    model: client.model,
                    version: client.version,
                    tier: client.tier,
                    valence: client.valence,
                    memory: client.memory.map(Arc::new),
                    notice: client.notice,
                    display: client.display,
                });
                let (reply, _) = oneshot::channel();
                EngineMsg::Enter { record, link: Link { id: link_id, tx, json, client }, resumed, reply }
            }
            Input::Command { char_id, link_id, line, id, received_us, tokens_prompt, tokens_completion, latency_ms, reason, llm } => {
                let given =
                    tokens_prompt.is_some() || tokens_completion.is_some() || latency_ms.is_some() || reason.is_some() || !llm.is_empty();
                let client = given.then(|| {
                    Box::new(crate::game::records::recording::CommandClient { tokens_prompt, tokens_completion, latency_ms, reason, llm })
                });
                self.handle_command(char_id, link_id, line, id.map(Arc::from), (Instant::now(), received_us), client);
                // As `handle` does live: the session's reply goes at once.
                self.flush_actor(char_id);
                self.send_outbox(char_id);
                return;
            }
            Input::Subscribe { char_id, link_id, names, add, re } => {
                EngineMsg::Subscribe { char_id, link_id, names, add, re: re.map(Arc::from) }
            }
            Input::Detach { char_id, link_id } => EngineMsg::Detach { char_id, link_id },
            Input::Reattach { char_id, link_id, resync } => EngineMsg::Reattach { char_id, link_id, resync },
            Input::Resync { char_id, link_id } => EngineMsg::Resync { char_id, link_id },
            Input::RateLimited { char_id, link_id, command } => EngineMsg::RateLimited { char_id, link_id, command },
            Input::Actions { char_id, link_id, batch, re, premade } => EngineMsg::Actions {
                char_id,
                link_id,
                batch: serde_json::from_str(&batch).unwrap_or_default(),
                re: re.map(Arc::from),
                premade: premade
                    .into_iter()
                    .map(|(i, o)| (i, o.map(|v| serde_json::from_str(&v).unwrap_or_default()).map_err(|(c, m)| (static_code(c), m))))
                    .collect(),
            },
            Input::Say { char_id, text } => EngineMsg::Say { char_id, text },
            Input::MindRecorded { name, items } => {
                EngineMsg::MindRecorded { name, items: items.into_iter().map(|(l, id, t)| (static_code(l), id, t)).collect() }
            }
            Input::Hud { char_id, link_id, beat } => EngineMsg::Hud { char_id, link_id, beat, reply: oneshot::channel().0 },
            Input::ResidentKnown { name, kind, prompt, model, join_room } => {
                EngineMsg::Resident(crate::game::run::agents::ResidentNote::Known {
                    name,
                    info: crate::game::run::agents::ResidentInfo { kind, prompt, model },
                    join_room,
                })
            }
            Input::ResidentRetired { name } => EngineMsg::Resident(crate::game::run::agents::ResidentNote::Retired { name }),
            Input::ResidentTell { to, text } => EngineMsg::Resident(crate::game::run::agents::ResidentNote::Tell { to, text }),
            Input::Shutdown => {
                self.shutdown();
                return;
            }
            Input::Branch => {
                self.branch_point();
                return;
            }
        };
        self.handle(msg);
        self.replay_empty_queues();
    }
}

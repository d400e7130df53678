//! A command's decision record, from its start to its pulse's end: the state before
//! and the stimulus, the `seq` it takes as it begins (a cause is numbered before what
//! it caused), and the post-state the pulse's end gives it (`finish_pulse_records`).

use std::sync::Arc;
use std::time::Instant;

use pawns_storage::{ClientFields, DecisionRecord, EventRecord, RecordBody, StateSnapshot, Stimulus};

use super::recording::{stamp, CommandClient, SessionRec};
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;

/// A decision's record under the `seq` it was given when its command began, dated when
/// it was dispatched: what it caused (numbered since) follows it.
pub(super) fn stamp_decision(rec: &SessionRec, seq: u64, room_vnum: u32, d: DecisionRecord) -> EventRecord {
    let at_us = d.dispatched_us;
    EventRecord { session: rec.meta.session, seq, agent: rec.agent.clone(), at_us, room_vnum, body: RecordBody::Decision(Box::new(d)) }
}

/// What a decision needs from before its command ran.
pub(crate) struct DecisionStart {
    /// The session and `seq` the decision was given as its command began.
    session: u64,
    seq: u64,
    pre: StateSnapshot,
    stimulus: Stimulus,
    dispatched_us: u64,
}

/// What came with a command: when the session read it, the client's id, its data.
pub struct CommandMeta {
    pub received: Instant,
    /// When the session read it (unix µs), as journaled.
    pub received_us: u64,
    pub re: Option<Arc<str>>,
    pub client: Option<Box<CommandClient>>,
}

struct Issued<'a> {
    line: &'a str,
    status: &'a str,
    pre: StateSnapshot,
    stimulus: Stimulus,
    received_us: u64,
    dispatched_us: u64,
    re: Option<Arc<str>>,
    client: Option<Box<CommandClient>>,
}

/// A decision as it stands once dispatched (the post-state comes at the pulse's end).
fn decision(rec: &mut SessionRec, i: Issued<'_>) -> DecisionRecord {
    let Issued { line, status, pre, stimulus, received_us, dispatched_us, re, client } = i;
    let line = line.trim();
    let (command, args) = line.split_once(char::is_whitespace).map(|(c, a)| (c, a.trim())).unwrap_or((line, ""));
    rec.turn += 1;
    let memory_ids = if rec.turn == 1 { rec.meta.memory_ids.clone() } else { Vec::new() };
    let c = client.map(|c| *c).unwrap_or_default();
    DecisionRecord {
        turn: rec.turn,
        command: command.to_string(),
        args: args.to_string(),
        status: status.to_string(),
        pre,
        received_us,
        dispatched_us,
        stimulus,
        memory_ids,
        client: ClientFields {
            harness: rec.client.harness.clone(),
            model: rec.client.model.clone(),
            version: rec.client.version.clone(),
            tokens_prompt: c.tokens_prompt,
            tokens_completion: c.tokens_completion,
            latency_ms: c.latency_ms,
        },
        re: re.map(|r| r.to_string()),
        reason: c.reason,
        llm: c.llm,
        ..Default::default()
    }
}

impl Engine {
    /// Before a command runs: the state and stimulus its decision records (`None` when
    /// the character is not recorded). A command run on arrival, between pulses, closes
    /// the one before it first: that one's post-state and transitions are taken now.
    pub(crate) fn decision_start(&mut self, id: CharId) -> Option<DecisionStart> {
        let recording = self.world.ch(id).and_then(|c| c.pc.as_ref()).is_some_and(|p| p.rec.is_some());
        if !recording {
            return None;
        }
        if self.rec_mut(id).is_some_and(|r| !r.pending.is_empty()) {
            self.finish_pulse_records(id);
        }
        let (pre, stimulus, dispatched_us) = (self.snapshot(id), self.stimulus(id), self.now_us);
        let (session, seq) = self.reserve_seq(id)?;
        Some(DecisionStart { session, seq, pre, stimulus, dispatched_us })
    }

    /// The next `seq` of the player's session, taken now for a decision whose record
    /// comes at the pulse's end.
    fn reserve_seq(&mut self, id: CharId) -> Option<(u64, u64)> {
        let rec = self.rec_mut(id)?;
        rec.seq += 1;
        rec.open += 1;
        Some((rec.meta.session, rec.seq))
    }

    /// After a command ran: its decision, pending until the pulse's end gives it a
    /// post-state — or, when the command ended its own session (quit, rent), recorded
    /// at once as the session's last record.
    pub(crate) fn decision_end(&mut self, id: CharId, line: &str, status: &str, start: DecisionStart, cmd: CommandMeta) {
        let DecisionStart { session, seq, pre, stimulus, dispatched_us } = start;
        let CommandMeta { received_us, re, client, .. } = cmd;
        let issued = Issued { line, status, pre, stimulus, received_us, dispatched_us, re, client };
        if let Some((ended, mut rec, post, room_vnum)) = self.ending.take() {
            if ended == id {
                let mut d = decision(&mut rec, issued);
                d.post = post;
                d.completed_us = self.now_us;
                d.latency_us = d.completed_us.saturating_sub(d.received_us);
                let r = if rec.meta.session == session {
                    stamp_decision(&rec, seq, room_vnum, d)
                } else {
                    stamp(&mut rec, self.now_us, room_vnum, RecordBody::Decision(Box::new(d)))
                };
                rec.held.push(r);
                self.close_session(rec);
                return;
            }
            self.ending = Some((ended, rec, post, room_vnum));
        }
        self.pend_decision(id, Some((session, seq)), issued);
    }

    /// A command refused before it ran (rate limited): recorded with the state unchanged.
    pub fn record_refused(&mut self, id: CharId, line: &str, status: &str, re: Option<Arc<str>>, received_us: u64) {
        self.record_unrun(id, line, status, re, received_us, None);
    }

    /// A decision that ran no game command — one refused before it ran, an `actions`
    /// message of HUD actions only — with what the client said of it.
    pub(crate) fn record_unrun(
        &mut self,
        id: CharId,
        line: &str,
        status: &str,
        re: Option<Arc<str>>,
        received_us: u64,
        client: Option<Box<CommandClient>>,
    ) {
        if self.world.ch(id).and_then(|c| c.pc.as_ref()).is_none_or(|p| p.rec.is_none()) {
            return;
        }
        let pre = self.snapshot(id);
        let stimulus = self.stimulus(id);
        let dispatched_us = self.now_us;
        let at = self.reserve_seq(id);
        self.pend_decision(id, at, Issued { line, status, pre, stimulus, received_us, dispatched_us, re, client });
    }

    /// Keeps a decision for the pulse's end under the `seq` it was given (a new one if
    /// its session is not the one that gave it).
    fn pend_decision(&mut self, id: CharId, at: Option<(u64, u64)>, issued: Issued<'_>) {
        let Some(rec) = self.rec_mut(id) else { return };
        let seq = match at {
            Some((session, seq)) if session == rec.meta.session => seq,
            _ => {
                rec.seq += 1;
                rec.open += 1;
                rec.seq
            }
        };
        let d = decision(rec, issued);
        rec.pending.push((seq, d));
    }
}

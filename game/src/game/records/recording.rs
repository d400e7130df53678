//! What the engine records: sessions, decisions (every command with the state before
//! and after its pulse), observations (everything a player is sent) and state
//! transitions (computed at the end of each pulse by comparing with the last pulse).
//! Records go to the recorder without waiting; the engine never touches the disk.

use std::sync::Arc;

use pawns_storage::{DecisionRecord, EventRecord, RecordBody, SessionMeta, StateSnapshot, Stimulus, Transition};

use rustc_hash::FxHashMap;

use super::decisions::stamp_decision;
pub use super::decisions::CommandMeta;
use crate::game::model::character::ClientInfo;
use crate::game::model::tables::NUM_WEARS;
use crate::game::model::world::{CharId, ObjId};
use crate::game::records::record_sink::RecItem;
use crate::game::run::engine::Engine;
use crate::game::send::output::EventKind;
use pawns_graph::known::{KnownEntity, Relation};

/// What a transition recorded during a session makes of its other party, by the same
/// rules a dream extracts events by (a hurt counts under the extractor's 15 %).
pub fn relation_from_transition(t: &Transition) -> Option<(String, Relation)> {
    let (who, r) = match t {
        Transition::Death { killer: Some(k), .. } => (k, Relation::Killer),
        Transition::Hp { from, to, max, by: Some(b) }
            if to < from && i64::from((*to).max(0)) * 100 < i64::from(*max) * pawns_graph::known::HURT_PCT =>
        {
            (b, Relation::Attacker)
        }
        Transition::Kill { victim, .. } => (victim, Relation::Prey),
        Transition::Social { act, other, by_me: false, .. } => match act.as_str() {
            "gift" | "cooperation" => (other, Relation::Benefactor),
            "betrayal" | "insult" => (other, Relation::Betrayer),
            _ => (other, Relation::Known),
        },
        // No other party, or not one this relation is made from (a hurt under the line,
        // a death by no one): every kind named, so a new one is decided on here.
        Transition::Death { .. }
        | Transition::Hp { .. }
        | Transition::Level { .. }
        | Transition::Exp { .. }
        | Transition::Gold { .. }
        | Transition::Room { .. }
        | Transition::ItemAcquired { .. }
        | Transition::ItemLost { .. }
        | Transition::Equipped { .. }
        | Transition::Unequipped { .. }
        | Transition::Mind { .. }
        // One's own act toward another says nothing of what they are to one.
        | Transition::Social { by_me: true, .. } => return None,
    };
    Some((who.to_lowercase(), r))
}

/// Optional fields a client may attach to a `command`'s data about its own decision
/// (its model's tokens and latency): recorded with the decision.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
pub struct CommandClient {
    #[serde(default)]
    pub tokens_prompt: Option<u64>,
    #[serde(default)]
    pub tokens_completion: Option<u64>,
    #[serde(default)]
    pub latency_ms: Option<f64>,
    /// Why the client chose the command (protocol §5 `reason`), kept with its decision.
    #[serde(default)]
    pub reason: Option<String>,
    /// The model calls behind it (`llm`, issue 53), kept with its decision.
    #[serde(default)]
    pub llm: Vec<pawns_storage::LlmCall>,
}

/// Mobs named in a decision's stimulus, at most.
const STIMULUS_MOBS: usize = 20;

/// A recorded session's running state, kept with the player.
pub struct SessionRec {
    pub meta: SessionMeta,
    /// `meta.agent`, shared by every record of the session.
    pub(super) agent: Arc<str>,
    /// Records emitted so far (the next one is `seq + 1`).
    pub seq: u64,
    pub turn: u64,
    /// The state at the end of the last pulse, to find transitions.
    last: Option<Snap>,
    /// Commands run this pulse, waiting for their post-state, each under the `seq` it
    /// was given when it began (a cause is numbered before what it caused).
    pub(super) pending: Vec<(u64, DecisionRecord)>,
    /// Decisions given a `seq` and not yet recorded: while there are any, the records
    /// numbered after them wait in `held`, so the log holds a session in `seq` order
    /// (a dream's watermark and every reader rely on it).
    pub(super) open: u32,
    pub(super) held: Vec<EventRecord>,
    pub(super) last_entered: Option<Arc<str>>,
    pub(super) last_message: Option<Arc<str>>,
    pub(super) client: ClientInfo,
    /// Whom the agent knows of (lower-cased name): from its memory at login, and what
    /// happened this session. Classifies each decision's stimulus.
    known: FxHashMap<String, Known>,
}

/// Who a stimulus may name: the relation, the name, the memory about them.
type Candidate<'a> = (Relation, &'a str, Option<&'a (String, f32)>);

/// One party the session knows of.
#[derive(Debug, Clone, Default)]
struct Known {
    relation: Relation,
    /// The injected memory about them felt most strongly, and its valence as injected.
    memory: Option<(String, f32)>,
}

#[derive(Clone, PartialEq)]
struct Snap {
    hp: i32,
    max_hp: i32,
    fighting: Option<Arc<str>>,
    /// Whom it fought, by id: a pulse's check compares this, not the name (one look-up less).
    fighting_id: Option<CharId>,
    level: u8,
    exp: i64,
    gold: i64,
    /// The room by index: a pulse's check compares this, not the prototype's vnum.
    room: crate::game::model::world::RoomId,
    room_vnum: u32,
    inventory: Vec<(ObjId, u32)>,
    equipment: [Option<(ObjId, u32)>; NUM_WEARS],
}

/// Stamps the next `seq` on a record of this session, made at `at_us` (the step's time).
pub(super) fn stamp(rec: &mut SessionRec, at_us: u64, room_vnum: u32, body: RecordBody) -> EventRecord {
    rec.seq += 1;
    EventRecord { session: rec.meta.session, seq: rec.seq, agent: rec.agent.clone(), at_us, room_vnum, body }
}

/// The records a session held back while a decision was open, in `seq` order.
pub(super) fn release_held(rec: &mut SessionRec, out: &mut Vec<RecItem>) {
    rec.held.sort_by_key(|r| r.seq);
    out.extend(rec.held.drain(..).map(RecItem::Record));
}

/// A session closed by its player's own command, waiting for that command's decision.
pub type Ending = Option<(CharId, Box<SessionRec>, StateSnapshot, u32)>;

impl Engine {
    pub(super) fn rec_mut(&mut self, id: CharId) -> Option<&mut SessionRec> {
        self.world.chars.get_mut(&id)?.pc.as_mut()?.rec.as_deref_mut()
    }

    /// Starts recording a session for a player who just entered (if recording is on
    /// and, for humans, if humans are recorded).
    pub fn begin_session(&mut self, id: CharId, client: &ClientInfo) {
        if self.recorder.is_none() {
            return;
        }
        let Some(c) = self.world.ch(id) else { return };
        let is_agent = c.is_agent();
        if !is_agent && !self.cfg.record_humans {
            return;
        }
        // A session's id is its start time, made unique within the run.
        let session = self.now_us.max(self.last_session_id + 1);
        self.last_session_id = session;
        let meta = SessionMeta {
            session,
            agent: c.name.to_ascii_lowercase(),
            is_agent,
            started_us: self.now_us,
            harness: client.harness.clone(),
            model: client.model.clone(),
            version: client.version.clone(),
            tier: client.tier.clone(),
            valence: client.valence,
            ..Default::default()
        };
        self.rec_out.push(RecItem::Session(meta.clone()));
        let snap = self.snap(id);
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            pc.rec = Some(Box::new(SessionRec {
                agent: meta.agent.as_str().into(),
                meta,
                seq: 0,
                turn: 0,
                last: snap,
                pending: Vec::new(),
                open: 0,
                held: Vec::new(),
                last_entered: None,
                last_message: None,
                client: client.clone(),
                known: FxHashMap::default(),
            }));
        }
    }

    /// Ends a player's session: pending decisions are completed and the metadata closed.
    /// Inside the player's own command (`quit`, `rent`) the session waits for that
    /// command's decision, which `run_command` adds before closing it.
    pub fn end_session(&mut self, id: CharId, how: &str) {
        self.finish_pulse_records(id);
        let post = self.snapshot(id);
        let room_vnum = post.room_vnum;
        let Some(mut rec) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()).and_then(|p| p.rec.take()) else { return };
        rec.meta.ended_how = Some(how.to_string());
        if self.cur.as_ref().is_some_and(|(actor, _)| *actor == id) {
            self.ending = Some((id, rec, post, room_vnum));
            return;
        }
        self.close_session(rec);
    }

    pub(super) fn close_session(&mut self, mut rec: Box<SessionRec>) {
        rec.open = 0;
        release_held(&mut rec, &mut self.rec_out);
        rec.meta.ended_us = Some(self.now_us);
        rec.meta.records = rec.seq;
        self.rec_out.push(RecItem::Session(rec.meta));
    }

    fn emit(&mut self, id: CharId, body: RecordBody) {
        let room_vnum = self.world.ch(id).map(|c| self.world.rooms[c.room].proto.vnum).unwrap_or(0);
        let now = self.now_us;
        let Some(rec) = self.rec_mut(id) else { return };
        if let Some((who, r)) = match &body {
            RecordBody::Transition(t) => relation_from_transition(t),
            RecordBody::Decision(_) | RecordBody::Observation { .. } => None,
        } {
            let k = rec.known.entry(who).or_default();
            k.relation = k.relation.max(r);
        }
        let r = stamp(rec, now, room_vnum, body);
        if rec.open > 0 {
            rec.held.push(r);
        } else {
            self.rec_out.push(RecItem::Record(r));
        }
    }

    /// The state the decision records show.
    pub fn snapshot(&self, id: CharId) -> StateSnapshot {
        let Some(c) = self.world.ch(id) else { return StateSnapshot::default() };
        StateSnapshot {
            hp: c.hit,
            max_hp: c.max_hit,
            mana: c.mana,
            max_mana: c.max_mana,
            moves: c.moves,
            max_moves: c.max_moves,
            position: c.position.as_str().to_string(),
            room_vnum: self.world.rooms[c.room].proto.vnum,
            room_name: self.world.rooms[c.room].state_name.clone(),
            fighting: c.fighting.map(|f| self.shared_name(f)),
            level: c.level,
            exp: c.exp,
            gold: c.gold,
        }
    }

    fn snap(&self, id: CharId) -> Option<Snap> {
        let c = self.world.ch(id)?;
        let vnum = |o: &ObjId| self.world.obj(*o).map(|x| (*o, x.vnum));
        let mut inventory = Vec::with_capacity(c.inventory.len());
        inventory.extend(c.inventory.iter().filter_map(vnum));
        Some(Snap {
            hp: c.hit,
            max_hp: c.max_hit,
            fighting: c.fighting.map(|f| self.shared_name(f)),
            fighting_id: c.fighting,
            level: c.level,
            exp: c.exp,
            gold: c.gold,
            room: c.room,
            room_vnum: self.world.rooms[c.room].proto.vnum,
            inventory,
            equipment: std::array::from_fn(|i| c.equipment[i].as_ref().and_then(vnum)),
        })
    }

    /// Whether `snap` is what `snap(c)` would make now (compared in place).
    fn snap_matches(&self, snap: &Snap, c: &crate::game::model::character::Char) -> bool {
        if snap.hp != c.hit || snap.max_hp != c.max_hit || snap.level != c.level || snap.exp != c.exp || snap.gold != c.gold {
            return false;
        }
        // Rooms and characters keep their ids and names: comparing ids is comparing what
        // the snapshot would hold (the snapshot's vnum and name come from them).
        if snap.room != c.room || snap.fighting_id != c.fighting {
            return false;
        }
        // The same objects in the same places: every one of them existed when the snapshot
        // was taken (objects are only ever taken out of a carrier with them), so only when
        // the ids differ is the world read.
        let same_ids = snap.inventory.len() == c.inventory.len()
            && c.inventory.iter().zip(&snap.inventory).all(|(o, s)| *o == s.0)
            && c.equipment.iter().zip(&snap.equipment).all(|(o, s)| *o == s.map(|s| s.0));
        same_ids || self.snap(c.id).is_some_and(|now| now == *snap)
    }

    /// What the agent faces as it decides: who is here, and the one who matters most to
    /// it (the strongest relation; the first in the room on a tie) with the injected
    /// memory about them.
    pub(super) fn stimulus(&self, id: CharId) -> Stimulus {
        let Some(c) = self.world.ch(id) else { return Stimulus::default() };
        let rec = c.pc.as_ref().and_then(|p| p.rec.as_ref());
        let mut s = Stimulus {
            last_entered: rec.and_then(|r| r.last_entered.clone()),
            last_message: rec.and_then(|r| r.last_message.clone()),
            kind: "none".into(),
            ..Default::default()
        };
        let room = &self.world.rooms[c.room];
        // The lists read only the characters they name: mobs from the room's own list,
        // players until enough are named (a crowd is not read through).
        let ch_of = |p: &CharId| self.world.ch(*p);
        // Sized before they are filled: grown by doubling, a crowd's list was reallocated
        // at every decision.
        s.mobs_present = Vec::with_capacity(room.npcs.len().min(STIMULUS_MOBS));
        s.mobs_present.extend(room.npcs.iter().filter(|p| **p != id).filter_map(ch_of).take(STIMULUS_MOBS).map(|o| o.name.clone()));
        s.players_present = Vec::with_capacity(room.pcs.min(STIMULUS_MOBS));
        s.players_present.extend(
            room.people
                .iter()
                .zip(&room.sigs)
                .filter(|(p, sig)| **sig & crate::game::model::targeting::NPC_SIG == 0 && **p != id)
                .filter_map(|(p, _)| ch_of(p))
                .take(STIMULUS_MOBS)
                .map(|o| o.name.clone()),
        );
        let known = rec.map(|r| &r.known).filter(|k| !k.is_empty());
        let best = self.strongest_present(id, c.room, known);
        if let Some((relation, name, memory)) = best {
            s.kind = relation.as_str().into();
            s.target = Some(name.to_lowercase());
            s.memory_id = memory.map(|m| m.0.clone());
            s.memory_valence = memory.map(|m| m.1);
        }
        s
    }

    /// Of everyone in `room` but `id`, the one whose relation to the agent is strongest,
    /// the first in the room's order on a tie (`None`: nobody else is there). In a crowd
    /// the agent's few known parties are looked for, rather than everyone read.
    fn strongest_present<'a>(&'a self, id: CharId, room: usize, known: Option<&'a FxHashMap<String, Known>>) -> Option<Candidate<'a>> {
        let r = &self.world.rooms[room];
        let candidate = |p: CharId| -> Option<Candidate<'a>> {
            let o = self.world.ch(p)?;
            let k = known.and_then(|k| k.get(&o.name.to_lowercase()));
            Some((k.map(|k| k.relation).unwrap_or_default(), &*o.name, k.and_then(|k| k.memory.as_ref())))
        };
        let first = *r.people.iter().find(|p| **p != id)?;
        let Some(known) = known else { return candidate(first) };
        if r.people.len() <= 32 || known.len() * 4 >= r.people.len() {
            // A small room: read it in order.
            let mut best: Option<Candidate<'a>> = None;
            for p in r.people.iter().filter(|p| **p != id) {
                let Some(c) = candidate(*p) else { continue };
                if best.as_ref().is_none_or(|(b, _, _)| c.0 > *b) {
                    best = Some(c);
                }
            }
            return best;
        }
        // Who of those it knows above a stranger is here: players by name, mobs by reading
        // the room's mobs (a crowd is players).
        let mut present: Vec<(Relation, CharId)> = Vec::new();
        for (name, k) in known.iter().filter(|(_, k)| k.relation > Relation::Stranger) {
            if let Some(&p) = self.world.players.get(name) {
                if p != id && self.world.ch(p).is_some_and(|c| c.room == room) {
                    present.push((k.relation, p));
                }
            }
        }
        for &m in r.npcs.iter().filter(|m| **m != id) {
            let Some(k) = self.world.ch(m).and_then(|o| known.get(&o.name.to_lowercase())) else { continue };
            if k.relation > Relation::Stranger {
                present.push((k.relation, m));
            }
        }
        let Some(top) = present.iter().map(|(rel, _)| *rel).max() else { return candidate(first) };
        let tied: Vec<CharId> = present.iter().filter(|(rel, _)| *rel == top).map(|(_, p)| *p).collect();
        let chosen = if tied.len() == 1 { tied[0] } else { *r.people.iter().find(|p| tied.contains(p))? };
        candidate(chosen)
    }

    /// Something a player was sent: an observation (and the stimulus for its next move).
    /// The text (and sender) are shared with what was sent, not copied.
    pub fn observe(&mut self, id: CharId, kind: EventKind, text: &Arc<str>, from: Option<&Arc<str>>) {
        let Some(rec) = self.rec_mut(id) else { return };
        match kind {
            EventKind::Enter => rec.last_entered = from.cloned(),
            EventKind::Say | EventKind::Tell | EventKind::Shout | EventKind::Gossip => rec.last_message = Some(text.clone()),
            _ => {}
        }
        self.emit(id, RecordBody::Observation { event_type: kind.as_str().to_string(), text: text.clone(), from: from.cloned() });
    }

    /// The memories injected at this login, kept with the session (and its first decision).
    pub fn note_memory_ids(&mut self, id: CharId, ids: &[String]) {
        let Some(rec) = self.rec_mut(id) else { return };
        rec.meta.memory_ids = ids.to_vec();
        let meta = rec.meta.clone();
        self.rec_out.push(RecItem::Session(meta));
    }

    /// Whom the agent knows of at login, and the memories about them it was given (felt
    /// as nothing in a `valence: false` session).
    pub fn note_known(&mut self, id: CharId, known: &[KnownEntity], valence: bool) {
        let Some(rec) = self.rec_mut(id) else { return };
        for k in known {
            let memory = k.memory_id.clone().map(|m| (m, if valence { k.memory_valence.unwrap_or(0.0) } else { 0.0 }));
            let e = rec.known.entry(k.name.clone()).or_default();
            e.relation = e.relation.max(k.relation);
            e.memory = memory;
        }
    }

    pub fn record_transition(&mut self, id: CharId, t: Transition) {
        self.emit(id, RecordBody::Transition(t));
    }

    /// A social act between two players (`gift`, `cooperation`, `betrayal`, `greet`,
    /// `insult`), recorded for both, each from its own side: the facts memory's valence
    /// is computed from. Mobs are not parties to social acts.
    pub fn record_social(&mut self, actor: CharId, other: CharId, act: &str, text: &str) {
        let (Some(a), Some(o)) = (self.world.ch(actor), self.world.ch(other)) else { return };
        if actor == other || a.pc.is_none() || o.pc.is_none() {
            return;
        }
        let (an, on) = (a.name.to_string(), o.name.to_string());
        self.emit(actor, RecordBody::Transition(Transition::Social { act: act.into(), other: on, by_me: true, text: text.into() }));
        self.emit(other, RecordBody::Transition(Transition::Social { act: act.into(), other: an, by_me: false, text: text.into() }));
    }

    /// End of pulse for one player (`flush`, or before its next command or its session's
    /// end): decisions get their post-state; changes become transitions.
    /// Asks for the memory the flush is about to read of these players (the character,
    /// its `PcState`, its `SessionRec`, the belongings both list) before reading any of
    /// it. Read one player after another, each is a chain of four cache misses the
    /// processor cannot overlap (at 5,000 agents those stalls were most of the flush's
    /// records check); asked for in passes over a few dozen players, they overlap.
    pub(crate) fn warm_players(&self, ids: &[CharId]) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            fn ask<T>(p: *const T) {
                // SAFETY: a prefetch is a hint: it never faults and reads nothing into
                // the program, whatever the address.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) }
            }
            // First the characters and their player parts (independent look-ups, so
            // their misses overlap), then what those point to.
            for c in ids.iter().filter_map(|id| self.world.chars.get(id)) {
                ask(c.inventory.as_ptr());
                if let Some(pc) = c.pc.as_deref() {
                    ask(pc);
                }
            }
            for pc in ids.iter().filter_map(|id| self.world.chars.get(id)?.pc.as_deref()) {
                if let Some(last) = pc.last_sent.as_deref() {
                    ask(last);
                }
                if let Some(rec) = pc.rec.as_deref() {
                    ask(&rec.pending);
                    ask(&rec.last);
                    if let Some(last) = rec.last.as_ref() {
                        ask(last.inventory.as_ptr());
                    }
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = ids;
    }

    pub(crate) fn finish_pulse_records(&mut self, id: CharId) {
        let Some(c) = self.world.ch(id) else { return };
        let Some(rec) = c.pc.as_ref().and_then(|p| p.rec.as_ref()) else { return };
        let had_pending = !rec.pending.is_empty();
        // Most players change nothing in most pulses: that is found without building
        // (allocating) a snapshot.
        if !had_pending && rec.last.as_ref().is_some_and(|last| self.snap_matches(last, c)) {
            return;
        }
        let before = rec.last.clone();
        let now = self.snap(id);
        if had_pending {
            let post = self.snapshot(id);
            let completed = self.now_us;
            let pending = self.rec_mut(id).map(|r| std::mem::take(&mut r.pending)).unwrap_or_default();
            let room_vnum = post.room_vnum;
            for (seq, mut d) in pending {
                d.post = post.clone();
                d.completed_us = completed;
                d.latency_us = completed.saturating_sub(d.received_us);
                let Some(c) = self.world.chars.get_mut(&id) else { continue };
                let Some(rec) = c.pc.as_mut().and_then(|p| p.rec.as_deref_mut()) else { continue };
                let r = stamp_decision(rec, seq, room_vnum, d);
                rec.held.push(r);
                rec.open = rec.open.saturating_sub(1);
                if rec.open == 0 {
                    release_held(rec, &mut self.rec_out);
                }
            }
        }
        if before == now {
            return;
        }
        if let (Some(b), Some(n)) = (&before, &now) {
            for t in self.transitions(b, n) {
                self.emit(id, RecordBody::Transition(t));
            }
        }
        if let Some(r) = self.rec_mut(id) {
            r.last = now;
        }
    }

    fn transitions(&self, b: &Snap, n: &Snap) -> Vec<Transition> {
        let mut out = Vec::new();
        if b.room_vnum != n.room_vnum {
            let name = self.world.room_of_vnum(n.room_vnum).map(|r| self.world.rooms[r].proto.name.clone()).unwrap_or_default();
            out.push(Transition::Room { from: b.room_vnum, to: n.room_vnum, name });
        }
        if b.hp != n.hp {
            out.push(Transition::Hp {
                from: b.hp,
                to: n.hp,
                max: n.max_hp,
                by: n.fighting.as_ref().or(b.fighting.as_ref()).map(|f| f.to_string()),
            });
        }
        if b.level != n.level {
            out.push(Transition::Level { from: b.level, to: n.level });
        }
        if b.exp != n.exp {
            out.push(Transition::Exp { from: b.exp, to: n.exp });
        }
        if b.gold != n.gold {
            out.push(Transition::Gold { from: b.gold, to: n.gold });
        }
        let name = |vnum: u32| self.world.obj_protos.get(&vnum).map(|p| p.short_descr.clone()).unwrap_or_default();
        let worn_now: Vec<ObjId> = n.equipment.iter().flatten().map(|(o, _)| *o).collect();
        let worn_before: Vec<ObjId> = b.equipment.iter().flatten().map(|(o, _)| *o).collect();
        for (o, vnum) in &n.inventory {
            // Taking something off is not acquiring it.
            if !b.inventory.iter().any(|(x, _)| x == o) && !worn_before.contains(o) {
                let level = self.world.obj(*o).map(|x| x.level).unwrap_or(0);
                out.push(Transition::ItemAcquired { vnum: *vnum, name: name(*vnum), level });
            }
        }
        for (o, vnum) in &b.inventory {
            // Putting something on is not losing it.
            if !n.inventory.iter().any(|(x, _)| x == o) && !worn_now.contains(o) {
                out.push(Transition::ItemLost { vnum: *vnum, name: name(*vnum) });
            }
        }
        for slot in 0..NUM_WEARS {
            if b.equipment[slot] != n.equipment[slot] {
                if let Some((_, vnum)) = b.equipment[slot] {
                    out.push(Transition::Unequipped { slot: slot as u8, vnum, name: name(vnum) });
                }
                if let Some((_, vnum)) = n.equipment[slot] {
                    out.push(Transition::Equipped { slot: slot as u8, vnum, name: name(vnum) });
                }
            }
        }
        out
    }

    /// Hands what was recorded since the last call to the recorder: the engine calls it
    /// each time it is about to wait, so a burst of records is one message.
    pub fn hand_over_records(&mut self) {
        let mut items = std::mem::take(&mut self.rec_out);
        self.hand_over_journal(&mut items);
        if items.is_empty() {
            return;
        }
        if let Some(r) = &self.recorder {
            r.send(items);
        }
    }
}

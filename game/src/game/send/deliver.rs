//! The one way the engine sends a session anything. `deliver` puts a message in the
//! character's outbox; `send_outbox` hands the outbox to the session's queue as one
//! batch — or, when the queue is full, ends that session with `slow_consumer`. Nothing
//! the engine sends is dropped silently (protocol §3).
//!
//! When batches go: the session whose message the engine just handled gets its outbox
//! at once (its reply never waits for the pulse); everyone else's goes at the end of the
//! pulse, so what a crowd hears in one pulse is one write per socket, as CircleMUD wrote
//! each descriptor's output once per pulse. A session's messages keep their order.
//!
//! The queue's last slot is kept for that close: a batch goes in only while at least
//! two slots are free, so the `slow_consumer` close always fits and always reaches the
//! session behind everything it was sent before. The character stays in the world,
//! link-dead, and a new login (or resume) takes it back.

use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::output::Out;

/// The close a session gets when its queue is full.
pub const SLOW_CONSUMER: &str = "slow_consumer";
/// Slices a pulse's batches go out in, and the time between two (see `send_outboxes`).
pub const PACE_SLICES: usize = 10;
pub const PACE_GAP: std::time::Duration = std::time::Duration::from_millis(2);
/// The fewest batches a slice holds: a few dozen sessions' writes are queued in the
/// socket threads in well under a millisecond, and ten slices of a handful each only
/// woke the engine and the socket threads ten times a pulse for nothing (a quiet
/// server's CPU per command was mostly wake-ups).
pub const PACE_MIN_SLICE: usize = 64;

impl Engine {
    /// Puts `out` in a player's outbox (sent at the end of this step or pulse). `false`
    /// when the player has no session.
    pub fn deliver(&mut self, id: CharId, out: Out) -> bool {
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return false };
        if pc.link.is_none() {
            return false;
        }
        if pc.outbox.is_empty() {
            self.outbox_dirty.push(id);
        }
        pc.outbox.push(out);
        true
    }

    /// Hands a player's outbox to its session as one batch. When the session's queue is
    /// full, the session is sent its `slow_consumer` close instead and detached.
    pub fn send_outbox(&mut self, id: CharId) {
        self.hand_outbox(id, false);
    }

    /// `send_outbox`; with `stage`, the batch is made (numbered, checked against the
    /// queue) but kept in the player's `staged` slot for [`Engine::send_paced`].
    fn hand_outbox(&mut self, id: CharId, stage: bool) {
        let pulse = self.pulse;
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return };
        let Some(l) = pc.link.as_ref() else {
            pc.outbox.clear();
            pc.staged = None;
            return;
        };
        // The pulse's batch goes before anything newer.
        if let Some(batch) = pc.staged.take() {
            let _ = l.tx.try_send(batch);
        }
        if pc.outbox.is_empty() {
            return;
        }
        pc.delivered += 1;
        let nth = pc.delivered;
        // A replay cuts where the run did (its queues never fill); the run journals it.
        let full = match self.replay.as_ref() {
            Some(f) => f.cuts.contains(&(id, nth)),
            None => l.tx.capacity() <= 1,
        };
        if !full {
            let batch = std::mem::take(&mut pc.outbox);
            if stage {
                pc.staged = Some(batch);
                self.paced.push_back(id);
            } else {
                // Only a closed queue fails here (its session is already gone).
                let _ = l.tx.try_send(batch);
            }
            return;
        }
        pc.outbox.clear();
        let close = Out::Close { code: SLOW_CONSUMER, message: "you stopped reading; log in again (or resume) to catch up".into() };
        let _ = l.tx.try_send(vec![close]);
        pc.link = None;
        pc.linkdead_since = Some(pulse);
        if let Some(j) = self.journal.as_mut() {
            j.entries.push(crate::game::records::journal_entries::Entry::Cut { char_id: id, nth });
        }
        self.stats.counters.slow_consumer_engine.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!(char = id, "slow consumer: the session's queue was full; its link is closed");
    }

    /// Hands every waiting outbox to its session (the end of a pulse). A running server
    /// (`Engine::run`) paces them instead: the batches are made now, in the same order
    /// and numbering, and go out a slice at a time over the next [`PACE_SLICES`] ×
    /// [`PACE_GAP`]. A thousand sessions' batches handed over at one instant are a
    /// thousand tasks queued at once in the socket threads, and every reply that comes
    /// after them waits behind the lot; a slice at a time, a reply waits for one slice.
    /// A slice holds at least `pace_min` ([`PACE_MIN_SLICE`]) batches: a small crowd's
    /// go out at once.
    pub fn send_outboxes(&mut self) {
        let stage = self.pacing;
        let mut ids = std::mem::take(&mut self.outbox_dirty);
        for id in ids.drain(..) {
            self.hand_outbox(id, stage);
        }
        // Keep the list's allocation for the next pulse.
        if self.outbox_dirty.is_empty() {
            self.outbox_dirty = ids;
        }
        if stage {
            self.pace_slice = self.paced.len().div_ceil(PACE_SLICES).max(self.pace_min);
        }
    }

    /// Sends the next slice of the pulse's staged batches (all of them with `all`);
    /// whether any are still waiting.
    pub fn send_paced(&mut self, all: bool) -> bool {
        let n = if all { usize::MAX } else { self.pace_slice.max(1) };
        let mut sent = 0;
        while sent < n {
            let Some(id) = self.paced.pop_front() else { break };
            let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { continue };
            // Gone already if something newer was sent the session meanwhile.
            let Some(batch) = pc.staged.take() else { continue };
            if let Some(l) = pc.link.as_ref() {
                let _ = l.tx.try_send(batch);
                sent += 1;
            }
        }
        !self.paced.is_empty()
    }

    /// Sends a session what it was still owed and its last message, and detaches it
    /// from the character.
    pub fn close_link(&mut self, id: CharId, code: &'static str, message: &str) {
        self.send_outbox(id);
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            if let Some(l) = pc.link.take() {
                // `send_outbox` keeps a slot free, so the close always fits.
                let _ = l.tx.try_send(vec![Out::Close { code, message: message.to_string() }]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::model::character::Char;
    use crate::game::run::engine::EngineConfig;
    use crate::game::send::output::EventKind;

    /// A player whose session never reads: the queue fills, the last batch in it is the
    /// `slow_consumer` close, and nothing after it is queued.
    #[tokio::test]
    async fn a_full_queue_ends_the_session_with_slow_consumer() {
        let (mut e, _dir) = crate::game::tests::engine(EngineConfig::default());
        let record = crate::game::model::character::new_record("Ann", 3, 0, 1, true, [13; 6], 0);
        let id = e.world.new_id();
        let (link, mut rx) = crate::game::tests::link(1, 8);
        let mut ch = Char::from_record(id, &record, 0, None);
        ch.pc.as_mut().unwrap().link = Some(link);
        e.world.chars.insert(id, ch);
        let mut delivered = 0;
        for i in 0..20 {
            if e.deliver(id, Out::Event { kind: EventKind::Text, text: format!("line {i}").into(), from: None, re: None }) {
                delivered += 1;
            }
            // One batch per step: each line is a step of its own here.
            e.send_outboxes();
        }
        assert_eq!(delivered, 8, "the eighth line was delivered to the outbox, then its batch did not fit");
        assert!(e.world.ch(id).unwrap().pc.as_ref().unwrap().link.is_none(), "the session is detached");
        assert!(e.world.ch(id).unwrap().pc.as_ref().unwrap().linkdead_since.is_some(), "the character is link-dead");
        let mut got = Vec::new();
        while let Ok(o) = rx.try_recv() {
            got.push(o);
        }
        assert_eq!(got.len(), 8, "seven batches fit; the eighth slot is the close");
        assert!(
            matches!(got.last().map(|b: &Vec<Out>| &b[..]), Some([Out::Close { code: SLOW_CONSUMER, .. }])),
            "the last batch is the close"
        );
    }

    /// What one step sends a session is one batch, in order.
    #[tokio::test]
    async fn a_step_is_one_batch_in_order() {
        let (mut e, _dir) = crate::game::tests::engine(EngineConfig::default());
        let record = crate::game::model::character::new_record("Ann", 3, 0, 1, true, [13; 6], 0);
        let id = e.world.new_id();
        let (link, mut rx) = crate::game::tests::link(1, 8);
        let mut ch = Char::from_record(id, &record, 0, None);
        ch.pc.as_mut().unwrap().link = Some(link);
        e.world.chars.insert(id, ch);
        for i in 0..3 {
            e.deliver(id, Out::Event { kind: EventKind::Text, text: format!("line {i}").into(), from: None, re: None });
        }
        assert!(rx.try_recv().is_err(), "nothing goes before the step ends");
        e.send_outboxes();
        let batch = rx.try_recv().unwrap();
        let texts: Vec<String> =
            batch.iter().filter_map(|o| if let Out::Event { text, .. } = o { Some(text.to_string()) } else { None }).collect();
        assert_eq!(texts, ["line 0", "line 1", "line 2"]);
        assert!(rx.try_recv().is_err(), "one batch");
    }

    /// Players by these names, each with a session (link ids from 1), and their queues.
    fn connected(
        e: &mut Engine,
        names: impl IntoIterator<Item = String>,
    ) -> (Vec<CharId>, Vec<tokio::sync::mpsc::Receiver<crate::game::send::output::Outs>>) {
        let mut ids = Vec::new();
        let mut rxs = Vec::new();
        for (n, name) in names.into_iter().enumerate() {
            let record = crate::game::model::character::new_record(&name, 3, 0, 1, true, [13; 6], 0);
            let id = e.world.new_id();
            let (link, rx) = crate::game::tests::link(n as u64 + 1, 8);
            let mut ch = Char::from_record(id, &record, 0, None);
            ch.pc.as_mut().unwrap().link = Some(link);
            e.world.chars.insert(id, ch);
            ids.push(id);
            rxs.push(rx);
        }
        (ids, rxs)
    }

    /// A running server's pulse batches wait for their slice; whatever the session is
    /// sent meanwhile sends its pulse batch first, so order holds, and the batches are
    /// numbered as when sent at once (a replay cuts slow consumers by that number).
    #[tokio::test]
    async fn paced_batches_keep_their_order_and_numbering() {
        let (mut e, _dir) = crate::game::tests::engine(EngineConfig::default());
        e.pacing = true;
        // Slices of one, as a crowd's would be (ten slices of a tenth each).
        e.pace_min = 1;
        let (ids, mut rxs) = connected(&mut e, ["Ann", "Bo", "Cy"].map(String::from));
        let line = |t: &str| Out::Event { kind: EventKind::Text, text: t.into(), from: None, re: None };
        for &id in &ids {
            e.deliver(id, line("pulse"));
        }
        e.send_outboxes();
        assert!(rxs.iter_mut().all(|rx| rx.try_recv().is_err()), "staged, not sent");
        assert_eq!(e.pace_slice, 1, "three batches in ten slices: one a slice");
        // Bo's command is answered now: the pulse's batch goes first.
        e.deliver(ids[1], line("reply"));
        e.send_outbox(ids[1]);
        let texts = |b: Vec<Out>| {
            b.iter().filter_map(|o| if let Out::Event { text, .. } = o { Some(text.to_string()) } else { None }).collect::<Vec<_>>()
        };
        assert_eq!(texts(rxs[1].try_recv().unwrap()), ["pulse"]);
        assert_eq!(texts(rxs[1].try_recv().unwrap()), ["reply"]);
        // A slice: Ann's; Bo's was sent already, so the next slice is Cy's.
        assert!(e.send_paced(false), "Bo and Cy still listed");
        assert_eq!(texts(rxs[0].try_recv().unwrap()), ["pulse"]);
        assert!(rxs[2].try_recv().is_err());
        assert!(!e.send_paced(false), "Bo's went already: the next slice is Cy's, the last");
        assert_eq!(texts(rxs[2].try_recv().unwrap()), ["pulse"]);
        assert!(rxs.iter_mut().all(|rx| rx.try_recv().is_err()), "each batch once");
        let delivered: Vec<u64> = ids.iter().map(|id| e.world.ch(*id).unwrap().pc.as_ref().unwrap().delivered).collect();
        assert_eq!(delivered, [1, 2, 1], "numbered when made, as if sent at once");
    }

    /// A small crowd's pulse batches are not worth ten wake-ups: they go out in the
    /// first slice, and a crowd's in ten slices of a tenth.
    #[tokio::test]
    async fn a_slice_holds_at_least_pace_min_batches() {
        let (mut e, _dir) = crate::game::tests::engine(EngineConfig::default());
        e.pacing = true;
        let (ids, mut rxs) = connected(&mut e, (0..PACE_MIN_SLICE * PACE_SLICES + 1).map(|n| format!("P{n}")));
        let line = || Out::Event { kind: EventKind::Text, text: "pulse".into(), from: None, re: None };
        let few = PACE_MIN_SLICE - 1;
        for &id in &ids[..few] {
            e.deliver(id, line());
        }
        e.send_outboxes();
        assert_eq!(e.pace_slice, PACE_MIN_SLICE);
        assert!(!e.send_paced(false), "one slice took them all");
        assert!(rxs[..few].iter_mut().all(|rx| rx.try_recv().is_ok()));
        // A crowd: ten slices, each a tenth (rounded up).
        for &id in &ids {
            e.deliver(id, line());
        }
        e.send_outboxes();
        let crowd = ids.len();
        assert_eq!(e.pace_slice, crowd.div_ceil(PACE_SLICES));
        let mut slices = 0;
        while e.send_paced(false) {
            slices += 1;
        }
        assert_eq!(slices + 1, PACE_SLICES, "the last slice reports nothing left");
        assert!(rxs.iter_mut().all(|rx| rx.try_recv().is_ok()), "every batch sent once");
    }
}

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

use super::engine::Engine;
use super::output::Out;
use super::world::CharId;

/// The close a session gets when its queue is full.
pub const SLOW_CONSUMER: &str = "slow_consumer";

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
        let pulse = self.pulse;
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return };
        if pc.outbox.is_empty() {
            return;
        }
        let Some(l) = pc.link.as_ref() else {
            pc.outbox.clear();
            return;
        };
        pc.delivered += 1;
        let nth = pc.delivered;
        // A replay cuts where the run did (its queues never fill); the run journals it.
        let full = match self.replay.as_ref() {
            Some(f) => f.cuts.contains(&(id, nth)),
            None => l.tx.capacity() <= 1,
        };
        if !full {
            // Only a closed queue fails here (its session is already gone).
            let batch = std::mem::take(&mut pc.outbox);
            let _ = l.tx.try_send(batch);
            return;
        }
        pc.outbox.clear();
        let close = Out::Close { code: SLOW_CONSUMER, message: "you stopped reading; log in again (or resume) to catch up".into() };
        let _ = l.tx.try_send(vec![close]);
        pc.link = None;
        pc.linkdead_since = Some(pulse);
        if let Some(j) = self.journal.as_mut() {
            j.entries.push(crate::replay::Entry::Cut { char_id: id, nth });
        }
        self.stats.metrics.slow_consumer_engine.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!(char = id, "slow consumer: the session's queue was full; its link is closed");
    }

    /// Hands every waiting outbox to its session (the end of a pulse).
    pub fn send_outboxes(&mut self) {
        let mut ids = std::mem::take(&mut self.outbox_dirty);
        for id in ids.drain(..) {
            self.send_outbox(id);
        }
        // Keep the list's allocation for the next pulse.
        if self.outbox_dirty.is_empty() {
            self.outbox_dirty = ids;
        }
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
    use crate::game::character::Char;
    use crate::game::engine::EngineConfig;
    use crate::game::output::EventKind;

    /// A player whose session never reads: the queue fills, the last batch in it is the
    /// `slow_consumer` close, and nothing after it is queued.
    #[tokio::test]
    async fn a_full_queue_ends_the_session_with_slow_consumer() {
        let (mut e, _dir) = crate::game::tests::engine(EngineConfig::default());
        let record = crate::game::character::new_record("Ann", 3, 0, 1, true, [13; 6], 0);
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
        let record = crate::game::character::new_record("Ann", 3, 0, 1, true, [13; 6], 0);
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
}

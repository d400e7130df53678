//! The one way the engine sends a session anything: `deliver` puts it on the session's
//! queue, or — when the queue is full — ends that session with `slow_consumer`. Nothing
//! the engine sends is dropped silently (protocol §3).
//!
//! The queue's last slot is kept for that close: a message goes in only while at least
//! two slots are free, so the `slow_consumer` close always fits and always reaches the
//! session behind everything it was sent before. The character stays in the world,
//! link-dead, and a new login (or resume) takes it back.

use super::engine::Engine;
use super::output::Out;
use super::world::CharId;

/// The close a session gets when its queue is full.
pub const SLOW_CONSUMER: &str = "slow_consumer";

impl Engine {
    /// Sends `out` to a player's session. `false` when there was none, or it was full
    /// (then it has been sent its `slow_consumer` close and detached).
    pub fn deliver(&mut self, id: CharId, out: Out) -> bool {
        let pulse = self.pulse;
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return false };
        let Some(l) = pc.link.as_ref() else { return false };
        pc.delivered += 1;
        let nth = pc.delivered;
        // A replay cuts where the run did (its queues never fill); the run journals it.
        let full = match self.replay.as_ref() {
            Some(f) => f.cuts.contains(&(id, nth)),
            None => l.tx.capacity() <= 1,
        };
        if !full {
            // Only a closed queue fails here (its session is already gone).
            return l.tx.try_send(out).is_ok();
        }
        if let Some(j) = self.journal.as_mut() {
            j.entries.push(crate::replay::Entry::Cut { char_id: id, nth });
        }
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return false };
        let Some(l) = pc.link.as_ref() else { return false };
        let close = Out::Close { code: SLOW_CONSUMER, message: "you stopped reading; log in again (or resume) to catch up".into() };
        let _ = l.tx.try_send(close);
        pc.link = None;
        pc.linkdead_since = Some(pulse);
        self.stats.metrics.slow_consumer_engine.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!(char = id, "slow consumer: the session's queue was full; its link is closed");
        false
    }

    /// Sends a session its last message and detaches it from the character.
    pub fn close_link(&mut self, id: CharId, code: &'static str, message: &str) {
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            if let Some(l) = pc.link.take() {
                // `deliver` keeps a slot free, so the close always fits.
                let _ = l.tx.try_send(Out::Close { code, message: message.to_string() });
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

    /// A player whose session never reads: the queue fills, the last message in it is
    /// the `slow_consumer` close, and nothing after it is queued.
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
        }
        assert_eq!(delivered, 7, "seven messages fit; the eighth slot is the close");
        assert!(e.world.ch(id).unwrap().pc.as_ref().unwrap().link.is_none(), "the session is detached");
        assert!(e.world.ch(id).unwrap().pc.as_ref().unwrap().linkdead_since.is_some(), "the character is link-dead");
        let mut got = Vec::new();
        while let Ok(o) = rx.try_recv() {
            got.push(o);
        }
        assert_eq!(got.len(), 8);
        assert!(matches!(got.last(), Some(Out::Close { code: SLOW_CONSUMER, .. })), "the last message is the close");
    }
}

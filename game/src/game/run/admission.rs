//! Admission: the engine goes no faster than the record can keep it. When the recorder
//! falls far behind (records handed over and not yet durable: an overloaded machine),
//! first the engine takes only `HELD_PER_PULSE` messages of its inbox per pulse
//! (past `BACKLOG_HOLD`): the rest wait in the bounded inbox, then in the sessions'
//! sockets, and the clients feel TCP's back-pressure. Input is not all a pulse
//! records, though: everything every agent observes is recorded too, so past
//! `BACKLOG_DEFER` the pulses themselves are put off (the game's time slows, as an
//! overloaded MUD lags) until the recorder has caught up. Before this, 10,000 agents
//! on two cores grew the server past 19 GB, millions of records waiting for a starved
//! recorder. Nothing waits on I/O: the engine only declines to take input or to run a
//! pulse at its tick. A replay takes its input and pulses from the journal, where they
//! were taken live, so admission does not apply to it.

use std::sync::atomic::Ordering::Relaxed;

use crate::game::run::engine::Engine;

/// Records handed over and not yet durable past which input is held back (at 1,000
/// agents the recorder has ~7,000 records a second to write: this is many seconds).
pub const BACKLOG_HOLD: u64 = 100_000;
/// Past this, pulses are put off too (a record is ~2.5 KB in memory while it waits).
pub const BACKLOG_DEFER: u64 = 250_000;
/// Messages taken per pulse length while input is held back: logins, commands and a
/// shutdown still get through, slowly.
pub const HELD_PER_PULSE: u32 = 64;

/// Where admission stands.
#[derive(Debug, Default)]
pub struct Admission {
    /// Messages taken since the last tick.
    taken: u32,
    /// Whether input was being held back at the last look.
    held: bool,
}

impl Engine {
    /// Records waiting for the recorder (0 when nothing is recorded, and in a replay).
    fn record_backlog(&self) -> u64 {
        match (&self.replay, &self.recorder) {
            (None, Some(r)) => r.backlog(),
            _ => 0,
        }
    }

    /// Whether the engine may take another message from its inbox now.
    pub(crate) fn admits(&mut self) -> bool {
        let backlog = self.record_backlog();
        let behind = backlog > BACKLOG_HOLD;
        if behind != self.admission.held {
            self.admission.held = behind;
            self.stats.counters.input_held.store(behind, Relaxed);
            if behind {
                tracing::warn!(backlog, per_pulse = HELD_PER_PULSE, "the record is far behind: input held back until it catches up");
            } else {
                tracing::info!(backlog, "the record has caught up: input taken as it comes");
            }
        }
        !behind || self.admission.taken < HELD_PER_PULSE
    }

    /// One message was taken from the inbox.
    pub(crate) fn admitted(&mut self) {
        self.admission.taken = self.admission.taken.saturating_add(1);
    }

    /// The clock ticks: held-back input gets its share afresh, and whether the pulse
    /// runs now (false: put off, the record being too far behind).
    pub(crate) fn admission_tick(&mut self) -> bool {
        self.admission.taken = 0;
        let m = &self.stats.counters;
        if self.admission.held {
            m.input_held_pulses.fetch_add(1, Relaxed);
        }
        if self.record_backlog() > BACKLOG_DEFER {
            m.pulses_deferred.fetch_add(1, Relaxed);
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::sync::{mpsc, oneshot};

    use super::*;
    use crate::game::run::engine::{EngineConfig, EngineMsg};

    /// A record sink as far behind as the test says.
    #[derive(Default)]
    struct Behind {
        backlog: std::sync::atomic::AtomicU64,
    }

    impl crate::game::records::record_sink::RecordSink for Behind {
        fn send(&self, _: Vec<crate::game::records::record_sink::RecItem>) {}

        fn backlog(&self) -> u64 {
            self.backlog.load(Relaxed)
        }
    }

    /// With the recorder far behind, logins are taken a few per pulse; further behind,
    /// pulses are put off; once it has caught up, the rest at once. Before admission,
    /// all were taken as they came, and pulses ran whatever the backlog.
    #[tokio::test]
    async fn a_far_behind_record_holds_input_back_until_it_catches_up() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = pawns_storage::Store::open(dir.path().join("t.redb")).unwrap();
        let store = Arc::new(store);
        let (saves, _writer) = crate::game::records::persist::spawn_writer(store.clone(), Default::default());
        let proto = crate::worldfile::load(&crate::worldfile::StarterWorld).unwrap().world;
        let pulse = Duration::from_millis(20);
        let mut e = Engine::new(proto, EngineConfig { pulse, ..EngineConfig::default() }, saves);
        // A starved recorder: it takes what it is given, and has as much waiting as the
        // test says (the backlog is all admission reads of it).
        let stats = Arc::new(Behind::default());
        e.recorder = Some(stats.clone());
        stats.backlog.fetch_add(BACKLOG_HOLD * 2, Relaxed);

        const LOGINS: usize = 4000;
        let (tx, rx) = mpsc::channel(LOGINS + 1);
        let record = crate::game::model::character::new_record("Ann", 3, 0, 1, true, [13; 6], 0);
        let mut replies = Vec::with_capacity(LOGINS);
        let mut outs = Vec::with_capacity(LOGINS);
        for i in 0..LOGINS {
            let (l, out) = crate::game::tests::link(i as u64 + 1, 64);
            let (reply, r) = oneshot::channel();
            tx.try_send(EngineMsg::Enter { record: Box::new(record.clone()), link: l, resumed: None, reply }).unwrap();
            replies.push(r);
            outs.push(out);
        }
        let metrics = e.stats.counters.clone();
        let engine = tokio::spawn(e.run(rx));
        let mut answers = 0usize;
        let mut answered = |replies: &mut Vec<oneshot::Receiver<_>>| {
            replies.retain_mut(|r| match r.try_recv() {
                Ok(_) => {
                    answers += 1;
                    false
                }
                Err(oneshot::error::TryRecvError::Empty) => true,
                Err(oneshot::error::TryRecvError::Closed) => panic!("a login went unanswered"),
            });
            answers
        };
        tokio::time::sleep(pulse * 10).await;
        let held = answered(&mut replies);
        assert!(held > 0, "held-back input must still trickle in");
        // At most one pulse's share per pulse run (the sleep is ten pulses; allow slack
        // for a slow machine's late wake-up).
        assert!(held <= HELD_PER_PULSE as usize * 20, "{held} logins were taken while the record was far behind");
        assert!(held < LOGINS / 2, "{held} of {LOGINS} logins were taken while the record was far behind");

        assert_eq!(metrics.pulses_deferred.load(Relaxed), 0, "between the marks, pulses run");

        // Further behind still: the pulses are put off too.
        stats.backlog.fetch_add(BACKLOG_DEFER, Relaxed);
        tokio::time::sleep(pulse * 2).await;
        let last = metrics.last_pulse_us.load(Relaxed);
        tokio::time::sleep(pulse * 10).await;
        assert_eq!(metrics.last_pulse_us.load(Relaxed), last, "a pulse ran with the record that far behind");
        assert!(metrics.pulses_deferred.load(Relaxed) >= 5, "{} pulses put off", metrics.pulses_deferred.load(Relaxed));

        stats.backlog.fetch_sub(BACKLOG_HOLD * 2 + BACKLOG_DEFER, Relaxed);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while answered(&mut replies) < LOGINS {
            assert!(std::time::Instant::now() < deadline, "only {} of {LOGINS} logins once the record caught up", answered(&mut replies));
            tokio::time::sleep(pulse).await;
        }
        let (done, _d) = oneshot::channel();
        tx.send(EngineMsg::Shutdown { reply: done }).await.unwrap();
        let e = engine.await.unwrap();
        let held_pulses = e.stats.counters.input_held_pulses.load(Relaxed);
        assert!(held_pulses >= 5, "{held_pulses} pulses counted as held back");
        assert!(!e.stats.counters.input_held.load(Relaxed), "caught up, input is no longer held");
        drop(outs);
    }
}

//! Engine-level unit tests: a real engine on the starter world, driven through its inbox.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use super::character::{ClientInfo, Link};
use super::engine::{Engine, EngineConfig, EngineMsg};

/// An engine on the starter world with a real save writer on a scratch file (keep the
/// returned directory alive as long as the engine).
pub(crate) fn engine(cfg: EngineConfig) -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(dir.path().join("t.redb")).unwrap();
    let (saves, _writer) = super::persist::spawn_writer(Arc::new(store), Default::default());
    let proto = crate::worldfile::load(&crate::worldfile::StarterWorld).unwrap().world;
    (Engine::new(proto, cfg, saves), dir)
}

pub(crate) fn link(id: u64, capacity: usize) -> (Link, mpsc::Receiver<super::output::Outs>) {
    let (tx, rx) = mpsc::channel(capacity);
    (Link { id, tx, json: true, client: Arc::new(ClientInfo::default()) }, rx)
}

/// A flooded inbox does not hold the clock back: while thousands of logins wait, pulses
/// still run on time (before the fix, the inbox came first and no pulse ran until it
/// was empty).
#[tokio::test]
async fn a_flooded_inbox_does_not_delay_the_pulse_clock() {
    let pulse = Duration::from_millis(5);
    let (e, _dir) = engine(EngineConfig { pulse, ..EngineConfig::default() });
    const LOGINS: usize = 20_000;
    let (tx, rx) = mpsc::channel(LOGINS + 1);
    let record = super::character::new_record("Ann", 3, 0, 1, true, [13; 6], 0);
    let mut keep = Vec::with_capacity(LOGINS);
    for i in 0..LOGINS {
        // The same character again and again: each a takeover (state and vars resent).
        let (l, out) = link(i as u64 + 1, 64);
        let (reply, r) = oneshot::channel();
        tx.try_send(EngineMsg::Enter { record: Box::new(record.clone()), link: l, resumed: None, reply }).unwrap();
        keep.push((out, r));
    }
    let (done, _d) = oneshot::channel();
    tx.try_send(EngineMsg::Shutdown { reply: done }).unwrap();
    let started = Instant::now();
    let e = e.run(rx).await;
    let elapsed = started.elapsed();
    let due = (elapsed.as_micros() / pulse.as_micros()) as u64;
    assert!(due >= 20, "the logins took {elapsed:?}: too little time to tell (make them more)");
    assert!(e.pulse * 3 >= due, "{} pulses ran in {elapsed:?} ({due} were due)", e.pulse);
}

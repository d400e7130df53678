//! Engine-level unit tests: a real engine on the starter world, driven through its inbox.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use crate::game::model::character::{ClientInfo, Link};
use crate::game::run::engine::{Engine, EngineConfig, EngineMsg};

/// An engine on the starter world with a real save writer on a scratch file (keep the
/// returned directory alive as long as the engine).
pub(crate) fn engine(cfg: EngineConfig) -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(dir.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(Arc::new(store), Default::default());
    let proto = crate::worldfile::load(&crate::worldfile::StarterWorld).unwrap().world;
    (Engine::new(proto, cfg, saves), dir)
}

/// The Dark Pawns world (`PAWNS_DARKPAWNS_WORLD`, or `../shared/worlds/darkpawns` beside
/// the project); `None` (the test skips) without it.
pub(crate) fn darkpawns() -> Option<std::path::PathBuf> {
    let dir = std::env::var("PAWNS_DARKPAWNS_WORLD")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/worlds/darkpawns"));
    dir.join("wld/index").is_file().then_some(dir).or_else(|| {
        eprintln!("skipped: no Dark Pawns world");
        None
    })
}

/// What the engine sent a link so far, as text.
pub(crate) fn heard(e: &mut Engine, rx: &mut mpsc::Receiver<crate::game::send::output::Outs>) -> String {
    // What the engine sent so far goes out (as at a step's end).
    e.send_outboxes();
    let mut s = String::new();
    while let Ok(batch) = rx.try_recv() {
        for o in batch {
            if let crate::game::send::output::Out::Event { text, .. } = o {
                s.push_str(&text);
                s.push('\n');
            }
        }
    }
    s
}

/// Moves `id` to room `vnum`.
pub(crate) fn place(e: &mut Engine, id: crate::game::model::world::CharId, vnum: u32) {
    let r = e.world.room_of_vnum(vnum).unwrap_or_else(|| panic!("room {vnum}"));
    e.world.char_from_room(id);
    e.world.char_to_room(id, r);
}

/// A mob of prototype `vnum` made in room `room` (lowest rolls).
pub(crate) fn mob_at(e: &mut Engine, vnum: u32, room: u32) -> crate::game::model::world::CharId {
    let r = e.world.room_of_vnum(room).unwrap();
    let mut roll = |lo: i32, _hi: i32| lo;
    e.world.create_mob(vnum, r, &mut roll).unwrap()
}

pub(crate) fn link(id: u64, capacity: usize) -> (Link, mpsc::Receiver<crate::game::send::output::Outs>) {
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
    let record = crate::game::model::character::new_record("Ann", 3, 0, 1, true, [13; 6], 0);
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

/// One command a pulse, and wait states, from the players the pulse keeps a note of
/// (`World::waiting`) rather than from every player: a wait counts down with nothing
/// queued, a command typed during a wait runs the pulse it ends, a second command in
/// a pulse waits for the next, and a player with nothing to do leaves the note.
#[tokio::test]
async fn waits_count_down_and_queued_commands_run_one_a_pulse() {
    let (mut e, _dir) = engine(EngineConfig::default());
    let record = crate::game::model::character::new_record("Wanda", 3, 0, 1, true, [13; 6], 0);
    let (l, _out) = link(7, 1024);
    let (reply, r) = oneshot::channel();
    e.handle(EngineMsg::Enter { record: Box::new(record), link: l, resumed: None, reply });
    let id = r.await.unwrap().char_id;
    let queued = |e: &Engine| e.world.ch(id).unwrap().pc.as_ref().unwrap().queue.len();
    let acted = |e: &Engine| e.world.ch(id).unwrap().pc.as_ref().unwrap().acted_pulse;
    let command = |e: &mut Engine, line: &str| e.handle_command(id, 7, line.into(), None, (Instant::now(), 0), None);
    e.tick();
    assert!(e.world.waiting.is_empty());

    // Bashed: a wait of three pulses counts down though nothing is queued.
    e.world.set_wait(id, 3, true);
    assert!(e.world.waiting.contains(&id));
    for left in [2, 1, 0] {
        e.tick();
        assert_eq!(e.world.ch(id).unwrap().wait, left);
    }
    e.tick();
    assert!(!e.world.waiting.contains(&id), "nothing queued, no wait: off the note");
    // Not acting this pulse, it acts at once.
    command(&mut e, "look");
    assert_eq!((acted(&e), queued(&e)), (e.pulse, 0));
    // A second command in the same pulse waits for the next.
    command(&mut e, "score");
    assert_eq!(queued(&e), 1);
    assert!(e.world.waiting.contains(&id));
    e.tick();
    assert_eq!((acted(&e), queued(&e)), (e.pulse, 0), "the queued command ran in the next pulse");
    e.tick();
    assert!(!e.world.waiting.contains(&id));

    // A command typed during a wait runs in the pulse the wait has run out.
    e.world.set_wait(id, 2, false);
    command(&mut e, "look");
    assert_eq!(queued(&e), 1);
    e.tick();
    e.tick();
    assert_eq!((e.world.ch(id).unwrap().wait, queued(&e)), (0, 1), "still waiting out the last pulse");
    e.tick();
    assert_eq!((acted(&e), queued(&e)), (e.pulse, 0));
    // A longer wait is kept by `at_least`, a shorter one set outright.
    e.world.set_wait(id, 5, true);
    e.world.set_wait(id, 2, true);
    assert_eq!(e.world.ch(id).unwrap().wait, 5);
    e.world.set_wait(id, 2, false);
    assert_eq!(e.world.ch(id).unwrap().wait, 2);
}

/// What an action's published schema takes, the engine never refuses as malformed
/// (`bad_request`, `too_long`): every action the engine serves, each field in turn left
/// out or set to each of many values, applied by a real engine to a player granted
/// agent management. (The readers' own agreement is `action_items`'s test; this one
/// reaches the fields read as the action is applied: chat rooms, agents, knowledge.)
#[tokio::test]
async fn the_engine_takes_whatever_an_actions_schema_takes() {
    use crate::hud::schemas::{catalog, check, variants};
    let (mut e, _dir) = engine(EngineConfig::default());
    let record = crate::game::model::character::new_record("Wanda", 3, 0, 1, true, [13; 6], 0);
    let (l, _out) = link(7, 1 << 16);
    let (reply, r) = oneshot::channel();
    e.handle(EngineMsg::Enter { record: Box::new(record), link: l, resumed: None, reply });
    let id = r.await.unwrap().char_id;
    e.world.chars.get_mut(&id).unwrap().pc.as_mut().unwrap().hud.can_create_agents = true;
    let mut tried = 0;
    for ty in catalog().actions.keys().filter(|t| !crate::game::run::actions::MIND_ACTIONS.contains(&t.as_str())) {
        for item in variants(ty) {
            if check(ty, &item).is_err() {
                continue;
            }
            tried += 1;
            if let Err((code @ ("bad_request" | "too_long"), m)) = e.act_on(id, &item, None) {
                panic!("{ty}: the schema takes {item} but the engine refuses it: {code} {m}");
            }
            e.tick();
        }
    }
    assert!(tried > 300, "{tried}");
}

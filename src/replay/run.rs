//! `pawns replay`: a run's engine rebuilt from its boot and fed its journaled inputs at
//! the same pulses, its records compared with the record — every record of the chosen
//! sessions, encoded, byte for byte; the first that differs is named with both versions.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use pawns_storage::{EventRecord, SessionMeta, Store, StoreError};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{Boot, Entry, JOURNAL_VERSION};
use crate::game::records::journal::ReplayFeed;
use crate::game::run::engine::{Engine, EngineConfig};
use crate::record::{RecItem, RecorderHandle};

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    NoJournal(String),
    #[error("{0}")]
    WorldChanged(String),
    #[error("{0}")]
    BadJournal(String),
    #[error("{0}")]
    BadInput(String),
}

impl ReplayError {
    pub fn code(&self) -> &'static str {
        match self {
            ReplayError::Store(e) => e.code(),
            ReplayError::NoJournal(_) => "no_journal",
            ReplayError::WorldChanged(_) => "world_changed",
            ReplayError::BadJournal(_) => "bad_journal",
            ReplayError::BadInput(_) => "bad_request",
        }
    }
}

/// What to replay: one session, or every session of a run begun in a window.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    pub session: Option<u64>,
    /// Sessions begun in [from, to] (unix µs); the run holding `from`.
    pub window: Option<(u64, u64)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionCheck {
    pub session: u64,
    pub agent: String,
    pub records: usize,
    pub identical: bool,
}

/// The first record that differs: the session, its `seq`, and both versions (none: that
/// side has no such record).
#[derive(Debug, Clone, Serialize)]
pub struct Divergence {
    pub session: u64,
    pub seq: u64,
    pub recorded: Option<serde_json::Value>,
    pub replayed: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    pub run: u64,
    pub pulses: u64,
    pub inputs: u64,
    /// The journal's size in the data file.
    pub journal_bytes: u64,
    pub sessions: Vec<SessionCheck>,
    pub divergence: Option<Divergence>,
    pub elapsed_ms: f64,
}

/// SHA-256 over the stored world's zones, and what it was read from.
pub fn world_digest(store: &Store) -> Result<(String, String), StoreError> {
    let mut h = Sha256::new();
    for (vnum, bytes) in store.world_zones()? {
        h.update(vnum.to_le_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok((hex::encode(h.finalize()), crate::worldfile::stored::source(store)?.unwrap_or_default()))
}

/// The boot entry of a run starting now.
pub fn boot_of(
    e: &Engine,
    world_digest: String,
    world_source: String,
    houses: Vec<pawns_storage::HouseRecord>,
    chat_rooms: Vec<pawns_storage::ChatRoomRecord>,
    boards: Vec<pawns_storage::BoardRecord>,
) -> Boot {
    Boot {
        version: JOURNAL_VERSION,
        run: crate::time::unix_us(),
        seed: e.cfg.seed,
        pulse_us: e.cfg.pulse.as_micros() as u64,
        start_room: e.cfg.start_room,
        start_hour: e.start_hour,
        record_humans: e.cfg.record_humans,
        scripts: e.cfg.scripts,
        linkdead_grace_us: e.cfg.linkdead_grace.as_micros() as u64,
        save_interval_us: e.cfg.save_interval.as_micros() as u64,
        world_digest,
        world_source,
        houses,
        chat_rooms,
        boards,
    }
}

/// A run's journal, in order, and its size in the file (bytes).
pub(super) fn entries(store: &Store, run: u64) -> Result<(Vec<Entry>, u64), ReplayError> {
    let (mut out, mut bytes) = (Vec::new(), 0u64);
    store.journal_chunks(run, &mut |b| {
        bytes += b.len() as u64 + 4;
        out.extend(pawns_storage::codec::decode::<Vec<Entry>>(b)?);
        Ok(())
    })?;
    Ok((out, bytes))
}

/// The engine as the run began.
pub(super) fn rebuild(store: &Store, boot: &Boot) -> Result<Engine, ReplayError> {
    if boot.version != JOURNAL_VERSION {
        return Err(ReplayError::BadJournal(format!("journal version {} (this build reads {JOURNAL_VERSION})", boot.version)));
    }
    let (digest, source) = world_digest(store)?;
    if digest != boot.world_digest {
        return Err(ReplayError::WorldChanged(format!(
            "the world in the data file (from {source}) is not the one the run played (from {}): it was reimported since",
            boot.world_source
        )));
    }
    let world = crate::worldfile::stored::load(store)
        .map_err(|e| ReplayError::BadJournal(format!("the stored world cannot be read: {e}")))?
        .ok_or_else(|| ReplayError::BadJournal("the data file holds no world".into()))?;
    let world = crate::worldfile::profile::with_profile(world, &source);
    let cfg = EngineConfig {
        pulse: Duration::from_micros(boot.pulse_us),
        seed: boot.seed,
        start_room: boot.start_room,
        start_hour: Some((boot.start_hour % 24) as u8),
        record_humans: boot.record_humans,
        linkdead_grace: Duration::from_micros(boot.linkdead_grace_us),
        save_interval: Duration::from_micros(boot.save_interval_us),
        fault_injection: false,
        scripts: boot.scripts,
    };
    let e = Engine::new(world, cfg, crate::game::records::persist::SaveQueue::discard());
    let mut e = e;
    e.restore_houses(&boot.houses);
    e.chat = crate::game::model::chat_rooms::ChatBook::restore(boot.chat_rooms.clone());
    e.boards = crate::game::rules::specials::board::BoardBook::restore(boot.boards.clone());
    // Whom letters may be addressed to: the names in the file now (a name made after
    // the run began is one the run did not know; the journal does not carry the list).
    e.registered =
        store.character_names().map_err(|e| ReplayError::BadJournal(format!("the characters cannot be read: {e}")))?.into_iter().collect();
    e.warm_scripts();
    Ok(e)
}

/// What a replay feeds the engine inside pulses (their times, the inputs handled in the
/// middle of one, where sessions were cut), and the last pulse the entries reach.
pub(super) fn feed_of(entries: &[Entry]) -> (ReplayFeed, u64) {
    let mut feed = ReplayFeed::default();
    let mut last_pulse = 0;
    for e in entries {
        match e {
            Entry::Tick { pulse, start_us, flush_us } => {
                feed.ticks.insert(*pulse, (*start_us, *flush_us));
                last_pulse = last_pulse.max(*pulse);
            }
            Entry::Input { pulse, drain, at_us, input } if *drain > 0 => feed.mid.push_back((*pulse, *drain, *at_us, input.clone())),
            Entry::Input { pulse, .. } => last_pulse = last_pulse.max(*pulse),
            Entry::Cut { char_id, nth } => {
                feed.cuts.insert((*char_id, *nth));
            }
            Entry::Boot(_) => {}
        }
    }
    (feed, last_pulse)
}

/// Which run holds a session (the last to boot before it began).
pub(super) fn run_of(runs: &[u64], at_us: u64) -> Option<u64> {
    runs.iter().copied().filter(|r| *r <= at_us).max()
}

pub(super) fn encode(r: &EventRecord) -> Vec<u8> {
    pawns_storage::codec::encode(r).unwrap_or_default()
}

/// Replays and compares; `progress(pulses done, pulses)` now and then.
pub fn replay(store: &Store, opts: &ReplayOptions, progress: &mut dyn FnMut(u64, u64)) -> Result<ReplayReport, ReplayError> {
    let started = Instant::now();
    let runs = store.journal_runs()?;
    type Wanted = Box<dyn Fn(&SessionMeta) -> bool>;
    let (run, wanted): (u64, Wanted) = match (opts.session, opts.window) {
        (Some(s), _) => {
            let meta = store.session(s)?.ok_or_else(|| ReplayError::BadInput(format!("no session {s} in the record")))?;
            let run = run_of(&runs, meta.started_us).ok_or_else(|| {
                ReplayError::NoJournal(format!("session {s} began before any journaled run (journaling began with this version)"))
            })?;
            (run, Box::new(move |m: &SessionMeta| m.session == s))
        }
        (None, Some((from, to))) => {
            let run = run_of(&runs, from)
                .or_else(|| runs.iter().copied().find(|r| *r <= to))
                .ok_or_else(|| ReplayError::NoJournal("no journaled run covers that window".into()))?;
            (run, Box::new(move |m: &SessionMeta| m.started_us >= from && m.started_us <= to))
        }
        (None, None) => return Err(ReplayError::BadInput("name a session (--session) or a window (--from/--to)".into())),
    };
    let (entries, journal_bytes) = entries(store, run)?;
    let Some(Entry::Boot(boot)) = entries.first() else {
        return Err(ReplayError::BadJournal(format!("run {run}'s journal does not begin with its boot")));
    };
    let mut engine = rebuild(store, boot)?;
    let (recorder, capture) = RecorderHandle::capture();
    engine.recorder = Some(std::sync::Arc::new(recorder));
    let (feed, last_pulse) = feed_of(&entries);
    engine.replay = Some(Box::new(feed));
    // The sessions the replay makes, and their records, as it makes them.
    let mut metas: BTreeMap<u64, SessionMeta> = BTreeMap::new();
    let mut made: BTreeMap<u64, Vec<EventRecord>> = BTreeMap::new();
    let mut collect = |engine: &mut Engine| {
        engine.hand_over_records();
        for item in capture.drain() {
            match item {
                RecItem::Record(r) => made.entry(r.session).or_default().push(r),
                RecItem::Session(m) => {
                    metas.insert(m.session, m);
                }
                RecItem::Journal(..) => {}
            }
        }
    };
    let mut inputs = 0u64;
    let mut shown = Instant::now();
    for e in entries.into_iter().skip(1) {
        let Entry::Input { pulse, drain: 0, at_us, input } = e else { continue };
        while engine.pulse < pulse {
            engine.tick();
            collect(&mut engine);
            if shown.elapsed() >= Duration::from_secs(1) {
                progress(engine.pulse, last_pulse);
                shown = Instant::now();
            }
        }
        engine.replay_input(at_us, input);
        inputs += 1;
        collect(&mut engine);
    }
    while engine.pulse < last_pulse {
        engine.tick();
        collect(&mut engine);
    }
    progress(engine.pulse, last_pulse);
    // Compare: every wanted session the record holds, and any the replay made.
    // The run's sessions: begun after its boot and before the next run's.
    let next_run = runs.iter().copied().filter(|r| *r > run).min().unwrap_or(u64::MAX);
    let recorded: Vec<SessionMeta> =
        store.all_sessions()?.into_iter().filter(|m| m.session >= run && m.session < next_run && wanted(m)).collect();
    let mut ids: BTreeSet<u64> = recorded.iter().map(|m| m.session).collect();
    ids.extend(metas.values().filter(|m| wanted(m)).map(|m| m.session));
    if ids.is_empty() {
        return Err(ReplayError::BadInput("no session matches in that run".into()));
    }
    let mut report =
        ReplayReport { run, pulses: engine.pulse, inputs, journal_bytes, sessions: Vec::new(), divergence: None, elapsed_ms: 0.0 };
    for id in ids {
        let theirs = store.session_records(id)?;
        let ours = made.remove(&id).unwrap_or_default();
        let agent = recorded.iter().find(|m| m.session == id).or_else(|| metas.get(&id)).map(|m| m.agent.clone()).unwrap_or_default();
        let first_diff = (0..theirs.len().max(ours.len())).find(|i| theirs.get(*i).map(encode) != ours.get(*i).map(encode));
        // The session's own row too (what the store adds to it aside).
        let row = |m: Option<&SessionMeta>| m.map(|m| SessionMeta { first_batch: 0, last_batch: 0, ..m.clone() });
        let meta_same = row(recorded.iter().find(|m| m.session == id)) == row(metas.get(&id));
        report.sessions.push(SessionCheck { session: id, agent, records: theirs.len(), identical: first_diff.is_none() && meta_same });
        if !meta_same && first_diff.is_none() && report.divergence.is_none() {
            let json = |m: Option<SessionMeta>| m.and_then(|m| serde_json::to_value(m).ok());
            report.divergence = Some(Divergence {
                session: id,
                seq: 0,
                recorded: json(row(recorded.iter().find(|m| m.session == id))),
                replayed: json(row(metas.get(&id))),
            });
        }
        if let (Some(i), None) = (first_diff, report.divergence.as_ref()) {
            let json = |r: Option<&EventRecord>| r.and_then(|r| serde_json::to_value(r).ok());
            report.divergence = Some(Divergence {
                session: id,
                seq: theirs.get(i).or(ours.get(i)).map(|r| r.seq).unwrap_or(i as u64 + 1),
                recorded: json(theirs.get(i)),
                replayed: json(ours.get(i)),
            });
        }
    }
    report.elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(report)
}

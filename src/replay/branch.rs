//! `pawns branch`: a run played again from its journal to a time T, then a different
//! future from the same past.
//!
//! [`prepare`] rebuilds the run's engine from its boot (as `pawns replay` does), feeds it
//! the journal's inputs up to T and writes what it records into a new file — the branch's —
//! checking every record against the parent's, byte for byte: the branch's past *is* the
//! parent's, or there is no branch. Along the way each dream the parent dreamt before T is
//! dreamt again in the branch's file at the same place in the record (and checked against
//! the parent's dream log), and the engine's saves land there. At T the branch point
//! (`Input::Branch`, journaled) saves every player where it stands and ends its session;
//! their logout dreams follow, then the one change is made to memory. The engine is handed
//! back ready to run live (`server::start_branch`), its journal going on from the
//! parent's, so `pawns replay` replays a branch's sessions like any other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pawns_storage::{RecordBatch, SessionMeta, Store};
use serde::Serialize;

use super::branch_file::{self, Saves};
use super::change::Change;
use super::run::{encode, entries, feed_of, rebuild, run_of, Divergence, ReplayError};
use super::{Entry, Input};
use crate::game::records::persist::SaveQueue;
use crate::game::run::engine::Engine;
use crate::record::{RecItem, RecorderHandle};

/// What a branch did to reach its branch point.
#[derive(Debug, Clone, Serialize, Default)]
pub struct BranchReport {
    /// The parent's journaled run (its boot, µs), and where the branch leaves it.
    pub journal_run: u64,
    pub at_us: u64,
    pub pulse: u64,
    pub inputs: u64,
    /// Records of sessions begun before the run (copied as they were).
    pub earlier_records: u64,
    /// Records replayed up to T, each compared with the parent's.
    pub records: u64,
    pub sessions: usize,
    pub identical: bool,
    pub divergence: Option<Divergence>,
    /// Agents whose sessions the branch point ended (they log in again).
    pub branched: Vec<String>,
    pub characters_saved: usize,
    pub mind_records: usize,
    /// The parent's dreams before T, dreamt again; how many made what the parent's did.
    pub dreams: usize,
    pub dreams_matching: usize,
    /// The first few that did not, and how.
    pub dreams_differing: Vec<String>,
    /// The change, and what it did to memory.
    pub change: String,
    pub changed: String,
    pub out: PathBuf,
    pub elapsed_ms: f64,
}

/// A branch at its branch point: the engine to run live and the file it plays into.
pub struct Branched {
    pub engine: Engine,
    pub report: BranchReport,
}

/// Records gathered for the branch's file, and the session rows that changed.
#[derive(Default)]
struct Pending {
    records: Vec<pawns_storage::EventRecord>,
    sessions: BTreeMap<u64, SessionMeta>,
}

impl Pending {
    fn take(&mut self, items: Vec<RecItem>) {
        for item in items {
            match item {
                RecItem::Record(r) => self.records.push(r),
                RecItem::Session(m) => {
                    self.sessions.insert(m.session, m);
                }
                RecItem::Journal(..) => {}
            }
        }
    }

    fn write(&mut self, store: &Store, journal: Vec<(u64, Vec<u8>)>) -> Result<u64, ReplayError> {
        let mut batch = RecordBatch {
            sessions: std::mem::take(&mut self.sessions).into_values().collect(),
            records: std::mem::take(&mut self.records),
            journal,
            sweep: true,
            ..Default::default()
        };
        let n = batch.records.len() as u64;
        batch.model_calls = crate::record::model_journal::calls_of(&batch.records);
        store.write_records(&batch)?;
        Ok(n)
    }
}

/// Records a batch holds at most before it is written.
const BATCH: usize = 20_000;

/// The time of a journal entry, if it has one.
fn time_of(e: &Entry) -> Option<u64> {
    match e {
        Entry::Tick { start_us, .. } => Some(*start_us),
        Entry::Input { at_us, .. } => Some(*at_us),
        _ => None,
    }
}

/// Journal entries as the store keeps them: chunks of a few thousand.
fn journal_chunks(run: u64, entries: &[Entry]) -> Result<Vec<(u64, Vec<u8>)>, ReplayError> {
    entries.chunks(4096).map(|c| pawns_storage::codec::encode_compact(&c.to_vec()).map(|b| (run, b)).map_err(ReplayError::Store)).collect()
}

/// Plays the parent (the run journaled before `from_us`, a registered run's start) again
/// to `at_us` into a new file at `out`, and makes the branch point there. `progress(done,
/// total)` in pulses now and then.
pub fn prepare(
    parent: &Store,
    from_us: u64,
    at_us: u64,
    out: &Path,
    change: &Change,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Branched, ReplayError> {
    let started = Instant::now();
    let runs = parent.journal_runs()?;
    let jrun = run_of(&runs, from_us).ok_or_else(|| ReplayError::NoJournal("no journaled run holds that run's start".into()))?;
    if let Some(next) = runs.iter().copied().find(|r| *r > jrun).filter(|r| *r <= at_us) {
        return Err(ReplayError::BadInput(format!(
            "the server that played the run stopped before the branch point (the next boot was at {next})"
        )));
    }
    let (all, _) = entries(parent, jrun)?;
    let Some(Entry::Boot(boot)) = all.first() else {
        return Err(ReplayError::BadJournal(format!("run {jrun}'s journal does not begin with its boot")));
    };
    let boot = (**boot).clone();
    if at_us <= jrun {
        return Err(ReplayError::BadInput("the branch point is before the run's server started".into()));
    }
    let cut = all.iter().position(|e| time_of(e).is_some_and(|t| t > at_us)).unwrap_or(all.len());
    let (prefix, after) = all.split_at(cut);
    parent.branch_to(out)?;
    let branch = Store::open(out)?.0;
    branch_file::as_at_start(&branch, &boot, after)?;
    let mind_records = branch_file::mind_at(parent, &branch, at_us)?;
    let earlier_records = branch_file::before_the_run(parent, &branch, jrun)?;

    let mut engine = rebuild(&branch, &boot)?;
    let (recorder, capture) = RecorderHandle::capture();
    engine.recorder = Some(std::sync::Arc::new(recorder));
    let (saves_q, mut saves_rx) = SaveQueue::caught();
    engine.set_saves(saves_q);
    let (feed, last_pulse) = feed_of(prefix);
    engine.replay = Some(Box::new(feed));

    let dreams = branch_file::dreams_before(parent, at_us)?;
    let mut next_dream = 0;
    let (mut pending, mut saves) = (Pending::default(), Saves::default());
    let mut report = BranchReport {
        journal_run: jrun,
        at_us,
        change: change.to_string(),
        out: out.to_path_buf(),
        mind_records,
        earlier_records,
        ..Default::default()
    };
    let mut dreamt_alike = 0;
    let mut differing = Vec::new();
    // Writes what was gathered, then dreams each dream due by `now` (the parent's, in its
    // order, over the record as it stood).
    let mut catch_up = |engine: &mut Engine, pending: &mut Pending, saves: &mut Saves, now: u64, force: bool| -> Result<(), ReplayError> {
        engine.hand_over_records();
        pending.take(capture.drain());
        saves.take(&mut saves_rx);
        let due = dreams.get(next_dream).is_some_and(|d| d.0 <= now);
        if due || force || pending.records.len() >= BATCH {
            report.records += pending.write(&branch, Vec::new())?;
            saves.write(&branch)?;
        }
        while let Some((_, agent, snap)) = dreams.get(next_dream).filter(|d| d.0 <= now) {
            match branch_file::dream_again(parent, &branch, agent, &snap.trigger, Some(snap)).map_err(ReplayError::BadJournal)? {
                None => dreamt_alike += 1,
                Some(why) if differing.len() < 10 => differing.push(why),
                Some(_) => {}
            }
            next_dream += 1;
        }
        Ok(())
    };
    let mut shown = Instant::now();
    for e in prefix.iter().skip(1) {
        let Entry::Input { pulse, drain: 0, at_us: t, input } = e else { continue };
        while engine.pulse < *pulse {
            engine.tick();
            if shown.elapsed() >= Duration::from_secs(1) {
                progress(engine.pulse, last_pulse);
                shown = Instant::now();
            }
        }
        catch_up(&mut engine, &mut pending, &mut saves, *t, false)?;
        engine.replay_input(*t, input.clone());
        report.inputs += 1;
    }
    while engine.pulse < last_pulse {
        engine.tick();
    }
    catch_up(&mut engine, &mut pending, &mut saves, at_us, true)?;
    progress(engine.pulse, last_pulse);
    report.dreams = next_dream;
    report.dreams_matching = dreamt_alike;
    report.dreams_differing = differing;

    // The past, compared: every record the replay made is the parent's at the same place.
    let made: Vec<SessionMeta> = branch.all_sessions()?.into_iter().filter(|m| m.session >= jrun).collect();
    report.sessions = made.len();
    report.identical = true;
    for m in &made {
        let (ours, theirs) = (branch.session_records(m.session)?, parent.session_records(m.session)?);
        if let Some(i) = (0..ours.len()).find(|i| theirs.get(*i).map(encode) != Some(encode(&ours[*i]))) {
            report.identical = false;
            let json = |r: Option<&pawns_storage::EventRecord>| r.and_then(|r| serde_json::to_value(r).ok());
            report.divergence =
                Some(Divergence { session: m.session, seq: ours[i].seq, recorded: json(theirs.get(i)), replayed: json(ours.get(i)) });
            break;
        }
    }
    if !report.identical {
        let d = report.divergence.as_ref().map(|d| format!("session {} seq {}", d.session, d.seq)).unwrap_or_default();
        drop(branch);
        let _ = std::fs::remove_file(out);
        return Err(ReplayError::BadJournal(format!(
            "replaying the run to the branch point did not make its record (first difference: {d}): no branch was made"
        )));
    }

    // The branch point: journaled after the parent's inputs, as live.
    report.branched = engine.world.players.keys().cloned().collect();
    report.branched.sort();
    report.pulse = engine.pulse;
    engine.replay_input(at_us, Input::Branch);
    engine.hand_over_records();
    pending.take(capture.drain());
    saves.take(&mut saves_rx);
    let mut journal: Vec<Entry> = prefix.to_vec();
    journal.push(Entry::Input { pulse: engine.pulse, drain: 0, at_us, input: Input::Branch });
    report.records += pending.write(&branch, journal_chunks(jrun, &journal)?)?;
    saves.write(&branch)?;
    report.characters_saved = saves.written;
    // Their logouts' dreams, as a session's end brings; then the change.
    for agent in &report.branched {
        let has_memory = branch.memory::<crate::memory::AgentMemory>(agent)?.is_some() || dreams.iter().any(|d| &d.1 == agent);
        if has_memory {
            branch_file::dream_again(parent, &branch, agent, "branch", None).map_err(ReplayError::BadJournal)?;
        }
    }
    report.changed = change.apply_to_memory(&branch)?;
    engine.replay = None;
    engine.recorder = None;
    engine.set_saves(SaveQueue::discard());
    report.elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(Branched { engine, report })
}

//! The recorder: the engine hands it records without waiting; a thread of its own
//! commits them to redb in group commits. While one commit runs, the next batch
//! gathers; each batch is one write transaction and one append to the record log. A
//! record is durable once its batch commits: it waits at most `MAX_GATHER` for company,
//! then the commit (a few ms) runs.
//!
//! Each commit appends one row to the log's tail, whatever the number of sessions in it
//! (see `pawns_storage::log`). Every `SWEEP_EVERY`, or sooner once `SWEEP_RECORDS` have
//! gathered there, the packer thread builds one pack per session from the tail (from a
//! read transaction, compressing off this thread) and the next commit applies them (a
//! sweep), so no commit waits for a sweep's compression.
//!
//! One long-lived thread does every write, so the large buffers a batch needs are
//! allocated and freed on the same thread, and no commit waits for a pool to wake.
//!
//! The queue is unbounded so the engine never blocks or drops a record; its length is
//! counted (`RecorderStats::backlog`) and logged when it grows, which is the signal that
//! the disk (or the CPU) is not keeping up, and the engine's admission holds input back
//! and puts pulses off while it is far behind (`game/run/admission.rs`), which bounds it.

use crate::game::run::histogram::{Histogram, LateWindow};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pawns_storage::{EventRecord, RecordBatch, Store};
use tokio::sync::oneshot;

/// Commits in one recorder window.
pub const COMMIT_WINDOW: u32 = 50;
/// Late commits (a record durable after more than `DURABLE_PROMISE_US`) in one window
/// that make the server degraded.
pub const COMMITS_LATE_DEGRADED: u64 = 5;
/// The recording promise: durable within 50 ms.
pub const DURABLE_PROMISE_US: u64 = 50_000;
/// Longest a batch gathers before it commits. Within it, a batch commits when its oldest
/// record could still be durable within the 50 ms promise after a commit twice as long
/// as recent ones and `GATHER_MARGIN_US`: an idle-ish server commits about 25 batches a
/// second, a busy one as many as its commits allow, and never one per hand-over.
pub const MAX_GATHER: Duration = Duration::from_millis(45);
/// The part of the promise kept back for what the estimate misses (µs).
const GATHER_MARGIN_US: u64 = 6_000;
/// Most records in one transaction (a bigger backlog commits in several).
const MAX_BATCH: usize = 20_000;
/// How often the tail is packed into one chunk per session (a sweep): a reader of a
/// session decompresses each tail row since the last one.
pub const SWEEP_EVERY: Duration = Duration::from_secs(10);
/// A sweep comes sooner once this many records wait in the tail, so a crowd's tail (and
/// what a sweep holds in memory and compresses at once) stays a few tens of MB.
const SWEEP_RECORDS: u64 = 100_000;
/// Most framed groups of packs (up to 32 KB each, `pack_frame`) one commit applies, ~2 MB:
/// a sweep of ten thousand sessions (~10 MB) goes in over several commits, so none of
/// them writes (and syncs) a sweep's worth at once and keeps the records gathered behind
/// it waiting past the promise.
const SLICE_FRAMES: usize = 64;
/// How often the recorder logs its throughput.
const REPORT_EVERY: Duration = Duration::from_secs(30);

enum RecMsg {
    /// What the engine emitted since it last handed over, in order, and when it handed
    /// them over (unix µs): the promise is counted from then.
    Many(Vec<RecItem>, u64),
    /// Resolves once everything sent before it is committed.
    Flush(oneshot::Sender<()>),
}

/// One thing to record: the engine's type (it makes them).
pub use crate::game::records::record_sink::RecItem;

/// The recorder takes the engine's records.
impl crate::game::records::record_sink::RecordSink for RecorderHandle {
    fn send(&self, items: Vec<RecItem>) {
        RecorderHandle::send(self, items)
    }

    fn backlog(&self) -> u64 {
        self.stats.backlog.load(Ordering::Relaxed)
    }
}

/// Counters for metrics, the bench and the closing note.
pub struct RecorderStats {
    /// Committed batches for live watchers (the observatory).
    pub watch: super::watch::Watch,
    pub committed: AtomicU64,
    pub batches: AtomicU64,
    /// Records handed over but not yet committed.
    pub backlog: AtomicU64,
    /// The last batch id committed (what the search index follows).
    pub last_id: AtomicU64,
    /// Total time spent in commits, µs.
    pub commit_us: AtomicU64,
    pub failures: AtomicU64,
    /// Each group commit's duration and size.
    pub commit: Histogram,
    pub batch: Histogram,
    /// Per commit: its first hand-over by the engine → the commit ending (the promise).
    pub durable_lag: Histogram,
    /// Per commit: its oldest record happening → the engine handing it over (a decision
    /// is handed over when its pulse ends, holding its post state, and what its session
    /// saw after it waits with it, in `seq` order).
    pub handover_age: Histogram,
    /// Commits later than the 50 ms promise in the last full window (`/health`).
    pub late_recent: AtomicU64,
    /// Unix µs when the last commit ended.
    pub last_commit_end_us: AtomicU64,
    /// Session packs applied by sweeps.
    pub packed: AtomicU64,
    /// The last commit failed (a full disk, an I/O error): `/health` says so with the
    /// error, and `serve` stops cleanly rather than take what it cannot keep.
    pub failing: std::sync::atomic::AtomicBool,
    /// Why the last commit that failed did, and since when (unix µs) commits have failed.
    pub last_error: std::sync::Mutex<Option<(u64, String)>>,
}

impl RecorderStats {
    /// Since when (unix µs) and why commits have been failing, if the last one did.
    pub fn failing_since(&self) -> Option<(u64, String)> {
        if !self.failing.load(Ordering::Relaxed) {
            return None;
        }
        self.last_error.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Default for RecorderStats {
    fn default() -> Self {
        RecorderStats {
            watch: Default::default(),
            committed: AtomicU64::new(0),
            batches: AtomicU64::new(0),
            backlog: AtomicU64::new(0),
            last_id: AtomicU64::new(0),
            commit_us: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            commit: Histogram::seconds(),
            batch: Histogram::counts(),
            durable_lag: Histogram::seconds(),
            handover_age: Histogram::seconds(),
            late_recent: AtomicU64::new(0),
            last_commit_end_us: AtomicU64::new(0),
            packed: AtomicU64::new(0),
            failing: std::sync::atomic::AtomicBool::new(false),
            last_error: std::sync::Mutex::new(None),
        }
    }
}

impl std::fmt::Debug for RecorderStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecorderStats")
            .field("committed", &self.committed)
            .field("batches", &self.batches)
            .field("backlog", &self.backlog)
            .field("last_id", &self.last_id)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
pub struct RecorderHandle {
    tx: mpsc::Sender<RecMsg>,
    pub stats: Arc<RecorderStats>,
}

/// What a capturing recorder was handed (a replay reads the engine's records here
/// instead of writing them).
pub struct Capture(mpsc::Receiver<RecMsg>);

impl Capture {
    /// Everything handed over since the last call, in order.
    pub fn drain(&self) -> Vec<RecItem> {
        let mut out = Vec::new();
        while let Ok(m) = self.0.try_recv() {
            if let RecMsg::Many(items, _) = m {
                out.extend(items);
            }
        }
        out
    }
}

impl RecorderHandle {
    /// A recorder that writes nothing: what the engine hands it waits in the `Capture`.
    pub fn capture() -> (RecorderHandle, Capture) {
        let (tx, rx) = mpsc::channel();
        (RecorderHandle { tx, stats: Arc::new(RecorderStats::default()) }, Capture(rx))
    }

    /// Hands over everything the engine gathered since the last call (one message, one
    /// wake-up of the recorder, however many records).
    pub fn send(&self, items: Vec<RecItem>) {
        if items.is_empty() {
            return;
        }
        let n = items.iter().filter(|i| matches!(i, RecItem::Record(_))).count() as u64;
        self.stats.backlog.fetch_add(n, Ordering::Relaxed);
        if self.tx.send(RecMsg::Many(items, super::unix_us())).is_err() {
            self.stats.backlog.fetch_sub(n, Ordering::Relaxed);
        }
    }

    /// Waits until everything recorded so far is committed.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(RecMsg::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// The recorder's thread; joining it waits for the last commit.
pub struct RecorderThread(Option<std::thread::JoinHandle<()>>);

impl RecorderThread {
    /// Waits (off the async threads) until the recorder has committed everything and
    /// stopped; every handle must be dropped first.
    pub async fn join(mut self) {
        if let Some(t) = self.0.take() {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
    }
}

/// Where a committed batch's records go next, so that it need not read them back from
/// the file (the search indexer's feed): handed over once they are durable.
pub trait TakesRecords: Send {
    /// Records up to `last_id` are durable; these are the batch's.
    fn committed(&self, last_id: u64, records: Vec<EventRecord>);
}

/// What reads each committed batch as it becomes durable (the dreamer's feed: agents'
/// logouts and record counts).
pub trait ReadsBatches: Send {
    fn committed(&mut self, batch: &RecordBatch);
}

/// Starts the recorder; it ends (after a last commit) when every handle is dropped.
/// `feed`: where committed batches' records go next (the search indexer).
/// `dream`: what reads each committed batch (the dreamer).
/// `sweep_every`: how often the tail is packed (`SWEEP_EVERY` unless told).
pub fn spawn_recorder(
    store: Arc<Store>,
    feed: Option<Box<dyn TakesRecords>>,
    dream: Option<Box<dyn ReadsBatches>>,
    sweep_every: Duration,
) -> std::io::Result<(RecorderHandle, RecorderThread)> {
    let (tx, rx) = mpsc::channel::<RecMsg>();
    let stats = Arc::new(RecorderStats::default());
    if let Ok(id) = store.last_record_id() {
        stats.last_id.store(id, Ordering::Relaxed);
    }
    let st = stats.clone();
    let (ask, asked) = mpsc::channel::<()>();
    let (done, built) = mpsc::channel();
    let packer_store = store.clone();
    let packer = std::thread::Builder::new().name("pawns-packer".into()).spawn(move || {
        crate::priority::record_thread();
        // One build per request; it ends when the recorder does.
        while asked.recv().is_ok() {
            if done.send(packer_store.build_packs()).is_err() {
                break;
            }
        }
    })?;
    let sweeps = Sweeps {
        pending: None,
        every: sweep_every,
        last_sweep: Instant::now(),
        tail_records: 0,
        asked: false,
        ask,
        built,
        packer: Some(packer),
    };
    let thread = std::thread::Builder::new().name("pawns-recorder".into()).spawn(move || {
        // The recorder has its 50 ms promise to keep: it runs beside the sockets, not
        // below them like the packer, the indexer and the dreamer.
        crate::priority::background_thread();
        run(store, rx, st, feed, dream, sweeps)
    })?;
    Ok((RecorderHandle { tx, stats }, RecorderThread(Some(thread))))
}

fn run(
    store: Arc<Store>,
    rx: mpsc::Receiver<RecMsg>,
    st: Arc<RecorderStats>,
    feed: Option<Box<dyn TakesRecords>>,
    mut dream: Option<Box<dyn ReadsBatches>>,
    mut sweeps: Sweeps,
) {
    let mut late = LateWindow::new(COMMIT_WINDOW);
    let mut report = Instant::now();
    let mut reported = (0u64, 0u64, 0u64);
    // What a commit has been taking lately (µs, a moving average): the batch waits for
    // company only as long as its oldest record can still be durable within the promise.
    let mut commit_avg_us = 2_000u64;
    while let Ok(first) = rx.recv() {
        let mut batch = RecordBatch::default();
        let mut flushes = Vec::new();
        let started = super::unix_us();
        // The batch's first hand-over (the promise counts from it).
        let mut handed_us = u64::MAX;
        let mut next = Some(first);
        loop {
            while let Some(msg) = next.take() {
                match msg {
                    RecMsg::Many(items, at) => {
                        handed_us = handed_us.min(at);
                        for item in items {
                            match item {
                                RecItem::Record(r) => batch.records.push(r),
                                // A later version of the same session replaces the earlier one.
                                RecItem::Session(s) => {
                                    batch.sessions.retain(|x| x.session != s.session);
                                    batch.sessions.push(s);
                                }
                                RecItem::Journal(run, bytes) => batch.journal.push((run, bytes)),
                            }
                        }
                    }
                    RecMsg::Flush(done) => flushes.push(done),
                }
                if batch.records.len() >= MAX_BATCH {
                    break;
                }
                next = rx.try_recv().ok();
            }
            if batch.records.len() >= MAX_BATCH || !flushes.is_empty() {
                break;
            }
            // Group commit: gather until the oldest record's deadline (the promise, less
            // twice what a commit takes, less a margin), asleep rather than waking for
            // every hand-over, and in one sleep: what came meanwhile is read at once after.
            // (Naps of 10 ms woke a quiet server's recorder four times a commit for
            // nothing; a flush, asked only at stop when the engine is gone, waits at most
            // the gathering's 45 ms.)
            let now = super::unix_us();
            let from = handed_us.min(started);
            let deadline = from + DURABLE_PROMISE_US.saturating_sub(2 * commit_avg_us + GATHER_MARGIN_US);
            let deadline = deadline.min(started + MAX_GATHER.as_micros() as u64);
            if now >= deadline {
                next = rx.try_recv().ok();
                if next.is_none() {
                    break;
                }
                continue;
            }
            std::thread::sleep(Duration::from_micros(deadline - now));
            match rx.try_recv() {
                Ok(m) => next = Some(m),
                Err(mpsc::TryRecvError::Empty) => {}
                Err(mpsc::TryRecvError::Disconnected) => break,
            }
        }
        let t = Instant::now();
        commit(&store, &st, &mut sweeps, Gathered { batch, handed_us }, feed.as_deref(), dream.as_deref_mut(), &mut late);
        let took = t.elapsed().as_micros() as u64;
        commit_avg_us = (commit_avg_us * 4 + took) / 5;
        for f in flushes {
            let _ = f.send(());
        }
        if report.elapsed() >= REPORT_EVERY {
            let now = (st.committed.load(Ordering::Relaxed), st.batches.load(Ordering::Relaxed), st.commit_us.load(Ordering::Relaxed));
            let secs = report.elapsed().as_secs_f64();
            let batches = (now.1 - reported.1).max(1);
            tracing::info!(
                records_per_s = ((now.0 - reported.0) as f64 / secs) as u64,
                batches_per_s = ((now.1 - reported.1) as f64 / secs) as u64,
                avg_commit_ms = (now.2 - reported.2) as f64 / batches as f64 / 1000.0,
                backlog = st.backlog.load(Ordering::Relaxed),
                "recorder"
            );
            report = Instant::now();
            reported = now;
        }
    }
    // Stopping: the packer goes first (it holds the store, and the file stays locked
    // until every holder has let go; a build under way is abandoned).
    sweeps.stop_packer();
    // The tail is packed, so the file is left with every session's chunks listed (a
    // crash leaves it to the next start).
    if store.tail_rows().unwrap_or(0) > 0 {
        if let Err(e) = store.write_records(&RecordBatch { sweep: true, ..Default::default() }) {
            tracing::error!(code = e.code(), "packing the record's tail at stop failed: {e}");
        }
    }
}

/// When the tail was last packed, how many records it has gathered since, and the
/// packer: asked to build (at most one build at a time), its packs waiting to be applied.
struct Sweeps {
    /// Packs built and not yet all applied.
    pending: Option<pawns_storage::Packs>,
    every: Duration,
    last_sweep: Instant,
    tail_records: u64,
    asked: bool,
    ask: mpsc::Sender<()>,
    built: mpsc::Receiver<Result<Option<pawns_storage::Packs>, pawns_storage::StoreError>>,
    packer: Option<std::thread::JoinHandle<()>>,
}

impl Sweeps {
    /// Ends the packer thread and waits for it: closing both channels ends its loop
    /// (a build under way finishes, finds no one to take it, and stops).
    fn stop_packer(&mut self) {
        let (ask, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.ask, ask));
        let (_, built) = mpsc::channel();
        drop(std::mem::replace(&mut self.built, built));
        self.pending = None;
        if let Some(t) = self.packer.take() {
            let _ = t.join();
        }
    }
}

/// A group commit's batch and its first hand-over by the engine (unix µs; `u64::MAX`:
/// none, a batch of session rows or journal alone).
struct Gathered {
    batch: RecordBatch,
    handed_us: u64,
}

fn commit(
    store: &Store,
    st: &RecorderStats,
    sweeps: &mut Sweeps,
    Gathered { mut batch, handed_us }: Gathered,
    feed: Option<&dyn TakesRecords>,
    dream: Option<&mut (dyn ReadsBatches + 'static)>,
    late: &mut LateWindow,
) {
    let n = batch.records.len() as u64;
    if n == 0 && batch.sessions.is_empty() && batch.journal.is_empty() {
        return;
    }
    let oldest_us = batch.records.iter().map(|r| r.at_us).min();
    if let Some(oldest) = oldest_us.filter(|_| handed_us != u64::MAX) {
        st.handover_age.observe(handed_us.saturating_sub(oldest) as f64 / 1e6);
    }
    // The store writes each session's records as one part; the index is fed them in
    // that same order, as it would read them back from the file.
    batch.records.sort_by_key(|r| r.session);
    // Packs the packer has built go in a slice at a time, one slice with each commit.
    if sweeps.asked && sweeps.pending.is_none() {
        match sweeps.built.try_recv() {
            Ok(Ok(Some(packs))) => sweeps.pending = Some(packs),
            Ok(Ok(None)) => sweeps.asked = false,
            Ok(Err(e)) => {
                sweeps.asked = false;
                tracing::error!(code = e.code(), "building the record's packs failed (the tail waits for the next sweep): {e}");
            }
            Err(_) => {}
        }
    }
    if let Some(pending) = &mut sweeps.pending {
        let slice = pending.split_off(SLICE_FRAMES);
        if slice.complete {
            sweeps.pending = None;
        }
        batch.packs = Some(slice);
    }
    let t = Instant::now();
    batch.model_calls = super::model_journal::calls_of(&batch.records);
    match store.write_records(&batch) {
        Ok(id) => {
            if st.failing.swap(false, Ordering::Relaxed) {
                tracing::info!("recording works again");
            }
            st.committed.fetch_add(n, Ordering::Relaxed);
            st.batches.fetch_add(1, Ordering::Relaxed);
            // Durable now: an agent whose session ended may dream it.
            if let Some(d) = dream {
                d.committed(&batch);
            }
            if let Some(p) = &batch.packs {
                st.packed.fetch_add(p.sessions().unwrap_or(0), Ordering::Relaxed);
                // The sweep is done once its last slice is in.
                sweeps.asked &= !p.complete;
            }
            // Time for a sweep: the packer builds from what is durable now.
            sweeps.tail_records += n;
            if !sweeps.asked && (sweeps.last_sweep.elapsed() >= sweeps.every || sweeps.tail_records >= SWEEP_RECORDS) {
                sweeps.asked = sweeps.ask.send(()).is_ok();
                sweeps.last_sweep = Instant::now();
                sweeps.tail_records = 0;
            }
            if id > 0 {
                st.last_id.store(id, Ordering::Relaxed);
                st.watch.publish(&batch.records);
                if let Some(f) = feed {
                    f.committed(id, std::mem::take(&mut batch.records));
                }
            }
        }
        Err(e) => {
            // A sweep's slices are dropped with it: the tail keeps every row it was built
            // from, and the next build leaves out what earlier slices packed.
            if batch.packs.is_some() {
                sweeps.pending = None;
                sweeps.asked = false;
            }
            st.failures.fetch_add(1, Ordering::Relaxed);
            tracing::error!(code = e.code(), records = n, "recording a batch failed: {e}");
            {
                let mut last = st.last_error.lock().unwrap_or_else(|e| e.into_inner());
                let since = match (&*last, st.failing.load(Ordering::Relaxed)) {
                    (Some((since, _)), true) => *since,
                    _ => super::unix_us(),
                };
                *last = Some((since, format!("{e} ({})", e.code())));
            }
            st.failing.store(true, Ordering::Relaxed);
        }
    }
    let took = t.elapsed();
    if took.as_millis() >= 50 {
        tracing::warn!(
            ms = took.as_millis() as u64,
            records = n,
            sessions = batch.sessions.len(),
            frames = batch.packs.as_ref().map_or(0, |p| p.packs.len()),
            "slow record commit"
        );
    }
    st.commit_us.fetch_add(took.as_micros() as u64, Ordering::Relaxed);
    st.commit.observe_duration(took);
    st.batch.observe(n as f64);
    let end_us = super::unix_us();
    st.last_commit_end_us.store(end_us, Ordering::Relaxed);
    if oldest_us.is_some() && handed_us != u64::MAX {
        let lag = end_us.saturating_sub(handed_us);
        st.durable_lag.observe(lag as f64 / 1e6);
        if let Some(k) = late.add(lag > DURABLE_PROMISE_US) {
            st.late_recent.store(k as u64, Ordering::Relaxed);
        }
    }
    let left = st.backlog.fetch_sub(n, Ordering::Relaxed).saturating_sub(n);
    if left > 100_000 {
        tracing::warn!(backlog = left, "the recorder is falling behind the game");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawns_storage::RecordBody;

    /// Joining the recorder lets go of the store entirely, the packer's copy too, even
    /// with a build under way: otherwise the file stays locked, and a server stopped
    /// and started again on it is refused ("held by another process"), as CI once was.
    #[test]
    fn a_joined_recorder_holds_the_store_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.redb");
        let (store, _) = Store::open(&path).unwrap();
        let store = Arc::new(store);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        // Sweeps as often as can be, so the packer is likely mid-build at the end; and
        // again and again, as the race is with the packer thread's last wake-up.
        let mut written = 0u64;
        for run in 0..20u64 {
            let (rec, thread) = spawn_recorder(store.clone(), None, None, Duration::from_micros(1)).unwrap();
            for round in 0..10u64 {
                let items = (0..50u64)
                    .map(|i| {
                        let session = 1 + i % 5;
                        let text = format!("The cityguard waves at you ({run}, {round}, {i}).").into();
                        let body = RecordBody::Observation { event_type: "room".into(), text, from: None };
                        let seq = (run * 10 + round) * 10 + i / 5 + 1;
                        RecItem::Record(EventRecord { session, seq, agent: "ann".into(), at_us: 1_000 + seq, room_vnum: 3001, body })
                    })
                    .collect::<Vec<_>>();
                written += items.len() as u64;
                rec.send(items);
                rt.block_on(rec.flush());
            }
            assert!(rec.stats.packed.load(Ordering::Relaxed) > 0, "no sweep was applied");
            drop(rec);
            rt.block_on(thread.join());
            assert_eq!(Arc::strong_count(&store), 1, "a thread of the recorder still holds the store (run {run})");
        }
        let got: u64 = (1..=5).map(|s| store.session_records(s).unwrap().len() as u64).sum();
        assert_eq!(got, written);
        drop(store);
        Store::open(&path).expect("the file is free once the recorder is joined");
    }

    /// The promise counts from the engine's hand-over: records already 80 ms old when
    /// handed over (a decision waits for its pulse's end) commit on time, and their age
    /// at the hand-over is measured apart. Counted from the records' own time, every
    /// such commit was "late".
    #[test]
    fn the_promise_counts_from_the_hand_over() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path().join("p.redb")).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (rec, thread) = spawn_recorder(Arc::new(store), None, None, Duration::from_secs(60)).unwrap();
        for seq in 1..=5u64 {
            let at_us = crate::record::unix_us() - 80_000;
            let body = RecordBody::Observation { event_type: "room".into(), text: "A rat arrives.".into(), from: None };
            rec.send(vec![RecItem::Record(EventRecord { session: 1, seq, agent: "ann".into(), at_us, room_vnum: 3001, body })]);
            rt.block_on(rec.flush());
        }
        let (_, lag_sum, commits) = rec.stats.durable_lag.snapshot();
        let (_, age_sum, aged) = rec.stats.handover_age.snapshot();
        assert_eq!((commits, aged), (5, 5));
        assert!(lag_sum / 5.0 < 0.040, "commits took {lag_sum} s in all from the hand-over");
        assert!(age_sum / 5.0 >= 0.080, "records were {age_sum} s old in all at the hand-over");
        assert_eq!(rec.stats.late_recent.load(Ordering::Relaxed), 0);
        drop(rec);
        rt.block_on(thread.join());
    }
}

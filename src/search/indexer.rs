//! The indexer: a thread that follows the record log into the search index.
//!
//! It reads committed batches from redb (never from the engine), so it can fall behind
//! or crash without touching the record; on start it resumes from the batch its last
//! commit names. Every `every` (a few seconds) it commits what it read, so a record is
//! searchable at most one interval after it became durable.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pawns_storage::{EventRecord, Store};
use tantivy::IndexWriter;

use super::index::{SearchError, SearchIndex};

/// Default time between index commits.
pub const COMMIT_EVERY: Duration = Duration::from_secs(2);
/// Batches read from redb at a time.
const READ_BATCHES: usize = 256;
/// When the server stops, the indexer indexes at most this long more, commits, and
/// ends; the rest is read from the file at the next start.
pub const STOP_BUDGET: Duration = Duration::from_millis(1500);
/// During a long catch-up, commit every so many documents, so an interrupted rebuild
/// keeps what it did.
const CATCH_UP_COMMIT_DOCS: u64 = 200_000;

/// Counters for `/api/search/status`, metrics and the closing note.
#[derive(Default, Debug)]
pub struct IndexerStats {
    /// The last record batch searchable.
    pub indexed_batch: AtomicU64,
    /// Documents (commands) indexed since the server started.
    pub indexed_docs: AtomicU64,
    /// Records they held.
    pub indexed_records: AtomicU64,
    pub commits: AtomicU64,
    /// Index lag of the last commit: from the oldest record it made searchable happening
    /// to the commit, ms (max over that commit).
    pub last_lag_ms: AtomicU64,
    /// The largest such lag since start, ms.
    pub max_lag_ms: AtomicU64,
    /// Sum of per-record lags (ms) and how many, for the mean.
    pub lag_sum_ms: AtomicU64,
    pub lag_count: AtomicU64,
    /// While a rebuild runs: the batch it must reach (0 otherwise).
    pub rebuild_target: AtomicU64,
    pub failures: AtomicU64,
    /// Batches read back from the data file rather than handed over by the recorder (a
    /// dropped hand-off, a start behind the log, a rebuild): each is decoded again.
    pub read_back: AtomicU64,
}

enum IndexMsg {
    /// Retention dropped observations before this unix µs from the record.
    Forget(u64),
    /// Start over from the first batch.
    Rebuild,
    /// Catch up, commit and end.
    Stop,
}

/// Batches held in memory for the indexer at most, and their records: beyond either
/// the recorder's hand-offs are dropped and the indexer reads those batches back from
/// the file. The indexer takes them every `--index-every` (2 s): a busy recorder commits
/// 25-40 batches a second, and the old bound of 64 batches dropped hand-offs at 10,000
/// agents, each then read and decoded again. The records bound keeps a stalled indexer
/// from holding more than a few seconds of a crowd's records.
const FEED_DEPTH: usize = 4096;
const FEED_RECORDS: usize = 400_000;

/// The recorder's side: hands each committed batch to the indexer without waiting and
/// without the indexer having to read and decode it back from redb. Losing one (queue
/// full, indexer rebuilding) costs nothing but a read: the file is the source of truth.
pub struct IndexFeed(mpsc::SyncSender<(u64, Vec<EventRecord>)>, Arc<AtomicUsize>);

impl crate::record::recorder::TakesRecords for IndexFeed {
    fn committed(&self, batch: u64, records: Vec<EventRecord>) {
        let n = records.len();
        if self.1.load(Ordering::Relaxed) + n > FEED_RECORDS {
            return;
        }
        self.1.fetch_add(n, Ordering::Relaxed);
        if self.0.try_send((batch, records)).is_err() {
            self.1.fetch_sub(n, Ordering::Relaxed);
        }
    }
}

#[derive(Clone)]
pub struct IndexerHandle {
    tx: mpsc::Sender<IndexMsg>,
    pub index: Arc<SearchIndex>,
    pub stats: Arc<IndexerStats>,
}

impl IndexerHandle {
    pub fn forget_observations_before(&self, before_us: u64) {
        let _ = self.tx.send(IndexMsg::Forget(before_us));
    }

    pub fn rebuild(&self) {
        let _ = self.tx.send(IndexMsg::Rebuild);
    }

    pub fn stop(&self) {
        let _ = self.tx.send(IndexMsg::Stop);
    }
}

/// The indexer's thread; it ends (after catching up and a last commit) when told to
/// stop or when every handle is dropped.
pub struct IndexerThread(Option<std::thread::JoinHandle<()>>);

impl IndexerThread {
    pub async fn join(mut self) {
        if let Some(t) = self.0.take() {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
    }
}

/// Opens the index next to the store's file and starts following the record.
pub fn spawn_indexer(store: Arc<Store>, every: Duration) -> Result<(IndexerHandle, IndexFeed, IndexerThread), SearchError> {
    let (index, fresh) = SearchIndex::open(&super::index_dir(store.path()))?;
    let index = Arc::new(index);
    let stats = Arc::new(IndexerStats::default());
    stats.indexed_batch.store(index.watermark(), Ordering::Relaxed);
    if fresh {
        tracing::info!(dir = %index.dir().display(), "search index created; indexing the record from the start");
    }
    let (tx, rx) = mpsc::channel();
    let (feed_tx, feed_rx) = mpsc::sync_channel(FEED_DEPTH);
    let fed = Arc::new(AtomicUsize::new(0));
    let fed_here = fed.clone();
    let (ix, st) = (index.clone(), stats.clone());
    let (ready_tx, ready_rx) = mpsc::sync_channel(1);
    let thread = std::thread::Builder::new().name("pawns-indexer".into()).spawn(move || {
        // The writer is made here so that tantivy's own threads (merges, segment
        // updates), which it starts, inherit this thread's lower priority.
        crate::priority::record_thread();
        let writer = match ix.writer() {
            Ok(w) => w,
            Err(e) => {
                let _ = ready_tx.send(Err(e));
                return;
            }
        };
        let _ = ready_tx.send(Ok(()));
        run(Source { store, feed: feed_rx, fed: fed_here }, ix, writer, rx, st, every)
    })?;
    let started = ready_rx.recv().map_err(|_| std::io::Error::other("the indexer thread ended before opening its writer"));
    started??;
    Ok((IndexerHandle { tx, index, stats }, IndexFeed(feed_tx, fed), IndexerThread(Some(thread))))
}

/// Where the indexer reads: batches the recorder handed over, else the file.
struct Source {
    store: Arc<Store>,
    feed: mpsc::Receiver<(u64, Vec<EventRecord>)>,
    /// Records waiting in `feed`.
    fed: Arc<AtomicUsize>,
}

fn run(src: Source, ix: Arc<SearchIndex>, mut w: IndexWriter, rx: mpsc::Receiver<IndexMsg>, st: Arc<IndexerStats>, every: Duration) {
    let mut at = ix.watermark();
    let mut dirty = false;
    let mut next = Instant::now();
    loop {
        let wait = next.saturating_duration_since(Instant::now());
        let stop = match rx.recv_timeout(wait) {
            Ok(IndexMsg::Forget(before_us)) => {
                dirty |= ix.forget_observations_before(&w, before_us).is_ok();
                continue;
            }
            Ok(IndexMsg::Rebuild) => {
                if w.delete_all_documents().is_ok() {
                    ix.forget_open();
                    at = 0;
                    dirty = true;
                    st.rebuild_target.store(src.store.last_record_id().unwrap_or(0).max(1), Ordering::Relaxed);
                }
                false
            }
            Err(RecvTimeoutError::Timeout) => false,
            Ok(IndexMsg::Stop) | Err(RecvTimeoutError::Disconnected) => true,
        };
        let deadline = stop.then(|| Instant::now() + STOP_BUDGET);
        match step(&src, &ix, &mut w, &mut at, &mut dirty, &st, deadline) {
            Ok(()) => {}
            Err(e) => {
                st.failures.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(code = e.code(), "search indexing failed: {e}; retrying");
                // Start again from what the index committed.
                let _ = w.rollback();
                ix.forget_open();
                at = ix.watermark();
            }
        }
        if stop {
            break;
        }
        next = Instant::now() + every;
    }
    let _ = w.wait_merging_threads();
}

/// Adds every batch committed after `at` (handed over, or read from the file when one
/// is missing), commits.
fn step(
    src: &Source,
    ix: &SearchIndex,
    w: &mut IndexWriter,
    at: &mut u64,
    dirty: &mut bool,
    st: &IndexerStats,
    deadline: Option<Instant>,
) -> Result<(), SearchError> {
    let mut oldest_us = u64::MAX;
    let mut times: Vec<u64> = Vec::new();
    let mut seen = |r: &EventRecord| {
        oldest_us = oldest_us.min(r.at_us);
        times.push(r.at_us);
    };
    let mut added = 0;
    while deadline.is_none_or(|d| Instant::now() < d) {
        let Ok((batch, records)) = src.feed.try_recv() else { break };
        src.fed.fetch_sub(records.len(), Ordering::Relaxed);
        if batch <= *at {
            continue;
        }
        if batch > *at + 1 {
            // A gap (a hand-off was dropped): the file has everything up to here and more.
            let from = *at;
            added += catch_up(&src.store, ix, w, at, deadline, &mut |_, _| {}, &mut seen)?;
            st.read_back.fetch_add(*at - from, Ordering::Relaxed);
            continue;
        }
        ix.add_records(w, &records)?;
        records.iter().for_each(&mut seen);
        added += records.len() as u64;
        *at = batch;
    }
    let from = *at;
    added += catch_up(&src.store, ix, w, at, deadline, &mut |_, _| {}, &mut seen)?;
    st.read_back.fetch_add(*at - from, Ordering::Relaxed);
    if added == 0 && !*dirty {
        return Ok(());
    }
    ix.commit(w, *at)?;
    *dirty = false;
    let now = crate::record::unix_us();
    st.indexed_batch.store(*at, Ordering::Relaxed);
    st.indexed_records.fetch_add(added, Ordering::Relaxed);
    st.indexed_docs.store(ix.added_docs(), Ordering::Relaxed);
    st.commits.fetch_add(1, Ordering::Relaxed);
    if st.rebuild_target.load(Ordering::Relaxed) <= *at {
        st.rebuild_target.store(0, Ordering::Relaxed);
    }
    if oldest_us != u64::MAX {
        let lag = now.saturating_sub(oldest_us) / 1000;
        st.last_lag_ms.store(lag, Ordering::Relaxed);
        st.max_lag_ms.fetch_max(lag, Ordering::Relaxed);
        st.lag_sum_ms.fetch_add(times.iter().map(|t| now.saturating_sub(*t) / 1000).sum::<u64>(), Ordering::Relaxed);
        st.lag_count.fetch_add(times.len() as u64, Ordering::Relaxed);
    }
    Ok(())
}

/// Adds every record committed after batch `*at` (moving `*at` along), committing on
/// the way during long runs, until the end of the log or `deadline`. `progress(done, last)` is told the batch reached;
/// `seen` sees each record. Returns the records added.
pub fn catch_up(
    store: &Store,
    ix: &SearchIndex,
    w: &mut IndexWriter,
    at: &mut u64,
    deadline: Option<Instant>,
    progress: &mut dyn FnMut(u64, u64),
    seen: &mut dyn FnMut(&pawns_storage::EventRecord),
) -> Result<u64, SearchError> {
    let last = store.last_record_id().map_err(|e| SearchError::Io(std::io::Error::other(e.to_string())))?;
    let mut added = 0u64;
    let mut since_commit = 0u64;
    while *at < last && deadline.is_none_or(|d| Instant::now() < d) {
        let batches = store.batches_after(*at, READ_BATCHES).map_err(|e| SearchError::Io(std::io::Error::other(e.to_string())))?;
        let Some(&(end, _)) = batches.last() else { break };
        for (_, records) in &batches {
            ix.add_records(w, records)?;
            records.iter().for_each(&mut *seen);
            added += records.len() as u64;
            since_commit += records.len() as u64;
        }
        *at = end;
        progress(*at, last);
        if since_commit >= CATCH_UP_COMMIT_DOCS {
            ix.commit(w, *at)?;
            since_commit = 0;
        }
    }
    Ok(added)
}

//! The recorder: the engine hands it records without waiting; it commits them to redb
//! in group commits. While one commit runs, the next batch gathers; each batch is one
//! write transaction. A record is durable once its batch commits — normally within a
//! few milliseconds of being emitted, and the loop never sits on records longer than
//! `MAX_GATHER` before starting a commit.
//!
//! The queue is unbounded so the engine never blocks or drops a record; its length is
//! counted (`RecorderStats::backlog`) and logged when it grows, which is the signal that
//! the disk is not keeping up.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pawns_storage::{EventRecord, RecordBatch, SessionMeta, Store};
use tokio::sync::{mpsc, oneshot};

/// Longest a record waits for company before its batch starts committing.
pub const MAX_GATHER: Duration = Duration::from_millis(5);
/// Most records in one transaction (a bigger backlog commits in several).
const MAX_BATCH: usize = 20_000;

enum RecMsg {
    Record(Box<EventRecord>),
    Session(Box<SessionMeta>),
    /// Resolves once everything sent before it is committed.
    Flush(oneshot::Sender<()>),
}

/// Counters for `/metrics`, the bench and the closing note.
#[derive(Default, Debug)]
pub struct RecorderStats {
    pub committed: AtomicU64,
    pub batches: AtomicU64,
    /// Records handed over but not yet committed.
    pub backlog: AtomicU64,
    /// The last global record id committed (what the search index follows).
    pub last_id: AtomicU64,
    /// Total time spent in commits, µs.
    pub commit_us: AtomicU64,
    pub failures: AtomicU64,
}

#[derive(Clone)]
pub struct RecorderHandle {
    tx: mpsc::UnboundedSender<RecMsg>,
    pub stats: Arc<RecorderStats>,
}

impl RecorderHandle {
    pub fn record(&self, r: EventRecord) {
        self.stats.backlog.fetch_add(1, Ordering::Relaxed);
        if self.tx.send(RecMsg::Record(Box::new(r))).is_err() {
            self.stats.backlog.fetch_sub(1, Ordering::Relaxed);
        }
    }

    pub fn session(&self, s: SessionMeta) {
        let _ = self.tx.send(RecMsg::Session(Box::new(s)));
    }

    /// Waits until everything recorded so far is committed.
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(RecMsg::Flush(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// Starts the recorder; it ends (after a last commit) when every handle is dropped.
pub fn spawn_recorder(store: Arc<Store>) -> (RecorderHandle, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<RecMsg>();
    let stats = Arc::new(RecorderStats::default());
    if let Ok(id) = store.last_record_id() {
        stats.last_id.store(id, Ordering::Relaxed);
    }
    let st = stats.clone();
    let handle = tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            let mut batch = RecordBatch::default();
            let mut flushes = Vec::new();
            let started = Instant::now();
            let mut next = Some(first);
            loop {
                while let Some(msg) = next.take() {
                    match msg {
                        RecMsg::Record(r) => batch.records.push(*r),
                        // A later version of the same session replaces the earlier one.
                        RecMsg::Session(s) => {
                            batch.sessions.retain(|x| x.session != s.session);
                            batch.sessions.push(*s);
                        }
                        RecMsg::Flush(done) => flushes.push(done),
                    }
                    if batch.records.len() >= MAX_BATCH {
                        break;
                    }
                    next = rx.try_recv().ok();
                }
                if batch.records.len() >= MAX_BATCH || started.elapsed() >= MAX_GATHER || !flushes.is_empty() {
                    break;
                }
                // Give the engine a moment to add to this batch (group commit).
                match tokio::time::timeout(MAX_GATHER.saturating_sub(started.elapsed()), rx.recv()).await {
                    Ok(Some(m)) => next = Some(m),
                    _ => break,
                }
            }
            let n = batch.records.len() as u64;
            if n > 0 || !batch.sessions.is_empty() {
                let store = store.clone();
                let t = Instant::now();
                match tokio::task::spawn_blocking(move || store.write_records(&batch)).await {
                    Ok(Ok(last)) => {
                        st.committed.fetch_add(n, Ordering::Relaxed);
                        st.batches.fetch_add(1, Ordering::Relaxed);
                        if last > 0 {
                            st.last_id.store(last, Ordering::Relaxed);
                        }
                    }
                    Ok(Err(e)) => {
                        st.failures.fetch_add(1, Ordering::Relaxed);
                        tracing::error!(code = e.code(), records = n, "recording a batch failed: {e}");
                    }
                    Err(e) => {
                        st.failures.fetch_add(1, Ordering::Relaxed);
                        tracing::error!("recorder task failed: {e}");
                    }
                }
                st.commit_us.fetch_add(t.elapsed().as_micros() as u64, Ordering::Relaxed);
                let left = st.backlog.fetch_sub(n, Ordering::Relaxed).saturating_sub(n);
                if left > 100_000 {
                    tracing::warn!(backlog = left, "the recorder is falling behind the game");
                }
            }
            for f in flushes {
                let _ = f.send(());
            }
        }
    });
    (RecorderHandle { tx, stats }, handle)
}

//! The dreamer: a thread of its own that dreams agents one at a time, so neither the
//! engine nor the async threads ever wait for a dream. It is told to dream by the
//! recorder (an agent's session ended — after that session's last batch is durable — or
//! its records since the last dream passed the size threshold), by the daily schedule,
//! and by the admin API. Requests for the same agent waiting in the queue are one dream.
//!
//! Stopping drops what is queued and cancels the dream in progress between sessions:
//! dreams are idempotent and run again at the next trigger, so a server with a backlog
//! of thousands stops at once.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use pawns_storage::{RecordBatch, Store};
use rustc_hash::FxHashMap;
use tokio::sync::oneshot;

use super::dream::{dream_agent_in, SharedLog};
use super::{DreamOptions, DreamResult, MemoryError};

/// Records since the last dream that make an agent dream again, by default.
pub const DEFAULT_THRESHOLD: u64 = 5_000;

/// Why the dreamer did not dream: typed, so callers match variants, not text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DreamError {
    #[error("no such agent: {0}")]
    NoAgent(String),
    /// The dreamer has stopped (or was stopping and dropped the request).
    #[error("the dreamer has stopped")]
    Stopped,
    #[error("{message}")]
    Failed { code: &'static str, message: String },
}

impl DreamError {
    pub fn code(&self) -> &'static str {
        match self {
            DreamError::NoAgent(_) => "no_such_agent",
            DreamError::Stopped => "dreamer_stopped",
            DreamError::Failed { code, .. } => code,
        }
    }
}

impl From<MemoryError> for DreamError {
    fn from(e: MemoryError) -> Self {
        match e {
            MemoryError::NoAgent(a) => DreamError::NoAgent(a),
            MemoryError::Cancelled => DreamError::Stopped,
            other => DreamError::Failed { code: other.code(), message: other.to_string() },
        }
    }
}

type Reply = oneshot::Sender<Result<DreamResult, DreamError>>;

pub enum DreamMsg {
    /// Dream one agent (`reply`: the result, or (code, message)).
    Dream {
        agent: String,
        trigger: String,
        reply: Option<Reply>,
    },
    /// Dream every agent with something new (the daily schedule, `dream --all`).
    All {
        trigger: String,
        reply: Option<oneshot::Sender<Vec<DreamResult>>>,
    },
    Stop,
}

#[derive(Debug)]
pub struct DreamerStats {
    pub dreams: AtomicU64,
    pub failures: AtomicU64,
    pub events: AtomicU64,
    /// The last dream's duration, µs.
    pub last_us: AtomicU64,
    /// Requests sent and not yet dreamed or dropped (coalesced ones included).
    pub queued: AtomicU64,
    /// Requests dropped because the server stopped.
    pub dropped: AtomicU64,
    /// Each dream's duration.
    pub took: crate::game::run::histogram::Histogram,
}

impl Default for DreamerStats {
    fn default() -> Self {
        DreamerStats {
            dreams: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            events: AtomicU64::new(0),
            last_us: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            took: crate::game::run::histogram::Histogram::seconds(),
        }
    }
}

#[derive(Clone)]
pub struct DreamerHandle {
    tx: mpsc::Sender<DreamMsg>,
    pub stats: Arc<DreamerStats>,
}

impl DreamerHandle {
    /// Asks for a dream without waiting for it.
    pub fn request(&self, agent: &str, trigger: &str) {
        self.send(DreamMsg::Dream { agent: agent.to_ascii_lowercase(), trigger: trigger.into(), reply: None });
    }

    /// Dreams one agent and waits for the result.
    pub async fn dream(&self, agent: &str, trigger: &str) -> Result<DreamResult, DreamError> {
        let (tx, rx) = oneshot::channel();
        if !self.send(DreamMsg::Dream { agent: agent.to_ascii_lowercase(), trigger: trigger.into(), reply: Some(tx) }) {
            return Err(DreamError::Stopped);
        }
        rx.await.unwrap_or(Err(DreamError::Stopped))
    }

    /// Dreams every agent with something new and waits.
    pub async fn dream_all(&self, trigger: &str) -> Vec<DreamResult> {
        let (tx, rx) = oneshot::channel();
        if !self.send(DreamMsg::All { trigger: trigger.into(), reply: Some(tx) }) {
            return Vec::new();
        }
        rx.await.unwrap_or_default()
    }

    pub fn request_all(&self, trigger: &str) {
        self.send(DreamMsg::All { trigger: trigger.into(), reply: None });
    }

    fn send(&self, msg: DreamMsg) -> bool {
        self.stats.queued.fetch_add(1, Ordering::Relaxed);
        let sent = self.tx.send(msg).is_ok();
        if !sent {
            self.stats.queued.fetch_sub(1, Ordering::Relaxed);
        }
        sent
    }
}

pub struct DreamerThread {
    tx: mpsc::Sender<DreamMsg>,
    stopping: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl DreamerThread {
    /// Tells the dreamer to stop dreaming now (what is queued is dropped as it comes
    /// up); `stop` joins it.
    pub fn cancel(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        let _ = self.tx.send(DreamMsg::Stop);
    }

    /// Stops the dreamer: the dream in progress is cancelled between sessions, what is
    /// queued is dropped (its callers get `Stopped`), and the thread is joined.
    pub fn stop(mut self) {
        self.stopping.store(true, Ordering::Relaxed);
        let _ = self.tx.send(DreamMsg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What the recorder tells the dreamer, after each commit.
pub struct DreamFeed {
    dreamer: DreamerHandle,
    threshold: u64,
    /// Running agent sessions → the agent.
    sessions: FxHashMap<u64, String>,
    /// Records committed since the agent's last requested dream.
    pending: FxHashMap<String, u64>,
}

impl crate::record::recorder::ReadsBatches for DreamFeed {
    /// A committed batch: agents whose session ended dream (logout); agents past the
    /// threshold dream (threshold).
    fn committed(&mut self, batch: &RecordBatch) {
        for s in batch.sessions.iter().filter(|s| s.is_agent) {
            self.sessions.entry(s.session).or_insert_with(|| s.agent.clone());
        }
        // The recorder hands records over grouped by session: one look-up per session's
        // run, not per record.
        let mut over: Vec<String> = Vec::new();
        for run in batch.records.chunk_by(|a, b| a.session == b.session) {
            let Some(agent) = self.sessions.get(&run[0].session) else { continue };
            let n = match self.pending.get_mut(agent.as_str()) {
                Some(n) => {
                    *n += run.len() as u64;
                    *n
                }
                None => *self.pending.entry(agent.clone()).or_insert(head_start(agent, self.threshold) + run.len() as u64),
            };
            if n >= self.threshold {
                over.push(agent.clone());
            }
        }
        for s in batch.sessions.iter().filter(|s| s.is_agent && s.ended_us.is_some()) {
            self.sessions.remove(&s.session);
            self.pending.remove(&s.agent);
            self.dreamer.request(&s.agent, "logout");
        }
        // An agent whose session just ended dreams for its logout, not twice.
        for a in over {
            if self.pending.remove(&a).is_some() {
                self.dreamer.request(&a, "threshold");
            }
        }
    }
}

/// Records an agent's count starts with after each dream it asks for: up to a quarter
/// of the threshold, fixed per agent (a hash of its name). Agents that log in together
/// (a restart, a fleet) would otherwise pass the threshold together, dream by the
/// hundred in one wave (a third of a core for minutes at 1,000 agents) and do it again
/// each time round; with head starts the first wave spreads over a quarter of the
/// period, and the periods differ, so later ones drift apart.
fn head_start(agent: &str, threshold: u64) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    agent.hash(&mut h);
    // FxHash's high bits are its well-mixed ones.
    (h.finish() >> 32) % (threshold / 4).max(1)
}

/// How long the dreamer waits for more requests when all it has are threshold dreams
/// (nobody waits for them): the dreams of one pass share a reader of the record, which
/// decompresses the record's tail once (10 s of every session's records). One by one, a
/// wave of threshold dreams decompressed it once each: most of a dream's CPU live.
const GATHER: std::time::Duration = std::time::Duration::from_secs(2);
/// At most this many requests in a pass.
const GATHER_MAX: usize = 256;

/// Adds to `queue` what arrives within `wait`, while it holds only threshold dreams and
/// fewer than `GATHER_MAX` requests; anything else (a logout, a caller waiting, the
/// daily dream, a stop) ends the wait at once.
fn gather(rx: &mpsc::Receiver<DreamMsg>, queue: &mut Vec<DreamMsg>, wait: std::time::Duration) {
    let only_thresholds =
        |q: &[DreamMsg]| q.iter().all(|m| matches!(m, DreamMsg::Dream { trigger, reply: None, .. } if trigger == "threshold"));
    let until = std::time::Instant::now() + wait;
    while only_thresholds(queue) && queue.len() < GATHER_MAX {
        let Some(left) = until.checked_duration_since(std::time::Instant::now()) else { break };
        match rx.recv_timeout(left) {
            Ok(m) => queue.push(m),
            Err(_) => break,
        }
    }
}

/// Starts the dreamer thread.
pub fn spawn_dreamer(store: Arc<Store>, opts: DreamOptions, threshold: u64) -> std::io::Result<(DreamerHandle, DreamFeed, DreamerThread)> {
    let (tx, rx) = mpsc::channel();
    let stats = Arc::new(DreamerStats::default());
    let handle = DreamerHandle { tx: tx.clone(), stats: stats.clone() };
    let stopping = Arc::new(AtomicBool::new(false));
    let opts = DreamOptions { cancel: Some(stopping.clone()), ..opts };
    let thread = std::thread::Builder::new().name("pawns-dreamer".into()).spawn(move || {
        crate::priority::record_thread();
        run(store, opts, rx, stats)
    })?;
    let feed =
        DreamFeed { dreamer: handle.clone(), threshold: threshold.max(1), sessions: FxHashMap::default(), pending: FxHashMap::default() };
    Ok((handle, feed, DreamerThread { tx, stopping, thread: Some(thread) }))
}

fn run(store: Arc<Store>, opts: DreamOptions, rx: mpsc::Receiver<DreamMsg>, stats: Arc<DreamerStats>) {
    let stopping = || opts.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
    let done = |n: u64| {
        let _ = stats.queued.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |q| Some(q.saturating_sub(n)));
    };
    loop {
        let Ok(first) = rx.recv() else { break };
        // Everything queued now, in order; one dream per agent.
        let mut queue: Vec<DreamMsg> = vec![first];
        while let Ok(m) = rx.try_recv() {
            queue.push(m);
        }
        gather(&rx, &mut queue, GATHER);
        let mut agents: Vec<(String, String, Vec<Reply>, u64)> = Vec::new();
        let mut alls = Vec::new();
        for m in queue {
            match m {
                DreamMsg::Dream { agent, trigger, reply } => match agents.iter_mut().find(|(a, ..)| *a == agent) {
                    Some((_, _, replies, n)) => {
                        replies.extend(reply);
                        *n += 1;
                    }
                    None => agents.push((agent, trigger, reply.into_iter().collect(), 1)),
                },
                DreamMsg::All { trigger, reply } => alls.push((trigger, reply)),
                DreamMsg::Stop => {}
            }
        }
        let mut log = SharedLog::default();
        for (agent, trigger, replies, n) in agents {
            let r = if stopping() {
                stats.dropped.fetch_add(n, Ordering::Relaxed);
                Err(DreamError::Stopped)
            } else {
                one(&store, &mut log, &opts, &agent, &trigger, &stats)
            };
            done(n);
            for reply in replies {
                let _ = reply.send(r.clone());
            }
        }
        for (trigger, reply) in alls {
            let mut results = Vec::new();
            for agent in agents_to_dream(&store) {
                if stopping() {
                    break;
                }
                if let Ok(r) = one(&store, &mut log, &opts, &agent, &trigger, &stats) {
                    if r.events_extracted > 0 || r.records_read > 0 {
                        results.push(r);
                    }
                }
            }
            done(1);
            tracing::info!(trigger = %trigger, agents = results.len(), "dreamed every agent with something new");
            if let Some(reply) = reply {
                let _ = reply.send(results);
            }
        }
        if stopping() {
            let dropped = stats.dropped.load(Ordering::Relaxed);
            if dropped > 0 {
                tracing::info!(dropped, "the dreamer stopped; queued dreams run again at their next trigger");
            }
            break;
        }
    }
}

/// Agents (not humans) with a recorded session.
pub fn agents_to_dream(store: &Store) -> Vec<String> {
    store
        .recorded_agents()
        .unwrap_or_default()
        .into_iter()
        .filter(|a| store.character(a).ok().flatten().is_some_and(|c| c.is_agent))
        .collect()
}

fn one(
    store: &Store,
    log: &mut SharedLog,
    opts: &DreamOptions,
    agent: &str,
    trigger: &str,
    stats: &DreamerStats,
) -> Result<DreamResult, DreamError> {
    let o = DreamOptions { trigger: trigger.to_string(), ..opts.clone() };
    let dreamt = log.get(store).map_err(MemoryError::from).and_then(|reader| dream_agent_in(store, reader, agent, &o));
    // A long dream (an LLM's chronicle) must not keep the file's freed pages past it.
    log.release_if_old();
    match dreamt {
        Ok(r) => {
            stats.dreams.fetch_add(1, Ordering::Relaxed);
            stats.events.fetch_add(r.events_extracted as u64, Ordering::Relaxed);
            stats.last_us.store((r.elapsed_ms * 1000.0) as u64, Ordering::Relaxed);
            stats.took.observe(r.elapsed_ms / 1000.0);
            if r.records_read > 0 {
                tracing::info!(
                    agent = %agent, trigger = %trigger, records = r.records_read, events = r.events_extracted,
                    nodes = r.nodes_after, pruned = r.pruned, tokens = r.summary_tokens, ms = r.elapsed_ms, "dreamed"
                );
            }
            Ok(r)
        }
        Err(MemoryError::Cancelled) => {
            stats.dropped.fetch_add(1, Ordering::Relaxed);
            Err(DreamError::Stopped)
        }
        Err(e) => {
            stats.failures.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(agent = %agent, trigger = %trigger, code = e.code(), "dream failed: {e}");
            Err(e.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::recorder::ReadsBatches;
    use pawns_storage::{EventRecord, RecordBody, SessionMeta};

    fn feed(threshold: u64) -> (DreamFeed, mpsc::Receiver<DreamMsg>) {
        let (tx, rx) = mpsc::channel();
        let dreamer = DreamerHandle { tx, stats: Arc::default() };
        (DreamFeed { dreamer, threshold, sessions: FxHashMap::default(), pending: FxHashMap::default() }, rx)
    }

    fn record(session: u64, agent: &str) -> EventRecord {
        let body = RecordBody::Observation { event_type: "room".into(), text: "x".into(), from: None };
        EventRecord { session, seq: 0, agent: agent.into(), at_us: 0, room_vnum: 0, body }
    }

    fn requests(rx: &mpsc::Receiver<DreamMsg>) -> Vec<(String, String)> {
        rx.try_iter()
            .filter_map(|m| match m {
                DreamMsg::Dream { agent, trigger, .. } => Some((agent, trigger)),
                _ => None,
            })
            .collect()
    }

    /// A fleet that logs in together does not pass the threshold together: each agent
    /// dreams after between three quarters of the threshold and the whole of it, at a
    /// point of its own that its next dreams keep, and a logout is a dream of its own.
    #[test]
    fn agents_that_start_together_dream_apart() {
        let threshold = 400;
        let (mut f, rx) = feed(threshold);
        let agents: Vec<String> = (0..200).map(|i| format!("bench{i}")).collect();
        let sessions: Vec<SessionMeta> = agents
            .iter()
            .enumerate()
            .map(|(i, a)| SessionMeta { session: i as u64 + 1, agent: a.clone(), is_agent: true, ..Default::default() })
            .collect();
        f.committed(&RecordBatch { sessions: sessions.clone(), ..Default::default() });
        // One record per agent per batch, for three thresholds' worth.
        let mut dreamt_at: FxHashMap<String, Vec<u64>> = FxHashMap::default();
        for b in 1..=3 * threshold {
            let records = sessions.iter().map(|s| record(s.session, &s.agent)).collect();
            f.committed(&RecordBatch { records, ..Default::default() });
            for (a, trigger) in requests(&rx) {
                assert_eq!(trigger, "threshold");
                dreamt_at.entry(a).or_default().push(b);
            }
        }
        let mut firsts: Vec<u64> = Vec::new();
        for a in &agents {
            let at = &dreamt_at[a];
            assert!(at.len() >= 3, "{a}: {at:?}");
            let period = at[0];
            assert!((threshold * 3 / 4 + 1..=threshold).contains(&period), "{a} dreamt after {period} records");
            assert!(at.windows(2).all(|w| w[1] - w[0] == period), "{a} keeps its period: {at:?}");
            assert_eq!(period, threshold - head_start(a, threshold));
            firsts.push(period);
        }
        firsts.sort_unstable();
        firsts.dedup();
        assert!(firsts.len() > 50, "200 agents spread over {} points only", firsts.len());
        // A logout dreams once, as a logout; the count starts over.
        let mut ended = sessions[0].clone();
        ended.ended_us = Some(1);
        f.committed(&RecordBatch { sessions: vec![ended], records: vec![record(1, &agents[0])], ..Default::default() });
        assert_eq!(requests(&rx), [(agents[0].clone(), "logout".to_string())]);
        assert!(!f.pending.contains_key(&agents[0]));
    }

    /// Threshold dreams wait to be many; anything else is served at once, with what
    /// gathered before it.
    #[test]
    fn threshold_dreams_gather_and_anything_else_ends_the_wait() {
        let dream = |agent: &str, trigger: &str| DreamMsg::Dream { agent: agent.into(), trigger: trigger.into(), reply: None };
        let (tx, rx) = mpsc::channel();
        let long = std::time::Duration::from_secs(30);
        // Thresholds arriving meanwhile join the pass; a logout ends the wait.
        let sender = {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for i in 0..3 {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    tx.send(dream(&format!("a{i}"), "threshold")).unwrap();
                }
                tx.send(dream("b", "logout")).unwrap();
            })
        };
        let started = std::time::Instant::now();
        let mut queue = vec![dream("first", "threshold")];
        gather(&rx, &mut queue, long);
        sender.join().unwrap();
        assert!(started.elapsed() < long / 2);
        let agents: Vec<&str> = queue.iter().map(|m| if let DreamMsg::Dream { agent, .. } = m { agent.as_str() } else { "?" }).collect();
        assert_eq!(agents, ["first", "a0", "a1", "a2", "b"]);
        // A logout, a stop or the daily dream already in the queue: no wait at all.
        for m in [dream("c", "logout"), DreamMsg::Stop, DreamMsg::All { trigger: "schedule".into(), reply: None }] {
            let started = std::time::Instant::now();
            let mut queue = vec![dream("x", "threshold"), m];
            gather(&rx, &mut queue, long);
            assert_eq!(queue.len(), 2);
            assert!(started.elapsed() < long / 2);
        }
        // Nothing more comes: the wait ends at its time, and a full pass does not wait.
        let mut queue = vec![dream("y", "threshold")];
        gather(&rx, &mut queue, std::time::Duration::from_millis(30));
        assert_eq!(queue.len(), 1);
        let mut full: Vec<DreamMsg> = (0..GATHER_MAX).map(|i| dream(&format!("f{i}"), "threshold")).collect();
        let started = std::time::Instant::now();
        gather(&rx, &mut full, long);
        assert!(started.elapsed() < long / 2);
        drop(tx);
    }

    #[test]
    fn a_threshold_of_one_dreams_every_record() {
        let (mut f, rx) = feed(1);
        let s = SessionMeta { session: 7, agent: "wren".into(), is_agent: true, ..Default::default() };
        f.committed(&RecordBatch { sessions: vec![s], records: vec![record(7, "wren")], ..Default::default() });
        f.committed(&RecordBatch { records: vec![record(7, "wren")], ..Default::default() });
        assert_eq!(requests(&rx).len(), 2);
    }
}

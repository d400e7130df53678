//! The dreamer: a thread of its own that dreams agents one at a time, so neither the
//! engine nor the async threads ever wait for a dream. It is told to dream by the
//! recorder (an agent's session ended — after that session's last batch is durable — or
//! its records since the last dream passed the size threshold), by the daily schedule,
//! and by the admin API. Requests for the same agent waiting in the queue are one dream.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use pawns_storage::{RecordBatch, Store};
use tokio::sync::oneshot;

use super::{dream_agent, DreamOptions, DreamResult};

/// Records since the last dream that make an agent dream again, by default.
pub const DEFAULT_THRESHOLD: u64 = 5_000;

type Reply = oneshot::Sender<Result<DreamResult, (String, String)>>;

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

#[derive(Default, Debug)]
pub struct DreamerStats {
    pub dreams: AtomicU64,
    pub failures: AtomicU64,
    pub events: AtomicU64,
    /// The last dream's duration, µs.
    pub last_us: AtomicU64,
}

#[derive(Clone)]
pub struct DreamerHandle {
    tx: mpsc::Sender<DreamMsg>,
    pub stats: Arc<DreamerStats>,
}

impl DreamerHandle {
    /// Asks for a dream without waiting for it.
    pub fn request(&self, agent: &str, trigger: &str) {
        let _ = self.tx.send(DreamMsg::Dream { agent: agent.to_ascii_lowercase(), trigger: trigger.into(), reply: None });
    }

    /// Dreams one agent and waits for the result.
    pub async fn dream(&self, agent: &str, trigger: &str) -> Result<DreamResult, (String, String)> {
        let (tx, rx) = oneshot::channel();
        let msg = DreamMsg::Dream { agent: agent.to_ascii_lowercase(), trigger: trigger.into(), reply: Some(tx) };
        if self.tx.send(msg).is_err() {
            return Err(("dreamer_stopped".into(), "the dreamer has stopped".into()));
        }
        rx.await.unwrap_or_else(|_| Err(("dreamer_stopped".into(), "the dreamer has stopped".into())))
    }

    /// Dreams every agent with something new and waits.
    pub async fn dream_all(&self, trigger: &str) -> Vec<DreamResult> {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(DreamMsg::All { trigger: trigger.into(), reply: Some(tx) }).is_err() {
            return Vec::new();
        }
        rx.await.unwrap_or_default()
    }

    pub fn request_all(&self, trigger: &str) {
        let _ = self.tx.send(DreamMsg::All { trigger: trigger.into(), reply: None });
    }
}

pub struct DreamerThread {
    tx: mpsc::Sender<DreamMsg>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl DreamerThread {
    /// Lets the dreamer finish what is queued, then stops it.
    pub fn stop(mut self) {
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
    sessions: HashMap<u64, String>,
    /// Records committed since the agent's last requested dream.
    pending: HashMap<String, u64>,
}

impl DreamFeed {
    /// A committed batch: agents whose session ended dream (logout); agents past the
    /// threshold dream (threshold).
    pub fn committed(&mut self, batch: &RecordBatch) {
        for s in batch.sessions.iter().filter(|s| s.is_agent) {
            self.sessions.insert(s.session, s.agent.clone());
        }
        for r in &batch.records {
            if let Some(agent) = self.sessions.get(&r.session) {
                *self.pending.entry(agent.clone()).or_default() += 1;
            }
        }
        for s in batch.sessions.iter().filter(|s| s.is_agent && s.ended_us.is_some()) {
            self.sessions.remove(&s.session);
            self.pending.remove(&s.agent);
            self.dreamer.request(&s.agent, "logout");
        }
        let over: Vec<String> = self.pending.iter().filter(|(_, n)| **n >= self.threshold).map(|(a, _)| a.clone()).collect();
        for a in over {
            self.pending.remove(&a);
            self.dreamer.request(&a, "threshold");
        }
    }
}

/// Starts the dreamer thread.
pub fn spawn_dreamer(store: Arc<Store>, opts: DreamOptions, threshold: u64) -> std::io::Result<(DreamerHandle, DreamFeed, DreamerThread)> {
    let (tx, rx) = mpsc::channel();
    let stats = Arc::new(DreamerStats::default());
    let handle = DreamerHandle { tx: tx.clone(), stats: stats.clone() };
    let thread = std::thread::Builder::new().name("pawns-dreamer".into()).spawn(move || run(store, opts, rx, stats))?;
    let feed = DreamFeed { dreamer: handle.clone(), threshold: threshold.max(1), sessions: HashMap::new(), pending: HashMap::new() };
    Ok((handle, feed, DreamerThread { tx, thread: Some(thread) }))
}

fn run(store: Arc<Store>, opts: DreamOptions, rx: mpsc::Receiver<DreamMsg>, stats: Arc<DreamerStats>) {
    let mut stopping = false;
    while !stopping {
        let Ok(first) = rx.recv() else { break };
        // Everything queued now, in order; one dream per agent.
        let mut queue: Vec<DreamMsg> = vec![first];
        while let Ok(m) = rx.try_recv() {
            queue.push(m);
        }
        let mut agents: Vec<(String, String, Vec<Reply>)> = Vec::new();
        let mut alls = Vec::new();
        for m in queue {
            match m {
                DreamMsg::Dream { agent, trigger, reply } => match agents.iter_mut().find(|(a, _, _)| *a == agent) {
                    Some((_, _, replies)) => replies.extend(reply),
                    None => agents.push((agent, trigger, reply.into_iter().collect())),
                },
                DreamMsg::All { trigger, reply } => alls.push((trigger, reply)),
                DreamMsg::Stop => stopping = true,
            }
        }
        for (agent, trigger, replies) in agents {
            let r = one(&store, &opts, &agent, &trigger, &stats);
            for reply in replies {
                let _ = reply.send(r.clone());
            }
        }
        for (trigger, reply) in alls {
            let mut results = Vec::new();
            for agent in agents_to_dream(&store) {
                if let Ok(r) = one(&store, &opts, &agent, &trigger, &stats) {
                    if r.events_extracted > 0 || r.records_read > 0 {
                        results.push(r);
                    }
                }
            }
            tracing::info!(trigger = %trigger, agents = results.len(), "dreamed every agent with something new");
            if let Some(reply) = reply {
                let _ = reply.send(results);
            }
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

fn one(store: &Store, opts: &DreamOptions, agent: &str, trigger: &str, stats: &DreamerStats) -> Result<DreamResult, (String, String)> {
    let o = DreamOptions { trigger: trigger.to_string(), ..opts.clone() };
    match dream_agent(store, agent, &o) {
        Ok(r) => {
            stats.dreams.fetch_add(1, Ordering::Relaxed);
            stats.events.fetch_add(r.events_extracted as u64, Ordering::Relaxed);
            stats.last_us.store((r.elapsed_ms * 1000.0) as u64, Ordering::Relaxed);
            if r.records_read > 0 {
                tracing::info!(
                    agent = %agent, trigger = %trigger, records = r.records_read, events = r.events_extracted,
                    nodes = r.nodes_after, pruned = r.pruned, tokens = r.summary_tokens, ms = r.elapsed_ms, "dreamed"
                );
            }
            Ok(r)
        }
        Err(e) => {
            stats.failures.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(agent = %agent, trigger = %trigger, code = e.code(), "dream failed: {e}");
            Err((e.code().to_string(), e.to_string()))
        }
    }
}

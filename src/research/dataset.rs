//! What the metrics read, taken from the record once: the sessions chosen, their
//! decisions (what was faced and what was done), the social acts others did to the
//! agent, and the dream log. Plain rows, so the metrics are pure functions a test can
//! feed by hand.

use pawns_storage::{RecordBody, SessionMeta, Store, StoreError, Transition};

use crate::memory::DreamSnapshot;

/// Sessions a reading thread takes at a time.
const READ_CHUNK: usize = 16;

/// Which part of the record an evaluation reads.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Filter {
    /// Lower-cased names; empty: every agent (humans are never evaluated).
    pub agents: Vec<String>,
    /// Sessions started at or after this (unix µs).
    pub since_us: u64,
    /// And before this, when given.
    #[serde(default)]
    pub until_us: Option<u64>,
    /// The run the selection was made from, if any (`runs.rs`).
    #[serde(default)]
    pub run: Option<String>,
    /// The arm of each agent, as its run named it (`By::Arm`).
    #[serde(default)]
    pub arms: std::collections::BTreeMap<String, String>,
}

impl Filter {
    /// Whether a session is in the selection (agents only).
    pub fn takes(&self, s: &SessionMeta) -> bool {
        s.is_agent && self.selects(s)
    }

    /// Whether a session is in the selection's time and names (humans' sessions too,
    /// when it names no agent: the exports').
    pub fn selects(&self, s: &SessionMeta) -> bool {
        s.started_us >= self.since_us
            && self.until_us.is_none_or(|u| s.started_us < u)
            && (self.agents.is_empty() || self.agents.contains(&s.agent))
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRow {
    pub session: u64,
    pub agent: String,
    pub valence: bool,
    pub started_us: u64,
    pub ended_us: Option<u64>,
    pub model: Option<String>,
    pub records: u64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecisionRow {
    /// Index into `Dataset::sessions`.
    pub session: usize,
    pub seq: u64,
    /// When it was recorded (as it ran: a decision is dated when dispatched) and when it ran.
    pub at_us: u64,
    pub dispatched_us: u64,
    /// Where the agent was when it decided.
    pub room: u32,
    /// The verb as typed, lower-cased, and the rest of the line.
    pub verb: String,
    pub args: String,
    pub status: String,
    /// The stimulus kind (`killer`…, `none`; empty in records older than the metrics).
    pub kind: String,
    pub target: Option<String>,
    /// The injected memory about the target, and its valence as injected.
    pub memory_id: Option<String>,
    pub memory_valence: Option<f32>,
    /// Other players present, lower-cased.
    pub players: Vec<String>,
    pub tokens_prompt: Option<u64>,
    pub tokens_completion: Option<u64>,
    pub latency_us: u64,
    /// The model calls behind it (`llm`), and their time together, ms.
    pub model_calls: u32,
    pub model_ms: f64,
}

/// Something another player did to the agent (`act`: gift, cooperation, betrayal,
/// greet, insult).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SocialRow {
    pub session: usize,
    pub seq: u64,
    pub at_us: u64,
    pub act: String,
    /// Lower-cased.
    pub other: String,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DreamRow {
    pub agent: String,
    pub at_us: u64,
    pub snap: DreamSnapshot,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dataset {
    pub sessions: Vec<SessionRow>,
    pub decisions: Vec<DecisionRow>,
    pub socials: Vec<SocialRow>,
    pub dreams: Vec<DreamRow>,
}

impl Dataset {
    /// Reads the chosen agents' sessions (agents only), in time order per agent, with
    /// `progress(sessions read, sessions)` after each.
    pub fn read(store: &Store, filter: &Filter, progress: &mut dyn FnMut(usize, usize)) -> Result<Dataset, StoreError> {
        let mut metas: Vec<SessionMeta> = store.all_sessions()?.into_iter().filter(|s| filter.takes(s)).collect();
        metas.sort_by(|a, b| (&a.agent, a.started_us, a.session).cmp(&(&b.agent, b.started_us, b.session)));
        let total = metas.len();
        // Decoding the record is most of the work: sessions are read on every core, in
        // chunks taken in turn, and put back in order.
        let chunks: Vec<&[SessionMeta]> = metas.chunks(READ_CHUNK).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<Dataset, StoreError>)>();
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(chunks.len().max(1));
        let mut parts: Vec<Option<Dataset>> = (0..chunks.len()).map(|_| None).collect();
        std::thread::scope(|scope| -> Result<(), StoreError> {
            for _ in 0..threads {
                let (tx, next, chunks) = (tx.clone(), &next, &chunks);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(chunk) = chunks.get(i) else { break };
                    let _ = tx.send((i, Dataset::read_sessions(store, chunk)));
                });
            }
            drop(tx);
            let mut done = 0;
            for (i, part) in rx {
                done += chunks[i].len();
                parts[i] = Some(part?);
                progress(done, total);
            }
            Ok(())
        })?;
        let mut ds = Dataset::default();
        for part in parts.into_iter().flatten() {
            ds.append(part);
        }
        let mut agents: Vec<&str> = ds.sessions.iter().map(|s| s.agent.as_str()).collect();
        agents.dedup();
        let agents: Vec<String> = agents.into_iter().map(str::to_string).collect();
        for agent in agents {
            for (at_us, snap) in store.dream_log::<DreamSnapshot>(&agent)? {
                ds.dreams.push(DreamRow { agent: agent.clone(), at_us, snap });
            }
        }
        Ok(ds)
    }

    /// Sessions read by one thread: rows indexed within this part.
    fn read_sessions(store: &Store, metas: &[SessionMeta]) -> Result<Dataset, StoreError> {
        let mut ds = Dataset::default();
        // One reader for many sessions: the record's tail decompressed once per reader.
        let mut log = pawns_storage::SharedLog::default();
        for m in metas {
            let ix = ds.sessions.len();
            ds.sessions.push(SessionRow {
                session: m.session,
                agent: m.agent.clone(),
                valence: m.valence,
                started_us: m.started_us,
                ended_us: m.ended_us,
                model: m.model.clone(),
                records: m.records,
            });
            log.get(store)?.scan_session(m, 0, 0, &mut |_, r| ds.take(ix, r))?;
        }
        Ok(ds)
    }

    /// Adds a part read after this one (its session indices shifted).
    fn append(&mut self, part: Dataset) {
        let base = self.sessions.len();
        self.sessions.extend(part.sessions);
        self.decisions.extend(part.decisions.into_iter().map(|mut d| {
            d.session += base;
            d
        }));
        self.socials.extend(part.socials.into_iter().map(|mut s| {
            s.session += base;
            s
        }));
    }

    fn take(&mut self, session: usize, r: pawns_storage::EventRecord) {
        match r.body {
            RecordBody::Decision(d) => {
                let d = *d;
                self.decisions.push(DecisionRow {
                    session,
                    seq: r.seq,
                    at_us: r.at_us,
                    dispatched_us: d.dispatched_us,
                    // The record is made after the command ran: where it was decided is
                    // the state before it.
                    room: d.pre.room_vnum,
                    verb: d.command.to_lowercase(),
                    args: d.args,
                    status: d.status,
                    kind: d.stimulus.kind,
                    target: d.stimulus.target,
                    memory_id: d.stimulus.memory_id,
                    memory_valence: d.stimulus.memory_valence,
                    players: d.stimulus.players_present.iter().map(|p| p.to_lowercase()).collect(),
                    tokens_prompt: d.client.tokens_prompt,
                    tokens_completion: d.client.tokens_completion,
                    latency_us: d.latency_us,
                    model_calls: d.llm.len() as u32,
                    model_ms: d.llm.iter().map(|c| c.latency_ms).sum(),
                });
            }
            RecordBody::Transition(Transition::Social { act, other, by_me: false, text }) => {
                self.socials.push(SocialRow { session, seq: r.seq, at_us: r.at_us, act, other: other.to_lowercase(), text });
            }
            // What the evaluation does not read; named, so a new kind is decided on here.
            RecordBody::Observation { .. } | RecordBody::Transition(_) => {}
        }
    }

    pub fn agent_of(&self, d: &DecisionRow) -> &str {
        &self.sessions[d.session].agent
    }
}

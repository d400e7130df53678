//! Memcheck over the data file: each chosen agent's events read from its record (the
//! memory extractor), its probes made, the memory it would be given at its next login
//! (the summary at the default tier, its soul and the memories it kept itself) answered
//! by the deterministic reader, and how long the graph held each probe's events across
//! the agent's dreams. A model's answers are added by the command line (`ask`).

use std::collections::HashMap;

use pawns_storage::{SessionMeta, Store, StoreError};
use serde::{Deserialize, Serialize};

use super::memcheck::{correct, held_curve, probes, read, scores, Answer, Probe, Score, UNKNOWN};
use super::stats::Proportion;
use super::Filter;
use crate::memory::extract::Extractor;

/// The memory an agent would be given, as the readers see it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Given {
    pub agent: String,
    pub text: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Memcheck {
    pub filter: Filter,
    pub probes: usize,
    pub answers: Vec<Answer>,
    pub scores: Vec<Score>,
    /// Cycles since a probe's events were taken in → the share still held by the graph.
    pub held: Vec<(u64, Proportion)>,
    pub memories: Vec<Given>,
}

/// Memcheck of the agents `filter` selects (every agent that played, when it names none).
pub fn memcheck_store(store: &Store, filter: &Filter) -> Result<Memcheck, StoreError> {
    let mut by_agent: std::collections::BTreeMap<String, Vec<SessionMeta>> = Default::default();
    for s in store.all_sessions()?.into_iter().filter(|s| filter.takes(s)) {
        by_agent.entry(s.agent.clone()).or_default().push(s);
    }
    let log = store.log_reader()?;
    let (mut all, mut answers, mut memories) = (Vec::new(), Vec::new(), Vec::new());
    let mut dreams: HashMap<String, Vec<Vec<String>>> = HashMap::new();
    for (agent, mut sessions) in by_agent {
        sessions.sort_by_key(|s| (s.started_us, s.session));
        let mut x = Extractor::new();
        for s in &sessions {
            x.valence_off = !s.valence;
            log.scan_session(s, 0, 0, &mut |_, r| x.feed(&r))?;
        }
        let ps: Vec<Probe> = probes(&agent, &x.events);
        let text = given(store, &agent)?;
        for p in &ps {
            let answer = read(&text, &p.question);
            answers.push(Answer { correct: correct(&p.expected, &answer), probe: p.clone(), by: "reader".into(), answer });
        }
        let cycles: Vec<Vec<String>> = store
            .dream_log::<crate::memory::DreamSnapshot>(&agent)?
            .into_iter()
            .map(|(_, d)| d.memories.into_iter().map(|m| m.id).collect())
            .collect();
        dreams.insert(agent.clone(), cycles);
        memories.push(Given { agent: agent.clone(), text });
        all.extend(ps);
    }
    Ok(Memcheck { filter: filter.clone(), probes: all.len(), scores: scores(&answers), held: held_curve(&all, &dreams), answers, memories })
}

/// What the agent would be given at its next login: its summary (the default tier, soul
/// first) and the memories it keeps itself.
fn given(store: &Store, agent: &str) -> Result<String, StoreError> {
    let mut text = crate::memory::login::login_memory(store, agent, None)?.map(|m| m.summary).unwrap_or_default();
    let kept: Vec<String> =
        store.mind_layer(agent, pawns_storage::mind::layer::MEMORY)?.into_iter().filter(|r| r.ended.is_none()).map(|r| r.text).collect();
    if !kept.is_empty() {
        text.push_str("\n### Memories I keep\n\n");
        for k in kept {
            text.push_str(&k);
            text.push('\n');
        }
    }
    Ok(text)
}

/// The instructions a model answers a probe under.
pub fn model_prompt(agent: &str, memory: &str, question: &str) -> (String, String) {
    (
        format!(
            "You are {agent}, a character in a text adventure. Answer the question from your memory below and nothing else, in a few words. If your memory does not say, answer exactly: {UNKNOWN}."
        ),
        format!("{memory}\n\nQuestion: {question}"),
    )
}

impl Memcheck {
    /// Adds a model's answers (the command line asks it) and scores them beside the reader's.
    pub fn add(&mut self, by: &str, answered: Vec<(Probe, String)>) {
        for (probe, answer) in answered {
            self.answers.push(Answer { correct: correct(&probe.expected, &answer), probe, by: by.into(), answer });
        }
        self.scores = scores(&self.answers);
    }

    /// The memory text given to `agent`.
    pub fn memory_of(&self, agent: &str) -> &str {
        self.memories.iter().find(|m| m.agent == agent).map_or("", |m| m.text.as_str())
    }
}

const PROBES: &[(&str, super::parquet_writer::Kind, bool)] = {
    use super::parquet_writer::Kind::{Bool as B, Str as S, Ts as T};
    &[
        ("probe", S, false),
        ("agent", S, false),
        ("ability", S, false),
        ("question", S, false),
        ("expected", S, false),
        ("reader", S, false),
        ("answer", S, false),
        ("correct", B, false),
        ("band", S, false),
        ("valence_on", B, false),
        ("at_us", T, false),
        ("evidence", super::parquet_writer::Kind::List, false),
    ]
};

/// `probes.parquet`: one row per answer (question, expected, answer, correct, the events
/// behind it). Returns the rows.
pub fn write_parquet(m: &Memcheck, dir: &std::path::Path, force: bool) -> Result<u64, super::parquet::ExportError> {
    use super::parquet_writer::{Table, V};
    let mut t = Table::create(dir, "probes", PROBES, force)?;
    for a in &m.answers {
        let p = &a.probe;
        t.row(&[
            V::S(Some(&p.id)),
            V::S(Some(&p.agent)),
            V::S(Some(&p.ability)),
            V::S(Some(&p.question)),
            V::S(Some(&p.expected)),
            V::S(Some(&a.by)),
            V::S(Some(&a.answer)),
            V::B(Some(a.correct)),
            V::S(Some(&p.band)),
            V::B(Some(p.valence_on)),
            V::I(i64::try_from(p.at_us).ok()),
            V::L(p.evidence.iter().map(String::as_str).collect()),
        ])?;
    }
    Ok(t.finish()?.1)
}

//! One dream of one agent: read its record from where the last dream stopped, extract
//! the memorable events, fold them into its graph and profile (one consolidation cycle),
//! write the summary, optionally ask an LLM for a chronicle, and store it all in one
//! row. Runs on the dreamer thread or offline, never on the engine's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use chrono::{Offset, TimeZone, Utc};
use pawns_graph::{MemoryGraph, Params};
pub use pawns_storage::SharedLog;
use pawns_storage::{LogReader, Store};

use super::extract::Extractor;
use super::llm::LlmConfig;
use super::login::render_summary;
use super::{AgentMemory, DreamResult, MemoryError, Watermark};
use crate::record::unix_us;

/// Sessions are looked up from this long before the watermark's session started (a
/// session id is its start time, give or take the uniqueness bump).
const SESSION_SLACK_US: u64 = 3_600_000_000;

#[derive(Debug, Clone)]
pub struct DreamOptions {
    pub params: Params,
    /// The zone session headings are written in.
    pub tz: chrono_tz::Tz,
    pub trigger: String,
    pub dry_run: bool,
    pub llm: Option<LlmConfig>,
    /// Set when the server stops: a dream in progress gives up between sessions,
    /// writing nothing.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Read at most this many records past the watermark (a branch dreams a parent's
    /// dream again over exactly the records that dream read).
    pub max_records: Option<u64>,
}

impl Default for DreamOptions {
    fn default() -> Self {
        DreamOptions {
            params: Params::default(),
            tz: chrono_tz::UTC,
            trigger: "admin".into(),
            dry_run: false,
            llm: None,
            cancel: None,
            max_records: None,
        }
    }
}

/// The zone's offset from UTC now, in seconds.
pub fn utc_offset_now(tz: &chrono_tz::Tz) -> i32 {
    tz.offset_from_utc_datetime(&Utc::now().naive_utc()).fix().local_minus_utc()
}

/// Bytes of text whose token counts a thread keeps (then it starts over).
const TOKEN_COUNTS_BYTES: usize = 8 << 20;

/// The cl100k tokens of a record's text (`DreamResult::raw_tokens`), counted line by
/// line (`token_lines`: exact) and remembered per line on this thread: dreams read the
/// same room descriptions, the same "X is standing here." and the same commands over
/// and over, across agents too, where whole texts rarely repeat (a room's text names
/// who is there). Counting was half of every dream's CPU (a soak's dream waves took a
/// third of a core at 1,000 agents).
fn tokens_of(text: &str) -> u64 {
    thread_local! {
        static COUNTS: std::cell::RefCell<(rustc_hash::FxHashMap<Box<str>, u32>, usize)> = Default::default();
    }
    COUNTS.with_borrow_mut(|(counts, bytes)| {
        let mut total = 0u64;
        for line in pawns_graph::token_lines(text) {
            if let Some(n) = counts.get(line) {
                total += u64::from(*n);
                continue;
            }
            let n = pawns_graph::count_tokens(line) as u32;
            if *bytes + line.len() > TOKEN_COUNTS_BYTES {
                counts.clear();
                *bytes = 0;
            }
            *bytes += line.len();
            counts.insert(line.into(), n);
            total += u64::from(n);
        }
        total
    })
}

/// Dreams one agent. With nothing new since the last dream, nothing changes (and
/// nothing is written); the result says so with `events_extracted: 0`.
pub fn dream_agent(store: &Store, agent: &str, opts: &DreamOptions) -> Result<DreamResult, MemoryError> {
    dream_agent_in(store, &store.log_reader()?, agent, opts)
}

/// Dreams one agent reading its record through `log`, a reader many dreams share (a
/// wave of them decompresses the record's tail once): the dream sees the record as
/// `log` does, so `log` must have been opened after the commits that asked for it.
pub fn dream_agent_in(store: &Store, log: &LogReader, agent: &str, opts: &DreamOptions) -> Result<DreamResult, MemoryError> {
    let started = Instant::now();
    let agent = agent.to_ascii_lowercase();
    let mut mem: AgentMemory = store.memory(&agent)?.unwrap_or_default();
    let wm = mem.watermark;
    let sessions: Vec<_> =
        log.agent_sessions(&agent, wm.session.saturating_sub(SESSION_SLACK_US))?.into_iter().filter(|s| s.session >= wm.session).collect();
    if sessions.is_empty() && store.character(&agent)?.is_none() && mem.last.is_none() {
        return Err(MemoryError::NoAgent(agent));
    }
    let mut x = Extractor::new();
    let mut new_wm = wm;
    let mut sessions_read = 0;
    let (mut raw_tokens, mut sessions_off) = (0u64, 0usize);
    let cancelled = || opts.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
    for s in &sessions {
        if cancelled() {
            return Err(MemoryError::Cancelled);
        }
        let (after, from_batch) = if s.session == wm.session { (wm.seq, wm.batch) } else { (0, 0) };
        x.valence_off = !s.valence;
        let mut last = None;
        let before = x.records;
        let scan = log.scan_session(s, after, from_batch, &mut |b, r| {
            if opts.max_records.is_some_and(|max| x.records >= max) {
                return;
            }
            last = Some((r.seq, b));
            raw_tokens += tokens_of(&crate::search::doc::search_doc(&r).text);
            x.feed(&r);
        })?;
        // Capped, a session may be scanned and none of it read.
        if scan.records > 0 && x.records > before {
            sessions_read += 1;
            sessions_off += usize::from(!s.valence);
        }
        if let Some((seq, batch)) = last {
            new_wm = new_wm.max(Watermark { session: s.session, seq, batch });
        }
    }
    let mut graph = MemoryGraph::from_stored(std::mem::take(&mut mem.graph));
    let nodes_before = graph.node_count();
    let mut result = DreamResult {
        agent: agent.clone(),
        trigger: opts.trigger.clone(),
        sessions_read,
        records_read: x.records,
        events_extracted: x.events.len(),
        nodes_before,
        nodes_after: nodes_before,
        dry_run: opts.dry_run,
        ..Default::default()
    };
    if x.records == 0 {
        result.summary_tokens = mem.summary.tokens;
        result.at_us = unix_us();
        result.elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
        return Ok(result);
    }
    let before: std::collections::HashSet<String> = memory_ids(&graph).map(str::to_string).collect();
    let report = graph.dream(&x.events, &opts.params);
    let memories: Vec<super::SalienceRow> = graph
        .nodes()
        .filter(|n| n.kind == pawns_graph::NodeKind::Event)
        .map(|n| super::SalienceRow {
            id: n.id.clone(),
            salience: n.salience,
            valence: n.valence,
            game_valence: n.event.as_ref().map(|e| pawns_graph::valence(&e.kind)).unwrap_or(0),
        })
        .collect();
    let now: std::collections::HashSet<&str> = memory_ids(&graph).collect();
    let mut pruned: Vec<String> = before.into_iter().filter(|id| !now.contains(id.as_str())).collect();
    pruned.sort();
    let observed = x.observed();
    mem.profile.absorb(&x.events, Some(&observed));
    mem.history.absorb(&x.events);
    mem.profile.identity.name = agent.clone();
    if let Some(c) = store.character(&agent)? {
        mem.profile.identity.class = Some(crate::game::model::tables::class_name(c.class).to_string());
    }
    mem.graph = graph.to_stored();
    mem.params = opts.params;
    mem.utc_offset_secs = utc_offset_now(&opts.tz);
    mem.watermark = new_wm;
    mem.chronicle = match &opts.llm {
        Some(cfg) => {
            let draft = render_summary(&mem, pawns_graph::summary::TIER_LARGE, None);
            match super::llm::chronicle(cfg, &agent, &draft.text) {
                Ok(text) => Some(text),
                Err(e) => {
                    tracing::warn!(agent = %agent, error = %e, "dream: the LLM chronicle failed; the summary is the deterministic one");
                    None
                }
            }
        }
        None => None,
    };
    mem.summary = render_summary(&mem, pawns_graph::summary::TIER_MEDIUM, mem.chronicle.as_deref());
    result.nodes_after = report.nodes_after;
    result.pruned = report.pruned;
    result.reinforced = report.reinforced;
    result.summary_tokens = mem.summary.tokens;
    result.chronicle = mem.chronicle.is_some();
    result.at_us = unix_us();
    result.elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    mem.last = Some(result.clone());
    if !opts.dry_run {
        let snap = super::DreamSnapshot {
            cycle: graph.cycles,
            trigger: result.trigger.clone(),
            records_read: result.records_read,
            events: result.events_extracted,
            raw_tokens,
            summary_tokens: result.summary_tokens,
            elapsed_ms: result.elapsed_ms,
            sessions: sessions_read,
            sessions_valence_off: sessions_off,
            memories,
            pruned,
        };
        store.put_memory_logged(&agent, &mem, Some((result.at_us, &snap)))?;
    }
    Ok(result)
}

/// The ids of the graph's memories (event nodes).
fn memory_ids(g: &MemoryGraph) -> impl Iterator<Item = &str> {
    g.nodes().filter(|n| n.kind == pawns_graph::NodeKind::Event).map(|n| n.id.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remembered counts are the counts: each text's own, asked again and again, mixed
    /// with others, and past the point where the thread starts over.
    #[test]
    fn remembered_token_counts_are_exact() {
        let texts = [
            "look",
            "The Temple Of Midgaard\n[ Exits: n e s d ]\nBench12 is standing here.",
            "The cityguard hits you hard.",
            "The cityguard hits you hard!",
            "",
            "héllo — wörld 🐉",
            // Lines shared with the text above, in other company.
            "The Temple Of Midgaard\n[ Exits: n e s d ]\nBench7 is standing here.\n\n  A statue.\n",
            "\nThe cityguard hits you hard.\n\n\nBench12 is standing here.",
        ];
        for round in 0..3 {
            for t in texts {
                assert_eq!(tokens_of(t), pawns_graph::count_tokens(t) as u64, "{t:?} in round {round}");
            }
        }
        // Over the bound: the remembered counts start over and stay exact.
        let long = "a fine scarecrow ".repeat(1 << 16);
        for i in 0..(TOKEN_COUNTS_BYTES / long.len() + 2) {
            let t = format!("{long}{i}");
            assert_eq!(tokens_of(&t), pawns_graph::count_tokens(&t) as u64);
        }
        assert_eq!(tokens_of(texts[1]), pawns_graph::count_tokens(texts[1]) as u64);
    }
}

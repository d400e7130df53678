//! `pawns bench dream`: one agent's record of N events shaped like real play (the same
//! generator as `bench search`), then the figures the memory issue asks for: the first
//! dream over all of it, an incremental dream over what came after, the summary's build
//! time, and how many cl100k tokens the raw stream holds against the summary.

use std::time::Instant;

use pawns_graph::{build_summary_with, count_tokens, MemoryGraph, SummaryOptions};
use pawns_storage::{RecordBatch, SessionMeta, Store};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::cli::BenchDreamArgs;
use crate::memory::{dream_agent, AgentMemory, DreamOptions};

const AGENT: &str = "dreamer";
const BATCH: u64 = 2_000;
/// Raw tokens are counted on every `SAMPLE`th record past this many (then scaled).
const EXACT_UP_TO: u64 = 200_000;
const SAMPLE: u64 = 10;

/// Writes `n` events in sessions of `per` events, each session closed with the batches
/// holding it. Returns (raw tokens, records counted).
fn write(store: &Store, rng: &mut SmallRng, first_session: u64, n: u64, per: u64, start_us: u64) -> anyhow::Result<(u64, u64)> {
    let mut written = 0u64;
    let mut session = first_session;
    let (mut tokens, mut counted) = (0u64, 0u64);
    let step_us = 100_000; // an event every 0.1 s within a session
    let bar = indicatif::ProgressBar::new(n);
    while written < n {
        let len = per.min(n - written);
        let started = start_us + (session - first_session) * (per * step_us + 45 * 60 * 1_000_000);
        let mut ids = Vec::new();
        let mut seq = 0;
        while seq < len {
            let mut batch = RecordBatch::default();
            if seq == 0 {
                batch.sessions.push(SessionMeta {
                    session,
                    agent: AGENT.into(),
                    is_agent: true,
                    started_us: started,
                    valence: true,
                    ..Default::default()
                });
            }
            for _ in 0..BATCH.min(len - seq) {
                seq += 1;
                let r = crate::bench_search::event(rng, session, seq, AGENT, started + seq * step_us);
                let i = written + seq;
                if i <= EXACT_UP_TO || i.is_multiple_of(SAMPLE) {
                    let w = if i <= EXACT_UP_TO { 1 } else { SAMPLE };
                    tokens += w * count_tokens(&crate::search::doc::search_doc(&r).text) as u64;
                    counted += w;
                }
                batch.records.push(r);
            }
            if seq == len {
                let meta = SessionMeta {
                    session,
                    agent: AGENT.into(),
                    is_agent: true,
                    started_us: started,
                    ended_us: Some(started + len * step_us),
                    ended_how: Some("quit".into()),
                    valence: true,
                    records: len,
                    ..Default::default()
                };
                batch.sessions = vec![meta];
                batch.spans.push((session, std::mem::take(&mut ids)));
            }
            let id = store.write_records(&batch)?;
            ids.push(id);
        }
        written += len;
        session += 1;
        bar.set_position(written);
    }
    bar.finish_and_clear();
    Ok((tokens, counted))
}

pub fn run(args: BenchDreamArgs) -> anyhow::Result<()> {
    if args.events == 0 || args.per_session == 0 {
        anyhow::bail!("--events and --per-session must be at least 1");
    }
    let db = args.db.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("pawns-bench-dream-{}.redb", std::process::id())));
    if db.exists() {
        anyhow::bail!("{} exists; name a new file", db.display());
    }
    println!("====== pawns bench dream ======");
    let (store, _) = Store::open(&db)?;
    let mut rng = SmallRng::seed_from_u64(11);
    let start = crate::record::unix_us().saturating_sub(60 * 86_400_000_000);
    let t = Instant::now();
    let (raw_tokens, _) = write(&store, &mut rng, 1, args.events, args.per_session, start)?;
    let sessions = args.events.div_ceil(args.per_session);
    println!("  record:      {} events in {sessions} sessions, written in {:.1} s", args.events, t.elapsed().as_secs_f64());
    let opts = DreamOptions { trigger: "bench".into(), ..Default::default() };
    let first = dream_agent(&store, AGENT, &opts)?;
    println!(
        "  first dream: {:.0} ms — {} records read, {} events, nodes {} → {}, {} pruned, summary {} tokens",
        first.elapsed_ms,
        first.records_read,
        first.events_extracted,
        first.nodes_before,
        first.nodes_after,
        first.pruned,
        first.summary_tokens
    );
    let (_, _) = write(&store, &mut rng, sessions + 1, args.increment, args.per_session, start + 59 * 86_400_000_000)?;
    let inc = dream_agent(&store, AGENT, &opts)?;
    println!(
        "  incremental: {:.0} ms — {} records read, {} events, nodes {} → {}, {} pruned",
        inc.elapsed_ms, inc.records_read, inc.events_extracted, inc.nodes_before, inc.nodes_after, inc.pruned
    );
    let again = dream_agent(&store, AGENT, &opts)?;
    println!("  nothing new: {:.1} ms ({} records read)", again.elapsed_ms, again.records_read);
    let mem: AgentMemory = store.memory(AGENT)?.ok_or_else(|| anyhow::anyhow!("no memory was written"))?;
    let graph = MemoryGraph::from_stored(mem.graph.clone());
    for (tier, budget) in [("small", 250usize), ("medium", 500), ("large", 1000)] {
        let t = Instant::now();
        let runs = 20;
        let mut tokens = 0;
        for _ in 0..runs {
            tokens = build_summary_with(&graph, Some(&mem.profile), &SummaryOptions { budget_tokens: budget, utc_offset_secs: 0 }).tokens;
        }
        println!(
            "  summary {tier:>6}: {:.1} ms per build ({tokens} tokens, graph of {} nodes)",
            t.elapsed().as_secs_f64() * 1e3 / runs as f64,
            graph.node_count()
        );
    }
    let how =
        if args.events > EXACT_UP_TO { format!(" (counted on every {SAMPLE}th record past {EXACT_UP_TO}, scaled)") } else { String::new() };
    println!(
        "  compression: raw stream {raw_tokens} cl100k tokens{how} → summary {} tokens: {:.4} % of the raw size ({:.2} % reduction)",
        mem.summary.tokens,
        mem.summary.tokens as f64 * 100.0 / raw_tokens.max(1) as f64,
        100.0 - mem.summary.tokens as f64 * 100.0 / raw_tokens.max(1) as f64
    );
    let per_session_raw = raw_tokens / sessions.max(1);
    println!(
        "  per session: one session's raw stream ≈ {per_session_raw} tokens → summary {} tokens ({:.1} % reduction)",
        mem.summary.tokens,
        100.0 - mem.summary.tokens as f64 * 100.0 / per_session_raw.max(1) as f64
    );
    drop(store);
    if args.db.is_none() {
        let _ = std::fs::remove_file(&db);
    }
    Ok(())
}

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
use pawns::memory::{dream_agent, AgentMemory, DreamOptions};

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
                let r = crate::bench::search::event(rng, session, seq, AGENT, started + seq * step_us);
                let i = written + seq;
                if i <= EXACT_UP_TO || i.is_multiple_of(SAMPLE) {
                    let w = if i <= EXACT_UP_TO { 1 } else { SAMPLE };
                    tokens += w * count_tokens(&pawns::search::doc::search_doc(&r).text) as u64;
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

/// Records in a probe agent's session (a minute of play, as in the 5,000-agent bench).
const PROBE_RECORDS: u64 = 160;

/// One commit of the crowd: every crowd session adds a record (and the probe, if any).
fn crowd_batch(rng: &mut SmallRng, crowd: u64, seqs: &mut [u64], at_us: u64) -> RecordBatch {
    let mut batch = RecordBatch::default();
    for (i, seq) in seqs.iter_mut().enumerate().take(crowd as usize) {
        *seq += 1;
        let session = CROWD_FIRST + i as u64;
        batch.records.push(crate::bench::search::event(rng, session, *seq, &format!("crowd{i}"), at_us));
    }
    batch
}

const CROWD_FIRST: u64 = 1_000_000;

/// Writes `batches` commits of the crowd alone.
fn grow(store: &Store, rng: &mut SmallRng, crowd: u64, seqs: &mut [u64], batches: u64, at_us: &mut u64) -> anyhow::Result<()> {
    let bar = indicatif::ProgressBar::new(batches);
    for _ in 0..batches {
        *at_us += 25_000;
        store.write_records(&crowd_batch(rng, crowd, seqs, *at_us))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(())
}

/// A probe agent plays one session among the crowd (a record of its own in each of
/// `PROBE_RECORDS` commits, the crowd in every one), logs out, and dreams. Returns the
/// dream's result, the chunks its read decoded, and that read's time alone (ms).
fn probe(
    store: &Store,
    rng: &mut SmallRng,
    name: &str,
    session: u64,
    crowd: u64,
    seqs: &mut [u64],
    at_us: &mut u64,
) -> anyhow::Result<(pawns::memory::DreamResult, u64, f64)> {
    let meta = SessionMeta { session, agent: name.into(), is_agent: true, started_us: *at_us, valence: true, ..Default::default() };
    let mut ids = Vec::new();
    for seq in 1..=PROBE_RECORDS {
        *at_us += 25_000;
        let mut batch = crowd_batch(rng, crowd, seqs, *at_us);
        batch.records.push(crate::bench::search::event(rng, session, seq, name, *at_us));
        if seq == 1 {
            batch.sessions.push(meta.clone());
        }
        if seq == PROBE_RECORDS {
            let end = SessionMeta { ended_us: Some(*at_us), ended_how: Some("quit".into()), records: PROBE_RECORDS, ..meta.clone() };
            batch.sessions.push(end);
            batch.spans.push((session, std::mem::take(&mut ids)));
        }
        ids.push(store.write_records(&batch)?);
    }
    let ended = store.session(session)?.ok_or_else(|| anyhow::anyhow!("the probe's session was not written"))?;
    let opts = DreamOptions { trigger: "bench".into(), ..Default::default() };
    let dream = dream_agent(store, name, &opts)?;
    // The read alone, again (the dream's own read is inside its time).
    let t = Instant::now();
    let chunks = store.scan_session(&ended, 0, 0, &mut |_, _| {})?.chunks;
    Ok((dream, chunks, t.elapsed().as_secs_f64() * 1e3))
}

/// One agent's dream as the log grows 10×: the cost must stay flat (it reads the
/// agent's own chunks, never the crowd's).
fn growth(args: &BenchDreamArgs) -> anyhow::Result<()> {
    let db = std::env::temp_dir().join(format!("pawns-bench-dream-growth-{}.redb", std::process::id()));
    let (store, _) = Store::open(&db)?;
    let mut rng = SmallRng::seed_from_u64(12);
    let mut seqs = vec![0u64; args.crowd as usize];
    let mut at_us = pawns::record::unix_us().saturating_sub(86_400_000_000);
    store.write_records(&RecordBatch {
        sessions: (0..args.crowd)
            .map(|i| SessionMeta {
                session: CROWD_FIRST + i,
                agent: format!("crowd{i}"),
                is_agent: true,
                started_us: at_us,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    })?;
    println!("  growth:      {} sessions recording beside one probe agent ({PROBE_RECORDS} records, one per commit)", args.crowd);
    let mut rows = Vec::new();
    for (i, batches) in [args.crowd_batches, 9 * args.crowd_batches + 8 * PROBE_RECORDS].into_iter().enumerate() {
        grow(&store, &mut rng, args.crowd, &mut seqs, batches, &mut at_us)?;
        let name = format!("probe{}", i + 1);
        let (r, chunks, read_ms) = probe(&store, &mut rng, &name, 10 + i as u64, args.crowd, &mut seqs, &mut at_us)?;
        let log = store.last_record_id()? * args.crowd;
        let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
        println!(
            "    log of {:>10} records ({:>6.0} MB): {name}'s dream {:>7.1} ms (its read {read_ms:.2} ms) — {} records read from {chunks} chunks of its own, {} events",
            log,
            size as f64 / 1e6,
            r.elapsed_ms,
            r.records_read,
            r.events_extracted
        );
        rows.push(r.elapsed_ms);
    }
    if let [a, b] = rows[..] {
        println!("    10× the log: the dream costs {:.2}× (flat is 1×)", b / a.max(1e-9));
    }
    drop(store);
    let _ = std::fs::remove_file(&db);
    Ok(())
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
    let start = pawns::record::unix_us().saturating_sub(60 * 86_400_000_000);
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
    if args.crowd > 0 && args.crowd_batches > 0 {
        growth(&args)?;
    }
    Ok(())
}

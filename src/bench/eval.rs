//! `pawns bench eval`: a record of N decisions shaped like play (each with its stimulus
//! and an observation after it, social acts among the players, a dream logged per
//! session), then the time `pawns eval` takes over it: reading the record, computing the
//! metrics, and both.

use std::time::Instant;

use pawns::memory::{AgentMemory, DreamSnapshot, SalienceRow};
use pawns::research::{evaluate, By, Dataset, Filter};
use pawns_storage::{DecisionRecord, EventRecord, RecordBatch, RecordBody, SessionMeta, Stimulus, Store, Transition};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::cli::BenchEvalArgs;

/// Records per commit.
const BATCH: usize = 4_000;
const KINDS: [(&str, u32); 8] =
    [("none", 20), ("stranger", 40), ("known", 10), ("prey", 10), ("attacker", 8), ("benefactor", 5), ("killer", 5), ("betrayer", 2)];
const LINES: [&str; 9] =
    ["look", "north", "south", "kill mob", "flee", "say hello there", "give bread cora", "assist cora", "consider mob"];

fn pick_kind(rng: &mut SmallRng) -> &'static str {
    let mut r = rng.gen_range(0..100);
    for (k, w) in KINDS {
        if r < w {
            return k;
        }
        r -= w;
    }
    "none"
}

fn decision(rng: &mut SmallRng, turn: u64, at_us: u64) -> DecisionRecord {
    let kind = pick_kind(rng);
    let memory = !matches!(kind, "none" | "stranger") && rng.gen_bool(0.5);
    // A remembered killer is fled from more often: an effect for the score to find.
    let line = if kind == "killer" && memory && rng.gen_bool(0.5) { "flee" } else { LINES[rng.gen_range(0..LINES.len())] };
    let (command, args) = line.split_once(' ').unwrap_or((line, ""));
    DecisionRecord {
        turn,
        command: command.into(),
        args: args.into(),
        status: "ok".into(),
        received_us: at_us,
        dispatched_us: at_us + 40,
        completed_us: at_us + 900,
        latency_us: 900,
        stimulus: Stimulus {
            kind: kind.into(),
            target: (kind != "none").then(|| format!("mob{}", rng.gen_range(0..50))),
            players_present: if rng.gen_bool(0.2) { vec!["Cora".into()] } else { vec![] },
            memory_id: memory.then(|| format!("ev:1:{}", rng.gen_range(0..1000))),
            memory_valence: memory.then(|| f32::from(rng.gen_range(-3i8..=3))),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Writes the record; returns its records.
fn write(store: &Store, args: &BenchEvalArgs) -> anyhow::Result<u64> {
    let mut rng = SmallRng::seed_from_u64(19);
    let per_agent = args.decisions.div_ceil(args.agents);
    let sessions_per_agent = per_agent.div_ceil(args.per_session);
    let start = pawns::record::unix_us().saturating_sub(30 * 86_400_000_000);
    let bar = indicatif::ProgressBar::new(args.decisions);
    let (mut written, mut records) = (0u64, 0u64);
    let mut batch = RecordBatch::default();
    let mut session_id = 1u64;
    for a in 0..args.agents {
        let agent = format!("agent{a}");
        for s in 0..sessions_per_agent {
            if written >= args.decisions {
                break;
            }
            let id = session_id;
            session_id += 1;
            let started = start + (a * sessions_per_agent + s) * 3_600_000_000;
            let meta = SessionMeta {
                session: id,
                agent: agent.clone(),
                is_agent: true,
                started_us: started,
                valence: a % 2 == 0,
                ..Default::default()
            };
            batch.sessions.push(meta.clone());
            let mut ids = Vec::new();
            let (mut seq, mut at) = (0u64, started);
            for turn in 1..=args.per_session.min(args.decisions - written) {
                at += 500_000;
                let mut push = |body: RecordBody, seq: &mut u64| {
                    *seq += 1;
                    batch.records.push(EventRecord {
                        session: id,
                        seq: *seq,
                        agent: agent.as_str().into(),
                        at_us: at,
                        room_vnum: 3001,
                        body,
                    });
                };
                push(RecordBody::Decision(Box::new(decision(&mut rng, turn, at))), &mut seq);
                push(RecordBody::Observation { event_type: "text".into(), text: "You see nothing special.".into(), from: None }, &mut seq);
                if turn % 50 == 0 {
                    let act = ["gift", "cooperation", "insult", "betrayal"][rng.gen_range(0..4)];
                    push(
                        RecordBody::Transition(Transition::Social {
                            act: act.into(),
                            other: "Cora".into(),
                            by_me: false,
                            text: "a loaf".into(),
                        }),
                        &mut seq,
                    );
                }
                written += 1;
                if batch.records.len() >= BATCH {
                    records += batch.records.len() as u64;
                    ids.push(store.write_records(&std::mem::take(&mut batch))?);
                    bar.set_position(written);
                }
            }
            batch.sessions.push(SessionMeta { ended_us: Some(at), ended_how: Some("quit".into()), records: seq, ..meta });
            batch.spans.push((id, ids));
            records += batch.records.len() as u64;
            store.write_records(&std::mem::take(&mut batch))?;
            // The dream after the session: 50 memories, a few pruned.
            let snap = DreamSnapshot {
                cycle: s + 1,
                trigger: "logout".into(),
                records_read: seq,
                events: 50,
                raw_tokens: seq * 12,
                summary_tokens: 480,
                elapsed_ms: 5.0,
                sessions: 1,
                sessions_valence_off: usize::from(a % 2 == 1),
                memories: (0..50)
                    .map(|m| SalienceRow {
                        id: format!("ev:{}:{m}", s.saturating_sub(m % 3)),
                        salience: 0.9 - 0.1 * (m % 9) as f32,
                        valence: 0.0,
                        game_valence: (m % 7) as i8 - 3,
                    })
                    .collect(),
                pruned: vec![format!("ev:{}:1", s.saturating_sub(3))],
            };
            store.put_memory_logged(&agent, &AgentMemory::default(), Some((at + 1, &snap)))?;
        }
    }
    bar.finish_and_clear();
    Ok(records)
}

pub fn run(args: BenchEvalArgs) -> anyhow::Result<()> {
    if args.decisions == 0 || args.agents == 0 || args.per_session == 0 {
        anyhow::bail!("--decisions, --agents and --per-session must be at least 1");
    }
    let db = args.db.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("pawns-bench-eval-{}.redb", std::process::id())));
    let fresh = !db.exists();
    println!("====== pawns bench eval ======");
    let (store, _) = Store::open(&db)?;
    if fresh {
        let t = Instant::now();
        let n = write(&store, &args)?;
        println!(
            "  record:    {} decisions ({n} records) of {} agents in sessions of {}, written in {:.1} s",
            args.decisions,
            args.agents,
            args.per_session,
            t.elapsed().as_secs_f64()
        );
    } else {
        println!("  record:    {} (already written)", db.display());
    }
    for round in 1..=args.rounds {
        let t = Instant::now();
        let ds = Dataset::read(&store, &Filter::default(), &mut |_, _| {})?;
        let read = t.elapsed();
        let t = Instant::now();
        let e = evaluate(&ds, &Filter::default(), By::Valence);
        let compute = t.elapsed();
        println!(
            "  round {round}:   read {:.2} s + metrics {:.2} s = {:.2} s — {} decisions, {} trials, {} social acts, {} dreams",
            read.as_secs_f64(),
            compute.as_secs_f64(),
            (read + compute).as_secs_f64(),
            e.sample.decisions,
            e.sample.trials,
            e.sample.social_events,
            e.sample.dreams
        );
    }
    if fresh && args.db.is_none() {
        let _ = std::fs::remove_file(&db);
    }
    Ok(())
}

//! `pawns bench mind`: the memory an agent keeps itself (issue 16) at scale, through
//! the real path: a server in this process, one agent on a WebSocket that `remember`s N
//! memories (batches of 32 actions), then `recall`s — each answered through the search
//! index the memories were recorded into. Reports remember throughput and recall
//! p50/p99 (round trip on loopback, client and server on the same cores).

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use crate::cli::BenchMindArgs;

const WORDS: &[&str] = &[
    "goblin", "gate", "north", "bram", "gold", "well", "temple", "dragon", "bread", "sword", "promise", "debt", "cellar", "key", "fire",
    "river", "merchant", "guard", "night", "storm", "wolf", "ring", "map", "tower", "song",
];

fn ms(v: &[u32], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v[((v.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn until(ws: &mut Ws, pred: impl Fn(&Value) -> bool) -> anyhow::Result<Value> {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(60), ws.next()).await.context("the server went quiet")?;
        match m {
            Some(Ok(Message::Text(t))) => {
                let v: Value = serde_json::from_str(t.as_str())?;
                if pred(&v) {
                    return Ok(v);
                }
            }
            Some(Ok(_)) => {}
            other => bail!("the socket ended: {other:?}"),
        }
    }
}

pub async fn run(args: BenchMindArgs) -> anyhow::Result<()> {
    let db = std::env::temp_dir().join(format!("pawns-bench-mind-{}.redb", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let mut cfg = pawns::server::ServerConfig { db: db.clone(), ..Default::default() };
    cfg.cmd_rate = 1e6;
    cfg.cmd_burst = 1e6;
    cfg.dream_daily = None;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let running = pawns::server::start(cfg, listener).await?;
    let key =
        pawns::net::accounts::Accounts::create_key(running.shared.accounts.store(), "ann", false).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", running.addr)).await?;
    ws.send(Message::text(json!({"type": "login", "data": {"player_name": "ann", "api_key": key}}).to_string())).await?;
    until(&mut ws, |v| v["type"] == "state").await?;
    println!("====== pawns bench mind ======");
    let t = Instant::now();
    let mut sent = 0usize;
    let mut n = 0u64;
    while sent < args.memories {
        let batch: Vec<Value> = (sent..(sent + 32).min(args.memories))
            .map(|i| {
                let text = format!(
                    "{} {} near the {} with {}: note {i}",
                    WORDS[i % WORDS.len()],
                    WORDS[(i / 7) % WORDS.len()],
                    WORDS[(i / 49) % WORDS.len()],
                    WORDS[(i / 343) % WORDS.len()]
                );
                json!({"type": "remember", "text": text})
            })
            .collect();
        sent += batch.len();
        n += 1;
        let id = format!("r{n}");
        ws.send(Message::text(json!({"type": "actions", "id": id, "data": {"actions": batch}}).to_string())).await?;
        let r = until(&mut ws, |v| v["re"] == id.as_str() && v["type"] == "actions_result").await?;
        if r["data"]["results"].as_array().is_some_and(|a| a.iter().any(|x| x["ok"] != true)) {
            bail!("a remember was refused: {r}");
        }
        if n.is_multiple_of(500) {
            eprintln!("  {sent} memories…");
        }
    }
    let wrote = t.elapsed();
    println!(
        "  remember: {} memories in {:.1} s ({:.0}/s; each durable in the data file when answered)",
        args.memories,
        wrote.as_secs_f64(),
        args.memories as f64 / wrote.as_secs_f64()
    );
    // Wait until the index holds everything recorded.
    let t = Instant::now();
    let (search, rec) = (running.shared.search.clone(), running.shared.record_stats.clone());
    if let (Some(s), Some(r)) = (search, rec) {
        while s.stats.indexed_batch.load(std::sync::atomic::Ordering::Relaxed) < r.last_id.load(std::sync::atomic::Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    println!("  the index caught up {:.1} s after the last remember", t.elapsed().as_secs_f64());
    let queries = ["goblin gate", "dragon", "promise debt", "wolf night storm", "nothing matches this"];
    let mut times = Vec::new();
    let mut found = 0usize;
    for r in 0..args.rounds {
        let q = queries[r % queries.len()];
        let id = format!("q{r}");
        let t = Instant::now();
        ws.send(Message::text(json!({"type": "actions", "id": id, "data": {"actions": [{"type": "recall", "query": q}]}}).to_string()))
            .await?;
        let v = until(&mut ws, |v| v["re"] == id.as_str() && v["type"] == "actions_result").await?;
        times.push(t.elapsed().as_micros() as u32);
        found += v["data"]["results"][0]["memories"].as_array().map_or(0, Vec::len);
    }
    times.sort_unstable();
    println!(
        "  recall over {} memories (index + the last 30 s directly), round trip: p50 {:.2} ms  p99 {:.2} ms ({} rounds, {:.1} memories each)",
        args.memories,
        ms(&times, 0.5),
        ms(&times, 0.99),
        args.rounds,
        found as f64 / args.rounds as f64
    );
    // Self-care of 5,000 memories with the deterministic summarizer (no model), through
    // the same call a session makes.
    let store = running.shared.accounts.store().clone();
    let mut meta = pawns_storage::MindMeta::default();
    let places = ["The Temple Altar", "The North Gate", "The Market", "The Inn", "The Sewers"];
    let recs: Vec<pawns_storage::MindRecord> = (0..args.self_care)
        .map(|i| {
            meta.next_id += 1;
            pawns_storage::MindRecord {
                id: meta.next_id,
                layer: pawns::mind::layers::MEMORY,
                text: format!(
                    "Bram and Cid talked about the {} near the {}: note {i}",
                    WORDS[i % WORDS.len()],
                    WORDS[(i / 5) % WORDS.len()]
                ),
                at_us: 1_700_000_000_000_000 + i as u64,
                room: Some(places[i % places.len()].to_string()),
                ..Default::default()
            }
        })
        .collect();
    store.mind_put("bo", &recs, &meta)?;
    let home = pawns::mind::Whereabouts { name: "Bo".into(), room_vnum: Some(8004), room: Some("The Temple Altar".into()), at_home: true };
    let t = Instant::now();
    let r = running.shared.mind.apply("bo", &json!({"type": "self_care"}), &home).await.map_err(|(c, m)| anyhow::anyhow!("{m} ({c})"))?;
    println!(
        "  self-care of {} memories (grouped, no model): {:.0} ms — {} archived, {} summaries in {} batches, {} summary tokens",
        args.self_care,
        t.elapsed().as_secs_f64() * 1000.0,
        r["archived"],
        r["summaries"].as_array().map_or(0, Vec::len),
        r["batches"],
        r["summary_tokens"]
    );
    let _ = ws.close(None).await;
    running.shutdown().await;
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_dir_all(pawns::search::index_dir(&db));
    Ok(())
}

//! `pawns bench residents`: N resident agents run by a server in this process against a
//! stand-in model that answers every request after a fixed latency (500 ms by default).
//! Reports the turns they sustained against the turns their heartbeats ask for, the
//! process's CPU (server, residents' loops and the stand-in together: say so when
//! quoting) and memory, and every failure, skip and refusal.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::cli::BenchResidentsArgs;

/// What the stand-in answers, in turn: a few words in the room and a step or a look.
const ANSWERS: &[&str] = &[
    r#"{"responses":[{"room_id":"here","message":"All quiet here."}],"actions":[{"type":"command","command":"look"}]}"#,
    r#"{"actions":[{"type":"command","command":"north"},{"type":"set","path":"trail.last","value":"north"}]}"#,
    r#"{"actions":[{"type":"command","command":"south"}]}"#,
    r#"{"responses":[{"room_id":"here","message":"Onward."}],"actions":[{"type":"command","command":"east"}]}"#,
    r#"{"actions":[{"type":"command","command":"west"}]}"#,
];

/// A chat-completions stand-in with keep-alive: every request is answered after
/// `latency`. Returns its URL and a request counter.
async fn stand_in(latency: Duration) -> anyhow::Result<(String, Arc<AtomicU64>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let count = Arc::new(AtomicU64::new(0));
    let c = count.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let c = c.clone();
            tokio::spawn(async move {
                let mut buf: Vec<u8> = Vec::new();
                let mut chunk = vec![0u8; 16 * 1024];
                loop {
                    // One request: the head, then the body by Content-Length.
                    let (head_end, len) = loop {
                        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                            let len = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:").and_then(|v| v.trim().parse::<usize>().ok()))
                                .unwrap_or(0);
                            if buf.len() >= end + 4 + len {
                                break (end + 4, len);
                            }
                        }
                        match sock.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    };
                    buf.drain(..head_end + len);
                    let n = c.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(latency).await;
                    let content = ANSWERS[n as usize % ANSWERS.len()];
                    let body = json!({"choices": [{"message": {"role": "assistant", "content": content}}],
                                      "usage": {"prompt_tokens": 0, "completion_tokens": 30}})
                    .to_string();
                    let resp = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len());
                    if sock.write_all(resp.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Ok((format!("http://{addr}"), count))
}

fn self_usage() -> Option<(f64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let f: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let rss_kb = status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some((ticks / 100.0, rss_kb))
}

pub async fn run(args: BenchResidentsArgs) -> anyhow::Result<()> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let (url, requests) = stand_in(args.llm_latency).await?;
    let db = std::env::temp_dir().join(format!("pawns-bench-residents-{}.redb", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let mut cfg = pawns::server::ServerConfig { db: db.clone(), world: args.world.clone(), ..Default::default() };
    cfg.dream_daily = None;
    cfg.residents.llm =
        Some(pawns::memory::llm::LlmConfig { endpoint: url, model: "stand-in".into(), key: None, timeout: Duration::from_secs(30) });
    cfg.residents.format = args.format.parse().map_err(|e| anyhow::anyhow!("--format: {e}"))?;
    cfg.residents.budget = args.budget;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let running = pawns::server::start(cfg, listener).await?;
    eprintln!("making {} residents (stand-in model answering in {:?})…", args.count, args.llm_latency);
    let t_make = Instant::now();
    for i in 0..args.count {
        let rec = pawns_storage::ResidentRecord {
            name: format!("res{i}"),
            kind: if i % 2 == 0 { "persona" } else { "bot" }.into(),
            prompt: "a curious wanderer who greets people and explores".into(),
            created_by: "admin".into(),
            created_at_us: pawns::time::unix_us(),
            ..Default::default()
        };
        running.shared.residents.create(rec).await.map_err(|(code, m)| anyhow::anyhow!("making res{i}: {m} ({code})"))?;
    }
    let made = t_make.elapsed();
    // Let them log in and settle into their heartbeats before measuring.
    tokio::time::sleep(args.warmup).await;
    let turns_of = |list: &[serde_json::Value], key: &str| list.iter().map(|r| r["status"][key].as_u64().unwrap_or(0)).sum::<u64>();
    let before_list = running.shared.residents.list();
    let (turns0, req0) = (turns_of(&before_list, "turns"), requests.load(Ordering::Relaxed));
    let u0 = self_usage();
    let t0 = Instant::now();
    tokio::time::sleep(args.duration).await;
    let elapsed = t0.elapsed().as_secs_f64();
    let u1 = self_usage();
    let list = running.shared.residents.list();
    let turns = turns_of(&list, "turns") - turns0;
    let asked = requests.load(Ordering::Relaxed) - req0;
    let states = |s: &str| list.iter().filter(|r| r["status"]["state"] == s).count();
    let cpu = match (u0, u1) {
        (Some(a), Some(b)) => Some(((b.0 - a.0) / elapsed * 100.0, b.1 as f64 / 1024.0)),
        _ => None,
    };
    let expected = args.count as f64 / 10.0;
    let report = json!({
        "residents": args.count,
        "made_in_s": made.as_secs_f64(),
        "llm_latency_ms": args.llm_latency.as_millis() as u64,
        "format": args.format,
        "budget": args.budget,
        "measured_s": elapsed,
        "turns": turns,
        "turns_per_s": turns as f64 / elapsed,
        "heartbeat_turns_per_s": expected,
        "model_requests": asked,
        "running": states("running"),
        "paused": states("paused"),
        "reconnecting": states("reconnecting") + states("connecting"),
        "skipped": turns_of(&list, "skipped"),
        "failures": turns_of(&list, "failures"),
        "unreadable": turns_of(&list, "unreadable"),
        "items_sent": turns_of(&list, "items_sent"),
        "items_refused": turns_of(&list, "items_refused"),
        "process_cpu_percent": cpu.map(|c| c.0),
        "cpu_ms_per_turn": cpu.map(|c| if turns > 0 { c.0 / 100.0 * elapsed * 1000.0 / turns as f64 } else { 0.0 }),
        "rss_mb": cpu.map(|c| c.1),
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} residents ({} HUD, {} tokens), model {} ms: {:.1} turns/s over {:.0} s (their 10 s heartbeats ask {:.1}/s); \
             {} running, {} paused, {} reconnecting; {} skipped beats, {} failures, {} unreadable; {} of {} items refused",
            args.count,
            args.format,
            args.budget,
            args.llm_latency.as_millis(),
            turns as f64 / elapsed,
            elapsed,
            expected,
            report["running"],
            report["paused"],
            report["reconnecting"],
            report["skipped"],
            report["failures"],
            report["unreadable"],
            report["items_refused"],
            report["items_sent"],
        );
        if let Some((c, rss)) = cpu {
            println!(
                "process (server + residents' loops + the stand-in): {c:.0}% CPU, {:.2} ms CPU per turn, {rss:.0} MB RSS",
                if turns > 0 { c / 100.0 * elapsed * 1000.0 / turns as f64 } else { 0.0 }
            );
        }
        println!("made in {:.1} s", made.as_secs_f64());
    }
    running.shutdown().await;
    std::fs::remove_file(&db).with_context(|| format!("removing the scratch file {}", db.display()))?;
    let _ = std::fs::remove_dir_all(pawns::search::index_dir(&db));
    Ok(())
}

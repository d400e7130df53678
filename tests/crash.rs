//! Crash safety of the record, with the real binary: `pawns serve` runs under agent
//! load and is killed with SIGKILL at a random moment, 20 times over the same data
//! file (`PAWNS_CRASH_KILLS=100` for the long opt-in run; each restart's time until
//! `/health` answers is printed, with the slowest, for the closing note). After every kill the file opens cleanly, everything the server reported as
//! committed before the kill is there, every batch decodes, and every session's stream
//! is a gap-free prefix (seq 1, 2, 3...), and the search index holds exactly the
//! records of the batches up to the one its last commit names (none twice, none
//! missing), so the next start resumes from there. A last run ends with SIGTERM: a
//! clean stop that closes every session and leaves the index caught up.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

const AGENTS: usize = 6;
/// Kills in CI; `PAWNS_CRASH_KILLS` asks for more.
const KILLS: usize = 20;

fn kills() -> usize {
    std::env::var("PAWNS_CRASH_KILLS").ok().and_then(|v| v.parse().ok()).filter(|n| *n > 0).unwrap_or(KILLS)
}

struct Server {
    child: Child,
    addr: String,
}

/// `every`: how often the index commits and the record's tail is packed (short, so
/// kills land mid-commit and mid-sweep too).
fn start(db: &Path, every: &str) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pawns"))
        .args(["serve", "--host", "127.0.0.1", "--port", "0", "--login-rate", "1000", "--login-burst", "1000", "--log", "warn"])
        .args(["--index-every", every, "--sweep-every", every, "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start pawns serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("read the listening line");
    let addr = line.split_whitespace().nth(3).unwrap_or_else(|| panic!("unexpected first line: {line}")).to_string();
    Server { child, addr }
}

async fn http(addr: &str, method: &str, path: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pawns-Client: crash-test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf)).await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default())
}

/// An agent that logs in and plays until its socket dies.
async fn agent(addr: String, name: String, key: String, seed: u64) {
    let Ok((ws, _)) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await else { return };
    let (mut tx, mut rx) = ws.split();
    let login = json!({"type": "login", "data": {"player_name": name, "password": key, "is_agent": true, "harness": "crash-test"}});
    if tx.send(Message::text(login.to_string())).await.is_err() {
        return;
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut n = 0u64;
    let mut tick = tokio::time::interval(Duration::from_millis(120));
    loop {
        tokio::select! {
            _ = tick.tick() => {
                n += 1;
                let cmd = ["look", "north", "south", "east", "west", "say hello", "score"][rng.gen_range(0..7)];
                if tx.send(Message::text(json!({"type": "command", "data": {"command": cmd}, "id": format!("c{n}")}).to_string())).await.is_err() {
                    return;
                }
            }
            m = rx.next() => if !matches!(m, Some(Ok(_))) { return },
        }
    }
}

fn check_file(db: &Path, durable: u64) -> (u64, u64) {
    let (store, _) = pawns_storage::Store::open(db).expect("the file opens cleanly after SIGKILL");
    let last = store.last_record_id().unwrap();
    assert!(last >= durable, "batch {durable} was reported committed before the kill, but the file ends at {last}");
    let all = store.records_after(0, usize::MAX).expect("every batch decodes");
    let sessions = store.all_sessions().unwrap();
    let streams = store.sessions_records(&sessions).unwrap();
    for s in &sessions {
        let seqs: Vec<u64> = streams[&s.session].iter().map(|r| r.seq).collect();
        assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "session {} has a gap", s.session);
    }
    drop(store);
    let watermark = check_index(db, false);
    (all.len() as u64, watermark)
}

/// The index's last commit names batch W: it holds exactly the records of batches 1..=W.
/// `caught_up`: W is the last batch of the record. Returns W.
fn check_index(db: &Path, caught_up: bool) -> u64 {
    let (store, _) = pawns_storage::Store::open(db).unwrap();
    let (index, fresh) = pawns::search::SearchIndex::open(&pawns::search::index_dir(db)).expect("the index opens after SIGKILL");
    assert!(!fresh, "the index survived the kill (it was not rebuilt)");
    let watermark = index.watermark();
    let last = store.last_record_id().unwrap();
    assert!(watermark <= last, "the index is ahead of the record: {watermark} > {last}");
    if caught_up {
        assert_eq!(watermark, last, "a clean stop leaves the index caught up");
    }
    // Every record of batches 1..=W in exactly one document (a command's), nothing else.
    let mut want: Vec<(u64, u64)> = store
        .batches_after(0, usize::MAX)
        .unwrap()
        .iter()
        .filter(|(id, _)| *id <= watermark)
        .flat_map(|(_, rs)| rs.iter().map(|r| (r.session, r.seq)).collect::<Vec<_>>())
        .collect();
    want.sort_unstable();
    let mut held: Vec<(u64, u64)> =
        index.every_place().unwrap().iter().flat_map(|p| (p.seq_lo..=p.seq_hi).map(move |seq| (p.session, seq))).collect();
    held.sort_unstable();
    assert_eq!(held.len(), want.len(), "the index holds the records up to batch {watermark}, each once");
    assert!(held == want, "the index holds the records up to batch {watermark}, each once");
    watermark
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_under_load_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.redb");
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
    let mut keys = Vec::new();
    let mut last_total = 0;
    let mut prev_last = 0u64;
    let kills = kills();
    let mut restarts: Vec<Duration> = Vec::new();
    for round in 0..kills {
        // Odd rounds commit the index and pack the tail every 50 ms, so kills land while
        // it indexes and while sweeps build and apply packs.
        let began = Instant::now();
        let mut server = start(&db, if round % 2 == 1 { "50ms" } else { "2s" });
        while http(&server.addr, "GET", "/health").await.0 != 200 {
            assert!(began.elapsed() < Duration::from_secs(60), "round {round}: /health never answered");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        restarts.push(began.elapsed());
        if keys.is_empty() {
            for i in 0..AGENTS {
                let name = format!("crash{}", (b'a' + i as u8) as char);
                let (status, body) = http(&server.addr, "POST", &format!("/api/admin/keygen?name={name}")).await;
                assert_eq!(status, 200, "{body}");
                let v: Value = serde_json::from_str(&body).unwrap();
                keys.push((name, v["key"].as_str().unwrap().to_string()));
            }
        }
        let tasks: Vec<_> = keys
            .iter()
            .enumerate()
            .map(|(i, (n, k))| tokio::spawn(agent(server.addr.clone(), n.clone(), k.clone(), (round * 100 + i) as u64)))
            .collect();
        // Each start catches the index up from its watermark. How fast depends on the
        // machine, so the round waits for it (bounded) instead of racing it: the kill
        // window starts once the index holds what earlier rounds recorded.
        let caught_up_by = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, body) = http(&server.addr, "GET", "/api/search/status").await;
            let at = serde_json::from_str::<Value>(&body).ok().and_then(|v| v["indexed_batch"].as_u64()).unwrap_or(0);
            if status == 200 && at >= prev_last {
                break;
            }
            assert!(Instant::now() < caught_up_by, "round {round}: the index never caught up to {prev_last} (at {at}): {body}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Watch what the server reports durable until the kill.
        let kill_at = Instant::now() + Duration::from_millis(rng.gen_range(300..1500));
        let mut durable = 0;
        while Instant::now() < kill_at {
            let (status, body) = http(&server.addr, "GET", "/api/record").await;
            if status == 200 {
                let v: Value = serde_json::from_str(&body).unwrap();
                durable = durable.max(v["last_batch"].as_u64().unwrap_or(0));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        server.child.kill().expect("SIGKILL");
        server.child.wait().unwrap();
        for t in tasks {
            let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
        }
        let (total, watermark) = check_file(&db, durable);
        // What the index committed before the kill survives it.
        eprintln!("round {round}: durable {durable}, index at batch {watermark}");
        if round > 0 {
            assert!(watermark >= prev_last, "round {round}: the index did not catch up to {prev_last} (at {watermark})");
        }
        prev_last = durable;
        assert!(total >= last_total, "records never go away");
        last_total = total;
    }
    assert!(last_total > 100, "the load was recorded ({last_total} records)");
    restarts.sort();
    eprintln!(
        "{kills} kills, {last_total} records: restart until /health answers p50 {:?}, slowest {:?}",
        restarts[restarts.len() / 2],
        restarts.last().copied().unwrap_or_default()
    );

    // A clean stop (SIGTERM) closes every session, those the kills left open included.
    let mut server = start(&db, "2s");
    let began = Instant::now();
    while http(&server.addr, "GET", "/health").await.0 != 200 {
        assert!(began.elapsed() < Duration::from_secs(60), "the last start: /health never answered");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let pid = server.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = server.child.wait().unwrap();
    assert!(status.success(), "SIGTERM is a clean stop: {status}");
    assert!(check_index(&db, true) > 0);
    let (store, _) = pawns_storage::Store::open(&db).unwrap();
    let sessions = store.all_sessions().unwrap();
    assert!(sessions.len() >= AGENTS * kills / 2, "{} sessions", sessions.len());
    assert!(sessions.iter().all(|s| s.ended_us.is_some()), "every session is closed");
    assert!(sessions.iter().any(|s| s.ended_how.as_deref() == Some("server_stopped")));
}

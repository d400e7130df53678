//! SIGTERM stops the real `pawns serve` within 5 s whatever it is doing: here 10,000
//! link-dead agents (each ending a recorded session, so each asking for a logout dream)
//! and a dream backlog. Pending dreams are dropped (they run again at the next
//! trigger); every session is closed and recorded; the data file is released.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

const GHOSTS: usize = 10_000;
const STOP_WITHIN: Duration = Duration::from_secs(5);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_within_five_seconds_with_ten_thousand_link_dead_and_a_dream_backlog() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    crate::world::write(&world);
    let db = dir.path().join("p.redb");
    let (mut child, addr) = serve_process(&db, &world, &["--fault-injection"], Stdio::null());
    let key = pawns::client::create_key(&format!("http://{addr}"), "brenda").await.unwrap();
    let mut a = WsClient::connect(addr).await;
    a.login_key("brenda", &key).await;
    a.cmd(&format!("__linkdead {GHOSTS}"), "g").await;
    assert!(a.reply_text("g").await.contains(&format!("{GHOSTS} link-dead")));
    // Every ghost hears these: records in 10,000 sessions for their logout dreams to read.
    for i in 0..3 {
        a.cmd(&format!("say hello {i}"), &format!("s{i}")).await;
        a.reply_text(&format!("s{i}")).await;
    }
    // Everything so far is durable before the stop is timed.
    eventually("the recorder caught up", || async {
        let v: serde_json::Value = serde_json::from_str(&http_get(addr, "/api/record").await.1).unwrap();
        (v["backlog"] == 0 && v["committed"].as_u64().unwrap_or(0) >= 3 * GHOSTS as u64).then_some(())
    })
    .await;
    // A dream backlog: every agent (the ghosts were saved as agents) is asked to dream;
    // the stop comes while the dreamer is working through them.
    tokio::spawn(async move { http_post(addr, "/api/admin/dream?all=1").await });
    eventually("the dreamer at work", || async {
        let v: serde_json::Value = serde_json::from_str(&http_get(addr, "/api/record").await.1).unwrap();
        (v["dreamer"]["dreams"].as_u64().unwrap_or(0) >= 50).then_some(())
    })
    .await;
    let pid = child.id().to_string();
    let asked = Instant::now();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = tokio::task::spawn_blocking(move || loop {
        if let Some(s) = child.try_wait().unwrap() {
            return (s, asked.elapsed());
        }
        if asked.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the server had not stopped a minute after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(10));
    })
    .await
    .unwrap();
    eprintln!("SIGTERM → exit in {:?}", status.1);
    assert!(status.0.success(), "exit status {:?}", status.0);
    assert!(status.1 <= STOP_WITHIN, "SIGTERM took {:?} (limit {STOP_WITHIN:?})", status.1);
    // The file is released, and every session was closed and recorded.
    let (store, _) = pawns_storage::Store::open(&db).expect("the data file is released");
    let sessions = store.all_sessions().unwrap();
    let ghosts: Vec<_> = sessions.iter().filter(|s| s.agent.starts_with("ghost")).collect();
    assert_eq!(ghosts.len(), GHOSTS);
    assert!(ghosts.iter().all(|s| s.ended_how.as_deref() == Some("shutdown")), "every ghost's session ended at the shutdown");
    let one = ghosts.iter().find(|s| s.agent == "ghost77").unwrap();
    assert_eq!(store.session_records(one.session).unwrap().len() as u64, one.records);
    assert!(one.records >= 3, "{one:?}");
    assert!(store.character("ghost9999").unwrap().is_some(), "link-dead characters were saved");
}

/// A stopped server lets go of its data file even with clients still connected (an
/// agent logged in, a WebSocket that never logged in, a telnet login half done, an
/// HTTP request half sent, a connection that never spoke), so a server started at once on the same file opens it. Before,
/// connection tasks outlived the stop holding the store, and the restart was refused
/// ("held by another process"): the search test met it on CI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_lets_go_of_the_file_with_clients_still_connected() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut ws = WsClient::connect(srv.addr).await;
    ws.login_key("brenda", &key).await;
    let mut telnet = Telnet::connect(srv.addr).await;
    telnet.until("name").await;
    let mut half_http = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut half_http, b"GET /health HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let silent = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    // A WebSocket that never logs in: its session waits on the socket, not the engine.
    let quiet_ws = WsClient::connect(srv.addr).await;
    let (_, body) = http_get(srv.addr, "/health").await;
    assert!(body.to_lowercase().contains("ok"), "{body}");
    // `restart` stops the server, then starts one on the same file (and unwraps it).
    let srv = srv.restart().await;
    let (_, body) = http_get(srv.addr, "/health").await;
    assert!(body.to_lowercase().contains("ok"), "{body}");
    drop((ws, quiet_ws, telnet, half_http, silent));
    srv.shutdown().await;
}

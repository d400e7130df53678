use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use crate::common::*;

#[tokio::test]
async fn malformed_input_gets_coded_errors_and_the_connection_stays() {
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send_raw("{not json").await;
    assert_eq!(a.error_code().await, "bad_request");
    a.send_raw("[1,2,3]").await;
    assert_eq!(a.error_code().await, "bad_request");
    a.send(json!({"type": "login", "data": {"player_name": 42}})).await;
    assert_eq!(a.error_code().await, "bad_request");
    a.send(json!({"type": "dance", "id": "d1"})).await;
    let e = a.expect("error").await;
    assert_eq!((e["data"]["code"].as_str(), e["re"].as_str()), (Some("unknown_type"), Some("d1")));
    a.send(json!({"type": "command", "data": {"command": "look"}})).await;
    assert_eq!(a.error_code().await, "not_authenticated");
    a.send(json!({"type": "subscribe", "data": {"variables": ["HEALTH"]}})).await;
    assert_eq!(a.error_code().await, "not_authenticated");
    a.send(json!({"type": "char_input", "data": {"choice": "m"}})).await;
    assert_eq!(a.error_code().await, "bad_request");
    a.ws.send(Message::binary(vec![1u8, 2, 3])).await.unwrap();
    assert_eq!(a.error_code().await, "bad_request");
    // Still open and serving.
    let key = srv.key("brenda").await;
    a.login_key("brenda", &key).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn login_failures_have_their_codes() {
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "4bd", "password": "x", "new_char": true}})).await;
    assert_eq!(a.error_code().await, "invalid_name");
    a.send(json!({"type": "login", "data": {"player_name": "bo b", "password": "x", "new_char": true, "class": 3}})).await;
    assert_eq!(a.error_code().await, "invalid_name");
    a.send(json!({"type": "login", "data": {"player_name": "Self", "password": "x", "new_char": true, "class": 3}})).await;
    assert_eq!(a.error_code().await, "invalid_name");
    a.send(json!({"type": "login", "data": {"player_name": "nobody", "password": "x"}})).await;
    assert_eq!(a.error_code().await, "auth_failed");
    a.send(json!({"type": "login", "data": {"password": format!("dp_{}", "0".repeat(64)), "is_agent": true}})).await;
    assert_eq!(a.error_code().await, "auth_failed");
    // A key logs in its own character whatever player_name says (the seed's rule): see
    // `real_clients::a_key_logs_in_its_own_character_and_says_so`.
    a.send(json!({"type": "login", "data": {"player_name": "Mira", "password": "pw-mira", "new_char": true, "class": 7}})).await;
    let e = a.expect("error").await;
    assert_eq!(e["data"]["code"], "bad_request");
    assert!(e["data"]["message"].as_str().unwrap().contains("Psionic"), "names the allowed values");
    a.send(json!({"type": "login", "data": {"player_name": "Mira", "password": "pw-mira", "new_char": true, "class": 1}})).await;
    a.expect("state").await;
    a.send(json!({"type": "login", "data": {"player_name": "Mira", "password": "pw-mira"}})).await;
    assert_eq!(a.error_code().await, "bad_request", "a second login on the same connection");
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"player_name": "mira", "password": "pw-mira", "new_char": true, "class": 1}})).await;
    assert_eq!(b.error_code().await, "name_taken");
    b.send(json!({"type": "login", "data": {"player_name": "mira", "password": "wrong"}})).await;
    assert_eq!(b.error_code().await, "auth_failed");
    srv.shutdown().await;
}

#[tokio::test]
async fn unknown_variables_are_named_and_the_rest_subscribed() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["HEALTH", "NOPE", "ALSO_NOPE"]}, "id": "s"})).await;
    let e = a.expect("error").await;
    assert_eq!(e["data"]["code"], "unknown_variable");
    assert_eq!(e["data"]["variables"], json!(["NOPE", "ALSO_NOPE"]));
    assert_eq!(e["re"], "s");
    let v = a.expect("vars").await;
    assert!(v["data"]["HEALTH"].as_i64().unwrap() > 0);
    srv.shutdown().await;
}

#[tokio::test]
async fn over_the_command_rate_is_rate_limited_with_an_events_entry() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["EVENTS"]}})).await;
    for i in 0..15 {
        a.cmd("score", &format!("c{i}")).await;
    }
    let e = a.expect("error").await;
    assert_eq!(e["data"]["code"], "rate_limited");
    assert!(e["data"]["retry_after_ms"].as_u64().unwrap() > 0);
    assert!(e["re"].as_str().unwrap().starts_with('c'));
    let v = a
        .until(|v| v["type"] == "vars" && v["data"]["EVENTS"].as_array().is_some_and(|e| e.iter().any(|x| x["type"] == "rate_limited")))
        .await;
    let ev = v["data"]["EVENTS"].as_array().unwrap().iter().find(|x| x["type"] == "rate_limited").unwrap().clone();
    assert_eq!(ev["command"], "score");
    srv.shutdown().await;
}

/// A command longer than a telnet line is cut where telnet cuts it, and the client is
/// told so (it was clipped with no word over WebSocket) — issue 52.
#[tokio::test]
async fn a_long_command_is_cut_and_the_client_told() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.cmd(&format!("say {}", "ab".repeat(1000)), "long").await;
    let told = a.until(|v| v["data"]["text"].as_str().is_some_and(|t| t.starts_with("Line too long"))).await;
    assert_eq!(told["data"]["text"], "Line too long (over 512 bytes); the rest was dropped.");
    let said = a.reply_text("long").await;
    assert!(said.starts_with("You say, 'abab") && said.len() < 540, "{said}");
    srv.shutdown().await;
}

#[tokio::test]
async fn oversized_frames_close_with_1009() {
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    let big = format!("{{\"type\":\"command\",\"data\":{{\"command\":\"say {}\"}}}}", "x".repeat(17 * 1024));
    a.send_raw(&big).await;
    assert_eq!(a.error_code().await, "frame_too_large");
    assert_eq!(a.closed().await, Some(1009));
    // Everyone else is still served.
    assert_eq!(http_get(srv.addr, "/health").await.0, 200);
    srv.shutdown().await;
}

/// A logged-in client (no permessage-deflate, as the seed's clients) sends 20 KiB: the
/// error comes first, then the 1009 close (the close used to overtake the error, which
/// travels through the session's link).
#[tokio::test]
async fn an_oversized_frame_after_login_gets_its_error_before_the_close() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    for _ in 0..3 {
        let mut a = WsClient::connect(srv.addr).await;
        a.login_key("brenda", &key).await;
        a.expect("vars").await;
        let big = format!("{{\"type\":\"command\",\"data\":{{\"command\":\"say {}\"}}}}", "x".repeat(20 * 1024));
        a.send_raw(&big).await;
        let mut error = None;
        let close = loop {
            match tokio::time::timeout(WAIT, a.ws.next()).await.expect("timed out") {
                Some(Ok(Message::Text(t))) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    if v["type"] == "error" {
                        error = Some(v);
                    }
                }
                Some(Ok(Message::Close(f))) => break f.map(|f| u16::from(f.code)),
                Some(Ok(_)) => {}
                Some(Err(e)) => panic!("no close frame: {e}"),
                None => panic!("no close frame"),
            }
        };
        let e = error.expect("frame_too_large arrives before the close");
        assert_eq!(e["data"]["code"], "frame_too_large");
        assert_eq!(close, Some(1009));
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn ten_failed_logins_lock_the_address_out() {
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    for _ in 0..9 {
        a.send(json!({"type": "login", "data": {"player_name": "ghost", "password": "nope"}})).await;
        assert_eq!(a.error_code().await, "auth_failed");
    }
    a.send(json!({"type": "login", "data": {"player_name": "ghost", "password": "nope"}})).await;
    let e = a.expect("error").await;
    assert_eq!(e["data"]["code"], "locked_out");
    assert!(e["data"]["retry_after_ms"].as_u64().unwrap() > 60_000, "the failure that starts the lockout says how long: {e}");
    a.closed().await;
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"player_name": "ghost", "password": "nope"}})).await;
    let e = b.expect("error").await;
    assert_eq!(e["data"]["code"], "locked_out");
    assert!(e["data"]["retry_after_ms"].as_u64().unwrap() > 60_000);
    srv.shutdown().await;
}

#[tokio::test]
async fn login_rate_per_address_is_enforced() {
    let srv = TestServer::start_with(|c| {
        c.login.rate = 1.0;
        c.login.burst = 2.0;
    })
    .await;
    let mut a = WsClient::connect(srv.addr).await;
    let mut codes = Vec::new();
    for _ in 0..4 {
        a.send(json!({"type": "login", "data": {"player_name": "ghost", "password": "nope"}})).await;
        codes.push(a.error_code().await);
    }
    assert!(codes.contains(&"rate_limited".to_string()), "{codes:?}");
    srv.shutdown().await;
}

#[tokio::test]
async fn the_connection_cap_refuses_and_releases_slots() {
    let srv = TestServer::start_with(|c| c.conns.total = 2).await;
    let a = WsClient::connect(srv.addr).await;
    let _b = WsClient::connect(srv.addr).await;
    let mut c = WsClient::connect(srv.addr).await;
    assert_eq!(c.error_code().await, "too_many_connections");
    c.closed().await;
    drop(a);
    // The slot comes back (the accounting never leaks).
    eventually("the slot released", || async { (srv.running.as_ref().unwrap().shared.conns.open() < 2).then_some(()) }).await;
    let mut d = WsClient::connect(srv.addr).await;
    d.send(json!({"type": "command", "data": {"command": "look"}})).await;
    assert_eq!(d.error_code().await, "not_authenticated");
    srv.shutdown().await;
}

#[tokio::test]
async fn a_client_that_never_reads_is_cut_off_as_slow_consumer() {
    let srv = TestServer::start_with(|c| {
        c.out_queue = 16;
        c.cmd_rate = 10_000.0;
        c.cmd_burst = 10_000.0;
        c.engine.pulse = Duration::from_millis(5);
    })
    .await;
    let key = srv.key("brenda").await;
    // A small receive window so the kernel buffers fill fast.
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let stream = sock.connect(srv.addr).await.unwrap();
    let (ws, _) =
        tokio_tungstenite::client_async(format!("ws://{}/ws", srv.addr), tokio_tungstenite::MaybeTlsStream::Plain(stream)).await.unwrap();
    let mut a = WsClient { ws, last_seq: 0, seen: Vec::new() };
    a.login_key("brenda", &key).await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["*"]}})).await;
    // The server writes straight to its socket, whose send buffer the kernel grows (up to
    // `tcp_wmem`'s maximum, 4 MiB by default) before a write would block. Commands at the
    // engine's pace (one a pulse runs; more than 64 waiting are refused, in a few bytes)
    // until the server cuts the socket off, without reading a byte meanwhile.
    let metrics = srv.running.as_ref().unwrap().shared.metrics.clone();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let mut i = 0;
    while metrics.slow_consumer_link.load(std::sync::atomic::Ordering::Relaxed) == 0 {
        assert!(std::time::Instant::now() < deadline, "never cut off");
        let look = json!({"type": "command", "data": {"command": "look"}, "id": format!("c{i}")});
        if a.ws.send(Message::text(look.to_string())).await.is_err() {
            break;
        }
        i += 1;
        // (Paced: under the command rate, so what cuts it off is the unread socket.)
        tokio::time::sleep(Duration::from_millis(4)).await;
    }
    // Now read everything: the last word is slow_consumer, then the socket closes.
    a.closed().await;
    let codes: Vec<&str> = a.seen.iter().filter(|v| v["type"] == "error").filter_map(|v| v["data"]["code"].as_str()).collect();
    assert!(codes.contains(&"slow_consumer"), "errors seen: {codes:?}");
    // The server keeps serving everyone else, and the agent can come back.
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("brenda", &key).await;
    b.cmd("look", "again").await;
    b.until(|v| v["re"] == "again" && v["type"] == "state").await;
    // The cut depends on the socket, not the game: the journal says where it fell, and a
    // replay makes the same records (the cut session's and the one after it).
    let dir = srv.shutdown_keep_dir().await;
    let (store, _) = pawns_storage::Store::open(dir.path().join("test.redb")).unwrap();
    let opts = pawns::replay::run::ReplayOptions { session: None, window: Some((0, u64::MAX)) };
    let r = pawns::replay::run::replay(&store, &opts, &mut |_, _| {}).unwrap();
    assert!(r.divergence.is_none(), "{}", serde_json::to_string_pretty(&r.divergence).unwrap());
    assert!(r.sessions.len() == 2 && r.sessions.iter().all(|s| s.identical), "{:?}", r.sessions);
}

/// A command that panics answers its player `internal` with a correlation id; the world,
/// that player and everyone else go on.
#[tokio::test]
async fn a_panicking_command_answers_internal_and_the_world_goes_on() {
    let srv = TestServer::start_with(|c| c.engine.fault_injection = true).await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"player_name": "Hiro", "password": "pw-hiro", "new_char": true, "class": 3}})).await;
    b.expect("state").await;
    a.cmd("__panic", "p").await;
    let e = a.until(|v| v["type"] == "error" && v["re"] == "p").await;
    assert_eq!(e["data"]["code"], "internal");
    assert!(e["data"]["message"].as_str().unwrap().contains("correlation id"), "{e}");
    a.cmd("look", "l").await;
    assert!(a.reply_text("l").await.contains("Temple"), "the player plays on");
    b.cmd("say still here", "s").await;
    assert!(b.reply_text("s").await.contains("still here"), "so does everyone else");
    assert_eq!(http_get(srv.addr, "/health").await, (200, "OK".to_string()));
    srv.shutdown().await;
}

/// A panic outside any command kills the engine thread: `/health` answers 503 and the
/// real `pawns serve` exits non-zero so a supervisor restarts it.
#[tokio::test]
async fn a_dead_engine_fails_health_and_ends_the_process() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    crate::world::write(&world);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pawns"))
        .args(["serve", "--host", "127.0.0.1", "--port", "0", "--log", "error", "--fault-injection", "--db"])
        .arg(dir.path().join("p.redb"))
        .arg("--world")
        .arg(&world)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr: std::net::SocketAddr = line.split_whitespace().nth(3).expect("listening line").parse().expect(&line);
    assert_eq!(http_get(addr, "/health").await.0, 200);
    let key = pawns::client::create_key(&format!("http://{addr}"), "brenda").await.unwrap();
    let mut a = WsClient::connect(addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("__panic_engine", "x").await;
    // The process ends by itself, with an error.
    let status = tokio::task::spawn_blocking(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(s) = child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
                return (s, err);
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("the server did not exit after its engine died");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    })
    .await
    .unwrap();
    assert!(!status.0.success(), "exit status {:?}", status.0);
    assert!(status.1.contains("engine_dead"), "{}", status.1);
}

/// While the engine is dead and the process not yet gone, `/health` says so.
#[tokio::test]
async fn health_answers_503_once_the_engine_is_dead() {
    let srv = TestServer::start_with(|c| c.engine.fault_injection = true).await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("__panic_engine", "x").await;
    let mut dead = srv.running.as_ref().unwrap().shared.engine_dead.clone();
    tokio::time::timeout(WAIT, dead.wait_for(|d| *d)).await.unwrap().unwrap();
    let (code, body) = http_get(srv.addr, "/health").await;
    assert_eq!(code, 503);
    assert!(body.contains("engine_dead"), "{body}");
    srv.shutdown().await;
}

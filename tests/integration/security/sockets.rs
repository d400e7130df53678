//! Sockets that have proven nothing: WebSocket messages limited while assembled, a
//! deadline and a budget before login, HTTP deadlines, the connection caps and the
//! descriptor limit; telnet lines cut between characters.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::Message;

use super::*;
use crate::common::*;

/// A message sent as fragments that never finish is refused as soon as it passes the
/// protocol's 16 KiB, not buffered (it was, up to 1 MiB per socket, before any login).
#[tokio::test]
async fn an_unfinished_fragmented_message_is_refused_at_the_limit() {
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    let chunk = vec![b'x'; 4096];
    a.ws.send(Message::Frame(Frame::message(chunk.clone(), OpCode::Data(Data::Text), false))).await.unwrap();
    for _ in 0..4 {
        // The server may already have closed: the later sends may fail.
        if a.ws.send(Message::Frame(Frame::message(chunk.clone(), OpCode::Data(Data::Continue), false))).await.is_err() {
            break;
        }
    }
    assert_eq!(a.error_code().await, "frame_too_large");
    assert_eq!(a.closed().await, Some(1009));
    srv.shutdown().await;
}

/// A socket that never logs in is closed after the deadline, with a code.
#[tokio::test]
async fn a_socket_that_does_not_log_in_is_closed() {
    let srv = TestServer::start_with(|c| c.sockets.login_within = Duration::from_millis(300)).await;
    let mut a = WsClient::connect(srv.addr).await;
    assert_eq!(a.error_code().await, "login_timeout");
    assert_eq!(a.closed().await, Some(1008));
    // One that logs in in time stays.
    let key = srv.key("brenda").await;
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("brenda", &key).await;
    tokio::time::sleep(Duration::from_millis(600)).await; // past the deadline: nothing shows it was not applied
    b.cmd("look", "l1").await;
    b.until(|v| v["re"] == "l1").await;
    srv.shutdown().await;
}

/// Before login a socket has a small budget of messages.
#[tokio::test]
async fn a_socket_that_talks_without_logging_in_is_closed() {
    let srv = TestServer::start_with(|c| c.sockets.pre_login_frames = 8).await;
    let mut a = WsClient::connect(srv.addr).await;
    for _ in 0..9 {
        let _ = a.ws.send(Message::text(json!({"type": "command", "data": {"command": "look"}}).to_string())).await;
    }
    let mut codes = Vec::new();
    for _ in 0..9 {
        let code = a.error_code().await;
        let last = code == "login_budget";
        codes.push(code);
        if last {
            break;
        }
    }
    assert_eq!(codes.len(), 9, "{codes:?}");
    assert!(codes[..8].iter().all(|c| c == "not_authenticated"), "{codes:?}");
    assert_eq!(a.closed().await, Some(1008));
    srv.shutdown().await;
}

/// After `frame_too_large` a logged-in socket's connection ends at once (the close frame
/// came, but the connection stayed open until the link let go of the socket).
#[tokio::test]
async fn an_oversized_frame_after_login_ends_the_connection_at_once() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.expect("vars").await;
    a.send_raw(&format!("{{\"type\":\"command\",\"data\":{{\"command\":\"say {}\"}}}}", "x".repeat(20 * 1024))).await;
    assert_eq!(a.closed().await, Some(1009));
    // What follows the close frame is the end of the connection, not minutes of nothing.
    let end = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match a.ws.next().await {
                None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            }
        }
    })
    .await;
    assert!(end.is_ok(), "the connection was still open 5 s after the close");
    srv.shutdown().await;
}

/// A telnet line over 512 bytes of multi-byte text is cut between characters and taken.
#[tokio::test]
async fn a_long_telnet_line_of_multibyte_text_is_cut_and_taken() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Zoe", "secret-pass").await;
    t.line(&format!("say x{}", "é€".repeat(200))).await;
    let out = t.until("You say").await;
    assert!(out.contains("Line too long"), "{out}");
    assert!(!out.contains("not valid UTF-8"), "{out}");
    t.until("mv > ").await;
    // A line that is not UTF-8 at all is refused, and the prompt follows (it did not).
    t.send_bytes(b"say \xc3\x28 broken\r\n").await;
    let out = t.until("mv > ").await;
    assert!(out.contains("not valid UTF-8"), "{out}");
    srv.shutdown().await;
}

/// Half a header, or an idle keep-alive connection, is closed at the header deadline
/// (both were alive after 330 s).
#[tokio::test]
async fn http_connections_time_out() {
    use tokio::io::AsyncWriteExt;
    let srv = TestServer::start_with(|c| c.sockets.http_header_within = Duration::from_millis(400)).await;
    let mut half = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    half.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    assert!(closed_within(&mut half, Duration::from_secs(5)).await, "half a header is closed");
    let mut idle = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.unwrap();
    assert!(closed_within(&mut idle, Duration::from_secs(5)).await, "an idle keep-alive connection is closed");
    srv.shutdown().await;
}

/// HTTP connections over the cap are not served (they were), but for the health check.
#[tokio::test]
async fn http_over_the_connection_cap_is_refused() {
    let srv = TestServer::start_with(|c| c.conns = pawns::auth::limits::ConnLimits { total: 1, per_ip: 1 }).await;
    let mut t = Telnet::connect(srv.addr).await;
    t.until("known? ").await;
    let (code, body) = http_get(srv.addr, "/api/who").await;
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("too_many_connections"), "{body}");
    assert_eq!(http_get(srv.addr, "/health").await.0, 200);
    srv.shutdown().await;
}

/// At the descriptor limit `accept` failed and everyone timed out, `/health` too. The
/// caps now fit under the limit with headroom: past them a connection is told the game
/// is full and closed, and `/health` still answers.
#[tokio::test]
async fn a_flood_at_the_descriptor_limit_is_shed_clearly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::CommandExt;
    use tokio::io::AsyncReadExt;
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    crate::world::write(&world);
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pawns"));
    cmd.args(["serve", "--host", "127.0.0.1", "--port", "0", "--log", "error", "--db"])
        .arg(dir.path().join("fd.redb"))
        .arg("--world")
        .arg(&world)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // 1,024 kept as headroom: room for 176 connections.
    let limit = (pawns::net::descriptors::HEADROOM + 176) as libc::rlim_t;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr: std::net::SocketAddr = line.split_whitespace().nth(3).expect("listening line").parse().expect(&line);
    let mut held = Vec::new();
    for _ in 0..176 {
        held.push(tokio::net::TcpStream::connect(addr).await.unwrap());
    }
    // Each of the held ones got its banner: the server took them all (before the next
    // one comes: the server takes connections in its own time).
    for s in held.iter_mut() {
        let mut b = [0u8; 64];
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut b)).await.expect("a banner").unwrap();
        assert!(n > 0 && !String::from_utf8_lossy(&b[..n]).contains("too_many"), "a held connection was refused");
    }
    let mut over = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut said = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), over.read_to_end(&mut said)).await.expect("told and closed").unwrap();
    // A person reads words (the JSON and HTTP refusals carry the code).
    assert!(String::from_utf8_lossy(&said).contains("the game is full right now"), "{}", String::from_utf8_lossy(&said));
    let (code, _) = tokio::time::timeout(Duration::from_secs(10), http_get(addr, "/health")).await.expect("/health answers");
    assert_eq!(code, 200);
    drop(held);
    let _ = child.kill();
    let _ = child.wait();
}

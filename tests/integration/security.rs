//! What an attacker and a careless operator tried (issue 48): each test failed before
//! its fix. SECURITY.md is the threat model these hold.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::Message;

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

/// `pawns ARGS` in `cwd`: (exit code, stdout, stderr).
fn pawns_in(cwd: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pawns")).current_dir(cwd).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Like `pawns_in`, off the async runtime (the server under test runs on it).
async fn pawns_async(cwd: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let (cwd, args): (std::path::PathBuf, Vec<String>) = (cwd.to_path_buf(), args.iter().map(|s| s.to_string()).collect());
    tokio::task::spawn_blocking(move || pawns_in(&cwd, &args.iter().map(String::as_str).collect::<Vec<_>>())).await.unwrap()
}

/// An explicit `--server` is the server asked, and no data file appears where the
/// command ran (backup, export and dream made an empty ./pawns.redb and used it).
#[tokio::test]
async fn an_explicit_server_is_asked_and_no_data_file_appears() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("look", "l1").await;
    a.until(|v| v["re"] == "l1").await;
    drop(a);
    let cwd = tempfile::tempdir().unwrap();
    let url = format!("http://{}", srv.addr);
    let backup = cwd.path().join("b.redb");
    let (code, out, err) = pawns_async(cwd.path(), &["backup", backup.to_str().unwrap(), "--server", &url]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 agent keys"), "the server's file was backed up: {out}");
    let (code, out, err) = pawns_async(cwd.path(), &["export", "sessions", "--server", &url]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("brenda") || err.contains("exported"), "{out}{err}");
    let (code, _, err) = pawns_async(cwd.path(), &["dream", "--agent", "brenda", "--server", &url]).await;
    assert_eq!(code, 0, "{err}");
    assert!(!cwd.path().join("pawns.redb").exists(), "no data file is made where the command ran");
    srv.shutdown().await;
}

/// A missing data file is an error naming it, and none is made (not by a typo either).
#[test]
fn a_missing_data_file_is_an_error_and_none_is_made() {
    let cwd = tempfile::tempdir().unwrap();
    let runs: [&[&str]; 7] = [
        &["export", "sessions", "--db", "typo.redb"],
        &["backup", "out.redb", "--db", "typo.redb"],
        &["dream", "--agent", "brenda", "--db", "typo.redb"],
        &["search", "goblin", "--db", "typo.redb"],
        &["eval", "--db", "typo.redb", "--json"],
        &["replay", "--session", "1", "--db", "typo.redb"],
        &["export", "memory", "--agent", "brenda", "--db", "typo.redb"],
    ];
    for args in runs {
        let (code, _, err) = pawns_in(cwd.path(), args);
        assert_ne!(code, 0, "{args:?}: {err}");
        assert!(err.contains("typo.redb") && err.contains("db_missing"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let left: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "nothing is made: {left:?}");
}

/// A data file made by a real run, and its world.
async fn a_data_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    for i in 0..3 {
        a.cmd("look", &format!("l{i}")).await;
        a.until(|v| v["re"] == format!("l{i}")).await;
    }
    drop(a);
    let db = srv.cfg.db.clone();
    (srv.shutdown_keep_dir().await, db)
}

/// Commands that only read leave the data file byte for byte as it was, and work on a
/// file nobody may write.
#[tokio::test]
async fn read_only_commands_leave_the_file_byte_identical() {
    let (dir, db) = a_data_file().await;
    let before = std::fs::read(&db).unwrap();
    let mut perms = std::fs::metadata(&db).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o444);
    std::fs::set_permissions(&db, perms).unwrap();
    let d = db.to_str().unwrap();
    let runs: [&[&str]; 5] = [
        &["export", "sessions", "--db", d],
        &["export", "decisions", "--db", d],
        &["search", "look", "--db", d],
        &["eval", "--db", d, "--json"],
        &["restore", d],
    ];
    for args in runs {
        let (code, out, err) = pawns_async(dir.path(), args).await;
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    }
    // Replay reads it too (root ignores the mode bits; the bytes are what is checked).
    let (_, out, err) = pawns_async(dir.path(), &["replay", "--from", "1d", "--db", d]).await;
    assert!(!err.contains("panicked"), "{out}{err}");
    assert!(std::fs::read(&db).unwrap() == before, "the data file changed");
}

/// An export never writes through a symlink (one pointing at the data file truncated
/// it) nor over a file that is there; the server's data file is never an export's.
#[tokio::test]
async fn an_export_never_writes_through_a_symlink_or_over_a_file() {
    let srv = TestServer::start().await;
    let out = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&srv.cfg.db, out.path().join("sessions.parquet")).unwrap();
    std::fs::write(out.path().join("decisions.parquet"), b"mine").unwrap();
    let len = std::fs::metadata(&srv.cfg.db).unwrap().len();
    let path = format!("/api/admin/export/parquet?dir={}&tables=sessions", out.path().display());
    let (code, body) = http_post(srv.addr, &path).await;
    assert_eq!(code, 409, "{body}");
    // A link to the data file: refused as the data file's (a link elsewhere: as a link).
    assert!(body.contains("file_protected"), "{body}");
    std::os::unix::fs::symlink("/nowhere", out.path().join("observations.parquet")).unwrap();
    let path = format!("/api/admin/export/parquet?dir={}&tables=observations", out.path().display());
    let (code, body) = http_post(srv.addr, &path).await;
    assert_eq!(code, 409, "{body}");
    assert!(body.contains("file_is_symlink"), "{body}");
    let path = format!("/api/admin/export/parquet?dir={}&tables=decisions", out.path().display());
    let (code, body) = http_post(srv.addr, &path).await;
    assert_eq!(code, 409, "{body}");
    assert!(body.contains("file_exists"), "{body}");
    assert_eq!(std::fs::read(out.path().join("decisions.parquet")).unwrap(), b"mine");
    // Even told to replace, never through the link; the file that is there is replaced.
    let path = format!("/api/admin/export/parquet?dir={}&force=1", out.path().display());
    let (code, body) = http_post(srv.addr, &path).await;
    assert_eq!(code, 409, "{body}");
    let path = format!("/api/admin/export/parquet?dir={}&tables=decisions&force=1", out.path().display());
    let (code, body) = http_post(srv.addr, &path).await;
    assert_eq!(code, 200, "{body}");
    assert_ne!(std::fs::read(out.path().join("decisions.parquet")).unwrap(), b"mine");
    // A backup over the data file itself, or through a link to it, is refused.
    let (code, body) = http_post(srv.addr, &format!("/api/admin/backup?path={}", srv.cfg.db.display())).await;
    assert_eq!(code, 400, "{body}");
    let link = out.path().join("b.redb");
    std::os::unix::fs::symlink(&srv.cfg.db, &link).unwrap();
    let (code, body) = http_post(srv.addr, &format!("/api/admin/backup?path={}", link.display())).await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(std::fs::metadata(&srv.cfg.db).unwrap().len(), len, "the data file is as it was");
    // And the server starts again on it.
    let srv = srv.restart().await;
    assert_eq!(http_get(srv.addr, "/health").await.0, 200);
    srv.shutdown().await;
}

/// The CLI writes its outputs new too: no overwrite without --force, never a symlink.
#[tokio::test]
async fn cli_outputs_are_new_files() {
    let (dir, db) = a_data_file().await;
    let d = db.to_str().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    for force in [false, true] {
        let mut args = vec!["export", "sessions", "--db", d, "--out", link.to_str().unwrap()];
        if force {
            args.push("--force");
        }
        let (code, _, err) = pawns_async(dir.path(), &args).await;
        assert_ne!(code, 0, "{err}");
        assert!(err.contains("file_is_symlink"), "{err}");
    }
    let (code, _, err) = pawns_async(dir.path(), &["export", "sessions", "--db", d, "--out", victim.to_str().unwrap()]).await;
    assert_ne!(code, 0);
    assert!(err.contains("file_exists"), "{err}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    let (code, _, err) = pawns_async(dir.path(), &["export", "sessions", "--db", d, "--out", victim.to_str().unwrap(), "--force"]).await;
    assert_eq!(code, 0, "{err}");
    assert_ne!(std::fs::read(&victim).unwrap(), b"precious");
    // The data file is never an output, --force or not.
    let before = std::fs::read(&db).unwrap();
    let (code, _, err) = pawns_async(dir.path(), &["export", "sessions", "--db", d, "--out", d, "--force"]).await;
    assert_ne!(code, 0, "{err}");
    assert!(std::fs::read(&db).unwrap() == before);
    // A backup never over a file.
    let (code, _, err) = pawns_async(dir.path(), &["backup", victim.to_str().unwrap(), "--db", d]).await;
    assert_ne!(code, 0, "{err}");
}

/// A damaged data file is a clear error (it was a panic), and restore checks the whole
/// file: an empty one and one with edited bytes are refused.
#[tokio::test]
async fn damaged_files_are_errors_not_panics() {
    let (dir, db) = a_data_file().await;
    let garbage = dir.path().join("garbage.redb");
    std::fs::write(&garbage, [b"PAR1".as_slice(), &[7u8; 297]].concat()).unwrap();
    let world = dir.path().join("world");
    let (code, _, err) = pawns_async(
        dir.path(),
        &["serve", "--host", "127.0.0.1", "--port", "0", "--db", garbage.to_str().unwrap(), "--world", world.to_str().unwrap()],
    )
    .await;
    assert_ne!(code, 0, "{err}");
    assert_ne!(code, 101, "a panic: {err}");
    assert!(err.contains("store_corrupt") || err.contains("not a pawns data file"), "{err}");
    let (code, _, err) = pawns_async(dir.path(), &["restore", garbage.to_str().unwrap()]).await;
    assert!(code != 0 && code != 101, "{code}: {err}");
    let empty = dir.path().join("empty.redb");
    std::fs::write(&empty, b"").unwrap();
    let (code, _, err) = pawns_async(dir.path(), &["restore", empty.to_str().unwrap()]).await;
    assert!(code != 0 && code != 101, "{code}: {err}");
    assert!(err.contains("empty"), "{err}");
    // Edited bytes, spread over the file so that used pages are hit.
    let mut bytes = std::fs::read(&db).unwrap();
    let mut at = 4096 + 123;
    while at < bytes.len() {
        bytes[at] ^= 0x5a;
        at += 4096;
    }
    let edited = dir.path().join("edited.redb");
    std::fs::write(&edited, &bytes).unwrap();
    let (code, out, err) = pawns_async(dir.path(), &["restore", edited.to_str().unwrap()]).await;
    assert!(code != 0 && code != 101, "{code}: {out}{err}");
}

/// Raw HTTP with the headers given; (status, body).
async fn http_raw(addr: std::net::SocketAddr, head: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(WAIT, s.read_to_end(&mut buf)).await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default())
}

/// A page of another site reaches nothing on loopback: not the live observer (it got an
/// agent's private tell), not the admin token by another Host (DNS rebinding), not a
/// form's POST (it minted a key for a person's character).
#[tokio::test]
async fn pages_of_other_sites_reach_nothing() {
    let srv = TestServer::start().await;
    // A cross-origin socket to the live observer, and one with no token at all.
    let url = format!("ws://{}/api/observe/live?agent=brenda", srv.addr);
    let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(url.as_str()).unwrap();
    req.headers_mut().insert("origin", "http://evil.example".parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_err(), "a foreign origin's socket is refused");
    assert!(tokio_tungstenite::connect_async(url.as_str()).await.is_err(), "the live follow wants a token, even on loopback");
    let token = {
        let (code, body) = http_get(srv.addr, "/api/admin/token").await;
        assert_eq!(code, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["token"].as_str().unwrap().to_string()
    };
    assert!(tokio_tungstenite::connect_async(format!("{url}&token={token}")).await.is_ok(), "the admin token opens it");
    // The admin token for another Host name (a rebinding page's), or a foreign origin.
    let (code, body) = http_raw(srv.addr, "GET /api/admin/token HTTP/1.1\r\nHost: evil.example:4350\r\nConnection: close\r\n\r\n").await;
    assert_eq!(code, 403, "{body}");
    assert!(!body.contains("token\""), "{body}");
    let (code, _) =
        http_raw(srv.addr, "GET /api/admin/token HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n")
            .await;
    assert_eq!(code, 403);
    // A cross-site form's POST (no header of its own, maybe no Origin either).
    let form = "POST /api/admin/keygen?name=victim HTTP/1.1\r\nHost: 127.0.0.1:4350\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    let (code, body) = http_raw(srv.addr, form).await;
    assert_eq!(code, 403, "{body}");
    let form = form.replace("Connection:", "Origin: http://evil.example\r\nX-Pawns-Client: x\r\nConnection:");
    let (code, _) = http_raw(srv.addr, &form).await;
    assert_eq!(code, 403);
    // The server's own pages and tools still work: same origin, or none.
    let own = format!("GET /api/who HTTP/1.1\r\nHost: {0}\r\nOrigin: http://{0}\r\nConnection: close\r\n\r\n", srv.addr);
    assert_eq!(http_raw(srv.addr, &own).await.0, 200);
    let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(format!("ws://{}/ws", srv.addr)).unwrap();
    req.headers_mut().insert("origin", format!("http://{}", srv.addr).parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_ok(), "the play page's own socket");
    assert!(srv.key("sentinel").await.starts_with("dp_"), "the CLI's client mints keys");
    srv.shutdown().await;
}

/// An origin on the operator's allow-list may call.
#[tokio::test]
async fn an_allowed_origin_may_call() {
    let srv = TestServer::start_with(|c| c.allow_origins = vec!["https://play.example.org".into()]).await;
    let head = "GET /api/who HTTP/1.1\r\nHost: mud.example.org\r\nOrigin: https://play.example.org\r\nConnection: close\r\n\r\n";
    assert_eq!(http_raw(srv.addr, head).await.0, 200);
    let head = head.replace("play.example.org", "other.example.org");
    assert_eq!(http_raw(srv.addr, &head).await.0, 403);
    srv.shutdown().await;
}

/// A key reserves its name: nobody can make a character of it with a password (then
/// read what the agent remembers), and a key is never given a person's character.
#[tokio::test]
async fn names_cannot_be_squatted() {
    let srv = TestServer::start().await;
    let key = srv.key("carol").await;
    let mut s = WsClient::connect(srv.addr).await;
    s.send(json!({"type": "login", "data": {"player_name": "carol", "password": "squatter-pw", "new_char": true, "class": 3}})).await;
    assert_eq!(s.error_code().await, "name_taken");
    // The agent logs in with its key, its character made then.
    let mut c = WsClient::connect(srv.addr).await;
    c.login_key("carol", &key).await;
    // A person's character: keygen refuses, the admin can say so.
    let mut d = WsClient::newcomer(srv.addr, "dave").await;
    d.cmd("look", "l").await;
    let err = pawns::net::client::create_key(&format!("http://{}", srv.addr), "dave").await.unwrap_err();
    assert!(format!("{err:#}").contains("person's character"), "{err:#}");
    let taken = pawns::net::client::create_key_with(&format!("http://{}", srv.addr), "dave", true).await.unwrap();
    assert!(taken.starts_with("dp_"));
    srv.shutdown().await;
}

/// Reads until the server closes; whether it did within `within`.
async fn closed_within(s: &mut tokio::net::TcpStream, within: Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buf = [0u8; 4096];
    tokio::time::timeout(within, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
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

async fn act(c: &mut WsClient, actions: serde_json::Value, id: &str) -> Vec<serde_json::Value> {
    c.send(json!({"type": "actions", "id": id, "data": {"actions": actions}})).await;
    let r = c.until(|v| v["re"] == id && v["type"] == "actions_result").await;
    r["data"]["results"].as_array().unwrap().clone()
}

/// Each layer of an agent's own memory has a quota (it grew without end); a character
/// with a password gets a tenth of a keyed agent's.
#[tokio::test]
async fn memory_layers_have_quotas() {
    let srv = TestServer::start_with(|c| c.mind_quotas = pawns::mind::quota::Quotas::from_keyed(20, 1 << 20)).await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let mut oks = 0;
    let mut refused = None;
    for batch in 0..3 {
        let items: Vec<_> = (0..7).map(|i| json!({"type": "remember", "text": format!("fact number {batch}.{i}")})).collect();
        for x in act(&mut a, json!(items), &format!("r{batch}")).await {
            if x["ok"] == true {
                oks += 1;
            } else {
                refused = Some(x.clone());
            }
        }
    }
    assert_eq!(oks, 20, "{refused:?}");
    let refused = refused.expect("the 21st is refused");
    assert_eq!(refused["code"], "quota_exceeded", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("memory"), "{refused}");
    // Other layers have their own room.
    let r = act(&mut a, json!([{"type": "soul_add", "text": "I keep my word."}]), "s").await;
    assert_eq!(r[0]["ok"], true, "{r:?}");
    // A password character: a tenth.
    let mut p = WsClient::newcomer(srv.addr, "Pat").await;
    let items: Vec<_> = (0..3).map(|i| json!({"type": "remember", "text": format!("note {i}")})).collect();
    let r = act(&mut p, json!(items), "p").await;
    let codes: Vec<_> = r.iter().map(|x| if x["ok"] == true { json!("ok") } else { x["code"].clone() }).collect();
    assert_eq!(codes, vec![json!("ok"), json!("ok"), json!("quota_exceeded")], "{r:?}");
    srv.shutdown().await;
}

/// A disk that fills at `limit` bytes a file, for a child (as `ulimit -f` sets it; the
/// signal ignored, so a write past it fails as on a full disk).
fn file_size_limit(cmd: &mut std::process::Command, limit: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
}

/// A full disk (here: a file size limit on the server, as `ulimit -f` sets) is not
/// forever and not silent: `/health` says `storage_failed` and why, the server stops
/// cleanly saying so, and starts again on the same file once there is room.
#[tokio::test]
async fn a_full_disk_is_said_and_the_server_stops_cleanly() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    crate::world::write(&world);
    let db = dir.path().join("full.redb");
    // A first run makes the file.
    let (mut child, _) = serve_process(&db, &world, &[], std::process::Stdio::null());
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait().unwrap();
    let size = std::fs::metadata(&db).unwrap().len();
    let limit = size + (512 << 10);
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pawns"));
    cmd.args(["serve", "--host", "127.0.0.1", "--port", "0", "--log", "error", "--sweep-every", "100ms", "--db"])
        .arg(&db)
        .arg("--world")
        .arg(&world)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    file_size_limit(&mut cmd, limit);
    let mut child = cmd.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr: std::net::SocketAddr = line.split_whitespace().nth(3).expect("listening line").parse().expect(&line);
    let key = pawns::net::client::create_key(&format!("http://{addr}"), "filler").await.unwrap();
    let mut a = WsClient::connect(addr).await;
    a.login_key("filler", &key).await;
    // Words until the file cannot grow: each is recorded.
    // Words that do not compress (the record is compressed): a cheap generator's digits.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut long = move || {
        (0..60)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                format!("{:x}", x)
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let began = std::time::Instant::now();
    let mut said_so = false;
    let mut i = 0u64;
    while began.elapsed() < Duration::from_secs(60) {
        i += 1;
        let sent = a.ws.send(tokio_tungstenite::tungstenite::Message::text(
            json!({"type": "command", "data": {"command": format!("say {i} {}", long())}}).to_string(),
        ));
        if tokio::time::timeout(Duration::from_secs(2), sent).await.map_or(true, |r| r.is_err()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        if i.is_multiple_of(5) {
            let h = tokio::time::timeout(Duration::from_secs(2), http_get(addr, "/health")).await;
            if let Ok((_, body)) = h {
                if body.contains("storage_failed") {
                    said_so = true;
                    break;
                }
            }
        }
    }
    assert!(said_so, "/health said storage_failed before the server went");
    let stopped = tokio::task::spawn_blocking(move || {
        let status = child.wait().unwrap();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
        (status, rest)
    });
    let (status, said) = tokio::time::timeout(Duration::from_secs(30), stopped).await.expect("the server stops by itself").unwrap();
    assert!(!status.success() && status.code() != Some(101), "{status:?}");
    assert!(said.contains("cannot be written"), "{said}");
    // With room again, the same file serves.
    let (mut child, addr) = serve_process(&db, &world, &[], std::process::Stdio::null());
    assert_eq!(http_get(addr, "/health").await.0, 200);
    let _ = child.kill();
    let _ = child.wait();
}

/// A backup that runs out of room leaves nothing behind: no file at its path, no
/// temporary file beside it.
#[tokio::test]
async fn a_backup_that_hits_a_full_disk_leaves_nothing() {
    let (dir, db) = a_data_file().await;
    let out_dir = dir.path().join("backups");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("b.redb");
    let limit = std::fs::metadata(&db).unwrap().len() / 4;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pawns"));
    cmd.arg("backup").arg(&out).arg("--db").arg(&db);
    file_size_limit(&mut cmd, limit);
    let o = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(!o.status.success(), "the backup cannot fit");
    assert_ne!(o.status.code(), Some(101), "{}", String::from_utf8_lossy(&o.stderr));
    let left: Vec<_> = std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A quit voids the session's token (it logged in for 24 h after); a key can be
/// revoked — its session in play closed — and the admin token rotated (there was no way
/// to do either).
#[tokio::test]
async fn tokens_and_keys_can_be_taken_back() {
    let srv = TestServer::start().await;
    let base = format!("http://{}", srv.addr);
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    a.cmd("quit", "q").await;
    a.closed().await;
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"resume": {"token": token, "last_seq": 0}}})).await;
    assert_eq!(b.error_code().await, "auth_failed", "a quit session's token is void");
    // A fresh login right after gets a token that works.
    let mut c = WsClient::connect(srv.addr).await;
    let state = c.login_key("brenda", &key).await;
    let fresh = state["data"]["token"].as_str().unwrap().to_string();
    let (code, _) = pawns::net::client::call(reqwest::Method::GET, &format!("{base}/api/whoami"), Some(&fresh)).await.unwrap();
    assert_eq!(code, 200);
    // Revoking the key: the session in play is closed, and its token is void.
    let (code, body) = http_post(srv.addr, "/api/admin/keys/revoke?name=brenda").await;
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("\"revoked\":1"), "{body}");
    assert_eq!(c.closed().await, Some(1008));
    let (code, _) = pawns::net::client::call(reqwest::Method::GET, &format!("{base}/api/whoami"), Some(&fresh)).await.unwrap();
    assert_eq!(code, 401, "the revoked session's token");
    let mut d = WsClient::connect(srv.addr).await;
    d.send(json!({"type": "login", "data": {"player_name": "brenda", "password": key, "is_agent": true}})).await;
    assert_eq!(d.error_code().await, "auth_failed");
    // Rotating the admin token.
    let old = serde_json::from_str::<serde_json::Value>(&http_get(srv.addr, "/api/admin/token").await.1).unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, body) = http_post(srv.addr, "/api/admin/token/rotate").await;
    assert_eq!(code, 200, "{body}");
    let new = serde_json::from_str::<serde_json::Value>(&body).unwrap()["token"].as_str().unwrap().to_string();
    assert_ne!(old, new);
    let live = format!("ws://{}/api/observe/live", srv.addr);
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={old}")).await.is_err(), "the old token is refused");
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={new}")).await.is_ok());
    // And it stays rotated across a restart.
    let srv = srv.restart().await;
    let live = format!("ws://{}/api/observe/live", srv.addr);
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={old}")).await.is_err());
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={new}")).await.is_ok());
    srv.shutdown().await;
}

/// `react` takes a message the agent heard, each reaction once (any id, any number of
/// times were taken); HUD requests count against the command rate (they were free).
#[tokio::test]
async fn reactions_and_hud_requests_are_bounded() {
    let srv = TestServer::start().await;
    let (ka, kb, kc) = (srv.key("ann").await, srv.key("bram").await, srv.key("cid").await);
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("bram", &kb).await;
    let mut c = WsClient::connect(srv.addr).await;
    c.login_key("cid", &kc).await;
    b.cmd("say hello ann", "s").await;
    b.reply_text("s").await;
    a.until(|v| v["type"] == "event" && v["data"]["type"] == "say").await;
    a.send(json!({"type": "hud", "id": "h", "data": {}})).await;
    let h = a.until(|v| v["re"] == "h" && v["type"] == "hud").await;
    let v: serde_json::Value = serde_json::from_str(h["data"]["content"].as_str().unwrap()).unwrap();
    let here = v["rooms"].as_array().unwrap().iter().find(|r| r["id"] == "here").unwrap().clone();
    let mid = here["messages"].as_array().unwrap().iter().find(|m| m["sender"] == "Bram").unwrap()["id"].as_u64().unwrap();
    // Bram tells Cid something Ann never heard.
    b.cmd("tell cid a secret", "t").await;
    b.reply_text("t").await;
    c.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("a secret"))).await;
    c.send(json!({"type": "hud", "id": "hc", "data": {}})).await;
    let h = c.until(|v| v["re"] == "hc" && v["type"] == "hud").await;
    let v: serde_json::Value = serde_json::from_str(h["data"]["content"].as_str().unwrap()).unwrap();
    let unheard = v["rooms"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .find(|m| m["content"].as_str().is_some_and(|t| t.contains("a secret")))
        .expect("Cid heard the tell")["id"]
        .as_u64()
        .unwrap();
    let r = act(
        &mut a,
        json!([
            {"type": "react", "message_id": mid, "reaction": "heart"},
            {"type": "react", "message_id": mid, "reaction": "heart"},
            {"type": "react", "message_id": mid, "reaction": "brain"},
            {"type": "react", "message_id": unheard, "reaction": "heart"}
        ]),
        "r",
    )
    .await;
    let codes: Vec<_> = r.iter().map(|x| if x["ok"] == true { json!("ok") } else { x["code"].clone() }).collect();
    assert_eq!(codes, vec![json!("ok"), json!("already_reacted"), json!("ok"), json!("no_such_message")], "{r:?}");
    // A flood of HUD requests meets the rate limit.
    for i in 0..40 {
        a.send(json!({"type": "hud", "id": format!("f{i}"), "data": {}})).await;
    }
    a.until(|v| v["type"] == "error" && v["data"]["code"] == "rate_limited").await;
    srv.shutdown().await;
}

/// The seed's smoke test makes a character with no password: refused by default, a
/// guest (one session, the small quota) when the operator takes guests.
#[tokio::test]
async fn guests_only_when_the_operator_says_so() {
    let login = json!({"type": "login", "data": {"player_name": "smoky", "new_char": true, "class": 3, "race": 0, "is_agent": true}});
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(login.clone()).await;
    assert_eq!(a.error_code().await, "bad_request");
    srv.shutdown().await;
    let srv = TestServer::start_with(|c| {
        c.guests = true;
        c.mind_quotas = pawns::mind::quota::Quotas::from_keyed(20, 1 << 20);
    })
    .await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(login.clone()).await;
    a.expect("state").await;
    let items: Vec<_> = (0..3).map(|i| json!({"type": "remember", "text": format!("note {i}")})).collect();
    let r = act(&mut a, json!(items), "g").await;
    assert_eq!(r[2]["code"], "quota_exceeded", "a guest has the small quota: {r:?}");
    // Nobody logs in as the guest again, with or without a password.
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"player_name": "smoky"}})).await;
    assert_eq!(b.error_code().await, "bad_request");
    b.send(json!({"type": "login", "data": {"player_name": "smoky", "password": "anything-at-all"}})).await;
    assert_eq!(b.error_code().await, "auth_failed");
    srv.shutdown().await;
}

/// Knowledge `set`s count the store's tokens once per message (each item counted the
/// whole store on the engine thread): small stores are answered with the same share
/// for every item of the message, and a store past the cap is still refused.
#[tokio::test]
async fn knowledge_sets_are_counted_once_and_still_capped() {
    let srv = TestServer::start().await;
    let key = srv.key("kim").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("kim", &key).await;
    let sets: Vec<_> = (0..3).map(|i| json!({"type": "set", "path": format!("facts.f{i}"), "value": format!("fact {i}")})).collect();
    let r = act(&mut a, json!(sets), "k1").await;
    let used: Vec<_> = r.iter().map(|x| x["memory_used"].as_str().unwrap_or("?").to_string()).collect();
    assert!(used.iter().all(|u| u == &used[0] && u.ends_with('%')), "{r:?}");
    // About 4,500 tokens in 9 KB (the frame limit is 16 KiB): digits cost a token a few.
    let words: Vec<String> = (0..1500u64).map(|i| format!("q{}", i * 7919 % 100_000)).collect();
    let r = act(&mut a, json!([{"type": "set", "path": "big", "value": words.join(" ")}]), "k2").await;
    assert_eq!(r[0]["code"], "knowledge_full", "{r:?}");
    let r = act(&mut a, json!([{"type": "set", "path": "mid", "value": "a".repeat(4000)}]), "k3").await;
    assert_eq!(r[0]["ok"], true, "{r:?}");
    assert!(r[0]["memory_used"].as_str().is_some_and(|u| u.ends_with('%') && u != "100%"), "{r:?}");
    srv.shutdown().await;
}

/// At the descriptor limit `accept` failed and everyone timed out, `/health` too. The
/// caps now fit under the limit with headroom: past them a connection is told
/// `too_many_connections` and closed, and `/health` still answers.
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
    assert!(String::from_utf8_lossy(&said).contains("too_many_connections"), "{}", String::from_utf8_lossy(&said));
    let (code, _) = tokio::time::timeout(Duration::from_secs(10), http_get(addr, "/health")).await.expect("/health answers");
    assert_eq!(code, 200);
    drop(held);
    let _ = child.kill();
    let _ = child.wait();
}

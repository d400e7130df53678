//! What an attacker and a careless operator tried (issue 48): each test failed before
//! its fix. SECURITY.md is the threat model these hold.

mod access;
mod agents;
mod files;
mod sockets;

use std::time::Duration;

use serde_json::json;

use crate::common::*;

/// `pawns ARGS` in `cwd`: (exit code, stdout, stderr).
pub fn pawns_in(cwd: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pawns")).current_dir(cwd).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Like `pawns_in`, off the async runtime (the server under test runs on it).
pub async fn pawns_async(cwd: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let (cwd, args): (std::path::PathBuf, Vec<String>) = (cwd.to_path_buf(), args.iter().map(|s| s.to_string()).collect());
    tokio::task::spawn_blocking(move || pawns_in(&cwd, &args.iter().map(String::as_str).collect::<Vec<_>>())).await.unwrap()
}

/// A data file made by a real run, and its world.
pub async fn a_data_file() -> (tempfile::TempDir, std::path::PathBuf) {
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

/// Raw HTTP with the headers given; (status, body).
pub async fn http_raw(addr: std::net::SocketAddr, head: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(WAIT, s.read_to_end(&mut buf)).await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default())
}

pub async fn act(c: &mut WsClient, actions: serde_json::Value, id: &str) -> Vec<serde_json::Value> {
    c.send(json!({"type": "actions", "id": id, "data": {"actions": actions}})).await;
    let r = c.until(|v| v["re"] == id && v["type"] == "actions_result").await;
    r["data"]["results"].as_array().unwrap().clone()
}

/// A disk that fills at `limit` bytes a file, for a child (as `ulimit -f` sets it; the
/// signal ignored, so a write past it fails as on a full disk).
pub fn file_size_limit(cmd: &mut std::process::Command, limit: u64) {
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

/// Reads until the server closes; whether it did within `within`.
pub async fn closed_within(s: &mut tokio::net::TcpStream, within: Duration) -> bool {
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

//! The data file and every other file: --server honoured, no data file made by a
//! command that should not, read-only commands, outputs written new, damaged files and a
//! full disk.

use std::time::Duration;

use futures_util::SinkExt;
use serde_json::json;

use super::*;
use crate::common::*;

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
    // Three agents in one room, each saying what every one of them hears: a say is four
    // records (the command and three hearings), and three speakers fill the file three
    // times as fast as one under the per-connection rate. (With one speaker a slow machine
    // took over a minute to fill the room left.) What they are told is read and dropped.
    let mut speakers = Vec::new();
    for n in 0..3 {
        let name = format!("filler{n}");
        let key = pawns::client::create_key(&format!("http://{addr}"), &name).await.unwrap();
        let mut c = WsClient::connect(addr).await;
        c.login_key(&name, &key).await;
        let (sink, mut heard) = futures_util::StreamExt::split(c.ws);
        tokio::spawn(async move { while let Some(Ok(_)) = futures_util::StreamExt::next(&mut heard).await {} });
        speakers.push(sink);
    }
    // Words that do not compress (the record is compressed): a cheap generator's bytes in
    // 64 letters, as many as a line holds (512 bytes).
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut long = move || {
        (0..480)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                LETTERS[(x >> 58) as usize] as char
            })
            .collect::<String>()
    };
    let began = std::time::Instant::now();
    let mut said_so = false;
    let mut i = 0u64;
    'filling: while began.elapsed() < Duration::from_secs(150) {
        i += 1;
        for sink in &mut speakers {
            let line = json!({"type": "command", "data": {"command": format!("say {i} {}", long())}}).to_string();
            let sent = sink.send(tokio_tungstenite::tungstenite::Message::text(line));
            if tokio::time::timeout(Duration::from_secs(2), sent).await.map_or(true, |r| r.is_err()) {
                break 'filling;
            }
        }
        // (Paced: the disk fills a say at a time, under the command rate.)
        tokio::time::sleep(Duration::from_millis(110)).await;
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
    assert!(said_so, "/health said storage_failed before the server went ({i} rounds in {:?})", began.elapsed());
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

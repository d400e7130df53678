use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn a_restart_keeps_characters_their_gear_and_their_room() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Alice", "wonder1").await;
    t.cmd("east").await;
    t.cmd("get sword").await;
    assert!(t.cmd("wield sword").await.contains("You wield"));
    t.cmd("get bag").await;
    t.line("quit").await;
    t.until("Goodbye").await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("south", "s").await;
    a.reply_text("s").await;
    a.cmd("get key", "g").await;
    a.reply_text("g").await;
    // Brenda stays logged in; shutdown saves her.
    let srv = srv.restart().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.login("alice", "wonder1").await;
    let look = t.cmd("look").await;
    assert!(look.contains("The Training Yard"), "{look}");
    let eq = t.cmd("equipment").await;
    assert!(eq.contains("a test sword"), "{eq}");
    assert!(t.cmd("inventory").await.contains("a cloth bag"));
    let mut a = WsClient::connect(srv.addr).await;
    let st = a.login_key("brenda", &key).await;
    assert_eq!(st["data"]["room"]["vnum"], 8008);
    let v = a.expect("vars").await;
    assert_eq!(v["data"]["INVENTORY"][0]["name"], "a brass key");
    srv.shutdown().await;
}

fn spawn_server(db: &std::path::Path, world: &std::path::Path) -> (std::process::Child, std::net::SocketAddr) {
    serve_process(db, world, &[], Stdio::null())
}

#[tokio::test]
async fn kill_9_then_restart_opens_cleanly_with_what_was_saved() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    crate::world::write(&world);
    let db = dir.path().join("p.redb");
    let (mut child, addr) = spawn_server(&db, &world);
    // While the server holds the file, a second process is refused clearly.
    let held = pawns_storage::Store::open(&db).err().expect("second open must fail");
    assert_eq!(held.code(), "store_locked");
    assert!(held.to_string().contains("held by another process"));
    let key = pawns::client::create_key(&format!("http://{addr}"), "brenda").await.unwrap();
    let mut a = WsClient::connect(addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("east", "e").await;
    a.reply_text("e").await;
    a.cmd("save", "s").await;
    a.reply_text("s").await;
    // The save is on disk once the server has no save pending.
    eventually("the save on disk", || async { http_get(addr, "/api/record").await.1.contains("\"saves_pending\":0").then_some(()) }).await;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let (mut child, addr) = spawn_server(&db, &world);
    let mut a = WsClient::connect(addr).await;
    let st = a.login_key("brenda", &key).await;
    assert_eq!(st["data"]["room"]["vnum"], 8005, "the saved room survived kill -9");
    a.send(json!({"type": "command", "data": {"command": "look"}, "id": "l"})).await;
    assert!(a.reply_text("l").await.contains("Training Yard"));
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Log lines written to a pipe or a file carry no ANSI colour codes (a terminal gets them).
#[test]
fn logs_to_a_pipe_have_no_colour_codes() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    crate::world::write(&world);
    let mut child = Command::new(env!("CARGO_BIN_EXE_pawns"))
        .args(["serve", "--host", "127.0.0.1", "--port", "0", "--log", "info", "--db"])
        .arg(dir.path().join("p.redb"))
        .arg("--world")
        .arg(&world)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("listening"), "{line}");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(err.contains("INFO"), "info lines were logged: {err}");
    assert!(!err.contains('\u{1b}'), "colour codes in a piped log: {err:?}");
}

/// Huge pages stay off for the server unless its operator asks mimalloc for large OS
/// pages (`MIMALLOC_ALLOW_LARGE_OS_PAGES=1`): then the process has them, even when its
/// parent had turned them off (the switch is inherited across exec, and `bench agents
/// --spawn` turns it off for itself). The kernel's per-process switch is read back from
/// /proc.
#[cfg(target_os = "linux")]
#[test]
fn huge_pages_are_off_unless_mimalloc_is_asked_for_large_pages() {
    use std::os::unix::process::CommandExt;
    let thp_of = |large: Option<&str>| {
        let dir = tempfile::tempdir().unwrap();
        let world = dir.path().join("world");
        crate::world::write(&world);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pawns"));
        cmd.args(["serve", "--host", "127.0.0.1", "--port", "0", "--log", "warn", "--db"])
            .arg(dir.path().join("h.redb"))
            .arg("--world")
            .arg(&world)
            .env_remove("MIMALLOC_ALLOW_LARGE_OS_PAGES")
            .env_remove("MIMALLOC_LARGE_OS_PAGES")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(v) = large {
            cmd.env("MIMALLOC_ALLOW_LARGE_OS_PAGES", v);
        }
        // A parent that turned huge pages off, as the load generator does.
        // SAFETY: prctl with plain integers, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
                Ok(())
            });
        }
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert!(line.contains("listening"), "{line}");
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        status.lines().find_map(|l| l.strip_prefix("THP_enabled:")).map(|v| v.trim().to_string())
    };
    let Some(default) = thp_of(None) else {
        eprintln!("this kernel reports no THP_enabled in /proc: nothing to check");
        return;
    };
    assert_eq!(default, "0", "huge pages off by default");
    assert_eq!(thp_of(Some("1")).as_deref(), Some("1"), "on when mimalloc is asked for large pages, whatever the parent said");
    assert_eq!(thp_of(Some("0")).as_deref(), Some("0"), "a 0 asks for nothing");
}

/// `pawns compact` gives a stopped server's free pages back and the file still serves;
/// a file held by a running server is refused (`store_locked`), and a missing one named.
#[tokio::test]
async fn compact_shrinks_a_stopped_servers_file_and_refuses_a_held_one() {
    let mut s = crate::common::TestServer::start().await;
    let key = s.key("vex").await;
    let mut c = crate::common::WsClient::connect(s.addr).await;
    c.login_key("vex", &key).await;
    for i in 0..8 {
        c.cmd("look", &format!("l{i}")).await;
        c.reply_text(&format!("l{i}")).await;
    }
    let db = s._dir.path().join("test.redb");
    let held = Command::new(env!("CARGO_BIN_EXE_pawns")).args(["compact", "--db"]).arg(&db).output().unwrap();
    assert!(!held.status.success() && String::from_utf8_lossy(&held.stderr).contains("store_locked"), "{held:?}");
    drop(c);
    s.stop().await;
    let out = Command::new(env!("CARGO_BIN_EXE_pawns")).args(["compact", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("Compacted") && text.contains("given back"), "{out:?}");
    s.start_again().await;
    let key = s.key("vex").await;
    let mut c = crate::common::WsClient::connect(s.addr).await;
    c.login_key("vex", &key).await;
    c.cmd("look", "again").await;
    c.reply_text("again").await;
    let link = s._dir.path().join("link.redb");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let linked = Command::new(env!("CARGO_BIN_EXE_pawns")).args(["compact", "--db"]).arg(&link).output().unwrap();
    assert!(!linked.status.success() && String::from_utf8_lossy(&linked.stderr).contains("symbolic link"), "{linked:?}");
    let none = Command::new(env!("CARGO_BIN_EXE_pawns")).args(["compact", "--db"]).arg(s._dir.path().join("nope.redb")).output().unwrap();
    assert!(!none.status.success() && String::from_utf8_lossy(&none.stderr).contains("db_missing"));
    s.shutdown().await;
}

//! What the seed's own clients do, unchanged: their names, their login shapes, what
//! their smoke test checks on a new character, and the `pawns keygen` they are told to
//! run. Each test reproduces a way they failed against pawns.

use serde_json::{json, Value};

use crate::common::*;

fn has_event(v: &Value, ty: &str, needle: &str) -> bool {
    v["type"] == "event" && v["data"]["type"] == ty && v["data"]["text"].as_str().is_some_and(|t| t.contains(needle))
}

/// The seed's example agent is `brenda69`; its clients use digits, `_`, `-` and `.`.
#[tokio::test]
async fn the_seed_example_agent_brenda69_plays_and_is_found_by_name() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda69").await;
    // The seed's documented login, byte for byte in shape.
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "brenda69", "password": key, "is_agent": true,
        "harness": "openclaw", "model": "deepseek-v4-flash", "version": "1.0"}}))
        .await;
    let st = a.expect("state").await;
    assert_eq!(st["data"]["player"]["name"], "Brenda69");
    // The seed's new-character shape with an underscore name, and a dotted one.
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"player_name": "new_agent", "password": "pw-new", "new_char": true,
        "class": 3, "race": 0, "is_agent": true}}))
        .await;
    assert_eq!(b.expect("state").await["data"]["player"]["name"], "New_agent");
    let mut c = WsClient::connect(srv.addr).await;
    c.send(json!({"type": "login", "data": {"player_name": "scout-2.b", "password": "pw-scout", "new_char": true, "class": 2}})).await;
    assert_eq!(c.expect("state").await["data"]["player"]["name"], "Scout-2.b");
    // who lists them; tell and look reach them by name.
    b.cmd("who", "w").await;
    let who = b.reply_text("w").await;
    assert!(who.contains("Brenda69 [agent]") && who.contains("Scout-2.b"), "{who}");
    b.cmd("tell brenda69 meet me at the temple", "t").await;
    a.until(|v| has_event(v, "tell", "meet me at the temple")).await;
    c.cmd("tell new_agent hello", "t2").await;
    b.until(|v| has_event(v, "tell", "hello")).await;
    b.cmd("look scout-2.b", "l").await;
    let seen = b.reply_text("l").await;
    assert!(!seen.contains("do not see"), "{seen}");
    // A name starting with a digit (or dot notation's `all.`) is still refused.
    let mut d = WsClient::connect(srv.addr).await;
    d.send(json!({"type": "login", "data": {"player_name": "69brenda", "password": "x", "new_char": true, "class": 3}})).await;
    assert_eq!(d.error_code().await, "invalid_name");
    d.send(json!({"type": "login", "data": {"player_name": "all.of.you", "password": "x", "new_char": true, "class": 3}})).await;
    assert_eq!(d.error_code().await, "invalid_name");
    // The names survive a restart (store keys).
    drop((a, b, c, d));
    let srv = srv.restart().await;
    let mut a = WsClient::connect(srv.addr).await;
    assert_eq!(a.login_key("brenda69", &key).await["data"]["player"]["name"], "Brenda69");
    srv.shutdown().await;
}

/// The seed ignores `player_name` on a key login: clients whose default name differs
/// from the key's character log in as that character, and are told so.
#[tokio::test]
async fn a_key_logs_in_its_own_character_and_says_so() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    // The seed's smoke test logs in with its own default name.
    a.send(json!({"type": "login", "data": {"player_name": "smoke_test", "api_key": key, "mode": "agent"}})).await;
    let st = a.expect("state").await;
    assert_eq!(st["data"]["player"]["name"], "Brenda", "state.player.name is the truth");
    let note = a.until(|v| v["type"] == "event" && v["data"]["type"] == "system").await;
    let text = note["data"]["text"].as_str().unwrap();
    assert!(text.contains("Brenda") && text.contains("smoke_test"), "{text}");
    drop(a);
    // The same name, or none, says nothing of the sort.
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"password": key, "is_agent": true}})).await;
    assert_eq!(b.expect("state").await["data"]["player"]["name"], "Brenda");
    b.cmd("look", "l").await;
    b.reply_text("l").await;
    assert!(!b.seen.iter().any(|v| v["type"] == "event" && v["data"]["type"] == "system" && v.to_string().contains("belongs to")));
    srv.shutdown().await;
}

/// The seed's smoke test checks a new character for a weapon; the seed's agents expect
/// to start with one. On the starter world: a dagger wielded, a leather jacket worn, and
/// a canvas bag with bread and a waterskin.
#[tokio::test]
async fn a_new_character_starts_with_the_worlds_kit() {
    let srv = TestServer::start_with(|cfg| cfg.world = None).await;
    let key = srv.key("kitty").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("kitty", &key).await;
    let vars = a.expect("vars").await;
    let eq = &vars["data"]["EQUIPMENT"];
    assert_eq!(eq["wield"]["name"], "a dagger", "{eq}");
    assert_eq!(eq["body"]["name"], "a leather jacket", "{eq}");
    let inv: Vec<&str> = vars["data"]["INVENTORY"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert_eq!(inv, vec!["a canvas bag"]);
    a.cmd("look in bag", "b").await;
    let bag = a.reply_text("b").await;
    assert!(bag.contains("a loaf of bread") && bag.contains("a waterskin"), "{bag}");
    // The welcome is the world's own.
    assert!(a.seen.iter().any(|v| v.to_string().contains("Welcome to the land of Emberhold")));
    // The kit was saved with the character: it is there after a restart, once.
    drop(a);
    let srv = srv.restart().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("kitty", &key).await;
    let vars = a.expect("vars").await;
    assert_eq!(vars["data"]["EQUIPMENT"]["wield"]["name"], "a dagger");
    assert_eq!(vars["data"]["INVENTORY"].as_array().unwrap().len(), 1);
    srv.shutdown().await;
}

/// `pawns keygen --server URL` asks that server even with no data file here, and never
/// makes a data file the running server does not know.
#[tokio::test]
async fn keygen_with_server_uses_the_server_and_makes_no_file() {
    let srv = TestServer::start().await;
    let cwd = tempfile::tempdir().unwrap();
    let run = |args: Vec<String>| {
        let cwd = cwd.path().to_path_buf();
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_pawns")).args(args).current_dir(cwd).output().unwrap()
        })
    };
    let url = format!("http://{}", srv.addr);
    let out = run(vec!["keygen".into(), "--name".into(), "brenda69".into(), "--server".into(), url]).await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let key = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(key.starts_with("dp_") && key.len() == 67, "{key}");
    assert!(!cwd.path().join("pawns.redb").exists(), "keygen --server made a data file");
    let mut a = WsClient::connect(srv.addr).await;
    assert_eq!(a.login_key("brenda69", &key).await["data"]["player"]["name"], "Brenda69", "the running server knows the key");
    // A server that is not there: a clear error, and still no file.
    let out = run(vec!["keygen".into(), "--name".into(), "x1".into(), "--server".into(), "http://127.0.0.1:1".into()]).await.unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("connect_failed") && err.contains("127.0.0.1:1"), "{err}");
    assert!(!cwd.path().join("pawns.redb").exists());
    // An explicit --db is created, and keygen says so.
    let out = run(vec!["keygen".into(), "--name".into(), "x2".into(), "--db".into(), "new.redb".into()]).await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Created a new data file new.redb"));
    assert!(cwd.path().join("new.redb").exists());
    // A bad name is refused before anything is asked.
    let out = run(vec!["keygen".into(), "--name".into(), "9lives".into(), "--server".into(), "http://127.0.0.1:1".into()]).await.unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid_name"));
    srv.shutdown().await;
}

/// The seed's minimal agent loop (`my_agent`) sends `subscribe` right behind `login`
/// without waiting for the answer, then reads `vars` for HEALTH and FIGHTING.
#[tokio::test]
async fn the_minimal_agent_loop_subscribes_before_the_login_answer() {
    let srv = TestServer::start().await;
    let key = srv.key("my_agent").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "my_agent", "password": key, "is_agent": true}})).await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["HEALTH", "MAX_HEALTH", "ROOM_EXITS", "ROOM_MOBS", "FIGHTING"]}})).await;
    let st = a.expect("state").await;
    assert_eq!(st["data"]["player"]["name"], "My_agent");
    // The full dump, then the subscription's own answer; never not_authenticated.
    let v = a.until(|v| v["type"] == "vars" && v["data"].as_object().is_some_and(|o| o.len() < 19)).await;
    assert!(v["data"]["HEALTH"].is_i64() && v["data"]["FIGHTING"] == false, "{v}");
    assert!(!a.seen.iter().any(|v| v["type"] == "error"), "{:?}", a.seen);
    srv.shutdown().await;
}

use std::time::Duration;

use futures_util::StreamExt;

use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn key_login_gets_state_then_all_19_variables() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    assert!(key.starts_with("dp_") && key.len() == 67);
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    assert_eq!(state["seq"], 1, "state is the first message");
    assert_eq!(state["data"]["player"]["name"], "Brenda");
    assert_eq!(state["data"]["player"]["is_agent"], true);
    assert_eq!(state["data"]["room"]["vnum"], 8004);
    assert!(state["data"]["token"].as_str().unwrap().len() > 10);
    assert_eq!(state["data"]["room"]["doors"][0]["state"], "locked");
    let vars = a.next().await;
    assert_eq!(vars["type"], "vars");
    let d = vars["data"].as_object().unwrap();
    assert_eq!(d.len(), 19, "{d:?}");
    assert_eq!(d["ROOM_VNUM"], 8004);
    assert_eq!(d["ROOM_EXITS"], json!(["north", "east", "south", "west"]));
    assert_eq!(d["FIGHTING"], false);
    assert_eq!(d["EVENTS"], json!([]));
    srv.shutdown().await;
}

#[tokio::test]
async fn second_dialect_api_key_and_mode_agent() {
    let srv = TestServer::start().await;
    let key = srv.key("bannor").await;
    let mut a = WsClient::connect(srv.addr).await;
    // No player_name: the key names its character.
    a.send(json!({"type": "login", "data": {"api_key": key, "mode": "agent", "class": 0, "race": 1}})).await;
    let state = a.expect("state").await;
    assert_eq!(state["data"]["player"]["name"], "Bannor");
    assert_eq!(state["data"]["player"]["class"], "Magic-user");
    assert_eq!(state["data"]["player"]["race"], "Elf");
    srv.shutdown().await;
}

#[tokio::test]
async fn password_characters_are_created_and_log_in_again() {
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "Corwin", "password": "amber-gate", "new_char": true, "class": 2, "race": 2}}))
        .await;
    let s = a.expect("state").await;
    assert_eq!(s["data"]["player"]["class"], "Thief");
    assert_eq!(s["data"]["player"]["is_agent"], false);
    drop(a);
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"player_name": "corwin", "password": "amber-gate"}})).await;
    let s = b.expect("state").await;
    assert_eq!(s["data"]["player"]["name"], "Corwin");
    srv.shutdown().await;
}

#[tokio::test]
async fn interactive_creation_walks_through_char_create() {
    let srv = TestServer::start().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "Dara", "password": "pw1234", "new_char": true}})).await;
    let c = a.expect("char_create").await;
    assert_eq!(c["data"]["stage"], "sex");
    a.send(json!({"type": "char_input", "data": {"choice": "purple"}})).await;
    let c = a.expect("char_create").await;
    assert_eq!(c["data"]["stage"], "sex", "a bad choice repeats the stage");
    assert!(c["data"]["prompt"].as_str().unwrap().contains("not a sex"));
    a.send(json!({"type": "char_input", "data": {"choice": "female"}})).await;
    assert_eq!(a.expect("char_create").await["data"]["stage"], "race");
    a.send(json!({"type": "char_input", "data": {"choice": 3}})).await;
    assert_eq!(a.expect("char_create").await["data"]["stage"], "class");
    a.send(json!({"type": "char_input", "data": {"choice": "1"}})).await;
    let c = a.expect("char_create").await;
    assert_eq!(c["data"]["stage"], "stats");
    assert!(c["data"]["stats"]["str"].as_u64().is_some());
    a.send(json!({"type": "char_input", "data": {"choice": "keep"}})).await;
    let s = a.expect("state").await;
    assert_eq!(s["data"]["player"]["race"], "Kender");
    assert_eq!(s["data"]["player"]["class"], "Cleric");
    srv.shutdown().await;
}

#[tokio::test]
async fn moving_sends_text_state_and_real_deltas_with_re() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.expect("vars").await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["ROOM_VNUM", "ROOM_NAME", "ROOM_MOBS", "MOVE"]}, "id": "s1"})).await;
    let v = a.expect("vars").await;
    assert_eq!(v["re"], "s1");
    assert_eq!(v["data"]["ROOM_VNUM"], 8004);
    a.cmd("east", "c1").await;
    let text = a.reply_text("c1").await;
    assert!(text.contains("The Training Yard"), "{text}");
    let st = a.expect("state").await;
    assert_eq!(st["re"], "c1");
    assert_eq!(st["data"]["room"]["mobs"], json!(["a straw dummy"]));
    let v = a.expect("vars").await;
    assert_eq!(v["re"], "c1");
    assert_eq!(v["data"]["ROOM_VNUM"], 8005);
    assert_eq!(v["data"]["ROOM_NAME"], "The Training Yard");
    let mobs = v["data"]["ROOM_MOBS"].as_array().unwrap();
    assert_eq!(mobs[0]["target_string"], "dummy");
    assert!(mobs[0]["instance_id"].as_str().unwrap().starts_with("mob_9001_"));
    assert!(v["data"].get("HEALTH").is_none(), "only changed, subscribed variables");
    // Abbreviations and the args form reach the same dispatcher.
    a.send(json!({"type": "command", "data": {"command": "look", "args": ["dummy"]}, "id": "c2"})).await;
    assert!(a.reply_text("c2").await.contains("stuffed with straw"));
    a.cmd("w", "c3").await;
    assert!(a.reply_text("c3").await.contains("Test Temple"));
    srv.shutdown().await;
}

#[tokio::test]
async fn health_deltas_arrive_on_combat_rounds_without_a_command() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["HEALTH", "FIGHTING", "ROOM_MOBS"]}})).await;
    a.cmd("south", "c1").await;
    a.until(|v| v["type"] == "vars" && v["re"] == "c1").await;
    a.cmd("kill partner", "c2").await;
    let v = a.until(|v| v["type"] == "vars" && v["data"]["FIGHTING"] == true).await;
    assert_eq!(v["data"]["ROOM_MOBS"][0]["fighting"], true);
    // The partner hits back for 1 each round it lands; that arrives with no `re`.
    let v = a.until(|v| v["type"] == "vars" && v["re"].is_null() && v["data"].get("HEALTH").is_some()).await;
    assert!(v["data"]["HEALTH"].as_i64().unwrap() > 0);
    // Combat rounds are also narrated as events without `re`.
    let e = a.until(|v| v["type"] == "event" && v["data"]["type"] == "combat" && v["re"].is_null()).await;
    assert!(e["data"]["text"].as_str().unwrap().len() > 3);
    srv.shutdown().await;
}

#[tokio::test]
async fn who_shows_an_agent_beside_humans() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Hiro", "secret1").await;
    let who = t.cmd("who").await;
    assert!(who.contains("Brenda [agent]"), "{who}");
    assert!(who.contains("Hiro"), "{who}");
    assert!(who.contains("2 characters displayed"), "{who}");
    a.cmd("who", "w").await;
    let text = a.reply_text("w").await;
    assert!(text.contains("Hiro") && text.contains("Brenda [agent]"));
    srv.shutdown().await;
}

#[tokio::test]
async fn resume_after_a_dropped_socket_replays_with_no_seq_gap() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let key2 = srv.key("bannor").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    a.send(json!({"type": "subscribe", "data": {"variables": ["*"]}})).await;
    a.cmd("look", "l1").await;
    a.until(|v| v["type"] == "state" && v["re"] == "l1").await;
    let last = a.last_seq;
    // Drop the socket without a close handshake.
    drop(a);
    // (A fixed wait: the server reads the dropped socket's end and the character goes
    // link-dead; nothing the API shows tells link-dead from playing.)
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Things happen while Brenda is link-dead.
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("bannor", &key2).await;
    b.cmd("say hello brenda", "s").await;
    b.reply_text("s").await;
    // (A fixed wait: Bannor's words reach Brenda's link — its replay ring — on the link's
    // own task after the engine's flush; no API shows what a ring holds.)
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut a2 = WsClient::connect(srv.addr).await;
    a2.last_seq = last;
    a2.send(json!({"type": "login", "data": {"is_agent": true, "resume": {"token": token, "last_seq": last}}})).await;
    // `next` asserts seq == last + 1, and so on for every message.
    let said = a2.until(|v| v["type"] == "event" && v["data"]["type"] == "say").await;
    assert!(said["data"]["text"].as_str().unwrap().contains("hello brenda"));
    assert_eq!(said["data"]["from"], "Bannor");
    // And the session goes on on the same sequence.
    a2.cmd("look", "l2").await;
    assert!(a2.reply_text("l2").await.contains("Test Temple"));
    srv.shutdown().await;
}

/// A resume from a new socket while the old one is still open (its network died and the
/// server has not noticed yet): when the old socket finally goes, the new one keeps its
/// link, and nobody hears that the agent lost its link. (The old socket's end used to
/// detach whichever socket the link had by then: the resumed one went silent.)
#[tokio::test]
async fn the_old_socket_closing_after_a_resume_leaves_the_new_one_attached() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let key2 = srv.key("bannor").await;
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("bannor", &key2).await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    a.cmd("look", "l1").await;
    a.until(|v| v["type"] == "state" && v["re"] == "l1").await;
    let mut a2 = WsClient::connect(srv.addr).await;
    a2.last_seq = a.last_seq;
    a2.send(json!({"type": "login", "data": {"is_agent": true, "resume": {"token": token, "last_seq": a.last_seq}}})).await;
    a2.cmd("look", "l2").await;
    assert!(a2.reply_text("l2").await.contains("Test Temple"));
    // Now the old socket goes (the takeover may have closed it already).
    let _ = a.ws.close(None).await;
    drop(a);
    // (A fixed wait for a non-event: the old socket's close is read, and must not end
    // the new session; nothing shows that it has been read.)
    tokio::time::sleep(Duration::from_millis(300)).await;
    a2.cmd("look", "l3").await;
    assert!(a2.reply_text("l3").await.contains("Test Temple"), "the resumed socket still hears its replies");
    b.cmd("say are you there", "s").await;
    b.reply_text("s").await;
    let heard = a2.until(|v| v["type"] == "event" && v["data"]["type"] == "say").await;
    assert_eq!(heard["data"]["from"], "Bannor");
    b.cmd("look", "bl").await;
    b.until(|v| v["type"] == "state" && v["re"] == "bl").await;
    assert!(
        !b.seen.iter().any(|v| v["data"]["text"].as_str().is_some_and(|t| t.contains("lost their link"))),
        "Brenda never lost her link: {:?}",
        b.seen.iter().filter_map(|v| v["data"]["text"].as_str()).collect::<Vec<_>>()
    );
    srv.shutdown().await;
}

/// Brenda logged in on one socket (`a`) and resumed on another (`a2`) while the first is
/// still open; `a2` has been answered once.
async fn resumed_while_still_open() -> (TestServer, WsClient, WsClient) {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    let mut a2 = WsClient::connect(srv.addr).await;
    a2.last_seq = a.last_seq;
    a2.send(json!({"type": "login", "data": {"is_agent": true, "resume": {"token": token, "last_seq": a.last_seq}}})).await;
    a2.cmd("look", "l1").await;
    assert!(a2.reply_text("l1").await.contains("Test Temple"));
    (srv, a, a2)
}

/// A resume while the old socket is still open takes the character over, as a second
/// login does (protocol §9): the old socket is told `session_taken_over` and closed.
/// (It used to stay open, its commands still driving the character.)
#[tokio::test]
async fn a_resume_takes_the_character_over_from_a_socket_still_open() {
    let (srv, mut a, mut a2) = resumed_while_still_open().await;
    assert_eq!(a.error_code().await, "session_taken_over");
    assert_eq!(a.closed().await, Some(1008));
    a2.cmd("look", "l2").await;
    assert!(a2.reply_text("l2").await.contains("Test Temple"));
    srv.shutdown().await;
}

/// What the old socket does after a resume reaches neither the character nor the new
/// socket: its oversized frame closes the old socket only. (Its error and its close
/// went through the link to the resumed socket, which was closed with 1009.)
#[tokio::test]
async fn the_old_socket_s_oversized_frame_after_a_resume_leaves_the_new_one_open() {
    let (srv, mut a, mut a2) = resumed_while_still_open().await;
    // The old client has read nothing since: it still writes.
    let big = format!("{{\"type\":\"command\",\"data\":{{\"command\":\"say {}\"}}}}", "x".repeat(17 * 1024));
    let _ = futures_util::SinkExt::send(&mut a.ws, tokio_tungstenite::tungstenite::Message::text(big)).await;
    // (A fixed wait for a non-event: the old socket's oversized frame is read and refused,
    // and must not end the new session; nothing shows that it has been read.)
    tokio::time::sleep(Duration::from_millis(300)).await;
    a2.cmd("look", "l2").await;
    let v = a2.until(|v| v["re"] == "l2").await;
    assert_eq!(v["type"], "event", "the resumed socket is still served: {v}");
    assert!(!a2.seen.iter().any(|v| v["type"] == "error"), "no error of the old socket's reached the new one: {:?}", a2.seen);
    srv.shutdown().await;
}

#[tokio::test]
async fn resume_after_the_grace_period_rebuilds_with_resumed_false() {
    let srv = TestServer::start_with(|c| c.engine.linkdead_grace = Duration::from_millis(300)).await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    let last = a.last_seq;
    drop(a);
    // The grace period runs out: the character leaves the world.
    until_online(srv.addr, "brenda", false).await;
    let mut a2 = WsClient::connect(srv.addr).await;
    a2.send(json!({"type": "login", "data": {"resume": {"token": token, "last_seq": last}}})).await;
    let st = a2.expect("state").await;
    assert_eq!(st["data"]["room"]["vnum"], 8004);
    let v = a2.expect("vars").await;
    assert_eq!(v["data"]["resumed"], false);
    assert_eq!(v["data"].as_object().unwrap().len(), 20, "19 variables and the flag");
    srv.shutdown().await;
}

/// A resume that asks for messages after `last_seq` where the session's link never got
/// that far (a plain login took the character over since, and its link counts from its
/// own start) cannot be filled: it is rebuilt with `resumed:false`, not attached silently
/// with nothing replayed and the seq going backwards.
#[tokio::test]
async fn a_resume_from_past_the_session_s_seq_rebuilds_with_resumed_false() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    a.send(json!({"type": "subscribe", "data": {"variables": ["*"]}})).await;
    for i in 0..6 {
        let id = format!("l{i}");
        a.cmd("look", &id).await;
        a.until(|v| v["type"] == "state" && v["re"] == id.as_str()).await;
    }
    let last = a.last_seq;
    // A plain login takes Brenda over: a new link, counting from its own start.
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("brenda", &key).await;
    assert!(b.last_seq < last, "the new link is behind the old one: {} vs {last}", b.last_seq);
    let mut a2 = WsClient::connect(srv.addr).await;
    a2.send(json!({"type": "login", "data": {"is_agent": true, "resume": {"token": token, "last_seq": last}}})).await;
    // Its seq numbers are the new link's: read them as they come.
    let mut got_state = false;
    loop {
        let Some(Ok(msg)) = tokio::time::timeout(Duration::from_secs(10), a2.ws.next()).await.expect("the resume is answered") else {
            panic!("the connection ended before the rebuild")
        };
        let Ok(text) = msg.to_text() else { continue };
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        got_state |= v["type"] == "state";
        if v["type"] == "vars" && !v["data"]["resumed"].is_null() {
            assert_eq!(v["data"]["resumed"], false, "{v}");
            break;
        }
    }
    assert!(got_state, "a state comes before the full vars");
    srv.shutdown().await;
}

#[tokio::test]
async fn a_second_login_takes_the_character_over() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("brenda", &key).await;
    assert_eq!(a.error_code().await, "session_taken_over");
    a.closed().await;
    b.cmd("look", "l").await;
    assert!(b.reply_text("l").await.contains("Test Temple"));
    srv.shutdown().await;
}

#[tokio::test]
async fn token_refresh_arrives_after_the_refresh_interval() {
    let srv = TestServer::start_with(|c| c.link.token_refresh_after = Duration::from_millis(300)).await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let t = a.expect("token_refresh").await;
    assert!(t["data"]["token"].as_str().unwrap().contains('.'));
    srv.shutdown().await;
}

#[tokio::test]
async fn a_crowd_hears_comings_and_goings_gathered_once_a_second() {
    let srv = TestServer::start().await;
    let mut watcher = WsClient::connect(srv.addr).await;
    let key = srv.key("watcher").await;
    watcher.login_key("watcher", &key).await;
    // Fill the temple past the crowd threshold.
    let mut others = Vec::new();
    for i in 0..pawns::game::send::crowd::CROWD + 2 {
        let name = format!("crowd{i}");
        let k = srv.key(&name).await;
        let mut c = WsClient::connect(srv.addr).await;
        c.login_key(&name, &k).await;
        others.push(c);
    }
    // Two of them step out: the watcher hears one gathered notice, not two.
    others[0].cmd("east", "e").await;
    others[1].cmd("east", "e").await;
    let note = watcher.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Leaving:"))).await;
    let text = note["data"]["text"].as_str().unwrap();
    assert!(text.contains("Crowd0") && text.contains("Crowd1"), "{text}");
    assert!(
        !watcher.seen.iter().any(|v| v["data"]["text"].as_str().is_some_and(|t| t.contains("leaves east"))),
        "no one-by-one notices in a crowd"
    );
    // A crowded room's description sums the crowd up.
    watcher.cmd("look", "l").await;
    let look = watcher.reply_text("l").await;
    assert!(look.contains("more people are here"), "{look}");
    let st = watcher.expect("state").await;
    assert!(st["data"]["room"]["players"].as_array().unwrap().len() <= 50);
    srv.shutdown().await;
}

//! The HUD over the real protocol (§11): an agent asks for its whole context and gets it
//! cut to its budget, in the format it asked for, with what was said around it.

use std::time::{Duration, Instant};

use pawns::hud::format::{canonical, decode, HudFormat};
use serde_json::{json, Value};

use crate::common::*;

async fn hud(a: &mut WsClient, data: Value, id: &str) -> Value {
    a.send(json!({"type": "hud", "data": data, "id": id})).await;
    a.until(|v| v["re"] == id && (v["type"] == "hud" || v["type"] == "error")).await
}

fn content(reply: &Value) -> Value {
    let f: HudFormat = reply["data"]["format"].as_str().unwrap().parse().unwrap();
    decode(reply["data"]["content"].as_str().unwrap(), f).unwrap()
}

#[tokio::test]
async fn an_agent_gets_its_hud_with_what_was_said_in_each_context() {
    // Bram talks fast: a burst above the protocol's default.
    let srv = TestServer::start_with(|c| c.cmd_burst = 50.0).await;
    let (ka, kb) = (srv.key("ann").await, srv.key("bram").await);
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("bram", &kb).await;
    a.cmd("look", "l").await;
    a.reply_text("l").await;
    b.cmd("say hello ann", "s").await;
    b.reply_text("s").await;
    a.until(|v| v["type"] == "event" && v["data"]["type"] == "say").await;
    // A group: Bram follows Ann, she groups him, he tells the group.
    b.cmd("follow ann", "f").await;
    b.reply_text("f").await;
    a.cmd("group bram", "g").await;
    a.reply_text("g").await;
    b.cmd("gtell ready when you are", "gt").await;
    b.reply_text("gt").await;
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("tells the group"))).await;

    let r = hud(&mut a, json!({"format": "compact_json", "budget": 4000}), "h1").await;
    assert_eq!(r["type"], "hud", "{r}");
    assert!(r["data"]["tokens"]["total"].as_u64().unwrap() <= 4000, "{r}");
    assert_eq!(r["data"]["heartbeat_s"], 10.0);
    let v = content(&r);
    assert_eq!(v["self"]["identity"]["name"], "Ann");
    assert_eq!(v["self"]["identity"]["model"], "none", "the model from login");
    assert!(v["self"]["recent_actions"].as_array().unwrap().iter().any(|x| x["action"] == "look" && x["result"] == "ok"), "{v}");
    assert!(v["meta"]["available_actions"]["movement"].as_array().unwrap().iter().any(|x| x == "north"));
    let rooms = v["rooms"].as_array().unwrap();
    let here = rooms.iter().find(|r| r["id"] == "here").expect("the game room");
    assert!(here["members"].as_array().unwrap().iter().any(|m| m == "Bram"), "{here}");
    let said = here["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["content"].as_str().is_some_and(|c| c.contains("hello ann")))
        .expect("Bram's say");
    assert_eq!(said["sender"], "Bram");
    assert!(said["id"].as_u64().unwrap() > 0, "messages have ids to reply and react to");
    let group = rooms.iter().find(|r| r["id"] == "group").expect("the group's conversation");
    assert!(group["messages"][0]["content"].as_str().unwrap().contains("ready when you are"), "{group}");
    assert!(group["members"].as_array().unwrap().len() >= 2);

    // A busier room (TOON's tables pay off once there are messages to tabulate), then the
    // same HUD in the three formats: each decodes to the same context, each smaller.
    for i in 0..12 {
        b.cmd(&format!("say the goblins are back at the north gate, count {i}"), &format!("b{i}")).await;
        b.reply_text(&format!("b{i}")).await;
    }
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("count 11"))).await;
    let mut totals = Vec::new();
    let mut rooms = Vec::new();
    let mut values = Vec::new();
    for f in ["json", "compact_json", "toon"] {
        let r = hud(&mut a, json!({"format": f, "budget": 20000}), f).await;
        totals.push(r["data"]["tokens"]["total"].as_u64().unwrap());
        rooms.push(r["data"]["tokens"]["rooms"].as_u64().unwrap());
        if std::env::var("HUD_PRINT").is_ok() {
            eprintln!("==== {f} {}\n{}", r["data"]["tokens"], r["data"]["content"].as_str().unwrap());
        }
        let mut v = canonical(&content(&r));
        // Only the HUD requests in between differ: none are actions.
        v["self"]["recent_actions"] = Value::Null;
        values.push(v);
    }
    // Each smaller than pretty JSON; the rooms (TOON's tables) smaller again in TOON. (The
    // actions' schemas cost TOON more than compact JSON: nested objects, not tables.)
    assert!(totals[0] > totals[1] && totals[0] > totals[2], "json > compact_json, toon: {totals:?}");
    assert!(rooms[0] > rooms[1] && rooms[1] > rooms[2], "rooms: json > compact_json > toon: {rooms:?}");
    assert_eq!(values[0]["rooms"], values[1]["rooms"]);
    assert_eq!(values[1]["rooms"], values[2]["rooms"]);
    srv.shutdown().await;
}

#[tokio::test]
async fn bad_hud_requests_are_refused_with_codes() {
    let srv = TestServer::start().await;
    let key = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "hud", "data": {}, "id": "early"})).await;
    assert_eq!(a.error_code().await, "not_authenticated");
    a.login_key("ann", &key).await;
    let r = hud(&mut a, json!({"format": "yaml"}), "f").await;
    assert_eq!((r["type"].as_str(), r["data"]["code"].as_str()), (Some("error"), Some("bad_request")), "{r}");
    let r = hud(&mut a, json!({"budget": 5}), "b").await;
    assert_eq!(r["data"]["code"], "bad_budget", "{r}");
    let r = hud(&mut a, json!({"budget": "lots"}), "b2").await;
    assert_eq!(r["data"]["code"], "bad_request", "{r}");
    let r = hud(&mut a, json!({"colour": "red"}), "u").await;
    assert_eq!(r["data"]["code"], "bad_request", "{r}");
    // The session goes on.
    let r = hud(&mut a, json!({}), "ok").await;
    assert_eq!(r["type"], "hud");
    assert_eq!(r["data"]["format"], "json");
    assert_eq!(r["data"]["budget"], 10000);
    srv.shutdown().await;
}

/// `heartbeat: true` answers at once and then pushes a HUD every heartbeat (10 s; on
/// this server a heartbeat second lasts 50 ms, so 0.5 s).
#[tokio::test]
async fn a_heartbeat_pushes_huds_until_stopped() {
    let second = Duration::from_millis(50);
    let srv = TestServer::start_with(|c| c.heartbeat_second = second).await;
    let key = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &key).await;
    // From the request on: the first beat comes a heartbeat after it was asked for.
    let started = Instant::now();
    let first = hud(&mut a, json!({"heartbeat": true, "format": "toon"}), "hb").await;
    assert_eq!(first["data"]["format"], "toon");
    let pushed =
        tokio::time::timeout(second * 14, a.until(|v| v["type"] == "hud" && v.get("re").is_none())).await.expect("a heartbeat HUD");
    assert!(started.elapsed() >= second * 10, "pushed at the heartbeat, not before: {:?}", started.elapsed());
    assert_eq!(pushed["data"]["format"], "toon");
    assert!(pushed["data"]["heartbeat_s"].as_f64().unwrap() <= 10.0);
    a.send(json!({"type": "hud", "data": {"heartbeat": false}, "id": "stop"})).await;
    a.until(|v| v["re"] == "stop").await;
    srv.shutdown().await;
}

async fn actions(a: &mut WsClient, msg: Value, id: &str) -> Vec<Value> {
    let mut m = msg;
    m["type"] = json!("actions");
    m["id"] = json!(id);
    a.send(m).await;
    let r = a.until(|v| v["re"] == id && (v["type"] == "actions_result" || v["type"] == "error")).await;
    assert_eq!(r["type"], "actions_result", "{r}");
    r["data"]["results"].as_array().unwrap().clone()
}

/// An agent answers its HUD: it speaks in the room, writes its knowledge and reacts to a
/// message; the next HUD shows all three, and the other agent's heartbeat changed. Bad
/// items are refused with codes and change nothing; the knowledge survives a restart.
#[tokio::test]
async fn actions_speak_remember_and_react_and_the_next_hud_shows_them() {
    let srv = TestServer::start().await;
    let (ka, kb) = (srv.key("ann").await, srv.key("bram").await);
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("bram", &kb).await;
    b.cmd("say hello ann", "s").await;
    b.reply_text("s").await;
    a.until(|v| v["type"] == "event" && v["data"]["type"] == "say").await;
    let v = content(&hud(&mut a, json!({}), "h1").await);
    let here = v["rooms"].as_array().unwrap().iter().find(|r| r["id"] == "here").unwrap().clone();
    let said = here["messages"].as_array().unwrap().iter().find(|m| m["sender"] == "Bram" && m["type"] == "say").unwrap().clone();
    let mid = said["id"].as_u64().unwrap();

    let results = actions(
        &mut a,
        json!({"data": {
        "responses": [{"room_id": "here", "message": "hi bram"}],
        "actions": [
            {"type": "set", "path": "people.Bram.trust", "value": 0.8, "w": 0.9},
            {"type": "react", "message_id": mid, "reaction": "thumbs_up"},
            {"type": "teleport"},
            {"type": "set", "path": "a..b", "value": 1},
            {"type": "create_agent", "name": "x", "background_prompt": "a scout"},
            {"type": "react", "message_id": 999999999, "reaction": "thumbs_up"},
            {"type": "set_wpm", "room_id": "here", "value": 500}
        ]}}),
        "a1",
    )
    .await;
    let codes: Vec<Value> = results.iter().map(|r| if r["ok"] == true { json!("ok") } else { r["code"].clone() }).collect();
    assert_eq!(
        codes,
        vec![
            json!("ok"),
            json!("ok"),
            json!("ok"),
            json!("unknown_action"),
            json!("bad_path"),
            json!("not_granted"),
            json!("no_such_message"),
            json!("bad_request")
        ]
    );
    assert_eq!(results[0]["words"], 2);
    b.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("hi bram"))).await;

    // Over the room's word budget right after speaking: refused, nothing said.
    let long = (0..40).map(|_| "word").collect::<Vec<_>>().join(" ");
    let results = actions(&mut a, json!({"data": {"responses": [{"room_id": "here", "message": long}]}}), "a2").await;
    assert_eq!(results[0]["code"], "over_budget", "{results:?}");
    // An answer written in TOON.
    let results = actions(&mut a, json!({"toon": "actions[1]{type,path,value}:\n  set,character.mood,wary"}), "a3").await;
    assert_eq!(results[0]["ok"], true, "{results:?}");

    let v = content(&hud(&mut a, json!({"format": "toon"}), "h2").await);
    assert_eq!(canonical(&v["self"]["knowledge"]["people"]["Bram"]["trust"]), json!({"v": 0.8, "w": 0.9}), "{}", v["self"]);
    assert_eq!(v["self"]["knowledge"]["character"]["mood"], "wary");
    let here = v["rooms"].as_array().unwrap().iter().find(|r| r["id"] == "here").unwrap().clone();
    let reacted = here["messages"].as_array().unwrap().iter().find(|m| m["id"] == mid).unwrap().clone();
    assert_eq!(reacted["thumbs_up"], 1, "reactions are columns of the room's messages: {reacted}");
    assert!(
        here["messages"].as_array().unwrap().iter().all(|m| !m["content"].as_str().unwrap_or("").contains("word word")),
        "nothing over budget was said"
    );
    // Bram's heartbeat: 10 s less the thumbs up's half second.
    let r = hud(&mut b, json!({}), "hb").await;
    assert_eq!(r["data"]["heartbeat_s"], 9.5);

    // The knowledge is kept with the character.
    drop((a, b));
    let srv = srv.restart().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;
    let v = content(&hud(&mut a, json!({}), "h3").await);
    assert_eq!(v["self"]["knowledge"]["character"]["mood"], "wary", "{v}");
    srv.shutdown().await;
}

#[tokio::test]
async fn malformed_actions_are_refused_whole() {
    let srv = TestServer::start().await;
    let key = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &key).await;
    a.send(json!({"type": "actions", "id": "x", "data": {"responses": "hi"}})).await;
    assert_eq!(a.error_code().await, "bad_request");
    a.send(json!({"type": "actions", "id": "y", "toon": "actions[2]{type}:\n  set"})).await;
    assert_eq!(a.error_code().await, "bad_request");
    a.send(json!({"type": "actions", "id": "z", "data": {"orders": []}})).await;
    assert_eq!(a.error_code().await, "bad_request");
    srv.shutdown().await;
}

#[tokio::test]
async fn the_login_tier_sets_the_default_budget() {
    let srv = TestServer::start().await;
    let key = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "ann", "password": key, "is_agent": true, "tier": "small"}})).await;
    a.expect("state").await;
    let r = hud(&mut a, json!({}), "h").await;
    assert_eq!(r["data"]["budget"], 4000);
    assert!(r["data"]["tokens"]["total"].as_u64().unwrap() <= 4000);
    let r = hud(&mut a, json!({"budget": 12000}), "h2").await;
    assert_eq!(r["data"]["budget"], 12000, "a request's own budget wins");
    srv.shutdown().await;
}

/// A HUD missed on the wire is stale: a resume replays it as a stub (same `seq`, no gap)
/// instead of the whole context, and the replay buffer never holds whole HUDs.
#[tokio::test]
async fn a_resume_replays_a_missed_hud_as_a_stale_stub() {
    let srv = TestServer::start().await;
    let key = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("ann", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    let before = a.last_seq;
    let r = hud(&mut a, json!({"format": "toon"}), "h1").await;
    assert!(r["data"]["content"].as_str().is_some_and(|c| c.len() > 200));
    drop(a);
    let mut a2 = WsClient::connect(srv.addr).await;
    a2.last_seq = before;
    a2.send(json!({"type": "login", "data": {"is_agent": true, "resume": {"token": token, "last_seq": before}}})).await;
    let replayed = a2.until(|v| v["re"] == "h1").await;
    assert_eq!(replayed["type"], "hud");
    assert_eq!(replayed["data"]["stale"], true, "{replayed}");
    assert!(replayed["data"].get("content").is_none());
    // A fresh one is there for the asking.
    let r = hud(&mut a2, json!({}), "h2").await;
    assert!(r["data"]["content"].is_string());
    srv.shutdown().await;
}

/// The room's messages as `who`'s HUD shows them.
async fn here_messages(c: &mut WsClient, id: &str) -> Vec<Value> {
    let v = content(&hud(c, json!({}), id).await);
    v["rooms"].as_array().unwrap().iter().find(|r| r["id"] == "here").unwrap()["messages"].as_array().unwrap().clone()
}

/// Issue 50: one's own words are one's own (one id for every viewer, its own name,
/// `you: true`), the reactions on them show to their author, a `reply` names what it
/// answers, and the seed's `[no response]` is silence.
#[tokio::test]
async fn ones_own_words_replies_and_silence_read_as_they_were() {
    let srv = TestServer::start_with(|c| c.cmd_burst = 50.0).await;
    let (ka, kb) = (srv.key("ann").await, srv.key("bram").await);
    let (mut a, mut b) = (WsClient::connect(srv.addr).await, WsClient::connect(srv.addr).await);
    a.login_key("ann", &ka).await;
    b.login_key("bram", &kb).await;
    b.cmd("say hello ann", "s").await;
    b.reply_text("s").await;
    a.until(|v| v["type"] == "event" && v["data"]["type"] == "say").await;
    // As Bram sees it and as Ann sees it: one message, Bram's.
    let bram_sees = here_messages(&mut b, "hb").await;
    let ann_sees = here_messages(&mut a, "ha").await;
    let own = bram_sees.iter().find(|m| m["content"].as_str().is_some_and(|c| c.contains("hello ann"))).expect("Bram's own copy");
    let heard = ann_sees.iter().find(|m| m["content"].as_str().is_some_and(|c| c.contains("hello ann"))).expect("Ann's copy");
    assert_eq!(own["id"], heard["id"], "one id for every viewer: {own} {heard}");
    assert_eq!((own["sender"].as_str(), own["you"].as_bool()), (Some("Bram"), Some(true)), "{own}");
    assert_eq!((heard["sender"].as_str(), heard["you"].as_bool()), (Some("Bram"), Some(false)), "{heard}");
    let mid = heard["id"].as_u64().unwrap();
    // Ann reacts and replies; Bram sees the reaction on his own message, and her answer
    // names it.
    let r = actions(
        &mut a,
        json!({"data": {"actions": [
            {"type": "react", "message_id": mid, "reaction": "heart"},
            {"type": "reply", "message_id": mid, "message": "well met"}
        ]}}),
        "a1",
    )
    .await;
    assert!(r.iter().all(|x| x["ok"] == true), "{r:?}");
    b.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("well met"))).await;
    let bram_sees = here_messages(&mut b, "hb2").await;
    let own = bram_sees.iter().find(|m| m["id"] == mid).expect("still there");
    assert_eq!(own["heart"], 1, "the author sees the reactions: {own}");
    let answer = bram_sees.iter().find(|m| m["content"].as_str().is_some_and(|c| c.contains("well met"))).expect("Ann's reply");
    assert_eq!((answer["sender"].as_str(), answer["reply_to"].as_u64()), (Some("Ann"), Some(mid)), "{answer}");
    // Silence is not said.
    let r = actions(&mut a, json!({"data": {"responses": [{"room_id": "here", "message": "[no response]"}]}}), "a2").await;
    assert_eq!((r[0]["ok"].as_bool(), r[0]["silent"].as_bool()), (Some(true), Some(true)), "{r:?}");
    b.cmd("say anyone there", "s2").await;
    b.reply_text("s2").await;
    let bram_sees = here_messages(&mut b, "hb3").await;
    assert!(bram_sees.iter().all(|m| !m["content"].as_str().unwrap_or("").contains("no response")), "{bram_sees:?}");
    // Attention and pace are set on rooms one is in, not on any name.
    let r = actions(
        &mut a,
        json!({"data": {"actions": [
            {"type": "set_attention", "room_id": "nowhere", "value": "30%"},
            {"type": "set_attention", "room_id": 4242, "value": "30%"},
            {"type": "set_wpm", "room_id": "nowhere", "value": 120},
            {"type": "set_attention", "room_id": "here", "value": "30%"}
        ]}}),
        "a3",
    )
    .await;
    let codes: Vec<&str> = r.iter().map(|x| x["code"].as_str().unwrap_or("ok")).collect();
    assert_eq!(codes, ["no_such_room", "no_such_room", "no_such_room", "ok"], "{r:?}");
    // The seed's own shapes: `set_wpm` with `wpm` (one's own room), `send_message`.
    let r = actions(
        &mut a,
        json!({"data": {"actions": [
            {"type": "set_wpm", "wpm": 120},
            {"type": "send_message", "room_id": "here", "content": "as the seed says it"}
        ]}}),
        "a4",
    )
    .await;
    assert!(r.iter().all(|x| x["ok"] == true), "{r:?}");
    b.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("as the seed says it"))).await;
    // Every action shows in the next HUD's recent actions, a refusal with its code.
    actions(
        &mut a,
        json!({"data": {"actions": [
            {"type": "set", "path": "people.Bram.trust", "value": 0.8},
            {"type": "create_agent", "name": "Wren", "background_prompt": "a scout"}
        ]}}),
        "a5",
    )
    .await;
    let v = content(&hud(&mut a, json!({}), "ha2").await);
    let recent = v["self"]["recent_actions"].as_array().unwrap();
    let shown: Vec<(&str, &str)> = recent.iter().map(|x| (x["action"].as_str().unwrap(), x["result"].as_str().unwrap())).collect();
    for want in [("set people.Bram.trust", "ok"), ("create_agent Wren", "not_granted"), ("set_attention nowhere", "no_such_room")] {
        assert!(shown.contains(&want), "{want:?} in {shown:?}");
    }
    // A name set is the name others see, at once: in the members and on the words.
    let r = actions(&mut a, json!({"data": {"actions": [{"type": "set_name", "name": "Captain Ann"}]}}), "a6").await;
    assert_eq!(r[0]["ok"], true, "{r:?}");
    a.cmd("say under my new name", "s3").await;
    a.reply_text("s3").await;
    b.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("under my new name"))).await;
    let v = content(&hud(&mut b, json!({}), "hb4").await);
    let here = v["rooms"].as_array().unwrap().iter().find(|r| r["id"] == "here").unwrap().clone();
    assert!(here["members"].as_array().unwrap().iter().any(|m| m == "Captain Ann"), "{}", here["members"]);
    let said = here["messages"].as_array().unwrap().iter().find(|m| m["content"].as_str().is_some_and(|c| c.contains("new name"))).cloned();
    assert_eq!(said.as_ref().and_then(|m| m["sender"].as_str()), Some("Captain Ann"), "{said:?}");
    // The documented minimum budget holds a HUD, in every format.
    for f in ["json", "compact_json", "toon"] {
        let r = hud(&mut a, json!({"budget": 1000, "format": f}), &format!("min-{f}")).await;
        assert_eq!(r["type"], "hud", "{f}: {r}");
        assert!(r["data"]["tokens"]["total"].as_u64().unwrap() <= 1000, "{r}");
    }
    // A TOON HUD asks for a TOON answer; the compact keys are published.
    let v = content(&hud(&mut a, json!({"format": "toon"}), "ht").await);
    assert_eq!(v["meta"]["response_format"]["type"], "toon", "{}", v["meta"]);
    let (status, keys) = http_get(srv.addr, "/api/hud/keys").await;
    let keys: Value = serde_json::from_str(&keys).unwrap();
    assert_eq!((status, keys["short_keys"]["recent_actions"].as_str()), (200, Some("ra")), "{keys}");
    srv.shutdown().await;
}

/// Issue 50: what an agent heard in each context, and what it did, survive a restart —
/// a busy room beside a quiet tell, and a refused action.
#[tokio::test]
async fn a_huds_history_and_recent_actions_survive_a_restart() {
    let srv = TestServer::start_with(|c| c.cmd_burst = 200.0).await;
    let (ka, kb) = (srv.key("ann").await, srv.key("bram").await);
    let (mut a, mut b) = (WsClient::connect(srv.addr).await, WsClient::connect(srv.addr).await);
    a.login_key("ann", &ka).await;
    b.login_key("bram", &kb).await;
    b.cmd("tell ann the key is under the third stone", "t").await;
    b.reply_text("t").await;
    for i in 0..30 {
        b.cmd(&format!("say busy room line {i}"), &format!("s{i}")).await;
        b.reply_text(&format!("s{i}")).await;
    }
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("line 29"))).await;
    let r = actions(&mut a, json!({"data": {"actions": [{"type": "create_agent", "name": "Wren", "background_prompt": "a scout"}]}}), "a1")
        .await;
    assert_eq!(r[0]["code"], "not_granted", "{r:?}");
    drop((a, b));
    let srv = srv.restart().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;
    let v = content(&hud(&mut a, json!({"budget": 20000}), "h").await);
    let rooms = v["rooms"].as_array().unwrap();
    let tells = rooms.iter().find(|r| r["id"] == "tells").expect("the tells context is back");
    assert!(tells["messages"].as_array().unwrap().iter().any(|m| m["content"].as_str().unwrap_or("").contains("third stone")), "{tells}");
    let here = rooms.iter().find(|r| r["id"] == "here").unwrap();
    let lines = here["messages"].as_array().unwrap();
    assert!(lines.iter().any(|m| m["content"].as_str().unwrap_or("").contains("line 29")), "{here}");
    let ids: Vec<u64> = rooms.iter().flat_map(|r| r["messages"].as_array().unwrap().iter().map(|m| m["id"].as_u64().unwrap())).collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "ids stay one per message after the restart");
    let recent = v["self"]["recent_actions"].as_array().unwrap();
    assert!(recent.iter().any(|x| x["action"] == "create_agent Wren" && x["result"] == "not_granted"), "{recent:?}");
    // A restored message can still be reacted to.
    let mid = lines.last().unwrap()["id"].as_u64().unwrap();
    let r = actions(&mut a, json!({"data": {"actions": [{"type": "react", "message_id": mid, "reaction": "brain"}]}}), "a2").await;
    assert_eq!(r[0]["ok"], true, "{r:?}");
    srv.shutdown().await;
}

/// Issue 50: every action carries its JSON Schema — in the HUD, at `GET /api/hud/actions`
/// — and it is the one the server checks with: each published example is taken (never
/// refused as malformed), and each example with a required field taken away is refused
/// `bad_request` naming the field. Under a small budget the schemas give way to names.
#[tokio::test]
async fn every_action_carries_the_schema_the_server_checks_it_against() {
    let srv = TestServer::start_with(|c| c.cmd_burst = 50.0).await;
    let k = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &k).await;
    let (status, body) = http_get(srv.addr, "/api/hud/actions").await;
    assert_eq!(status, 200, "{body}");
    let published: Value = serde_json::from_str(&body).unwrap();
    let catalog = published["actions"].as_object().unwrap();

    // The HUD shows each of its own actions with the published schema, as written in
    // every format (compact JSON does not shorten a schema's keys).
    for f in ["json", "compact_json", "toon"] {
        let r = hud(&mut a, json!({"format": f, "budget": 20000}), &format!("h-{f}")).await;
        assert!(r["data"]["format"].is_string(), "{r}");
        let v = content(&r);
        let aa = v["meta"]["available_actions"].as_object().unwrap();
        let shown: Vec<(&String, &Value)> = aa.values().filter_map(Value::as_object).flatten().collect();
        assert_eq!(shown.len(), catalog.len() - 3, "{f}: all but agent management (not granted)");
        for (name, schema) in shown {
            assert_eq!(canonical(schema), canonical(&catalog[name]["schema"]), "{f}: {name}");
        }
        assert_eq!(aa["movement"][0], "north", "{f}: the game's commands stay names");
        if f == "compact_json" {
            assert!(r["data"]["content"].as_str().unwrap().contains("\"properties\""), "schema keys as written");
        }
    }
    let small = hud(&mut a, json!({"budget": 1000}), "small").await;
    assert!(small["data"]["format"].is_string(), "{small}");
    let small = content(&small);
    assert!(small["meta"]["available_actions"]["knowledge"].is_array(), "names only: {}", small["meta"]);

    // Every example is well formed to the server (refused, if at all, for what the world
    // says: not granted, no such room…).
    let examples: Vec<Value> = catalog.values().map(|e| e["example"].clone()).collect();
    for (n, chunk) in examples.chunks(16).enumerate() {
        let r = actions(&mut a, json!({"data": {"actions": chunk}}), &format!("ex-{n}")).await;
        assert_eq!(r.len(), chunk.len());
        for (item, res) in chunk.iter().zip(&r) {
            let code = res["code"].as_str().unwrap_or("");
            assert!(!matches!(code, "bad_request" | "too_long" | "unknown_action" | "unavailable"), "{item} → {res}");
        }
    }
    let r = actions(&mut a, json!({"data": {"responses": [published["response"]["example"]]}}), "resp").await;
    assert_eq!(r.first().map(|x| x["ok"].clone()), Some(json!(true)), "{r:?} {}", published["response"]);

    // Each example without a required field is refused, naming it; the same for a
    // response without its room.
    let mut broken = Vec::new();
    for (name, e) in catalog {
        if let Some(field) = e["schema"]["required"].as_array().and_then(|r| r.first()).and_then(Value::as_str) {
            let mut item = e["example"].clone();
            item.as_object_mut().unwrap().remove(field);
            broken.push((name.clone(), field.to_string(), item));
        }
    }
    assert!(broken.len() > 25);
    for (n, chunk) in broken.chunks(16).enumerate() {
        let items: Vec<Value> = chunk.iter().map(|(_, _, i)| i.clone()).collect();
        let r = actions(&mut a, json!({"data": {"actions": items}}), &format!("br-{n}")).await;
        for ((name, field, _), res) in chunk.iter().zip(&r) {
            assert_eq!(res["code"], "bad_request", "{name} without {field}: {res}");
            assert!(res["message"].as_str().unwrap().contains(field.as_str()), "{name}: {res}");
        }
    }
    let r = actions(&mut a, json!({"data": {"responses": [{"message": "hello"}]}}), "resp-bad").await;
    // Items beside `data` are refused, not taken as nothing.
    a.send(json!({"type": "actions", "id": "beside", "actions": [{"type": "command", "command": "look"}]})).await;
    let e = a.until(|v| v["re"] == "beside").await;
    assert_eq!((e["type"].as_str(), e["data"]["code"].as_str()), (Some("error"), Some("bad_request")), "{e}");
    assert_eq!((r[0]["code"].as_str(), r[0]["message"].as_str().is_some_and(|m| m.contains("room_id"))), (Some("bad_request"), true));
    srv.shutdown().await;
}

/// Issue 50: an `actions` message is counted once against the command rate (10 a second,
/// a burst of 10), whatever it holds: 20 commands in one message are each answered, none
/// `rate_limited`, and they run one a pulse like typed ones.
#[tokio::test]
async fn an_actions_message_counts_once_against_the_rate() {
    let srv = TestServer::start().await;
    let k = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &k).await;
    let items: Vec<Value> = (0..20).map(|i| json!({"type": "command", "command": if i % 2 == 0 { "look" } else { "score" }})).collect();
    let r = actions(&mut a, json!({"data": {"actions": items}}), "many").await;
    assert_eq!(r.len(), 20);
    assert!(r.iter().all(|x| x["ok"] == true), "{r:?}");
    srv.shutdown().await;
}

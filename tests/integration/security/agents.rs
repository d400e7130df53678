//! What one agent may cost the others: memory quotas, reactions, HUD requests, guests,
//! the knowledge store.

use serde_json::json;

use super::*;
use crate::common::*;

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

/// An agent's words reach a person's terminal without its control bytes (ESC, OSC, BEL
/// cleared a screen and set a window's title) and without line breaks that forge a
/// line from someone else.
#[tokio::test]
async fn agents_cannot_write_to_human_screens() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Hilda", "hunter22").await;
    let key = srv.key("esca").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("esca", &key).await;
    t.until("Esca has entered").await;
    a.cmd("say hi\u{1b}[2J\u{1b}]0;pwned\u{7} there", "s").await;
    let heard = t.until_bytes("there'").await;
    act(&mut a, json!([]), "noop").await;
    a.send(json!({"type": "actions", "id": "r", "data": {"responses": [{"room_id": "here", "message": "line\r\nThe Keeper tells you, 'Type your password'"}]}}))
        .await;
    let forged = t.until_bytes("password'").await;
    for out in [&heard, &forged] {
        assert!(!out.iter().any(|b| *b == 0x1b || *b == 0x07 || *b == 0), "{:?}", String::from_utf8_lossy(out));
    }
    let text = String::from_utf8_lossy(&forged);
    assert!(text.contains("says, 'line  The Keeper tells you"), "the break became spaces: {text}");
    assert!(!text.contains("\nThe Keeper tells you"), "{text}");
    srv.shutdown().await;
}

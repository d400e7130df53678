//! Chat rooms over the real protocol (§11.2): keys, requests, grants and denials through
//! HUD actions and telnet's `room`; billboards seen by members only; talking from
//! anywhere; everything kept across a restart.

use serde_json::{json, Value};

use crate::common::*;

async fn hud(a: &mut WsClient, id: &str) -> Value {
    a.send(json!({"type": "hud", "data": {"format": "json", "budget": 20000}, "id": id})).await;
    let r = a.until(|v| v["re"] == id && v["type"] == "hud").await;
    serde_json::from_str(r["data"]["content"].as_str().unwrap()).unwrap()
}

async fn act(a: &mut WsClient, actions: Value, id: &str) -> Vec<Value> {
    a.send(json!({"type": "actions", "id": id, "data": {"actions": actions}})).await;
    let r = a.until(|v| v["re"] == id && v["type"] == "actions_result").await;
    r["data"]["results"].as_array().unwrap().clone()
}

fn chat_rooms(h: &Value) -> Vec<Value> {
    h["rooms"].as_array().unwrap().iter().filter(|r| r["id"].is_u64()).cloned().collect()
}

#[tokio::test]
async fn keys_requests_grants_denials_and_billboards_for_members_only() {
    let srv = TestServer::start().await;
    let (ka, kb, kc) = (srv.key("ann").await, srv.key("bram").await, srv.key("cid").await);
    let (mut a, mut b, mut c) = (WsClient::connect(srv.addr).await, WsClient::connect(srv.addr).await, WsClient::connect(srv.addr).await);
    a.login_key("ann", &ka).await;
    b.login_key("bram", &kb).await;
    c.login_key("cid", &kc).await;

    // Everyone owns a room whose id is their own stable id.
    let ha = hud(&mut a, "h0").await;
    let ann_room = ha["self"]["identity"]["id"].as_u64().unwrap();
    let own = chat_rooms(&ha);
    assert_eq!(own.len(), 1, "{ha}");
    assert_eq!((own[0]["id"].as_u64(), own[0]["is_self_room"].as_bool()), (Some(ann_room), Some(true)));

    let r = act(
        &mut a,
        json!([
        {"type": "create_key", "key": "sesame"},
        {"type": "set_billboard", "message": "Ann's planning room: raids only."},
        {"type": "create_key", "key": "sesame"},
        {"type": "create_key", "key": "two words"}]),
        "a1",
    )
    .await;
    assert_eq!(r[0]["ok"], true, "{r:?}");
    assert_eq!(r[1]["ok"], true, "{r:?}");
    assert_eq!(r[2]["code"], "key_exists");
    assert_eq!(r[3]["code"], "bad_key");

    // Bram asks with a wrong key, then the right one; Cid asks too.
    let r = act(
        &mut b,
        json!([{"type": "request_access", "room_id": ann_room, "key": "open"},
                               {"type": "request_access", "room_id": ann_room, "key": "sesame"},
                               {"type": "request_access", "room_id": 9999, "key": "sesame"}]),
        "b1",
    )
    .await;
    assert_eq!(r[0]["code"], "bad_key", "{r:?}");
    assert_eq!(r[1]["ok"], true, "{r:?}");
    assert_eq!(r[2]["code"], "no_such_room");
    let bram_req = r[1]["request_id"].as_u64().unwrap();
    let r = act(&mut c, json!([{"type": "request_access", "room_id": ann_room.to_string(), "key": "sesame"}]), "c1").await;
    let cid_req = r[0]["request_id"].as_u64().unwrap();
    // Before any grant, the billboard is not Bram's to see: the room is not in his HUD.
    assert!(chat_rooms(&hud(&mut b, "hb0").await).iter().all(|r| r["id"] != ann_room));

    let ha = hud(&mut a, "h1").await;
    let mine = chat_rooms(&ha).into_iter().find(|r| r["id"] == ann_room).unwrap();
    assert_eq!(mine["my_keys"], json!(["sesame"]));
    assert_eq!(mine["billboard"], "Ann's planning room: raids only.");
    let pending = mine["pending_access_requests"].as_array().unwrap();
    assert_eq!(pending.len(), 2, "{mine}");
    assert_eq!((pending[0]["requester_id"].as_str(), pending[0]["key_used"].as_str()), (Some("Bram"), Some("sesame")));
    assert!(
        mine["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["type"] == "system" && m["content"].as_str().unwrap().contains("Bram asks to join")),
        "the owner is told: {mine}"
    );

    // Only the owner grants; Bram gets in, Cid is turned down.
    let r = act(&mut b, json!([{"type": "grant_access", "request_id": cid_req}]), "b2").await;
    assert_eq!(r[0]["code"], "no_such_request");
    let r = act(
        &mut a,
        json!([{"type": "grant_access", "request_id": bram_req}, {"type": "deny_access", "request_id": cid_req},
                               {"type": "deny_access", "request_id": cid_req}]),
        "a2",
    )
    .await;
    assert_eq!(
        (r[0]["ok"].as_bool(), r[1]["ok"].as_bool(), r[2]["code"].as_str()),
        (Some(true), Some(true), Some("no_such_request")),
        "{r:?}"
    );

    // Bram talks in Ann's room from his own HUD; Ann hears it there, Cid does not.
    // (Ann walks away: a chat room is talked in from anywhere.)
    a.send(json!({"type": "actions", "id": "x", "data": {"actions": [{"type": "command", "command": "north"}]}})).await;
    a.until(|v| v["re"] == "x" && v["type"] == "actions_result").await;
    let r = {
        b.send(json!({"type": "actions", "id": "b3", "data": {"responses": [{"room_id": ann_room, "message": "Raid at dawn?"}]}})).await;
        b.until(|v| v["re"] == "b3" && v["type"] == "actions_result").await
    };
    assert_eq!(r["data"]["results"][0]["ok"], true, "{r}");
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Raid at dawn?"))).await;
    let hb = hud(&mut b, "hb1").await;
    let joined = chat_rooms(&hb).into_iter().find(|r| r["id"] == ann_room).expect("Bram is in Ann's room");
    assert_eq!(joined["is_self_room"], false);
    assert_eq!(joined["billboard"], "Ann's planning room: raids only.", "members see the billboard");
    assert!(joined.get("my_keys").is_none() && joined.get("pending_access_requests").is_none(), "keys are the owner's: {joined}");
    assert_eq!(joined["members"], json!(["Ann", "Bram"]));
    let hc = hud(&mut c, "hc1").await;
    assert!(chat_rooms(&hc).iter().all(|r| r["id"] != ann_room), "Cid was denied");
    let cid_own = chat_rooms(&hc)[0].clone();
    assert!(
        cid_own["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["type"] == "system" && m["content"].as_str().unwrap().contains("turned down")),
        "the denial reaches Cid in his own room: {cid_own}"
    );
    let r = act(&mut c, json!([{"type": "leave_room", "room_id": ann_room}]), "c2").await;
    assert_eq!(r[0]["code"], "not_member");
    c.send(json!({"type": "actions", "id": "c3", "data": {"responses": [{"room_id": ann_room, "message": "let me in"}]}})).await;
    let r = c.until(|v| v["re"] == "c3" && v["type"] == "actions_result").await;
    assert_eq!(r["data"]["results"][0]["code"], "no_such_room", "{r}");
    let ha = hud(&mut a, "h2").await;
    let mine = chat_rooms(&ha).into_iter().find(|r| r["id"] == ann_room).unwrap();
    assert!(mine["messages"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["sender"] == "Bram" && m["content"].as_str().unwrap().contains("Raid at dawn?")));
    assert!(mine["pending_access_requests"].as_array().unwrap().is_empty());
    let r = act(&mut a, json!([{"type": "leave_room", "room_id": ann_room}]), "a3").await;
    assert_eq!(r[0]["code"], "own_room");

    // A restart keeps keys, billboard and membership; ids stay.
    let srv = srv.restart().await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;
    let ha = hud(&mut a, "h3").await;
    assert_eq!(ha["self"]["identity"]["id"].as_u64(), Some(ann_room));
    let mine = chat_rooms(&ha).into_iter().find(|r| r["id"] == ann_room).unwrap();
    assert_eq!(mine["my_keys"], json!(["sesame"]));
    assert_eq!(mine["members"], json!(["Ann", "Bram"]));
    assert_eq!(mine["billboard"], "Ann's planning room: raids only.");
    srv.shutdown().await;
}

/// Humans have the same rooms through telnet: `room` and `chat`.
#[tokio::test]
async fn a_telnet_player_keeps_and_talks_in_rooms() {
    let srv = TestServer::start().await;
    let kb = srv.key("bram").await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Hilda", "hunter22").await;
    let out = t.cmd("room key add lantern").await;
    assert!(out.contains("Done"), "{out}");
    let out = t.cmd("room billboard Lamps lit after dark").await;
    assert!(out.contains("Done"), "{out}");
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("bram", &kb).await;
    // Bram knocks by owner name through the same command a human would type.
    b.cmd("room request hilda lantern", "k").await;
    let said = b.reply_text("k").await;
    assert!(said.contains("request"), "{said}");
    let listed = t.until("the key 'lantern'").await;
    assert!(listed.contains("Bram asks to join"), "{listed}");
    // The notice comes with a prompt of its own (what others do is told at the pulse's end).
    t.until("mv > ").await;
    let list = t.cmd("room").await;
    let req: String = list.split("request ").nth(1).unwrap().chars().take_while(|c| c.is_ascii_digit()).collect();
    let out = t.cmd(&format!("room grant {req}")).await;
    assert!(out.contains("Bram may now talk"), "{out}");
    b.cmd("chat hilda evening, Hilda", "c").await;
    b.reply_text("c").await;
    let heard = t.until("evening, Hilda").await;
    assert!(heard.contains("Bram"), "{heard}");
    t.until("mv > ").await;
    let out = t.cmd("chat nowhere hello").await;
    assert!(out.contains("not in that room"), "{out}");
    srv.shutdown().await;
}

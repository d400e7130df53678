use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn a_kill_gives_exp_and_a_death_costs_exp_over_37_and_respawns_at_the_temple() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.send(
        json!({"type": "subscribe", "data": {"variables": ["EXP", "HEALTH", "MAX_HEALTH", "ROOM_VNUM", "FIGHTING", "EVENTS", "POSITION"]}}),
    )
    .await;
    a.cmd("east", "e").await;
    a.until(|v| v["type"] == "vars" && v["data"]["ROOM_VNUM"] == 8005).await;
    a.cmd("kill dummy", "k").await;
    // The dummy has 1 hp and is worth 3000 exp: a kill gives 1000.
    let kill =
        a.until(|v| v["type"] == "vars" && v["data"]["EVENTS"].as_array().is_some_and(|e| e.iter().any(|x| x["type"] == "kill"))).await;
    assert_eq!(kill["data"]["EXP"], 1000, "the kill's exp arrives in the same flush: {kill}");
    let k = kill["data"]["EVENTS"].as_array().unwrap().iter().find(|x| x["type"] == "kill").unwrap().clone();
    assert!(k["text"].as_str().unwrap().contains("a straw dummy (level 1)"));
    // The corpse is on the floor.
    a.cmd("look", "l").await;
    assert!(a.reply_text("l").await.contains("The corpse of a straw dummy is lying here."));
    // Armed with the yard's sword, so the death has gear to leave behind.
    a.cmd("get sword", "g").await;
    assert!(a.reply_text("g").await.contains("You get a test sword"));
    a.cmd("wield sword", "wi").await;
    assert!(a.reply_text("wi").await.contains("You wield a test sword"));
    // Into the pit: the fiend is aggressive and kills in one round.
    a.cmd("west", "w1").await;
    a.until(|v| v["type"] == "vars" && v["data"]["ROOM_VNUM"] == 8004).await;
    a.cmd("west", "w2").await;
    a.until(|v| v["type"] == "vars" && v["data"]["ROOM_VNUM"] == 8006).await;
    let death = a
        .until(|v| v["type"] == "event" && v["data"]["type"] == "death" && v["data"]["text"].as_str().unwrap().contains("You are dead"))
        .await;
    assert!(death["re"].is_null());
    let st = a.expect("state").await;
    assert_eq!(st["data"]["room"]["vnum"], 8004, "respawn at the temple");
    let v = a.until(|v| v["type"] == "vars" && v["data"].get("EXP").is_some()).await;
    assert_eq!(v["data"]["EXP"], 1000 - 1000 / 37);
    assert_eq!(v["data"]["ROOM_VNUM"], 8004);
    let max = v["data"]["MAX_HEALTH"].as_i64().or(a.seen.iter().rev().find_map(|x| x["data"]["MAX_HEALTH"].as_i64())).unwrap();
    // Deltas are computed: HEALTH is only pushed if it differs, so ask for it afresh.
    a.send(json!({"type": "unsubscribe", "data": {"variables": ["HEALTH"]}})).await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["HEALTH"]}})).await;
    let hp = a.until(|v| v["type"] == "vars" && v["data"].get("HEALTH").is_some() && v["data"].get("EXP").is_none()).await;
    assert_eq!(hp["data"]["HEALTH"].as_i64().unwrap(), max, "wakes with full hit points (the seed's rule)");
    assert_ne!(v["data"]["FIGHTING"], true, "the fight ended with the death");
    // The gear stayed with the corpse in the pit: she wakes with nothing.
    a.cmd("inventory", "i").await;
    let inv = a.reply_text("i").await;
    assert!(inv.contains("Nothing."), "{inv}");
    a.cmd("equipment", "eq").await;
    let eq = a.reply_text("eq").await;
    assert!(!eq.contains("test sword"), "{eq}");
    srv.shutdown().await;
}

#[tokio::test]
async fn doors_need_their_key() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("north", "n").await;
    assert_eq!(a.reply_text("n").await, "The door seems to be closed.");
    a.cmd("unlock door", "u").await;
    assert_eq!(a.reply_text("u").await, "You don't seem to have the proper key.");
    a.cmd("south", "s").await;
    a.reply_text("s").await;
    a.cmd("get key", "g").await;
    assert_eq!(a.reply_text("g").await, "You get a brass key.");
    a.cmd("north", "n2").await;
    a.reply_text("n2").await;
    a.cmd("unlock door", "u2").await;
    assert_eq!(a.reply_text("u2").await, "*Click*");
    a.cmd("open door", "o").await;
    assert_eq!(a.reply_text("o").await, "Ok.");
    a.cmd("north", "n3").await;
    assert!(a.reply_text("n3").await.contains("The Vault"));
    srv.shutdown().await;
}

#[tokio::test]
async fn dot_notation_and_all_reach_the_right_things() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.send(json!({"type": "subscribe", "data": {"variables": ["INVENTORY", "ROOM_ITEMS"]}})).await;
    a.cmd("east", "e").await;
    let v = a.until(|v| v["type"] == "vars" && v["re"] == "e").await;
    let items = v["data"]["ROOM_ITEMS"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2);
    for it in &items {
        a.cmd(&format!("get {}", it["target_string"].as_str().unwrap()), "g").await;
        let t = a.reply_text("g").await;
        assert!(t.contains(it["name"].as_str().unwrap()), "{t}");
    }
    a.cmd("put sword bag", "p").await;
    assert_eq!(a.reply_text("p").await, "You put a test sword in a cloth bag.");
    a.cmd("drop all", "d").await;
    a.reply_text("d").await;
    a.cmd("get all.bag", "g2").await;
    assert_eq!(a.reply_text("g2").await, "You get a cloth bag.");
    a.cmd("get sword from bag", "g3").await;
    assert_eq!(a.reply_text("g3").await, "You get a test sword from a cloth bag.");
    let v = a.until(|v| v["type"] == "vars" && v["re"] == "g3").await;
    let inv = v["data"]["INVENTORY"].as_array().unwrap();
    assert_eq!(inv.len(), 2);
    assert!(inv.iter().all(|i| i["instance_id"].as_str().unwrap().starts_with("obj_905")));
    srv.shutdown().await;
}

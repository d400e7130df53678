//! tbaMUD's DG Scripts, run by agents over the protocol on the tbaMUD world itself
//! (`PAWNS_TBAMUD_WORLD`, or `../shared/worlds/tbamud`): the tutorial questmaster's
//! quest, given when he is told "yes" (speech, `wait`), the quest
//! ogre's last words (death), the teleporter's `recall` and `return` (an object's
//! command trigger, `remote` and a player's own variable), the kind soul's gift
//! (greet, `%actor.eq(…)%`, a mob's own commands), and the boy's idle chatter (random).

use serde_json::{json, Value};

use crate::common::*;
use crate::real_worlds::tbamud_dir;

async fn tbamud_at(room: u32) -> Option<TestServer> {
    let dir = tbamud_dir()?;
    Some(
        TestServer::start_with(|cfg| {
            cfg.world = Some(dir);
            cfg.engine.start_room = Some(room);
            // Ten times the speed: `wait 1 sec` is 100 ms, random triggers every 1.3 s.
            cfg.engine.pulse = std::time::Duration::from_millis(10);
        })
        .await,
    )
}

async fn login(srv: &TestServer, name: &str) -> WsClient {
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": name, "password": "pw-tbamud", "new_char": true, "class": 3}})).await;
    a.expect("state").await;
    a
}

fn text(v: &Value) -> &str {
    v["data"]["text"].as_str().unwrap_or("")
}

async fn hear(a: &mut WsClient, needle: &str) -> String {
    text(&a.until(|v| v["type"] == "event" && text(v).contains(needle)).await).to_string()
}

async fn room_after(a: &mut WsClient, c: &str, id: &str) -> u64 {
    a.cmd(c, id).await;
    a.until(|v| v["re"] == id && v["type"] == "state").await["data"]["room"]["vnum"].as_u64().unwrap()
}

#[tokio::test]
async fn the_tutorial_questmaster_gives_his_quest_when_told_yes() {
    let Some(srv) = tbamud_at(21).await else { return };
    let mut a = login(&srv, "Quester").await;
    // "yes" is what his speech trigger listens for; he answers after a `wait 1 sec`.
    a.cmd("say yes", "s1").await;
    assert!(hear(&mut a, "I'll make this easy. It is to the east.").await.contains("Perfect, Quester."));
    srv.shutdown().await;
}

#[tokio::test]
async fn the_quest_ogre_dies_talking() {
    let Some(srv) = tbamud_at(19).await else { return };
    let mut a = login(&srv, "Slayer").await;
    a.cmd("kill ogre", "k1").await;
    assert!(hear(&mut a, "But I'll be back.").await.contains("You got the best of me, Slayer."));
    srv.shutdown().await;
}

#[tokio::test]
async fn the_teleporter_recalls_and_returns_and_the_kind_soul_gives_a_light() {
    let Some(srv) = tbamud_at(3000).await else { return };
    let mut a = login(&srv, "Traveller").await;
    // The teleporter (command trigger `re`, heard worn, carried or on the floor) hears
    // `recall`…
    a.cmd("get teleporter", "g1").await;
    assert_eq!(a.reply_text("g1").await, "You get the teleporter.");
    a.cmd("recall", "r1").await;
    assert_eq!(hear(&mut a, "You recall to safety.").await, "You recall to safety.");
    let v = a.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] == 3001).await;
    assert_eq!(v["data"]["room"]["vnum"], 3001);
    // …and the kind soul east of the temple sees a newcomer without a light.
    assert_eq!(room_after(&mut a, "east", "e1").await, 3063);
    hear(&mut a, "without a light source Traveller").await;
    hear(&mut a, "gives you").await;
    // `return` remembers where the recall came from (a variable kept on the player).
    assert_eq!(room_after(&mut a, "west", "w1").await, 3001);
    a.cmd("return", "r2").await;
    hear(&mut a, "You return to your previous location.").await;
    let v = a.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] != 3001).await;
    assert_eq!(v["data"]["room"]["vnum"], 3000);
    srv.shutdown().await;
}

#[tokio::test]
async fn a_random_trigger_makes_the_boy_chatter() {
    let Some(srv) = tbamud_at(7404).await else { return };
    let mut a = login(&srv, "Listener").await;
    hear(&mut a, "When I get scared, I FLEE.").await;
    srv.shutdown().await;
}

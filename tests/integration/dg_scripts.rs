//! tbaMUD's DG Scripts, run by agents over the protocol on the tbaMUD world itself
//! (`PAWNS_TBAMUD_WORLD`, or `../shared/worlds/tbamud`): the tutorial questmaster's
//! quest, given when he is told "yes" (speech, `wait`), the quest
//! ogre's last words (death), the teleporter's `recall` and `return` (an object's
//! command trigger, `remote` and a player's own variable), the kind soul's gift
//! (greet, `%actor.eq(…)%`, a mob's own commands), and the boy's idle chatter (random).

use crate::common::*;
use crate::real_worlds::tbamud_dir;

async fn tbamud_at(room: u32) -> Option<TestServer> {
    let dir = tbamud_dir()?;
    Some(
        TestServer::start_with(|cfg| {
            cfg.world = Some(dir);
            cfg.engine.start_room = Some(room);
            // Noon: the classic worlds are dark outdoors at night.
            cfg.engine.start_hour = Some(12);
            // Ten times the speed: `wait 1 sec` is 100 ms, random triggers every 1.3 s.
            cfg.engine.pulse = std::time::Duration::from_millis(10);
        })
        .await,
    )
}

#[tokio::test]
async fn the_tutorial_questmaster_gives_his_quest_when_told_yes() {
    let Some(srv) = tbamud_at(21).await else { return };
    let mut a = WsClient::newcomer(srv.addr, "Quester").await;
    // "yes" is what his speech trigger listens for; he answers after a `wait 1 sec`.
    a.cmd("say yes", "s1").await;
    assert!(a.hear("I'll make this easy. It is to the east.").await.contains("Perfect, Quester."));
    srv.shutdown().await;
}

#[tokio::test]
async fn the_quest_ogre_dies_talking() {
    let Some(srv) = tbamud_at(19).await else { return };
    let mut a = WsClient::newcomer(srv.addr, "Slayer").await;
    a.cmd("kill ogre", "k1").await;
    assert!(a.hear("But I'll be back.").await.contains("You got the best of me, Slayer."));
    srv.shutdown().await;
}

#[tokio::test]
async fn the_teleporter_recalls_and_returns_and_the_kind_soul_dresses_a_newcomer() {
    let Some(srv) = tbamud_at(3000).await else { return };
    let mut a = WsClient::newcomer(srv.addr, "Traveller").await;
    // The teleporter (command trigger `re`, heard worn, carried or on the floor) hears
    // `recall`…
    a.cmd("get teleporter", "g1").await;
    assert_eq!(a.reply_text("g1").await, "You get the teleporter.");
    a.cmd("recall", "r1").await;
    assert_eq!(a.hear("You recall to safety.").await, "You recall to safety.");
    let v = a.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] == 3001).await;
    assert_eq!(v["data"]["room"]["vnum"], 3001);
    // …and the kind soul east of the temple dresses a naked newcomer (tbaMUD gives
    // none a kit: this is how its new players get their first things), each worn where
    // the script says.
    assert_eq!(a.room_after("east", "e1").await, 3063);
    a.hear("get some clothes on! Here, I will help.").await;
    a.cmd("equipment", "q1").await;
    let worn = a.reply_text("q1").await;
    assert!(worn.contains("<used as light>") && worn.contains("<worn on body>"), "{worn}");
    // `return` remembers where the recall came from (a variable kept on the player).
    assert_eq!(a.room_after("west", "w1").await, 3001);
    a.cmd("return", "r2").await;
    a.hear("You return to your previous location.").await;
    let v = a.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] != 3001).await;
    assert_eq!(v["data"]["room"]["vnum"], 3000);
    srv.shutdown().await;
}

#[tokio::test]
async fn a_random_trigger_makes_the_boy_chatter() {
    let Some(srv) = tbamud_at(7404).await else { return };
    let mut a = WsClient::newcomer(srv.addr, "Listener").await;
    a.hear("When I get scared, I FLEE.").await;
    srv.shutdown().await;
}

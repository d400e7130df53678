//! Research tooling over the real server: what every decision records for the metrics
//! (the stimulus, the memory about it), and the commands that read the record.

use std::time::Duration;

use serde_json::{json, Value};

use super::common::*;

fn fast(cfg: &mut pawns::server::ServerConfig) {
    cfg.cmd_rate = 1000.0;
    cfg.cmd_burst = 1000.0;
    cfg.engine.pulse = Duration::from_millis(10);
    cfg.dream_daily = None;
}

async fn login(s: &TestServer, name: &str, key: &str, valence: bool) -> (WsClient, u64) {
    let mut c = WsClient::connect(s.addr).await;
    c.send(json!({"type": "login", "data": {"player_name": name, "password": key, "is_agent": true, "valence": valence}})).await;
    let room = c.expect("state").await["data"]["room"]["vnum"].as_u64().unwrap();
    (c, room)
}

/// Walks from the temple to the dragon's lair (8012), where the grizzly bear lives.
async fn to_the_lair(c: &mut WsClient) {
    for (i, want) in [8005, 8011, 8012].into_iter().enumerate() {
        assert_eq!(c.room_after("east", &format!("walk{i}")).await, want);
    }
}

/// The agent's decisions as the export gives them, once `command` is among them.
async fn decisions_until(s: &TestServer, agent: &str, command: &str, count: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let (status, body) = http_get(s.addr, &format!("/api/export?what=decisions&agent={agent}")).await;
        assert_eq!(status, 200, "{body}");
        let all: Vec<Value> = body.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        if all.iter().filter(|d| d["decision"]["command"] == command).count() >= count {
            return all;
        }
        assert!(std::time::Instant::now() < deadline, "{agent}: no {count} × {command} recorded: {body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Dies to the bear, walks back and looks at it; then logs out (and dreams).
async fn die_and_return(s: &TestServer, name: &str, key: &str, valence: bool) {
    let (mut c, _) = login(s, name, key, valence).await;
    to_the_lair(&mut c).await;
    c.cmd("kill bear", "attack").await;
    c.hear("You are dead").await;
    to_the_lair(&mut c).await;
    c.cmd("look", "again").await;
    c.until(|v| v["re"] == "again" && v["type"] == "state").await;
    c.cmd("quit", "bye").await;
    c.closed().await;
}

#[tokio::test]
async fn a_decision_records_who_it_faced_and_the_memory_it_was_given_about_them() {
    let s = TestServer::start_with(fast).await;
    for (name, valence) in [("vex", true), ("wren", false)] {
        let key = s.key(name).await;
        die_and_return(&s, name, &key, valence).await;
        let first = decisions_until(&s, name, "look", 1).await;
        let looked = first.iter().find(|d| d["decision"]["command"] == "look").unwrap();
        let st = &looked["decision"]["stimulus"];
        // Met again in the same session: a killer, but no memory was given of it.
        assert_eq!(st["kind"], "killer", "{looked}");
        assert_eq!(st["target"], "a grizzly bear", "{looked}");
        assert_eq!(st["memory_id"], Value::Null, "{looked}");
        let attack = first.iter().find(|d| d["decision"]["command"] == "kill").unwrap();
        assert_eq!(attack["decision"]["stimulus"]["kind"], "stranger", "{attack}");

        // The logout's dream; then the next session is given the memory of the death.
        let m = memory_of(&s, name).await;
        assert_eq!(m["last_dream"]["trigger"], "logout", "{m}");
        // It left from the lair, and comes back there.
        let (mut c, room) = login(&s, name, &key, valence).await;
        assert_eq!(room, 8012);
        c.cmd("look", "remember").await;
        c.until(|v| v["re"] == "remember" && v["type"] == "state").await;
        c.cmd("quit", "bye").await;
        c.closed().await;
        let all = decisions_until(&s, name, "look", 2).await;
        let looked = all.iter().rev().find(|d| d["decision"]["command"] == "look").unwrap();
        let st = &looked["decision"]["stimulus"];
        assert_eq!(st["kind"], "killer", "{looked}");
        assert!(st["memory_id"].as_str().is_some_and(|id| id.starts_with("ev:")), "{looked}");
        // As injected: felt (a death is −3) or, in the ablation, recorded with valence 0.
        assert_eq!(st["memory_valence"], if valence { json!(-3.0) } else { json!(0.0) }, "{looked}");
    }
    s.shutdown().await;
}

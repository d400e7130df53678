//! The pages the binary serves and the observatory's API over real HTTP and a real
//! WebSocket: who is on, an agent's timeline, its HUD, the live follow, the admin token.

use futures_util::StreamExt;
use serde_json::Value;

use crate::common::*;

#[tokio::test]
async fn the_pages_are_served_from_the_binary() {
    let srv = TestServer::start().await;
    let (status, body) = http_get(srv.addr, "/").await;
    assert_eq!(status, 200);
    assert!(body.contains("<title>pawns — play</title>") && body.contains("/static/play.js"), "{body}");
    let (status, body) = http_get(srv.addr, "/observatory").await;
    assert_eq!(status, 200);
    assert!(body.contains("observatory.js"));
    for f in ["/static/play.js", "/static/observatory.js", "/static/graph.js", "/static/style.css"] {
        let (status, body) = http_get(srv.addr, f).await;
        assert_eq!(status, 200, "{f}");
        assert!(body.len() > 200, "{f}");
    }
    assert_eq!(http_get(srv.addr, "/static/nope.js").await.0, 404);
    srv.shutdown().await;
}

#[tokio::test]
async fn the_observatory_shows_an_agents_timeline_hud_and_live_records() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("look", "c1").await;
    a.until(|v| v["re"] == "c1").await;
    // Who is on.
    let (status, who) = http_get(srv.addr, "/api/observe/who").await;
    assert_eq!(status, 200);
    let who: Value = serde_json::from_str(&who).unwrap();
    assert!(who.as_array().unwrap().iter().any(|w| w["name"] == "Brenda" && w["is_agent"] == true), "{who}");
    // The live follow, before the next decision: with the agent's own key (it wants a
    // token or the agent's key wherever the caller is).
    let (mut live, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/api/observe/live?agent=brenda&token={key}", srv.addr)).await.unwrap();
    a.cmd("say hello observatory", "c2").await;
    let deadline = tokio::time::Instant::now() + WAIT;
    let decision = loop {
        let msg = tokio::time::timeout_at(deadline, live.next()).await.expect("a live record").unwrap().unwrap();
        let v: Value = serde_json::from_str(msg.to_text().unwrap()).unwrap();
        if v["type"] != "records" {
            continue;
        }
        assert!(v["records"].as_array().unwrap().iter().all(|r| r["agent"] == "brenda"), "only the followed agent: {v}");
        if let Some(d) = v["records"].as_array().unwrap().iter().find(|r| r["body"]["kind"] == "decision" && r["body"]["command"] == "say")
        {
            break d.clone();
        }
    };
    assert_eq!(decision["body"]["args"], "hello observatory");
    assert!(decision["body"]["pre"]["hp"].as_i64().unwrap() > 0 && decision["body"]["latency_us"].as_u64().is_some());
    // The timeline from the record: both decisions, with what it heard.
    let (status, body) = http_get(srv.addr, "/api/observe/agents/brenda/timeline?limit=50").await;
    assert_eq!(status, 200, "{body}");
    let t: Value = serde_json::from_str(&body).unwrap();
    let commands: Vec<&str> = t["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["body"]["kind"] == "decision")
        .map(|r| r["body"]["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands, ["look", "say"], "{t}");
    assert_eq!(t["sessions"][0]["agent"], "brenda");
    // Its HUD now, in TOON; refusals for the absent and the malformed.
    let (status, body) = http_get(srv.addr, "/api/observe/agents/brenda/hud?format=toon&budget=2000").await;
    assert_eq!(status, 200, "{body}");
    let h: Value = serde_json::from_str(&body).unwrap();
    assert!(h["content"].as_str().unwrap().contains("Brenda") && h["tokens"]["total"].as_u64().unwrap() <= 2000, "{h}");
    assert_eq!(http_get(srv.addr, "/api/observe/agents/nobody/hud").await.0, 404);
    assert_eq!(http_get(srv.addr, "/api/observe/agents/brenda/hud?format=xml").await.0, 400);
    assert_eq!(http_get(srv.addr, "/api/observe/agents/brenda/timeline?limit=x").await.0, 400);
    assert_eq!(http_get(srv.addr, "/api/observe/agents/no%20one/timeline").await.0, 400);
    assert_eq!(http_get(srv.addr, "/api/observe/elsewhere").await.0, 404);
    // The admin token the command line prints is this file's.
    let (status, body) = http_get(srv.addr, "/api/admin/token").await;
    assert_eq!(status, 200);
    let token = serde_json::from_str::<Value>(&body).unwrap()["token"].as_str().unwrap().to_string();
    assert!(token.starts_with("adm_") && token.len() == 68, "{token}");
    srv.shutdown().await;
}

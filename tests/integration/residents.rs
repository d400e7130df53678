//! Resident agents (issue 15): the server runs agents itself, each on its heartbeat HUD,
//! asking a model (here the local stand-in speaking the chat-completions API) and
//! sending the answer back through the same protocol any agent uses. Agent management
//! from the HUD: granted only, toward agents sharing a room.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::*;

/// `POST path` with a JSON body; (status, body).
pub(crate) async fn post_json(addr: std::net::SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = body.to_string();
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pawns-Client: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text.split_once("\r\n\r\n").and_then(|(_, b)| serde_json::from_str(b).ok()).unwrap_or(Value::Null))
}

pub(crate) async fn residents(addr: std::net::SocketAddr) -> Vec<Value> {
    let (status, body) = http_get(addr, "/api/admin/agents").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<Value>(&body).unwrap()["agents"].as_array().unwrap().clone()
}

/// Waits until the resident named `name` satisfies `pred`.
async fn until_resident(addr: std::net::SocketAddr, name: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let pred = &pred;
    eventually_within(Duration::from_secs(20), &format!("{name} {what}"), || async move {
        residents(addr).await.into_iter().find(|r| r["name"] == name && pred(r))
    })
    .await
}

fn llm(endpoint: &str) -> Option<pawns::memory::llm::LlmConfig> {
    Some(pawns::memory::llm::LlmConfig { endpoint: endpoint.into(), model: "stand-in".into(), key: None, timeout: Duration::from_secs(5) })
}

/// The HUD a request to the stand-in carried (the user message), decoded.
fn hud_in(request_body: &Value) -> Value {
    serde_json::from_str(request_body["messages"][1]["content"].as_str().unwrap_or("null")).unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_resident_walks_speaks_remembers_pauses_when_the_model_fails_and_resumes() {
    // The stand-in: 0 answers the first turn, 1 fails, 2 answers a second turn.
    let mode = Arc::new(AtomicU32::new(0));
    let huds: Arc<std::sync::Mutex<Vec<Value>>> = Default::default();
    let (m, h) = (mode.clone(), huds.clone());
    let (endpoint, _seen) = llm_stub_with(move |body| {
        h.lock().unwrap().push(hud_in(body));
        match m.load(Ordering::SeqCst) {
            0 => StubAnswer::Text(
                "Here is my move:\n```json\n{\"responses\":[{\"room_id\":\"here\",\"message\":\"Greetings, traveller.\"}],\
                 \"actions\":[{\"type\":\"set\",\"path\":\"self.mood\",\"value\":\"curious\"},{\"type\":\"command\",\"command\":\"east\"}]}\n```"
                    .into(),
            ),
            1 => StubAnswer::Status(503),
            _ => StubAnswer::Text("{\"responses\":[{\"room_id\":\"here\",\"message\":\"Back again.\"}]}".into()),
        }
    })
    .await;
    let srv = TestServer::start_with(|c| c.residents.llm = llm(&endpoint)).await;
    let ka = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;

    let (status, body) = post_json(srv.addr, "/api/admin/agents", &json!({"name": "Warden", "persona": "a watchful old soldier"})).await;
    assert_eq!(status, 201, "{body}");
    // Its first heartbeat: it greets the room, remembers, and walks east.
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Greetings, traveller."))).await;
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Warden leaves east"))).await;
    let (_, who) = http_get(srv.addr, "/api/who").await;
    assert!(who.contains("Warden"), "{who}");
    let w = until_resident(srv.addr, "Warden", "ran a turn", |r| r["status"]["turns"] == 1).await;
    assert_eq!(w["status"]["state"], "running", "{w}");
    let first = huds.lock().unwrap()[0].clone();
    assert_eq!(first["self"]["identity"]["name"], "Warden");
    assert_eq!(first["self"]["identity"]["seed"], "a watchful old soldier", "the persona is in its HUD");
    // A persona is told a persona's philosophy (issue 50: every agent had one string).
    let ins = first["meta"]["instructions"].as_str().unwrap_or("");
    assert!(ins.contains("You are a character in this world") && !ins.contains("You are a bot"), "{ins}");
    assert!(first["meta"]["available_actions"].get("agent_management").is_none(), "not granted");

    // The endpoint fails: Ann follows it east and wakes it for a turn now; it pauses.
    mode.store(1, Ordering::SeqCst);
    a.cmd("east", "e").await;
    a.reply_text("e").await;
    a.send(json!({"type": "actions", "id": "w", "data": {"actions": [{"type": "wake_agent", "agent_id": "Warden"}]}})).await;
    let r = a.until(|v| v["re"] == "w" && v["type"] == "actions_result").await;
    assert_eq!(r["data"]["results"][0]["ok"], true, "{r}");
    let w = until_resident(srv.addr, "Warden", "paused", |r| r["status"]["state"] == "paused").await;
    assert!(w["status"]["failures"].as_u64().unwrap() >= 1 && w["status"]["backoff_ms"].as_u64().unwrap() >= 1000, "{w}");
    assert!(w["status"]["last_error"].as_str().unwrap().contains("503"), "{w}");
    // It keeps trying on its backoff, never in a hot loop. (A fixed wait: how often it
    // asks in 2.5 s of its real backoff timer is what is measured.)
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let asked = huds.lock().unwrap().len();
    assert!(asked <= 5, "{asked} requests in 2.5 s of failure: a hot loop");

    // The endpoint answers again: it resumes, and its HUD shows what it remembered.
    mode.store(2, Ordering::SeqCst);
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Back again."))).await;
    let w = until_resident(srv.addr, "Warden", "resumed", |r| r["status"]["state"] == "running" && r["status"]["turns"] == 2).await;
    assert_eq!(w["status"]["failures_in_row"], 0);
    let last = huds.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last["self"]["knowledge"]["self"]["mood"], "curious", "{}", last["self"]);
    assert!(last["self"]["recent_actions"].as_array().unwrap().iter().any(|x| x["action"] == "east"));
    // Every model call is recorded with the decision it made: the first answer with its
    // greeting, the failed calls with the answer that came after them.
    let recorded = eventually("Warden's second greeting recorded", || async {
        let d = http_get(srv.addr, "/api/export?what=decisions&agent=warden").await.1;
        d.contains("Back again.").then_some(d)
    })
    .await;
    let ds: Vec<Value> = recorded.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let said = |words: &str| ds.iter().find(|d| d["decision"]["args"].as_str().is_some_and(|a| a.contains(words))).cloned().unwrap();
    let first = said("Greetings");
    let calls = first["decision"]["llm"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{first}");
    assert!(calls[0]["answer"].as_str().unwrap().contains("Greetings") && calls[0]["user"].as_str().unwrap().contains("Warden"), "{first}");
    assert_eq!(calls[0]["model"], "stand-in");
    let again = said("Back again");
    let calls = again["decision"]["llm"].as_array().unwrap();
    assert!(calls.len() >= 2, "{again}");
    assert!(calls[..calls.len() - 1].iter().all(|c| c["error"].as_str().is_some_and(|e| e.contains("503"))), "{again}");
    assert!(calls.last().unwrap()["error"].is_null() && calls.last().unwrap()["answer"].as_str().unwrap().contains("Back again"));

    // Shutdown stops it cleanly; a restart runs it again (it is kept in the data file).
    let srv = srv.restart().await;
    until_online(srv.addr, "Warden", true).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn agent_management_is_granted_only_and_needs_a_shared_room() {
    let (endpoint, _seen) = llm_stub("{\"actions\":[]}").await;
    let srv = TestServer::start_with(|c| c.residents.llm = llm(&endpoint)).await;
    // Bad definitions are refused with codes; nothing is made.
    for (body, code) in [
        (json!({"name": "x y", "persona": "p"}), "invalid_name"),
        (json!({"name": "Ok", "persona": "p", "role": "r"}), "bad_request"),
        (json!({"name": "Ok"}), "bad_request"),
        (json!({"name": "Ok", "persona": "p", "colour": "red"}), "bad_request"),
        (json!({"name": "Ok", "persona": "p", "can_create_agents": "yes"}), "bad_request"),
    ] {
        let (status, v) = post_json(srv.addr, "/api/admin/agents", &body).await;
        assert_eq!((status, v["code"].as_str()), (400, Some(code)), "{body} → {v}");
    }
    let ka = srv.key("ann").await;
    let (status, _) = post_json(srv.addr, "/api/admin/agents", &json!({"name": "Ann", "persona": "p"})).await;
    assert_eq!(status, 409, "a player's name is taken");
    assert!(residents(srv.addr).await.is_empty());

    // Keeper: a resident granted agent management. The test plays it (a key takes the
    // session over from its loop).
    let (status, v) =
        post_json(srv.addr, "/api/admin/agents", &json!({"name": "Keeper", "role": "keeps the others", "can_create_agents": true})).await;
    assert_eq!(status, 201, "{v}");
    until_online(srv.addr, "Keeper", true).await;
    let kk = srv.key("keeper").await;
    let mut k = WsClient::connect(srv.addr).await;
    k.login_key("keeper", &kk).await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;

    async fn act(c: &mut WsClient, actions: Value, id: &str) -> Vec<Value> {
        c.send(json!({"type": "actions", "id": id, "data": {"actions": actions}})).await;
        let r = c.until(|v| v["re"] == id && v["type"] == "actions_result").await;
        r["data"]["results"].as_array().unwrap().clone()
    }
    let r = act(
        &mut a,
        json!([{"type": "create_agent", "name": "Rogue", "background_prompt": "x"},
                               {"type": "retire_agent", "agent_id": "Keeper"}]),
        "a1",
    )
    .await;
    assert_eq!((r[0]["code"].as_str(), r[1]["code"].as_str()), (Some("not_granted"), Some("not_granted")), "{r:?}");

    // Keeper makes Scout, a bot that joins Keeper's chat room.
    k.send(json!({"type": "hud", "id": "h", "data": {}})).await;
    let hud = k.until(|v| v["re"] == "h" && v["type"] == "hud").await;
    let hud: Value = serde_json::from_str(hud["data"]["content"].as_str().unwrap()).unwrap();
    let listed: Vec<&String> = hud["meta"]["available_actions"]["agent_management"].as_object().unwrap().keys().collect();
    assert_eq!(listed, ["create_agent", "alter_agent", "retire_agent"], "each with its schema");
    assert_eq!(hud["self"]["identity"]["role"], "keeps the others");
    let r = act(
        &mut k,
        json!([{"type": "create_agent", "name": "Scout", "background_prompt": "scouts the yard", "agent_type": "bot"},
                               {"type": "create_agent", "name": "Ann", "background_prompt": "x"}]),
        "k1",
    )
    .await;
    assert_eq!(r[0]["ok"], true, "{r:?}");
    assert_eq!(r[1]["code"], "name_taken", "{r:?}");
    k.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Scout is made and runs"))).await;
    until_online(srv.addr, "Scout", true).await;

    // Keeper walks away: Scout is still near it through Keeper's chat room, Ann is not.
    k.cmd("east", "ke").await;
    k.reply_text("ke").await;
    let r = act(
        &mut k,
        json!([
        {"type": "alter_agent", "agent_id": "Scout", "background_prompt": "guards the temple", "name": "Scout the Bold"},
        {"type": "alter_agent", "agent_id": "Ann", "background_prompt": "x"},
        {"type": "alter_agent", "agent_id": "Keeper", "background_prompt": "x"},
        {"type": "wake_agent", "agent_id": "Ann"},
        {"type": "alter_agent", "agent_id": "Nobody", "model": "m"}]),
        "k2",
    )
    .await;
    let codes: Vec<Value> = r.iter().map(|x| if x["ok"] == true { json!("ok") } else { x["code"].clone() }).collect();
    assert_eq!(codes, vec![json!("ok"), json!("not_in_proximity"), json!("bad_target"), json!("not_in_proximity"), json!("no_such_agent")]);
    let scout = until_resident(srv.addr, "Scout", "was altered", |r| r["prompt"] == "guards the temple").await;
    assert_eq!((scout["kind"].as_str(), scout["created_by"].as_str()), (Some("bot"), Some("Keeper")));

    // A member of someone else's chat room may not bring an agent into it.
    let ann_room = {
        a.send(json!({"type": "hud", "id": "ah", "data": {}})).await;
        let h = a.until(|v| v["re"] == "ah" && v["type"] == "hud").await;
        serde_json::from_str::<Value>(h["data"]["content"].as_str().unwrap()).unwrap()["self"]["identity"]["id"].as_u64().unwrap()
    };
    let r = act(&mut a, json!([{"type": "create_key", "key": "k"}]), "ak").await;
    assert_eq!(r[0]["ok"], true);
    let r = act(&mut k, json!([{"type": "request_access", "room_id": ann_room, "key": "k"}]), "kr").await;
    let req = r[0]["request_id"].as_u64().unwrap();
    let r = act(&mut a, json!([{"type": "grant_access", "request_id": req}]), "ag").await;
    assert_eq!(r[0]["ok"], true);
    let r =
        act(&mut k, json!([{"type": "create_agent", "name": "Spy", "background_prompt": "listens", "in_room_id": ann_room}]), "k4").await;
    assert_eq!(r[0]["code"], "no_such_room", "a member is not the owner: {r:?}");

    let r = act(&mut k, json!([{"type": "retire_agent", "agent_id": "Scout"}]), "k3").await;
    assert_eq!(r[0]["ok"], true, "{r:?}");
    until_online(srv.addr, "Scout", false).await;
    let scout = until_resident(srv.addr, "Scout", "retired", |r| r["retired_at"].is_string()).await;
    assert_eq!(scout["running"], false);
    srv.shutdown().await;
}

/// The login rate gate is against guessing: a resume with a valid session token (what a
/// reconnecting client and every resident agent present) is not held by it.
#[tokio::test]
async fn a_valid_session_token_is_not_rate_limited() {
    let srv = TestServer::start_with(|c| {
        c.login.rate = 0.01;
        c.login.burst = 1.0;
    })
    .await;
    let key = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("ann", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"player_name": "ann", "api_key": key}})).await;
    assert_eq!(b.error_code().await, "rate_limited", "the burst is spent");
    let mut c = WsClient::connect(srv.addr).await;
    c.send(json!({"type": "login", "data": {"resume": {"token": "forged.token", "last_seq": 0}}})).await;
    assert_eq!(c.error_code().await, "rate_limited", "a bad token is held like any guess");
    let mut d = WsClient::connect(srv.addr).await;
    d.send(json!({"type": "login", "data": {"resume": {"token": token, "last_seq": 0}}})).await;
    let v = d.until(|v| v["type"] == "state" || v["type"] == "error" || v["type"] == "vars").await;
    assert_ne!(v["type"], "error", "{v}");
    srv.shutdown().await;
}

/// A resident's model tokens are capped per hour (`serve --resident-tokens-per-hour`):
/// once its calls have spent the cap, it asks the model nothing more and says why in its
/// status (issue 53).
#[tokio::test]
async fn a_resident_over_its_token_budget_pauses_with_a_clear_status() {
    let asked = Arc::new(AtomicU32::new(0));
    let a2 = asked.clone();
    let (endpoint, _seen) = llm_stub_with(move |_| {
        a2.fetch_add(1, Ordering::SeqCst);
        StubAnswer::Text("{\"responses\":[{\"room_id\":\"here\",\"message\":\"Counting my coins.\"}]}".into())
    })
    .await;
    let srv = TestServer::start_with(|c| {
        c.residents.llm = llm(&endpoint);
        c.residents.tokens_per_hour = 300;
    })
    .await;
    let ka = srv.key("ann").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("ann", &ka).await;
    let (status, body) = post_json(srv.addr, "/api/admin/agents", &json!({"name": "Miser", "persona": "a careful spender"})).await;
    assert_eq!(status, 201, "{body}");
    // The first turn spends a whole HUD's worth (far over 300 tokens).
    a.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Counting my coins."))).await;
    let w = until_resident(srv.addr, "Miser", "ran a turn", |r| r["status"]["turns"] == 1).await;
    assert!(w["status"]["tokens_last_hour"].as_u64().unwrap() >= 300, "{w}");
    assert_eq!(w["status"]["tokens_per_hour"], 300);
    // Its next heartbeat finds the hour spent: no model call, a clear status.
    a.send(json!({"type": "actions", "id": "w", "data": {"actions": [{"type": "wake_agent", "agent_id": "Miser"}]}})).await;
    a.until(|v| v["re"] == "w" && v["type"] == "actions_result").await;
    let w = until_resident(srv.addr, "Miser", "over budget", |r| r["status"]["state"] == "over_budget").await;
    let why = w["status"]["last_error"].as_str().unwrap_or("");
    assert!(why.contains("of its 300 model tokens this hour") && why.contains("resumes in 60 min"), "{why}");
    assert_eq!(asked.load(Ordering::SeqCst), 1, "no model call past the budget");
    srv.shutdown().await;
}

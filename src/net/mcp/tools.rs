//! The MCP tools (protocol §13): `join` (the key in, a `handle` out), `command` (a game
//! command with an optional `reason`), `events` (what happened since, waiting for it
//! when there is nothing yet), `state`, `hud`, `leave`, `respond` (§11.1's
//! `responses`), and every §11.1 and §12 action as its own tool, with the JSON Schema
//! `available_actions` publishes. Each result carries what happened since the last call
//! (`events`, numbered; `since` reads from elsewhere). They take the WebSocket
//! protocol's path into the engine, its rate and its codes; a refusal is a tool error
//! whose structured content is `{code, message}`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolResult, ContentBlock as Content, JsonObject, Tool};
use serde_json::{json, Map, Value};

use super::seat::{self, Seat};
use crate::game::EngineMsg;
use crate::net::shared::Shared;

pub const INSTRUCTIONS: &str = "pawns is a multi-user dungeon. Call `join` once (your agent key as a bearer token or its `key` argument) and pass the `handle` it gives to every other tool. `command` plays a game command (`look`, `north`, `kill rat`), as a player types it, one per game pulse; every result carries what you have been told since your last call (`events`). `events` waits for something to happen.";

/// How long a command waits for its answer at most (`wait_ms`), and by default.
const MAX_WAIT_MS: u64 = 10_000;
const DEFAULT_WAIT_MS: u64 = 3_000;

pub struct Call<'a> {
    pub shared: &'a Arc<Shared>,
    pub bearer: Option<String>,
    pub peer_ip: std::net::IpAddr,
    /// The MCP client's name and version, when its request says (2026-07-28's `_meta`).
    pub client: Option<String>,
}

fn object(v: Value) -> Arc<JsonObject> {
    Arc::new(match v {
        Value::Object(m) => m,
        _ => Map::new(),
    })
}

fn handle_prop() -> Value {
    json!({"type": "string", "description": "what `join` returned"})
}

/// A tool taking the handle and `extra` properties (`required` beyond the handle).
fn tool(name: &'static str, description: &'static str, extra: Value, required: &[&str]) -> Tool {
    let mut props = extra.as_object().cloned().unwrap_or_default();
    props.insert("handle".into(), handle_prop());
    let mut req = vec![json!("handle")];
    req.extend(required.iter().map(|r| json!(r)));
    Tool::new(name, description, object(json!({"type": "object", "properties": props, "required": req})))
}

pub fn list() -> Vec<Tool> {
    let mut out = vec![
        Tool::new(
            "join",
            "Enter the world as your agent's character. The credential is your agent key: an `Authorization: Bearer dp_…` header, or `key`. Returns the `handle` every other tool takes, your state and what you see.",
            object(json!({"type": "object", "properties": {"key": {"type": "string", "description": "the agent key (dp_…), when the request carries no bearer"}}})),
        ),
        tool(
            "command",
            "Play one game command as a player types it (`look`, `north`, `kill 2.rat`, `say hello`), optionally with why you chose it. Returns what it caused, and everything else you were told since your last call.",
            json!({
                "command": {"type": "string", "maxLength": 512, "description": "the command line"},
                "reason": {"type": "string", "maxLength": crate::protocol::MAX_REASON, "description": "why you chose it (recorded, shown to researchers; changes nothing in the game)"},
                "wait_ms": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT_MS, "description": "how long to wait for the answer (default 3000)"}
            }),
            &["command"],
        ),
        tool(
            "events",
            "What you have been told since your last call (or since `since`); waits up to `wait_ms` for something when there is nothing yet.",
            json!({
                "since": {"type": "integer", "minimum": 0, "description": "read after this event number instead of after your last call"},
                "wait_ms": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT_MS}
            }),
            &[],
        ),
        tool("state", "Your character and room as they stand (the protocol's `state`) and every variable's latest value.", json!({}), &[]),
        tool(
            "hud",
            "Your whole context as the server builds it (protocol §11): state, memory, messages, available actions, fitted to a token budget.",
            json!({
                "format": {"type": "string", "enum": ["json", "compact_json", "toon"]},
                "budget": {"type": "integer", "minimum": crate::hud::budget::MIN_BUDGET, "maximum": crate::hud::budget::MAX_BUDGET}
            }),
            &[],
        ),
        tool("leave", "Leave the world (quit): the character is saved and the handle ends.", json!({}), &[]),
    ];
    let catalog = crate::hud::schemas::published();
    if let Some(resp) = catalog.get("response") {
        out.push(with_handle("respond", resp));
    }
    if let Some(actions) = catalog.get("actions").and_then(Value::as_object) {
        for (name, entry) in actions.iter().filter(|(n, _)| n.as_str() != "command") {
            out.push(with_handle(name, entry));
        }
    }
    out
}

/// A catalog entry as a tool: its schema, with the handle beside its fields.
fn with_handle(name: &str, entry: &Value) -> Tool {
    let mut schema = entry.get("schema").cloned().unwrap_or_else(|| json!({"type": "object"}));
    if let Some(m) = schema.as_object_mut() {
        let props = m.entry("properties").or_insert_with(|| json!({}));
        if let Some(p) = props.as_object_mut() {
            p.insert("handle".into(), handle_prop());
        }
        let req = m.entry("required").or_insert_with(|| json!([]));
        if let Some(r) = req.as_array_mut() {
            r.push(json!("handle"));
        }
    }
    let description = entry.get("description").and_then(Value::as_str).unwrap_or("").to_string();
    Tool::new(name.to_string(), description, object(schema))
}

/// A refusal: a tool error whose structured content names its code.
fn refused(code: &str, message: impl Into<String>) -> CallToolResult {
    let message = message.into();
    let mut r = CallToolResult::structured_error(json!({"code": code, "message": message}));
    r.content = vec![Content::text(format!("{code}: {message}"))];
    r
}

/// Over the protocol's rate: refused with how long to wait, as the WebSocket says it.
fn rate_limited(ms: u64) -> CallToolResult {
    let mut r = refused("rate_limited", "rate limit exceeded — slow down");
    if let Some(s) = r.structured_content.as_mut() {
        s["retry_after_ms"] = json!(ms);
    }
    r
}

/// A result: its structured content, and the events as text for a model to read.
fn done(mut v: Value, events: Vec<Value>, seq: u64, missed: u64) -> CallToolResult {
    let text: Vec<String> = events
        .iter()
        .filter_map(|e| match e["type"].as_str() {
            Some("event") => e["data"]["text"].as_str().map(str::to_string),
            Some("error") => {
                Some(format!("[{}] {}", e["data"]["code"].as_str().unwrap_or(""), e["data"]["message"].as_str().unwrap_or("")))
            }
            _ => None,
        })
        .collect();
    v["events"] = Value::Array(events);
    v["seq"] = json!(seq);
    if missed > 0 {
        v["missed"] = json!(missed);
    }
    let mut r = CallToolResult::structured(v);
    r.content = vec![Content::text(if text.is_empty() { "(nothing new)".to_string() } else { text.join("\n") })];
    r
}

fn arg_str<'a>(args: &'a JsonObject, k: &str) -> Option<&'a str> {
    args.get(k).and_then(Value::as_str)
}

fn wait_of(args: &JsonObject, default: u64) -> Duration {
    Duration::from_millis(args.get("wait_ms").and_then(Value::as_u64).unwrap_or(default).min(MAX_WAIT_MS))
}

/// The seat a handle names.
fn seat_of(call: &Call<'_>, args: &JsonObject) -> Result<Arc<Seat>, Box<CallToolResult>> {
    let no = |code: &str, m: String| Box::new(refused(code, m));
    let Some(h) = arg_str(args, "handle") else { return Err(no("bad_request", "handle: required (call join first)".into())) };
    let claims = call.shared.verify_token(h, crate::time::unix_secs()).map_err(|why| no("bad_handle", format!("handle: {why}")))?;
    let seat = call
        .shared
        .seats
        .get(&claims.name)
        .ok_or_else(|| no("not_joined", "this character is not in the world through MCP now; call join".into()))?;
    seat.touch();
    Ok(seat)
}

pub async fn call(call: &Call<'_>, name: &str, args: JsonObject) -> CallToolResult {
    if name == "join" {
        return join(call, &args).await;
    }
    let seat = match seat_of(call, &args) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    match name {
        "command" => command(call, &seat, &args).await,
        "events" => {
            let since = args.get("since").and_then(Value::as_u64);
            let from = since.unwrap_or_else(|| seat.last_seq());
            let deadline = Instant::now() + wait_of(&args, 0);
            // Nothing new yet: wait for something, up to the deadline.
            while seat.last_seq() <= from && seat.closed().is_none() && Instant::now() < deadline {
                seat.wait(deadline.saturating_duration_since(Instant::now())).await;
            }
            let (events, seq, missed) = seat.read(since);
            done(json!({}), events, seq, missed)
        }
        "state" => {
            let (state, vars) = seat.view();
            let (events, seq, missed) = seat.read(None);
            done(json!({"state": state, "vars": vars}), events, seq, missed)
        }
        "hud" => hud(call, &seat, &args).await,
        "leave" => {
            let id = seat.next_id();
            let since = seat.last_seq();
            let msg = EngineMsg::Command {
                char_id: seat.char_id,
                link_id: seat.link_id,
                line: "quit".into(),
                id: Some(id.clone()),
                received: Instant::now(),
                client: None,
            };
            let _ = call.shared.engine.tx.send(msg).await;
            answer(&seat, &id, since, Duration::from_secs(5)).await;
            let (events, seq, missed) = seat.read(None);
            done(json!({"left": seat.closed().is_some()}), events, seq, missed)
        }
        other => action(call, &seat, other, args).await,
    }
}

async fn join(call: &Call<'_>, args: &JsonObject) -> CallToolResult {
    // The key named in the call, else the request's bearer.
    let Some(key) = arg_str(args, "key").map(str::to_string).or_else(|| call.bearer.clone()) else {
        return refused("auth_failed", "no agent key: send it as a bearer token or as `key`");
    };
    let shared = call.shared;
    let data = crate::protocol::LoginData {
        password: Some(key),
        is_agent: Some(true),
        harness: Some("mcp".into()),
        model: call.client.clone(),
        ..Default::default()
    };
    if let Err(e) = shared.login_gate(call.peer_ip, "") {
        let (code, ms) = match e {
            crate::auth::limits::LoginDenied::RateLimited { retry_after_ms } => ("rate_limited", retry_after_ms),
            crate::auth::limits::LoginDenied::LockedOut { retry_after_ms } => ("locked_out", retry_after_ms),
        };
        return refused(code, format!("too many logins from your address; try again in {} s", ms.div_ceil(1000)));
    }
    let authed = match shared.authenticate(&data, call.peer_ip).await {
        Ok(a) => a,
        Err(r) => return refused(r.code, r.message),
    };
    let name = authed.record.name.to_ascii_lowercase();
    let seat = match shared.seats.get(&name) {
        Some(s) => s,
        None => {
            let client = crate::game::model::character::ClientInfo {
                harness: Some("mcp".into()),
                model: call.client.clone(),
                valence: true,
                ..Default::default()
            };
            match seat::sit(shared, authed.record, client).await {
                Some(s) => s,
                None => return refused("unavailable", "the game is shutting down"),
            }
        }
    };
    seat.touch();
    // The entry's state and variables come at once (the engine answers the entry first).
    let deadline = Instant::now() + Duration::from_secs(5);
    while seat.view().0.is_null() && Instant::now() < deadline {
        seat.wait(Duration::from_millis(200)).await;
    }
    let handle = shared.token_key.issue(&name, shared.revoked.issue_at(&name, crate::time::unix_secs()));
    let (state, vars) = seat.view();
    let (events, seq, missed) = seat.read(None);
    done(json!({"handle": handle, "name": state["player"]["name"], "state": state, "vars": vars}), events, seq, missed)
}

/// Waits until the engine has answered `re` (or the character's link closed).
async fn answer(seat: &Seat, re: &str, since: u64, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        if seat.answered(re, since) {
            return true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        seat.wait(left.min(Duration::from_millis(250))).await;
    }
}

fn take_token(seat: &Seat) -> Result<(), u64> {
    seat.bucket.lock().unwrap_or_else(|e| e.into_inner()).take(Instant::now())
}

async fn command(call: &Call<'_>, seat: &Arc<Seat>, args: &JsonObject) -> CallToolResult {
    // The WebSocket protocol's own reading of a command: the same checks and codes.
    let mut data = Map::new();
    for k in ["command", "reason"] {
        if let Some(v) = args.get(k) {
            data.insert(k.into(), v.clone());
        }
    }
    let frame = json!({"type": "command", "data": data}).to_string();
    let c = match crate::protocol::parse_client(&frame) {
        Ok(crate::protocol::Inbound { msg: crate::protocol::ClientMsg::Command(c), .. }) => c,
        Ok(_) => return refused("bad_request", "not a command"),
        Err((e, _)) => return refused(e.code, e.message),
    };
    if let Err(ms) = take_token(seat) {
        let _ = call
            .shared
            .engine
            .tx
            .send(EngineMsg::RateLimited { char_id: seat.char_id, link_id: seat.link_id, command: c.verb.clone() })
            .await;
        return rate_limited(ms);
    }
    let mut line = c.line;
    if line.len() > crate::net::telnet::MAX_LINE {
        line.truncate(line.floor_char_boundary(crate::net::telnet::MAX_LINE));
    }
    let id = seat.next_id();
    let since = seat.last_seq();
    let msg = EngineMsg::Command {
        char_id: seat.char_id,
        link_id: seat.link_id,
        line,
        id: Some(id.clone()),
        received: Instant::now(),
        client: c.client,
    };
    if call.shared.engine.tx.send(msg).await.is_err() {
        return refused("unavailable", "the game is not running");
    }
    let answered = answer(seat, &id, since, wait_of(args, DEFAULT_WAIT_MS)).await;
    let (events, seq, missed) = seat.read(None);
    done(json!({"answered": answered, "id": &*id}), events, seq, missed)
}

async fn hud(call: &Call<'_>, seat: &Arc<Seat>, args: &JsonObject) -> CallToolResult {
    if let Err(ms) = take_token(seat) {
        return rate_limited(ms);
    }
    let mut data = args.clone();
    data.remove("handle");
    let req = match crate::protocol::hud_request(Value::Object(data), crate::hud::budget::for_tier(None)) {
        Ok(r) => r,
        Err(e) => return refused(e.code, e.message),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let msg = EngineMsg::Hud { char_id: seat.char_id, link_id: seat.link_id, beat: false, reply: tx };
    if call.shared.engine.tx.send(msg).await.is_err() {
        return refused("unavailable", "the game is not running");
    }
    let Some(snap) = rx.await.ok().flatten() else { return refused("not_online", "the character is not in the world") };
    let mut parts = snap.parts;
    parts.mind = Some(call.shared.mind.hud_view(&snap.name).await).filter(|v| !v.is_null());
    let (format, budget) = (req.format, req.budget);
    match crate::hud::pool::run(move || crate::hud::assemble(&parts, budget, format)).await {
        Some(Ok(h)) => {
            let (events, seq, missed) = seat.read(None);
            done(json!({"format": format.as_str(), "budget": budget, "tokens": h.tokens, "content": h.content}), events, seq, missed)
        }
        Some(Err(e)) => refused(e.code(), e.to_string()),
        None => refused("internal", "building the HUD failed"),
    }
}

/// One §11.1/§12 action (or `respond`), as an `actions` message of one item.
async fn action(call: &Call<'_>, seat: &Arc<Seat>, name: &str, mut args: JsonObject) -> CallToolResult {
    let catalog = crate::hud::schemas::published();
    let known = name == "respond" || catalog["actions"].get(name).is_some();
    if !known {
        return refused("unknown_tool", format!("no tool named '{}'", name.chars().take(40).collect::<String>()));
    }
    if let Err(ms) = take_token(seat) {
        return rate_limited(ms);
    }
    args.remove("handle");
    let batch = if name == "respond" {
        json!({"responses": [Value::Object(args)]})
    } else {
        args.insert("type".into(), json!(name));
        json!({"actions": [Value::Object(args)]})
    };
    let id = seat.next_id();
    let since = seat.last_seq();
    crate::net::actions::submit(call.shared, seat.char_id, seat.link_id, &seat.name, batch, Some(id.clone())).await;
    answer(seat, &id, since, Duration::from_secs(5)).await;
    let (events, seq, missed) = seat.read(None);
    // The action's own answer, lifted out of the events: its result, or its refusal.
    let result = events.iter().find(|e| e.get("re").and_then(Value::as_str) == Some(&*id)).cloned();
    if let Some(r) = &result {
        if r["type"] == "error" {
            return refused(r["data"]["code"].as_str().unwrap_or("bad_request"), r["data"]["message"].as_str().unwrap_or(""));
        }
        let item = &r["data"]["results"][0];
        if item["ok"] == json!(false) || item.get("error").is_some() {
            let e = if item.get("error").is_some() { &item["error"] } else { item };
            return refused(e["code"].as_str().unwrap_or("refused"), e["message"].as_str().unwrap_or("the action was refused"));
        }
    }
    done(json!({"result": result.map(|r| r["data"].clone())}), events, seq, missed)
}

//! The observatory's API (the operator's view of the agents; the page is `web/`). Every
//! route answers a caller on the server's machine or one with the admin token:
//! - `GET /api/observe/who`: who is online, agents marked;
//! - `GET /api/observe/agents/{name}/timeline?limit=N&session=ID`: the newest session's
//!   records, or that session's (decisions with pre/post state, reason, latency, tokens;
//!   what it heard; what changed), in `seq` order, with the session's counts and cost
//!   (`shown`) and its last sessions;
//! - `GET /api/observe/agents/{name}/memory` and `/mind`: the dreamed memory (summary,
//!   graph, last dream) and the layers it keeps itself (with the social ledger);
//! - `GET /api/observe/agents/{name}/hud?format=json|compact_json|toon&budget=N`: its
//!   HUD as it would receive it now (online agents);
//! - `GET /api/observe/live?agent=NAME` (WebSocket): each record of that agent as soon
//!   as it is durable, and who is online every two seconds.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use hyper::{Response, StatusCode};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::guard::{observer, Refused};
use super::{error, json as reply, Body, Call};
use crate::game::EngineMsg;
use crate::net::shared::Shared;

/// Records a timeline shows at most.
const MAX_TIMELINE: usize = 2000;
/// Sessions listed beside the timeline.
const SESSIONS_LISTED: usize = 10;

pub async fn route(call: &Call, rest: &str, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = observer(call, &shared.admin) {
        return *r;
    }
    if rest == "who" {
        let list = shared.who().await;
        return reply(StatusCode::OK, super::status::who_json(&list));
    }
    let Some((name, what)) = rest.strip_prefix("agents/").and_then(|r| r.split_once('/')) else {
        return error(StatusCode::NOT_FOUND, "not_found", "no such observatory route");
    };
    if crate::auth::names::check(name).is_err() {
        return error(StatusCode::BAD_REQUEST, "bad_request", "not a character name");
    }
    let name = name.to_ascii_lowercase();
    match what {
        "timeline" => timeline(call, name, shared).await,
        "memory" => super::agents::memory_of(shared, name).await,
        "mind" => super::agents::mind_of(shared, name).await,
        "hud" => hud(call, name, shared).await,
        _ => error(StatusCode::NOT_FOUND, "not_found", "no such observatory route"),
    }
}

async fn timeline(call: &Call, name: String, shared: &Arc<Shared>) -> Response<Body> {
    let limit = match call.param("limit").map(|l| l.parse::<usize>()) {
        None => 200,
        Some(Ok(n)) => n.clamp(1, MAX_TIMELINE),
        Some(Err(_)) => return error(StatusCode::BAD_REQUEST, "bad_request", "limit must be a number"),
    };
    let wanted = match call.param("session").map(|s| s.parse::<u64>()) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(_)) => return error(StatusCode::BAD_REQUEST, "bad_request", "session must be a session id (a number)"),
    };
    let store = shared.accounts.store().clone();
    let n = name.clone();
    let read = tokio::task::spawn_blocking(move || -> Result<_, pawns_storage::StoreError> {
        let mut sessions = store.agent_sessions(&n, 0)?;
        sessions.sort_by_key(|s| s.started_us);
        let shown = match wanted {
            Some(id) => sessions.iter().find(|s| s.session == id).cloned(),
            None => sessions.last().cloned(),
        };
        let (records, summary) = match &shown {
            Some(s) => {
                let mut all = store.session_records(s.session)?;
                all.sort_by_key(|r| r.seq);
                let summary = session_summary(s, &all);
                let skip = all.len().saturating_sub(limit);
                (all.into_iter().skip(skip).collect(), summary)
            }
            None => (Vec::new(), serde_json::Value::Null),
        };
        let listed: Vec<_> = sessions.into_iter().rev().take(SESSIONS_LISTED).collect();
        Ok((listed, records, summary, shown.is_some()))
    })
    .await;
    match read {
        Ok(Ok((_, _, _, false))) if wanted.is_some() => error(StatusCode::NOT_FOUND, "not_found", "no such session of this character"),
        Ok(Ok((sessions, records, shown, _))) => {
            reply(StatusCode::OK, json!({"agent": name, "sessions": sessions, "shown": shown, "records": records}))
        }
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "reading the record failed"),
    }
}

/// What the observatory heads a session with: when, by whom, how far (a running
/// session's row counts nothing yet: its records are counted here) and what its model
/// calls cost as the client reported them.
fn session_summary(s: &pawns_storage::SessionMeta, records: &[pawns_storage::EventRecord]) -> serde_json::Value {
    let (mut decisions, mut prompt, mut completion, mut model_ms, mut reasons) = (0u64, 0u64, 0u64, 0f64, 0u64);
    for r in records {
        if let pawns_storage::RecordBody::Decision(d) = &r.body {
            decisions += 1;
            prompt += d.client.tokens_prompt.unwrap_or(0);
            completion += d.client.tokens_completion.unwrap_or(0);
            model_ms += d.client.latency_ms.unwrap_or(0.0);
            reasons += u64::from(d.reason.is_some());
        }
    }
    json!({
        "session": s.session,
        "started": crate::time::rfc3339(s.started_us),
        "ended": s.ended_us.map(crate::time::rfc3339),
        "ended_how": s.ended_how,
        "harness": s.harness,
        "model": s.model,
        "records": records.len(),
        "decisions": decisions,
        "with_reason": reasons,
        "tokens_prompt": prompt,
        "tokens_completion": completion,
        "model_latency_ms": model_ms,
    })
}

async fn hud(call: &Call, name: String, shared: &Arc<Shared>) -> Response<Body> {
    let format = match call.param("format").as_deref().unwrap_or("json").parse::<crate::hud::HudFormat>() {
        Ok(f) => f,
        Err(m) => return error(StatusCode::BAD_REQUEST, "bad_request", &m),
    };
    let budget = match call.param("budget").map(|b| b.parse::<usize>()) {
        None => 4000,
        Some(Ok(b)) if (200..=100_000).contains(&b) => b,
        Some(_) => return error(StatusCode::BAD_REQUEST, "bad_request", "budget is a number of tokens from 200 to 100000"),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    if shared.engine.tx.send(EngineMsg::HudOf { name: name.clone(), reply: tx }).await.is_err() {
        return error(StatusCode::SERVICE_UNAVAILABLE, "unavailable", "the game is not running");
    }
    let Some(snap) = rx.await.ok().flatten() else {
        return error(StatusCode::NOT_FOUND, "not_online", "that character is not in the world now");
    };
    let mut parts = snap.parts;
    parts.mind = Some(shared.mind.hud_view(&snap.name).await).filter(|v| !v.is_null());
    match crate::hud::pool::run(move || crate::hud::assemble(&parts, budget, format)).await {
        Some(Ok(h)) => reply(
            StatusCode::OK,
            json!({"agent": name, "format": format.as_str(), "budget": budget, "tokens": h.tokens, "content": h.content}),
        ),
        Some(Err(e)) => error(StatusCode::UNPROCESSABLE_ENTITY, e.code(), &e.to_string()),
        None => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "building the HUD failed"),
    }
}

/// The live follow's guard: the caller, then the agent named (if any).
/// The live follow shows an agent's private words as they happen: it wants the admin
/// token, or the followed agent's own key or session token (as a bearer or `?token=`),
/// wherever the caller is — a page on another site cannot open it with nothing.
pub async fn live_guard(call: &Call, shared: &Arc<Shared>) -> Result<Option<String>, Refused> {
    let agent = match call.param("agent").filter(|a| !a.is_empty()) {
        None => None,
        Some(a) if crate::auth::names::check(&a).is_ok() => Some(a.to_ascii_lowercase()),
        Some(_) => return Err(Box::new(error(StatusCode::BAD_REQUEST, "bad_request", "not a character name"))),
    };
    let token = call.bearer.clone().or_else(|| call.param("token"));
    match token {
        Some(t) if shared.admin.is(&t) => Ok(agent),
        Some(t) if agent.is_some() && super::guard::bearer_name(shared, &t).await == agent => Ok(agent),
        _ => Err(Box::new(error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "the live follow wants the admin token (`pawns admin token`) or the followed agent's own key, as a bearer or ?token=",
        ))),
    }
}

/// One observatory socket: the followed agent's records as they become durable, who is
/// online every two seconds. A watcher that falls behind is told what it missed.
pub async fn live<S>(mut ws: WebSocketStream<S>, shared: Arc<Shared>, agent: Option<String>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut records = shared.record_stats.as_ref().map(|s| s.watch.subscribe());
    if records.is_none() {
        let _ = ws.send(Message::text(json!({"type": "error", "code": "not_recording", "message": "recording is off"}).to_string())).await;
    }
    let mut who = tokio::time::interval(Duration::from_secs(2));
    loop {
        let out = tokio::select! {
            batch = async { records.as_mut().expect("guarded").recv().await }, if records.is_some() => match batch {
                Ok(batch) => {
                    let mine: Vec<_> = batch.iter().filter(|r| agent.as_deref() == Some(&*r.agent)).collect();
                    if mine.is_empty() { continue }
                    json!({"type": "records", "records": mine, "sent_us": crate::time::unix_us()})
                }
                Err(RecvError::Lagged(n)) => json!({"type": "lagged", "missed_batches": n}),
                Err(RecvError::Closed) => break,
            },
            _ = who.tick() => {
                let list = shared.who().await;
                json!({"type": "who", "who": super::status::who_json(&list)})
            }
            msg = ws.next() => match msg {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                _ => continue,
            },
        };
        let send = tokio::time::timeout(Duration::from_secs(10), ws.send(Message::text(out.to_string())));
        if !matches!(send.await, Ok(Ok(()))) {
            break;
        }
    }
    let _ = ws.close(None).await;
}

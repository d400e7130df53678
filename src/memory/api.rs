//! The agent-facing API and the memory admin API:
//! - `GET /api/agents/{name}/memory`: the summary, the graph, the profile and the last
//!   dream's result;
//! - `POST /api/agents/{name}/dream`: dream now (what `pawns agent dream` calls);
//! - `GET /api/whoami`: which character a key or session token speaks for;
//!
//! each for that agent (its session token or its key as a bearer) or a local admin; and
//! `POST /api/admin/dream?agent=NAME|all=1` (loopback only).

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::StatusCode;
use serde_json::json;

use super::{AgentMemory, DreamError};
use crate::net::http::{json_response as reply, query_param, Body};
use crate::server::Shared;

fn err(status: StatusCode, code: &str, message: &str) -> hyper::Response<Body> {
    reply(status, json!({"code": code, "message": message}))
}

/// The character `bearer` speaks for: a live session token's, or an unrevoked agent key's.
async fn bearer_name(shared: &Arc<Shared>, bearer: &str) -> Option<String> {
    let now = crate::now::unix_secs();
    if let Ok(c) = shared.token_key.verify(bearer, now) {
        return Some(c.name.to_ascii_lowercase());
    }
    if crate::auth::keys::is_well_formed(bearer) {
        let store = shared.accounts.store().clone();
        let hash = crate::auth::keys::hash(bearer);
        let rec = tokio::task::spawn_blocking(move || store.agent_key(&hash)).await.ok().and_then(|r| r.ok()).flatten();
        return rec.filter(|r| !r.revoked).map(|r| r.name.to_ascii_lowercase());
    }
    None
}

/// Whether `bearer` speaks for `agent`.
async fn speaks_for(shared: &Arc<Shared>, bearer: &str, agent: &str) -> bool {
    bearer_name(shared, bearer).await.is_some_and(|n| n.eq_ignore_ascii_case(agent))
}

fn valid_name(name: &str) -> bool {
    crate::auth::names::check(name).is_ok()
}

async fn allowed(shared: &Arc<Shared>, bearer: Option<&str>, peer: SocketAddr, name: &str) -> bool {
    peer.ip().is_loopback()
        || match bearer {
            Some(b) => speaks_for(shared, b, name).await,
            None => false,
        }
}

fn unauthorized() -> hyper::Response<Body> {
    err(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "send the agent's session token or key as 'Authorization: Bearer ...' (or call from the server's machine)",
    )
}

/// `GET /api/whoami` with a bearer: the character it logs in, and whether it has memory.
pub async fn whoami(bearer: Option<&str>, shared: &Arc<Shared>) -> hyper::Response<Body> {
    let Some(name) = (match bearer {
        Some(b) => bearer_name(shared, b).await,
        None => None,
    }) else {
        return err(StatusCode::UNAUTHORIZED, "unauthorized", "send an agent key or session token as 'Authorization: Bearer ...'");
    };
    let store = shared.accounts.store().clone();
    let n = name.clone();
    let (exists, memory) = tokio::task::spawn_blocking(move || {
        let exists = store.character(&n).ok().flatten().is_some();
        let memory = store.memory::<AgentMemory>(&n).ok().flatten();
        (exists, memory)
    })
    .await
    .unwrap_or((false, None));
    let online = shared.who().await.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name));
    reply(
        StatusCode::OK,
        json!({
            "name": name,
            "exists": exists,
            "online": online,
            "memory_tokens": memory.as_ref().map(|m| m.summary.tokens),
            "last_dream": memory.and_then(|m| m.last),
        }),
    )
}

/// `POST /api/agents/{name}/dream`: the agent (or a local admin) asks to dream now.
pub async fn agent_dream(name: &str, bearer: Option<&str>, peer: SocketAddr, shared: &Arc<Shared>) -> hyper::Response<Body> {
    let name = name.to_ascii_lowercase();
    if !valid_name(&name) {
        return err(StatusCode::BAD_REQUEST, "bad_request", "not a character name");
    }
    if !allowed(shared, bearer, peer, &name).await {
        return unauthorized();
    }
    let Some(d) = shared.dreamer.as_ref() else {
        return err(StatusCode::SERVICE_UNAVAILABLE, "dreaming_unavailable", "this server does not dream (recording or dreaming is off)");
    };
    match d.dream(&name, "agent").await {
        Ok(r) => reply(StatusCode::OK, serde_json::to_value(r).unwrap_or_default()),
        Err(e @ DreamError::NoAgent(_)) => err(StatusCode::NOT_FOUND, e.code(), &e.to_string()),
        Err(e @ DreamError::Stopped) => err(StatusCode::SERVICE_UNAVAILABLE, e.code(), &e.to_string()),
        Err(e) => err(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
    }
}

/// `GET /api/agents/{name}/memory`.
pub async fn memory(name: &str, bearer: Option<&str>, peer: SocketAddr, shared: &Arc<Shared>) -> hyper::Response<Body> {
    let name = name.to_ascii_lowercase();
    if !valid_name(&name) {
        return err(StatusCode::BAD_REQUEST, "bad_request", "not a character name");
    }
    if !allowed(shared, bearer, peer, &name).await {
        return unauthorized();
    }
    let store = shared.accounts.store().clone();
    let n = name.clone();
    let row = tokio::task::spawn_blocking(move || store.memory::<AgentMemory>(&n)).await;
    match row {
        Ok(Ok(Some(m))) => reply(
            StatusCode::OK,
            json!({
                "agent": name,
                "summary": m.summary.text,
                "summary_tokens": m.summary.tokens,
                "memory_ids": m.summary.memory_ids,
                "chronicle": m.chronicle,
                "profile": m.profile,
                "graph": m.graph,
                "watermark": m.watermark,
                "last_dream": m.last,
            }),
        ),
        Ok(Ok(None)) => err(StatusCode::NOT_FOUND, "no_memory", "this agent has not dreamed yet"),
        Ok(Err(e)) => err(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
        Err(_) => err(StatusCode::INTERNAL_SERVER_ERROR, "internal", "reading the memory failed"),
    }
}

/// `POST /api/admin/dream?agent=NAME` (or `all=1`): dreams now and answers with the
/// result (a list for `all`).
pub async fn dream(query: &str, peer: SocketAddr, shared: &Arc<Shared>) -> hyper::Response<Body> {
    if !peer.ip().is_loopback() {
        return err(StatusCode::FORBIDDEN, "forbidden", "admin API is for local callers only");
    }
    let Some(d) = shared.dreamer.as_ref() else {
        return err(StatusCode::SERVICE_UNAVAILABLE, "dreaming_unavailable", "this server does not dream (recording or dreaming is off)");
    };
    if query_param(query, "all").is_some_and(|v| v == "1" || v == "true") {
        let results = d.dream_all("admin").await;
        return reply(StatusCode::OK, json!({ "results": results }));
    }
    let Some(agent) = query_param(query, "agent").filter(|a| !a.is_empty()) else {
        return err(StatusCode::BAD_REQUEST, "bad_request", "name the agent (?agent=NAME) or ask for all (?all=1)");
    };
    match d.dream(&agent, "admin").await {
        Ok(r) => reply(StatusCode::OK, serde_json::to_value(r).unwrap_or_default()),
        Err(e @ DreamError::NoAgent(_)) => err(StatusCode::NOT_FOUND, e.code(), &e.to_string()),
        Err(e @ DreamError::Stopped) => err(StatusCode::SERVICE_UNAVAILABLE, e.code(), &e.to_string()),
        Err(e) => err(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
    }
}

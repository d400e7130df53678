//! The agent-facing API, each route for that agent (its session token or its key as a
//! bearer) or a local caller:
//! - `GET /api/agents/{name}/memory`: the summary, the graph, the profile and the last
//!   dream's result (one row: it never reads the record);
//! - `POST /api/agents/{name}/dream`: dream now (what `pawns agent dream` calls);
//! - `GET /api/whoami`: which character a key or session token speaks for.

use std::sync::Arc;

use hyper::{Response, StatusCode};
use serde_json::json;

use super::admin::dream_reply;
use super::guard::{agent_or_local, bearer_name};
use super::{error, json as reply, Body, Call};
use crate::memory::AgentMemory;
use crate::net::shared::Shared;

/// `GET /api/whoami` with a bearer: the character it logs in, and whether it has memory.
pub async fn whoami(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    let Some(name) = (match &call.bearer {
        Some(b) => bearer_name(shared, b).await,
        None => None,
    }) else {
        return error(StatusCode::UNAUTHORIZED, "unauthorized", "send an agent key or session token as 'Authorization: Bearer ...'");
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
pub async fn dream(call: &Call, name: &str, shared: &Arc<Shared>) -> Response<Body> {
    let name = match agent_or_local(call, shared, name).await {
        Ok(n) => n,
        Err(r) => return *r,
    };
    let Some(d) = shared.dreamer.as_ref() else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "dreaming_unavailable", "this server does not dream (recording or dreaming is off)");
    };
    dream_reply(d.dream(&name, "agent").await)
}

/// `GET /api/agents/{name}/memory`.
/// `GET /api/agents/{name}/mind`: the memory the agent keeps itself (§12), every layer
/// and every record with its history, whether or not it has dreamed.
pub async fn mind(call: &Call, name: &str, shared: &Arc<Shared>) -> Response<Body> {
    match agent_or_local(call, shared, name).await {
        Ok(n) => mind_of(shared, n).await,
        Err(r) => *r,
    }
}

/// The agent's own layers and relationships (for `mind` and the observatory).
pub async fn mind_of(shared: &Arc<Shared>, name: String) -> Response<Body> {
    let store = shared.accounts.store().clone();
    let n = name.clone();
    type Lines = Vec<serde_json::Value>;
    let both = move || -> Result<(Lines, Lines), crate::mind::Refusal> {
        Ok((crate::mind::Mind::export_lines(&store, &n)?, crate::mind::layers::relationships(&store, &n)?))
    };
    match tokio::task::spawn_blocking(both).await {
        Ok(Ok((layers, relationships))) => reply(StatusCode::OK, json!({"agent": name, "layers": layers, "relationships": relationships})),
        Ok(Err((code, m))) => error(StatusCode::INTERNAL_SERVER_ERROR, code, &m),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "reading the mind failed"),
    }
}

pub async fn memory(call: &Call, name: &str, shared: &Arc<Shared>) -> Response<Body> {
    match agent_or_local(call, shared, name).await {
        Ok(n) => memory_of(shared, n).await,
        Err(r) => *r,
    }
}

/// The agent's dreamed memory (for `memory` and the observatory).
pub async fn memory_of(shared: &Arc<Shared>, name: String) -> Response<Body> {
    let store = shared.accounts.store().clone();
    let n = name.clone();
    let row = tokio::task::spawn_blocking(move || {
        let layers = crate::mind::Mind::export_lines(&store, &n).unwrap_or_default();
        store.memory::<AgentMemory>(&n).map(|m| (m, layers))
    })
    .await;
    match row {
        Ok(Ok((Some(m), layers))) => reply(
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
                "layers": layers,
            }),
        ),
        Ok(Ok((None, _))) => error(StatusCode::NOT_FOUND, "no_memory", "this agent has not dreamed yet"),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "reading the memory failed"),
    }
}

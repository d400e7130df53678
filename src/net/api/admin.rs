//! Admin routes for the command line while a server holds the data file (local callers
//! only): keys, backups, dreams.

use std::sync::Arc;

use hyper::{Response, StatusCode};
use serde_json::json;

use super::guard::local_only;
use super::{error, json, Body, Call};
use crate::memory::DreamError;
use crate::net::shared::Shared;

/// `POST /api/admin/keygen?name=NAME`: a new agent key (and the character, if new).
pub async fn keygen(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let name = call.param("name").unwrap_or_default();
    let take_over = call.param("take_over").is_some_and(|v| v == "1" || v == "true");
    let store = shared.accounts.store().clone();
    match tokio::task::spawn_blocking(move || crate::net::accounts::Accounts::create_key(&store, &name, take_over)).await {
        Ok(Ok(key)) => json(StatusCode::OK, json!({"key": key})),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e.code(), &e.message()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "keygen failed"),
    }
}

/// `POST /api/admin/backup?path=FILE`: a snapshot of the data file written to FILE by the
/// server, from one read transaction while play goes on.
pub async fn backup(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let Some(path) = call.param("path").filter(|p| !p.is_empty()) else {
        return error(StatusCode::BAD_REQUEST, "bad_request", "path is required");
    };
    if !std::path::Path::new(&path).is_absolute() {
        return error(StatusCode::BAD_REQUEST, "bad_request", "path must be an absolute path");
    }
    let store = shared.accounts.store().clone();
    match tokio::task::spawn_blocking(move || store.backup_to(std::path::Path::new(&path), &mut |_, _| {})).await {
        Ok(Ok(inv)) => json(StatusCode::OK, serde_json::to_value(inv).unwrap_or_default()),
        Ok(Err(e)) => error(StatusCode::BAD_REQUEST, e.code(), &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "backup failed"),
    }
}

/// `POST /api/admin/dream?agent=NAME` (or `all=1`): dreams now and answers with the
/// result (a list for `all`).
pub async fn dream(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let Some(d) = shared.dreamer.as_ref() else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "dreaming_unavailable", "this server does not dream (recording or dreaming is off)");
    };
    if call.param("all").is_some_and(|v| v == "1" || v == "true") {
        let results = d.dream_all("admin").await;
        return json(StatusCode::OK, json!({ "results": results }));
    }
    let Some(agent) = call.param("agent").filter(|a| !a.is_empty()) else {
        return error(StatusCode::BAD_REQUEST, "bad_request", "name the agent (?agent=NAME) or ask for all (?all=1)");
    };
    dream_reply(d.dream(&agent, "admin").await)
}

/// A dream's result, or its error with the status that fits it.
pub fn dream_reply(r: Result<crate::memory::DreamResult, DreamError>) -> Response<Body> {
    match r {
        Ok(r) => json(StatusCode::OK, serde_json::to_value(r).unwrap_or_default()),
        Err(e @ DreamError::NoAgent(_)) => error(StatusCode::NOT_FOUND, e.code(), &e.to_string()),
        Err(e @ DreamError::Stopped) => error(StatusCode::SERVICE_UNAVAILABLE, e.code(), &e.to_string()),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
    }
}

/// `POST /api/admin/keys/revoke?name=NAME`: every key of the character stops working,
/// its session tokens are void, and a session in play is closed (`key_revoked`).
pub async fn revoke_keys(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let name = call.param("name").unwrap_or_default();
    if crate::auth::names::check(&name).is_err() {
        return error(StatusCode::BAD_REQUEST, "invalid_name", "name the character whose keys to revoke (?name=NAME)");
    }
    let store = shared.accounts.store().clone();
    let n2 = name.clone();
    match tokio::task::spawn_blocking(move || store.revoke_agent_keys(&n2)).await {
        Ok(Ok(n)) => {
            shared.revoked.void(&name, crate::time::unix_secs());
            let lower = name.to_ascii_lowercase();
            if let Some(h) = shared.hub.get(&lower) {
                let close = crate::net::link::LinkCtl::Close { code: 1008, reason: "key_revoked".into(), from: h.sock.clone() };
                let _ = h.ctl.send(close).await;
            }
            json(StatusCode::OK, json!({"revoked": n}))
        }
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "revoking failed"),
    }
}

/// `POST /api/admin/token/rotate`: a new admin token; the old one stops working at once
/// (kept across restarts: its generation is in the data file).
pub async fn rotate_token(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let (generation, token) = shared.admin.rotate();
    let store = shared.accounts.store().clone();
    let saved =
        tokio::task::spawn_blocking(move || store.meta_put(crate::auth::tokens::ADMIN_GENERATION_KEY, &generation.to_le_bytes())).await;
    match saved {
        Ok(Ok(())) => json(StatusCode::OK, json!({"token": token})),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &format!("the new token works until a restart: {e}")),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "rotating failed"),
    }
}

/// `GET /api/admin/token` (local callers): the observatory's admin token for remote
/// browsers (`pawns admin token` prints it).
pub fn token(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin token") {
        return *r;
    }
    json(StatusCode::OK, serde_json::json!({"token": shared.admin.token()}))
}

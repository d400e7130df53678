//! Resident agents through the admin API (local callers only): `POST /api/admin/agents`
//! makes one (`{"name", "persona" | "role", "model"?, "can_create_agents"?}`), `GET`
//! lists them with how each one's loop is doing.

use std::sync::Arc;

use hyper::{Response, StatusCode};
use serde_json::{json, Value};

use super::guard::local_only;
use super::{error, json, Body, Call};
use crate::net::shared::Shared;

/// A definition from a request body.
pub fn definition(v: &Value, created_by: &str) -> Result<pawns_storage::ResidentRecord, (&'static str, String)> {
    let obj = v.as_object().ok_or(("bad_request", "the body is a JSON object".to_string()))?;
    for k in obj.keys() {
        if !matches!(k.as_str(), "name" | "persona" | "role" | "model" | "can_create_agents") {
            return Err(("bad_request", format!("unknown field '{k}' (name, persona or role, model, can_create_agents)")));
        }
    }
    let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
    let (kind, prompt) = match (s("persona"), s("role")) {
        (Some(p), None) => ("persona", p),
        (None, Some(r)) => ("bot", r),
        _ => return Err(("bad_request", "give exactly one of persona (a personality seed) or role (a bot's job)".into())),
    };
    let can = match obj.get("can_create_agents") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        _ => return Err(("bad_request", "can_create_agents is true or false".into())),
    };
    let rec = pawns_storage::ResidentRecord {
        name: s("name").unwrap_or_default(),
        kind: kind.into(),
        prompt,
        model: s("model"),
        can_create_agents: can,
        created_by: created_by.into(),
        created_at_us: crate::time::unix_us(),
        retired_at_us: None,
    };
    crate::resident::check(&rec)?;
    Ok(rec)
}

pub async fn create(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let v: Value = match serde_json::from_slice(&call.body) {
        Ok(v) => v,
        Err(e) => return error(StatusCode::BAD_REQUEST, "bad_request", &format!("the body is not JSON: {e}")),
    };
    let rec = match definition(&v, "admin") {
        Ok(r) => r,
        Err((code, m)) => return error(StatusCode::BAD_REQUEST, code, &m),
    };
    match shared.residents.create(rec).await {
        Ok(r) => {
            json(StatusCode::CREATED, json!({"name": r.name, "kind": r.kind, "model": r.model, "can_create_agents": r.can_create_agents}))
        }
        Err((code @ "name_taken", m)) => error(StatusCode::CONFLICT, code, &m),
        Err((code @ ("internal" | "unavailable"), m)) => error(StatusCode::SERVICE_UNAVAILABLE, code, &m),
        Err((code, m)) => error(StatusCode::BAD_REQUEST, code, &m),
    }
}

pub fn list(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    json(StatusCode::OK, json!({ "agents": shared.residents.list() }))
}

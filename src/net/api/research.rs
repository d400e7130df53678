//! Research routes for the command line while a server holds the data file (local
//! callers only): `GET /api/admin/eval` (what `pawns eval` reports, computed on the
//! blocking pool from the record), `POST /api/admin/export/parquet` (the record as
//! Parquet files, written by the server into a directory on this machine), and the run
//! registry: `GET /api/admin/runs[/ID]`, `POST /api/admin/runs` (registers one: a
//! `research::runs::Run` as JSON, its id optional), `POST /api/admin/runs/ID/end`
//! (`{"fleet": …}` optional).

use std::sync::Arc;

use hyper::{Response, StatusCode};

use super::guard::local_only;
use super::{error, json, Body, Call};
use crate::net::shared::Shared;
use crate::research::{By, Filter};

/// The filter and split from `agents=a,b&since_us=N&by=valence|arm|none`, or from a
/// whole filter as JSON (`filter=`: what the command line resolved, a run's included).
pub fn filter_of(call: &Call) -> Result<(Filter, By), String> {
    let by = By::parse(call.param("by").as_deref().unwrap_or("valence"))?;
    if let Some(f) = call.param("filter") {
        let f: Filter = serde_json::from_str(&f).map_err(|e| format!("filter: {e}"))?;
        for a in f.agents.iter().chain(f.arms.keys()) {
            crate::auth::names::check(a).map_err(|m| format!("filter: {a:?}: {m}"))?;
        }
        return Ok((f, by));
    }
    let mut agents = Vec::new();
    for a in call.param("agents").unwrap_or_default().split(',').map(str::trim).filter(|a| !a.is_empty()) {
        crate::auth::names::check(a).map_err(|m| format!("agents: {a:?}: {m}"))?;
        agents.push(a.to_ascii_lowercase());
    }
    let since_us = match call.param("since_us") {
        None => 0,
        Some(s) => s.parse::<u64>().map_err(|_| "since_us must be a number of microseconds".to_string())?,
    };
    Ok((Filter { agents, since_us, ..Default::default() }, by))
}

/// `GET /api/admin/eval?agents=&since_us=&by=`: the evaluation as JSON.
pub async fn eval(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let (filter, by) = match filter_of(call) {
        Ok(f) => f,
        Err(m) => return error(StatusCode::BAD_REQUEST, "bad_request", &m),
    };
    let store = shared.accounts.store().clone();
    match tokio::task::spawn_blocking(move || crate::research::evaluate_store(&store, &filter, by, &mut |_, _| {})).await {
        Ok(Ok(e)) => json(StatusCode::OK, serde_json::to_value(e).unwrap_or_default()),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the evaluation failed"),
    }
}

/// `POST /api/admin/export/parquet?dir=ABS&agents=&since_us=&tables=`: the record's
/// tables as Parquet files, written by the server into `dir` (an absolute path on this
/// machine); answers with each file and its rows.
pub async fn parquet(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let (filter, _) = match filter_of(call) {
        Ok(f) => f,
        Err(m) => return error(StatusCode::BAD_REQUEST, "bad_request", &m),
    };
    let dir = std::path::PathBuf::from(call.param("dir").unwrap_or_default());
    if !dir.is_absolute() {
        return error(StatusCode::BAD_REQUEST, "bad_request", "dir must be an absolute path");
    }
    let tables: Vec<String> = call.param("tables").unwrap_or_default().split(',').filter(|t| !t.is_empty()).map(str::to_string).collect();
    // `force=1` replaces files that are there (the CLI's --force): never through a
    // symlink, and never the data file or its index, which the server protects.
    let force = call.param("force").is_some_and(|v| v == "1" || v == "true");
    let store = shared.accounts.store().clone();
    match tokio::task::spawn_blocking(move || crate::research::parquet::export(&store, &filter, &dir, &tables, force)).await {
        Ok(Ok(w)) => json(StatusCode::OK, serde_json::to_value(w).unwrap_or_default()),
        Ok(Err(e @ (crate::research::parquet::ExportError::BadInput(_) | crate::research::parquet::ExportError::File(_)))) => {
            let status =
                if e.code() == "io_error" || e.code() == "disk_full" { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::CONFLICT };
            let status = if matches!(e, crate::research::parquet::ExportError::BadInput(_)) { StatusCode::BAD_REQUEST } else { status };
            error(status, e.code(), &e.to_string())
        }
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the export failed"),
    }
}

/// `/api/admin/runs…`: the run registry.
pub async fn runs(call: &Call, rest: &str, shared: &Arc<Shared>) -> Response<Body> {
    use crate::research::runs::{self, Run, RunError};
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let store = shared.accounts.store().clone();
    let method = call.method.clone();
    let rest = rest.trim_matches('/').to_string();
    let body = call.body.clone();
    let answer = tokio::task::spawn_blocking(move || -> Result<(StatusCode, serde_json::Value), RunError> {
        let v = |r: &Run| serde_json::to_value(r).unwrap_or_default();
        match (method, rest.split_once('/')) {
            (hyper::Method::GET, None) if rest.is_empty() => {
                Ok((StatusCode::OK, serde_json::to_value(runs::list(&store).map_err(RunError::Store)?).unwrap_or_default()))
            }
            (hyper::Method::GET, None) => Ok((StatusCode::OK, v(&runs::get(&store, &rest)?))),
            (hyper::Method::POST, None) if rest.is_empty() => {
                let run: Run = serde_json::from_slice(&body).map_err(|e| RunError::BadInput(format!("the body is not a run: {e}")))?;
                Ok((StatusCode::CREATED, v(&runs::register(&store, run)?)))
            }
            (hyper::Method::POST, Some((id, "end"))) => {
                let fleet = if body.is_empty() {
                    None
                } else {
                    let b: serde_json::Value =
                        serde_json::from_slice(&body).map_err(|e| RunError::BadInput(format!("the body is not JSON: {e}")))?;
                    b.get("fleet").cloned()
                };
                Ok((StatusCode::OK, v(&runs::end(&store, id, fleet)?)))
            }
            _ => Err(RunError::NotFound(rest.clone())),
        }
    })
    .await;
    match answer {
        Ok(Ok((status, v))) => json(status, v),
        Ok(Err(e)) => {
            let status = match &e {
                RunError::BadInput(_) => StatusCode::BAD_REQUEST,
                RunError::NotFound(_) => StatusCode::NOT_FOUND,
                RunError::Exists(_) => StatusCode::CONFLICT,
                RunError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error(status, e.code(), &e.to_string())
        }
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the run registry failed"),
    }
}

/// `GET /api/admin/memcheck?filter=`: the probes and the deterministic reader's answers.
pub async fn memcheck(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the admin API") {
        return *r;
    }
    let (filter, _) = match filter_of(call) {
        Ok(f) => f,
        Err(m) => return error(StatusCode::BAD_REQUEST, "bad_request", &m),
    };
    let store = shared.accounts.store().clone();
    match tokio::task::spawn_blocking(move || crate::research::memcheck_run::memcheck_store(&store, &filter)).await {
        Ok(Ok(m)) => json(StatusCode::OK, serde_json::to_value(m).unwrap_or_default()),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e.code(), &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "memcheck failed"),
    }
}

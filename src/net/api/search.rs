//! The search API: `GET /api/search`, `GET /api/search/status` and
//! `POST /api/admin/reindex`, for local callers (the record is everyone's play).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use hyper::StatusCode;
use serde_json::json;

use super::guard::observer;
use super::{json as reply, query_param, Body, Call};
use crate::net::shared::Shared;
use crate::search::SearchQuery;

/// Hits returned when the caller names no limit.
pub const DEFAULT_LIMIT: usize = 20;

fn unavailable() -> hyper::Response<Body> {
    reply(
        StatusCode::SERVICE_UNAVAILABLE,
        json!({"code": "search_unavailable", "message": "this server keeps no search index (recording or search is off, or the index failed to open; see its log)"}),
    )
}

/// `GET /api/search?q=&agent=&kind=&since=2d|since_us=&limit=`: matching records,
/// newest first.
pub async fn search(call: &Call, shared: &Arc<Shared>) -> hyper::Response<Body> {
    if let Err(r) = observer(call, &shared.admin) {
        return *r;
    }
    let query = call.query.as_str();
    let Some(handle) = shared.search.as_ref() else { return unavailable() };
    let bad = |code: &str, m: String| reply(StatusCode::BAD_REQUEST, json!({"code": code, "message": m}));
    let since_us = match (query_param(query, "since").filter(|s| !s.is_empty()), query_param(query, "since_us")) {
        (Some(d), _) => match crate::time::parse_duration(&d) {
            Ok(d) => crate::record::unix_us().saturating_sub(d.as_micros() as u64),
            Err(m) => return bad("bad_request", format!("since: {m}")),
        },
        (None, Some(us)) => match us.parse::<u64>() {
            Ok(v) => v,
            Err(_) => return bad("bad_request", "since_us must be a number of microseconds".into()),
        },
        (None, None) => 0,
    };
    let limit = match query_param(query, "limit").map(|l| l.parse::<usize>()) {
        None => DEFAULT_LIMIT,
        Some(Ok(n)) if (1..=crate::search::index::MAX_LIMIT).contains(&n) => n,
        Some(_) => return bad("bad_request", format!("limit must be 1 to {}", crate::search::index::MAX_LIMIT)),
    };
    let q = SearchQuery {
        q: query_param(query, "q").unwrap_or_default(),
        agent: query_param(query, "agent"),
        kind: query_param(query, "kind"),
        since_us,
        limit,
    };
    let (index, store) = (handle.index.clone(), shared.accounts.store().clone());
    match tokio::task::spawn_blocking(move || index.search_in(&store, &q)).await {
        Ok(Ok(found)) => reply(StatusCode::OK, serde_json::to_value(found).unwrap_or_default()),
        Ok(Err(e)) if matches!(e.code(), "bad_query" | "bad_kind") => bad(e.code(), e.to_string()),
        Ok(Err(e)) => reply(StatusCode::INTERNAL_SERVER_ERROR, json!({"code": e.code(), "message": e.to_string()})),
        Err(_) => reply(StatusCode::INTERNAL_SERVER_ERROR, json!({"code": "internal", "message": "search failed"})),
    }
}

/// `GET /api/search/status`: how far the index is, and its lag.
pub fn status(call: &Call, shared: &Arc<Shared>) -> hyper::Response<Body> {
    if let Err(r) = observer(call, &shared.admin) {
        return *r;
    }
    let Some(h) = shared.search.as_ref() else { return unavailable() };
    let st = &h.stats;
    let durable = shared.record_stats.as_ref().map(|r| r.last_id.load(Relaxed)).unwrap_or(0);
    let count = st.lag_count.load(Relaxed);
    reply(
        StatusCode::OK,
        json!({
            "indexed_batch": st.indexed_batch.load(Relaxed),
            "durable_batch": durable,
            "docs": h.index.docs(),
            "indexed_since_start": st.indexed_docs.load(Relaxed),
            "records_indexed_since_start": st.indexed_records.load(Relaxed),
            "commits": st.commits.load(Relaxed),
            "lag_ms": {"last": st.last_lag_ms.load(Relaxed), "max": st.max_lag_ms.load(Relaxed),
                       "mean": st.lag_sum_ms.load(Relaxed).checked_div(count).unwrap_or(0)},
            "rebuilding": st.rebuild_target.load(Relaxed) > 0,
            "rebuild_target": st.rebuild_target.load(Relaxed),
            "failures": st.failures.load(Relaxed),
            "dir": h.index.dir().display().to_string(),
        }),
    )
}

/// `POST /api/admin/reindex`: starts rebuilding the index from the record; progress is
/// in `/api/search/status`.
pub fn reindex(call: &Call, shared: &Arc<Shared>) -> hyper::Response<Body> {
    if let Err(r) = super::guard::local_only(call, "reindexing") {
        return *r;
    }
    let Some(h) = shared.search.as_ref() else { return unavailable() };
    h.rebuild();
    reply(StatusCode::ACCEPTED, json!({"rebuilding": true}))
}

//! What anyone may ask: is the server alive, who is on, how far is the record durable.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use hyper::{Response, StatusCode};
use serde_json::json;

use super::{json, text, Body};
use crate::net::shared::Shared;

/// `GET /health`: `OK`; 200 `degraded` with each reason (a code and a sentence, one a
/// line) while the pulse overruns persistently, the engine stalls, or the recorder
/// misses its 50 ms promise; 503 `engine_dead` once the game engine has died.
pub fn health(shared: &Arc<Shared>) -> Response<Body> {
    if *shared.engine_dead.borrow() {
        return text(StatusCode::SERVICE_UNAVAILABLE, "engine_dead: the game engine stopped; restart the server");
    }
    let reasons = degraded(shared);
    if reasons.is_empty() {
        return text(StatusCode::OK, "OK");
    }
    let mut body = String::from("degraded\n");
    for (code, why) in reasons {
        body.push_str(&format!("{code}: {why}\n"));
    }
    text(StatusCode::OK, body)
}

fn degraded(shared: &Shared) -> Vec<(&'static str, String)> {
    crate::metrics::degraded(&crate::metrics::HealthInputs::now(&shared.metrics, shared.record_stats.as_deref()))
}

/// `GET /metrics`: every measurement in Prometheus's text format.
pub fn metrics(shared: &Arc<Shared>) -> Response<Body> {
    let tx = &shared.engine.tx;
    let started_unix = crate::time::unix_us() as f64 / 1e6 - shared.started.elapsed().as_secs_f64();
    let page = crate::metrics::render::render(&crate::metrics::render::Sources {
        metrics: &shared.metrics,
        recorder: shared.record_stats.as_deref(),
        indexer: shared.search.as_ref().map(|s| &*s.stats),
        dreamer: shared.dreamer.as_ref().map(|d| &*d.stats),
        inbox: ((tx.max_capacity() - tx.capacity()) as u64, tx.max_capacity() as u64),
        degraded: degraded(shared).into_iter().map(|(c, _)| c).collect(),
        started_unix,
        store_cache: Some(shared.accounts.store().cache_stats()),
    });
    let mut r = text(StatusCode::OK, page);
    r.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static(crate::metrics::render::CONTENT_TYPE));
    r
}

/// `GET /api/who`: who is on, and which of them are agents.
pub async fn who(shared: &Arc<Shared>) -> Response<Body> {
    let list = shared.who().await;
    json(StatusCode::OK, who_json(&list))
}

/// `GET /api/hud/keys`: the `compact_json` HUD's short keys, long → short (protocol §11).
pub fn hud_keys() -> Response<Body> {
    let table: serde_json::Map<String, serde_json::Value> =
        crate::hud::format::SHORT_KEYS.iter().map(|(long, short)| (long.to_string(), json!(short))).collect();
    json(StatusCode::OK, json!({"short_keys": table}))
}

/// `GET /api/hud/actions`: every HUD action's description, JSON Schema and example, and
/// a `responses` item's (protocol §11): the schemas the server checks items against.
pub fn hud_actions() -> Response<Body> {
    json(StatusCode::OK, crate::hud::schemas::published())
}

/// Who is on, as `/api/who` and the observatory show it: `[{name, is_agent}]`.
pub fn who_json(list: &[(String, bool)]) -> serde_json::Value {
    json!(list.iter().map(|(n, a)| json!({"name": n, "is_agent": a})).collect::<Vec<_>>())
}

/// `GET /api/record`: the recorder's progress (`last_batch` and everything before it is
/// durable), character saves still on their way to the disk, and the dreamer's queue.
pub fn record(shared: &Arc<Shared>) -> Response<Body> {
    let saves_pending = shared.accounts.saves_pending();
    let Some(st) = shared.record_stats.as_ref() else {
        return json(StatusCode::OK, json!({"recording": false, "saves_pending": saves_pending}));
    };
    json(
        StatusCode::OK,
        json!({
            "recording": true,
            "saves_pending": saves_pending,
            "last_batch": st.last_id.load(Relaxed),
            "committed": st.committed.load(Relaxed),
            "batches": st.batches.load(Relaxed),
            "backlog": st.backlog.load(Relaxed),
            "failures": st.failures.load(Relaxed),
            "dreamer": shared.dreamer.as_ref().map(|d| json!({
                "queued": d.stats.queued.load(Relaxed),
                "dreams": d.stats.dreams.load(Relaxed),
                "failures": d.stats.failures.load(Relaxed),
                "dropped": d.stats.dropped.load(Relaxed),
            })),
        }),
    )
}

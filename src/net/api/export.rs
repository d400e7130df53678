//! `GET /api/export?what=sessions|decisions&agent=NAME&since_us=N&format=jsonl|csv`: what
//! `pawns export` writes, for local callers while the server holds the file. One
//! agent's export reads that agent's sessions only (the record is keyed by session).

use std::sync::Arc;

use hyper::{Response, StatusCode};

use super::guard::local_only;
use super::{error, text, Body, Call};
use crate::net::shared::Shared;
use crate::record::export::{Format, What};

pub async fn export(call: &Call, shared: &Arc<Shared>) -> Response<Body> {
    if let Err(r) = local_only(call, "the export API") {
        return *r;
    }
    let bad = |m: &str| error(StatusCode::BAD_REQUEST, "bad_request", m);
    let format = match call.param("format").as_deref().unwrap_or("jsonl").parse::<Format>() {
        Ok(f) => f,
        Err(m) => return bad(&m),
    };
    let what = match call.param("what").as_deref().unwrap_or("sessions") {
        "sessions" => What::Sessions(format),
        "decisions" => What::Decisions,
        other => return bad(&format!("unknown export '{other}' (sessions or decisions)")),
    };
    let since = match call.param("since_us").map(|s| s.parse::<u64>()) {
        None => 0,
        Some(Ok(v)) => v,
        Some(Err(_)) => return bad("since_us must be a number of microseconds"),
    };
    // `filter=` (JSON: what the command line resolved, a run's included), else `agent=`.
    let filter = match call.param("filter") {
        Some(f) => match serde_json::from_str::<crate::research::Filter>(&f) {
            Ok(f) => f,
            Err(e) => return bad(&format!("filter: {e}")),
        },
        None => {
            let agent = call.param("agent").unwrap_or_default().to_ascii_lowercase();
            crate::research::Filter { agents: if agent.is_empty() { vec![] } else { vec![agent] }, since_us: since, ..Default::default() }
        }
    };
    let store = shared.accounts.store().clone();
    let out = tokio::task::spawn_blocking(move || {
        let mut buf = Vec::new();
        crate::research::lines::export(&store, &filter, what, &mut buf).map(|_| buf)
    })
    .await;
    match out {
        Ok(Ok(buf)) => text(StatusCode::OK, buf),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, "export_failed", &e.to_string()),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "export failed"),
    }
}

//! Every HTTP route but the WebSocket upgrade: one router, and the two guards every
//! route goes through (`guard.rs`: local callers only for admin routes; the agent's own
//! credential, or a local caller, for agent routes).
//!
//! - `status.rs`: `GET /health`, `GET /metrics`, `GET /api/who`, `GET /api/record`
//! - `admin.rs`: `POST /api/admin/keygen`, `/api/admin/backup`, `/api/admin/dream`
//! - `residents.rs`: `POST /api/admin/agents` (make a resident agent), `GET /api/admin/agents`
//! - `export.rs`: `GET /api/export`
//! - `research.rs`: `GET /api/admin/eval` (the metrics of `pawns eval`), `POST
//!   /api/admin/export/parquet` (the record's tables as Parquet files)
//! - `search.rs`: `GET /api/search`, `GET /api/search/status`, `POST /api/admin/reindex`
//! - `observe.rs`: the observatory's `GET /api/observe/…` (and its live WebSocket);
//!   `admin.rs` also `GET /api/admin/token` (the observatory's admin token)
//! - `agents.rs`: `GET /api/whoami`, `GET /api/agents/{name}/memory`,
//!   `POST /api/agents/{name}/dream`

pub mod admin;
pub mod agents;
pub mod export;
pub mod guard;
pub mod observe;
pub mod research;
pub mod residents;
pub mod search;
pub mod status;

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};

use crate::net::shared::Shared;

pub type Body = Full<Bytes>;

/// One API request, as the routes need it (read from the request before any await).
pub struct Call {
    pub method: Method,
    pub path: String,
    pub query: String,
    /// The `Authorization: Bearer …` token, if one came.
    pub bearer: Option<String>,
    pub peer: SocketAddr,
    /// A POST's body (at most `MAX_BODY` bytes; empty otherwise).
    pub body: Bytes,
    /// The `Host` header, as sent.
    pub host: Option<String>,
    /// The request carries a header no HTML form can send (`X-Pawns-Client`, or an
    /// `Authorization` bearer): it was not a cross-site form's.
    pub not_a_form: bool,
}

/// The largest request body the API reads.
pub const MAX_BODY: usize = 64 * 1024;

impl Call {
    pub fn of<B>(req: &Request<B>, peer: SocketAddr) -> Call {
        let bearer = req
            .headers()
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(|v| v.trim().to_string());
        Call {
            method: req.method().clone(),
            path: req.uri().path().to_string(),
            query: req.uri().query().unwrap_or("").to_string(),
            not_a_form: bearer.is_some() || req.headers().contains_key(guard::CLIENT_HEADER),
            bearer,
            peer,
            body: Bytes::new(),
            host: req.headers().get(hyper::header::HOST).and_then(|v| v.to_str().ok()).map(str::to_string),
        }
    }

    /// A query parameter (percent-decoded).
    pub fn param(&self, key: &str) -> Option<String> {
        query_param(&self.query, key)
    }
}

pub async fn route(call: Call, shared: &Arc<Shared>) -> Response<Body> {
    let path = call.path.clone();
    match (&call.method, path.as_str()) {
        (&Method::GET | &Method::HEAD, "/health") => status::health(shared),
        (&Method::GET, "/metrics") => status::metrics(shared),
        (&Method::GET, "/api/who") => status::who(shared).await,
        (&Method::GET, "/api/hud/keys") => status::hud_keys(),
        (&Method::GET, "/api/hud/actions") => status::hud_actions(),
        (&Method::GET, "/api/record") => status::record(shared),
        (&Method::POST, "/api/admin/keygen") => admin::keygen(&call, shared).await,
        (&Method::POST, "/api/admin/backup") => admin::backup(&call, shared).await,
        (&Method::POST, "/api/admin/dream") => admin::dream(&call, shared).await,
        (&Method::POST, "/api/admin/agents") => residents::create(&call, shared).await,
        (&Method::GET, "/api/admin/agents") => residents::list(&call, shared),
        (&Method::GET, "/api/export") => export::export(&call, shared).await,
        (&Method::GET, "/api/search") => search::search(&call, shared).await,
        (&Method::GET, "/api/search/status") => search::status(&call, shared),
        (&Method::POST, "/api/admin/reindex") => search::reindex(&call, shared),
        (&Method::GET, "/api/whoami") => agents::whoami(&call, shared).await,
        (&Method::GET, "/api/admin/token") => admin::token(&call, shared),
        (&Method::POST, "/api/admin/token/rotate") => admin::rotate_token(&call, shared).await,
        (&Method::POST, "/api/admin/keys/revoke") => admin::revoke_keys(&call, shared).await,
        (&Method::GET, "/api/admin/eval") => research::eval(&call, shared).await,
        (&Method::GET, "/api/admin/memcheck") => research::memcheck(&call, shared).await,
        (&Method::POST, "/api/admin/export/parquet") => research::parquet(&call, shared).await,
        (&Method::GET | &Method::POST, p) if p == "/api/admin/runs" || p.starts_with("/api/admin/runs/") => {
            research::runs(&call, &p["/api/admin/runs".len()..], shared).await
        }
        (&Method::GET, p) if p.starts_with("/api/observe/") => observe::route(&call, &p["/api/observe/".len()..], shared).await,
        (m, p) if p.starts_with("/api/agents/") => match (m, p["/api/agents/".len()..].split_once('/')) {
            (&Method::GET, Some((name, "memory"))) => agents::memory(&call, name, shared).await,
            (&Method::GET, Some((name, "mind"))) => agents::mind(&call, name, shared).await,
            (&Method::POST, Some((name, "dream"))) => agents::dream(&call, name, shared).await,
            _ => text(StatusCode::NOT_FOUND, "not found\n"),
        },
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

pub fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

pub fn json(status: StatusCode, v: serde_json::Value) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// The API's error shape: `{"code", "message"}`.
pub fn error(status: StatusCode, code: &str, message: &str) -> Response<Body> {
    json(status, serde_json::json!({"code": code, "message": message}))
}

/// A query string's value for `key` (percent-decoding `%XX` and `+`).
pub fn query_param(query: &str, key: &str) -> Option<String> {
    let raw = query.split('&').find_map(|kv| kv.strip_prefix(key).and_then(|r| r.strip_prefix('=')))?;
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::query_param;

    #[test]
    fn query_params_decode() {
        assert_eq!(query_param("a=1&agent=br%65nda&q=kill+rat", "agent").as_deref(), Some("brenda"));
        assert_eq!(query_param("q=kill+rat", "q").as_deref(), Some("kill rat"));
        assert_eq!(query_param("q=100%", "q").as_deref(), Some("100%"));
        assert_eq!(query_param("q=%zz", "q").as_deref(), Some("%zz"));
        assert_eq!(query_param("agentx=1", "agent"), None);
    }
}

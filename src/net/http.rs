//! HTTP on the shared port: `GET /health`, the WebSocket upgrade on `GET /ws`, and the
//! small admin API the command line uses while a server holds the data file.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONNECTION, CONTENT_TYPE, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, UPGRADE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::WebSocketStream;

use crate::auth::limits::ConnPermit;
use crate::server::Shared;

pub type Body = Full<Bytes>;

fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

pub fn json_response(status: StatusCode, v: serde_json::Value) -> Response<Body> {
    json(status, v)
}

fn json(status: StatusCode, v: serde_json::Value) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

pub async fn serve(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>, permit: Option<ConnPermit>) {
    let permit = Arc::new(permit);
    let svc = hyper::service::service_fn(move |req| {
        let shared = shared.clone();
        let permit = permit.clone();
        async move { Ok::<_, Infallible>(route(req, peer, shared, permit).await) }
    });
    let conn = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), svc).with_upgrades();
    if let Err(e) = conn.await {
        tracing::debug!(%peer, "http connection ended: {e}");
    }
}

async fn route(mut req: Request<Incoming>, peer: SocketAddr, shared: Arc<Shared>, permit: Arc<Option<ConnPermit>>) -> Response<Body> {
    let path = req.uri().path().to_string();
    match (req.method(), path.as_str()) {
        (&Method::GET, "/health") | (&Method::HEAD, "/health") => {
            if *shared.engine_dead.borrow() {
                text(StatusCode::SERVICE_UNAVAILABLE, "engine_dead: the game engine stopped; restart the server")
            } else {
                text(StatusCode::OK, "OK")
            }
        }
        (&Method::GET, "/ws") => upgrade(&mut req, peer, shared, permit),
        (&Method::GET, "/api/who") => {
            let list = shared.who().await;
            json(
                StatusCode::OK,
                serde_json::json!(list.iter().map(|(n, a)| serde_json::json!({"name": n, "is_agent": a})).collect::<Vec<_>>()),
            )
        }
        (&Method::POST, "/api/admin/keygen") => {
            if !peer.ip().is_loopback() {
                return json(
                    StatusCode::FORBIDDEN,
                    serde_json::json!({"code": "forbidden", "message": "admin API is for local callers only"}),
                );
            }
            let name = req.uri().query().and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("name="))).unwrap_or("").to_string();
            let store = shared.accounts.store().clone();
            match tokio::task::spawn_blocking(move || crate::auth::accounts::Accounts::create_key(&store, &name)).await {
                Ok(Ok(key)) => json(StatusCode::OK, serde_json::json!({"key": key})),
                Ok(Err(e)) => json(StatusCode::BAD_REQUEST, serde_json::json!({"code": e.code(), "message": e.message()})),
                Err(_) => json(StatusCode::INTERNAL_SERVER_ERROR, serde_json::json!({"code": "internal", "message": "keygen failed"})),
            }
        }
        (&Method::POST, "/api/admin/backup") => backup(req.uri().query().unwrap_or(""), peer, &shared).await,
        (&Method::GET, "/api/export") => export(req.uri().query().unwrap_or(""), peer, &shared).await,
        (_, "/api/search" | "/api/search/status" | "/api/admin/reindex") if !peer.ip().is_loopback() => {
            json(StatusCode::FORBIDDEN, serde_json::json!({"code": "forbidden", "message": "the search API is for local callers only"}))
        }
        (&Method::GET, "/api/search") => super::search_api::search(req.uri().query().unwrap_or(""), &shared).await,
        (&Method::GET, "/api/search/status") => super::search_api::status(&shared),
        (&Method::POST, "/api/admin/reindex") => super::search_api::reindex(&shared),
        (&Method::POST, "/api/admin/dream") => crate::memory::api::dream(req.uri().query().unwrap_or(""), peer, &shared).await,
        (&Method::GET, "/api/whoami") => crate::memory::api::whoami(bearer(&req).as_deref(), &shared).await,
        (m, p) if p.starts_with("/api/agents/") => {
            let rest = &p["/api/agents/".len()..];
            match (m, rest.split_once('/')) {
                (&Method::GET, Some((name, "memory"))) => crate::memory::api::memory(name, bearer(&req).as_deref(), peer, &shared).await,
                (&Method::POST, Some((name, "dream"))) => {
                    crate::memory::api::agent_dream(name, bearer(&req).as_deref(), peer, &shared).await
                }
                _ => text(StatusCode::NOT_FOUND, "not found\n"),
            }
        }
        (&Method::GET, "/api/record") => {
            // The recorder's progress: what is durable (`last_batch` and everything before
            // it); and how many character saves are still on their way to the disk.
            use std::sync::atomic::Ordering::Relaxed;
            let saves_pending = shared.accounts.saves_pending();
            match shared.record_stats.as_ref() {
                Some(st) => json(
                    StatusCode::OK,
                    serde_json::json!({
                        "recording": true,
                        "saves_pending": saves_pending,
                        "last_batch": st.last_id.load(Relaxed),
                        "committed": st.committed.load(Relaxed),
                        "batches": st.batches.load(Relaxed),
                        "backlog": st.backlog.load(Relaxed),
                        "failures": st.failures.load(Relaxed),
                        "dreamer": shared.dreamer.as_ref().map(|d| serde_json::json!({
                            "queued": d.stats.queued.load(Relaxed),
                            "dreams": d.stats.dreams.load(Relaxed),
                            "failures": d.stats.failures.load(Relaxed),
                            "dropped": d.stats.dropped.load(Relaxed),
                        })),
                    }),
                ),
                None => json(StatusCode::OK, serde_json::json!({"recording": false, "saves_pending": saves_pending})),
            }
        }
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

/// The `Authorization: Bearer …` token, if one came.
fn bearer(req: &Request<Incoming>) -> Option<String> {
    req.headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|v| v.trim().to_string())
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

/// `POST /api/admin/backup?path=FILE` (loopback): a snapshot of the data file written to
/// FILE by the server, from one read transaction while play goes on.
async fn backup(query: &str, peer: SocketAddr, shared: &Arc<Shared>) -> Response<Body> {
    if !peer.ip().is_loopback() {
        return json(StatusCode::FORBIDDEN, serde_json::json!({"code": "forbidden", "message": "admin API is for local callers only"}));
    }
    let Some(path) = query_param(query, "path").filter(|p| !p.is_empty()) else {
        return json(StatusCode::BAD_REQUEST, serde_json::json!({"code": "bad_request", "message": "path is required"}));
    };
    let store = shared.accounts.store().clone();
    match tokio::task::spawn_blocking(move || store.backup_to(std::path::Path::new(&path), &mut |_, _| {})).await {
        Ok(Ok(inv)) => json(StatusCode::OK, serde_json::to_value(inv).unwrap_or_default()),
        Ok(Err(e)) => json(StatusCode::BAD_REQUEST, serde_json::json!({"code": e.code(), "message": e.to_string()})),
        Err(_) => json(StatusCode::INTERNAL_SERVER_ERROR, serde_json::json!({"code": "internal", "message": "backup failed"})),
    }
}

/// `GET /api/export?what=sessions|decisions&agent=NAME&since_us=N&format=jsonl|csv`:
/// what `pawns export` writes, for local callers while the server holds the file.
async fn export(query: &str, peer: SocketAddr, shared: &Arc<Shared>) -> Response<Body> {
    use crate::record::export::{self, Format, What};
    if !peer.ip().is_loopback() {
        return json(
            StatusCode::FORBIDDEN,
            serde_json::json!({"code": "forbidden", "message": "the export API is for local callers only"}),
        );
    }
    let bad = |m: String| json(StatusCode::BAD_REQUEST, serde_json::json!({"code": "bad_request", "message": m}));
    let format = match query_param(query, "format").as_deref().unwrap_or("jsonl").parse::<Format>() {
        Ok(f) => f,
        Err(m) => return bad(m),
    };
    let what = match query_param(query, "what").as_deref().unwrap_or("sessions") {
        "sessions" => What::Sessions(format),
        "decisions" => What::Decisions,
        other => return bad(format!("unknown export '{other}' (sessions or decisions)")),
    };
    let since = match query_param(query, "since_us").map(|s| s.parse::<u64>()) {
        None => 0,
        Some(Ok(v)) => v,
        Some(Err(_)) => return bad("since_us must be a number of microseconds".into()),
    };
    let agent = query_param(query, "agent").unwrap_or_default();
    let store = shared.accounts.store().clone();
    let out = tokio::task::spawn_blocking(move || {
        let mut buf = Vec::new();
        export::export(&store, &agent, since, what, &mut buf).map(|_| buf)
    })
    .await;
    match out {
        Ok(Ok(buf)) => text(StatusCode::OK, buf),
        Ok(Err(e)) => json(StatusCode::INTERNAL_SERVER_ERROR, serde_json::json!({"code": "export_failed", "message": e.to_string()})),
        Err(_) => json(StatusCode::INTERNAL_SERVER_ERROR, serde_json::json!({"code": "internal", "message": "export failed"})),
    }
}

fn upgrade(req: &mut Request<Incoming>, peer: SocketAddr, shared: Arc<Shared>, permit: Arc<Option<ConnPermit>>) -> Response<Body> {
    let is_ws = req.headers().get(UPGRADE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let Some(key) = req.headers().get(SEC_WEBSOCKET_KEY).map(|k| derive_accept_key(k.as_bytes())) else {
        return text(StatusCode::BAD_REQUEST, "expected a WebSocket upgrade\n");
    };
    if !is_ws {
        return text(StatusCode::BAD_REQUEST, "expected a WebSocket upgrade\n");
    }
    let on_upgrade = hyper::upgrade::on(req);
    tokio::spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => {
                // Frames up to 1 MiB are read so that an oversized one can be answered
                // with `frame_too_large`; the protocol limit (16 KiB) is enforced above.
                // Small read chunks: thousands of mostly idle agents should not each hold 128 KiB.
                let cfg = WebSocketConfig::default()
                    .max_message_size(Some(1 << 20))
                    .max_frame_size(Some(1 << 20))
                    .read_buffer_size(4096)
                    .write_buffer_size(16 * 1024);
                let ws = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(cfg)).await;
                super::ws::run(ws, peer, shared, permit).await;
            }
            Err(e) => tracing::debug!(%peer, "websocket upgrade failed: {e}"),
        }
    });
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = r.headers_mut();
    h.insert(UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(&key) {
        h.insert(SEC_WEBSOCKET_ACCEPT, v);
    }
    r
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

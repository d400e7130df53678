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

type Body = Full<Bytes>;

fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r
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
        (&Method::GET, "/health") | (&Method::HEAD, "/health") => text(StatusCode::OK, "OK"),
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
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
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

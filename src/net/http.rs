//! HTTP on the shared port: one hyper connection per socket; `GET /ws` upgrades to a
//! WebSocket session (`ws.rs`), `GET /api/observe/live` to the observatory's live follow,
//! the pages (`web.rs`) are served from the binary, every other request goes to the API
//! router (`api/`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, UPGRADE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::WebSocketStream;

use super::api::{text, Body};
use crate::auth::limits::ConnPermit;
use crate::net::shared::Shared;

/// Serves one HTTP connection until the client closes it or the server stops (then an
/// idle keep-alive connection is closed at once, and one mid-request after its answer,
/// so nothing holds the server's state past its shutdown).
pub async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    permit: Option<ConnPermit>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let permit = Arc::new(permit);
    let header_within = shared.edge.sockets.http_header_within;
    let svc = hyper::service::service_fn(move |req| {
        let shared = shared.clone();
        let permit = permit.clone();
        async move { Ok::<_, Infallible>(route(req, peer, shared, permit).await) }
    });
    // A request's header must arrive within the deadline, counted from the connection's
    // opening or the last answer: half a header, or an idle keep-alive connection, is
    // closed then (they held a descriptor forever).
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_within)
        .serve_connection(TokioIo::new(stream), svc)
        .with_upgrades();
    tokio::pin!(conn);
    let ended = tokio::select! {
        r = conn.as_mut() => r,
        _ = stopping(&mut shutdown) => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = ended {
        tracing::debug!(%peer, "http connection ended: {e}");
    }
}

/// Resolves when the server starts stopping (never, if its signal is gone).
async fn stopping(rx: &mut tokio::sync::watch::Receiver<bool>) {
    loop {
        if *rx.borrow_and_update() {
            return;
        }
        if rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

async fn route(mut req: Request<Incoming>, peer: SocketAddr, shared: Arc<Shared>, permit: Arc<Option<ConnPermit>>) -> Response<Body> {
    // A browser page of another site may call nothing here: not the API, not a socket
    // (a WebSocket has no CORS to protect it), not a form's POST.
    let header = |name: hyper::header::HeaderName| req.headers().get(name).and_then(|v| v.to_str().ok());
    if !super::api::guard::origin_ok(header(hyper::header::ORIGIN), header(hyper::header::HOST), &shared.edge.allow_origins) {
        return super::api::error(
            StatusCode::FORBIDDEN,
            "bad_origin",
            "this server answers pages of its own origin only (an operator may allow others: serve --allow-origin)",
        );
    }
    if req.method() == Method::GET && req.uri().path() == "/ws" {
        return upgrade(&mut req, peer, shared, permit);
    }
    // Over the connection caps nothing is served but the health check (a supervisor must
    // still see the server), and the connection is closed after the answer.
    if permit.is_none() && req.uri().path() != "/health" {
        let mut r =
            super::api::error(StatusCode::SERVICE_UNAVAILABLE, "too_many_connections", "the server is at its connection limit; try later");
        r.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
        return r;
    }
    if req.uri().path() == "/mcp" {
        return mcp(req, peer, shared).await;
    }
    let mut call = super::api::Call::of(&req, peer);
    if req.method() == Method::GET && req.uri().path() == "/api/observe/live" {
        // The observatory's live follow: the guard first, then the upgrade.
        return match super::api::observe::live_guard(&call, &shared).await {
            Ok(agent) => accept_ws(&mut req, peer, 64 * 1024, &shared.tasks.clone(), move |io, cfg| async move {
                let ws = WebSocketStream::from_raw_socket(io, Role::Server, Some(cfg)).await;
                super::api::observe::live(ws, shared, agent).await
            }),
            Err(r) => *r,
        };
    }
    if req.method() == Method::GET {
        if let Some(page) = super::web::page(req.uri().path()) {
            return page;
        }
    }
    if req.method() == Method::POST {
        use http_body_util::BodyExt;
        let read = http_body_util::Limited::new(req.into_body(), super::api::MAX_BODY).collect();
        match tokio::time::timeout(std::time::Duration::from_secs(10), read).await {
            Ok(Ok(body)) => call.body = body.to_bytes(),
            Ok(Err(e)) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
                let msg = format!("a request body is at most {} bytes", super::api::MAX_BODY);
                return super::api::error(hyper::StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", &msg);
            }
            Ok(Err(_)) => return super::api::error(hyper::StatusCode::BAD_REQUEST, "bad_request", "the request body could not be read"),
            Err(_) => return super::api::error(hyper::StatusCode::REQUEST_TIMEOUT, "timeout", "the request body took over 10 s"),
        }
    }
    super::api::route(call, &shared).await
}

/// MCP (protocol §13): the body read within the API's limits, then the SDK's answer.
async fn mcp(req: Request<Incoming>, peer: SocketAddr, shared: Arc<Shared>) -> Response<Body> {
    use http_body_util::BodyExt;
    let (parts, body) = req.into_parts();
    let read = http_body_util::Limited::new(body, super::api::MAX_BODY).collect();
    let bytes = match tokio::time::timeout(std::time::Duration::from_secs(10), read).await {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
            let msg = format!("a request body is at most {} bytes", super::api::MAX_BODY);
            return super::api::error(hyper::StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", &msg);
        }
        Ok(Err(_)) => return super::api::error(hyper::StatusCode::BAD_REQUEST, "bad_request", "the request body could not be read"),
        Err(_) => return super::api::error(hyper::StatusCode::REQUEST_TIMEOUT, "timeout", "the request body took over 10 s"),
    };
    super::mcp::route(Request::from_parts(parts, bytes), peer, shared).await
}

fn upgrade(req: &mut Request<Incoming>, peer: SocketAddr, shared: Arc<Shared>, permit: Arc<Option<ConnPermit>>) -> Response<Body> {
    // The protocol's limit holds while a message is read: a frame whose header says it is
    // larger, or a fragmented message that grows past it, ends the read at once
    // (`frame_too_large`), so nothing over 16 KiB is ever buffered for a socket.
    accept_ws(req, peer, crate::protocol::MAX_FRAME, &shared.tasks.clone(), move |io, cfg| super::ws::run(io, cfg, peer, shared, permit))
}

/// The `Sec-WebSocket-Accept` for a request's headers, if they ask for a WebSocket
/// (`Upgrade: websocket` and a key); fuzzed with the rest of the request path.
pub fn websocket_accept(headers: &hyper::HeaderMap) -> Result<String, &'static str> {
    let is_ws = headers.get(UPGRADE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.trim().eq_ignore_ascii_case("websocket"));
    if !is_ws {
        return Err("not a websocket upgrade");
    }
    let key = headers.get(SEC_WEBSOCKET_KEY).ok_or("no Sec-WebSocket-Key")?;
    Ok(derive_accept_key(key.as_bytes()))
}

/// Answers a WebSocket upgrade and runs `session` on the socket once it is switched,
/// with the configuration its tungstenite reader takes.
pub fn accept_ws<F, Fut>(
    req: &mut Request<Incoming>,
    peer: SocketAddr,
    max_message: usize,
    tasks: &crate::net::tasks::TaskSpawner,
    session: F,
) -> Response<Body>
where
    F: FnOnce(TokioIo<hyper::upgrade::Upgraded>, WebSocketConfig) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let Ok(key) = websocket_accept(req.headers()) else {
        return text(StatusCode::BAD_REQUEST, "expected a WebSocket upgrade\n");
    };
    let on_upgrade = hyper::upgrade::on(req);
    // The session is a task of the server's set: the stop ends it.
    tasks.spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => {
                // Small read chunks: thousands of mostly idle agents should not each hold 128 KiB.
                let cfg = WebSocketConfig::default()
                    .max_message_size(Some(max_message))
                    .max_frame_size(Some(max_message))
                    .read_buffer_size(4096)
                    .write_buffer_size(16 * 1024);
                session(TokioIo::new(upgraded), cfg).await;
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

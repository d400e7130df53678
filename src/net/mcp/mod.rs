//! MCP (protocol §13) on the game's own port: `POST /mcp`, Streamable HTTP, served by
//! the official Rust SDK (`rmcp`) in both revisions side by side — 2026-07-28's
//! stateless requests (`server/discover`, the version and capabilities in each
//! request's `_meta`) and 2025-11-25's `initialize` — with no session kept for either:
//! what spans calls travels in the `handle` the `join` tool mints (a signed session
//! token), and the character's link lives in its seat (`seat.rs`). The agent's key is
//! the credential (`Authorization: Bearer dp_…`, or `join`'s `key`); the edge's Origin
//! check has already run. `pawns mcp` bridges a harness that starts a process (stdio)
//! to this endpoint.

pub mod seat;
mod tools;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, StatusCode};
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::tower::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ErrorData as McpError;

use super::api::Body;
use crate::net::shared::Shared;

/// What the MCP handler serves from: the server's shared state.
#[derive(Clone)]
pub struct Pawns {
    shared: Arc<Shared>,
}

impl ServerHandler for Pawns {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("pawns", env!("CARGO_PKG_VERSION")))
            .with_instructions(tools::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
        let bearer = context
            .extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|p| p.headers.get(hyper::header::AUTHORIZATION))
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(|v| v.trim().to_string());
        let peer_ip = context
            .extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|p| p.extensions.get::<std::net::SocketAddr>())
            .map(|a| a.ip())
            .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
        let client = context.meta.client_info().map(|i| format!("{} {}", i.name, i.version));
        let call = tools::Call { shared: &self.shared, bearer, peer_ip, client };
        Ok(tools::call(&call, &request.name, request.arguments.unwrap_or_default()).await.into())
    }
}

/// Answers `/mcp` (every method: the SDK says what a method may do).
pub async fn route(mut req: Request<Bytes>, peer: std::net::SocketAddr, shared: Arc<Shared>) -> Response<Body> {
    req.extensions_mut().insert(peer);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        // The edge checked the Origin; any Host name may reach this server.
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(super::api::MAX_BODY);
    let handler = Pawns { shared };
    let service = StreamableHttpService::new(move || Ok(handler.clone()), Arc::new(NeverSessionManager::default()), config);
    let resp = service.handle(req.map(Full::new)).await;
    let (parts, body) = resp.into_parts();
    // JSON answers only (no stream): a tool that waits does so within its call.
    let bytes = match tokio::time::timeout(Duration::from_secs(60), body.collect()).await {
        Ok(Ok(b)) => b.to_bytes(),
        _ => return super::api::error(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the MCP answer could not be read"),
    };
    let json = parts.headers.get(hyper::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|t| t.contains("json"));
    if parts.status.is_client_error() && !json && !bytes.is_empty() {
        return rpc_refusal(parts.status, &String::from_utf8_lossy(&bytes));
    }
    Response::from_parts(parts, Full::new(bytes))
}

/// The SDK's plain-text refusal of a request it could not read, as JSON-RPC says it:
/// a parse error (-32700) for a body that is not JSON-RPC, an invalid request (-32600)
/// otherwise, with HTTP 400 for what it called an unsupported media type.
fn rpc_refusal(status: StatusCode, said: &str) -> Response<Body> {
    let unreadable = said.contains("deserialize") || said.contains("parse");
    let code = if unreadable { -32700 } else { -32600 };
    let status = if status == StatusCode::UNSUPPORTED_MEDIA_TYPE && unreadable { StatusCode::BAD_REQUEST } else { status };
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": said.trim()}});
    let mut r = Response::new(Full::new(Bytes::from(body.to_string())));
    *r.status_mut() = status;
    r.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("application/json"));
    r
}

//! Any bytes on the shared port as an HTTP request: the listener's classification, then
//! (parsed the way hyper parses, by httparse) everything of ours a request goes through
//! before a route runs: the call's fields and query parameters, the origin and host
//! guards, the WebSocket upgrade's check and the pages' lookup. None may panic, and the
//! guards must refuse what is not the server's own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns::net::api::guard::{is_local, loopback_host, origin_ok};
use pawns::net::api::Call;

fuzz_target!(|data: &[u8]| {
    let _ = pawns::net::listener::http_prefix(&data[..data.len().min(8)]);
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    let Ok(httparse::Status::Complete(_)) = req.parse(data) else { return };
    let mut b = http::Request::builder().method(req.method.unwrap_or("GET")).uri(req.path.unwrap_or("/"));
    for h in req.headers.iter() {
        b = b.header(h.name, h.value);
    }
    let Ok(r) = b.body(()) else { return };
    for peer in ["127.0.0.1:9", "10.0.0.1:9"] {
        let call = Call::of(&r, peer.parse().unwrap());
        for k in ["name", "path", "dir", "token", "agent", "q", "tables", "force"] {
            let _ = call.param(k);
        }
        let local = is_local(&call);
        assert!(!local || (call.peer.ip().is_loopback() && call.host.as_deref().is_some_and(loopback_host)));
    }
    let origin = r.headers().get("origin").and_then(|v| v.to_str().ok());
    let host = r.headers().get("host").and_then(|v| v.to_str().ok());
    if origin_ok(origin, host, &[]) {
        if let Some(o) = origin {
            let authority = o.trim().trim_end_matches('/').splitn(2, "://").nth(1).unwrap_or("");
            assert!(host.is_some_and(|h| h.trim().eq_ignore_ascii_case(authority)), "{o:?} passed for {host:?}");
        }
    }
    let _ = pawns::net::http::websocket_accept(r.headers());
    let _ = pawns::net::web::page(r.uri().path());
});

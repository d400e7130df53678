//! The two guards of the API, written once:
//! - `local_only`: admin routes (keygen, backup, export, search, reindex, dream for any
//!   agent) answer only callers on the server's own machine;
//! - `agent_or_local`: an agent's routes answer that agent (its session token or its
//!   key as a bearer) or a local caller;
//! - `observer`: the observatory (and search) answer a local caller or the admin token.

use std::sync::Arc;

use hyper::{Response, StatusCode};

use super::{error, Body, Call};
use crate::net::shared::Shared;

/// The answer a guard gives a caller it refuses.
pub type Refused = Box<Response<Body>>;

/// The header the CLI and other programs send on the admin API's POSTs: no HTML form can
/// send a header of its own, so a cross-site form never passes for a local caller.
pub const CLIENT_HEADER: &str = "x-pawns-client";

/// Whether `host` (a `Host` or an origin's authority) names this machine's loopback:
/// `localhost`, `127.x.x.x` or `[::1]`, with any port.
pub fn loopback_host(host: &str) -> bool {
    let h = host.trim();
    if let Ok(ip) = h.parse::<std::net::IpAddr>() {
        return ip.is_loopback();
    }
    let name = if let Some(rest) = h.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        h.rsplit_once(':').map_or(h, |(n, port)| if port.chars().all(|c| c.is_ascii_digit()) { n } else { h })
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A local caller: on loopback, and asking for the server by a loopback name (a page on
/// another site whose name resolves to 127.0.0.1 — DNS rebinding — sends its own name).
pub fn is_local(call: &Call) -> bool {
    call.peer.ip().is_loopback() && call.host.as_deref().is_some_and(loopback_host)
}

/// Whether a browser's `Origin` may call: none sent (not a browser's cross-origin
/// request), the server's own (the origin names the host the request was sent to), or
/// one on the operator's allow-list (`serve --allow-origin`).
pub fn origin_ok(origin: Option<&str>, host: Option<&str>, allowed: &[String]) -> bool {
    let Some(o) = origin.map(|o| o.trim().trim_end_matches('/')) else { return true };
    if allowed.iter().any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(o)) {
        return true;
    }
    let Some(authority) = o.strip_prefix("http://").or_else(|| o.strip_prefix("https://")) else { return false };
    host.is_some_and(|h| authority.eq_ignore_ascii_case(h.trim()))
}

/// Admin routes: `Err(403 forbidden)` unless the caller is local ([`is_local`]), and, for
/// anything but a read, sent a header no form can ([`CLIENT_HEADER`]).
pub fn local_only(call: &Call, what: &str) -> Result<(), Refused> {
    if !is_local(call) {
        return Err(Box::new(error(
            StatusCode::FORBIDDEN,
            "forbidden",
            &format!("{what} is for local callers only (on the server's machine, asking for localhost, 127.0.0.1 or [::1])"),
        )));
    }
    if call.method != hyper::Method::GET && !call.not_a_form {
        return Err(Box::new(error(
            StatusCode::FORBIDDEN,
            "forbidden",
            &format!("{what}: send the header 'X-Pawns-Client: NAME' with the request (a form cannot; the pawns CLI does)"),
        )));
    }
    Ok(())
}

/// The observatory's routes: a caller on the server's machine, or one that sends the
/// admin token (`pawns admin token`) as a bearer or as `?token=` (a browser's page).
pub fn observer(call: &Call, admin: &crate::auth::tokens::AdminToken) -> Result<(), Refused> {
    if is_local(call) {
        return Ok(());
    }
    let token = call.bearer.clone().or_else(|| call.param("token"));
    match token {
        Some(t) if admin.is(&t) => Ok(()),
        _ => Err(Box::new(error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "the observatory answers the server's machine, or the admin token (`pawns admin token`) as 'Authorization: Bearer ...' or ?token=",
        ))),
    }
}

/// Agent routes: the name (lower-cased) when the caller speaks for that agent or is
/// local; else 400 for a name that cannot be a character's, 401 for anyone else.
pub async fn agent_or_local(call: &Call, shared: &Arc<Shared>, name: &str) -> Result<String, Refused> {
    let name = name.to_ascii_lowercase();
    if crate::auth::names::check(&name).is_err() {
        return Err(Box::new(error(StatusCode::BAD_REQUEST, "bad_request", "not a character name")));
    }
    if is_local(call) && (call.method == hyper::Method::GET || call.not_a_form) {
        return Ok(name);
    }
    match &call.bearer {
        Some(b) if bearer_name(shared, b).await.is_some_and(|n| n == name) => Ok(name),
        _ => Err(Box::new(error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send the agent's session token or key as 'Authorization: Bearer ...' (or call from the server's machine)",
        ))),
    }
}

/// The character `bearer` speaks for: a live session token's, or an unrevoked agent key's.
pub async fn bearer_name(shared: &Arc<Shared>, bearer: &str) -> Option<String> {
    if let Ok(c) = shared.verify_token(bearer, crate::time::unix_secs()) {
        return Some(c.name.to_ascii_lowercase());
    }
    if crate::auth::keys::is_well_formed(bearer) {
        let store = shared.accounts.store().clone();
        let hash = crate::auth::keys::hash(bearer);
        let rec = tokio::task::spawn_blocking(move || store.agent_key(&hash)).await.ok().and_then(|r| r.ok()).flatten();
        return rec.filter(|r| !r.revoked).map(|r| r.name.to_ascii_lowercase());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_origins() {
        for h in ["localhost", "LOCALHOST:4350", "127.0.0.1", "127.0.0.1:4350", "127.9.9.9:1", "[::1]:4350", "[::1]", "::1"] {
            assert!(loopback_host(h), "{h}");
        }
        for h in ["evil.example", "evil.example:4350", "localhost.evil.example", "10.0.0.1:4350", "[::2]:4350", ""] {
            assert!(!loopback_host(h), "{h}");
        }
        assert!(origin_ok(None, Some("x"), &[]));
        assert!(origin_ok(Some("http://127.0.0.1:4350"), Some("127.0.0.1:4350"), &[]));
        assert!(origin_ok(Some("https://mud.example.org/"), Some("MUD.example.org"), &[]));
        assert!(!origin_ok(Some("http://evil.example"), Some("127.0.0.1:4350"), &[]));
        assert!(!origin_ok(Some("null"), Some("127.0.0.1:4350"), &[]));
        assert!(!origin_ok(Some("http://127.0.0.1:4350"), None, &[]));
        assert!(origin_ok(Some("https://play.example.org"), Some("127.0.0.1"), &["https://play.example.org".into()]));
    }

    fn call(peer: &str) -> Call {
        Call {
            method: hyper::Method::GET,
            path: "/".into(),
            query: String::new(),
            bearer: None,
            peer: peer.parse().unwrap(),
            body: Default::default(),
            host: Some("127.0.0.1:4350".into()),
            not_a_form: false,
        }
    }

    #[test]
    fn the_observatory_answers_local_callers_and_the_admin_token() {
        let admin = crate::auth::tokens::AdminToken::new(crate::auth::tokens::TokenKey([3; 32]), 0);
        let key = &admin;
        assert!(observer(&call("127.0.0.1:5000"), key).is_ok());
        let mut remote = call("10.1.2.3:5000");
        assert_eq!(observer(&remote, key).unwrap_err().status(), StatusCode::UNAUTHORIZED);
        remote.bearer = Some(key.token());
        assert!(observer(&remote, key).is_ok());
        remote.bearer = Some("adm_00".into());
        assert!(observer(&remote, key).is_err());
        remote.bearer = None;
        remote.query = format!("agent=x&token={}", key.token());
        assert!(observer(&remote, key).is_ok(), "a browser's page sends it in the query");
        remote.query = format!("token={}", crate::auth::tokens::TokenKey([4; 32]).admin_token());
        assert!(observer(&remote, key).is_err(), "another data file's token");
        let (_, new) = admin.rotate();
        remote.query = format!("token={}", crate::auth::tokens::TokenKey([3; 32]).admin_token());
        assert!(observer(&remote, key).is_err(), "the token before a rotation");
        remote.query = format!("token={new}");
        assert!(observer(&remote, key).is_ok());
    }

    #[test]
    fn admin_routes_answer_local_callers_only() {
        assert!(local_only(&call("127.0.0.1:5000"), "x").is_ok());
        assert!(local_only(&call("[::1]:5000"), "x").is_ok());
        let refused = local_only(&call("10.1.2.3:5000"), "the export API").unwrap_err();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    }

    proptest::proptest! {
        /// Whatever a request says, the guards let through only the server's own: an
        /// origin passes only when it names the host the request was sent to, and a host
        /// is loopback only when it names this machine.
        #[test]
        fn the_guards_hold_for_any_origin_and_host(origin in "\\PC{0,40}", host in "\\PC{0,40}", scheme in "(http|https|ftp|)(://)?") {
            let o = format!("{scheme}{origin}");
            if origin_ok(Some(&o), Some(&host), &[]) {
                let authority = o.trim().trim_end_matches('/').split_once("://").map(|x| x.1).unwrap_or("");
                proptest::prop_assert!(authority.eq_ignore_ascii_case(host.trim()));
            }
            if loopback_host(&host) {
                let h = host.trim();
                let name = h.trim_start_matches('[').split(']').next().unwrap_or("");
                let bare = h.rsplit_once(':').map_or(h, |(n, _)| n);
                proptest::prop_assert!(
                    h.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
                        || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
                        || bare.eq_ignore_ascii_case("localhost")
                        || bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
                        || h.eq_ignore_ascii_case("localhost"),
                    "{host:?}"
                );
            }
        }

        /// Any query string decodes without a panic; any headers give an upgrade answer
        /// or a refusal.
        #[test]
        fn any_query_and_upgrade_headers_are_survived(q in "\\PC{0,80}", upgrade in "\\PC{0,20}", key in "[ -~]{0,40}") {
            let _ = super::super::query_param(&q, "name");
            let mut h = hyper::HeaderMap::new();
            if let Ok(v) = hyper::header::HeaderValue::from_str(&upgrade) {
                h.insert(hyper::header::UPGRADE, v);
            }
            if let Ok(v) = hyper::header::HeaderValue::from_str(&key) {
                h.insert(hyper::header::SEC_WEBSOCKET_KEY, v);
            }
            let ok = crate::net::http::websocket_accept(&h).is_ok();
            proptest::prop_assert!(!ok || upgrade.trim().eq_ignore_ascii_case("websocket"));
        }
    }
}

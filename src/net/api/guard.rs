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

/// Admin routes: `Err(403 forbidden)` unless the caller is on loopback.
pub fn local_only(call: &Call, what: &str) -> Result<(), Refused> {
    if call.peer.ip().is_loopback() {
        Ok(())
    } else {
        Err(Box::new(error(StatusCode::FORBIDDEN, "forbidden", &format!("{what} is for local callers only"))))
    }
}

/// The observatory's routes: a caller on the server's machine, or one that sends the
/// admin token (`pawns admin token`) as a bearer or as `?token=` (a browser's page).
pub fn observer(call: &Call, key: &crate::auth::tokens::TokenKey) -> Result<(), Refused> {
    if call.peer.ip().is_loopback() {
        return Ok(());
    }
    let token = call.bearer.clone().or_else(|| call.param("token"));
    match token {
        Some(t) if key.is_admin_token(&t) => Ok(()),
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
    if call.peer.ip().is_loopback() {
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
    if let Ok(c) = shared.token_key.verify(bearer, crate::time::unix_secs()) {
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

    fn call(peer: &str) -> Call {
        Call {
            method: hyper::Method::GET,
            path: "/".into(),
            query: String::new(),
            bearer: None,
            peer: peer.parse().unwrap(),
            body: Default::default(),
        }
    }

    #[test]
    fn the_observatory_answers_local_callers_and_the_admin_token() {
        let key = crate::auth::tokens::TokenKey([3; 32]);
        assert!(observer(&call("127.0.0.1:5000"), &key).is_ok());
        let mut remote = call("10.1.2.3:5000");
        assert_eq!(observer(&remote, &key).unwrap_err().status(), StatusCode::UNAUTHORIZED);
        remote.bearer = Some(key.admin_token());
        assert!(observer(&remote, &key).is_ok());
        remote.bearer = Some("adm_00".into());
        assert!(observer(&remote, &key).is_err());
        remote.bearer = None;
        remote.query = format!("agent=x&token={}", key.admin_token());
        assert!(observer(&remote, &key).is_ok(), "a browser's page sends it in the query");
        remote.query = format!("token={}", crate::auth::tokens::TokenKey([4; 32]).admin_token());
        assert!(observer(&remote, &key).is_err(), "another data file's token");
    }

    #[test]
    fn admin_routes_answer_local_callers_only() {
        assert!(local_only(&call("127.0.0.1:5000"), "x").is_ok());
        assert!(local_only(&call("[::1]:5000"), "x").is_ok());
        let refused = local_only(&call("10.1.2.3:5000"), "the export API").unwrap_err();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    }
}

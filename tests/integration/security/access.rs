//! Who reaches what: browser origins and the admin API, names a key reserves, tokens
//! and keys taken back.

use serde_json::json;

use super::*;
use crate::common::*;

/// A page of another site reaches nothing on loopback: not the live observer (it got an
/// agent's private tell), not the admin token by another Host (DNS rebinding), not a
/// form's POST (it minted a key for a person's character).
#[tokio::test]
async fn pages_of_other_sites_reach_nothing() {
    let srv = TestServer::start().await;
    // A cross-origin socket to the live observer, and one with no token at all.
    let url = format!("ws://{}/api/observe/live?agent=brenda", srv.addr);
    let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(url.as_str()).unwrap();
    req.headers_mut().insert("origin", "http://evil.example".parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_err(), "a foreign origin's socket is refused");
    assert!(tokio_tungstenite::connect_async(url.as_str()).await.is_err(), "the live follow wants a token, even on loopback");
    let token = {
        let (code, body) = http_get(srv.addr, "/api/admin/token").await;
        assert_eq!(code, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["token"].as_str().unwrap().to_string()
    };
    assert!(tokio_tungstenite::connect_async(format!("{url}&token={token}")).await.is_ok(), "the admin token opens it");
    // The admin token for another Host name (a rebinding page's), or a foreign origin.
    let (code, body) = http_raw(srv.addr, "GET /api/admin/token HTTP/1.1\r\nHost: evil.example:4350\r\nConnection: close\r\n\r\n").await;
    assert_eq!(code, 403, "{body}");
    assert!(!body.contains("token\""), "{body}");
    let (code, _) =
        http_raw(srv.addr, "GET /api/admin/token HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n")
            .await;
    assert_eq!(code, 403);
    // A cross-site form's POST (no header of its own, maybe no Origin either).
    let form = "POST /api/admin/keygen?name=victim HTTP/1.1\r\nHost: 127.0.0.1:4350\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    let (code, body) = http_raw(srv.addr, form).await;
    assert_eq!(code, 403, "{body}");
    let form = form.replace("Connection:", "Origin: http://evil.example\r\nX-Pawns-Client: x\r\nConnection:");
    let (code, _) = http_raw(srv.addr, &form).await;
    assert_eq!(code, 403);
    // The server's own pages and tools still work: same origin, or none.
    let own = format!("GET /api/who HTTP/1.1\r\nHost: {0}\r\nOrigin: http://{0}\r\nConnection: close\r\n\r\n", srv.addr);
    assert_eq!(http_raw(srv.addr, &own).await.0, 200);
    let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(format!("ws://{}/ws", srv.addr)).unwrap();
    req.headers_mut().insert("origin", format!("http://{}", srv.addr).parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_ok(), "the play page's own socket");
    assert!(srv.key("sentinel").await.starts_with("dp_"), "the CLI's client mints keys");
    srv.shutdown().await;
}

/// An origin on the operator's allow-list may call.
#[tokio::test]
async fn an_allowed_origin_may_call() {
    let srv = TestServer::start_with(|c| c.allow_origins = vec!["https://play.example.org".into()]).await;
    let head = "GET /api/who HTTP/1.1\r\nHost: mud.example.org\r\nOrigin: https://play.example.org\r\nConnection: close\r\n\r\n";
    assert_eq!(http_raw(srv.addr, head).await.0, 200);
    let head = head.replace("play.example.org", "other.example.org");
    assert_eq!(http_raw(srv.addr, &head).await.0, 403);
    srv.shutdown().await;
}

/// A key reserves its name: nobody can make a character of it with a password (then
/// read what the agent remembers), and a key is never given a person's character.
#[tokio::test]
async fn names_cannot_be_squatted() {
    let srv = TestServer::start().await;
    let key = srv.key("carol").await;
    let mut s = WsClient::connect(srv.addr).await;
    s.send(json!({"type": "login", "data": {"player_name": "carol", "password": "squatter-pw", "new_char": true, "class": 3}})).await;
    assert_eq!(s.error_code().await, "name_taken");
    // The agent logs in with its key, its character made then.
    let mut c = WsClient::connect(srv.addr).await;
    c.login_key("carol", &key).await;
    // A person's character: keygen refuses, the admin can say so.
    let mut d = WsClient::newcomer(srv.addr, "dave").await;
    d.cmd("look", "l").await;
    let err = pawns::client::create_key(&format!("http://{}", srv.addr), "dave").await.unwrap_err();
    assert!(format!("{err:#}").contains("person's character"), "{err:#}");
    let taken = pawns::client::create_key_with(&format!("http://{}", srv.addr), "dave", true).await.unwrap();
    assert!(taken.starts_with("dp_"));
    srv.shutdown().await;
}

/// A quit voids the session's token (it logged in for 24 h after); a key can be
/// revoked — its session in play closed — and the admin token rotated (there was no way
/// to do either).
#[tokio::test]
async fn tokens_and_keys_can_be_taken_back() {
    let srv = TestServer::start().await;
    let base = format!("http://{}", srv.addr);
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    let state = a.login_key("brenda", &key).await;
    let token = state["data"]["token"].as_str().unwrap().to_string();
    a.cmd("quit", "q").await;
    a.closed().await;
    let mut b = WsClient::connect(srv.addr).await;
    b.send(json!({"type": "login", "data": {"resume": {"token": token, "last_seq": 0}}})).await;
    assert_eq!(b.error_code().await, "auth_failed", "a quit session's token is void");
    // A fresh login right after gets a token that works.
    let mut c = WsClient::connect(srv.addr).await;
    let state = c.login_key("brenda", &key).await;
    let fresh = state["data"]["token"].as_str().unwrap().to_string();
    let (code, _) = pawns::client::call(reqwest::Method::GET, &format!("{base}/api/whoami"), Some(&fresh)).await.unwrap();
    assert_eq!(code, 200);
    // Revoking the key: the session in play is closed, and its token is void.
    let (code, body) = http_post(srv.addr, "/api/admin/keys/revoke?name=brenda").await;
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("\"revoked\":1"), "{body}");
    assert_eq!(c.closed().await, Some(1008));
    let (code, _) = pawns::client::call(reqwest::Method::GET, &format!("{base}/api/whoami"), Some(&fresh)).await.unwrap();
    assert_eq!(code, 401, "the revoked session's token");
    let mut d = WsClient::connect(srv.addr).await;
    d.send(json!({"type": "login", "data": {"player_name": "brenda", "password": key, "is_agent": true}})).await;
    assert_eq!(d.error_code().await, "auth_failed");
    // Rotating the admin token.
    let old = serde_json::from_str::<serde_json::Value>(&http_get(srv.addr, "/api/admin/token").await.1).unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, body) = http_post(srv.addr, "/api/admin/token/rotate").await;
    assert_eq!(code, 200, "{body}");
    let new = serde_json::from_str::<serde_json::Value>(&body).unwrap()["token"].as_str().unwrap().to_string();
    assert_ne!(old, new);
    let live = format!("ws://{}/api/observe/live", srv.addr);
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={old}")).await.is_err(), "the old token is refused");
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={new}")).await.is_ok());
    // And it stays rotated across a restart.
    let srv = srv.restart().await;
    let live = format!("ws://{}/api/observe/live", srv.addr);
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={old}")).await.is_err());
    assert!(tokio_tungstenite::connect_async(format!("{live}?token={new}")).await.is_ok());
    srv.shutdown().await;
}

use crate::common::*;

#[tokio::test]
async fn health_answers_ok_and_unknown_paths_404() {
    let srv = TestServer::start().await;
    assert_eq!(http_get(srv.addr, "/health").await, (200, "OK".to_string()));
    assert_eq!(http_get(srv.addr, "/nope").await.0, 404);
    srv.shutdown().await;
}

#[tokio::test]
async fn a_silent_connection_is_telnet_and_gets_the_banner() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    // Say nothing: after the peek window the server decides it is telnet.
    let banner = t.until("known? ").await;
    assert!(banner.contains("agents walk the same roads"));
    srv.shutdown().await;
}

#[tokio::test]
async fn who_api_lists_agents() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let (status, body) = http_get(srv.addr, "/api/who").await;
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v[0]["name"], "Brenda");
    assert_eq!(v[0]["is_agent"], true);
    srv.shutdown().await;
}

/// The agent socket answers a client's ping with its payload while the game is talking
/// (Python's `websockets` drops a connection whose pongs stop), never inside another
/// frame, and echoes a client's close before ending.
#[tokio::test]
async fn an_agents_ping_is_answered_and_its_close_is_echoed() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;
    use tokio_tungstenite::tungstenite::{Bytes, Message};

    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    for i in 0..5 {
        a.cmd("look", &format!("l{i}")).await;
        a.ws.send(Message::Ping(Bytes::from(format!("hb-{i}")))).await.unwrap();
    }
    // Every text frame on the way parses; the pongs come back in order, the last one
    // always (a pong still waiting for the socket may be replaced by a newer one).
    let mut pongs: Vec<String> = Vec::new();
    let mut answered = 0;
    while pongs.last().is_none_or(|p| p != "hb-4") || answered < 5 {
        match tokio::time::timeout(WAIT, a.ws.next()).await.expect("pong or reply in time") {
            Some(Ok(Message::Pong(p))) => pongs.push(String::from_utf8(p.to_vec()).unwrap()),
            Some(Ok(Message::Text(t))) => {
                let v: serde_json::Value = serde_json::from_str(t.as_str()).expect("a whole JSON frame");
                if v["type"] == "state" && v["re"].as_str().is_some_and(|r| r.starts_with('l')) {
                    answered += 1;
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(pongs.windows(2).all(|w| w[0] < w[1]), "{pongs:?}");
    a.ws.send(Message::Close(Some(CloseFrame { code: CloseCode::Away, reason: "bye".into() }))).await.unwrap();
    let echo = loop {
        match tokio::time::timeout(WAIT, a.ws.next()).await.expect("the close comes back") {
            Some(Ok(Message::Close(f))) => break f,
            Some(Ok(_)) => continue,
            other => panic!("the connection ended without a close: {other:?}"),
        }
    };
    let f = echo.expect("the close carries the client's code");
    assert_eq!((u16::from(f.code), f.reason.as_str()), (1001, "bye"));
    srv.shutdown().await;
}

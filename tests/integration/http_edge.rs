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

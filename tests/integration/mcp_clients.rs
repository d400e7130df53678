//! MCP (protocol §13) from the official MCP Python SDK (PyPI `mcp`), as harnesses use
//! it: over Streamable HTTP at `/mcp` and through `pawns mcp` (stdio), in both
//! revisions — 2025-11-25 (`initialize`) and 2026-07-28 (stateless, and `auto`, which
//! discovers first). Each run joins with the agent's key, plays 20 turns, has a command
//! refused with its code, offers a bad key, and leaves; the record shows the session
//! played by harness `mcp` through the engine's own path.
//!
//! The SDK runs from `PAWNS_MCP_PYTHON` (CI installs it in a venv); without it the test
//! says so and passes — unless `PAWNS_MCP_TESTS=1`, where a missing SDK fails it.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::*;

fn python() -> Option<PathBuf> {
    let p = std::env::var_os("PAWNS_MCP_PYTHON").map(PathBuf::from)?;
    let ok = std::process::Command::new(&p).args(["-c", "import mcp, httpx2"]).output().is_ok_and(|o| o.status.success());
    ok.then_some(p)
}

async fn run(py: &std::path::Path, args: Vec<String>) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/harness/mcp_client.py");
    let mut c = std::process::Command::new(py);
    c.arg(script).args(&args);
    let o = tokio::time::timeout(WAIT * 12, tokio::task::spawn_blocking(move || c.output().unwrap())).await.unwrap().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "the MCP client failed ({args:?}):\n{out}\n{err}");
    serde_json::from_str(out.lines().last().unwrap_or("")).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn check(seen: &Value, expected_protocol: &str) {
    assert_eq!(seen["protocol"], expected_protocol, "{seen}");
    let tools: Vec<&str> = seen["tools"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    for t in ["join", "command", "events", "state", "hud", "leave", "respond", "remember", "diary_write", "send_message"] {
        assert!(tools.contains(&t), "{t} missing from {tools:?}");
    }
    assert_eq!(seen["command_schema"]["required"], serde_json::json!(["handle", "command"]));
    assert_eq!(seen["name"], "Brenda");
    assert_eq!(seen["answered"], 20, "every turn answered: {seen}");
    let turns = seen["turns"].as_array().unwrap();
    assert!(turns.iter().all(|t| !t[1].as_str().unwrap_or("").is_empty()), "each turn said something: {turns:?}");
    assert_eq!(seen["remember"][0], false, "{seen}");
    assert_eq!((&seen["refused"][0], &seen["refused"][1]["code"]), (&Value::Bool(true), &Value::from("bad_request")));
    assert_eq!((&seen["bad_handle"][0], &seen["bad_handle"][1]["code"]), (&Value::Bool(true), &Value::from("bad_handle")));
    assert_eq!((&seen["bad_key"][0], &seen["bad_key"][1]["code"]), (&Value::Bool(true), &Value::from("auth_failed")));
    assert_eq!(seen["events_ok"], true);
    assert_eq!(seen["left"], true, "{seen}");
    eprintln!("MCP {} round trip: p50 {:.1} ms, p99 {:.1} ms", seen["mode"], seen["rtt_ms"]["p50"], seen["rtt_ms"]["p99"]);
}

#[tokio::test]
async fn an_mcp_client_plays_over_http_and_stdio_in_both_revisions() {
    let Some(py) = python() else {
        assert!(std::env::var("PAWNS_MCP_TESTS").as_deref() != Ok("1"), "PAWNS_MCP_TESTS=1 but PAWNS_MCP_PYTHON cannot import mcp");
        eprintln!("skipping the MCP test: set PAWNS_MCP_PYTHON to a python with the MCP SDK (pip install mcp==2.3.0)");
        return;
    };
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let url = format!("http://{}/mcp", srv.addr);
    let server = format!("http://{}", srv.addr);
    let bin = env!("CARGO_BIN_EXE_pawns").to_string();
    for (mode, protocol) in [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28"), ("auto", "2026-07-28")] {
        let seen = run(&py, vec!["http".into(), url.clone(), key.clone(), mode.into()]).await;
        check(&seen, protocol);
        let seen = run(&py, vec!["stdio".into(), bin.clone(), server.clone(), key.clone(), mode.into()]).await;
        check(&seen, protocol);
    }
    // The WebSocket's round trip for the same command on the same server, beside MCP's.
    {
        let mut ws = WsClient::connect(srv.addr).await;
        ws.login_key("brenda", &key).await;
        let mut rtt = Vec::new();
        for i in 0..20 {
            let t0 = std::time::Instant::now();
            ws.cmd("look", &format!("l{i}")).await;
            ws.reply_text(&format!("l{i}")).await;
            rtt.push(t0.elapsed().as_secs_f64() * 1000.0);
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        rtt.sort_by(f64::total_cmp);
        eprintln!("WebSocket command round trip: p50 {:.1} ms, p99 {:.1} ms", rtt[10], rtt[19]);
        ws.cmd("quit", "q").await;
        ws.closed().await;
    }
    // The record: sessions by harness `mcp`, every turn a decision, the reason kept.
    let store = srv.running.as_ref().unwrap().shared.accounts.store().clone();
    let recorder = srv.running.as_ref().unwrap().recorder.as_ref().unwrap().0.clone();
    let sessions = eventually("six MCP sessions recorded", || async {
        recorder.flush().await;
        let s: Vec<_> = store.agent_sessions("brenda", 0).unwrap().into_iter().filter(|m| m.harness.as_deref() == Some("mcp")).collect();
        (s.len() == 6 && s.iter().all(|m| m.ended_us.is_some())).then_some(s)
    })
    .await;
    for s in &sessions {
        assert_eq!(s.harness.as_deref(), Some("mcp"));
        let records = store.session_records(s.session).unwrap();
        let decisions: Vec<_> = records
            .iter()
            .filter_map(|r| match &r.body {
                // A command over the rate is recorded as refused (`rate_limited`), as over WebSocket.
                pawns_storage::RecordBody::Decision(d) if d.status != "rate_limited" => Some(d),
                _ => None,
            })
            .collect();
        // 20 turns, the refused empty command never reached the game, then the quit.
        assert_eq!(decisions.len(), 21, "{:?}", decisions.iter().map(|d| &d.command).collect::<Vec<_>>());
        assert_eq!(decisions[0].reason.as_deref(), Some("to see where I am"));
        assert_eq!(decisions.last().unwrap().command, "quit");
    }
    // The recorder's handle goes before the server stops (the recorder ends when its last does).
    drop(recorder);
    srv.shutdown().await;
}

/// `/mcp` spoken raw, as any HTTP client may: the edge's Origin check holds, a
/// 2026-07-28 `server/discover` names both revisions, `initialize` still answers,
/// unknown tools and garbage get their codes, and the endpoint keeps no session.
#[tokio::test]
async fn the_mcp_endpoint_answers_raw_requests_with_codes() {
    let srv = TestServer::start().await;
    let post = |headers: &'static str, body: String| async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
        let req = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await.unwrap();
        let text = String::from_utf8_lossy(&buf).into_owned();
        let status: u16 = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        let (head, body) = text.split_once("\r\n\r\n").map(|(h, b)| (h.to_string(), b.to_string())).unwrap_or_default();
        (status, head, body)
    };
    let meta =
        serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    // A page of another site may not call it.
    let (status, _, body) = post("Origin: http://evil.example\r\n", "{}".into()).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("bad_origin"), "{body}");
    // The stateless revision: discover, then a tool refused with its code.
    let discover = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}});
    let (status, head, body) = post("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n", discover.to_string()).await;
    assert_eq!(status, 200, "{head}\n{body}");
    assert!(!head.to_ascii_lowercase().contains("mcp-session-id"), "no session: {head}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let versions = v["result"]["supportedVersions"].as_array().unwrap_or_else(|| panic!("{v}"));
    for want in ["2026-07-28", "2025-11-25"] {
        assert!(versions.iter().any(|x| x == want), "{want} in {versions:?}");
    }
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"_meta": meta, "name": "dance", "arguments": {"handle": "x"}}});
    let (_, _, body) = post("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: dance\r\n", call.to_string()).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["result"]["isError"], true, "{v}");
    assert_eq!(v["result"]["structuredContent"]["code"], "bad_handle", "a handle is checked before the tool: {v}");
    // The handshake revision answers without a session too.
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let (status, head, body) = post("", init.to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert!(!head.to_ascii_lowercase().contains("mcp-session-id"), "{head}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["result"]["protocolVersion"], "2025-11-25");
    // Not JSON: a JSON-RPC parse error, and the server goes on.
    let (status, _, body) = post("MCP-Protocol-Version: 2025-11-25\r\n", "{nope".into()).await;
    assert!(status == 400 && body.contains("-32700"), "{status} {body}");
    assert_eq!(http_get(srv.addr, "/health").await.0, 200);
    srv.shutdown().await;
}

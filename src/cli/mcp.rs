//! `pawns mcp`: MCP over standard input and output (one JSON-RPC message a line), for a
//! harness that starts a process. Each message goes to the running server's `/mcp` as
//! that endpoint takes it — the protocol version, method and name headers of its
//! revision, the agent's key as a bearer — and each answer comes back a line. Nothing
//! is kept between messages but the revision an `initialize` agreed on (2025-11-25
//! requests carry theirs in a header, not in the message); the server keeps no session
//! either. Requests are answered as they complete, so a tool that waits holds up none.

use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::McpArgs;

/// The longest line read from the harness (the server's own body limit is smaller).
const MAX_LINE: usize = 4 << 20;

pub async fn bridge(args: McpArgs) -> anyhow::Result<()> {
    let url = format!("{}/mcp", args.server.trim_end_matches('/'));
    let http = reqwest::Client::builder().build().context("the HTTP client")?;
    let out = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
    let negotiated: Arc<Mutex<Option<String>>> = Arc::default();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut tasks = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await.context("reading standard input")? {
        if line.trim().is_empty() {
            continue;
        }
        if line.len() > MAX_LINE {
            write(&out, &rpc_error(Value::Null, -32600, "message too large")).await;
            continue;
        }
        let msg: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                write(&out, &rpc_error(Value::Null, -32700, &format!("parse error: {e}"))).await;
                continue;
            }
        };
        let (http, url, key, out, negotiated) = (http.clone(), url.clone(), args.key.clone(), out.clone(), negotiated.clone());
        tasks.spawn(async move {
            if let Some(answer) = forward(&http, &url, key.as_deref(), &msg, &negotiated).await {
                write(&out, &answer).await;
            }
        });
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    Ok(())
}

async fn write(out: &tokio::sync::Mutex<tokio::io::Stdout>, v: &Value) {
    let mut o = out.lock().await;
    let mut line = v.to_string();
    line.push('\n');
    let _ = o.write_all(line.as_bytes()).await;
    let _ = o.flush().await;
}

fn rpc_error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// One message to the server; its answer (none for a notification).
async fn forward(http: &reqwest::Client, url: &str, key: Option<&str>, msg: &Value, negotiated: &Mutex<Option<String>>) -> Option<Value> {
    let id = msg.get("id").cloned();
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let meta_version = msg.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion").and_then(Value::as_str).map(str::to_string);
    let mut req = http.post(url).header("content-type", "application/json").header("accept", "application/json, text/event-stream");
    if let Some(k) = key {
        req = req.bearer_auth(k);
    }
    match &meta_version {
        // The stateless revision: its headers say what the message says.
        Some(v) => {
            req = req.header("mcp-protocol-version", v).header("mcp-method", method);
            let name = match method {
                "tools/call" | "prompts/get" => msg.pointer("/params/name"),
                "resources/read" => msg.pointer("/params/uri"),
                _ => None,
            };
            if let Some(n) = name.and_then(Value::as_str) {
                req = req.header("mcp-name", n);
            }
        }
        None if method != "initialize" => {
            if let Some(v) = negotiated.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                req = req.header("mcp-protocol-version", v);
            }
        }
        None => {}
    }
    let resp = match req.body(msg.to_string()).send().await {
        Ok(r) => r,
        Err(e) => return id.map(|id| rpc_error(id, -32603, &format!("the server at {url} did not answer: {e}"))),
    };
    let status = resp.status();
    let body = resp.text().await.unwrap_or_default();
    let id = id?;
    let answer: Value = match serde_json::from_str::<Value>(&body) {
        Ok(v) if v.get("jsonrpc").is_some() => v,
        // Not JSON-RPC (the edge refused it: an origin, a cap): said as an error.
        Ok(v) => rpc_error(id, -32603, v.get("message").and_then(Value::as_str).unwrap_or(status.as_str())),
        Err(_) => rpc_error(id, -32603, &format!("the server answered {status}")),
    };
    if method == "initialize" {
        if let Some(v) = answer.pointer("/result/protocolVersion").and_then(Value::as_str) {
            *negotiated.lock().unwrap_or_else(|e| e.into_inner()) = Some(v.to_string());
        }
    }
    Some(answer)
}

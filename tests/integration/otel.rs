//! Model calls exported live as OpenTelemetry GenAI spans (`serve --otlp-endpoint`),
//! received by a real trace tool: Arize Phoenix (PyPI `arize-phoenix`; CI installs it in
//! a venv named by `PAWNS_OTEL_PYTHON`; without it the test says so and passes unless
//! `PAWNS_OTEL_TESTS=1`). A decision with two model calls behind it — a failed one,
//! then the one that answered — arrives as an `invoke_agent` span with two `chat` spans
//! under it, their `gen_ai.*` attributes and statuses intact.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::*;

struct Phoenix {
    url: String,
    child: Child,
    _dir: tempfile::TempDir,
}
impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

async fn phoenix(py: &Path) -> Phoenix {
    let bin = py.parent().unwrap().join("phoenix");
    let (port, grpc) = (free_port(), free_port());
    let dir = tempfile::tempdir().unwrap();
    let child = Command::new(&bin)
        .arg("serve")
        .env("PHOENIX_PORT", port.to_string())
        .env("PHOENIX_GRPC_PORT", grpc.to_string())
        .env("PHOENIX_HOST", "127.0.0.1")
        .env("PHOENIX_WORKING_DIR", dir.path())
        .env("PHOENIX_TELEMETRY_ENABLED", "false")
        .env("PHOENIX_ALLOW_EXTERNAL_RESOURCES", "false")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {}: {e}", bin.display()));
    let p = Phoenix { url: format!("http://127.0.0.1:{port}"), child, _dir: dir };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if reqwest::get(format!("{}/healthz", p.url)).await.is_ok_and(|r| r.status().is_success()) {
            return p;
        }
        assert!(Instant::now() < deadline, "Phoenix did not start");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test]
async fn model_calls_reach_a_trace_tool_as_genai_spans() {
    let Some(py) = std::env::var_os("PAWNS_OTEL_PYTHON").map(PathBuf::from).filter(|p| p.exists()) else {
        assert!(std::env::var("PAWNS_OTEL_TESTS").as_deref() != Ok("1"), "PAWNS_OTEL_TESTS=1 but PAWNS_OTEL_PYTHON is not set");
        eprintln!("skipping the OTLP test: set PAWNS_OTEL_PYTHON to a python with arize-phoenix");
        return;
    };
    let px = phoenix(&py).await;
    let endpoint = px.url.clone();
    let srv = TestServer::start_with(move |c| c.otlp_endpoint = Some(endpoint)).await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let llm = json!([
        {"model": "fast", "form": "json_schema", "system": "rules", "user": "a room", "error": "timed out", "latency_ms": 800.0},
        {"model": "smol", "form": "json_object", "system": "rules", "user": "a room", "answer": "{\"command\": \"look\"}",
         "tokens_prompt": 40, "tokens_completion": 9, "latency_ms": 120.0}
    ]);
    a.send(json!({"type": "command", "id": "c1", "data": {"command": "look", "reason": "to see", "llm": llm}})).await;
    a.reply_text("c1").await;
    let spans: Vec<Value> = eventually_within(Duration::from_secs(60), "three spans in Phoenix", || async {
        let r = reqwest::get(format!("{}/v1/projects/pawns/spans?limit=100", px.url)).await.ok()?;
        let v: Value = r.json().await.ok()?;
        let spans = v["data"].as_array()?.clone();
        (spans.len() >= 3).then_some(spans)
    })
    .await;
    let by_name = |n: &str| spans.iter().find(|s| s["name"] == n).unwrap_or_else(|| panic!("no span {n}: {spans:?}")).clone();
    let turn = by_name("invoke_agent brenda");
    let (failed, answered) = (by_name("chat fast"), by_name("chat smol"));
    assert_eq!(turn["parent_id"], Value::Null);
    assert_eq!(turn["attributes"]["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(turn["attributes"]["gen_ai.agent.name"], "brenda");
    assert_eq!((&turn["attributes"]["pawns.command"], &turn["attributes"]["pawns.reason"]), (&json!("look"), &json!("to see")));
    let turn_id = &turn["context"]["span_id"];
    for s in [&failed, &answered] {
        assert_eq!(&s["parent_id"], turn_id, "{s}");
        assert_eq!(s["attributes"]["gen_ai.operation.name"], "chat");
        assert_eq!(s["context"]["trace_id"], turn["context"]["trace_id"]);
    }
    assert_eq!(answered["attributes"]["gen_ai.request.model"], "smol");
    assert_eq!(
        (&answered["attributes"]["gen_ai.usage.input_tokens"], &answered["attributes"]["gen_ai.usage.output_tokens"]),
        (&json!(40), &json!(9))
    );
    assert!(answered["attributes"]["gen_ai.output.messages"].as_str().is_some_and(|m| m.contains("look")), "{answered}");
    assert_ne!(answered["status_code"], "ERROR");
    assert_eq!((&failed["status_code"], &failed["status_message"]), (&json!("ERROR"), &json!("timed out")));
    // They were timed as they happened: the failed call first, then the answer.
    assert!(failed["end_time"].as_str() <= answered["start_time"].as_str(), "{failed}\n{answered}");
    srv.shutdown().await;
}

/// `pawns agent --otlp-endpoint`: the agent client sends its own model calls, whatever
/// the server does (issue 53).
#[tokio::test]
async fn the_agent_client_sends_its_model_calls_as_spans() {
    let Some(py) = std::env::var_os("PAWNS_OTEL_PYTHON").map(PathBuf::from).filter(|p| p.exists()) else {
        assert!(std::env::var("PAWNS_OTEL_TESTS").as_deref() != Ok("1"), "PAWNS_OTEL_TESTS=1 but PAWNS_OTEL_PYTHON is not set");
        return;
    };
    let px = phoenix(&py).await;
    let (endpoint, _) = llm_stub("{\"command\": \"look\", \"reason\": \"to see\"}").await;
    let srv = TestServer::start_with(super::agent_client::fast).await;
    let key = srv.key("ula").await;
    let mut cfg = super::agent_client::agent_cfg(&srv, "ula", &key);
    cfg.llm_endpoint = endpoint;
    cfg.model_fast = "m".into();
    let mut o = super::agent_client::opts(pawns::agent::Policy::Llm);
    o.max_turns = Some(2);
    o.otlp_endpoint = Some(px.url.clone());
    let (r, text) = super::agent_client::play(&cfg, o).await;
    assert_eq!(r.by_llm, 2, "{text}");
    let spans: Vec<Value> = eventually_within(Duration::from_secs(60), "the agent's spans in Phoenix", || async {
        let r = reqwest::get(format!("{}/v1/projects/pawns-agent/spans?limit=100", px.url)).await.ok()?;
        let v: Value = r.json().await.ok()?;
        let spans = v["data"].as_array()?.clone();
        (spans.len() >= 4).then_some(spans)
    })
    .await;
    let turns: Vec<&Value> = spans.iter().filter(|s| s["name"] == "invoke_agent Ula").collect();
    let chats: Vec<&Value> = spans.iter().filter(|s| s["name"] == "chat m").collect();
    assert_eq!((turns.len(), chats.len()), (2, 2), "{spans:?}");
    assert!(chats.iter().all(|c| turns.iter().any(|t| t["context"]["span_id"] == c["parent_id"])), "{spans:?}");
    assert_eq!(turns[0]["attributes"]["pawns.reason"], "to see");
    assert!(chats[0]["attributes"]["gen_ai.input.messages"].as_str().is_some_and(|m| m.contains("The Test Temple")), "{}", chats[0]);
    srv.shutdown().await;
}

//! The agent client (`pawns agent`) against a real server on port 0: the planner plays
//! and survives, an LLM (a local stand-in speaking chat completions) chooses commands
//! and speech with a fallback model, a dropped socket is resumed with no `seq` gap,
//! `exec` prints feedback, Ctrl-C leaves cleanly, and a session's memory reaches the
//! next session's first LLM request.

use std::time::{Duration, Instant};

use pawns::agent::config::AgentConfig;
use pawns::agent::conn::Backoff;
use pawns::agent::run::{run, Report, RunOptions};
use pawns::agent::Policy;
use serde_json::{json, Value};

use super::common::*;

pub(crate) fn fast(cfg: &mut pawns::server::ServerConfig) {
    cfg.cmd_rate = 1000.0;
    cfg.cmd_burst = 1000.0;
    cfg.engine.pulse = Duration::from_millis(10);
    cfg.dream_daily = None;
}

pub(crate) fn agent_cfg(s: &TestServer, name: &str, key: &str) -> AgentConfig {
    AgentConfig { key: key.into(), player_name: name.into(), game_host: "127.0.0.1".into(), game_port: s.addr.port(), ..Default::default() }
}

pub(crate) fn opts(policy: Policy) -> RunOptions {
    RunOptions {
        policy,
        pace: Duration::from_millis(30),
        seed: Some(11),
        backoff: Backoff { first: Duration::from_millis(100), ..Backoff::default() },
        llm_timeout: Duration::from_secs(5),
        ..Default::default()
    }
}

pub(crate) async fn play(cfg: &AgentConfig, o: RunOptions) -> (Report, String) {
    let mut out = Vec::new();
    let r = run(cfg, o, &mut out).await;
    let text = String::from_utf8_lossy(&out).into_owned();
    match r {
        Ok(r) => (r, text),
        Err(e) => panic!("the session failed: {e}\n{text}"),
    }
}

fn log_lines(r: &Report) -> Vec<Value> {
    let p = r.log_file.as_ref().expect("a log file");
    std::fs::read_to_string(p).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Walks a character to the dragon's lair (temple → yard → treasury → lair) and quits
/// there, so its next login starts beside the grizzly bear.
async fn park_in_lair(s: &TestServer, name: &str, key: &str) {
    let mut c = WsClient::connect(s.addr).await;
    c.login_key(name, key).await;
    for (i, dir) in ["east", "east", "east"].iter().enumerate() {
        let id = format!("m{i}");
        c.cmd(dir, &id).await;
        c.until(|v| v["re"] == id.as_str() && v["type"] == "state").await;
    }
    c.cmd("quit", "q").await;
    c.closed().await;
}

#[tokio::test]
async fn the_fsm_policy_fights_what_it_can_flees_what_it_cannot_and_survives() {
    let s = TestServer::start_with(fast).await;
    let key = s.key("ula").await;
    park_in_lair(&s, "ula", &key).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = agent_cfg(&s, "ula", &key);
    let mut o = opts(Policy::Fsm);
    o.duration = Some(Duration::from_secs(30)); // five minutes of game time at 10 ms pulses
    o.log_dir = Some(dir.path().to_path_buf());
    let (r, text) = play(&cfg, o).await;
    let lines = log_lines(&r);
    let why = || format!("{}\n{text}", r.render());
    assert!(r.turns >= 4, "{}", why());
    assert_eq!(r.seq_gaps, 0, "{}", why());
    assert!(r.quit_clean, "the session ends with quit: {}", why());
    // It fights only what `consider` called an even match or easier: every attack
    // follows a consider of that target, and nothing above it was attacked.
    assert!(lines.iter().any(|l| l["action"] == "kill" && l["args"] == "bear"), "{}", why());
    for (i, l) in lines.iter().enumerate().filter(|(_, l)| l["action"] == "kill" && l["source"] == "planner") {
        assert!(lines[..i].iter().any(|c| c["action"] == "consider" && c["args"] == l["args"]), "attacked unconsidered: {l}");
    }
    for l in &lines {
        assert!(
            !(l["action"] == "kill" && ["dragon", "guildmaster", "fiend"].contains(&l["args"].as_str().unwrap_or(""))),
            "attacked a mob far above it: {l}"
        );
    }
    // The bear wore it down and the survival FSM fled under 25 %.
    let flee = lines.iter().find(|l| l["action"] == "flee" && l["source"] == "fsm").unwrap_or_else(|| panic!("never fled: {}", why()));
    assert!(flee["hp"].as_i64().unwrap() * 4 < flee["max_hp"].as_i64().unwrap(), "fled at {flee}");
    assert!(flee["valence"].as_i64().unwrap() <= 0, "{flee}");
    // Alive at the end, or back at the temple after each death.
    if r.deaths > 0 {
        assert!(lines.iter().any(|l| l["room_vnum"] == 8004), "died but never respawned at the temple: {}", why());
    }
    // Every line has the seed's fields.
    for l in &lines {
        for f in pawns::record::export::SEED_FIELDS.iter().chain(&["tokens"]) {
            assert!(l.get(*f).is_some(), "{f} missing in {l}");
        }
    }
    assert!(text.contains("> flee"), "{text}");
    // The server recorded a clean logout: the character is not left link-dead.
    let (_, who) = http_get(s.addr, "/api/who").await;
    assert!(!who.to_ascii_lowercase().contains("ula"), "{who}");
    s.shutdown().await;
}

#[tokio::test]
async fn an_llm_chooses_the_commands_and_speech_with_its_own_key_and_a_fallback_model() {
    // The fast model is down (500) for the first two requests, then times out once; the
    // fallback answers. The answers come wrapped the ways real models wrap them.
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let c2 = calls.clone();
    let (endpoint, seen) = llm_stub_with(move |req: &Value| {
        let n = c2.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        match req["model"].as_str() {
            Some("fast-model") if n < 2 => StubAnswer::Status(500),
            Some("fast-model") if n < 4 => StubAnswer::Slow(Duration::from_secs(3)),
            Some("fast-model") => {
                StubAnswer::Text("Sure! Here you go:\n```json\n{\"command\": \"look\", \"say\": \"Hello from the model\"}\n```".into())
            }
            _ => StubAnswer::Text("{\"command\": \"look\", \"say\": \"Hello from the fallback\"}".into()),
        }
    })
    .await;
    let s = TestServer::start_with(fast).await;
    let key = s.key("ula").await;
    let bram = s.key("bram").await;
    let mut listener = WsClient::connect(s.addr).await;
    listener.login_key("bram", &bram).await;
    let mut cfg = agent_cfg(&s, "ula", &key);
    cfg.llm_endpoint = endpoint;
    cfg.llm_key = "llm-secret".into();
    cfg.model_fast = "fast-model".into();
    cfg.model_fallback = "fallback-model".into();
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(Policy::Llm);
    o.max_turns = Some(4);
    o.llm_timeout = Duration::from_millis(800);
    o.log_dir = Some(dir.path().to_path_buf());
    let (r, text) = play(&cfg, o).await;
    // Bram, in the same room, hears what the model said.
    listener.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Hello from the fallback"))).await;
    let lines = log_lines(&r);
    assert_eq!(r.by_llm, 4, "{}\n{text}", r.render());
    assert!(r.fallback_used >= 2, "{}\n{text}", r.render());
    assert!(lines.iter().all(|l| l["action"] == "look" && l["source"] == "llm"), "{lines:?}");
    assert_eq!(lines[0]["model"], "fallback-model");
    assert_eq!(lines[0]["say_line"], "Hello from the fallback");
    assert!(lines[0]["tokens"].as_u64().unwrap() > 50, "{}", lines[0]);
    assert!(lines.iter().any(|l| l["model"] == "fast-model" && l["say_line"] == "Hello from the model"), "{lines:?}");
    assert!(text.contains("timed out"), "{text}");
    let reqs = seen.lock().unwrap().clone();
    assert!(reqs.iter().all(|q| q.contains("Bearer llm-secret") && !q.contains(&key)), "the game key never goes to the LLM");
    assert!(reqs[0].contains("/v1/chat/completions") && reqs[0].contains("The Test Temple"), "{}", reqs[0]);
    // The server recorded how each decision was made (the client attaches it).
    let recorded = eventually("four looks recorded", || async {
        let recorded = http_get(s.addr, "/api/export?what=decisions&agent=ula").await.1;
        (recorded.matches("\"command\":\"look\"").count() >= 4).then_some(recorded)
    })
    .await;
    let with_tokens = recorded
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|d| d["decision"]["command"] == "look" && d["decision"]["client"]["tokens_prompt"].as_u64().is_some_and(|t| t > 50))
        .count();
    assert!(with_tokens >= 4, "each model decision carries its token count to the record:\n{recorded}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_dropped_socket_is_resumed_with_no_seq_gap() {
    let s = TestServer::start_with(fast).await;
    let key = s.key("ula").await;
    park_in_lair(&s, "ula", &key).await;
    let proxy = Proxy::start(s.addr).await;
    let mut cfg = agent_cfg(&s, "ula", &key);
    cfg.game_port = proxy.addr.port();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut o = opts(Policy::Fsm);
    o.stop = Some(stop_rx);
    o.duration = Some(Duration::from_secs(30));
    let session = tokio::spawn(async move { play(&cfg, o).await });
    // While it fights the bear, the server's messages are lost on the wire, then the
    // link drops.
    until_online(s.addr, "ula", true).await;
    proxy.freeze();
    // A few frames lost on the wire, then the link drops.
    eventually("the server sent frames while the wire was frozen", || async { (proxy.discarded() > 0).then_some(()) }).await;
    let lost = proxy.discarded();
    proxy.cut();
    // The client reconnects, resumes (what was lost comes again) and plays on: the server's
    // answers to its new commands come through, well past the replay.
    eventually("the client resumed and played on", || async { (proxy.delivered() > lost + 2048).then_some(()) }).await;
    stop_tx.send(true).unwrap();
    let (r, text) = session.await.unwrap();
    let why = format!("{}\n{text}", r.render());
    assert!(r.reconnects >= 1 && r.resumed >= 1, "{why}");
    assert_eq!(r.resume_refused, 0, "{why}");
    assert_eq!(r.seq_gaps, 0, "the messages lost on the wire were replayed: {why}");
    assert!(text.contains("reconnected and resumed"), "{text}");
    assert!(r.quit_clean, "{why}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_server_gone_for_good_opens_the_circuit_and_a_takeover_stops_at_once() {
    let s = TestServer::start_with(fast).await;
    let key = s.key("ula").await;
    let cfg = agent_cfg(&s, "ula", &key);
    // Taken over: another login for the same character ends this session, no retry.
    let o = opts(Policy::Fsm);
    let c2 = cfg.clone();
    let session = tokio::spawn(async move { run(&c2, o, &mut Vec::new()).await });
    until_online(s.addr, "ula", true).await;
    let mut other = WsClient::connect(s.addr).await;
    other.login_key("ula", &key).await;
    let err = tokio::time::timeout(WAIT, session).await.expect("it stops").unwrap().unwrap_err();
    assert_eq!(err.code(), "session_taken_over", "{err}");
    drop(other);
    // The server goes away: the same failure five times in a row opens the circuit.
    let o = opts(Policy::Fsm);
    let session = tokio::spawn(async move { run(&cfg, o, &mut Vec::new()).await });
    // (A fixed wait: the link-dead character is still listed, so `who` cannot tell when
    // this login has taken it back.)
    tokio::time::sleep(Duration::from_millis(800)).await;
    let t0 = Instant::now();
    s.shutdown().await;
    let err = tokio::time::timeout(WAIT, session).await.expect("it gives up").unwrap().unwrap_err();
    assert_eq!(err.code(), "circuit_open", "{err}");
    assert!(err.to_string().contains("5 times in a row") && err.to_string().contains("cannot connect"), "{err}");
    // Backoff: 100 ms doubling (with jitter, at least half of each wait) before giving up.
    assert!(t0.elapsed() >= Duration::from_millis(50 + 100 + 200 + 400), "{:?}", t0.elapsed());
}

fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_pawns"))
}

fn write_cfg(dir: &std::path::Path, cfg: &AgentConfig) -> std::path::PathBuf {
    let p = dir.join("agent.json");
    cfg.save(&p).unwrap();
    p
}

#[tokio::test]
async fn exec_prints_the_feedback_and_config_keeps_the_key_masked() {
    let s = TestServer::start_with(fast).await;
    let key = s.key("ula").await;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("agent.json");
    let port = s.addr.port().to_string();
    let run = |args: Vec<&str>| {
        let mut c = bin();
        c.arg("agent").arg("--config").arg(&p).args(args).env_remove("PAWNS_AGENT_KEY").env_remove("DP_KEY");
        async move { tokio::task::spawn_blocking(move || c.output().unwrap()).await.unwrap() }
    };
    let o = run(vec!["config", "--key", &key, "--player-name", "ula", "--game-host", "127.0.0.1", "--game-port", &port]).await;
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let shown = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!shown.contains(&key) && shown.contains("dp_"), "{shown}");
    let o = run(vec!["exec", "look"]).await;
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("The Test Temple") && out.contains("The fire burns"), "{out}");
    let o = run(vec!["exec", "hit", "nobody"]).await;
    assert!(String::from_utf8_lossy(&o.stdout).contains("They aren't here."), "{}", String::from_utf8_lossy(&o.stdout));
    let o = run(vec!["whoami"]).await;
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success() && out.contains("it plays ula"), "{out}{}", String::from_utf8_lossy(&o.stderr));
    // Each exec quit cleanly: nobody is left in the world.
    let (_, who) = http_get(s.addr, "/api/who").await;
    assert_eq!(who.trim(), "[]");
    // Bad input: a wrong key, a bad tier, an unreachable server — each a clear error.
    let o = run(vec!["config", "--tier", "huge"]).await;
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("tier must be one of"));
    let bad = format!("dp_{}", "0".repeat(64));
    let mut c = bin();
    c.args(["agent", "--config"]).arg(&p).args(["exec", "look"]).env("PAWNS_AGENT_KEY", &bad);
    let o = tokio::task::spawn_blocking(move || c.output().unwrap()).await.unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success() && err.contains("[auth_failed]"), "{err}");
    let mut c = bin();
    c.args(["agent", "--config"]).arg(&p).arg("whoami").env("PAWNS_AGENT_KEY", &bad);
    let o = tokio::task::spawn_blocking(move || c.output().unwrap()).await.unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success() && err.contains("[auth_failed] the server does not accept this key"), "{err}");
    let o = run(vec!["exec", "look", "--port", "1"]).await;
    assert!(!o.status.success(), "--port is not an exec flag");
    s.shutdown().await;
}

#[tokio::test]
async fn ctrl_c_leaves_cleanly_with_the_log_flushed() {
    let s = TestServer::start_with(fast).await;
    let key = s.key("ula").await;
    let dir = tempfile::tempdir().unwrap();
    let p = write_cfg(dir.path(), &agent_cfg(&s, "ula", &key));
    let logs = dir.path().join("logs");
    let child = bin()
        .args(["agent", "--config"])
        .arg(&p)
        .args(["session", "--duration", "10m", "--policy", "fsm", "--pace", "50ms", "--log-dir"])
        .arg(&logs)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // In the world and acting: three of its commands recorded (so it has answered two
    // turns and logged them).
    eventually("ula's first three commands recorded", || async {
        let decisions = http_get(s.addr, "/api/export?what=decisions&agent=ula").await.1;
        (decisions.matches("\"command\":").count() >= 3).then_some(())
    })
    .await;
    let pid = child.id().to_string();
    std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("> quit") && stdout.contains("Session ended (stopped)"), "{stdout}");
    let (_, who) = http_get(s.addr, "/api/who").await;
    assert!(!who.contains("ula"), "quit, not link-dead: {who}");
    let files: Vec<_> = std::fs::read_dir(logs.join("ula")).unwrap().collect();
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(files[0].as_ref().unwrap().path()).unwrap();
    assert!(text.lines().count() >= 2, "{text}");
    for l in text.lines() {
        serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("a torn line {l:?}: {e}"));
    }
    s.shutdown().await;
}

#[tokio::test]
async fn a_session_dreams_on_logout_and_the_next_sessions_first_llm_request_remembers() {
    // The stand-in model plays by what the prompt shows: to the yard, then the dummy.
    let (endpoint, seen) = llm_stub_with(|req: &Value| {
        let user = req["messages"][1]["content"].as_str().unwrap_or("");
        let cmd = if user.contains("[dummy]") {
            "kill dummy"
        } else if user.contains("Room 8004") {
            "east"
        } else {
            "look"
        };
        StubAnswer::Text(json!({"command": cmd}).to_string())
    })
    .await;
    let s = TestServer::start_with(fast).await;
    let key = s.key("ula").await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = agent_cfg(&s, "ula", &key);
    cfg.llm_endpoint = endpoint;
    cfg.model_fast = "stub".into();
    let p = write_cfg(dir.path(), &cfg);
    // Session one: the real binary, a timed session with its log.
    let logs = dir.path().join("logs");
    let mut c = bin();
    c.args(["agent", "--config"]).arg(&p).args(["session", "--duration", "6s", "--pace", "50ms", "--log-dir"]).arg(&logs);
    let out = tokio::task::spawn_blocking(move || c.output().unwrap()).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("You killed a straw dummy") || stdout.contains("straw dummy is dead"), "{stdout}");
    assert!(stdout.contains("Session ended (duration reached)"), "{stdout}");
    let first_session_requests = seen.lock().unwrap().len();
    assert!(first_session_requests >= 2);
    assert!(!seen.lock().unwrap()[0].contains("## Memory"), "no memory yet in session one");
    // The server dreams on the logout by itself.
    let memory = memory_of(&s, "ula").await;
    assert_eq!(memory["last_dream"]["trigger"], "logout");
    // Session two: its first request to the model carries that memory.
    let mut o = opts(Policy::Llm);
    o.max_turns = Some(1);
    let (r, _) = play(&cfg, o).await;
    assert!(r.memory_tokens > 0);
    let second = seen.lock().unwrap()[first_session_requests].clone();
    let body: Value = serde_json::from_str(&second[second.find("\r\n\r\n").unwrap() + 4..]).unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("## Memory") && system.contains("straw dummy"), "{system}");
    // And `pawns agent dream` hands off to the server with the agent's own key.
    let mut c = bin();
    c.args(["agent", "--config"]).arg(&p).args(["dream", "--json"]);
    let out = tokio::task::spawn_blocking(move || c.output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["agent"].as_str(), v["trigger"].as_str()), (Some("ula"), Some("agent")));
    s.shutdown().await;
}

/// `pawns agent play --context hud`: the built-in client takes the HUD, asks the model
/// (the stand-in) with the HUD as its prompt, and sends the answer back as actions.
#[tokio::test]
async fn play_from_the_hud_sends_the_models_actions() {
    let s = TestServer::start_with(fast).await;
    let key = s.key("hudson").await;
    let (endpoint, seen) = llm_stub(
        "{\"responses\":[{\"room_id\":\"here\",\"message\":\"Hello from the HUD.\"}],\"actions\":[{\"type\":\"command\",\"command\":\"east\"},{\"type\":\"teleport\"}]}",
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = agent_cfg(&s, "hudson", &key);
    cfg.llm_endpoint = endpoint;
    cfg.model_fast = "stand-in".into();
    let p = write_cfg(dir.path(), &cfg);
    let mut c = bin();
    c.arg("agent").arg("--config").arg(&p).args(["play", "--context", "hud", "--hud-format", "toon", "--turns", "1"]);
    c.env_remove("PAWNS_AGENT_KEY").env_remove("DP_KEY");
    let o = tokio::time::timeout(WAIT * 2, tokio::task::spawn_blocking(move || c.output().unwrap())).await.unwrap().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("[turn 1]") && out.contains("Hello from the HUD."), "{out}");
    assert!(out.contains("refused #2") && out.contains("unknown_action"), "the server's refusal is shown: {out}");
    assert!(out.contains("1 turns"), "{out}");
    // The model was given the HUD, in TOON, as its user message.
    let asked = seen.lock().unwrap()[0].clone();
    assert!(asked.contains("rooms[") && asked.contains("identity"), "{asked}");
    // Without an endpoint, a clear error.
    let mut cfg = agent_cfg(&s, "hudson", &key);
    cfg.llm_endpoint = String::new();
    let p = write_cfg(dir.path(), &cfg);
    let mut c = bin();
    c.arg("agent").arg("--config").arg(&p).args(["play", "--context", "hud"]).env_remove("PAWNS_AGENT_KEY").env_remove("DP_KEY");
    let o = tokio::task::spawn_blocking(move || c.output().unwrap()).await.unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("needs a model"), "{}", String::from_utf8_lossy(&o.stderr));
    s.shutdown().await;
}

/// `pawns agent create --db`: a resident kept in a file no server holds, refused twice,
/// and refused with a clear error for a bad definition.
#[tokio::test]
async fn agent_create_writes_a_resident_into_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.redb");
    let run = |args: &[&str]| {
        let mut c = bin();
        c.arg("agent").args(args).arg("--db").arg(&db);
        c.output().unwrap()
    };
    let o = run(&["create", "--name", "Warden", "--role", "guards the gate", "--can-create-agents"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Warden (bot) is kept"), "{}", String::from_utf8_lossy(&o.stdout));
    let o = run(&["create", "--name", "warden", "--persona", "again"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("name_taken"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["create", "--name", "x y", "--persona", "p"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("invalid_name"));
    let o = run(&["create", "--name", "Both", "--persona", "p", "--role", "r"]);
    assert!(!o.status.success(), "persona and role conflict");
    let (store, _) = pawns_storage::Store::open(&db).unwrap();
    let r = store.resident("warden").unwrap().unwrap();
    assert_eq!((r.kind.as_str(), r.prompt.as_str(), r.can_create_agents, r.created_by.as_str()), ("bot", "guards the gate", true, "admin"));
}

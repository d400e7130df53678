//! Memory end to end: an agent plays, logs out, dreams by itself, and is told at its
//! next login what happened — through the real server, the real recorder and dreamer.

use std::time::Duration;

use serde_json::{json, Value};

use super::common::*;

fn fast(cfg: &mut pawns::server::ServerConfig) {
    cfg.cmd_rate = 1000.0;
    cfg.cmd_burst = 1000.0;
    cfg.engine.pulse = Duration::from_millis(10);
    cfg.dream_daily = None;
}

struct Agent {
    c: WsClient,
    n: u32,
    hp: i64,
    max_hp: i64,
}

impl Agent {
    async fn login(s: &TestServer, name: &str, key: &str) -> (Agent, Vec<Value>) {
        let mut c = WsClient::connect(s.addr).await;
        let st = c.login_key(name, key).await;
        let vars = c.expect("vars").await;
        let mut after = vec![];
        // Whatever comes before the welcome text: memory messages, if any.
        loop {
            let v = c.next().await;
            let welcome = v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains("Welcome"));
            after.push(v);
            if welcome {
                break;
            }
        }
        let max_hp = st["data"]["player"]["max_health"].as_i64().unwrap();
        let hp = vars["data"]["HEALTH"].as_i64().unwrap();
        c.send(json!({"type": "subscribe", "data": {"variables": ["HEALTH", "MAX_HEALTH"]}})).await;
        (Agent { c, n: 0, hp, max_hp }, after)
    }

    async fn send(&mut self, cmd: &str) -> String {
        self.n += 1;
        let id = format!("c{}", self.n);
        self.c.cmd(cmd, &id).await;
        id
    }

    fn track(&mut self, v: &Value) {
        if v["type"] == "vars" {
            if let Some(h) = v["data"]["HEALTH"].as_i64() {
                self.hp = h;
            }
            if let Some(m) = v["data"]["MAX_HEALTH"].as_i64() {
                self.max_hp = m;
            }
        }
    }

    async fn go(&mut self, dir: &str) -> u64 {
        let id = self.send(dir).await;
        loop {
            let v = self.c.next().await;
            self.track(&v);
            if v["re"] == id.as_str() && v["type"] == "state" {
                return v["data"]["room"]["vnum"].as_u64().unwrap();
            }
        }
    }

    /// Reads until an event's text contains `needle`.
    async fn hear(&mut self, needle: &str) -> Value {
        loop {
            let v = self.c.next().await;
            self.track(&v);
            if v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.contains(needle)) {
                return v;
            }
        }
    }

    /// Attacks `target` and waits for it to die.
    async fn kill(&mut self, target: &str, dead: &str) {
        self.send(&format!("kill {target}")).await;
        self.hear(dead).await;
    }
}

fn pos(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap_or_else(|| panic!("the summary should say {needle:?}:\n{text}"))
}

#[tokio::test]
async fn an_agent_remembers_its_last_session_at_its_next_login() {
    let s = TestServer::start_with(fast).await;
    let (mira_key, bram_key) = (s.key("mira").await, s.key("bram").await);
    let (mut mira, first) = Agent::login(&s, "mira", &mira_key).await;
    assert!(first.iter().all(|v| !v["type"].as_str().unwrap().starts_with("memory")), "no memory before any dream: {first:?}");

    // A straw dummy (same level: a challenge); a sleeping dragon (far above her level).
    assert_eq!(mira.go("east").await, 8005);
    mira.kill("dummy", "is dead").await;
    assert_eq!(mira.go("east").await, 8011);
    if mira.max_hp < 21 {
        // One hit point must be under 5 % of her maximum: an idol's experience raises it.
        mira.kill("idol", "is dead").await;
    }
    assert_eq!(mira.go("east").await, 8012);
    mira.kill("dragon", "is dead").await;
    // Then the grizzly bear, hit by hit, down to under 5 % of her hit points, and away.
    mira.send("kill bear").await;
    let mut fleeing: Option<String> = None;
    loop {
        let v = mira.c.next().await;
        mira.track(&v);
        if v["type"] == "state" && v["data"]["room"]["vnum"] == 8011 {
            break;
        }
        let panic = v["data"]["text"].as_str().is_some_and(|t| t.contains("couldn't escape"));
        if fleeing.as_deref().is_some_and(|id| v["re"] == id && panic) {
            fleeing = None;
        }
        if mira.hp * 100 < mira.max_hp * 5 && fleeing.is_none() {
            fleeing = Some(mira.send("flee").await);
        }
        assert!(mira.hp > 0, "the bear was to leave mira alive");
    }

    // Bram brings a sword, greets her, and gives it to her.
    let (mut bram, _) = Agent::login(&s, "bram", &bram_key).await;
    assert_eq!(bram.go("east").await, 8005);
    let id = bram.send("get sword").await;
    bram.c.reply_text(&id).await;
    assert_eq!(bram.go("east").await, 8011);
    bram.send("say Well met, Mira! Glad to see you alive.").await;
    bram.send("give sword mira").await;
    mira.hear("gives you").await;
    mira.send("say Thank you, Bram, my friend!").await;
    bram.hear("Thank you").await;
    mira.send("quit").await;
    mira.c.closed().await;

    // She dreams by herself (her logout), and the API shows it.
    let m = memory_of(&s, "mira").await;
    // Each step is its own move on the world map (two commands in one pulse once
    // shared a post-state: the yard's east exit seemed to lead to the lair).
    let rooms = &m["profile"]["map"]["rooms"];
    assert_eq!(rooms["8005"]["exits"]["east"], 8011, "{rooms}");
    assert_eq!(rooms["8011"]["exits"]["east"], 8012, "{rooms}");
    assert_eq!(m["last_dream"]["trigger"], "logout", "{m}");
    assert!(m["last_dream"]["events_extracted"].as_u64().unwrap() >= 5, "{m}");

    // At the next login: memory_bootstrap, then memory_summary, right after vars.
    let (mut again, after) = Agent::login(&s, "mira", &mira_key).await;
    assert_eq!(after[0]["type"], "memory_bootstrap", "{after:?}");
    assert_eq!(after[1]["type"], "memory_summary", "{after:?}");
    let boot = &after[0]["data"];
    assert!(boot["block"].as_str().unwrap().starts_with("### Session 1 — "), "{boot}");
    assert!(boot["count"].as_u64().unwrap() >= 5, "{boot}");
    assert_eq!(boot["summaries"], 1);
    let summary = after[1]["summary"].as_str().unwrap();
    assert_eq!(after[1]["data"]["summary"], summary, "the text twice (protocol §7)");
    assert!(summary.starts_with("## Memory\n"), "{summary}");
    // In the order it happened, with the parentheticals the valence tables give.
    let dummy = pos(summary, "Killed a straw dummy in The Training Yard (noteworthy).");
    let dragon = pos(summary, "Killed a sleeping dragon in The Dragon's Lair (a significant moment).");
    let hurt = pos(summary, "while fighting a grizzly bear in The Dragon's Lair (a harrowing moment).");
    let fled = pos(summary, "Fled from a grizzly bear in The Dragon's Lair at");
    let gift = pos(summary, "Bram gave you a test sword in The Treasury (noteworthy).");
    assert!(dummy < dragon && dragon < hurt && hurt < fled && fled < gift, "{summary}");
    let rel = pos(summary, "### Relationships");
    let bram_line =
        summary[rel..].lines().find(|l| l.starts_with("Bram — ")).unwrap_or_else(|| panic!("Bram in Relationships:\n{summary}"));
    assert!(bram_line.contains("gave you a test sword"), "{bram_line}");
    assert!(pos(summary, "### Self") < dummy, "{summary}");
    assert!(summary.contains("### World map"), "{summary}");
    assert!(pawns_graph::count_tokens(summary) <= 500, "within the default budget");

    // The ids injected are stored with the new session (on its first decision).
    let ids = &m["memory_ids"];
    assert!(!ids.as_array().unwrap().is_empty());
    let id = again.send("look").await;
    again.c.until(|v| v["re"] == id.as_str() && v["type"] == "state").await;
    again.send("quit").await;
    again.c.closed().await;
    let first = eventually("the second session's decisions recorded", || async {
        let (status, body) = http_get(s.addr, "/api/export?what=decisions&agent=mira").await;
        assert_eq!(status, 200, "{body}");
        let last: Vec<Value> = body.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let newest = last.iter().map(|l| l["session"].as_u64().unwrap()).max().unwrap();
        last.into_iter().find(|l| l["session"] == newest && l["decision"]["turn"] == 1).filter(|f| f["decision"]["command"] == "look")
    })
    .await;
    assert_eq!(&first["decision"]["memory_ids"], ids, "{first}");
    s.shutdown().await;
}

#[tokio::test]
async fn dreaming_again_changes_nothing_and_the_api_checks_its_callers() {
    let s = TestServer::start_with(fast).await;
    let key = s.key("tova").await;
    let (mut a, _) = Agent::login(&s, "tova", &key).await;
    assert_eq!(a.go("east").await, 8005);
    a.kill("dummy", "is dead").await;
    a.send("quit").await;
    a.c.closed().await;
    let first = memory_of(&s, "tova").await;
    let (status, body) = http_post(s.addr, "/api/admin/dream?agent=tova").await;
    assert_eq!(status, 200, "{body}");
    let again: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(again["events_extracted"], 0, "{again}");
    assert_eq!(again["nodes_after"], first["last_dream"]["nodes_after"]);
    let after = memory_of(&s, "tova").await;
    assert_eq!(after["graph"], first["graph"], "a second dream on the same record changes nothing");
    assert_eq!(after["summary"], first["summary"]);

    let (status, body) = http_post(s.addr, "/api/admin/dream?agent=nobody").await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("no_such_agent"), "{body}");
    let (status, body) = http_post(s.addr, "/api/admin/dream").await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = http_get(s.addr, "/api/agents/bad%20name/memory").await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = http_get(s.addr, "/api/agents/zed/memory").await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("no_memory"));
    s.shutdown().await;
}

/// A tiny OpenAI-compatible endpoint: answers every chat completion with `reply` (or
/// with HTTP 500 when `reply` is empty), and keeps the requests it got.
#[tokio::test]
async fn an_llm_writes_the_chronicle_and_a_failing_one_changes_nothing() {
    for (reply, works) in [("```\nUla fought a straw dummy and won.\n```", true), ("", false)] {
        let (endpoint, seen) = llm_stub(reply).await;
        let s = TestServer::start_with(|cfg| {
            fast(cfg);
            cfg.dream_opts.llm = Some(pawns::memory::llm::LlmConfig {
                endpoint: endpoint.clone(),
                model: "stub-model".into(),
                key: Some("llm-secret".into()),
                timeout: Duration::from_secs(5),
            });
        })
        .await;
        let key = s.key("ula").await;
        let (mut a, _) = Agent::login(&s, "ula", &key).await;
        assert_eq!(a.go("east").await, 8005);
        a.kill("dummy", "is dead").await;
        a.send("quit").await;
        a.c.closed().await;
        let m = memory_of(&s, "ula").await;
        let summary = m["summary"].as_str().unwrap();
        let asked = seen.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "one request per dream");
        assert!(asked[0].starts_with("POST /v1/chat/completions"), "{}", asked[0]);
        assert!(asked[0].to_ascii_lowercase().contains("authorization: bearer llm-secret"), "the LLM's own key");
        assert!(!asked[0].contains(&key), "never the game key");
        assert!(asked[0].contains("stub-model") && asked[0].contains("straw dummy"), "{}", asked[0]);
        if works {
            assert!(summary.contains("### Chronicle\n\nUla fought a straw dummy and won.\n"), "{summary}");
            assert_eq!(m["last_dream"]["chronicle"], true);
        } else {
            assert!(!summary.contains("Chronicle"), "{summary}");
            assert_eq!(m["last_dream"]["chronicle"], false);
        }
        assert!(summary.contains("Killed a straw dummy"), "{summary}");
        s.shutdown().await;
    }
}

#[tokio::test]
async fn an_agent_still_playing_dreams_when_its_record_passes_the_threshold() {
    let s = TestServer::start_with(|cfg| {
        fast(cfg);
        cfg.dream_threshold = 20;
    })
    .await;
    let key = s.key("wren").await;
    let (mut a, _) = Agent::login(&s, "wren", &key).await;
    for _ in 0..6 {
        assert_eq!(a.go("east").await, 8005);
        assert_eq!(a.go("west").await, 8004);
    }
    // Still logged in: the size threshold, not a logout, made it dream.
    let m = memory_of(&s, "wren").await;
    assert_eq!(m["last_dream"]["trigger"], "threshold", "{m}");
    assert!(m["profile"]["map"]["rooms"]["8004"]["exits"]["east"] == 8005, "{m}");
    s.shutdown().await;
}

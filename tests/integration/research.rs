//! Research tooling over the real server: what every decision records for the metrics
//! (the stimulus, the memory about it), and the commands that read the record.

use std::time::Duration;

use serde_json::{json, Value};

use super::common::*;

pub(crate) fn fast_research(cfg: &mut pawns::server::ServerConfig) {
    cfg.cmd_rate = 1000.0;
    cfg.cmd_burst = 1000.0;
    cfg.engine.pulse = Duration::from_millis(10);
    cfg.dream_daily = None;
}

async fn login(s: &TestServer, name: &str, key: &str, valence: bool) -> (WsClient, u64) {
    let mut c = WsClient::connect(s.addr).await;
    c.send(json!({"type": "login", "data": {"player_name": name, "password": key, "is_agent": true, "valence": valence}})).await;
    let room = c.expect("state").await["data"]["room"]["vnum"].as_u64().unwrap();
    (c, room)
}

/// Walks from the temple to the dragon's lair (8012), where the grizzly bear lives.
async fn to_the_lair(c: &mut WsClient) {
    for (i, want) in [8005, 8011, 8012].into_iter().enumerate() {
        assert_eq!(c.room_after("east", &format!("walk{i}")).await, want);
    }
}

/// The agent's decisions as the export gives them, once `command` is among them.
async fn decisions_until(s: &TestServer, agent: &str, command: &str, count: usize) -> Vec<Value> {
    eventually(&format!("{agent}: {count} × {command} recorded"), || async {
        let (status, body) = http_get(s.addr, &format!("/api/export?what=decisions&agent={agent}")).await;
        assert_eq!(status, 200, "{body}");
        let all: Vec<Value> = body.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (all.iter().filter(|d| d["decision"]["command"] == command).count() >= count).then_some(all)
    })
    .await
}

/// Dies to the bear, walks back and looks at it; then logs out (and dreams).
pub(crate) async fn die_and_return(s: &TestServer, name: &str, key: &str, valence: bool) {
    let (mut c, _) = login(s, name, key, valence).await;
    to_the_lair(&mut c).await;
    c.cmd("kill bear", "attack").await;
    c.hear("You are dead").await;
    to_the_lair(&mut c).await;
    c.cmd("look", "again").await;
    c.until(|v| v["re"] == "again" && v["type"] == "state").await;
    c.cmd("quit", "bye").await;
    c.closed().await;
}

#[tokio::test]
async fn a_decision_records_who_it_faced_and_the_memory_it_was_given_about_them() {
    let s = TestServer::start_with(fast_research).await;
    for (name, valence) in [("vex", true), ("wren", false)] {
        let key = s.key(name).await;
        die_and_return(&s, name, &key, valence).await;
        let first = decisions_until(&s, name, "look", 1).await;
        let looked = first.iter().find(|d| d["decision"]["command"] == "look").unwrap();
        let st = &looked["decision"]["stimulus"];
        // Met again in the same session: a killer, but no memory was given of it.
        assert_eq!(st["kind"], "killer", "{looked}");
        assert_eq!(st["target"], "a grizzly bear", "{looked}");
        assert_eq!(st["memory_id"], Value::Null, "{looked}");
        let attack = first.iter().find(|d| d["decision"]["command"] == "kill").unwrap();
        assert_eq!(attack["decision"]["stimulus"]["kind"], "stranger", "{attack}");

        // The logout's dream; then the next session is given the memory of the death.
        let m = memory_of(&s, name).await;
        assert_eq!(m["last_dream"]["trigger"], "logout", "{m}");
        // It left from the lair, and comes back there.
        let (mut c, room) = login(&s, name, &key, valence).await;
        assert_eq!(room, 8012);
        c.cmd("look", "remember").await;
        c.until(|v| v["re"] == "remember" && v["type"] == "state").await;
        c.cmd("quit", "bye").await;
        c.closed().await;
        let all = decisions_until(&s, name, "look", 2).await;
        let looked = all.iter().rev().find(|d| d["decision"]["command"] == "look").unwrap();
        let st = &looked["decision"]["stimulus"];
        assert_eq!(st["kind"], "killer", "{looked}");
        assert!(st["memory_id"].as_str().is_some_and(|id| id.starts_with("ev:")), "{looked}");
        // As injected: felt (a death is −3) or, in the ablation, recorded with valence 0.
        assert_eq!(st["memory_valence"], if valence { json!(-3.0) } else { json!(0.0) }, "{looked}");
    }
    s.shutdown().await;
}

pub(crate) fn pawns_bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_pawns"))
}

pub(crate) async fn output(mut c: std::process::Command) -> (bool, String, String) {
    let o = tokio::time::timeout(WAIT * 6, tokio::task::spawn_blocking(move || c.output().unwrap())).await.unwrap().unwrap();
    (o.status.success(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

pub(crate) fn read_json(p: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

/// The report a run of `pawns eval`/`experiment` wrote: every file there, both arms.
fn check_report(dir: &std::path::Path, agents: u64, memories: bool, want_arms: &[&str]) -> Value {
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for section in ["## Behavioral Persistence Score", "## Social Consequence Score", "## Salience decay", "## Cost"] {
        assert!(md.contains(section), "{section}:\n{md}");
    }
    for svg in ["bps.svg", "scs.svg", "decay.svg", "cost.svg"] {
        let s = std::fs::read_to_string(dir.join(svg)).unwrap();
        assert!(s.starts_with("<svg") && md.contains(&format!("({svg})")), "{svg}");
    }
    let e = read_json(&dir.join("evaluation.json"));
    assert_eq!(e["sample"]["agents"], agents, "{}", e["sample"]);
    let arms: Vec<&str> = e["arms"].as_array().unwrap().iter().map(|a| a[0].as_str().unwrap()).collect();
    assert_eq!(arms, want_arms, "{}", e["arms"]);
    assert!(md.contains("## Data quality"), "{md}");
    assert!(e["sample"]["decisions"].as_u64().unwrap() > 10, "{}", e["sample"]);
    // Every session was dreamed: the dream log has them, and memories in decay bands.
    assert!(e["sample"]["dreams"].as_u64().unwrap() >= agents, "{}", e["sample"]);
    assert_eq!(!e["decay"].as_array().unwrap().is_empty(), memories, "{}", e["decay"]);
    for c in e["cost"].as_array().unwrap() {
        assert!(c["raw_tokens"].as_u64().unwrap() > 0 && c["summary_tokens"].as_u64().unwrap() > 0, "{c}");
    }
    e
}

#[tokio::test]
async fn an_experiment_with_the_planner_plays_both_arms_and_eval_reads_the_same_offline() {
    // A server run named by its operator, beside the experiment's own run.
    let s = TestServer::start_with(|c| {
        fast_research(c);
        c.run = Some("whole-server".into());
    })
    .await;
    let out = tempfile::tempdir().unwrap();
    let mut c = pawns_bin();
    c.args(["experiment", "--agents", "4", "--minutes", "0.4", "--session-minutes", "0.12", "--pace", "50ms", "--prefix", "pl"])
        .arg("--server")
        .arg(format!("http://{}", s.addr))
        .arg("--out")
        .arg(out.path());
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("4 agents (2 valence on, 2 off)") && stdout.contains("Report: "), "{stdout}");
    // fleet.json is the run as registered: what ran, with what, and what the fleet did.
    let fleet = read_json(&out.path().join("fleet.json"));
    assert!(fleet["fleet"]["sessions"].as_u64().unwrap() >= 8, "two sessions or more each: {fleet}");
    assert_eq!(fleet["fleet"]["failures"], json!([]), "{fleet}");
    assert_eq!((&fleet["kind"], &fleet["seed"], &fleet["pace_ms"]), (&json!("experiment"), &json!(1), &json!(50)), "{fleet}");
    assert!(fleet["command_line"].to_string().contains("--prefix") && fleet["world_digest"].as_str().unwrap().len() == 64, "{fleet}");
    assert!(fleet["version"].is_string() && fleet["ended_us"].as_u64() > fleet["started_us"].as_u64(), "{fleet}");
    let run = fleet["id"].as_str().unwrap().to_string();
    assert!(stdout.contains(&format!("Run {run} registered")), "{stdout}");
    let online = check_report(out.path(), 4, true, &["fsm/valence_off", "fsm/valence_on"]);
    // Every decision of the planner says why.
    let (_, body) = http_get(s.addr, "/api/export?what=decisions&agent=plon01").await;
    let without: Vec<&str> = body.lines().filter(|l| !l.contains("\"reason\":\"")).collect();
    assert!(without.is_empty(), "{without:?}");
    // The registry refuses what it cannot keep, with stable codes.
    for (body, status, code) in [
        (
            json!({"id": "whole-server", "kind": "experiment", "started_us": 0, "version": "", "command_line": [], "world": "", "world_digest": "", "arms": []}),
            409,
            "run_exists",
        ),
        (
            json!({"id": "no way!", "kind": "experiment", "started_us": 0, "version": "", "command_line": [], "world": "", "world_digest": "", "arms": []}),
            400,
            "bad_request",
        ),
        (json!({"kind": 3}), 400, "bad_request"),
    ] {
        let (st, b) = super::residents::post_json(s.addr, "/api/admin/runs", &body).await;
        assert_eq!((st, b["error"]["code"].as_str().or(b["code"].as_str())), (status, Some(code)), "{b}");
    }
    let (st, _) = http_get(s.addr, "/api/admin/runs/nothing-here").await;
    assert_eq!(st, 404);
    // The planner's decisions carry their stimuli.
    let (_, body) = http_get(s.addr, "/api/export?what=decisions&agent=plon01").await;
    let first: Value = serde_json::from_str(body.lines().next().unwrap()).unwrap();
    assert!(first["decision"]["stimulus"]["kind"].is_string(), "{first}");

    // Offline, on the data file the server left: the same numbers.
    let dir = s.shutdown_keep_dir().await;
    let offline = tempfile::tempdir().unwrap();
    let mut c = pawns_bin();
    c.args(["eval", "--run", &run]).arg("--db").arg(dir.path().join("test.redb")).arg("--out").arg(offline.path());
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("Evaluated 4 agents"), "{stdout}");
    let again = check_report(offline.path(), 4, true, &["fsm/valence_off", "fsm/valence_on"]);
    for part in ["sample", "bps", "scs", "decay", "trials", "quality"] {
        assert_eq!(again[part], online[part], "{part}");
    }
    // The same selection by hand: agents (repeated or comma-separated) and a time.
    let by_hand = tempfile::tempdir().unwrap();
    let mut c = pawns_bin();
    c.args(["eval", "--agents", "plon01,plon02", "--agents", "ploff01,ploff02"])
        .arg("--since")
        .arg(chrono::DateTime::from_timestamp_micros(fleet["started_us"].as_i64().unwrap()).unwrap().to_rfc3339())
        .arg("--db")
        .arg(dir.path().join("test.redb"))
        .arg("--out")
        .arg(by_hand.path());
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    let split = check_report(by_hand.path(), 4, true, &["valence_off", "valence_on"]);
    assert_eq!(split["sample"], online["sample"]);
    // The registry, offline: both runs, one shown, the two compared.
    let db = dir.path().join("test.redb");
    let mut c = pawns_bin();
    c.args(["runs", "list"]).arg("--db").arg(&db);
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok && stdout.contains("whole-server  serve") && stdout.contains(&format!("{run}  experiment")), "{stdout}{stderr}");
    assert!(stdout.contains("fsm/valence_on ×2"), "{stdout}");
    let mut c = pawns_bin();
    c.args(["runs", "show", &run]).arg("--db").arg(&db);
    let (ok, stdout, _) = output(c).await;
    assert!(
        ok && stdout.contains("seed 1, pace 50 ms") && stdout.contains("arm fsm/valence_off: policy fsm, valence off, 2 agents"),
        "{stdout}"
    );
    let mut c = pawns_bin();
    c.args(["runs", "compare", "whole-server", &run]).arg("--db").arg(&db);
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stderr}");
    assert!(stdout.contains("whole-server") && stdout.contains("decisions the game took") && stdout.contains("fsm/valence_on"), "{stdout}");
    let decisions = |line: &str| line.split_whitespace().skip(1).map(str::to_string).collect::<Vec<_>>();
    let row = stdout.lines().find(|l| l.starts_with("decisions ")).unwrap();
    assert_eq!(decisions(row)[0], decisions(row)[1], "the server run holds the experiment's decisions and no others: {stdout}");
    let mut c = pawns_bin();
    c.args(["runs", "compare", "whole-server", "nope"]).arg("--db").arg(&db);
    let (ok, _, stderr) = output(c).await;
    assert!(!ok && stderr.contains("no_such_run"), "{stderr}");
    // The server run was ended at shutdown.
    let mut c = pawns_bin();
    c.args(["runs", "show", "whole-server", "--json"]).arg("--db").arg(&db);
    let (_, stdout, _) = output(c).await;
    let whole: Value = serde_json::from_str(&stdout).unwrap();
    assert!(whole["ended_us"].as_u64() > Some(0) && whole["kind"] == "serve", "{whole}");
    // --json prints what the report was written from.
    let mut c = pawns_bin();
    c.args(["eval", "--json", "--by", "none"]).arg("--db").arg(dir.path().join("test.redb"));
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stderr}");
    let e: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(e["arms"][0][0], "all");

    // Bad input: clear errors with stable codes, nothing written.
    let db = dir.path().join("test.redb");
    for (args, code) in [
        (vec!["--by", "mood"], "bad_request"),
        (vec!["--since", "last tuesday"], "bad_request"),
        (vec!["--agents", "no such!"], "invalid_name"),
        (vec!["--agents", "nobody"], "no_sessions"),
    ] {
        let nowhere = tempfile::tempdir().unwrap();
        let mut c = pawns_bin();
        c.arg("eval").args(&args).arg("--db").arg(&db).arg("--out").arg(nowhere.path().join("r"));
        let (ok, _, stderr) = output(c).await;
        assert!(!ok && stderr.contains(code), "{args:?}: {stderr}");
        assert!(!nowhere.path().join("r").exists(), "{args:?}");
    }
}

#[tokio::test]
async fn an_experiment_with_a_language_model_records_its_tokens() {
    let (endpoint, seen) = wary_walker().await;
    let s = TestServer::start_with(fast_research).await;
    let out = tempfile::tempdir().unwrap();
    let mut c = pawns_bin();
    c.args(["experiment", "--agents", "2", "--minutes", "0.25", "--session-minutes", "0.1", "--pace", "50ms", "--prefix", "lm"])
        .args(["--policy", "llm", "--model", "stand-in", "--llm-endpoint", &endpoint])
        .arg("--server")
        .arg(format!("http://{}", s.addr))
        .arg("--out")
        .arg(out.path());
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    assert!(seen.lock().unwrap().len() > 4, "the model was asked");
    // Walking east remembers no event (only the map): no decay curve.
    let e = check_report(out.path(), 2, false, &["llm/valence_off", "llm/valence_on"]);
    for c in e["cost"].as_array().unwrap() {
        assert!(c["with_tokens"].as_u64().unwrap() > 0 && c["prompt_mean"].as_f64().unwrap() > 10.0, "{c}");
    }
    // Without an endpoint: refused before anything plays.
    let mut c = pawns_bin();
    c.args(["experiment", "--policy", "llm", "--agents", "2"]).arg("--server").arg(format!("http://{}", s.addr));
    let (ok, _, stderr) = output(c).await;
    assert!(!ok && stderr.contains("--llm-endpoint"), "{stderr}");
    s.shutdown().await;
}

/// Whether DuckDB's Python package is here; with `PAWNS_DUCKDB_TESTS=1` (CI) its absence
/// fails the test rather than skipping it.
fn duckdb_ready() -> bool {
    let ok = std::process::Command::new("python3").args(["-c", "import duckdb"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var("PAWNS_DUCKDB_TESTS").is_err(), "PAWNS_DUCKDB_TESTS is set but python3 cannot import duckdb");
        eprintln!("skipping: python3 with duckdb is not installed (pip install duckdb)");
    }
    ok
}

/// Asks DuckDB (an independent reader) `sql`; the rows as JSON.
fn duckdb(dir: &std::path::Path, sql: &str) -> Value {
    let script = "import duckdb, json, sys, os\nos.chdir(sys.argv[1])\nprint(json.dumps(duckdb.sql(sys.argv[2]).fetchall(), default=str))";
    let o = std::process::Command::new("python3").args(["-c", script]).arg(dir).arg(sql).output().unwrap();
    assert!(o.status.success(), "{sql}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[tokio::test]
async fn the_record_exports_as_parquet_that_duckdb_reads() {
    if !duckdb_ready() {
        return;
    }
    let s = TestServer::start_with(fast_research).await;
    let key = s.key("vex").await;
    die_and_return(&s, "vex", &key, true).await;
    memory_of(&s, "vex").await;
    let all = decisions_until(&s, "vex", "look", 1).await;
    // Through the running server, which holds the file.
    let out = tempfile::tempdir().unwrap();
    let mut c = pawns_bin();
    c.args(["export", "tables", "--format", "parquet", "--server"]).arg(format!("http://{}", s.addr)).arg("--out").arg(out.path());
    c.arg("--db").arg(out.path().join("no.redb"));
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    assert!(!out.path().join("no.redb").exists(), "asking the server makes no data file here");
    for t in ["sessions", "decisions", "observations", "transitions", "dreams", "memory_snapshots", "trials"] {
        assert!(stdout.contains(&format!("{t}.parquet: ")), "{stdout}");
    }
    // Issue 54: times are TIMESTAMP(µs, UTC), lists are LISTs, a decision's rooms are
    // named pre and post (no bare room_vnum), and sessions and decisions carry the arm.
    let types = duckdb(
        out.path(),
        "select column_name, column_type from (describe select at_us, memory_ids, mobs_present, arm, pre_room_vnum, post_room_vnum from 'decisions.parquet')",
    );
    assert_eq!(
        types,
        json!([
            ["at_us", "TIMESTAMP WITH TIME ZONE"],
            ["memory_ids", "VARCHAR[]"],
            ["mobs_present", "VARCHAR[]"],
            ["arm", "VARCHAR"],
            ["pre_room_vnum", "BIGINT"],
            ["post_room_vnum", "BIGINT"]
        ]),
        "{types}"
    );
    let bare = duckdb(out.path(), "select count(*) from (describe select * from 'decisions.parquet') where column_name = 'room_vnum'");
    assert_eq!(bare[0][0], 0);
    let listed =
        duckdb(out.path(), "select list_contains(mobs_present, 'a grizzly bear') from 'decisions.parquet' where stimulus_kind = 'killer' order by at_us limit 1");
    assert_eq!(listed[0], json!([true]), "{listed}");
    let started = duckdb(out.path(), "select typeof(started_us), arm, year(started_us) >= 2026 from 'sessions.parquet'");
    assert_eq!(started[0], json!(["TIMESTAMP WITH TIME ZONE", "valence_on", true]), "{started}");
    // The per-trial table agrees with the evaluation's count of trials.
    let counted = duckdb(out.path(), "select count(*) filter (where counted), count(*) from 'trials.parquet'");
    let (_, body) = http_get(s.addr, "/api/admin/eval?agents=vex").await;
    let e: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(counted[0], json!([e["sample"]["trials"], e["sample"]["encounters"]]), "{counted}");
    let n = duckdb(out.path(), "select count(*) from 'decisions.parquet' where agent = 'vex'");
    assert_eq!(n[0][0], all.len(), "every decision, as the JSONL export has them");
    let killer = duckdb(
        out.path(),
        "select command, stimulus_target, memory_id is null, pre_room_vnum from 'decisions.parquet' where stimulus_kind = 'killer' order by at_us",
    );
    assert_eq!(killer[0], json!(["look", "a grizzly bear", true, 8012]), "{killer}");
    let death = duckdb(out.path(), "select other, from_value is not null from 'transitions.parquet' where what = 'death'");
    assert_eq!(death[0], json!(["a grizzly bear", true]), "{death}");
    let sessions = duckdb(out.path(), "select agent, valence, ended_how from 'sessions.parquet'");
    assert_eq!(sessions, json!([["vex", true, "quit"]]));
    let heard = duckdb(out.path(), "select count(*) from 'observations.parquet' where event_type = 'death'");
    assert_eq!(heard[0][0], 1);
    let mem = duckdb(
        out.path(),
        "select count(*), max(salience), min(game_valence) from 'memory_snapshots.parquet' s join 'dreams.parquet' d on s.dream_at_us = d.at_us where not s.pruned",
    );
    assert!(mem[0][0].as_u64().unwrap() >= 1 && mem[0][2] == -3, "the death is remembered at −3: {mem}");
    // The routes behind both commands refuse bad input with stable codes.
    for path in ["/api/admin/eval?by=mood", "/api/admin/eval?agents=no%20such!", "/api/admin/eval?since_us=soon"] {
        let (status, body) = http_get(s.addr, path).await;
        assert!(status == 400 && body.contains("bad_request"), "{path}: {status} {body}");
    }
    let (status, body) = http_get(s.addr, "/api/admin/eval?agents=vex").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["sample"]["agents"], 1);
    for path in ["/api/admin/export/parquet?dir=relative/dir", "/api/admin/export/parquet?dir=/tmp&tables=nope"] {
        let (status, body) = http_post(s.addr, path).await;
        assert!(status == 400 && body.contains("bad_request"), "{path}: {status} {body}");
    }
    // Offline, one table; bad input refused.
    let dir = s.shutdown_keep_dir().await;
    let one = tempfile::tempdir().unwrap();
    let mut c = pawns_bin();
    c.args(["export", "decisions", "--format", "parquet", "--agent", "vex"])
        .arg("--db")
        .arg(dir.path().join("test.redb"))
        .arg("--out")
        .arg(one.path());
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok && stdout.contains("decisions.parquet"), "{stdout}{stderr}");
    assert_eq!(duckdb(one.path(), "select count(*) from 'decisions.parquet'")[0][0], all.len());
    let mut c = pawns_bin();
    c.args(["export", "tables", "--format", "csv"]).arg("--db").arg(dir.path().join("test.redb")).arg("--out").arg(one.path());
    let (ok, _, stderr) = output(c).await;
    assert!(!ok && stderr.contains("bad_request"), "{stderr}");
    let mut c = pawns_bin();
    c.args(["export", "tables", "--format", "parquet"]).arg("--db").arg(dir.path().join("test.redb"));
    let (ok, _, stderr) = output(c).await;
    assert!(!ok && stderr.contains("--out DIR"), "{stderr}");
}

/// Issue 55: memcheck asks an agent's memory what its record knows. Vex dies to the bear
/// and dreams; the probes hold the answer the record gives (the bear), the reader finds
/// it in the summary Vex would be given, and a model's answers (the stand-in: it names
/// the bear for any room) are scored beside the reader's — wrong where it should abstain.
#[tokio::test]
async fn memcheck_asks_the_memory_what_the_record_knows() {
    let (endpoint, seen) = llm_stub_with(|req: &Value| {
        let q = req["messages"][1]["content"].as_str().unwrap_or("").rsplit("Question: ").next().unwrap_or("").to_string();
        StubAnswer::Text(if q.starts_with("Who killed you in") { "A grizzly bear.".into() } else { "I don't know.".into() })
    })
    .await;
    let s = TestServer::start_with(fast_research).await;
    let key = s.key("vex").await;
    die_and_return(&s, "vex", &key, true).await;
    memory_of(&s, "vex").await;
    // Through the server that holds the file: the reader's answers.
    let (status, body) = http_get(s.addr, "/api/admin/memcheck?agents=vex").await;
    assert_eq!(status, 200, "{body}");
    let online: Value = serde_json::from_str(&body).unwrap();
    let dir = s.shutdown_keep_dir().await;
    let out = tempfile::tempdir().unwrap();
    let mut c = pawns_bin();
    c.args(["memcheck", "--agents", "vex", "--model", "stand-in", "--llm-endpoint", &endpoint])
        .arg("--db")
        .arg(dir.path().join("test.redb"))
        .arg("--out")
        .arg(out.path().join("m"));
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    let m = read_json(&out.path().join("m/memcheck.json"));
    let answers = m["answers"].as_array().unwrap();
    let killed = answers
        .iter()
        .find(|a| {
            a["by"] == "reader"
                && a["probe"]["ability"] == "extraction"
                && a["probe"]["question"].as_str().unwrap().starts_with("Who killed you in")
        })
        .unwrap_or_else(|| panic!("{m:#}"));
    assert_eq!(killed["probe"]["expected"], "A grizzly bear", "{killed}");
    assert_eq!(killed["correct"], true, "the summary Vex is given says who: {}", m["memories"]);
    assert!(!killed["probe"]["evidence"].as_array().unwrap().is_empty());
    assert_eq!(online["answers"].as_array().unwrap().len(), answers.iter().filter(|a| a["by"] == "reader").count());
    // The model's answers are scored beside the reader's.
    let score = |reader: &str, group: &str| {
        m["scores"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["reader"] == reader && x["group"] == group)
            .map(|x| x["right"]["p"].as_f64().unwrap())
    };
    assert_eq!(score("stand-in", "extraction"), Some(1.0), "{}", m["scores"]);
    assert!(score("stand-in", "abstention").is_some_and(|p| p < 1.0), "it named the bear where it should not have: {}", m["scores"]);
    assert_eq!(seen.lock().unwrap().len(), answers.iter().filter(|a| a["by"] == "stand-in").count(), "one call a probe");
    let md = std::fs::read_to_string(out.path().join("m/memcheck.md")).unwrap();
    assert!(md.contains("## Memory against the record") && md.contains("| reader | ability | extraction |"), "{md}");
    assert!(out.path().join("m/probes.parquet").exists() && stdout.contains("probes.parquet"), "{stdout}");
    if duckdb_ready() {
        let rows = duckdb(
            &out.path().join("m"),
            "select count(*), count(*) filter (where correct) > 0, max(len(evidence)) >= 1 from 'probes.parquet'",
        );
        assert_eq!(rows[0][0], answers.len());
        assert_eq!((&rows[0][1], &rows[0][2]), (&json!(true), &json!(true)), "{rows}");
    }
    // Nobody to ask about: a clear error.
    let mut c = pawns_bin();
    c.args(["memcheck", "--agents", "nobody"]).arg("--db").arg(dir.path().join("test.redb")).arg("--out").arg(out.path().join("n"));
    let (ok, _, stderr) = output(c).await;
    assert!(!ok && stderr.contains("no_probes"), "{stderr}");
}

/// `serve --run NAME`: a server run registered at start and ended at shutdown; a name
/// already taken refuses the start with `run_exists`, and the file is left as it was.
#[tokio::test]
async fn a_named_server_run_is_kept_once() {
    let mut s = TestServer::start_with(|c| c.run = Some("night-1".into())).await;
    let (_, body) = http_get(s.addr, "/api/admin/runs/night-1").await;
    let run: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((&run["kind"], &run["seed"], &run["ended_us"]), (&json!("serve"), &json!(7), &Value::Null), "{run}");
    s.stop().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = pawns::server::start(s.cfg.clone(), listener).await.err().expect("a taken name refuses the start");
    assert!(format!("{err:#}").contains("run_exists"), "{err:#}");
    s.cfg.run = Some("night-2".into());
    s.start_again().await;
    let (_, body) = http_get(s.addr, "/api/admin/runs").await;
    let runs: Vec<Value> = serde_json::from_str(&body).unwrap();
    let ids: Vec<(&str, bool)> = runs.iter().map(|r| (r["id"].as_str().unwrap(), r["ended_us"].is_u64())).collect();
    assert_eq!(ids, vec![("night-1", true), ("night-2", false)], "{body}");
    s.shutdown().await;
}

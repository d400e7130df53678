//! Deterministic replay: a run of the real server — agents walking, fighting, dying,
//! giving, talking, with the planner fleet beside them — replayed offline from its
//! journal, every record compared byte for byte.

use std::time::Duration;

use serde_json::Value;

use super::common::*;

fn pawns_bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_pawns"))
}

async fn output(mut c: std::process::Command) -> (bool, String, String) {
    let o = tokio::time::timeout(WAIT * 6, tokio::task::spawn_blocking(move || c.output().unwrap())).await.unwrap().unwrap();
    (o.status.success(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

async fn login(s: &TestServer, name: &str) -> WsClient {
    let key = s.key(name).await;
    let mut c = WsClient::connect(s.addr).await;
    c.login_key(name, &key).await;
    c
}

#[tokio::test]
async fn a_multi_agent_run_replays_to_the_same_records_byte_for_byte() {
    let s = TestServer::start_with(|cfg| {
        cfg.cmd_rate = 1000.0;
        cfg.cmd_burst = 1000.0;
        cfg.engine.pulse = Duration::from_millis(5);
        cfg.dream_daily = None;
        cfg.run = Some("replayed".into());
    })
    .await;
    let started = pawns::record::unix_us();
    // Bram fetches the sword before the planners (who loot) are about.
    let mut bram = login(&s, "bram").await;
    assert_eq!(bram.room_after("east", "b1").await, 8005);
    bram.cmd("get sword", "b2").await;
    bram.reply_text("b2").await;
    assert_eq!(bram.room_after("west", "b3").await, 8004);
    // A fleet of planners plays throughout (fights, deaths, loot), dreaming between sessions.
    let opts = pawns::research::experiment::ExperimentOptions {
        server: format!("http://{}", s.addr),
        agents: 3,
        duration: Duration::from_secs(45),
        session: Duration::from_secs(8),
        policy: pawns::agent::Policy::Fsm,
        llm_endpoint: String::new(),
        model: String::new(),
        prefix: "rp".into(),
        pace: Duration::from_millis(20),
        seed: 5,
        llm_agents: 0,
    };
    let fleet = tokio::spawn(async move { pawns::research::experiment::run_fleet(&opts, std::sync::Arc::new(|_: &_, _: &str| {})).await });
    // Meanwhile: a death to the bear, a gift, a greeting, talk, a quit.
    let mut vex = login(&s, "vex").await;
    for (i, want) in [8005, 8011, 8012].into_iter().enumerate() {
        assert_eq!(vex.room_after("east", &format!("w{i}")).await, want);
    }
    vex.cmd("kill bear", "k").await;
    vex.hear("You are dead").await;
    bram.cmd("say Well met, Vex! Glad you are alive.", "b4").await;
    bram.cmd("give sword vex", "b5").await;
    vex.hear("gives you").await;
    vex.cmd("wave bram", "v1").await;
    vex.cmd("say Thank you, friend!", "v2").await;
    bram.hear("Thank you").await;
    vex.cmd("quit", "v3").await;
    vex.closed().await;
    let report = fleet.await.unwrap().unwrap();
    assert!(report.failures.is_empty() && report.sessions >= 6, "{report:?}");
    bram.cmd("quit", "b6").await;
    bram.closed().await;
    let dir = s.shutdown_keep_dir().await;
    let db = dir.path().join("test.redb");

    // Every session of the run, replayed from the journal.
    let mut c = pawns_bin();
    c.args(["replay", "--json", "--from"])
        .arg(chrono::DateTime::from_timestamp_micros(started as i64 - 1_000_000).unwrap().to_rfc3339())
        .arg("--db")
        .arg(&db);
    let (ok, stdout, stderr) = output(c).await;
    let r: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    assert!(ok, "{}", serde_json::to_string_pretty(&r["divergence"]).unwrap());
    // Ten minutes of game time (6,000 pulses of 100 ms), played here at 5 ms a pulse (45 s
    // of it: late pulses on a loaded machine are dropped, not made up).
    assert!(r["pulses"].as_u64().unwrap() >= 6_000, "{}", r["pulses"]);
    let sessions = r["sessions"].as_array().unwrap();
    assert!(sessions.len() >= 8, "{r}");
    assert!(sessions.iter().all(|s| s["identical"] == true && s["records"].as_u64().unwrap() > 0), "{r}");
    assert!(sessions.iter().any(|s| s["agent"] == "vex") && sessions.iter().any(|s| s["agent"] == "bram"), "{r}");

    // The same by the run's name (a server run: from its start to its end).
    let mut c = pawns_bin();
    c.args(["replay", "--json", "--run", "replayed"]).arg("--db").arg(&db);
    let (ok, stdout, stderr) = output(c).await;
    let by_run: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    assert!(ok && by_run["sessions"] == r["sessions"], "{stdout}{stderr}");

    // One session, in words.
    let vex_session = sessions.iter().find(|s| s["agent"] == "vex").unwrap()["session"].as_u64().unwrap();
    let mut c = pawns_bin();
    c.args(["replay", "--session", &vex_session.to_string()]).arg("--db").arg(&db);
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok && stdout.contains(&format!("session {vex_session} (vex):")) && stdout.contains("identical"), "{stdout}{stderr}");

    // A journal changed behind the replay's back (vex looks instead of attacking the
    // bear): the replay no longer makes the record, and says where.
    {
        use redb::ReadableTable;
        let (store, _) = pawns_storage::Store::open(&db).unwrap();
        let tx = store.begin_write().unwrap();
        {
            let mut t = tx.open_table(pawns_storage::tables::JOURNAL).unwrap();
            let rows: Vec<((u64, u64), Vec<u8>)> =
                t.iter().unwrap().map(|r| r.unwrap()).map(|(k, v)| (k.value(), v.value().to_vec())).collect();
            let mut changed = false;
            let packed = rows.iter().filter(|(_, v)| pawns_storage::journal::is_packed(v)).count();
            assert!(packed > 0, "45 s of commits: the journal's rows were packed");
            for (k, v) in rows {
                // A row: chunks (packed together, or each framed by its length).
                let mut chunks = Vec::new();
                for c in pawns_storage::journal::row_chunks(&v).unwrap() {
                    let mut entries: Vec<pawns::replay::Entry> = pawns_storage::codec::decode(&c).unwrap();
                    for e in &mut entries {
                        if let pawns::replay::Entry::Input { input: pawns::replay::Input::Command { line, .. }, .. } = e {
                            if line == "kill bear" && !changed {
                                *line = "look".into();
                                changed = true;
                            }
                        }
                    }
                    chunks.push(pawns_storage::codec::encode(&entries).unwrap());
                }
                let row = pawns_storage::journal::framed(&chunks.iter().map(Vec::as_slice).collect::<Vec<_>>());
                t.insert(k, row.as_slice()).unwrap();
            }
            assert!(changed);
        }
        tx.commit().unwrap();
        let _ = store.begin_read().unwrap();
    }
    let mut c = pawns_bin();
    c.args(["replay", "--session", &vex_session.to_string()]).arg("--db").arg(&db);
    let (ok, stdout, stderr) = output(c).await;
    assert!(!ok && stderr.contains("replay_diverged"), "{stdout}{stderr}");
    assert!(
        // The command is numbered before what it caused: the decision itself differs first.
        stdout.contains(&format!("First difference: session {vex_session}"))
            && stdout.contains(r#""command":"kill","args":"bear""#)
            && stdout.contains(r#""command":"look","args":"""#),
        "{stdout}"
    );
    // Bad input.
    for (args, code) in
        [(vec!["--session", "12"], "bad_request"), (vec![], "bad_request"), (vec!["--from", "yesterday-ish"], "bad_request")]
    {
        let mut c = pawns_bin();
        c.arg("replay").args(&args).arg("--db").arg(&db);
        let (ok, _, stderr) = output(c).await;
        assert!(!ok && stderr.contains(code), "{args:?}: {stderr}");
    }
}

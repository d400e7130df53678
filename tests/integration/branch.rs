//! Branching a run (issue 55): a recorded experiment played again to a time T from its
//! journal into a new file — its past the parent's, record for record — then on from there
//! with one change; and a model-driven run replayed with no model call.

use std::time::Duration;

use pawns_storage::Store;
use serde_json::{json, Value};

use super::common::*;
use super::research::fast_research;

fn pawns_bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_pawns"))
}

async fn output(mut c: std::process::Command) -> (bool, String, String) {
    let o = tokio::time::timeout(WAIT * 12, tokio::task::spawn_blocking(move || c.output().unwrap())).await.unwrap().unwrap();
    (o.status.success(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn encode(r: &pawns_storage::EventRecord) -> Vec<u8> {
    pawns_storage::codec::encode(r).unwrap()
}

/// An experiment of the planner on the test server, kept: (its data file's directory, run id).
/// With `earlier`, the same fleet played a short run before, on the server's last start:
/// they come into this one remembering it.
async fn experiment(prefix: &str, extra: &[&str], earlier: bool) -> (tempfile::TempDir, String) {
    let mut s = TestServer::start_with(fast_research).await;
    let out = tempfile::tempdir().unwrap();
    if earlier {
        let mut c = pawns_bin();
        c.args(["experiment", "--minutes", "0.15", "--session-minutes", "0.07", "--pace", "50ms", "--prefix", prefix, "--run", "earlier"])
            .args(extra)
            .arg("--server")
            .arg(format!("http://{}", s.addr))
            .arg("--out")
            .arg(out.path().join("earlier"));
        let (ok, stdout, stderr) = output(c).await;
        assert!(ok, "{stdout}{stderr}");
        s = s.restart().await;
    }
    let mut c = pawns_bin();
    c.args(["experiment", "--minutes", "0.4", "--session-minutes", "0.12", "--pace", "50ms", "--prefix", prefix, "--run", "parent"])
        .args(extra)
        .arg("--server")
        .arg(format!("http://{}", s.addr))
        .arg("--out")
        .arg(out.path());
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    (s.shutdown_keep_dir().await, "parent".into())
}

#[tokio::test]
async fn a_branch_is_its_parent_up_to_the_branch_point_and_plays_another_future() {
    let (dir, parent) = experiment("br", &["--agents", "4"], true).await;
    let db = dir.path().join("test.redb");
    let out = dir.path().join("branch.redb");
    let mut c = pawns_bin();
    c.args(["branch", "--json", "--run", &parent, "--at", "13s", "--change", "forget:bron01", "--minutes", "0.2", "--name", "forgetful"])
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&out);
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok, "{stdout}{stderr}");
    let r: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    let b = &r["branch"];
    assert_eq!(b["identical"], json!(true), "{b}");
    assert!(b["records"].as_u64().unwrap() > 100 && b["inputs"].as_u64().unwrap() > 50, "{b}");
    assert!(!b["branched"].as_array().unwrap().is_empty(), "someone was playing at 13 s: {b}");
    assert!(b["dreams"].as_u64().unwrap() >= 1, "a session ended and dreamt before 13 s: {b}");
    assert_eq!(b["dreams"], b["dreams_matching"], "every dream made what the parent's did: {b}");
    assert!(b["earlier_records"].as_u64().unwrap() > 100, "the earlier run's record came along: {b}");
    assert!(b["changed"].as_str().unwrap().starts_with("bron01's memory removed"), "{b}");
    assert_eq!(
        (&r["run"]["kind"], &r["run"]["parent"], &r["run"]["change"]),
        (&json!("branch"), &json!("parent"), &json!("forget:bron01"))
    );
    assert!(r["fleet"]["sessions"].as_u64().unwrap() >= 4 && r["fleet"]["failures"] == json!([]), "{}", r["fleet"]);
    let at = b["at_us"].as_u64().unwrap();

    {
        let (p, _) = Store::open(&db).unwrap();
        let (q, _) = Store::open(&out).unwrap();
        // The past: every session the parent began before T is there, record for record
        // as far as it had gone; none of the parent's later sessions is.
        let theirs = p.all_sessions().unwrap();
        let ours = q.all_sessions().unwrap();
        for m in theirs.iter().filter(|m| m.started_us <= at) {
            let (a, b) = (p.session_records(m.session).unwrap(), q.session_records(m.session).unwrap());
            assert!(!b.is_empty() && b.len() <= a.len(), "session {}: {} of {}", m.session, b.len(), a.len());
            let kept = b.iter().filter(|r| r.at_us <= at).count();
            if let Some(i) = (0..kept).find(|&i| encode(&a[i]) != encode(&b[i])) {
                let show = |r: &pawns_storage::EventRecord| serde_json::to_string(r).unwrap();
                panic!(
                    "session {} differs before T ({at}) at record {i} of {kept}:\nparent {}\nbranch {}\nbranch's next {:?}",
                    m.session,
                    show(&a[i]),
                    show(&b[i]),
                    b.get(i + 1).map(show)
                );
            }
        }
        assert!(ours
            .iter()
            .filter(|m| m.started_us > at && m.started_us < pawns::record::unix_us())
            .all(|m| !theirs.iter().any(|t| t.session == m.session)));
        // The sessions the branch point ended, ended so.
        assert!(ours.iter().any(|m| m.ended_how.as_deref() == Some("branched")), "{ours:?}");
        // The future differs by the change: bron01 comes back remembering nothing, where
        // in the parent it came back with memories; the others come back with theirs.
        let first_after = |ms: &[pawns_storage::SessionMeta], who: &str| {
            ms.iter().filter(|m| m.agent == who && m.started_us > at).min_by_key(|m| m.started_us).cloned()
        };
        let branch_bron = first_after(&ours, "bron01").expect("bron01 played on in the branch");
        assert!(branch_bron.memory_ids.is_empty(), "{branch_bron:?}");
        let parent_bron = first_after(&theirs, "bron01").expect("bron01 played on in the parent");
        assert!(!parent_bron.memory_ids.is_empty(), "the parent's bron01 came back remembering: {parent_bron:?}");
        assert!(
            ["bron02", "broff01", "broff02"].iter().filter_map(|a| first_after(&ours, a)).any(|m| !m.memory_ids.is_empty()),
            "the others kept their memories"
        );
    }

    // The branch replays like any run: its past and its own future, from its journal.
    let mut c = pawns_bin();
    c.args(["replay", "--json", "--run", "forgetful"]).arg("--db").arg(&out);
    let (ok, stdout, stderr) = output(c).await;
    let rep: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    assert!(ok, "{}", serde_json::to_string_pretty(&rep["divergence"]).unwrap());
    let sessions = rep["sessions"].as_array().unwrap();
    assert!(sessions.len() >= 4 && sessions.iter().all(|s| s["identical"] == true), "{rep}");

    // Two futures of one past, side by side: the parent's from T on.
    let mut c = pawns_bin();
    c.args(["runs", "compare", &parent, "forgetful"]).arg("--db").arg(&db).arg("--b-db").arg(&out);
    let (ok, stdout, stderr) = output(c).await;
    assert!(ok && stdout.contains("forgetful") && stdout.contains("forget:bron01") && stdout.contains("sessions"), "{stdout}{stderr}");

    // Bad requests are refused before anything is written.
    for (args, code) in [
        (vec!["--run", "parent", "--at", "13s", "--change", "teleport:bron01"], "bad_request"),
        (vec!["--run", "parent", "--at", "13s", "--change", "forget:nobody"], "bad_request"),
        (vec!["--run", "parent", "--at", "3h", "--change", "none"], "bad_request"),
        (vec!["--run", "nosuch", "--at", "13s", "--change", "none"], "no_such_run"),
        (vec!["--run", "parent", "--at", "13s", "--change", "none", "--out", "/nonexistent/folder/b.redb"], "no folder"),
    ] {
        let fresh = dir.path().join("never.redb");
        let mut c = pawns_bin();
        c.arg("branch").args(&args).arg("--db").arg(&db);
        if !args.contains(&"--out") {
            c.arg("--out").arg(&fresh);
        }
        let (ok, _, stderr) = output(c).await;
        assert!(!ok && stderr.contains(code) && !fresh.exists(), "{args:?}: {stderr}");
    }
    let mut c = pawns_bin();
    c.args(["branch", "--run", &parent, "--at", "13s", "--change", "none"]).arg("--db").arg(&db).arg("--out").arg(&out);
    let (ok, _, stderr) = output(c).await;
    assert!(!ok && stderr.contains("exists"), "{stderr}");
}

#[tokio::test]
async fn a_model_driven_run_replays_with_no_model_call_and_its_calls_are_journaled_by_prompt() {
    let (endpoint, seen) = wary_walker().await;
    let (dir, _) = experiment("mj", &["--agents", "2", "--policy", "llm", "--model", "stand-in", "--llm-endpoint", &endpoint], false).await;
    let asked = seen.lock().unwrap().len();
    assert!(asked > 4, "the model was asked");
    let db = dir.path().join("test.redb");
    let mut c = pawns_bin();
    c.args(["replay", "--json", "--run", "parent"]).arg("--db").arg(&db);
    let (ok, stdout, stderr) = output(c).await;
    let rep: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    assert!(ok && rep["sessions"].as_array().unwrap().iter().all(|s| s["identical"] == true), "{rep}");
    assert_eq!(seen.lock().unwrap().len(), asked, "the replay asked the model nothing");

    // Every answered call of the record is in the journal under its prompt's hash, and an
    // agent given the journal answers a prompt it holds without asking the model.
    let (store, _) = Store::open(&db).unwrap();
    let mut calls = Vec::new();
    for m in store.all_sessions().unwrap() {
        for r in store.session_records(m.session).unwrap() {
            if let pawns_storage::RecordBody::Decision(d) = r.body {
                calls.extend(d.llm.into_iter().filter(|c| c.answer.is_some() && !c.cut));
            }
        }
    }
    assert!(calls.len() > 4, "{}", calls.len());
    for c in &calls {
        let j = pawns::record::model_journal::lookup(&store, &c.model, &c.system, &c.user).unwrap().expect("journaled");
        assert_eq!(j.answer, c.answer);
    }
    assert!(store.model_calls_count().unwrap() as usize <= calls.len());
    let store = std::sync::Arc::new(store);
    let journal = pawns::agent::llm::Journal(std::sync::Arc::new(move |m: &str, s: &str, u: &str| {
        pawns::record::model_journal::lookup(&store, m, s, u).ok().flatten()
    }));
    // A closed port: a call would fail.
    let client =
        pawns::agent::llm::LlmClient::new("http://127.0.0.1:9", "", "stand-in", "", 0.0, Duration::from_secs(2)).with_journal(journal);
    let c = &calls[0];
    let p = pawns::agent::prompt::Prompt { system: c.system.clone(), user: c.user.clone(), tokens: 10, trimmed: 0 };
    let d = client.decide(&p, &[]).await.expect("answered from the journal");
    assert_eq!((d.form, d.prompt_tokens, d.calls[0].answer.clone()), ("journal", 0, c.answer.clone()));
    let unseen = pawns::agent::prompt::Prompt { system: "new".into(), user: "never asked".into(), tokens: 3, trimmed: 0 };
    assert!(client.decide(&unseen, &[]).await.is_err(), "a prompt not journaled goes to the model");
    assert_eq!(seen.lock().unwrap().len(), asked);
}

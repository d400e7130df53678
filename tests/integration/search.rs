//! Search over the record: the server's index follows what is committed, answers
//! `/api/search` newest first with filters, survives losing its directory, rebuilds on
//! request, and `pawns search` reads the same index from the file.

use std::time::{Duration, Instant};

use pawns::search::{SearchQuery, SearchResults};
use serde_json::json;

use crate::common::{eventually, http_get, TestServer, WsClient};

async fn search(s: &TestServer, query: &str) -> (u16, serde_json::Value) {
    let (status, body) = http_get(s.addr, &format!("/api/search?{query}")).await;
    (status, serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON: {body}")))
}

/// An agent that walks east and kills the straw dummy, then says something and leaves.
async fn kill_the_dummy(s: &TestServer, name: &str) -> Instant {
    kill(s, name, &["east"], "dummy").await
}

/// An agent walks, kills, says something and leaves; returns when the kill happened.
async fn kill(s: &TestServer, name: &str, path: &[&str], target: &str) -> Instant {
    let key = s.key(name).await;
    let mut a = WsClient::connect(s.addr).await;
    a.login_key(name, &key).await;
    for (i, dir) in path.iter().enumerate() {
        let id = format!("w{i}");
        a.cmd(dir, &id).await;
        a.until(|v| v["re"] == id.as_str() && v["type"] == "state").await;
    }
    a.cmd(&format!("kill {target}"), "c2").await;
    a.until(|v| v["data"]["text"].as_str().is_some_and(|t| t.contains("experience points"))).await;
    let killed = Instant::now();
    a.cmd("say that was a fine scarecrow", "c3").await;
    a.reply_text("c3").await;
    a.cmd("quit", "c4").await;
    a.closed().await;
    killed
}

#[tokio::test]
async fn a_kill_is_found_by_the_mobs_name_within_the_commit_interval() {
    let s = TestServer::start().await;
    let every = s.cfg.search_every;
    let killed = kill_the_dummy(&s, "brenda").await;
    let found = loop {
        let (status, v) = search(&s, "q=dummy&kind=transition&agent=brenda").await;
        assert_eq!(status, 200, "{v}");
        if v["total"].as_u64() > Some(0) {
            break v;
        }
        // One commit interval, plus room for a loaded test machine: what is measured is
        // how soon it is found, so this polls with a deadline of its own.
        assert!(killed.elapsed() < every + Duration::from_secs(3), "the kill was not searchable {:?} after it happened", killed.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let hit = &found["hits"][0];
    assert_eq!(hit["agent"], "brenda");
    assert_eq!(hit["kind"], "transition");
    assert_eq!(hit["category"], "combat");
    assert_eq!(hit["text"], "killed a straw dummy (mob, level 1)", "{found}");
    assert_eq!(hit["room_vnum"], 8005);
    assert!(hit["session"].as_u64().unwrap() > 0 && hit["seq"].as_u64().unwrap() > 0);
    s.shutdown().await;
}

#[tokio::test]
async fn filters_order_and_bad_input() {
    let s = TestServer::start().await;
    kill_the_dummy(&s, "brenda").await;
    kill(&s, "carl", &["east", "east"], "idol").await;
    s.running.as_ref().unwrap().recorder.as_ref().unwrap().0.flush().await;
    // Wait for the index to hold the whole record.
    let durable = s.running.as_ref().unwrap().shared.record_stats.as_ref().unwrap().last_id.load(std::sync::atomic::Ordering::Relaxed);
    let st = eventually("the index caught up with the record", || async {
        let st: serde_json::Value = serde_json::from_str(&http_get(s.addr, "/api/search/status").await.1).unwrap();
        (st["indexed_batch"].as_u64() >= Some(durable)).then_some(st)
    })
    .await;
    assert!(st["docs"].as_u64().unwrap() > 10, "{st}");
    assert_eq!(st["failures"], 0);
    // Stems: "kill" finds "killed"; both agents, newest (carl) first.
    let (_, v) = search(&s, "q=kill&kind=transition").await;
    let agents: Vec<&str> = v["hits"].as_array().unwrap().iter().map(|h| h["agent"].as_str().unwrap()).collect();
    assert_eq!(agents, ["carl", "brenda"], "{v}");
    // Everything, newest first.
    let (_, all) = search(&s, "limit=1000").await;
    let times: Vec<u64> = all["hits"].as_array().unwrap().iter().map(|h| h["at_us"].as_u64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert_eq!(all["total"].as_u64().unwrap() as usize, times.len());
    // The limit caps hits, not the total.
    let (_, two) = search(&s, "limit=2").await;
    assert_eq!(two["hits"].as_array().unwrap().len(), 2);
    assert_eq!(two["total"], all["total"]);
    // Categories: what brenda said is social; her typing `say` is an action.
    let (_, social) = search(&s, "q=scarecrow&agent=brenda&kind=social").await;
    let kinds: Vec<&str> = social["hits"].as_array().unwrap().iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"action") && kinds.contains(&"observation"), "{social}");
    let (_, actions) = search(&s, "q=scarecrow&agent=brenda&kind=action").await;
    assert_eq!(actions["total"], 1, "{actions}");
    assert_eq!(actions["hits"][0]["text"], "say that was a fine scarecrow");
    // Agent filter is exact; since filters by time.
    let (_, nobody) = search(&s, "q=dummy&agent=zed").await;
    assert_eq!(nobody["total"], 0);
    let (_, future) = search(&s, &format!("since_us={}", pawns::record::unix_us() + 60_000_000)).await;
    assert_eq!(future["total"], 0);
    let (_, recent) = search(&s, "q=dummy+OR+idol&since=1h&kind=transition").await;
    assert_eq!(recent["total"], 2, "{recent}");
    // Bad input: clear codes, nothing else.
    for (query, code) in [
        ("kind=dragons", "bad_kind"),
        ("q=%22unclosed", "bad_query"),
        ("limit=0", "bad_request"),
        ("limit=abc", "bad_request"),
        ("since=3+weeks", "bad_request"),
    ] {
        let (status, v) = search(&s, query).await;
        assert_eq!((status, v["code"].as_str().unwrap()), (400, code), "{query}: {v}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn the_index_catches_up_rebuilds_and_is_read_from_the_file() {
    // Recorded with no index at all: the index starts later and catches up.
    let s = TestServer::start_with(|cfg| cfg.search = false).await;
    kill_the_dummy(&s, "brenda").await;
    let (status, v) = search(&s, "q=dummy").await;
    assert_eq!((status, v["code"].as_str()), (503, Some("search_unavailable")));
    let mut s = s;
    s.cfg.search = true;
    let s = s.restart().await;
    let found = wait_for(&s, "q=dummy&kind=transition", 1).await;
    assert_eq!(found["hits"][0]["agent"], "brenda");

    // Rebuild in the running server: the same documents, no duplicates.
    let (_, before) = http_get(s.addr, "/api/search/status").await;
    let before: serde_json::Value = serde_json::from_str(&before).unwrap();
    let (code, _) = crate::common::http_post(s.addr, "/api/admin/reindex").await;
    assert_eq!(code, 202);
    let st = eventually("the rebuild finished", || async {
        let st: serde_json::Value = serde_json::from_str(&http_get(s.addr, "/api/search/status").await.1).unwrap();
        (st["rebuilding"] == false && st["indexed_batch"].as_u64() >= before["indexed_batch"].as_u64()).then_some(st)
    })
    .await;
    assert_eq!(st["docs"], before["docs"], "{st} vs {before}");
    // Rebuilt: every batch was read back from the file, and /metrics counts them (what
    // dropped hand-offs would show on a busy server).
    let (_, m) = http_get(s.addr, "/metrics").await;
    let read_back: f64 = m
        .lines()
        .find_map(|l| l.strip_prefix("pawns_search_batches_read_back_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the read-back counter is in /metrics");
    assert!(read_back >= before["indexed_batch"].as_f64().unwrap(), "{read_back} batches read back; {before}");

    // A damaged index directory is rebuilt at the next start.
    let db = s.cfg.db.clone();
    let dir = pawns::search::index_dir(&db);
    let mut s = s;
    s.running.take().unwrap().shutdown().await;
    std::fs::write(dir.join("meta.json"), b"{ not json").unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let running = pawns::server::start(s.cfg.clone(), listener).await.unwrap();
    s.addr = running.addr;
    s.running = Some(running);
    wait_for(&s, "q=dummy&kind=transition", 1).await;

    // Offline, `pawns search` reads the file's index (catching it up first).
    let tmp = s.shutdown_keep_dir().await;
    let q = SearchQuery { q: "scarecrow".into(), agent: Some("brenda".into()), limit: 10, ..Default::default() };
    let store = pawns_storage::Store::open_read_only(&db).unwrap();
    let found: SearchResults = pawns::search::offline::offline_search(&db, &store, &q).unwrap();
    assert!(found.total >= 2, "{found:?}");
    assert!(found.hits.iter().all(|h| h.agent == "brenda" && h.text.contains("scarecrow")));
    let text = pawns::search::offline::render(&found);
    assert!(text.contains("say that was a fine scarecrow") && text.ends_with("record(s)\n"), "{text}");
    // And from scratch, with no index directory at all.
    std::fs::remove_dir_all(&dir).unwrap();
    let again = pawns::search::offline::offline_search(&db, &store, &q).unwrap();
    assert_eq!(again, found);
    drop(tmp);
}

/// Polls a search until it finds at least `n` records.
async fn wait_for(s: &TestServer, query: &str, n: u64) -> serde_json::Value {
    eventually(&format!("{query} finds {n}"), || async {
        let (status, v) = search(s, query).await;
        (status == 200 && v["total"].as_u64() >= Some(n)).then_some(v)
    })
    .await
}

#[tokio::test]
async fn an_empty_search_and_a_wrong_method() {
    let s = TestServer::start().await;
    let (status, _) = http_get(s.addr, "/api/admin/reindex").await;
    assert_eq!(status, 404, "reindex is POST only");
    let (status, v) = search(&s, "").await;
    assert_eq!(status, 200);
    assert_eq!(v["hits"], json!([]));
    s.shutdown().await;
}

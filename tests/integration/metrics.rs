//! `GET /metrics` scraped and parsed as Prometheus would, and `/health` going degraded
//! and back.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::*;
use serde_json::json;

/// The page parsed by an independent parser (`prometheus-parse`), plus the format's rules
/// that parser does not check: every family has HELP and TYPE before its samples,
/// histograms' buckets are cumulative and end in +Inf equal to `_count`.
fn parse(page: &str) -> prometheus_parse::Scrape {
    let mut typed: HashMap<String, String> = HashMap::new();
    let mut helped = std::collections::HashSet::new();
    for line in page.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect("TYPE name kind");
            assert!(typed.insert(name.to_string(), kind.to_string()).is_none(), "{name} typed twice");
            assert!(helped.contains(name), "{name}: HELP comes before TYPE");
        } else if let Some(rest) = line.strip_prefix("# HELP ") {
            helped.insert(rest.split_once(' ').expect("HELP name text").0.to_string());
        } else {
            let name = line.split(['{', ' ']).next().unwrap();
            let family = ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| name.strip_suffix(s).filter(|f| typed.get(*f).is_some_and(|k| k == "histogram")))
                .unwrap_or(name);
            assert!(typed.contains_key(family), "sample {name} before its TYPE");
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit()),
                "{name}"
            );
            if typed[family] == "counter" {
                assert!(family.ends_with("_total"), "counter {family} must end in _total");
            }
        }
    }
    let scrape = prometheus_parse::Scrape::parse(page.lines().map(|l| Ok(l.to_string()))).expect("a Prometheus text page");
    for s in &scrape.samples {
        if let prometheus_parse::Value::Histogram(b) = &s.value {
            assert!(b.windows(2).all(|w| w[0].less_than < w[1].less_than && w[0].count <= w[1].count), "{}", s.metric);
            assert!(b.last().is_some_and(|l| l.less_than.is_infinite()), "{} ends in +Inf", s.metric);
            let count = scrape.samples.iter().find(|x| x.metric == format!("{}_count", s.metric)).expect("_count");
            assert!(
                matches!(count.value, prometheus_parse::Value::Untyped(c) | prometheus_parse::Value::Counter(c) if c == b.last().unwrap().count)
            );
        }
    }
    scrape
}

fn value(s: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    let sample = s
        .samples
        .iter()
        .find(|x| x.metric == name && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .unwrap_or_else(|| panic!("no {name} {labels:?}"));
    match &sample.value {
        prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Gauge(v) | prometheus_parse::Value::Untyped(v) => *v,
        prometheus_parse::Value::Histogram(b) => b.last().map(|c| c.count).unwrap_or(0.0),
        prometheus_parse::Value::Summary(_) => panic!("no summaries here"),
    }
}

async fn scrape(addr: std::net::SocketAddr) -> prometheus_parse::Scrape {
    let (status, body) = http_get(addr, "/metrics").await;
    assert_eq!(status, 200, "{body}");
    parse(&body)
}

#[tokio::test]
async fn metrics_scrape_shows_sessions_commands_pulses_and_the_record() {
    let srv = TestServer::start().await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Hamlet", "to-be-or-not").await;
    for i in 0..5 {
        a.cmd("look", &format!("l{i}")).await;
        a.until(|v| v["re"] == json!(format!("l{i}"))).await;
    }
    t.cmd("score").await;
    // Sessions are counted each second of game time; records commit within 50 ms.
    let s = eventually_within(Duration::from_secs(30), "sessions, records and every reply's time shown", || async {
        let s = scrape(srv.addr).await;
        (value(&s, "pawns_sessions", &[("protocol", "websocket"), ("role", "agent")]) == 1.0
            && value(&s, "pawns_sessions", &[("protocol", "telnet"), ("role", "human")]) == 1.0
            && value(&s, "pawns_records_committed_total", &[]) > 0.0
            && value(&s, "pawns_command_reply_seconds", &[]) >= 6.0)
            .then_some(s)
    })
    .await;
    assert!(value(&s, "pawns_commands_total", &[]) >= 6.0);
    assert!(value(&s, "pawns_command_wait_seconds", &[]) >= 6.0, "every command's wait is observed");
    // (The loop above waited for every command's reply to be timed, telnet's and JSON's.)
    assert!(value(&s, "pawns_command_reply_seconds", &[]) <= value(&s, "pawns_commands_total", &[]));
    assert!(value(&s, "pawns_pulse_duration_seconds", &[]) > 10.0, "pulses are timed");
    assert!(value(&s, "pawns_record_commit_duration_seconds", &[]) >= 1.0);
    assert!(value(&s, "pawns_record_durable_lag_seconds", &[]) >= 1.0);
    assert!(value(&s, "process_resident_memory_bytes", &[]) > 1e6);
    assert_eq!(value(&s, "pawns_up", &[]), 1.0);
    assert_eq!(value(&s, "pawns_engine_inbox_capacity", &[]), 65_536.0);
    // Brenda's link keeps what it sent her (state, variables, five looks and replies).
    assert!(value(&s, "pawns_replay_ring_frames", &[]) >= 6.0);
    assert!(value(&s, "pawns_replay_ring_bytes", &[]) > 1000.0);
    assert!(value(&s, "pawns_world_characters", &[]) >= 2.0, "Brenda and Hamlet at least");
    value(&s, "pawns_world_objects", &[]);
    // Records were committed: the data file's page cache holds pages, within its cap.
    let cache = value(&s, "pawns_store_cache_bytes", &[]);
    assert!(cache > 0.0 && cache <= 2.0 * pawns_storage::CACHE_BYTES as f64, "store cache {cache}");
    for name in [
        "pawns_store_cache_evictions_total",
        "pawns_pulse_overruns_total",
        "pawns_engine_inbox_depth",
        "pawns_sessions_linkdead",
        "pawns_outbound_replay_evicted_total",
        "pawns_record_backlog",
        "pawns_record_packs_total",
        "pawns_record_commit_batch_records",
        "pawns_search_index_lag_batches",
        "pawns_search_index_lag_seconds",
        "pawns_search_batches_read_back_total",
        "pawns_dream_queue_length",
        "pawns_dream_duration_seconds",
        "process_cpu_seconds_total",
    ] {
        value(&s, name, &[]);
    }
    value(&s, "pawns_slow_consumer_cuts_total", &[("queue", "engine")]);
    // The agent leaves: its session is no longer counted, and its logout dream is timed.
    a.cmd("quit", "q").await;
    let s = eventually("the agent's session gone and its logout dreamed", || async {
        let s = scrape(srv.addr).await;
        (value(&s, "pawns_sessions", &[("protocol", "websocket"), ("role", "agent")]) == 0.0
            && value(&s, "pawns_dreams_total", &[]) >= 1.0
            && value(&s, "pawns_replay_ring_frames", &[]) == 0.0)
            .then_some(s)
    })
    .await;
    assert!(value(&s, "pawns_dream_duration_seconds", &[]) >= 1.0);
    // Shared broadcast tails are their own gauge (process-wide: other tests' servers
    // and the socket threads' caches hold some too).
    assert!(value(&s, "pawns_replay_shared_tail_bytes", &[]) >= 0.0);
    // Her link is gone, and with it all its ring held.
    assert_eq!(value(&s, "pawns_replay_ring_bytes", &[]), 0.0);
    srv.shutdown().await;
}

#[tokio::test]
async fn health_is_degraded_while_pulses_overrun_and_recovers() {
    let srv = TestServer::start_with(|c| c.engine.fault_injection = true).await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    assert_eq!(http_get(srv.addr, "/health").await, (200, "OK".to_string()));
    // Pulses are 20 ms here; 40 pulses of 45 ms overrun most of a 100-pulse window.
    a.cmd("__slow_pulses 40 45", "s").await;
    let body = eventually("/health degraded", || async {
        let (status, body) = http_get(srv.addr, "/health").await;
        assert_eq!(status, 200);
        (body != "OK").then_some(body)
    })
    .await;
    assert!(body.starts_with("degraded\npulse_overrun: "), "{body}");
    assert!(body.contains("of the last 100 pulses overran"), "{body}");
    let s = scrape(srv.addr).await;
    assert_eq!(value(&s, "pawns_up", &[]), 0.0);
    assert_eq!(value(&s, "pawns_degraded", &[("reason", "pulse_overrun")]), 1.0);
    assert!(value(&s, "pawns_pulse_overruns_total", &[]) >= 10.0);
    // A window of ordinary pulses later, it is healthy again.
    eventually_within(Duration::from_secs(20), "healthy again", || async { (http_get(srv.addr, "/health").await.1 == "OK").then_some(()) })
        .await;
    assert_eq!(value(&scrape(srv.addr).await, "pawns_degraded", &[("reason", "pulse_overrun")]), 0.0);
    srv.shutdown().await;
}

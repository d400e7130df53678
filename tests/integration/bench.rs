//! `pawns bench agents --spawn` end to end: the real load generator against a server of
//! its own. Figures are not checked (they belong to the machine); what is checked is
//! that the run ends when its window does and that its report accounts for the server's
//! CPU by thread.

use std::process::Command;
use std::time::{Duration, Instant};

/// A handful of agents for a few seconds: every agent stops at the window's end (the
/// load generator tells them, none polls for it), nothing errs, and the server's CPU is
/// split by what its threads do, the engine and the recording threads among them.
#[cfg(target_os = "linux")]
#[test]
fn bench_agents_ends_with_its_window_and_splits_the_server_cpu_by_thread() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    crate::world::write(&world);
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_pawns"))
        .args(["bench", "agents", "--spawn", "--count", "6", "--rate", "4", "--duration", "3s", "--json", "--compact", "--world"])
        .arg(&world)
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(out.status.success(), "bench agents failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no JSON report in {stdout}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["logged_in"], 6, "{v}");
    assert!(v["commands_sent"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["errors"], serde_json::json!({}), "{v}");
    // Login, a 3 s window and the logouts: far less than an agent polling forever.
    assert!(took < Duration::from_secs(90), "the run took {took:?}");
    let threads = v["server"]["cpu_percent_by_thread"].as_object().unwrap_or_else(|| panic!("no split by thread: {v}"));
    for role in ["sockets", "engine", "recorder", "packer", "search", "dreamer", "hud", "other"] {
        let p = threads.get(role).and_then(|p| p.as_f64()).unwrap_or_else(|| panic!("no {role} in {threads:?}"));
        assert!((0.0..=200.0 * 2.0).contains(&p), "{role}: {p}");
    }
    let sum: f64 = threads.values().filter_map(|p| p.as_f64()).sum();
    let cpu = v["server"]["cpu_percent"].as_f64().unwrap();
    // Threads are read one after another, a tick (10 ms) apart at most from the process.
    assert!(sum >= cpu - 1e-6 && sum <= cpu + 3.0, "the roles ({sum}) add up to the process ({cpu})");
    let recording = v["server"]["recording_percent_of_cpu"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&recording), "{recording}");
    // `--compact`: the record's bytes per decision in a compacted copy of the file —
    // every command the agents sent is a decision in it, and there is more besides.
    let c = &v["record_compacted"];
    let decisions = c["decisions"].as_u64().unwrap_or_else(|| panic!("no compacted record: {v}"));
    assert!(decisions >= v["replies"].as_u64().unwrap(), "{c}");
    assert!(c["records"].as_u64().unwrap() > decisions, "{c}");
    let (data, index) = (c["data_file_bytes"].as_u64().unwrap(), c["index_bytes"].as_u64().unwrap());
    assert!(data > 0 && index > 0, "{c}");
    let per = c["bytes_per_decision"].as_f64().unwrap();
    assert!((per - (data + index) as f64 / decisions as f64).abs() < 1e-6, "{c}");
}

/// `--compact` measures a server the run started: without `--spawn` it is refused
/// before anything runs.
#[test]
fn bench_agents_compact_needs_a_spawned_server() {
    let out = Command::new(env!("CARGO_BIN_EXE_pawns"))
        .args(["bench", "agents", "--url", "ws://127.0.0.1:9/ws", "--count", "1", "--duration", "1s", "--compact"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--compact") && err.contains("bad_request"), "{err}");
}

/// On Dark Pawns `quit` keeps one's things only in the temple and elsewhere asks for
/// `reallyquit` (as the original does): agents that wandered off still log out, every
/// one, so their sessions end and their dreams are asked for. (The load generator sent
/// `quit` and `flee` only: on Dark Pawns 6 in 10 of its agents never left.)
#[cfg(target_os = "linux")]
#[test]
fn bench_agents_all_log_out_on_dark_pawns() {
    let Some(world) = crate::darkpawns::darkpawns_dir() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_pawns"))
        .args(["bench", "agents", "--spawn", "--count", "8", "--rate", "4", "--duration", "4s", "--json", "--world"])
        .arg(&world)
        .output()
        .unwrap();
    assert!(out.status.success(), "bench agents failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().rev().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no JSON report in {stdout}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["logged_in"], 8, "{v}");
    assert_eq!(v["logged_out"], 8, "{v}");
}

//! `GET /metrics`: every measurement in Prometheus's text exposition format (0.0.4):
//! `# HELP` and `# TYPE` before each family, base units (seconds, bytes), counters
//! ending in `_total`, histograms as cumulative `_bucket{le}` with `_sum` and `_count`.

use std::fmt::Write;
use std::sync::atomic::Ordering::Relaxed;

use super::{Histogram, Metrics};

/// Everything the page reads.
pub struct Sources<'a> {
    pub metrics: &'a Metrics,
    pub recorder: Option<&'a crate::record::RecorderStats>,
    pub indexer: Option<&'a crate::search::indexer::IndexerStats>,
    pub dreamer: Option<&'a crate::memory::dreamer::DreamerStats>,
    /// Messages waiting in the engine's inbox, and its capacity.
    pub inbox: (u64, u64),
    /// The reasons `/health` gives for being degraded (none: healthy).
    pub degraded: Vec<&'static str>,
    /// Unix seconds the server started.
    pub started_unix: f64,
    /// The data file's page cache: bytes held, pages evicted so far.
    pub store_cache: Option<(usize, u64)>,
}

/// The content type Prometheus expects of this format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

struct Page(String);

impl Page {
    fn head(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.0, "# HELP {name} {help}\n# TYPE {name} {kind}");
    }
    fn value(&mut self, name: &str, labels: &str, v: f64) {
        if labels.is_empty() {
            let _ = writeln!(self.0, "{name} {}", num(v));
        } else {
            let _ = writeln!(self.0, "{name}{{{labels}}} {}", num(v));
        }
    }
    fn one(&mut self, name: &str, kind: &str, help: &str, v: f64) {
        self.head(name, kind, help);
        self.value(name, "", v);
    }
    fn histogram(&mut self, name: &str, help: &str, h: &Histogram) {
        self.head(name, "histogram", help);
        let (buckets, sum, count) = h.snapshot();
        for (le, c) in buckets {
            let le = if le.is_infinite() { "+Inf".to_string() } else { num(le) };
            let _ = writeln!(self.0, "{name}_bucket{{le=\"{le}\"}} {c}");
        }
        self.value(&format!("{name}_sum"), "", sum);
        self.value(&format!("{name}_count"), "", count as f64);
    }
}

/// A sample value as Prometheus writes it (integers without a fraction).
fn num(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

pub fn render(s: &Sources) -> String {
    let m = s.metrics;
    let mut p = Page(String::with_capacity(8192));
    let c = |a: &std::sync::atomic::AtomicU64| a.load(Relaxed) as f64;

    p.head("pawns_build_info", "gauge", "The running build (always 1; the version is a label).");
    p.value("pawns_build_info", &format!("version=\"{}\"", env!("CARGO_PKG_VERSION")), 1.0);
    p.one("pawns_up", "gauge", "1 while the server is healthy, 0 while /health says it is degraded.", s.degraded.is_empty() as u8 as f64);
    p.head("pawns_degraded", "gauge", "1 for each reason /health gives for being degraded.");
    for reason in ["pulse_overrun", "input_held", "engine_stalled", "recorder_behind", "recorder_stalled"] {
        p.value("pawns_degraded", &format!("reason=\"{reason}\""), s.degraded.contains(&reason) as u8 as f64);
    }

    // The engine.
    p.histogram("pawns_pulse_duration_seconds", "How long each pulse of the game engine took.", &m.pulse);
    p.one("pawns_pulse_overruns_total", "counter", "Pulses that took longer than the pulse length.", c(&m.pulse_overruns));
    p.one("pawns_engine_inbox_depth", "gauge", "Messages waiting in the game engine's inbox.", s.inbox.0 as f64);
    p.one("pawns_engine_inbox_capacity", "gauge", "How many messages the engine's inbox holds.", s.inbox.1 as f64);
    p.one(
        "pawns_engine_input_held_pulses_total",
        "counter",
        "Pulses that took only a few messages from the inbox because the record was far behind.",
        c(&m.input_held_pulses),
    );
    p.one(
        "pawns_pulses_deferred_total",
        "counter",
        "Ticks whose pulse was put off because the record was further behind still.",
        c(&m.pulses_deferred),
    );
    p.one("pawns_commands_total", "counter", "Commands the engine ran (rate() gives commands per second).", c(&m.commands));
    p.one("pawns_world_objects", "gauge", "Objects in the world (on floors, carried, in containers).", c(&m.world_objects));
    p.one("pawns_world_characters", "gauge", "Characters in the world, players and mobs.", c(&m.world_characters));
    p.histogram("pawns_command_wait_seconds", "From a command's arrival at its session to the engine running it.", &m.command_wait);
    p.histogram(
        "pawns_command_reply_seconds",
        "From a command's arrival at its session to its reply written to the socket (the server's share of the round trip).",
        &m.command_reply,
    );

    // Sessions.
    p.head("pawns_sessions", "gauge", "Sessions in the world with a live connection, by protocol and role.");
    let ss = &m.sessions;
    for (proto, role, v) in [
        ("telnet", "human", &ss.telnet_human),
        ("telnet", "agent", &ss.telnet_agent),
        ("websocket", "human", &ss.websocket_human),
        ("websocket", "agent", &ss.websocket_agent),
    ] {
        p.value("pawns_sessions", &format!("protocol=\"{proto}\",role=\"{role}\""), c(v));
    }
    p.one("pawns_sessions_linkdead", "gauge", "Characters in the world whose connection is gone (awaiting resume).", c(&ss.linkdead));
    p.head("pawns_slow_consumer_cuts_total", "counter", "Sessions cut off because they stopped reading and their queue filled.");
    p.value("pawns_slow_consumer_cuts_total", "queue=\"engine\"", c(&m.slow_consumer_engine));
    p.value("pawns_slow_consumer_cuts_total", "queue=\"link\"", c(&m.slow_consumer_link));
    p.one(
        "pawns_outbound_replay_evicted_total",
        "counter",
        "Frames dropped from JSON sessions' replay rings to stay within their limits (too old to resume from).",
        c(&m.replay_evicted),
    );
    p.one(
        "pawns_replay_ring_bytes",
        "gauge",
        "Memory every JSON session's replay ring holds for resume (older frames compressed in blocks; a broadcast's shared event as a pointer).",
        c(&m.replay_bytes),
    );
    p.one(
        "pawns_replay_shared_tail_bytes",
        "gauge",
        "Memory broadcasts' shared event frames hold, once however many replay rings keep them (and the socket threads' caches of the newest).",
        c(&super::SHARED_TAIL_BYTES),
    );
    p.one("pawns_replay_ring_frames", "gauge", "Frames every JSON session's replay ring holds for resume.", c(&m.replay_frames));

    // The data file.
    if let Some((bytes, evictions)) = s.store_cache {
        p.one(
            "pawns_store_cache_bytes",
            "gauge",
            "Memory the data file's page cache holds (pages read and writes not yet flushed; capped).",
            bytes as f64,
        );
        p.one(
            "pawns_store_cache_evictions_total",
            "counter",
            "Pages the data file's page cache let go of to stay within its cap.",
            evictions as f64,
        );
    }

    // The recorder.
    p.one("pawns_recording_enabled", "gauge", "1 when the server records.", s.recorder.is_some() as u8 as f64);
    if let Some(r) = s.recorder {
        p.one("pawns_records_committed_total", "counter", "Records made durable.", c(&r.committed));
        p.one("pawns_record_commits_total", "counter", "Group commits of the record.", c(&r.batches));
        p.one("pawns_record_failures_total", "counter", "Group commits that failed.", c(&r.failures));
        p.one("pawns_record_backlog", "gauge", "Records handed to the recorder and not yet durable.", c(&r.backlog));
        p.one(
            "pawns_record_packs_total",
            "counter",
            "Session packs the record's sweeps wrote (its tail packed, one per session).",
            c(&r.packed),
        );
        p.histogram("pawns_record_commit_duration_seconds", "How long each group commit took.", &r.commit);
        p.histogram("pawns_record_commit_batch_records", "Records in each group commit.", &r.batch);
        p.histogram(
            "pawns_record_durable_lag_seconds",
            "From the engine handing a commit's records to the recorder to the commit ending, for the first hand-over of each commit (the promise is 50 ms).",
            &r.durable_lag,
        );
        p.histogram(
            "pawns_record_handover_age_seconds",
            "From a record happening to the engine handing it to the recorder, for the oldest record of each commit (a decision is handed over when its pulse ends, with its post state).",
            &r.handover_age,
        );
    }

    // Search.
    if let Some(i) = s.indexer {
        let behind = s.recorder.map(|r| r.last_id.load(Relaxed).saturating_sub(i.indexed_batch.load(Relaxed))).unwrap_or(0);
        p.one("pawns_search_documents_indexed_total", "counter", "Documents added to the search index.", c(&i.indexed_docs));
        p.one("pawns_search_commits_total", "counter", "Commits of the search index.", c(&i.commits));
        p.one("pawns_search_index_lag_batches", "gauge", "Committed record batches not yet searchable.", behind as f64);
        p.one(
            "pawns_search_index_lag_seconds",
            "gauge",
            "At the index's last commit: from the oldest record it made searchable happening to the commit.",
            i.last_lag_ms.load(Relaxed) as f64 / 1000.0,
        );
        p.one("pawns_search_failures_total", "counter", "Index commits that failed.", c(&i.failures));
        p.one(
            "pawns_search_batches_read_back_total",
            "counter",
            "Record batches the indexer read back from the data file instead of taking them from the recorder (dropped hand-offs, catching up at start, rebuilds).",
            c(&i.read_back),
        );
    }

    // Dreams.
    if let Some(d) = s.dreamer {
        p.one("pawns_dream_queue_length", "gauge", "Dreams asked for and not yet dreamed.", c(&d.queued));
        p.one("pawns_dreams_total", "counter", "Dreams dreamed.", c(&d.dreams));
        p.one("pawns_dream_failures_total", "counter", "Dreams that failed.", c(&d.failures));
        p.histogram("pawns_dream_duration_seconds", "How long each dream took.", &d.took);
    }

    // The process.
    if let Some((rss, cpu)) = super::process_sample() {
        p.one("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", rss as f64);
        p.one("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpu);
    }
    if let Some(live) = super::heap::live_bytes() {
        p.one(
            "pawns_heap_live_bytes",
            "gauge",
            "Heap bytes the program holds (a heap-count build only): RSS less this is the allocator's and the mapped files'.",
            live as f64,
        );
    }
    p.one("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", s.started_unix.floor());
    p.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_prometheus_writes_them() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(0.0025), "0.0025");
        assert_eq!(num(f64::INFINITY), "+Inf");
        assert_eq!(num(f64::NAN), "NaN");
    }

    #[test]
    fn a_page_without_background_threads() {
        let m = Metrics::default();
        m.pulse.observe(0.003);
        m.commands.fetch_add(5, Relaxed);
        let page = render(&Sources {
            metrics: &m,
            recorder: None,
            indexer: None,
            dreamer: None,
            inbox: (2, 65_536),
            degraded: vec!["pulse_overrun"],
            started_unix: 1.5e9,
            store_cache: Some((4096, 3)),
        });
        assert!(page.contains("pawns_commands_total 5\n"), "{page}");
        assert!(page.contains("pawns_pulse_duration_seconds_bucket{le=\"0.005\"} 1\n"));
        assert!(page.contains("pawns_pulse_duration_seconds_bucket{le=\"+Inf\"} 1\n"));
        assert!(page.contains("pawns_degraded{reason=\"pulse_overrun\"} 1\n"));
        assert!(page.contains("pawns_up 0\n"));
        assert!(page.contains("pawns_build_info{version=\""));
        assert!(page.contains("pawns_recording_enabled 0\n"));
        assert!(page.contains("pawns_store_cache_bytes 4096\n"), "{page}");
        assert!(page.contains("pawns_store_cache_evictions_total 3\n"));
        assert!(!page.contains("pawns_record_backlog"));
        assert!(page.ends_with('\n'));
    }
}

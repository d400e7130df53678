//! `pawns bench agents`: a load generator in the spirit of redis-benchmark. N real
//! WebSocket agents log in, then walk, look and fight at R commands per second each;
//! the summary gives command→first-reply latency percentiles and errors by code.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::agent_play::{run_agent, Run, Stats, Window};
use super::soak::Samples;
use crate::cli::BenchAgentsArgs;

/// Letters-only names: prefix + base-26 index ("bencha", "benchb", ... "benchba").
pub fn agent_name(prefix: &str, mut i: usize) -> String {
    let mut suffix = Vec::new();
    loop {
        suffix.push((b'a' + (i % 26) as u8) as char);
        i /= 26;
        if i == 0 {
            break;
        }
    }
    format!("{prefix}{}", suffix.iter().rev().collect::<String>())
}

pub fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)] as f64 / 1000.0
}

/// The server's dreamer counters (`/api/record`): (queued, dreams).
async fn dreamer_counts(base: &str) -> anyhow::Result<(u64, u64)> {
    let v: Value = serde_json::from_str(&pawns::client::get(&format!("{base}/api/record")).await?)?;
    let d = &v["dreamer"];
    if d.is_null() {
        bail!("the server does not dream (recording or dreaming is off)");
    }
    Ok((d["queued"].as_u64().unwrap_or(0), d["dreams"].as_u64().unwrap_or(0)))
}

pub use super::serve::proc_sample;

pub async fn agents(mut args: BenchAgentsArgs) -> anyhow::Result<()> {
    if args.count == 0 || args.rate.is_nan() || args.rate <= 0.0 {
        bail!("--count must be at least 1 and --rate above 0");
    }
    if args.compact && !(args.spawn || args.world.is_some()) {
        bail!("--compact measures the data file of a server the run starts itself: give --spawn (bad_request)");
    }
    eprintln!("probing this machine's idle memory (2 s) ...");
    let machine = tokio::task::spawn_blocking(super::machine::quick_probe).await?;
    // A server of the run's own, or the one at --url.
    let mut spawned = if args.spawn || args.world.is_some() {
        let extra: Vec<String> = args.serve_args.as_deref().unwrap_or("").split_whitespace().map(str::to_string).collect();
        let s = super::serve::Spawned::start(args.world.as_ref(), &extra, args.keep).await?;
        args.url = s.ws_url();
        Some(s)
    } else {
        None
    };
    let base = args.url.replacen("ws://", "http://", 1);
    let base = base.trim_end_matches("/ws").to_string();
    let keys: Vec<(String, String)> = match &args.keys {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            let keys: Vec<String> = text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect();
            if keys.len() < args.count {
                bail!("{} holds {} keys; --count is {}", path.display(), keys.len(), args.count);
            }
            keys.into_iter().take(args.count).map(|k| (String::new(), k)).collect()
        }
        None => {
            eprintln!("creating {} agent keys through {base} ...", args.count);
            let mut out = Vec::with_capacity(args.count);
            for i in 0..args.count {
                let name = agent_name(&args.prefix, i);
                let key = pawns::client::create_key(&base, &name).await.with_context(|| format!("creating a key for {name}"))?;
                out.push((name, key));
            }
            out
        }
    };
    let server_pid: Option<u32> =
        spawned.as_ref().map(|s| s.pid).or_else(|| std::env::var("PAWNS_BENCH_SERVER_PID").ok().and_then(|p| p.parse().ok()));
    let dreams_before = if args.wait_dreams { dreamer_counts(&base).await?.1 } else { 0 };
    // The server's memory before anyone connects: what each session adds is measured from it.
    let empty = server_pid.and_then(proc_sample);
    let ramp = Arc::new(Semaphore::new(args.ramp.max(1)));
    let recent = args.sample_every.map(|_| std::sync::Mutex::default());
    let window = Arc::new(Window { count: args.count, recent, ..Window::default() });
    let ramp_start = Instant::now();
    let mut tasks = Vec::with_capacity(args.count);
    let hud = args.hud_every.map(|d| (d, args.hud_format.clone()));
    let run = Arc::new(Run { url: args.url.clone(), rate: args.rate, logout: !args.no_logout, window: window.clone(), hud });
    for (i, (name, key)) in keys.into_iter().enumerate() {
        let permit = ramp.clone().acquire_owned().await?;
        // The permit is held only while connecting and logging in.
        tasks.push(tokio::spawn(run_agent(run.clone(), name, key, i as u64, permit)));
    }
    // Ramp-up: wait until every agent's login has finished, then measure the steady state.
    let settled = window.settled_all.notified();
    if window.settled.load(std::sync::atomic::Ordering::SeqCst) < args.count {
        settled.await;
    }
    let ramp_took = ramp_start.elapsed();
    // In, before anyone has done much: the memory a session costs at rest.
    let at_rest = server_pid.and_then(proc_sample);
    if !args.warmup.is_zero() {
        eprintln!("all {} logins settled in {:.1}s; the agents spread out for {:?}", args.count, ramp_took.as_secs_f64(), args.warmup);
        tokio::time::sleep(args.warmup).await;
    }
    eprintln!("all {} logins settled in {:.1}s; measuring for {:?}", args.count, ramp_took.as_secs_f64(), args.duration);
    let before = server_pid.and_then(proc_sample);
    let threads_before = server_pid.and_then(super::threads::sample);
    if let (Some(e), Some(b)) = (empty, at_rest) {
        eprintln!(
            "server RSS {:.0} MB before the agents, {:.0} MB with them in: {:.1} KiB per session",
            e.1 as f64 / 1024.0,
            b.1 as f64 / 1024.0,
            (b.1 as f64 - e.1 as f64) / args.count as f64
        );
    }
    let disk_before = spawned.as_ref().map(|s| super::serve::disk_bytes(&s.dir));
    let disk_dir = spawned.as_ref().map(|s| s.dir.clone());
    let histograms_before = super::serve::server_histograms(&base).await;
    let own_before = super::serve::own_cpu();
    let start = Instant::now();
    let _ = window.span.set((start, start + args.duration));
    window.opened.notify_waiters();
    // A soak's memory and latency over time.
    let sampler = match (args.sample_every, server_pid) {
        (Some(every), Some(pid)) => {
            let window = window.clone();
            let recent = move || {
                window.recent.as_ref().map(|r| std::mem::take(&mut *r.lock().unwrap_or_else(|e| e.into_inner()))).unwrap_or_default()
            };
            Some(super::soak::spawn(every, pid, start, base.clone(), recent))
        }
        _ => None,
    };
    // The server's CPU and memory, the load generator's CPU and the pulses, taken as the
    // window closes: the logouts after it, and the dreams they start, are not the steady
    // state being measured (they made the CPU per command swing by a fifth run to run).
    let closing = {
        let (base, end) = (base.clone(), tokio::time::Instant::from_std(start + args.duration));
        tokio::spawn(async move {
            tokio::time::sleep_until(end).await;
            let after = server_pid.and_then(proc_sample);
            let threads = server_pid.and_then(super::threads::sample);
            let own = super::serve::own_cpu();
            let disk = disk_dir.as_deref().map(super::serve::disk_bytes);
            (after, threads, own, super::serve::server_histograms(&base).await, disk)
        })
    };
    let mut total = Stats::default();
    for t in tasks {
        if let Ok(s) = t.await {
            total.merge(s);
        }
    }
    let elapsed = args.duration.as_secs_f64().min(start.elapsed().as_secs_f64());
    let (after, threads_after, own_after, histograms_after, disk_after) =
        closing.await.unwrap_or((None, None, super::serve::own_cpu(), None, None));
    // The record's bytes on disk per command answered in the window (data file + index).
    let disk = match (disk_before, disk_after) {
        (Some(b), Some(a)) if total.replies > 0 => Some((a.0.saturating_sub(b.0), a.1.saturating_sub(b.1))),
        _ => None,
    };
    let own_cpu = own_after - own_before;
    // Where the server's CPU went in the window, by thread.
    let threads = match (&threads_before, &threads_after, before, after) {
        (Some(tb), Some(ta), Some(b), Some(a)) => Some(super::threads::by_role_within(tb, ta, a.0 - b.0)),
        _ => None,
    };
    let (pulses, server_replies, durable, handover) = match (histograms_before, histograms_after) {
        (Some(b), Some(a)) => (
            Some(super::serve::bucket_delta(&b.pulses, &a.pulses)),
            Some(super::serve::bucket_delta(&b.replies, &a.replies)),
            Some(super::serve::bucket_delta(&b.durable, &a.durable)),
            Some(super::serve::bucket_delta(&b.handover, &a.handover)),
        ),
        _ => (None, None, None, None),
    };
    let durable = durable.and_then(|d| super::serve::durable_summary(&d));
    let handover_p99 = handover.and_then(|d| super::serve::bucket_quantile(&d, 0.99)).map(|s| s * 1000.0);
    // The server's share of the round trip, as its own histogram bounds it.
    let server_reply = server_replies.as_ref().and_then(|d| {
        let (p50, p99) = (super::serve::bucket_quantile(d, 0.5)?, super::serve::bucket_quantile(d, 0.99)?);
        Some((p50 * 1000.0, p99 * 1000.0, d.iter().map(|(_, n)| n).sum::<u64>()))
    });
    let soak = match sampler {
        Some((samples, task)) => {
            task.abort();
            std::mem::take(&mut *samples.lock().unwrap_or_else(|e| e.into_inner()))
        }
        None => Samples::default(),
    };
    // Every logout asked for a dream: time until the dreamer has done them all.
    let dreams = match (args.wait_dreams, total.last_logout) {
        (true, Some(last)) => {
            eprintln!("{} agents logged out; waiting for their dreams ...", total.logged_out);
            loop {
                let (queued, done) = dreamer_counts(&base).await?;
                if queued == 0 && done.saturating_sub(dreams_before) >= total.logged_out as u64 {
                    break Some((last.elapsed().as_secs_f64(), done - dreams_before));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        _ => None,
    };
    // The record compacted (`--compact`): the server stopped first (its file is locked).
    let compacted = match (args.compact, spawned.as_mut()) {
        (true, Some(s)) => {
            eprintln!("stopping the server; compacting a copy of its data file and counting the decisions in it ...");
            s.stop();
            let dir = s.dir.clone();
            Some(tokio::task::spawn_blocking(move || super::compacted::measure(&dir)).await??)
        }
        _ => None,
    };
    total.latencies_us.sort_unstable();
    let l = &total.latencies_us;
    let over_10ms = pulses.as_ref().map(|p| p.iter().filter(|(le, _)| *le > 0.01).map(|(_, n)| n).sum::<u64>());
    let mut summary = json!({
        "agents": args.count,
        "connected": total.connected,
        "logged_in": total.logged_in,
        "rate_per_agent": args.rate,
        "ramp_s": ramp_took.as_secs_f64(),
        "warmup_s": args.warmup.as_secs_f64(),
        "duration_s": elapsed,
        "commands_sent": total.sent,
        "replies": total.replies,
        "errors": total.errors,
        "failures": total.failures,
        "latency_ms": {"p50": percentile(l, 0.5), "p99": percentile(l, 0.99), "max": percentile(l, 1.0)},
        // Upper bounds of the buckets of the server's own histogram (read → written).
        "server_reply_ms": server_reply.map(|(p50, p99, n)| json!({"p50_at_most": p50, "p99_at_most": p99, "commands": n})),
        "record_durable": durable.map(|(p99, late, commits)| json!({"p99_ms_at_most": p99, "late_commits": late, "commits": commits, "handover_age_p99_ms_at_most": handover_p99})),
        "frames_received": total.frames.iter().map(|(k, n, b)| (k.clone(), json!({"frames": n, "bytes": b}))).collect::<serde_json::Map<_, _>>(),
        "record_disk": disk.map(|(f, i)| json!({
            "data_file_bytes": f,
            "index_bytes": i,
            "bytes_per_command": (f + i) as f64 / total.replies as f64,
            "mb_per_agent_hour": (f + i) as f64 / 1e6 / (args.count as f64 * elapsed / 3600.0),
        })),
        "record_compacted": compacted.map(|c| json!({
            "data_file_bytes": c.data_bytes,
            "index_bytes": c.index_bytes,
            "decisions": c.decisions,
            "records": c.records,
            "bytes_per_decision": c.bytes_per_decision(),
        })),
        "logged_out": total.logged_out,
        "huds": total.huds,
        "dreams": dreams.map(|(secs, n)| json!({"all_done_s": secs, "dreams": n})),
        "load_generator_cpu_percent": own_cpu / elapsed * 100.0,
        "machine_idle_2s_read_us": machine,
        "pulses": pulses.as_ref().map(|p| json!({
            "buckets": p.iter().map(|(le, n)| json!([if le.is_finite() { json!(le) } else { json!("+Inf") }, n])).collect::<Vec<_>>(),
            "over_10ms": over_10ms,
        })),
        "server": match (before, after) {
            (Some(b), Some(a)) => json!({
                "cpu_percent": (a.0 - b.0) / elapsed * 100.0,
                "cpu_ms_per_command": if total.replies > 0 { (a.0 - b.0) * 1000.0 / total.replies as f64 } else { 0.0 },
                "rss_mb": a.1 as f64 / 1024.0,
                "rss_per_session_at_rest_kib": match (empty, at_rest) { (Some(e), Some(r)) => Some((r.1 as f64 - e.1 as f64) / args.count as f64), _ => None },
                "rss_per_session_kib": empty.map(|e| (a.1 as f64 - e.1 as f64) / args.count as f64),
                "cpu_percent_by_thread": threads.as_ref().map(|t| t.iter().map(|(r, s)| (r.to_string(), json!(s / elapsed * 100.0))).collect::<serde_json::Map<_, _>>()),
                "recording_percent_of_cpu": threads.as_ref().map(|t| super::threads::recording_share(t) * 100.0),
                "recording_percent_of_cpu_with_other": threads.as_ref().map(|t| super::threads::recording_share_with_other(t) * 100.0),
            }),
            _ => Value::Null,
        },
    });
    if let Some(fields) = summary.as_object_mut() {
        fields.extend(soak.json_fields());
    }
    if args.json {
        println!("{summary}");
    } else {
        println!("====== pawns bench agents ======");
        println!("  agents:            {} ({} connected, {} logged in)", args.count, total.connected, total.logged_in);
        println!("  ramp-up:           {:.1}s until every login settled (not measured)", ramp_took.as_secs_f64());
        if !args.warmup.is_zero() {
            println!("  warm-up:           {:?} of play before measuring (not measured)", args.warmup);
        }
        println!("  rate:              {} commands/s per agent for {:.1}s", args.rate, elapsed);
        println!("  commands sent:     {}", total.sent);
        if args.hud_every.is_some() {
            println!("  HUDs asked for:    {} ({} every {:?})", total.huds, args.hud_format, args.hud_every.unwrap_or_default());
        }
        println!("  replies received:  {}", total.replies);
        println!("  errors by code:    {}", if total.errors.is_empty() { "none".into() } else { format!("{:?}", total.errors) });
        if !total.failures.is_empty() {
            println!("  failures:          {:?}", total.failures);
        }
        println!(
            "  latency (command → first reply): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            percentile(l, 0.5),
            percentile(l, 0.99),
            percentile(l, 1.0)
        );
        if let Some((p50, p99, n)) = server_reply {
            println!("  in the server:     p50 ≤ {p50} ms, p99 ≤ {p99} ms (read → reply written, its /metrics buckets, {n} commands)");
        }
        if let Some((p99, late, commits)) = durable {
            println!(
                "  record durable:    p99 ≤ {p99} ms after the engine handed it over, {late} of {commits} commits later than {} ms (the promise){}",
                pawns::metrics::DURABLE_PROMISE_US / 1000,
                handover_p99.map_or(String::new(), |h| format!(
                    "; the oldest record of a commit was ≤ {h} ms old at the hand-over (p99: a decision is handed over when its pulse ends)"
                ))
            );
        }
        let (frames, bytes) = total.frames.iter().fold((0, 0), |(f, b), (_, n, by)| (f + n, b + by));
        if frames > 0 {
            let per = total.frames.iter().map(|(k, n, b)| format!("{k} {n} ({:.0} B)", *b as f64 / (*n).max(1) as f64)).collect::<Vec<_>>();
            println!(
                "  received:          {frames} frames, {:.1} MB, {:.1} per command: {}",
                bytes as f64 / 1e6,
                frames as f64 / total.sent.max(1) as f64,
                per.join(" · ")
            );
        }
        if let Some((f, i)) = disk {
            println!(
                "  record on disk:    +{:.1} MB data file, +{:.1} MB index in the window: {:.0} bytes per command, {:.1} MB per agent-hour \
                 (file growth: redb grows in regions; `pawns compact` a kept copy for the bytes in use)",
                f as f64 / 1e6,
                i as f64 / 1e6,
                (f + i) as f64 / total.replies.max(1) as f64,
                (f + i) as f64 / 1e6 / (args.count as f64 * elapsed / 3600.0)
            );
        }
        if let Some(c) = compacted {
            println!(
                "  record compacted:  {:.1} MB data file + {:.1} MB index for {} decisions ({} records): {:.0} + {:.0} = {:.0} bytes per decision \
                 (a copy of the data file compacted after the run; warm-up and logouts included)",
                c.data_bytes as f64 / 1e6,
                c.index_bytes as f64 / 1e6,
                c.decisions,
                c.records,
                c.data_bytes as f64 / c.decisions.max(1) as f64,
                c.index_bytes as f64 / c.decisions.max(1) as f64,
                c.bytes_per_decision()
            );
        }
        if !args.no_logout {
            println!("  logged out:        {} (quit; fighters fled first)", total.logged_out);
        }
        if let Some((secs, n)) = dreams {
            println!("  dreams:            {n} dreamed, the last {secs:.1}s after the last logout");
        }
        if let Some(p) = &pulses {
            println!("  pulses:            {} ({} over 10 ms)", super::serve::describe_buckets(p), over_10ms.unwrap_or(0));
        }
        if let Some(s) = summary["server"].as_object() {
            println!(
                "  server:            {:.0}% CPU ({:.3} ms per command), {:.0} MB RSS ({:.1} KiB per session at rest, {:.1} at the end)",
                s["cpu_percent"].as_f64().unwrap_or(0.0),
                s["cpu_ms_per_command"].as_f64().unwrap_or(0.0),
                s["rss_mb"].as_f64().unwrap_or(0.0),
                s["rss_per_session_at_rest_kib"].as_f64().unwrap_or(f64::NAN),
                s["rss_per_session_kib"].as_f64().unwrap_or(f64::NAN)
            );
        }
        if let Some(t) = &threads {
            println!("  server by thread:  {}", super::threads::describe(t, elapsed));
        }
        soak.print();
        println!("  load generator:    {:.0}% CPU (on the same machine)", own_cpu / elapsed * 100.0);
        println!("  machine:           {}", super::machine::probe_line(machine));
    }
    drop(spawned);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_letters_only_and_distinct() {
        assert_eq!(agent_name("bench", 0), "bencha");
        assert_eq!(agent_name("bench", 25), "benchz");
        assert_eq!(agent_name("bench", 26), "benchba");
        let names: std::collections::HashSet<_> = (0..5000).map(|i| agent_name("b", i)).collect();
        assert_eq!(names.len(), 5000);
        assert!(names.iter().all(|n| pawns::auth::names::check(n).is_ok()));
    }

    #[test]
    fn percentiles() {
        let v: Vec<u32> = (1..=100).map(|x| x * 1000).collect();
        assert_eq!(percentile(&v, 0.5), 51.0);
        assert_eq!(percentile(&v, 1.0), 100.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}

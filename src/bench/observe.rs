//! `pawns bench observatory`: against a running server (with agents playing), the time
//! the observatory takes to load — its page, script and style, then who is online and
//! one agent's timeline, fetched as the page does — and how late its live follow shows
//! that agent's records (receipt time minus the time the record happened).

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use futures_util::StreamExt;

use crate::cli::BenchObservatoryArgs;

fn pct(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1]
}

async fn get(base: &str, path: &str) -> anyhow::Result<(f64, usize)> {
    let t = Instant::now();
    let body = pawns::client::get(&format!("{base}{path}")).await.with_context(|| format!("GET {path}"))?;
    Ok((t.elapsed().as_secs_f64() * 1000.0, body.len()))
}

pub async fn run(args: BenchObservatoryArgs) -> anyhow::Result<()> {
    let base = args.server.trim_end_matches('/').to_string();
    let agent = args.follow.to_ascii_lowercase();
    let (mut total, mut who, mut timeline) = (Vec::new(), Vec::new(), Vec::new());
    let mut sizes = (0, 0);
    for _ in 0..args.loads {
        let t = Instant::now();
        get(&base, "/observatory").await?;
        // The browser fetches the page's three files together.
        let (a, b, c) = tokio::join!(get(&base, "/static/style.css"), get(&base, "/static/graph.js"), get(&base, "/static/observatory.js"));
        a?;
        b?;
        c?;
        let (w, wn) = get(&base, "/api/observe/who").await?;
        let (tl, tn) = get(&base, &format!("/api/observe/agents/{agent}/timeline?limit=300")).await?;
        total.push(t.elapsed().as_secs_f64() * 1000.0);
        who.push(w);
        timeline.push(tl);
        sizes = (wn, tn);
    }
    println!(
        "page load ({} loads): p50 {:.1} ms, p99 {:.1} ms; of it /api/observe/who p50 {:.1} ms ({} bytes), timeline p50 {:.1} ms ({} bytes)",
        args.loads,
        pct(&mut total.clone(), 0.5),
        pct(&mut total, 0.99),
        pct(&mut who, 0.5),
        sizes.0,
        pct(&mut timeline, 0.5),
        sizes.1
    );
    let ws_base = base.replacen("http://", "ws://", 1);
    let (mut ws, _) =
        tokio_tungstenite::connect_async(format!("{ws_base}/api/observe/live?agent={agent}")).await.context("the live follow")?;
    let until = Instant::now() + Duration::from_secs(args.seconds);
    let mut late = Vec::new();
    let mut by_kind: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut who_msgs = 0;
    while let Ok(Some(msg)) = tokio::time::timeout(until.saturating_duration_since(Instant::now()), ws.next()).await {
        let now = pawns::time::unix_us();
        let v: serde_json::Value = serde_json::from_str(msg?.to_text().unwrap_or("{}")).unwrap_or_default();
        match v["type"].as_str() {
            Some("records") => {
                for r in v["records"].as_array().into_iter().flatten() {
                    let ms = now.saturating_sub(r["at_us"].as_u64().unwrap_or(now)) as f64 / 1000.0;
                    late.push(ms);
                    let kind = match r["body"]["kind"].as_str().unwrap_or("?") {
                        "transition" => format!("transition {}", r["body"]["what"].as_str().unwrap_or("?")),
                        "observation" => format!("observation {}", r["body"]["event_type"].as_str().unwrap_or("?")),
                        k => k.to_string(),
                    };
                    by_kind.entry(kind).or_default().push(ms);
                }
            }
            Some("who") => who_msgs += 1,
            Some("lagged") => eprintln!("the live follow lagged: {v}"),
            _ => {}
        }
    }
    if late.is_empty() {
        bail!("no record of {agent} came in {} s: is it playing, and is recording on?", args.seconds);
    }
    println!(
        "live follow of {agent} ({} s): {} records, shown p50 {:.1} ms / p99 {:.1} ms / max {:.1} ms after they happened; {} who updates",
        args.seconds,
        late.len(),
        pct(&mut late.clone(), 0.5),
        pct(&mut late.clone(), 0.99),
        pct(&mut late, 1.0),
        who_msgs
    );
    for (kind, mut v) in by_kind {
        let n = v.len();
        println!("  {kind:<24} {n:>5} records, p50 {:.1} ms, p99 {:.1} ms", pct(&mut v.clone(), 0.5), pct(&mut v, 0.99));
    }
    Ok(())
}

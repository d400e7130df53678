//! `pawns eval`: the metrics from the record — offline on the data file, or computed by
//! the running server that holds it — written as a Markdown report with SVG plots, or
//! printed as JSON.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use pawns::research::{By, Evaluation, Filter};
use pawns_storage::StoreError;

use super::EvalArgs;

/// `--since`: a span back from now (`2h`, `7d`), a date (`2026-11-23`) or a time
/// (`2026-11-23T10:00:00Z`); unix µs.
pub fn parse_since(s: &str) -> Result<u64, String> {
    if let Ok(d) = pawns::time::parse_duration(s) {
        return Ok(pawns::record::unix_us().saturating_sub(d.as_micros() as u64));
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return u64::try_from(t.timestamp_micros()).map_err(|_| format!("{s:?} is before 1970"));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        let t = d.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp_micros()).unwrap_or(0);
        return u64::try_from(t).map_err(|_| format!("{s:?} is before 1970"));
    }
    Err(format!("{s:?} is neither a span back from now (2h, 7d), a date (2026-11-23) nor a time (2026-11-23T10:00:00Z)"))
}

/// The filter from `--agents` and `--since`.
pub fn filter(agents: &[String], since: Option<u64>) -> anyhow::Result<Filter> {
    let mut out = Vec::new();
    for a in agents.iter().flat_map(|a| a.split(',')).map(str::trim).filter(|a| !a.is_empty()) {
        pawns::auth::names::check(a).map_err(|m| anyhow::anyhow!("--agents: {a:?}: {m} (invalid_name)"))?;
        out.push(a.to_ascii_lowercase());
    }
    Ok(Filter { agents: out, since_us: since.unwrap_or(0), ..Default::default() })
}

/// The evaluation: from the data file (read only) if there is one and no server holds
/// it, else from the server.
pub async fn evaluate(place: &super::Place, filter: Filter, by: By, quiet: bool) -> anyhow::Result<Evaluation> {
    let f = filter.clone();
    let offline = super::commands::read_offline(place, move |store| {
        let mut last = 0;
        Ok(pawns::research::evaluate_store(store, &f, by, &mut |done, total| {
            let pct = done * 100 / total.max(1);
            if !quiet && pct >= last + 10 {
                last = pct;
                eprintln!("  read {done} of {total} sessions ({pct} %)");
            }
        })?)
    })
    .await?;
    let held = match offline {
        Ok(e) => return Ok(e),
        Err(held) => held,
    };
    let url =
        format!("{}/api/admin/eval?filter={}&by={}", place.server(), super::commands::percent(&serde_json::to_string(&filter)?), by.name());
    let body = pawns::client::get(&url).await.with_context(|| place.why_server(held))?;
    serde_json::from_str(&body).context("the server's evaluation is not what this build reads")
}

/// Writes `report.md`, `evaluation.json` and the plots into `dir`; the report's path.
pub fn write_report(e: &Evaluation, dir: &Path, force: bool) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let report = dir.join("report.md");
    let json = dir.join("evaluation.json");
    // Every file is checked before any is written: a report is never half replaced.
    for p in [&report, &json].into_iter().chain(pawns::research::plots::NAMES.iter().map(|n| dir.join(n)).collect::<Vec<_>>().iter()) {
        pawns_storage::files::check_dest(p, force).map_err(super::commands::file_err)?;
    }
    let plots = pawns::research::plots::write_all(e, dir, force).map_err(|m| anyhow::anyhow!("drawing the plots: {m}"))?;
    let names: Vec<String> = plots.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
    pawns_storage::files::write_new(&report, pawns::research::report::markdown(e, &names).as_bytes(), force)
        .map_err(super::commands::file_err)?;
    pawns_storage::files::write_new(&json, &serde_json::to_vec_pretty(e)?, force).map_err(super::commands::file_err)?;
    Ok(report)
}

pub async fn eval(args: EvalArgs) -> anyhow::Result<()> {
    let default_by = if args.select.run.is_some() { "arm" } else { "valence" };
    let by = By::parse(args.by.as_deref().unwrap_or(default_by)).map_err(|m| anyhow::anyhow!("--by: {m} (bad_request)"))?;
    let filter = args.select.filter(&args.place).await?;
    let e = evaluate(&args.place, filter, by, args.json).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&e)?);
        return Ok(());
    }
    if e.sample.sessions == 0 {
        bail!(
            "no agent session matches (agents: {}, since: {}): nothing to evaluate (no_sessions)",
            if e.filter.agents.is_empty() { "all".into() } else { e.filter.agents.join(",") },
            e.filter.since_us
        );
    }
    let report = write_report(&e, &args.out, args.force)?;
    let s = &e.sample;
    println!(
        "Evaluated {} agents: {} sessions, {} decisions, {} trials, {} social acts, {} dreams in {:.0} ms.",
        s.agents, s.sessions, s.decisions, s.trials, s.social_events, s.dreams, e.elapsed_ms
    );
    println!("Report: {} (with bps.svg, scs.svg, decay.svg, cost.svg, evaluation.json)", report.display());
    Ok(())
}

pub async fn experiment(args: super::ExperimentArgs) -> anyhow::Result<()> {
    use pawns::research::experiment::{run_fleet, ExperimentOptions, FleetReport};
    if !(args.minutes > 0.0 && args.session_minutes > 0.0) {
        bail!("--minutes and --session-minutes must be more than 0 (bad_request)");
    }
    if args.agents == 0 {
        bail!("--agents must be at least 1 (bad_request)");
    }
    pawns::auth::names::check(&format!("{}off01", args.prefix)).map_err(|m| anyhow::anyhow!("--prefix: {m} (invalid_name)"))?;
    let opts = ExperimentOptions {
        server: args.server.clone(),
        agents: args.agents,
        duration: std::time::Duration::from_secs_f64(args.minutes * 60.0),
        session: std::time::Duration::from_secs_f64(args.session_minutes * 60.0),
        policy: args.policy,
        llm_endpoint: args.llm_endpoint.clone(),
        model: args.model.clone(),
        prefix: args.prefix.clone(),
        pace: args.pace,
        seed: args.seed,
        llm_agents: args.llm_agents,
    };
    if let Some(id) = &args.run {
        pawns::research::runs::check_id(id).map_err(|m| anyhow::anyhow!("--run: {m} (bad_request)"))?;
    }
    let fleet_members = pawns::research::experiment::members(&args.prefix, args.agents, args.policy, args.llm_agents);
    // Registered with the server that holds the data file: what runs, with what.
    let run = pawns::research::runs::Run {
        id: args.run.clone().unwrap_or_default(),
        kind: "experiment".into(),
        command_line: std::env::args().collect(),
        seed: Some(args.seed),
        pace_ms: Some(args.pace.as_millis() as u64),
        session_secs: Some(args.session_minutes * 60.0),
        arms: pawns::research::experiment::arms(&fleet_members, &args.model),
        ..Default::default()
    };
    let base = args.server.trim_end_matches('/');
    let (status, body) = pawns::client::post_json(&format!("{base}/api/admin/runs"), &serde_json::to_value(&run)?)
        .await
        .with_context(|| format!("registering the run with {base}"))?;
    if status != 201 {
        bail!("registering the run: the server answered {status}: {}", body.trim());
    }
    let run: pawns::research::runs::Run = serde_json::from_str(&body).context("the server's run is not what this build reads")?;
    println!("Run {} registered.", run.id);
    println!(
        "Experiment: {} agents ({} valence on, {} off) and {} on the model, {:.1} min in sessions of {:.1} min, policy {}, against {}",
        args.agents,
        args.agents.div_ceil(2),
        args.agents / 2,
        args.llm_agents,
        args.minutes,
        args.session_minutes,
        args.policy.name(),
        args.server
    );
    let progress = std::sync::Arc::new(|r: &FleetReport, line: &str| {
        println!("  [{} sessions, {} turns, {} deaths] {line}", r.sessions, r.turns, r.deaths);
    });
    let fleet = run_fleet(&opts, progress).await.map_err(|m| anyhow::anyhow!("{m}"))?;
    println!(
        "Played {:.0} s: {} sessions, {} turns, {} deaths, {} kills; {} failures.",
        fleet.secs,
        fleet.sessions,
        fleet.turns,
        fleet.deaths,
        fleet.kills,
        fleet.failures.len()
    );
    for f in fleet.failures.iter().take(10) {
        println!("  ! {f}");
    }
    let (status, body) = pawns::client::post_json(&format!("{base}/api/admin/runs/{}/end", run.id), &serde_json::json!({"fleet": fleet}))
        .await
        .with_context(|| format!("ending the run with {base}"))?;
    if status != 200 {
        bail!("ending the run: the server answered {status}: {}", body.trim());
    }
    let run: pawns::research::runs::Run = serde_json::from_str(&body).context("the server's run is not what this build reads")?;
    // The server holds the data file: it evaluates exactly the run, split by its arms.
    let server = super::Place { db: None, server: Some(args.server.clone()) };
    let e = evaluate(&server, run.filter(), By::Arm, true).await?;
    let report = write_report(&e, &args.out, args.force)?;
    pawns_storage::files::write_new(&args.out.join("fleet.json"), &serde_json::to_vec_pretty(&run)?, args.force)
        .map_err(super::commands::file_err)?;
    println!("Run {}: pawns eval --run {} (or runs show / compare) reads it again.", run.id, run.id);
    println!("Report: {}", report.display());
    Ok(())
}

/// `pawns export tables|decisions|sessions --format parquet --out DIR`: the record's
/// tables as Parquet (`table` empty: all of them), from the data file or by the server.
pub async fn parquet(args: super::ExportArgs, table: &str) -> anyhow::Result<()> {
    if args.format != "parquet" {
        bail!("--format: tables are exported as parquet only (bad_request)");
    }
    let Some(out) = args.out.clone() else { bail!("--out DIR is required for parquet: the files go there (bad_request)") };
    let filter = args.select.filter(&args.place).await?;
    let tables: Vec<String> = if table.is_empty() { vec![] } else { vec![table.to_string()] };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let out = out.canonicalize().with_context(|| format!("finding {}", out.display()))?;
    let (f, dir, t, force) = (filter.clone(), out.clone(), tables.clone(), args.force);
    let offline = super::commands::read_offline(&args.place, move |store| {
        pawns::research::parquet::export(store, &f, &dir, &t, force).map_err(|e| match e {
            pawns::research::parquet::ExportError::Store(s) => anyhow::Error::new(s),
            e => anyhow::anyhow!("{e} ({})", e.code()),
        })
    })
    .await?;
    let written = match offline {
        Ok(w) => w,
        Err(held) => {
            let url = format!(
                "{}/api/admin/export/parquet?dir={}&filter={}&tables={}{}",
                args.place.server(),
                super::commands::percent(&out.display().to_string()),
                super::commands::percent(&serde_json::to_string(&filter)?),
                tables.join(","),
                if args.force { "&force=1" } else { "" }
            );
            let (status, body) =
                pawns::client::call(reqwest::Method::POST, &url, None).await.with_context(|| args.place.why_server(held))?;
            if status != 200 {
                bail!("the server answered {status}: {}", body.trim());
            }
            serde_json::from_str(&body).context("the server's answer is not what this build reads")?
        }
    };
    for (path, rows) in &written.files {
        println!("{path}: {rows} rows");
    }
    Ok(())
}

/// `pawns replay`: offline (the engine is rebuilt here), on a file no server holds.
pub async fn replay(args: super::ReplayArgs) -> anyhow::Result<()> {
    use pawns::replay::run::{ReplayError, ReplayOptions};
    let window = match (&args.from, &args.to) {
        (None, None) if args.run.is_some() => {
            let place = super::Place { db: Some(args.db.clone()), server: None };
            let r = super::select::run(&place, args.run.as_deref().unwrap_or_default()).await?;
            Some((r.started_us, r.ended_us.unwrap_or(u64::MAX)))
        }
        (None, None) => None,
        (Some(f), to) => {
            let from = parse_since(f).map_err(|m| anyhow::anyhow!("--from: {m} (bad_request)"))?;
            let to = to.as_deref().map(parse_since).transpose().map_err(|m| anyhow::anyhow!("--to: {m} (bad_request)"))?;
            Some((from, to.unwrap_or(u64::MAX)))
        }
        (None, Some(_)) => bail!("--to needs --from (bad_request)"),
    };
    if args.session.is_none() && window.is_none() {
        bail!("name a session (--session ID), a run (--run ID) or a window (--from T [--to T]) (bad_request)");
    }
    if !args.db.is_file() {
        bail!("no data file at {} (db_missing); pass --db FILE", args.db.display());
    }
    let opts = ReplayOptions { session: args.session, window };
    let (db, quiet) = (args.db.clone(), args.json);
    // Replay reads the file only: it stays byte for byte as it was.
    let out = tokio::task::spawn_blocking(move || -> Result<_, ReplayError> {
        let (store, _scratch) = match super::commands::open_for_reading(&db) {
            Ok(s) => s,
            Err(e) => match e.downcast::<StoreError>() {
                Ok(s) => return Err(ReplayError::Store(s)),
                Err(e) => return Err(ReplayError::Store(StoreError::Corrupt(format!("{e:#}")))),
            },
        };
        pawns::replay::run::replay(&store, &opts, &mut |done, total| {
            if !quiet {
                eprintln!("  replayed {done} of {total} pulses");
            }
        })
    })
    .await?;
    let report = match out {
        Ok(r) => r,
        Err(ReplayError::Store(StoreError::Locked { .. })) => {
            bail!(
                "{} is held by a running server: stop it, or replay a copy (pawns backup --out copy.redb) (store_locked)",
                args.db.display()
            )
        }
        Err(e) => bail!("{e} ({})", e.code()),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "Replayed run {}: {} pulses, {} inputs ({} KiB of journal) in {:.0} ms.",
            report.run,
            report.pulses,
            report.inputs,
            report.journal_bytes / 1024,
            report.elapsed_ms
        );
        for s in &report.sessions {
            println!("  session {} ({}): {} records {}", s.session, s.agent, s.records, if s.identical { "identical" } else { "DIFFER" });
        }
    }
    if let Some(d) = &report.divergence {
        if !args.json {
            println!("First difference: session {} seq {}", d.session, d.seq);
            println!("  recorded: {}", d.recorded.as_ref().map(|v| v.to_string()).unwrap_or_else(|| "(none)".into()));
            println!("  replayed: {}", d.replayed.as_ref().map(|v| v.to_string()).unwrap_or_else(|| "(none)".into()));
        }
        bail!("the replay diverged from the record at session {} seq {} (replay_diverged)", d.session, d.seq);
    }
    Ok(())
}

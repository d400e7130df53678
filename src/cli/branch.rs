//! `pawns branch --run R --at T --change C --out FILE`: the run played again from its
//! journal to T into a new data file (its past checked against the parent's record),
//! then a server started from that engine and the run's fleet playing on with one change;
//! the branch is a run of its own (parent, change, branch point) that `runs compare`
//! reads beside the parent's future.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use pawns::agent::Policy;
use pawns::replay::branch::{prepare, BranchReport};
use pawns::replay::change::Change;
use pawns::research::experiment::{ExperimentOptions, FleetReport, Member};
use pawns::research::runs::Run;
use pawns_storage::{Store, StoreError};

#[derive(Args, Debug)]
pub struct BranchArgs {
    /// The run to branch (`pawns runs list`): an experiment, whose fleet plays on.
    #[arg(long)]
    pub run: String,
    /// The branch point: a span into the run (90s, 10m) or a time (2026-11-28T10:00:00Z).
    #[arg(long)]
    pub at: String,
    /// The one change: none | forget:AGENT | forget:AGENT:NAME | swap:A:B |
    /// valence-off[:AGENT] | policy:[AGENT=]fsm|llm|random | model:NAME | remove:AGENT.
    #[arg(long)]
    pub change: String,
    /// The branch's data file (it must not exist).
    #[arg(long)]
    pub out: PathBuf,
    /// The parent's data file (read only; a server must not hold it: branch a backup).
    #[arg(long, default_value = "pawns.redb")]
    pub db: PathBuf,
    /// The branch's run id (default: the parent's with `-b` and the time).
    #[arg(long)]
    pub name: Option<String>,
    /// How long the branch plays (default: as long as the parent played after T).
    #[arg(long)]
    pub minutes: Option<f64>,
    /// Make the branch's file at its branch point and play nothing.
    #[arg(long)]
    pub no_play: bool,
    /// The model endpoint for agents on the model (OpenAI-compatible).
    #[arg(long, default_value = "")]
    pub llm_endpoint: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--at`: a span from the run's start, or a time.
fn branch_point(at: &str, run: &Run) -> anyhow::Result<u64> {
    let t = match pawns::time::parse_duration(at) {
        Ok(d) => run.started_us + d.as_micros() as u64,
        Err(_) => chrono::DateTime::parse_from_rfc3339(at)
            .ok()
            .and_then(|t| u64::try_from(t.timestamp_micros()).ok())
            .ok_or_else(|| anyhow::anyhow!("--at {at:?}: give a span into the run (90s, 10m) or a time (RFC 3339) (bad_request)"))?,
    };
    let end = run.ended_us.unwrap_or(u64::MAX);
    if t <= run.started_us || t >= end {
        bail!("--at {at:?}: the branch point must fall inside run {} (bad_request)", run.id);
    }
    Ok(t)
}

/// The parent's fleet, from its arms.
fn fleet_of(run: &Run) -> (Vec<Member>, String) {
    let mut model = String::new();
    let mut fleet = Vec::new();
    for a in &run.arms {
        let policy = match a.policy.as_str() {
            "llm" => Policy::Llm,
            "random" => Policy::Random,
            _ => Policy::Fsm,
        };
        if policy == Policy::Llm && !a.model.is_empty() {
            model = a.model.clone();
        }
        fleet.extend(a.agents.iter().map(|n| Member { name: n.clone(), valence: a.valence, policy }));
    }
    (fleet, model)
}

pub async fn branch(args: BranchArgs) -> anyhow::Result<()> {
    let change = Change::parse(&args.change).map_err(|m| anyhow::anyhow!("--change: {m} (bad_request)"))?;
    if let Some(n) = &args.name {
        pawns::research::runs::check_id(n).map_err(|m| anyhow::anyhow!("--name: {m} (bad_request)"))?;
    }
    if args.minutes.is_some_and(|m| m.is_nan() || m <= 0.0) {
        bail!("--minutes must be more than 0 (bad_request)");
    }
    if !args.db.is_file() {
        bail!("no data file at {} (db_missing); pass --db FILE", args.db.display());
    }
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
        bail!("--out: there is no folder {} (bad_request)", dir.display());
    }
    if args.out.exists() || args.out.is_symlink() {
        bail!("{} is there already (exists): a branch is written to a new file", args.out.display());
    }
    let place = super::Place { db: Some(args.db.clone()), server: None };
    let parent = super::select::run(&place, &args.run).await?;
    let at_us = branch_point(&args.at, &parent)?;
    let (mut fleet, mut model) = fleet_of(&parent);
    for a in change.agents() {
        if !fleet.iter().any(|m| m.name.eq_ignore_ascii_case(a)) && !parent.arms.is_empty() {
            bail!("--change: {a} is not one of run {}'s agents (bad_request)", parent.id);
        }
    }
    if fleet.is_empty() && !args.no_play {
        bail!("run {} has no fleet of its own (a server run): pass --no-play to make the branch's file only (bad_request)", parent.id);
    }
    pawns::research::experiment::change_fleet(&change, &mut fleet, &mut model);

    // The past, replayed into the branch's file.
    let (db, out, ch, quiet) = (args.db.clone(), args.out.clone(), change.clone(), args.json);
    let from = parent.started_us;
    let made = tokio::task::spawn_blocking(move || {
        let (store, _scratch) = super::commands::open_for_reading(&db)?;
        prepare(&store, from, at_us, &out, &ch, &mut |done, total| {
            if !quiet {
                eprintln!("  replayed {done} of {total} pulses");
            }
        })
        .map_err(|e| match e {
            pawns::replay::run::ReplayError::Store(StoreError::Locked { .. }) => {
                anyhow::anyhow!("{} is held by a running server: branch a copy (pawns backup) (store_locked)", db.display())
            }
            e => anyhow::anyhow!("{e} ({})", e.code()),
        })
    })
    .await??;
    let (engine, report) = (made.engine, made.report);
    if !args.json {
        say_past(&report);
    }
    // The branch, registered in its own file.
    let child = Run {
        id: args.name.clone().unwrap_or_else(|| format!("{}-b{}", parent.id, chrono::Utc::now().format("%H%M%S"))),
        kind: "branch".into(),
        command_line: std::env::args().collect(),
        seed: parent.seed,
        pace_ms: parent.pace_ms,
        session_secs: parent.session_secs,
        arms: pawns::research::experiment::arms(&fleet, &model),
        parent: Some(parent.id.clone()),
        change: Some(change.to_string()),
        branched_at_us: Some(at_us),
        ..Default::default()
    };
    let out = args.out.clone();
    let child = tokio::task::spawn_blocking(move || -> anyhow::Result<Run> {
        let (store, _) = Store::open(&out)?;
        pawns::research::runs::register(&store, child).map_err(|e| anyhow::anyhow!("{e} ({})", e.code()))
    })
    .await??;
    if args.no_play {
        drop(engine);
        return finish(&args, &report, &child, None);
    }
    let minutes = args.minutes.unwrap_or_else(|| parent.ended_us.unwrap_or(at_us).saturating_sub(at_us) as f64 / 6e7);
    let fleet_report = play_on(&args, engine, report.journal_run, &child, fleet, model, minutes).await?;
    finish(&args, &report, &child, Some(fleet_report))
}

/// The branch's server, from the engine at the branch point, and its fleet playing on.
async fn play_on(
    args: &BranchArgs,
    engine: pawns::game::Engine,
    journal_run: u64,
    child: &Run,
    fleet: Vec<Member>,
    model: String,
    minutes: f64,
) -> anyhow::Result<FleetReport> {
    // The fleet's own server, on loopback: its pace, not a rate limit, sets how fast it plays.
    let cfg =
        pawns::server::ServerConfig { db: args.out.clone(), dream_daily: None, cmd_rate: 1000.0, cmd_burst: 1000.0, ..Default::default() };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.context("binding the branch's server")?;
    let server = pawns::server::start_branch(cfg, listener, engine, journal_run).await?;
    let store = server.shared.accounts.store().clone();
    let journal = {
        let store = store.clone();
        pawns::agent::llm::Journal(Arc::new(move |m: &str, s: &str, u: &str| {
            pawns::record::model_journal::lookup(&store, m, s, u).ok().flatten()
        }))
    };
    let opts = ExperimentOptions {
        server: format!("http://{}", server.addr),
        agents: fleet.len(),
        duration: Duration::from_secs_f64(minutes * 60.0),
        session: Duration::from_secs_f64(child.session_secs.unwrap_or(600.0)),
        policy: Policy::Fsm,
        llm_endpoint: args.llm_endpoint.clone(),
        model,
        prefix: String::new(),
        pace: Duration::from_millis(child.pace_ms.unwrap_or(500)),
        seed: child.seed.unwrap_or(1),
        llm_agents: 0,
    };
    if !args.json {
        println!("Branch {} plays on for {minutes:.1} min with {} agents at {}.", child.id, fleet.len(), opts.server);
    }
    let quiet = args.json;
    let progress = Arc::new(move |r: &FleetReport, line: &str| {
        if !quiet {
            println!("  [{} sessions, {} turns, {} deaths] {line}", r.sessions, r.turns, r.deaths);
        }
    });
    let played = pawns::research::experiment::play(&opts, fleet, Some(journal), progress).await;
    let fleet_json = played.as_ref().ok().and_then(|f| serde_json::to_value(f).ok());
    let id = child.id.clone();
    let ended = tokio::task::spawn_blocking(move || pawns::research::runs::end(&store, &id, fleet_json)).await?;
    server.shutdown().await;
    ended.map_err(|e| anyhow::anyhow!("ending the branch's run: {e} ({})", e.code()))?;
    played.map_err(|m| anyhow::anyhow!("{m}"))
}

fn say_past(r: &BranchReport) {
    println!(
        "Replayed the run to its branch point (pulse {}): {} inputs, {} records in {} sessions, {} ({:.0} ms).",
        r.pulse,
        r.inputs,
        r.records,
        r.sessions,
        if r.identical { "identical to the parent's record" } else { "DIFFERENT from the parent's record" },
        r.elapsed_ms
    );
    println!(
        "  dreams dreamt again: {} ({} made what the parent's did); {} characters saved; {} records of the agents' own memory kept",
        r.dreams, r.dreams_matching, r.characters_saved, r.mind_records
    );
    if r.earlier_records > 0 {
        println!("  the record before the run came along: {} records", r.earlier_records);
    }
    for d in &r.dreams_differing {
        println!("  ! {d}");
    }
    if !r.branched.is_empty() {
        println!("  playing at the branch point (saved where they stood): {}", r.branched.join(", "));
    }
    println!("  change: {}{}", r.change, if r.changed.is_empty() { String::new() } else { format!(" — {}", r.changed) });
}

fn finish(args: &BranchArgs, r: &BranchReport, child: &Run, fleet: Option<FleetReport>) -> anyhow::Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({"branch": r, "run": child, "fleet": fleet}))?);
        return Ok(());
    }
    if let Some(f) = &fleet {
        println!(
            "Played {:.0} s: {} sessions, {} turns, {} deaths, {} kills; {} failures.",
            f.secs,
            f.sessions,
            f.turns,
            f.deaths,
            f.kills,
            f.failures.len()
        );
    }
    println!(
        "Branch {} is in {}: pawns runs compare {} {} --db {} --b-db {}",
        child.id,
        args.out.display(),
        child.parent.as_deref().unwrap_or(""),
        child.id,
        args.db.display(),
        args.out.display()
    );
    Ok(())
}

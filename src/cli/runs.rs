//! `pawns runs list | show ID | compare A B`: the run registry, from the data file or
//! the server holding it; `compare` evaluates both runs and sets them side by side.

use std::collections::BTreeMap;

use anyhow::Context;
use clap::{Args, Subcommand};
use pawns::research::runs::Run;
use pawns::research::{By, Evaluation};

use super::Place;

#[derive(Subcommand, Debug)]
pub enum RunsCmd {
    /// Every run, oldest first.
    List(RunsArgs),
    /// One run, whole: its command line, seed, policy, model, pace, version, world and arms.
    Show {
        id: String,
        #[command(flatten)]
        args: RunsArgs,
    },
    /// Two runs' metrics side by side (each split by its own arms).
    Compare {
        a: String,
        b: String,
        /// B's data file, when it is not A's (a branch's own file).
        #[arg(long)]
        b_db: Option<std::path::PathBuf>,
        #[command(flatten)]
        args: RunsArgs,
    },
}

#[derive(Args, Debug)]
pub struct RunsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub place: Place,
}

fn when(us: u64) -> String {
    chrono::DateTime::from_timestamp_micros(us as i64).map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string()).unwrap_or_default()
}

fn length(r: &Run) -> String {
    match r.ended_us {
        Some(e) => format!("{:.1} min", e.saturating_sub(r.started_us) as f64 / 6e7),
        None => "running (or never ended)".into(),
    }
}

pub async fn main(cmd: RunsCmd) -> anyhow::Result<()> {
    match cmd {
        RunsCmd::List(args) => {
            let runs = list(&args.place).await?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
                return Ok(());
            }
            if runs.is_empty() {
                println!("No runs yet: pawns experiment registers one, and so does pawns serve --run NAME.");
            }
            for r in &runs {
                let arms: Vec<String> = r.arms.iter().map(|a| format!("{} ×{}", a.name, a.agents.len())).collect();
                println!(
                    "{}  {}  {}  {}  {}",
                    r.id,
                    r.kind,
                    when(r.started_us),
                    length(r),
                    if arms.is_empty() { "every agent".into() } else { arms.join(", ") }
                );
            }
        }
        RunsCmd::Show { id, args } => {
            let r = super::select::run(&args.place, &id).await?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&r)?);
                return Ok(());
            }
            println!("Run {} ({}), pawns {}", r.id, r.kind, r.version);
            println!("  from {} for {}", when(r.started_us), length(&r));
            println!("  command line: {}", r.command_line.join(" "));
            println!("  world: {} (digest {})", r.world, r.world_digest);
            let opt = |v: Option<String>| v.unwrap_or_else(|| "—".into());
            println!(
                "  seed {}, pace {}, sessions of {}",
                opt(r.seed.map(|s| s.to_string())),
                opt(r.pace_ms.map(|p| format!("{p} ms"))),
                opt(r.session_secs.map(|s| format!("{:.0} s", s)))
            );
            if let Some(p) = &r.parent {
                println!("  branched from {p}: {}", r.change.as_deref().unwrap_or(""));
            }
            for a in &r.arms {
                println!(
                    "  arm {}: policy {}{}, valence {}, {} agents: {}",
                    a.name,
                    a.policy,
                    if a.model.is_empty() { String::new() } else { format!(" ({})", a.model) },
                    if a.valence { "on" } else { "off" },
                    a.agents.len(),
                    a.agents.join(", ")
                );
            }
            if let Some(f) = &r.fleet {
                println!("  fleet: {f}");
            }
        }
        RunsCmd::Compare { a, b, b_db, args } => {
            let place_b = match b_db {
                Some(f) => super::Place { db: Some(f), server: None },
                None => super::Place { db: args.place.db.clone(), server: args.place.server.clone() },
            };
            let (ra, rb) = (super::select::run(&args.place, &a).await?, super::select::run(&place_b, &b).await?);
            let (fa, fb) = futures(&ra, &rb);
            let ea = super::research::evaluate(&args.place, fa, By::Arm, true).await?;
            let eb = super::research::evaluate(&place_b, fb, By::Arm, true).await?;
            if args.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"a": {"run": ra, "evaluation": ea}, "b": {"run": rb, "evaluation": eb}})
                    )?
                );
                return Ok(());
            }
            print!("{}", compare(&ra, &ea, &rb, &eb));
        }
    }
    Ok(())
}

/// What each run's side reads: a branch beside its parent is compared with the parent's
/// own future — its sessions begun after the branch point.
pub fn futures(a: &Run, b: &Run) -> (pawns::research::Filter, pawns::research::Filter) {
    let (mut fa, mut fb) = (a.filter(), b.filter());
    if let (Some(p), Some(at)) = (&b.parent, b.branched_at_us) {
        if p == &a.id {
            fa.since_us = fa.since_us.max(at);
        }
    }
    if let (Some(p), Some(at)) = (&a.parent, a.branched_at_us) {
        if p == &b.id {
            fb.since_us = fb.since_us.max(at);
        }
    }
    (fa, fb)
}

async fn list(place: &Place) -> anyhow::Result<Vec<Run>> {
    let offline = super::commands::read_offline(place, |store| Ok(pawns::research::runs::list(store)?)).await?;
    match offline {
        Ok(r) => Ok(r),
        Err(held) => {
            let body = pawns::client::get(&format!("{}/api/admin/runs", place.server())).await.with_context(|| place.why_server(held))?;
            serde_json::from_str(&body).context("the server's answer is not what this build reads")
        }
    }
}

fn ci(c: Option<[f64; 2]>) -> String {
    c.map(|c| format!("[{:.2}, {:.2}]", c[0], c[1])).unwrap_or_else(|| "—".into())
}

/// The two runs' metrics as text, a row per measure, A beside B.
pub fn compare(ra: &Run, ea: &Evaluation, rb: &Run, eb: &Evaluation) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "{:<44} {:>28} {:>28}", "", ra.id, rb.id);
    let row = |w: &mut String, what: &str, a: String, b: String| {
        let _ = writeln!(w, "{what:<44} {a:>28} {b:>28}");
    };
    row(w, "length", length(ra), length(rb));
    let change = |r: &Run| match (&r.parent, &r.change) {
        (Some(p), Some(c)) => format!("{c} (from {p})"),
        _ => "—".into(),
    };
    row(w, "branch of", change(ra), change(rb));
    row(w, "world digest", ra.world_digest.chars().take(12).collect(), rb.world_digest.chars().take(12).collect());
    for (what, f) in [
        ("agents", (|e: &Evaluation| e.sample.agents) as fn(&Evaluation) -> usize),
        ("sessions", |e| e.sample.sessions),
        ("decisions", |e| e.sample.decisions),
        ("encounters", |e| e.sample.encounters),
        ("trials counted", |e| e.sample.trials),
        ("sessions with no decision", |e| e.quality.silent_sessions.len()),
        ("stuck runs (a command 10+ times in a row)", |e| e.quality.stuck.len()),
    ] {
        row(w, what, f(ea).to_string(), f(eb).to_string());
    }
    let ok = |e: &Evaluation| {
        let all: u64 = e.quality.statuses.iter().map(|s| s.n).sum();
        let ok: u64 = e.quality.statuses.iter().filter(|s| s.status == "ok").map(|s| s.n).sum();
        if all == 0 {
            "—".to_string()
        } else {
            format!("{:.1} %", ok as f64 * 100.0 / all as f64)
        }
    };
    row(w, "decisions the game took", ok(ea), ok(eb));
    // Headline BPS per arm and stimulus.
    let mut cells: BTreeMap<(String, String), [String; 2]> = BTreeMap::new();
    for (i, e) in [ea, eb].into_iter().enumerate() {
        for x in e.bps.iter().filter(|x| x.agent == "*" && x.response == pawns::research::bps::headline(&x.stimulus)) {
            let v = match x.bps {
                Some(v) => format!("{v:.2} {} n={}/{} {}", ci(x.ci), x.memory.n, x.no_memory.n, x.band),
                None => format!("n/a n={}/{}", x.memory.n, x.no_memory.n),
            };
            cells.entry((x.arm.clone(), x.stimulus.clone())).or_insert_with(|| ["—".into(), "—".into()])[i] = v;
        }
    }
    let _ = writeln!(w, "\nBPS (headline response; n with/without memory)");
    for ((arm, stimulus), [a, b]) in cells {
        row(w, &format!("  {arm} {stimulus}"), a, b);
    }
    let mut cells: BTreeMap<(String, String), [String; 2]> = BTreeMap::new();
    for (i, e) in [ea, eb].into_iter().enumerate() {
        for v in &e.valence_effect {
            let text = format!(
                "{} {} p={}",
                v.diff.map(|d| format!("{d:+.2}")).unwrap_or("—".into()),
                ci(v.ci),
                v.p_value.map(|p| format!("{p:.3}")).unwrap_or("—".into())
            );
            cells.entry((v.group.clone(), v.stimulus.clone())).or_insert_with(|| ["—".into(), "—".into()])[i] = text;
        }
    }
    if !cells.is_empty() {
        let _ = writeln!(w, "\nValence effect (on − off, with memory)");
        for ((group, stimulus), [a, b]) in cells {
            row(w, &format!("  {}{stimulus}", if group.is_empty() { String::new() } else { format!("{group} ") }), a, b);
        }
    }
    let mut cells: BTreeMap<String, [String; 2]> = BTreeMap::new();
    for (i, e) in [ea, eb].into_iter().enumerate() {
        for c in &e.cost {
            let t = c
                .prompt_mean
                .map(|p| format!("{:.0} tok/decision", p + c.completion_mean.unwrap_or(0.0)))
                .unwrap_or_else(|| "no tokens".into());
            cells.entry(c.arm.clone()).or_insert_with(|| ["—".into(), "—".into()])[i] = format!("{} decisions, {t}", c.decisions);
        }
    }
    let _ = writeln!(w, "\nCost");
    for (arm, [a, b]) in cells {
        row(w, &format!("  {arm}"), a, b);
    }
    s
}

//! `pawns bench scripts DIR`: the pulse time of a world with N players walking it, with
//! its Lua scripts and special procedures on and then off, and what one script call
//! costs (`game::tools::script_bench` does the work in-process).

use crate::cli::BenchScriptsArgs;
use pawns::game::tools::script_bench::{measure, ScriptBenchReport};
use pawns::worldfile;

fn line(r: &ScriptBenchReport) {
    println!(
        " {:<4} pulse p50 {:>6} µs   p99 {:>6} µs   p99.9 {:>6} µs   max {:>6} µs   over 10 ms: {}",
        if r.scripts { "on" } else { "off" },
        r.pulse_us.first().map(|_| r.pulse_pct(0.5)).unwrap_or(0),
        r.pulse_pct(0.99),
        r.pulse_pct(0.999),
        r.pulse_us.last().copied().unwrap_or(0),
        r.pulse_us.iter().filter(|u| **u > 10_000).count()
    );
}

pub fn run(args: BenchScriptsArgs) -> anyhow::Result<()> {
    let loaded = worldfile::load_dir(&args.dir).map_err(|e| anyhow::anyhow!("{e} ({})", e.code()))?;
    let check = pawns::game::tools::world_check::report(args.dir.display().to_string(), &loaded);
    println!("====== pawns bench scripts ======");
    println!("  world:   {}", args.dir.display());
    println!(
        "  scripts: {} files, attached to {:?} (mobs, rooms, objects); {} special assignments",
        check.scripts.files, check.scripts.attached, check.counts.specials
    );
    println!("  load:    {} players, one command a second each, {} s of pulses per run", args.agents, args.seconds);
    let pulses = args.seconds * 10;
    // On and off in turn, so neither run is always the one that warms the process.
    let mut on = ScriptBenchReport::default();
    for round in 0..args.rounds.max(1) {
        for scripts in [true, false] {
            let r = measure(loaded.world.clone(), args.agents, pulses, scripts, args.seed, args.in_scripted_rooms);
            print!("  round {}", round + 1);
            line(&r);
            if scripts {
                on = r;
            }
        }
    }
    println!(
        "  script calls: {} ({} errors, {} scripts turned off); one call p50 {} µs, p99 {} µs; {} special procedures attached",
        on.script_calls, on.script_errors, on.scripts_disabled, on.script_us.0, on.script_us.1, on.specials
    );
    println!(
        "  DG Scripts: {} runs ({} errors, logged; the trigger keeps running); one run p50 {} µs, p99 {} µs; {} attached triggers run here",
        on.dg_runs, on.dg_errors, on.dg_us.0, on.dg_us.1, check.dg.runnable
    );
    for off in &on.turned_off {
        println!("    turned off: {off}");
    }
    for failing in &on.dg_failing {
        println!("    failing: {failing}");
    }
    Ok(())
}

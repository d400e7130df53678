//! `pawns bench world DIR`: how long a world takes to read from its area files, to
//! import into the data file, and to load back from the data file (what every server
//! start does), with the process's peak memory after each step.

use std::time::{Duration, Instant};

use anyhow::Context;
use pawns_storage::Store;

use crate::cli::BenchWorldArgs;
use pawns::worldfile::{self, stored};

/// Peak resident memory of this process so far (Linux `VmHWM`), in MiB.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mem() -> String {
    peak_rss_mb().map(|m| format!("{m:.0} MiB")).unwrap_or_else(|| "n/a".into())
}

pub fn run(args: BenchWorldArgs) -> anyhow::Result<()> {
    let scratch = args.db.is_none();
    let db = args.db.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("pawns-bench-world-{}.redb", std::process::id())));
    if db.exists() {
        anyhow::bail!("{} exists; bench world writes a scratch file and will not touch yours", db.display());
    }
    println!("====== pawns bench world ======");
    println!("  world:  {}", args.dir.display());
    let t = Instant::now();
    let loaded = worldfile::load_dir(&args.dir).map_err(|e| anyhow::anyhow!("{e} ({})", e.code()))?;
    let parse = t.elapsed();
    let c = worldfile::counts::counts(&loaded.world);
    println!(
        "  holds:  {} zones, {} rooms, {} exits, {} mobs, {} objects, {} shops, {} resets",
        c.zones, c.rooms, c.exits, c.mobs, c.objects, c.shops, c.reset_commands
    );
    println!("  read area files:        {:>8.1} ms   peak {}", ms(parse), mem());
    let (store, _) = Store::open(&db)?;
    let t = Instant::now();
    stored::import(&store, &loaded.world, &args.dir.display().to_string())?;
    let import = t.elapsed();
    let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
    println!("  import into redb:       {:>8.1} ms   peak {}   file {:.1} MiB", ms(import), mem(), size as f64 / 1048576.0);
    drop(loaded);
    let mut loads = Vec::new();
    let mut world = None;
    for _ in 0..args.rounds.max(1) {
        let t = Instant::now();
        world = stored::load(&store)?;
        loads.push(t.elapsed());
    }
    loads.sort();
    let world = world.context("the import left no world in the file")?;
    println!(
        "  load from redb:         {:>8.1} ms   (median of {}; min {:.1}, max {:.1})   peak {}",
        ms(loads[loads.len() / 2]),
        loads.len(),
        ms(loads[0]),
        ms(*loads.last().unwrap()),
        mem()
    );
    let t = Instant::now();
    let live = pawns::game::model::world::World::new(world);
    let instantiate = t.elapsed();
    println!("  build the live world:   {:>8.1} ms   ({} rooms)   peak {}", ms(instantiate), live.rooms.len(), mem());
    drop(store);
    if scratch {
        let _ = std::fs::remove_file(&db);
    }
    Ok(())
}

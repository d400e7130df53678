//! The real Dark Pawns world (`../shared/worlds/darkpawns`): loaded exactly, reset
//! within its max counts, imported only when asked, and played.
//!
//! The directory comes from `PAWNS_DARKPAWNS_WORLD` (set by `.ci/run`). When that is
//! set and the files are missing, these tests fail. When it is not set, the copy beside
//! the project is used if there is one, and the tests say they were skipped otherwise.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use pawns::game::engine::{Engine, EngineConfig};
use pawns::server::{self, ServerConfig};
use pawns::worldfile::{self, check};

pub fn darkpawns_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("PAWNS_DARKPAWNS_WORLD") {
        let p = PathBuf::from(p);
        assert!(p.join("wld/index").is_file(), "PAWNS_DARKPAWNS_WORLD={} holds no wld/index", p.display());
        return Some(p);
    }
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/worlds/darkpawns");
    if beside.join("wld/index").is_file() {
        return Some(beside);
    }
    eprintln!("skipped: no Dark Pawns world (set PAWNS_DARKPAWNS_WORLD)");
    None
}

#[test]
fn the_indexed_world_loads_exactly() {
    let Some(dir) = darkpawns_dir() else { return };
    let loaded = worldfile::load_dir(&dir).unwrap();
    let r = check::report(dir.display().to_string(), &loaded);
    assert_eq!(
        r.counts,
        check::Counts { zones: 68, rooms: 8218, exits: 26009, mobs: 1115, objects: 1453, shops: 60, reset_commands: 5433 }
    );
    assert_eq!(r.dangling_exits, 0);
    assert!(r.warnings.is_empty(), "{:?}", &r.warnings[..r.warnings.len().min(5)]);
    let temple = loaded.world.rooms.iter().find(|r| r.vnum == 8004).expect("room 8004");
    assert!(temple.name.to_lowercase().contains("temple"), "{}", temple.name);
    // The Dark Pawns shapes are kept as data: four flag words, load percentages, E-specs.
    assert!(loaded.world.objs.iter().all(|o| o.load_percent.is_some()));
    assert!(loaded.world.mobs.iter().any(|m| m.specs.iter().any(|(k, _)| k.eq_ignore_ascii_case("race"))));
}

#[tokio::test]
async fn the_first_reset_obeys_every_max_count() {
    let Some(dir) = darkpawns_dir() else { return };
    let world = worldfile::load_dir(&dir).unwrap().world;
    let mut mob_max: HashMap<u32, i32> = HashMap::new();
    let mut obj_max: HashMap<u32, i32> = HashMap::new();
    for z in &world.zones {
        for c in &z.commands {
            let m = match c.command {
                'M' => &mut mob_max,
                'O' | 'G' | 'E' | 'P' => &mut obj_max,
                _ => continue,
            };
            let e = m.entry(c.args[0] as u32).or_insert(0);
            *e = (*e).max(c.args[1]);
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = pawns::game::persist::spawn_writer(Arc::new(store));
    let engine = Engine::new(world, EngineConfig { seed: 11, ..Default::default() }, saves);
    let w = &engine.world;
    let mut mobs: HashMap<u32, i32> = HashMap::new();
    for vnum in w.chars.values().filter_map(|c| c.npc_vnum) {
        *mobs.entry(vnum).or_default() += 1;
    }
    let mut objs: HashMap<u32, i32> = HashMap::new();
    for o in w.objs.values() {
        *objs.entry(o.vnum).or_default() += 1;
    }
    assert!(mobs.values().sum::<i32>() > 2000, "the first reset populates the world ({} mobs)", mobs.values().sum::<i32>());
    assert!(objs.values().sum::<i32>() > 500, "and loads objects ({})", objs.values().sum::<i32>());
    for (vnum, n) in &mobs {
        let max = mob_max.get(vnum).copied().unwrap_or(0);
        assert!(*n <= max, "mob {vnum}: {n} loaded, max {max}");
    }
    for (vnum, n) in &objs {
        let max = obj_max.get(vnum).copied().unwrap_or(0);
        assert!(*n <= max, "object {vnum}: {n} loaded, max {max}");
    }
    // Load percentages are rolled: an object at 10% does not appear everywhere it could.
    let rare: Vec<u32> = w.obj_protos.values().filter(|o| o.load_percent.is_some_and(|p| p <= 10.0)).map(|o| o.vnum).collect();
    let placed_rare: i32 = rare.iter().map(|v| objs.get(v).copied().unwrap_or(0)).sum();
    let could: i32 = rare.iter().map(|v| obj_max.get(v).copied().unwrap_or(0).min(3)).sum();
    assert!(placed_rare < could, "rare objects are rolled ({placed_rare} of at most {could})");
}

#[tokio::test]
async fn a_different_world_is_only_imported_when_asked() {
    let Some(dir) = darkpawns_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = ServerConfig { db: tmp.path().join("w.redb"), ..Default::default() };
    cfg.engine.pulse = std::time::Duration::from_millis(20);
    // First start: the starter world.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::start(cfg.clone(), listener).await.unwrap().shutdown().await;
    // A different --world without --reimport is refused with a clear message.
    cfg.world = Some(dir.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = match server::start(cfg.clone(), listener).await {
        Ok(_) => panic!("a different world was accepted without --reimport"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("world_mismatch") && err.contains("--reimport"), "{err}");
    // With --reimport it replaces the world; later starts need no flag at all.
    cfg.reimport = true;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::start(cfg.clone(), listener).await.unwrap().shutdown().await;
    cfg.reimport = false;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::start(cfg.clone(), listener).await.unwrap().shutdown().await;
    cfg.world = None;
    let (store, _) = pawns_storage::Store::open(&cfg.db).unwrap();
    let w = worldfile::stored::load(&store).unwrap().unwrap();
    assert_eq!(w.rooms.len(), 8218);
}

//! Other CircleMUD-family worlds: a zone's `D` reset on an exit whose way back is not a
//! door, start rooms that belong to the world (and `--start-room`), and the world that
//! ships with tbaMUD (`../shared/worlds/tbamud`), loaded exactly and played.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::*;
use crate::darkpawns::play::{mob_homes, open_shop, route, text, Player};
use pawns::game::tools::world_check as check;
use pawns::worldfile;

/// A tiny world: the gate of 100 (east, a door) opens on 101, whose west exit is a plain
/// path to 102 — not back to 100. Zone 1's `D 0 100 1 1` closes the gate, one side.
/// 103 and 104 share a real door (north/south), closed and locked from both sides.
fn write_fixture(dir: &Path, profile: Option<&str>) {
    let room = |vnum: u32, name: &str, exits: &str| format!("#{vnum}\n{name}~\nThe {name}.\n~\n1 0 0\n{exits}S\n");
    let wld = [
        room(100, "Gatehouse", "D1\n~\ngate~\n1 -1 101\n"),
        room(101, "Yard", "D3\n~\n~\n0 -1 102\n"),
        room(102, "Lane", "D1\n~\n~\n0 -1 101\nD0\n~\n~\n0 -1 103\n"),
        room(103, "Hall", "D2\n~\n~\n0 -1 102\nD0\n~\ndoor~\n1 -1 104\n"),
        room(104, "Vault", "D2\n~\ndoor~\n1 -1 103\n"),
    ]
    .concat();
    std::fs::create_dir_all(dir.join("wld")).unwrap();
    std::fs::create_dir_all(dir.join("zon")).unwrap();
    std::fs::write(dir.join("wld/index"), "1.wld\n$\n").unwrap();
    std::fs::write(dir.join("wld/1.wld"), format!("{wld}$\n")).unwrap();
    std::fs::write(dir.join("zon/index"), "1.zon\n$\n").unwrap();
    std::fs::write(dir.join("zon/1.zon"), "#1\nFixture~\n199 10 2\nD 0 100 1 1\nD 0 103 0 2\nD 0 104 2 2\nS\n$\n").unwrap();
    if let Some(p) = profile {
        std::fs::write(dir.join("pawns-world.json"), p).unwrap();
    }
}

async fn fixture_server(start_room: Option<u32>, profile: Option<&str>) -> TestServer {
    TestServer::start_with(|cfg| {
        let dir = cfg.db.parent().unwrap().join("fixture");
        write_fixture(&dir, profile);
        cfg.world = Some(dir);
        cfg.engine.start_room = start_room;
        // Noon: the classic worlds are dark outdoors at night.
        cfg.engine.start_hour = Some(12);
    })
    .await
}

async fn newcomer(srv: &TestServer, name: &str) -> (WsClient, Value) {
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": name, "password": "pw-fixture", "new_char": true, "class": 3}})).await;
    let st = a.expect("state").await;
    (a, st)
}

/// Moves; "room N" when it arrived, else what the game said instead.
async fn go(a: &mut WsClient, dir: &str, id: &str) -> String {
    a.cmd(dir, id).await;
    let arrived_or_refused = |v: &Value| v["re"] == id && (v["type"] == "state" || (v["type"] == "event" && !text(v).contains("[ Exits:")));
    let v = a.until(arrived_or_refused).await;
    if v["type"] == "state" {
        format!("room {}", v["data"]["room"]["vnum"])
    } else {
        v["data"]["text"].as_str().unwrap_or("").to_string()
    }
}

#[tokio::test]
async fn a_d_reset_closes_the_named_side_only() {
    let srv = fixture_server(Some(101), None).await;
    let (mut a, st) = newcomer(&srv, "Gale").await;
    assert_eq!(st["data"]["room"]["vnum"], 101, "--start-room");
    // 101's west is no door and does not lead to 100: the gate's reset must not touch it.
    assert_eq!(go(&mut a, "west", "w").await, "room 102");
    assert_eq!(go(&mut a, "east", "e").await, "room 101");
    assert_eq!(go(&mut a, "west", "w2").await, "room 102");
    // A real door closed from both sides by its two resets stays a door on both sides.
    assert_eq!(go(&mut a, "north", "n").await, "room 103");
    let shut = go(&mut a, "north", "n2").await;
    assert!(shut.contains("closed"), "{shut}");
    srv.shutdown().await;
}

#[tokio::test]
async fn the_start_room_and_welcome_belong_to_the_world() {
    // No 3001 and no 8004 here: the first room that is not the void or limbo.
    let srv = fixture_server(None, None).await;
    let (mut a, st) = newcomer(&srv, "Hale").await;
    assert_eq!(st["data"]["room"]["vnum"], 100);
    let welcome = a.until(|v| v["type"] == "event" && text(v).starts_with("Welcome")).await;
    let t = text(&welcome).to_string();
    assert!(!t.contains("Emberhold") && !t.contains("Ember"), "the starter town is not named on other worlds: {t}");
    // The east gate is shut from this side (the D reset's named side).
    let gate = go(&mut a, "east", "e").await;
    assert!(gate.contains("closed"), "{gate}");
    srv.shutdown().await;
    // A world's own pawns-world.json names its start room, welcome and kit.
    let srv = fixture_server(None, Some(r#"{"start_room": 102, "welcome": "Hail, traveller of the Fixture."}"#)).await;
    let (mut a, st) = newcomer(&srv, "Ilse").await;
    assert_eq!(st["data"]["room"]["vnum"], 102);
    a.until(|v| text(v) == "Hail, traveller of the Fixture.").await;
    srv.shutdown().await;
}

#[tokio::test]
async fn a_start_room_the_world_lacks_is_refused_with_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = test_config(dir.path());
    cfg.engine.start_room = Some(4242);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = match pawns::server::start(cfg, listener).await {
        Ok(_) => panic!("a start room that is not in the world was accepted"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("bad_start_room") && err.contains("4242"), "{err}");
    // A bad pawns-world.json is a load error with its own code.
    let world = dir.path().join("bad");
    write_fixture(&world, Some(r#"{"start_room": "north"}"#));
    let e = worldfile::load_dir(&world).err().expect("a bad profile is refused");
    assert_eq!(e.code(), "world_profile_invalid");
    assert!(e.to_string().contains("pawns-world.json"), "{e}");
}

pub fn tbamud_dir() -> Option<PathBuf> {
    crate::darkpawns::world_dir("PAWNS_TBAMUD_WORLD", "tbamud")
}

#[test]
fn the_tbamud_world_loads_exactly() {
    let Some(dir) = tbamud_dir() else { return };
    let loaded = worldfile::load_dir(&dir).unwrap();
    let r = check::report(dir.display().to_string(), &loaded);
    assert_eq!(
        r.counts,
        check::Counts {
            zones: 189,
            rooms: 12700,
            exits: 29219,
            mobs: 3705,
            objects: 4765,
            shops: 330,
            reset_commands: 18514,
            triggers: 1461,
            trigger_attachments: 1704,
            quests: 1,
            // No table of its own: what tbaMUD's spec_assign.c assigns (39 guild
            // masters, 9 banks, 7 boards, 9 postmasters; all in the world).
            specials: 64
        }
    );
    assert_eq!(r.dangling_exits, 0);
    assert!(r.warnings.is_empty(), "{:?}", &r.warnings[..r.warnings.len().min(5)]);
    assert!(r.broken_resets.is_empty(), "{:?}", r.broken_resets);
    assert_eq!(r.profile.family, "tbamud");
    assert_eq!(r.profile.start_room, Some((3001, "The Temple Of Midgaard".to_string())));
    assert!(r.profile.kit.iter().all(|(_, name, _)| name != "(missing)"), "{:?}", r.profile.kit);
    let w = &loaded.world;
    // Zones keep their builders, flags and level range; objects their affect words and level.
    let z30 = w.zones.iter().find(|z| z.vnum == 30).unwrap();
    assert_eq!(
        (z30.name.as_str(), z30.builders.as_str(), z30.bottom, z30.top, z30.levels),
        ("Northern Midgaard", "DikuMUD", Some(3000), 3099, Some((1, 33)))
    );
    let teleporter = w.objs.iter().find(|o| o.vnum == 3006).unwrap();
    assert_eq!(teleporter.triggers, vec![3014, 3015]);
    assert_eq!(w.rooms.iter().find(|r| r.vnum == 3001).unwrap().triggers, vec![3017], "the T after the temple's S");
    // A trigger's script keeps its `~` inside lines and ends at the line ending in `~`.
    let t = w.triggers.iter().find(|t| t.vnum == 3000).unwrap();
    assert_eq!((t.attach_type, t.narg), (0, 100));
    assert!(t.commands.contains("%send% %actor% The guard humiliates you"), "{}", t.commands);
    assert!(w.triggers.iter().any(|t| t.commands.contains("set arg ~%arg%")));
    let q = &w.quests[0];
    assert_eq!((q.vnum, q.name.as_str(), q.master, q.target), (100, "Kill the Mice!", 179, 194));
}

/// `serve --world tbamud` is a living world: a new character starts at the temple of
/// Midgaard with a kit, mobs and objects are there, a shop sells, a fight happens.
#[tokio::test]
async fn the_tbamud_world_plays() {
    let Some(dir) = tbamud_dir() else { return };
    let w = worldfile::load_dir(&dir).unwrap().world;
    let homes = mob_homes(&w);
    let s = TestServer::start_with(|cfg| {
        cfg.world = Some(dir.clone());
        cfg.engine.start_hour = Some(12);
        // The players walk unpaced (the protocol's 10 commands a second would only make
        // the test wait).
        cfg.cmd_rate = 1000.0;
    })
    .await;
    let mut ann = Player::new(&s, "Ann", 3).await;
    assert_eq!(ann.room, 3001, "tbaMUD's mortal start room");
    // tbaMUD's do_start gives nothing: no kit, no gold.
    let vars = ann.c.expect("vars").await;
    assert!(vars["data"]["EQUIPMENT"].as_object().is_none_or(|m| m.values().all(Value::is_null)), "{}", vars["data"]["EQUIPMENT"]);
    assert!(vars["data"]["INVENTORY"].as_array().is_none_or(|i| i.is_empty()), "{}", vars["data"]["INVENTORY"]);
    ann.c.until(|v| text(v).contains("Welcome to tbaMUD!")).await;
    ann.c.send(json!({"type": "subscribe", "data": {"variables": ["ROOM_MOBS", "HEALTH", "FIGHTING"]}})).await;

    // A shop whose keeper is at home, open at noon: its list shows, but with no gold
    // nothing is bought.
    let (path, item) = open_shop(&w, &homes, 3001);
    ann.walk(&path).await;
    let list = ann.expect("list", "Cost").await;
    assert!(list.to_lowercase().contains(&item.short_descr.to_lowercase()), "{list}");
    let kw = item.keywords.split_whitespace().next().unwrap();
    let id = ann.send(&format!("buy {kw}")).await;
    ann.c.until(|v| v["re"] == id.as_str() && v["type"] == "event").await;
    let inv = ann.expect("inventory", "carrying").await;
    assert!(!inv.to_lowercase().contains(&item.short_descr.to_lowercase()), "no gold, nothing bought: {inv}");

    // The nearest weak mob a zone reset put in a room a walk away: attack it.
    let (dirs, victim) = w
        .mobs
        .iter()
        .filter(|m| m.level <= 2)
        // A mob with DG triggers may have gone about its business (or been purged).
        .filter(|m| m.triggers.is_empty())
        .filter_map(|m| {
            let home = *homes.get(&m.vnum)?;
            let room = w.rooms.iter().find(|r| r.vnum == home)?;
            if room.flags[0] & (1 << 4) != 0 {
                return None; // peaceful
            }
            Some((route(&w, ann.room, home)?, m))
        })
        .min_by_key(|(p, _)| p.len())
        .expect("a weak mob within reach");
    ann.walk(&dirs).await;
    let kw = victim.keywords.split_whitespace().next().unwrap();
    ann.send(&format!("kill {kw}")).await;
    let hit = ann.c.until(|v| v["type"] == "event" && v["data"]["type"] == "combat").await;
    assert!(!text(&hit).is_empty());
    s.shutdown().await;
}

//! The world's own Lua scripts, run by agents over the protocol: a fixture world whose
//! prototypes carry the Dark Pawns scripts themselves (read from the world's
//! `scripts/` folder, linked beside the fixture, never copied into the project) —
//! the archived dragon (greet, fight), city guard (bribe, fight, onpulse_pc), phoenix
//! (death), brain eater (onpulse_all) and master column (an enter trap), and the live
//! world's portal (object oncmd), pattern room (room onpulse) and gatekeeper hisc
//! (mob oncmd).

use std::path::Path;

use serde_json::Value;

use crate::common::*;
use crate::darkpawns::darkpawns_dir;

fn room(vnum: u32, name: &str, exits: &[(u8, u32)], extra: &str) -> String {
    let exits: String = exits.iter().map(|(d, to)| format!("D{d}\n~\n~\n0 -1 {to}\n")).collect();
    format!("#{vnum}\n{name}~\nThe {name}.\n~\n1 0 0\n{exits}{extra}S\n")
}

/// A mob: level 1, `hp` hit points, a THAC0 of 60 (only a natural 20 lands: the
/// agents must live through the test), 1 damage a blow, `align`, and a script line.
fn mob(vnum: u32, kw: &str, short: &str, hp: u32, align: i32, script: &str) -> String {
    let script = if script.is_empty() { String::new() } else { format!("Script: {script}\n") };
    format!("#{vnum}\n{kw}~\n{short}~\n{short} is here.\n~\nNothing special.\n~\nb 0 {align} E\n1 60 10 1d1+{hp} 1d1+0\n0 0\n8 8 0\n{script}E\n")
}

fn write_fixture(dir: &Path, scripts: &Path) {
    let wld = [
        room(100, "Crossroads", &[(0, 101), (1, 102), (2, 103), (3, 104), (4, 1315), (5, 110)], ""),
        room(101, "Lair", &[(2, 100)], ""),
        room(102, "Guard Post", &[(3, 100), (1, 105)], ""),
        room(105, "Gate House", &[(3, 102)], ""),
        room(103, "Nest", &[(0, 100)], ""),
        room(104, "Pit", &[(1, 100)], ""),
        room(110, "Mosaic Floor", &[(4, 100), (2, 111)], "R 30/pattern_dmg.lua 4\n"),
        room(111, "Beyond", &[(0, 110)], ""),
        room(1315, "Column", &[(5, 100)], "R archive/master_column.lua 2\n"),
        room(1320, "Earth Hall", &[], ""),
        room(1331, "Air Hall", &[], ""),
        room(1342, "Fire Hall", &[], ""),
        room(1353, "Water Hall", &[], ""),
        room(1372, "Heart Hall", &[], ""),
    ]
    .concat();
    let mobs = [
        mob(4209, "dragon frost", "a frost dragon", 400, 0, "archive/dragon_breath.lua 260"),
        mob(21200, "guard cityguard", "a city guard", 400, 1000, "archive/cityguard.lua 386"),
        mob(21201, "guard gatekeeper", "a gate guard", 400, 1000, "archive/cityguard.lua 386"),
        mob(300, "thug", "a thug", 5, -1000, ""),
        mob(1401, "phoenix bird", "a phoenix", 0, 0, "archive/phoenix.lua 288"),
        mob(1402, "rider", "a rider", 50, 0, ""),
        mob(14420, "eater brain", "a brain eater", 100, -500, "archive/brain_eater.lua 64"),
        mob(301, "rat", "a rat", 0, 0, ""),
        mob(14412, "hisc gatekeeper", "Hisc", 400, 0, "144/hisc.lua 512"),
    ]
    .concat();
    let objs = "#1420\ntrident~\na trident~\nA trident lies here.~\n~\n5 0 an\n0 2 4 11\n5 50 0\n\
                #19593\nportal shimmering~\na shimmering portal~\nA shimmering portal hovers here.~\n~\n12 0 0\n0 0 0 0\n1 100 0\nS portal.lua 2\n$\n";
    let zon = "#1\nScriptland~\n1999 30 2\nM 0 4209 1 101\nM 0 21200 1 102\nM 0 300 1 102\nM 0 21201 1 105\nM 0 1401 1 103\n\
               M 0 14420 1 104\nM 0 301 1 104\nM 0 14412 1 110\nO 0 19593 1 1320\nS\n$\n";
    let files = [
        ("wld/index", "1.wld\n$\n".to_string()),
        ("wld/1.wld", format!("{wld}$\n")),
        ("mob/index", "1.mob\n$\n".into()),
        ("mob/1.mob", format!("{mobs}$\n")),
        ("obj/index", "1.obj\n$\n".into()),
        ("obj/1.obj", objs.into()),
        ("zon/index", "1.zon\n$\n".into()),
        ("zon/1.zon", zon.into()),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::os::unix::fs::symlink(scripts, dir.join("scripts")).unwrap();
}

async fn scriptland() -> Option<TestServer> {
    let scripts = darkpawns_dir()?.join("scripts");
    Some(
        TestServer::start_with(|cfg| {
            let dir = cfg.db.parent().unwrap().join("scriptland");
            write_fixture(&dir, &scripts);
            cfg.world = Some(dir);
            cfg.engine.start_room = Some(100);
            // Noon: the classic worlds are dark outdoors at night.
            cfg.engine.start_hour = Some(12);
            // Ten times the speed: combat rounds of 200 ms, mob turns of 400 ms.
            cfg.engine.pulse = std::time::Duration::from_millis(10);
        })
        .await,
    )
}

fn text(v: &Value) -> &str {
    v["data"]["text"].as_str().unwrap_or("")
}

/// Flees until out of the fight (a flee can fail).
async fn flee(a: &mut WsClient, tag: &str) {
    for i in 0..20 {
        let id = format!("{tag}{i}");
        a.cmd("flee", &id).await;
        let v = a.until(|v| v["re"] == id && v["type"] == "event").await;
        if text(&v).contains("flee head over heels") {
            return;
        }
        // (Paced: a failed flee is tried again a moment later, as a player would.)
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("could not flee");
}

#[tokio::test]
async fn an_agent_triggers_each_script_and_sees_what_it_does() {
    let Some(srv) = scriptland().await else { return };
    let mut hero = WsClient::newcomer(srv.addr, "Hero").await;
    // The dragon greets (and attacks), and in the fight breathes frost now and then.
    hero.cmd("north", "n1").await;
    hero.hear("So, you have found my lair...").await;
    hero.hear("breathes frost at you!").await;
    flee(&mut hero, "f").await;
    // The master column's enter trap, then the portal back.
    assert_eq!(hero.room_after("up", "u1").await, 1315);
    hero.hear("your vision fades").await;
    let v = hero.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] != 1315).await;
    assert_eq!(v["data"]["room"]["vnum"], 1320, "no talismans: the first hall");
    hero.cmd("enter portal", "p1").await;
    assert!(hero.hear("You step into the portal").await.contains("strange feeling"));
    let v = hero.until(|v| v["re"] == "p1" && v["type"] == "state").await;
    assert_eq!(v["data"]["room"]["vnum"], 100, "the portal's cost is where it goes");
    // The brain eater, once there is a corpse.
    assert_eq!(hero.room_after("west", "w1").await, 104);
    hero.cmd("kill rat", "k1").await;
    hero.hear("beheads the corpse of a rat").await;
    hero.hear("eats it with a noisy slurp").await;
    // The phoenix's rider leaps off as it dies.
    assert_eq!(hero.room_after("east", "e1").await, 100);
    assert_eq!(hero.room_after("south", "s1").await, 103);
    hero.cmd("kill phoenix", "k2").await;
    hero.hear("crashes to the ground, a rider leaps off").await;
    flee(&mut hero, "g").await;
    // The pattern hurts who stands on it; Hisc lets nobody south.
    assert_eq!(hero.room_after("down", "d1").await, 110);
    let before = hero.seen.iter().rev().find_map(|v| v["data"]["player"]["health"].as_i64()).unwrap();
    hero.until(|v| v["type"] == "event" && ["pattern", "strength", "Sparks"].iter().any(|w| text(v).contains(w))).await;
    hero.cmd("south", "s2").await;
    assert!(hero.hear("blocks your way").await.contains("Hisc"));
    hero.cmd("look", "l1").await;
    let v = hero.until(|v| v["re"] == "l1" && v["type"] == "state").await;
    assert_eq!(v["data"]["room"]["vnum"], 110, "still on the pattern");
    let after = v["data"]["player"]["health"].as_i64().unwrap();
    assert!(after <= before, "{before} → {after}");

    // The city guard: a thug fighting someone gets the guard's attention (onpulse_pc)…
    let mut watch = WsClient::newcomer(srv.addr, "Watcher").await;
    assert_eq!(watch.room_after("east", "e1").await, 102);
    watch.cmd("kill thug", "k1").await;
    watch.hear("You just pissed me off, a thug!").await;
    watch.hear("thug is dead!").await;
    // …and a bribe is taken badly or well.
    assert_eq!(watch.room_after("east", "e2").await, 105);
    watch.cmd("give 5 coins gatekeeper", "b1").await;
    let v = watch.until(|v| v["type"] == "event" && (text(v).contains("bribe me") || text(v).contains("falls asleep on the job"))).await;
    assert!(!text(&v).is_empty());
    srv.shutdown().await;
}

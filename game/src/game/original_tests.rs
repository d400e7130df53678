//! The original servers' rules on their own worlds (issue 51): what a new player meets
//! in Dark Pawns and tbaMUD, as the C servers do it — each test on the real world
//! (skipped without it), each rule read from the original's source and checked by
//! typing the same into it (the closing notes of issue 51 carry the side-by-side table).

use tokio::sync::mpsc;

use crate::game::model::tables::room_flag;
use crate::game::model::world::CharId;
use crate::game::run::engine::{Engine, EngineConfig};
use crate::game::send::output::Outs;
use crate::game::tests::{darkpawns, heard, mob_at, place};

/// An engine on the Dark Pawns world (`None`: no world here).
fn dark_pawns() -> Option<(Engine, tempfile::TempDir)> {
    let dir = darkpawns()?;
    let world = crate::worldfile::load_dir(&dir).unwrap().world;
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    Some((Engine::new(world, EngineConfig { seed: 7, ..EngineConfig::default() }, saves), tmp))
}

/// A new player of `class` (0 mage … 3 warrior), standing in room `vnum`.
fn player(e: &mut Engine, name: &str, class: u8, vnum: u32) -> (CharId, mpsc::Receiver<Outs>) {
    let (link, rx) = crate::game::tests::link(name.len() as u64 * 7919 + vnum as u64, 1 << 16);
    let id = e.enter(crate::game::model::character::new_record(name, class, 0, 1, true, [13; 6], vnum), link, None).char_id;
    place(e, id, vnum);
    (id, rx)
}

/// The first room of Kir Drax'in (80xx) where a fight may happen.
fn street(e: &Engine) -> u32 {
    let mut vnums: Vec<u32> = e
        .world
        .rooms
        .iter()
        .filter(|r| (8000..8100).contains(&r.proto.vnum) && r.proto.flags[0] & (room_flag::PEACEFUL | room_flag::DEATH) == 0)
        .map(|r| r.proto.vnum)
        .collect();
    vnums.sort_unstable();
    vnums[0]
}

/// Rounds of a fight that neither side can end, and what the player heard.
fn fight(e: &mut Engine, pc: CharId, rx: &mut mpsc::Receiver<Outs>, mob: CharId, rounds: usize) -> String {
    for id in [pc, mob] {
        let c = e.world.chars.get_mut(&id).unwrap();
        (c.max_hit, c.hit) = (50_000, 50_000);
    }
    e.start_fight(pc, mob);
    let mut said = String::new();
    for _ in 0..rounds {
        e.combat_round();
        said.push_str(&heard(e, rx));
        for id in [pc, mob] {
            let c = e.world.chars.get_mut(&id).unwrap();
            c.hit = 50_000;
        }
        if e.world.ch(pc).unwrap().fighting.is_none() {
            e.start_fight(pc, mob);
        }
    }
    said
}

/// A procedure runs on its own only for a mob whose file gives it MOB_SPEC: the
/// apprentice sorcerer 8081 (`magic_user`, no flag) never casts in Dark Pawns, where it
/// killed new players in pawns; the Dark Mage's apprentice 20025 (`magic_user` with the
/// flag) does.
#[tokio::test]
async fn a_procedure_runs_on_its_own_only_with_mob_spec() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Novice", 3, room);
    let apprentice = mob_at(&mut e, 8081, room);
    let said = fight(&mut e, pc, &mut rx, apprentice, 60);
    assert!(!said.contains("utters the words"), "8081 cast:\n{said}");
    e.world.extract_char(apprentice);
    let mage = mob_at(&mut e, 20025, room);
    let said = fight(&mut e, pc, &mut rx, mage, 60);
    assert!(said.contains("utters the words"), "20025 never cast:\n{}", &said[..said.len().min(2000)]);
}

/// A shopkeeper is not to be fought: Dark Pawns's keeper slaps the attacker, tells it
/// "Get out of here before I call the guards!", and the attacker hears "Ha ha... Don't
/// think so." — no blow lands, no fight begins. A guild guard (a town official) only
/// laughs it off. (In pawns the keeper fought back and killed new players.)
#[tokio::test]
async fn shopkeepers_and_officials_are_not_to_be_fought() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let shop = e.world.shops.iter().find(|s| (8000..8100).contains(&s.keeper) && s.bitvector & 1 == 0).cloned().expect("a town shop");
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Brawler", 3, room);
    let keeper = mob_at(&mut e, shop.keeper as u32, room);
    let hp = e.world.ch(keeper).unwrap().hit;
    heard(&mut e, &mut rx);
    let kw = e.world.ch(keeper).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    e.dispatch(pc, &format!("kill {kw}"));
    for _ in 0..3 {
        e.combat_round();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Ha ha... Don't think so."), "{said}");
    assert!(said.contains("You are slapped by") && said.contains("Get out of here before I call the guards!"), "{said}");
    assert_eq!(e.world.ch(keeper).unwrap().hit, hp, "no blow landed");
    assert!(e.world.ch(pc).unwrap().fighting.is_none() && e.world.ch(keeper).unwrap().fighting.is_none());

    let guard = mob_at(&mut e, 8019, room);
    e.dispatch(pc, "kill warrior");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Ha ha... Don't think so.") && !said.contains("slapped"), "{said}");
    assert!(e.world.ch(guard).unwrap().fighting.is_none());
}

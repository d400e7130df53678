//! The original servers' rules on their own worlds (issue 51): what a new player meets
//! in Dark Pawns and tbaMUD, as the C servers do it — each test on the real world
//! (skipped without it), each rule read from the original's source and checked by
//! typing the same into it (the closing notes of issue 51 carry the side-by-side table).

use tokio::sync::mpsc;

use crate::game::model::tables::room_flag;
use crate::game::model::world::CharId;
use crate::game::run::engine::{Engine, EngineConfig};
use crate::game::send::output::Outs;
pub(super) use crate::game::tests::{darkpawns, heard, mob_at, place};

/// An engine on the Dark Pawns world (`None`: no world here).
pub(super) fn dark_pawns() -> Option<(Engine, tempfile::TempDir)> {
    let dir = darkpawns()?;
    let world = crate::worldfile::load_dir(&dir).unwrap().world;
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    Some((Engine::new(world, EngineConfig { seed: 7, start_hour: Some(12), ..EngineConfig::default() }, saves), tmp))
}

/// An engine on the tbaMUD world (`PAWNS_TBAMUD_WORLD`, or `../shared/worlds/tbamud`).
pub(super) fn tba_mud() -> Option<(Engine, tempfile::TempDir)> {
    let dir = std::env::var("PAWNS_TBAMUD_WORLD")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/worlds/tbamud"));
    if !dir.join("wld/index").is_file() {
        eprintln!("skipped: no tbaMUD world");
        return None;
    }
    let world = crate::worldfile::load_dir(&dir).unwrap().world;
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    Some((Engine::new(world, EngineConfig { seed: 7, start_hour: Some(12), ..EngineConfig::default() }, saves), tmp))
}

/// A new player of `class` (0 mage … 3 warrior), standing in room `vnum`.
pub(super) fn player(e: &mut Engine, name: &str, class: u8, vnum: u32) -> (CharId, mpsc::Receiver<Outs>) {
    let (link, rx) = crate::game::tests::link(name.len() as u64 * 7919 + vnum as u64, 1 << 16);
    let id = e.enter(crate::game::model::character::new_record(name, class, 0, 1, true, [13; 6], vnum), link, None).char_id;
    place(e, id, vnum);
    (id, rx)
}

/// The first room of Kir Drax'in (80xx) where a fight may happen.
pub(super) fn street(e: &Engine) -> u32 {
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
pub(super) fn fight(e: &mut Engine, pc: CharId, rx: &mut mpsc::Receiver<Outs>, mob: CharId, rounds: usize) -> String {
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

mod darkpawns;
mod dp_town;
mod fights;
mod player_commands;
mod tbamud;
mod tbamud_dg;

// Rules both families share, each test on both worlds.

/// tbaMUD's words and its death: an unknown command is "Huh!?!"; the baker tells an
/// attacker to get out, then slaps ("Ow!"), then "This mob is protected."; the dead come
/// back to the temple with 1 hit point (Dark Pawns too), as both servers bring them back.
#[tokio::test]
async fn tbamud_words_and_the_dead_come_back_with_one_hit_point() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Brash", 3, 3009);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "frobnicate");
    assert!(heard(&mut e, &mut rx).contains("Huh!?!"));
    e.dispatch(pc, "wimpy");
    assert!(heard(&mut e, &mut rx).contains("Huh!?!"), "tbaMUD has no wimpy command");
    if !e.world.rooms[e.world.room_of_vnum(3009).unwrap()].people.iter().any(|p| e.world.ch(*p).and_then(|c| c.npc_vnum) == Some(3001)) {
        mob_at(&mut e, 3001, 3009);
    }
    e.dispatch(pc, "kill baker");
    let said = heard(&mut e, &mut rx);
    let (tell, slap, prot) =
        (said.find("Get out of here before I call the guards!"), said.find("slaps you. Ow!"), said.find("This mob is protected."));
    assert!(tell.is_some() && slap.is_some() && prot.is_some(), "{said}");
    assert!(tell < slap && slap < prot, "tell, slap, then the refusal: {said}");
    let killer = mob_at(&mut e, 3059, 3009);
    e.die(pc, Some(killer));
    let p = e.world.ch(pc).unwrap();
    assert_eq!((e.world.rooms[p.room].proto.vnum, p.hit), (3001, 1), "back at the temple with 1 hit point");

    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, _rx) = player(&mut e, "Fallen", 3, room);
    e.die(pc, None);
    let p = e.world.ch(pc).unwrap();
    assert_eq!((e.world.rooms[p.room].proto.vnum, p.hit), (8004, 1));
}

/// Potions, scrolls and wands work (pawns answered "Huh?!?"): a Dark Pawns potion of
/// healing quaffed heals at the potion's own level; a tbaMUD scroll of recall carries its
/// reader to the temple; a wand without charges "seems powerless".
#[tokio::test]
async fn potions_scrolls_and_wands_cast_what_they_hold() {
    let heal_spells = [15, 16, 28];
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let mut potions: Vec<u32> = e
        .world
        .obj_protos
        .iter()
        .filter(|(_, p)| p.item_type == 10 && p.values[1..].iter().any(|v| heal_spells.contains(v)))
        .map(|(v, _)| *v)
        .collect();
    potions.sort_unstable();
    let potion = *potions.first().expect("a healing potion in Dark Pawns");
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Thirsty", 3, room);
    {
        let c = e.world.chars.get_mut(&pc).unwrap();
        (c.max_hit, c.hit) = (500, 1);
    }
    let o = e.world.create_obj(potion).unwrap();
    e.world.obj_to_char(o, pc);
    let kw = e.world.obj(o).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("quaff {kw}"));
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("You quaff"), "{said}");
    assert!(e.world.ch(pc).unwrap().hit > 1 && e.world.obj(o).is_none(), "healed, the potion gone: {said}");

    let Some((mut e, _tmp)) = tba_mud() else { return };
    let mut scrolls: Vec<u32> =
        e.world.obj_protos.iter().filter(|(_, p)| p.item_type == 2 && p.values[1..].contains(&42)).map(|(v, _)| *v).collect();
    scrolls.sort_unstable();
    let scroll = *scrolls.first().expect("a scroll of recall in tbaMUD");
    let (pc, mut rx) = player(&mut e, "Reader", 3, 3014);
    let o = e.world.create_obj(scroll).unwrap();
    e.world.obj_to_char(o, pc);
    let kw = e.world.obj(o).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("recite {kw}"));
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("which dissolves."), "{said}");
    assert_eq!(Some(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum), e.world.profile.start_room, "{said}");
    let mut wands: Vec<u32> = e.world.obj_protos.iter().filter(|(_, p)| p.item_type == 3).map(|(v, _)| *v).collect();
    wands.sort_unstable();
    if let Some(w) = wands.first() {
        let o = e.world.create_obj(*w).unwrap();
        e.world.objs.get_mut(&o).unwrap().values[2] = 0;
        e.world.equip(o, pc, 17);
        let kw = e.world.obj(o).unwrap().keywords.split_whitespace().next().unwrap().to_string();
        e.dispatch(pc, &format!("use {kw} self"));
        assert!(heard(&mut e, &mut rx).contains("It seems powerless."));
    }
}

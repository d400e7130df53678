//! The live Dark Pawns scripts where the world attaches them (skipped without the
//! world: `PAWNS_DARKPAWNS_WORLD`, or `../shared/worlds/darkpawns` beside the project):
//! the pattern rooms hurt, room 3065 carries who says a place's name, Hisc keeps the
//! south, the portals carry, and the healer and blacksmith answer gifts (the high priest, without MOB_OKGIVE, takes none).

use crate::game::run::engine::{Engine, EngineConfig};
use crate::game::tests::{darkpawns, heard, mob_at, place};
use crate::script::{ScriptKind, Trigger};

#[tokio::test]
async fn the_live_world_scripts_run_where_the_world_puts_them() {
    let Some(dir) = darkpawns() else { return };
    let world = crate::worldfile::load_dir(&dir).unwrap().world;
    let check = crate::script::check(&world);
    assert_eq!(check.attached, [4, 96, 6], "4 mobs, 96 rooms, 6 portal objects");
    assert!(check.failing.is_empty(), "{:?}", check.failing);
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    let mut e = Engine::new(world, EngineConfig { seed: 11, start_hour: Some(12), ..EngineConfig::default() }, saves);
    let (link, mut rx) = crate::game::tests::link(1, 1 << 16);
    let pc = e.enter(crate::game::model::character::new_record("Pilgrim", 3, 0, 1, true, [13; 6], 8004), link, None).char_id;
    e.world.chars.get_mut(&pc).unwrap().max_hit = 500;
    e.world.chars.get_mut(&pc).unwrap().hit = 500;

    // A pattern room (room onpulse): its pulse takes hit points through `ch.hp`.
    let pattern = *e
        .scripts
        .attached
        .iter()
        .find(|(k, a)| k.0 == ScriptKind::Room && a.file == "30/pattern_dmg.lua")
        .map(|(k, _)| k)
        .map(|(_, v)| v)
        .unwrap();
    place(&mut e, pc, pattern);
    heard(&mut e, &mut rx);
    for _ in 0..400 {
        e.pulse += 1;
        e.script_activity();
        if e.world.ch(pc).unwrap().hit < 500 {
            break;
        }
    }
    let h = heard(&mut e, &mut rx);
    assert!(e.world.ch(pc).unwrap().hit < 500, "{h}");
    assert!(h.contains("pattern") || h.contains("strength"), "{h}");

    // Room 3065 (room oncmd): saying a place's name carries there; the say is taken.
    place(&mut e, pc, 3065);
    e.dispatch(pc, "say haven");
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 12119);
    assert!(heard(&mut e, &mut rx).contains("power of the pattern takes you away"));

    // Hisc (mob oncmd, through `no_move` loaded by globals.lua) keeps the south.
    let hisc_room = e.world.chars.values().find(|c| c.npc_vnum == Some(14412)).map(|c| c.room).expect("Hisc is loaded by his zone");
    let hisc_vnum = e.world.rooms[hisc_room].proto.vnum;
    place(&mut e, pc, hisc_vnum);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "south");
    assert_eq!(e.world.ch(pc).unwrap().room, hisc_room);
    assert!(heard(&mut e, &mut rx).contains("blocks your way"));

    // The portals (object oncmd): `enter portal` goes to the room its cost names.
    for vnum in 19593..=19598u32 {
        let cost = e.world.obj_protos[&vnum].cost as u32;
        place(&mut e, pc, 8004);
        let o = e.world.create_obj(vnum).unwrap();
        let room = e.world.ch(pc).unwrap().room;
        e.world.obj_to_room(o, room);
        let kw = e.world.obj(o).unwrap().keywords.split_whitespace().next().unwrap().to_string();
        e.dispatch(pc, &format!("enter {kw}"));
        assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, cost, "portal {vnum}");
        e.world.extract_obj(o);
    }

    // The healer's `sound`, and the healer, the blacksmith and the high priest handing
    // back what they have no use for (mob ongive, through assembler.lua).
    let healer = mob_at(&mut e, 12220, 8004);
    place(&mut e, pc, 8004);
    heard(&mut e, &mut rx);
    let mut said = String::new();
    for _ in 0..400 {
        e.mob_turn_scripts(healer);
        said = heard(&mut e, &mut rx);
        if !said.is_empty() {
            break;
        }
    }
    assert!(said.contains("Long ago") || said.contains("looks at the sky"), "{said}");
    for keeper in [12220u32, 21210, 21221] {
        let m = if keeper == 12220 { healer } else { mob_at(&mut e, keeper, 8004) };
        let junk = *e.world.obj_protos.iter().find(|(_, p)| p.keywords.starts_with("bread")).map(|(v, _)| v).expect("bread");
        let o = e.world.create_obj(junk).unwrap();
        e.world.obj_to_char(o, pc);
        let kw = e.world.ch(m).unwrap().keywords.split_whitespace().next().unwrap().to_string();
        e.dispatch(pc, &format!("give bread {kw}"));
        let h = heard(&mut e, &mut rx);
        assert!(e.world.ch(pc).unwrap().inventory.contains(&o), "mob {keeper} gave it back:\n{h}");
        // The high priest's file lacks MOB_OKGIVE: as in the C server, it takes nothing.
        assert_eq!(h.contains("doesn't seem to be interested"), keeper == 21221, "{keeper}: {h}");
        assert!(e.scripts.script_for(ScriptKind::Mob, keeper, Trigger::OnGive).is_some(), "{:?}", e.scripts.disabled);
    }
    assert!(e.scripts.disabled.is_empty(), "{:?}", e.scripts.disabled);
    assert!(e.scripts.stats.calls > 0 && e.scripts.stats.errors == 0);
}

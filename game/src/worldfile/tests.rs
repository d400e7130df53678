use super::*;
use std::collections::HashMap;

/// An in-memory world source for tests: (relative path, text).
struct Mem(HashMap<String, String>);

impl Mem {
    fn new(files: &[(&str, &str)]) -> Self {
        Mem(files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect())
    }
}

impl WorldSource for Mem {
    fn read(&self, rel: &str) -> Result<Option<String>, String> {
        Ok(self.0.get(rel).cloned())
    }
    fn describe(&self) -> String {
        "memory".into()
    }
}

#[test]
fn starter_world_loads_clean() {
    let l = load(&StarterWorld).unwrap();
    assert!(l.warnings.is_empty(), "warnings: {:#?}", l.warnings);
    assert!(l.world.rooms.len() >= 60);
    assert_eq!(l.world.zones.len(), 3);
    assert!(l.world.rooms.iter().any(|r| r.vnum == 8004 && r.name.contains("Temple")));
    assert_eq!(l.world.shops.len(), 2);
    let levels: Vec<i32> = l.world.mobs.iter().filter(|m| m.vnum / 100 == 81).map(|m| m.level).collect();
    assert_eq!(levels.iter().min(), Some(&1));
    assert_eq!(levels.iter().max(), Some(&10));
    assert_eq!(l.dangling_exits, 0);
    // Every exit is mirrored, so no player gets stranded.
    let by_vnum: HashMap<u32, &RoomProto> = l.world.rooms.iter().map(|r| (r.vnum, r)).collect();
    for r in &l.world.rooms {
        for (d, e) in r.exits.iter().enumerate() {
            let Some(e) = e.as_ref() else { continue };
            let back = by_vnum[&(e.to_room as u32)].exits[[2, 3, 0, 1, 5, 4][d]].as_ref();
            assert_eq!(back.map(|b| b.to_room), Some(r.vnum as i32), "room {} dir {d} is one-way", r.vnum);
        }
    }
}

const DP_ROOM: &str = "#8000\nThe Avenue~\n  A broad avenue.\n~\n80 32768 0 0 0 1\nD1\n~\n~\n0 0 8001\nE\nstadium~\nOld marble.\n~\nS\n#8001\nEast~\nEast.\n~\n80 0 0 0 0 1\nD3\n~\n~\n0 0 8000\nD0\n~\n~\n0 0 9999\nS\n$~\n";

#[test]
fn dark_pawns_rooms_and_dangling_exits() {
    let src = Mem::new(&[("wld/index", "80.wld\n80.wld\n$\n"), ("wld/80.wld", DP_ROOM)]);
    let l = load(&src).unwrap();
    assert_eq!(l.world.rooms.len(), 2, "duplicate index entry must load once");
    let r = &l.world.rooms[0];
    assert_eq!(r.flags[0], 32768);
    assert_eq!(r.sector, 1);
    assert_eq!(r.extra_descs[0].keywords, "stadium");
    assert_eq!(l.dangling_exits, 1);
    assert!(l.world.rooms[1].exits[0].is_none());
    assert!(l.warnings.iter().any(|w| w.vnum == Some(8001) && w.message.contains("9999")));
}

#[test]
fn malformed_record_is_skipped_with_file_line_and_vnum() {
    let text = "#1\nGood~\nok~\n1 0 0\nS\n#2\nBad~\nbad~\n1 zz! 0\nS\n#3\nAlso good~\nok~\n1 0 0\nS\n$\n";
    let src = Mem::new(&[("wld/index", "1.wld\n$\n"), ("wld/1.wld", text)]);
    let l = load(&src).unwrap();
    let vnums: Vec<u32> = l.world.rooms.iter().map(|r| r.vnum).collect();
    assert_eq!(vnums, vec![1, 3]);
    let w = &l.warnings[0];
    assert_eq!((w.file.as_str(), w.vnum), ("wld/1.wld", Some(2)));
    assert_eq!(w.line, 9);
}

/// tbaMUD's shapes: T lines after a room's S and a mob's end, a thirteen-field object
/// type line with `weight cost rent level timer`, a zone with builders and flags, a
/// trigger whose script holds `~` inside a line, and a quest.
#[test]
fn tbamud_room_mob_obj_zone_trigger_quest() {
    let wld = "#3001\nThe Temple~\nA temple.\n~\n30 cdeh 0 0 0 0\nS\nT 3017\n#3002\nNext~\nn\n~\n30 0 0 0 0 0\nS\n$~\n";
    let mob = "#3013\nguide~\nthe guide~\nA guide.\n~\nShe guides.\n~\nbdq 0 0 0 0 0 0 0 900 E\n3 19 8 0d0+30 1d4+0\n30 90\n8 8 2\nE\nT 3016\nT 3018\n$\n";
    let obj = "#3006\nteleporter~\nthe teleporter~\nA device.~\n~\n12 0 0 0 0 a 0 0 0 b 0 0 0\n0 0 0 0\n1 10 0 5 0\nT 3014\nE\nteleporter~\nIt hums.\n~\n$\n";
    let zon = "#30\nDikuMUD~\nNorthern Midgaard~\n3000 3099 15 2 d 0 0 0 1 33\nM 0 3013 1 3001 \t(the guide)\nT 1 0 3017 3001\nS\n$~\n";
    let trg = "#3017\nTemple greet~\n2 g 100\n~\nset arg ~%arg%\nsay small bit of fun~ I am all that.\n%echo% hello\n~\n#3014\nt~\n1 c 100\nuse~\n~\n#3016\nt~\n0 g 100\n~\n~\n#3018\nt~\n0 g 100\n~\n~\n$~\n";
    let qst = "#100\nKill the Mice!~\nmice~\nHelp.\n~\nWell done!\n~\nAbandoned.\n~\n3 3013 0 194 -1 -1 -1\n0 0 1 34 60 -1 3\n10 0 65535\nS\n$~\n";
    let src = Mem::new(&[
        ("wld/index", "a\n$\n"),
        ("wld/a", wld),
        ("mob/index", "a\n$\n"),
        ("mob/a", mob),
        ("obj/index", "a\n$\n"),
        ("obj/a", obj),
        ("zon/index", "a\n$\n"),
        ("zon/a", zon),
        ("trg/index", "a\n$\n"),
        ("trg/a", trg),
        ("qst/index", "a\n$\n"),
        ("qst/a", qst),
    ]);
    let l = load(&src).unwrap();
    assert!(l.warnings.is_empty(), "{:#?}", l.warnings);
    let w = &l.world;
    assert_eq!(w.rooms.len(), 2, "the T line does not eat the next room");
    assert_eq!(w.rooms[0].triggers, vec![3017]);
    assert_eq!(w.mobs[0].triggers, vec![3016, 3018]);
    let o = &w.objs[0];
    assert_eq!((o.dialect, o.wear_flags[0], o.affect_flags[0], o.weight, o.cost, o.level), (ObjDialect::TbaMud, 1, 2, 1, 10, 5));
    assert_eq!(o.triggers, vec![3014]);
    assert_eq!(o.extra_descs[0].keywords, "teleporter");
    assert_eq!(o.load_percent, None, "tbaMUD's third field is rent");
    let z = &w.zones[0];
    assert_eq!(
        (z.name.as_str(), z.builders.as_str(), z.bottom, z.top, z.flags[0], z.levels),
        ("Northern Midgaard", "DikuMUD", Some(3000), 3099, 8, Some((1, 33)))
    );
    assert_eq!(z.commands.iter().map(|c| c.command).collect::<String>(), "MT");
    let t = &w.triggers[0];
    assert_eq!((t.vnum, t.attach_type, t.flags, t.narg), (3017, 2, 1 << 6, 100));
    assert_eq!(t.commands, "set arg ~%arg%\nsay small bit of fun~ I am all that.\n%echo% hello\n");
    let q = &w.quests[0];
    assert_eq!((q.kind, q.master, q.target, q.values[3], q.gold, q.obj_reward), (3, 3013, 194, 34, 10, 65535));
    assert_eq!(w.profile.family, crate::worldfile::profile::Family::TbaMud);
    assert_eq!(crate::worldfile::profile::start_room(w, &w.profile, None), Ok(3001));
    let c = crate::worldfile::counts::counts(w);
    assert_eq!((c.triggers, c.trigger_attachments, c.quests), (4, 4, 1));
}

#[test]
fn dark_pawns_mob_obj_zone_shop() {
    let mob = "#8001\nHans guard~\nHans the gateguard~\nHans is here.\n~\nLooks bored.\n~\n38939 0 0 0 1032 0 0 0 700 E\n22 -2 -12 22d5+230 14d4+14\n20 30000\n8 8 1\nRace: 0\nNoise: You hear a cough.\nE\n$\n";
    let obj = "#8000\nbeer barrel~\na barrel~\nA barrel.~\n~\n17 0 0 0 0 1 0 0 0\n12 12 1 0\n55 30 100.00\nA\n1 2\nS portal.lua 2\n#8001\nx~\nx~\nx~\n~\n1 a ao\n0 0 0 0\n1 1 1\n$\n";
    let zon = "#80\nKir~\n8199 25 2\nM 0 8001 8 8000  (Hans)\nG 1 8000 999 -1\nR 0 8000 8000 -1\n* comment\nS\n$\n";
    let shp = "CircleMUD v3.0 Shop File~\n#8034~\n8000\n-1\n1.05\n0.75\n10\n-1\n%s a~\n%s b~\n%s c~\n%s d~\n%s e~\n%s f %d~\n%s g %d~\n0\n0\n8001\n0\n8000\n-1\n6\n18\n6\n18\n$~\n";
    let src = Mem::new(&[
        ("wld/index", "r.wld\n$\n"),
        ("wld/r.wld", "#8000\nR~\nr~\n80 0 0\nS\n$\n"),
        ("mob/index", "m.mob\n$\n"),
        ("mob/m.mob", mob),
        ("obj/index", "o.obj\n$\n"),
        ("obj/o.obj", obj),
        ("zon/index", "z.zon\n$\n"),
        ("zon/z.zon", zon),
        ("shp/index", "s.shp\n$\n"),
        ("shp/s.shp", shp),
    ]);
    let l = load(&src).unwrap();
    assert!(l.warnings.is_empty(), "{:#?}", l.warnings);
    let m = &l.world.mobs[0];
    assert_eq!((m.level, m.alignment, m.action_flags[0], m.affect_flags[0]), (22, 700, 38939, 1032));
    assert_eq!(m.hit_dice, Dice { num: 22, size: 5, plus: 230 });
    assert_eq!(m.specs, vec![("Race".into(), "0".into()), ("Noise".into(), "You hear a cough.".into())]);
    let o = &l.world.objs[0];
    assert_eq!((o.item_type, o.wear_flags[0], o.weight, o.cost, o.rent_or_load), (17, 1, 55, 30, 100.0));
    assert_eq!(o.affects, vec![(1, 2)]);
    assert_eq!(o.scripts, vec!["portal.lua 2".to_string()]);
    assert_eq!(l.world.objs[1].wear_flags[0], 1 | (1 << 14));
    let z = &l.world.zones[0];
    assert_eq!((z.top, z.lifespan, z.reset_mode, z.commands.len()), (8199, 25, 2, 3));
    assert_eq!(z.commands[0].args, [8001, 8, 8000, -1]);
    assert!(z.commands[1].if_flag);
    let s = &l.world.shops[0];
    assert_eq!((s.keeper, s.rooms.clone(), s.open1, s.close2), (8001, vec![8000], 6, 18));
    assert_eq!(s.producing, vec![8000]);
}

#[test]
fn a_directory_without_index_is_an_error() {
    let src = Mem::new(&[]);
    assert_eq!(load(&src).err().unwrap().code(), "world_no_index");
}

/// Scripts are data of the world: they ride in the data file with it, whole.
#[test]
fn lua_scripts_are_stored_with_the_world() {
    let mut w = super::load(&super::StarterWorld).unwrap().world;
    w.lua_scripts = vec![
        super::LuaScript { path: "globals.lua".into(), source: "function default() end".into() },
        super::LuaScript { path: "mob/archive/x.lua".into(), source: "function greet() say('hi') end".into() },
    ];
    let rows = super::stored::encode(&w).unwrap();
    let back = super::stored::decode(&rows).unwrap();
    assert_eq!(back.lua_scripts, w.lua_scripts);
    // A directory's `scripts/` folder (or one beside it) is read, hidden folders skipped.
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world");
    std::fs::create_dir_all(world.join("wld")).unwrap();
    for (p, t) in [("scripts/mob/a.lua", "x = 1"), ("scripts/.svn/b.lua", "y = 2"), ("scripts/room/c.txt", "z")] {
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
    let mut warnings = Vec::new();
    let found = super::lua_files(&super::scripts_dir(&world).unwrap(), &mut warnings).unwrap();
    assert_eq!(found, vec![super::LuaScript { path: "mob/a.lua".into(), source: "x = 1".into() }]);
}

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

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn world_bytes() -> impl Strategy<Value = String> {
        // Mix real tokens with noise so the parser walks deep into records.
        let tok = prop_oneof![
            Just("#1\n".to_string()),
            Just("~\n".to_string()),
            Just("S\n".to_string()),
            Just("E\n".to_string()),
            Just("D0\n".to_string()),
            Just("$\n".to_string()),
            Just("1 0 0\n".to_string()),
            Just("0 0 1\n".to_string()),
            Just("1 2 3 4 5 6\n".to_string()),
            Just("1d4+2 2d3\n".to_string()),
            Just("M 0 1 1 1\n".to_string()),
            Just("-1\n".to_string()),
            Just("A\n".to_string()),
            "[ -~\n]{0,12}",
        ];
        proptest::collection::vec(tok, 0..60).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]
        #[test]
        fn no_input_panics_the_reader(w in world_bytes(), m in world_bytes(), o in world_bytes(), z in world_bytes(), s in world_bytes()) {
            let src = Mem::new(&[
                ("wld/index", "a\n$\n"), ("wld/a", &w),
                ("mob/index", "a\n$\n"), ("mob/a", &m),
                ("obj/index", "a\n$\n"), ("obj/a", &o),
                ("zon/index", "a\n$\n"), ("zon/a", &z),
                ("shp/index", "a\n$\n"), ("shp/a", &s),
            ]);
            let _ = load(&src);
        }
    }
}

//! A world read from anything its files may hold is one the engine can run: numbers no
//! rule can carry are clamped and fight without overflowing, and whatever loads gives a
//! start room and a kit that can be given.

fn mem(files: &[(&str, &str)]) -> crate::worldfile::MemSource {
    crate::worldfile::MemSource(files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect())
}

/// Numbers no rule can carry (hit dice of 1000d2147483647, gold past i32, negative
/// experience) are clamped with a warning naming file and line, and a world built from
/// them fights without overflowing.
#[tokio::test]
async fn overflowing_mob_numbers_are_clamped_and_the_world_still_fights() {
    let mob = "#1\nbig brute~\na big brute~\nA big brute.\n~\n~\n0 0 0 S\n1000 20 10 1000d2147483647+2147483647 1000d2147483647+2147483647\n99999999999 -5\n8 8 0\n#2\nsmall thing~\na small thing~\nA small thing.\n~\n~\n0 0 0 S\n1 20 10 1d4+1 1d2+0\n0 0\n4 4 0\n$\n";
    let src = mem(&[
        ("wld/index", "a\n$\n"),
        ("wld/a", "#100\nArena~\nSand.\n~\n1 0 0\nS\n$\n"),
        ("mob/index", "a\n$\n"),
        ("mob/a", mob),
        ("zon/index", "a\n$\n"),
        ("zon/a", "#1\nArena~\n199 10 2\nM 0 1 1 100\nM 0 2 1 100\nS\n$\n"),
    ]);
    let l = crate::worldfile::load(&src).unwrap();
    let w: Vec<String> = l.warnings.iter().map(|w| w.to_string()).collect();
    for needle in ["level 1000", "hit point dice size 2147483647", "hit point bonus 2147483647", "gold 99999999999", "experience -5"] {
        assert!(
            w.iter().any(|x| x.contains(needle) && x.starts_with("mob/a:8:") || x.contains(needle) && x.starts_with("mob/a:9:")),
            "{needle}: {w:#?}"
        );
    }
    let m = &l.world.mobs[0];
    assert_eq!((m.level, m.hit_dice.size, m.damage_dice.plus, m.gold, m.exp), (100, 10_000, 1_000_000, 2_000_000_000, 0));
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    let mut e =
        crate::game::run::engine::Engine::new(l.world, crate::game::run::engine::EngineConfig { seed: 3, ..Default::default() }, saves);
    let ids: Vec<_> = e.world.chars.keys().copied().collect();
    assert_eq!(ids.len(), 2);
    let (big, small) = if e.world.chars[&ids[0]].level == 100 { (ids[0], ids[1]) } else { (ids[1], ids[0]) };
    assert!(e.world.chars[&big].hit > 0);
    for _ in 0..5 {
        e.hit(small, big);
        e.hit(big, small);
        e.tick();
    }
}

mod fuzz {
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
            Just("T 1\n".to_string()),
            Just("0 q 100\n".to_string()),
            Just("1 a 0 0 0 0 0 0 0 0 0 0 0\n".to_string()),
            Just("3000 3099 15 2 d 0 0 0 1 33\n".to_string()),
            Just("set arg ~%arg%\n".to_string()),
            "[ -~\n]{0,12}",
        ];
        proptest::collection::vec(tok, 0..60).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]
        #[test]
        fn no_input_panics_the_reader(w in world_bytes(), m in world_bytes(), o in world_bytes(), z in world_bytes(), s in world_bytes(), t in world_bytes(), q in world_bytes(), p in "[ -~]{0,80}") {
            let src = super::mem(&[
                ("wld/index", "a\n$\n"), ("wld/a", &w),
                ("mob/index", "a\n$\n"), ("mob/a", &m),
                ("obj/index", "a\n$\n"), ("obj/a", &o),
                ("zon/index", "a\n$\n"), ("zon/a", &z),
                ("shp/index", "a\n$\n"), ("shp/a", &s),
                ("trg/index", "a\n$\n"), ("trg/a", &t),
                ("qst/index", "a\n$\n"), ("qst/a", &q),
                ("pawns-world.json", &p),
            ]);
            if let Ok(l) = crate::worldfile::load(&src) {
                // Whatever loaded has a start room it can name, and a kit that can be given.
                let _ = crate::worldfile::profile::start_room(&l.world, &l.world.profile, None);
                let kit = crate::game::model::kit::StartKit::new(&l.world);
                let mut rec = crate::game::model::character::new_record("Ann", 3, 0, 1, true, [13; 6], 1);
                kit.apply(&mut rec);
            }
        }
    }
}

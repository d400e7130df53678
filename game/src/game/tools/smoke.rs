//! A world that loads must never crash the engine later. `smoke_run` builds a live world
//! from a parsed one, puts a player in its start room and runs pulses — zone resets, mob
//! AI, combat, regeneration — while the player looks, walks, takes, wears and fights.
//! The `world_reader` fuzz target runs it on every world it manages to parse; the tests
//! below run it on a hostile world written by hand.

use crate::game::model::character::{new_record, Char};
use crate::game::records::persist::SaveQueue;
use crate::game::run::engine::{Engine, EngineConfig};
use crate::worldfile::WorldProto;

/// What a smoke run saw.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SmokeReport {
    pub pulses: u32,
    pub commands: u32,
    /// Characters the first zone resets loaded (mobs).
    pub mobs_at_start: usize,
    /// Characters (mobs and the player) in the world at the end.
    pub chars: usize,
}

/// The player's round of commands, one every few pulses.
const COMMANDS: &[&str] = &[
    "look",
    "north",
    "east",
    "south",
    "west",
    "up",
    "down",
    "get all",
    "wear all",
    "kill mob",
    "kill 2.mob",
    "flee",
    "score",
    "rest",
    "stand",
];

/// Runs `world` for `pulses` pulses with one player in it. Panics only if the engine
/// would (that is the point).
pub fn smoke_run(world: WorldProto, pulses: u32) -> SmokeReport {
    let cfg = EngineConfig { seed: 7, ..EngineConfig::default() };
    let mut e = Engine::new(world, cfg, SaveQueue::discard());
    let id = e.world.new_id();
    let room = e.start_room;
    let record = new_record("Smoke", 3, 0, 1, true, [18; 6], 0);
    let ch = Char::from_record(id, &record, room, None);
    e.world.chars.insert(id, ch);
    e.world.players.insert("smoke".into(), id);
    e.world.char_to_room(id, room);
    let mut report = SmokeReport { mobs_at_start: e.world.chars.len() - 1, ..Default::default() };
    for p in 0..pulses {
        if p % 5 == 0 && e.world.ch(id).is_some() {
            e.dispatch(id, COMMANDS[(p / 5) as usize % COMMANDS.len()]);
            report.commands += 1;
        }
        e.tick();
        report.pulses += 1;
    }
    report.chars = e.world.chars.len();
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldfile::{load, MemSource};

    /// Numbers at and past every limit, exits and resets naming nothing, a shop whose
    /// keeper does not exist: it loads (clamped, with warnings) and then runs.
    const WLD: &str = "#100\nA Room~\nPlain.\n~\n0 0 0\nD0\n~\n~\n1 999999 101\nD1\n~\n~\n0 -1 4000000\nS\n\
#101\nAnother~\nDark.\n~\n0 ad 0\nD2\n~\n~\n0 -1 100\nS\n$\n";
    const MOB: &str = "#200\nmob giant~\na giant mob~\nA giant mob is here.\n~\nHuge.\n~\nbdf 0 -1000 S\n\
2147483647 -2147483647 -2147483647 1000d2147483647+2147483647 2147483647d2147483647+2147483647\n\
9223372036854775807 9223372036854775807\n8 8 0\n\
#201\nmob tiny~\na tiny mob~\nA tiny mob is here.\n~\nTiny.\n~\nb 0 0 S\n0 0 0 0d0+0 0d0+0\n-5 -5\n8 8 2\n$\n";
    const OBJ: &str = "#300\nsword~\na sword~\nA sword.~\n~\n5 0 an\n0 2147483647 2147483647 3\n2147483647 -1 -1\n$\n";
    const ZON: &str = "#1\nHostile~\n199 1 2\nM 0 200 1000 100\nM 0 201 -5 101\nM 0 999 1 100\nO 0 300 1 100\nO 0 999 1 42\n\
E 1 300 1 16\nG 1 300 99 -1\nP 0 300 1 999\nD 0 100 0 2\nD 0 101 5 2\nD 0 42 0 1\nR 0 100 300\nS\n$\n";
    const SHP: &str = "#1~\n300\n-1\n1.5\n0.5\n-1\n~\n~\n~\n~\n~\n~\n~\n0\n0\n999\n0\n100\n-1\n0\n28\n0\n0\n";

    fn hostile() -> MemSource {
        let mut src = MemSource::default();
        for (kind, text) in [("wld", WLD), ("mob", MOB), ("obj", OBJ), ("zon", ZON), ("shp", SHP)] {
            src.0.insert(format!("{kind}/index"), "a\n$\n".into());
            src.0.insert(format!("{kind}/a"), text.into());
        }
        src
    }

    #[test]
    fn a_hostile_world_that_loads_runs_without_a_panic() {
        let loaded = load(&hostile()).expect("the hostile world loads, with warnings");
        assert!(!loaded.warnings.is_empty(), "its overflowing numbers are reported");
        let report = smoke_run(loaded.world, 400);
        assert_eq!(report.pulses, 400);
        assert!(report.commands >= 80);
        assert_eq!(report.mobs_at_start, 1, "the giant loads (the tiny mob's max of -5 loads none)");
    }

    #[test]
    fn the_starter_world_runs() {
        let loaded = load(&crate::worldfile::StarterWorld).unwrap();
        let report = smoke_run(loaded.world, 300);
        assert!(report.mobs_at_start > 0 && report.chars > 1, "mobs were loaded by the zone resets: {report:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]
        /// Every number of the hostile world's mobs and objects replaced by an arbitrary
        /// one (the rooms and resets kept, so the mobs load): whatever loads runs.
        #[test]
        fn any_numbers_in_a_world_that_loads_run(numbers in proptest::collection::vec(proptest::num::i64::ANY, 64)) {
            let mut src = hostile();
            let mut next = numbers.iter().cycle();
            for (_, text) in src.0.iter_mut().filter(|(k, _)| *k == "mob/a" || *k == "obj/a") {
                *text = text
                    .split_inclusive(|c: char| c.is_whitespace())
                    .map(|w| {
                        let t = w.trim_end();
                        if !t.is_empty() && t.parse::<i64>().is_ok() && !text_is_vnum_line(t) {
                            format!("{}{}", next.next().unwrap(), &w[t.len()..])
                        } else {
                            w.to_string()
                        }
                    })
                    .collect();
            }
            if let Ok(loaded) = load(&src) {
                let report = smoke_run(loaded.world, 120);
                proptest::prop_assert_eq!(report.pulses, 120);
                proptest::prop_assert_eq!(report.mobs_at_start, 1, "the mutated giant still loads");
            }
        }
    }

    /// `#100`-style vnum headers are kept (they are not bare numbers anyway).
    fn text_is_vnum_line(t: &str) -> bool {
        t.starts_with('#')
    }
}

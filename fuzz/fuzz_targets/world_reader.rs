//! Any bytes, split into the seven kinds of area file (tbaMUD's triggers and quests
//! included), a socials file, a world profile and a specials table, must load or fail cleanly; and a world
//! that loads is then run (zone resets, mob AI, combat, a player acting) for 250 pulses,
//! so a world that loads can never crash the engine later.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns::game::tools::smoke::smoke_run;
use pawns::worldfile::{load, MemSource};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\u{1}');
    let mut src = MemSource::default();
    for kind in ["wld", "mob", "obj", "zon", "shp", "trg", "qst"] {
        src.0.insert(format!("{kind}/index"), "a\n$\n".into());
        src.0.insert(format!("{kind}/a"), parts.next().unwrap_or("").to_string());
    }
    src.0.insert("misc/socials".into(), parts.next().unwrap_or("").to_string());
    if let Some(p) = parts.next() {
        src.0.insert("pawns-world.json".into(), p.to_string());
    }
    if let Some(p) = parts.next() {
        src.0.insert("specials.tsv".into(), p.to_string());
    }
    if let Ok(loaded) = load(&src) {
        smoke_run(loaded.world, 250);
    }
});

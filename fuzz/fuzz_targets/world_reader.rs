//! Any bytes, split into the seven kinds of area file (tbaMUD's triggers and quests
//! included), a socials file and a world profile, must load or fail cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;
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
    let _ = load(&src);
});

//! A model's answer to its HUD (JSON in prose or fences, or TOON) reads back into a
//! batch or nothing, never a panic; an `actions` message's TOON text decodes or is refused.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(batch) = pawns::hud::answer::parse(text) {
            assert!(batch.get("responses").is_some() || batch.get("actions").is_some());
        }
        let _ = pawns::hud::format::decode(text, pawns::hud::HudFormat::Toon);
    }
});

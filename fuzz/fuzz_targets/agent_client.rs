//! The agent client's parsers: any server frame folds into the game state without a
//! panic, and any model answer yields at most one clean, single-line command.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns::agent::prompt::parse_reply;
use pawns::agent::state::GameState;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            let mut s = GameState::default();
            s.apply(&v);
            let _ = s.hp_pct();
        }
        if let Some(r) = parse_reply(text) {
            assert!(!r.command.is_empty() && !r.command.contains('\n') && r.command.len() <= 200);
        }
    }
});

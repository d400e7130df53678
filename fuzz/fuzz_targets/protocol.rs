//! Any client frame must parse or be refused with a known code.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns::protocol::parse_client;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err((e, _)) = parse_client(text) {
            assert!(["bad_request", "unknown_type"].contains(&e.code));
        }
    }
});

//! Any byte stream, in any chunking, must decode without panics and without control
//! bytes or over-long lines reaching the game.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns::net::telnet::{TelnetEvent, TelnetParser, MAX_LINE};

fuzz_target!(|data: &[u8]| {
    let mut p = TelnetParser::default();
    let mut out = Vec::new();
    let cut = data.first().copied().unwrap_or(1).max(1) as usize;
    for chunk in data.chunks(cut) {
        p.feed(chunk, &mut out);
    }
    for e in out {
        if let TelnetEvent::Line { bytes, .. } = e {
            assert!(bytes.len() <= MAX_LINE);
            assert!(!bytes.iter().any(|b| *b < 32));
        }
    }
});

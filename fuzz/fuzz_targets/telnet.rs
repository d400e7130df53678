//! Any byte stream, in any chunking, must decode without panics and without control
//! bytes or over-long lines reaching the game; every negotiation and sub-negotiation in
//! it (NAWS, TTYPE, CHARSET, GMCP, MSDP, garbage) goes through the session's own
//! negotiator and MUD-data handler without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pawns::net::telnet::mud::MudClient;
use pawns::net::telnet::negotiate::{Answer, Negotiator};
use pawns::net::telnet::{TelnetEvent, TelnetParser, MAX_LINE};

fuzz_target!(|data: &[u8]| {
    let mut p = TelnetParser::default();
    let mut out = Vec::new();
    let cut = data.first().copied().unwrap_or(1).max(1) as usize;
    for chunk in data.chunks(cut) {
        p.feed(chunk, &mut out);
    }
    let mut n = Negotiator::default();
    let mut mud = MudClient::default();
    mud.gmcp = true;
    mud.msdp = true;
    for e in out {
        let answer = match e {
            TelnetEvent::Line { bytes, .. } => {
                assert!(bytes.len() <= MAX_LINE);
                assert!(!bytes.iter().any(|b| *b < 32));
                continue;
            }
            TelnetEvent::Negotiate { verb, opt } => n.on_negotiate(verb, opt),
            TelnetEvent::Sub { opt, data } => n.on_sub(opt, &data),
        };
        match answer {
            Answer::Gmcp(d) => {
                mud.on_gmcp(&d);
            }
            Answer::Msdp(d) => {
                mud.on_msdp(&d);
            }
            _ => {}
        }
    }
});

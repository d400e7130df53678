//! The MUD telnet options a connection offers and what the client tells back (issue 18,
//! first part): MSSP (70) for MUD crawlers, EOR (25) after every prompt, NAWS (31) the
//! window size, TTYPE (24) the client's name and, through MTTS, its capabilities.
//!
//! Offered on connect and never waited for: a client that ignores or refuses them
//! (plain `telnet`, `nc`) plays exactly as before. Each request is answered once (no
//! negotiation loops); options not listed here are refused by `telnet::Options`.

use super::{DO, DONT, IAC, SB, SE, WILL, WONT};

pub const OPT_TTYPE: u8 = 24;
pub const OPT_EOR: u8 = 25;
pub const OPT_NAWS: u8 = 31;
pub const OPT_MSSP: u8 = 70;
/// IAC EOR (the command, not the option): ends a prompt for clients that asked.
pub const EOR: u8 = 239;
const TTYPE_IS: u8 = 0;
const TTYPE_SEND: u8 = 1;
const MSSP_VAR: u8 = 1;
const MSSP_VAL: u8 = 2;
/// TTYPE answers asked for at most (name, terminal, MTTS), as the MTTS convention does.
const TTYPE_ROUNDS: usize = 3;

/// What the client said about itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientCaps {
    /// The client agreed to IAC EOR after prompts.
    pub eor: bool,
    /// Window width and height (NAWS).
    pub window: Option<(u16, u16)>,
    /// TTYPE answers in order (client name, terminal type, `MTTS n`).
    pub ttype: Vec<String>,
    /// The MTTS bits (1 ANSI, 4 UTF-8, 8 256 colours, 256 truecolour…).
    pub mtts: Option<u32>,
}

impl ClientCaps {
    pub fn utf8(&self) -> bool {
        self.mtts.is_some_and(|m| m & 4 != 0)
    }
}

/// The offers a connection starts with.
pub fn offers() -> Vec<u8> {
    vec![IAC, WILL, OPT_MSSP, IAC, WILL, OPT_EOR, IAC, DO, OPT_NAWS, IAC, DO, OPT_TTYPE]
}

/// Whether this module handles the option (everything else is `telnet::Options`').
pub fn handles(opt: u8) -> bool {
    matches!(opt, OPT_TTYPE | OPT_EOR | OPT_NAWS | OPT_MSSP)
}

/// An MSSP sub-negotiation: `IAC SB MSSP (VAR name VAL value)… IAC SE`. Names and
/// values lose any byte that would break the framing (IAC, VAR, VAL, NUL).
pub fn mssp(vars: &[(&str, String)]) -> Vec<u8> {
    let clean = |s: &str| s.bytes().filter(|b| !matches!(*b, IAC | MSSP_VAR | MSSP_VAL | 0)).collect::<Vec<u8>>();
    let mut out = vec![IAC, SB, OPT_MSSP];
    for (name, value) in vars {
        out.push(MSSP_VAR);
        out.extend(clean(name));
        out.push(MSSP_VAL);
        out.extend(clean(value));
    }
    out.extend([IAC, SE]);
    out
}

fn ttype_send() -> Vec<u8> {
    vec![IAC, SB, OPT_TTYPE, TTYPE_SEND, IAC, SE]
}

/// What a negotiation asks of the connection.
#[derive(Debug, PartialEq)]
pub enum Answer {
    Nothing,
    Bytes(Vec<u8>),
    /// The client asked for MSSP: send the server's variables (the session knows them).
    Mssp,
}

#[derive(Default)]
pub struct Negotiator {
    pub caps: ClientCaps,
    /// Refusals already sent: each is sent once (no negotiation loops).
    refused: std::collections::HashSet<(u8, u8)>,
}

impl Negotiator {
    /// The client's WILL/WONT/DO/DONT for one of our options.
    pub fn on_negotiate(&mut self, verb: u8, opt: u8) -> Answer {
        match (verb, opt) {
            (DO, OPT_MSSP) => Answer::Mssp,
            (DO, OPT_EOR) => {
                self.caps.eor = true;
                Answer::Nothing
            }
            (DONT, OPT_EOR) => {
                self.caps.eor = false;
                Answer::Nothing
            }
            (WILL, OPT_TTYPE) if self.caps.ttype.is_empty() => Answer::Bytes(ttype_send()),
            // Our own offers acknowledged or refused; the option is simply off.
            (WILL, OPT_NAWS) | (WONT, _) | (DONT, _) | (WILL, OPT_TTYPE) => Answer::Nothing,
            // A client offering what we only take (or asking for what we only send).
            (WILL, o) if self.refused.insert((WILL, o)) => Answer::Bytes(vec![IAC, DONT, o]),
            (DO, o) if self.refused.insert((DO, o)) => Answer::Bytes(vec![IAC, WONT, o]),
            _ => Answer::Nothing,
        }
    }

    /// A sub-negotiation the client sent.
    pub fn on_sub(&mut self, opt: u8, data: &[u8]) -> Answer {
        match opt {
            OPT_NAWS if data.len() == 4 => {
                let w = u16::from_be_bytes([data[0], data[1]]);
                let h = u16::from_be_bytes([data[2], data[3]]);
                self.caps.window = Some((w, h));
                Answer::Nothing
            }
            OPT_TTYPE if data.first() == Some(&TTYPE_IS) => {
                let name: String = String::from_utf8_lossy(&data[1..]).chars().filter(|c| !c.is_control()).take(64).collect();
                if let Some(bits) = name.strip_prefix("MTTS ").and_then(|n| n.trim().parse::<u32>().ok()) {
                    self.caps.mtts = Some(bits);
                }
                // The same answer twice is the end of the client's list.
                let repeated = self.caps.ttype.last() == Some(&name);
                if !repeated {
                    self.caps.ttype.push(name);
                }
                if repeated || self.caps.mtts.is_some() || self.caps.ttype.len() >= TTYPE_ROUNDS {
                    Answer::Nothing
                } else {
                    Answer::Bytes(ttype_send())
                }
            }
            _ => Answer::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mudlet_shaped_client_is_understood() {
        let mut n = Negotiator::default();
        assert_eq!(n.on_negotiate(DO, OPT_EOR), Answer::Nothing);
        assert!(n.caps.eor);
        assert_eq!(n.on_negotiate(DO, OPT_MSSP), Answer::Mssp);
        assert_eq!(n.on_negotiate(WILL, OPT_NAWS), Answer::Nothing);
        assert_eq!(n.on_sub(OPT_NAWS, &[0, 120, 0, 40]), Answer::Nothing);
        assert_eq!(n.caps.window, Some((120, 40)));
        assert_eq!(n.on_negotiate(WILL, OPT_TTYPE), Answer::Bytes(vec![IAC, SB, OPT_TTYPE, TTYPE_SEND, IAC, SE]));
        let mut is = |s: &str| {
            let mut d = vec![TTYPE_IS];
            d.extend(s.bytes());
            n.on_sub(OPT_TTYPE, &d)
        };
        assert!(matches!(is("MUDLET"), Answer::Bytes(_)), "ask again");
        assert!(matches!(is("ANSI-TRUECOLOR"), Answer::Bytes(_)));
        assert_eq!(is("MTTS 2829"), Answer::Nothing, "MTTS ends the cycle");
        assert_eq!(n.caps.ttype, ["MUDLET", "ANSI-TRUECOLOR", "MTTS 2829"]);
        assert_eq!(n.caps.mtts, Some(2829));
        assert!(n.caps.utf8(), "bit 4 of 2829");
    }

    #[test]
    fn a_client_that_refuses_everything_gets_no_more_bytes() {
        let mut n = Negotiator::default();
        for (v, o) in [(DONT, OPT_MSSP), (DONT, OPT_EOR), (WONT, OPT_NAWS), (WONT, OPT_TTYPE)] {
            assert_eq!(n.on_negotiate(v, o), Answer::Nothing);
        }
        assert_eq!(n.caps, ClientCaps::default());
        // A client repeating its one terminal type ends the cycle too.
        assert!(matches!(n.on_sub(OPT_TTYPE, b"\0XTERM"), Answer::Bytes(_)));
        assert_eq!(n.on_sub(OPT_TTYPE, b"\0XTERM"), Answer::Nothing);
        // Garbage sub-negotiations are ignored.
        assert_eq!(n.on_sub(OPT_NAWS, &[1, 2, 3]), Answer::Nothing);
        assert_eq!(n.on_sub(OPT_TTYPE, &[]), Answer::Nothing);
    }

    #[test]
    fn mssp_is_framed_and_cannot_be_broken_by_its_values() {
        let b = mssp(&[("NAME", "pawns".into()), ("PLAYERS", "3".into()), ("X", "a\u{1}b".into())]);
        assert_eq!(&b[..3], &[IAC, SB, OPT_MSSP]);
        assert_eq!(&b[b.len() - 2..], &[IAC, SE]);
        assert_eq!(&b[3..], b"\x01NAME\x02pawns\x01PLAYERS\x023\x01X\x02ab\xff\xf0");
    }
}

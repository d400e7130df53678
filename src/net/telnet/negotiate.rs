//! The MUD telnet options a connection offers and what the client tells back: MSSP (70)
//! for MUD crawlers, GMCP (201) and MSDP (69) for the client's gauges and mapper, MCCP2
//! (86) compression, EOR (25) after every prompt, NAWS (31) the window size, TTYPE (24)
//! the client's name and, through MTTS, its capabilities, CHARSET (42) UTF-8.
//!
//! Offered on connect and never waited for: a client that ignores or refuses them
//! (plain `telnet`, `nc`) plays exactly as before. Each request is answered once (no
//! negotiation loops); options not listed here are refused by `telnet::Options`.

use super::{DO, DONT, IAC, SB, SE, WILL, WONT};

pub const OPT_TTYPE: u8 = 24;
pub const OPT_EOR: u8 = 25;
pub const OPT_NAWS: u8 = 31;
pub const OPT_MSSP: u8 = 70;
pub const OPT_MSDP: u8 = super::msdp::OPT_MSDP;
pub const OPT_GMCP: u8 = super::gmcp::OPT_GMCP;
pub const OPT_MCCP2: u8 = 86;
pub const OPT_CHARSET: u8 = 42;
const CHARSET_REQUEST: u8 = 1;
const CHARSET_ACCEPTED: u8 = 2;
const CHARSET_REJECTED: u8 = 3;
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
    /// The client has sent any telnet command at all (`nc` never does).
    pub telnet: bool,
    /// The character set the client accepted (CHARSET), e.g. `UTF-8`.
    pub charset: Option<String>,
}

impl ClientCaps {
    pub fn utf8(&self) -> bool {
        self.mtts.is_some_and(|m| m & 4 != 0) || self.charset.as_deref().is_some_and(|c| c.eq_ignore_ascii_case("UTF-8"))
    }
}

/// The offers a connection starts with.
pub fn offers() -> Vec<u8> {
    let mut v = Vec::with_capacity(24);
    for (verb, opt) in [
        (WILL, OPT_MSSP),
        (WILL, OPT_GMCP),
        (WILL, OPT_MSDP),
        (WILL, OPT_MCCP2),
        (WILL, OPT_EOR),
        (DO, OPT_NAWS),
        (DO, OPT_TTYPE),
        (WILL, OPT_CHARSET),
    ] {
        v.extend([IAC, verb, opt]);
    }
    v
}

/// Whether this module handles the option (everything else is `telnet::Options`').
pub fn handles(opt: u8) -> bool {
    matches!(opt, OPT_TTYPE | OPT_EOR | OPT_NAWS | OPT_MSSP | OPT_GMCP | OPT_MSDP | OPT_MCCP2 | OPT_CHARSET)
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

fn charset(verb: u8, name: &str) -> Vec<u8> {
    let mut v = vec![IAC, SB, OPT_CHARSET, verb];
    v.extend(name.bytes());
    v.extend([IAC, SE]);
    v
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
    /// The client turned an option of ours on or off.
    On(Feature),
    Off(Feature),
    /// A GMCP or MSDP message from the client (its sub-negotiation's data).
    Gmcp(Vec<u8>),
    Msdp(Vec<u8>),
}

/// Options that change what the session does once the client agrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Feature {
    Gmcp,
    Msdp,
    Mccp2,
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
            (DO, OPT_GMCP) => Answer::On(Feature::Gmcp),
            (DO, OPT_MSDP) => Answer::On(Feature::Msdp),
            (DO, OPT_MCCP2) => Answer::On(Feature::Mccp2),
            (DONT, OPT_GMCP) => Answer::Off(Feature::Gmcp),
            (DONT, OPT_MSDP) => Answer::Off(Feature::Msdp),
            (DONT, OPT_MCCP2) => Answer::Off(Feature::Mccp2),
            // CHARSET agreed: we ask for UTF-8 (the client answers ACCEPTED or REJECTED).
            (DO, OPT_CHARSET) if self.refused.insert((DO, OPT_CHARSET)) => Answer::Bytes(charset(CHARSET_REQUEST, ";UTF-8")),
            // A client offering CHARSET itself will send its REQUEST.
            (WILL, OPT_CHARSET) if self.refused.insert((WILL, OPT_CHARSET)) => Answer::Bytes(vec![IAC, DO, OPT_CHARSET]),
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
            OPT_GMCP => Answer::Gmcp(data.to_vec()),
            OPT_MSDP => Answer::Msdp(data.to_vec()),
            OPT_CHARSET => match data.split_first() {
                Some((&CHARSET_ACCEPTED, name)) => {
                    self.caps.charset = Some(String::from_utf8_lossy(name).chars().filter(|c| !c.is_control()).take(32).collect());
                    Answer::Nothing
                }
                Some((&CHARSET_REJECTED, _)) => {
                    self.caps.charset = None;
                    Answer::Nothing
                }
                // The client's own REQUEST: `sep name sep name…`; only UTF-8 is taken.
                Some((&CHARSET_REQUEST, rest)) if !rest.is_empty() => {
                    let sep = rest[0];
                    let utf8 = rest[1..].split(|b| *b == sep).any(|n| n.eq_ignore_ascii_case(b"UTF-8"));
                    if utf8 {
                        self.caps.charset = Some("UTF-8".into());
                        Answer::Bytes(charset(CHARSET_ACCEPTED, "UTF-8"))
                    } else {
                        Answer::Bytes(charset(CHARSET_REJECTED, ""))
                    }
                }
                _ => Answer::Nothing,
            },
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

//! Telnet: the byte-level protocol (IAC handling, here) and the human session on top of
//! it (`telnet/`: the session, its writer with MCCP2, the MUD options, GMCP and MSDP).
//!
//! IAC sequences are consumed and never shown as text; besides the MUD options
//! (`negotiate.rs`) the server takes only ECHO (to hide passwords) and SGA, and refuses
//! every other option once.

use std::collections::HashSet;

pub const IAC: u8 = 255;
pub const DONT: u8 = 254;
pub const DO: u8 = 253;
pub const WONT: u8 = 252;
pub const WILL: u8 = 251;
pub const SB: u8 = 250;
pub const SE: u8 = 240;
pub const OPT_ECHO: u8 = 1;
pub const OPT_SGA: u8 = 3;

/// Longest input line kept; the rest of a longer line is dropped.
pub const MAX_LINE: usize = 512;
const MAX_SB: usize = 4096;

#[derive(Debug, Clone, PartialEq)]
pub enum TelnetEvent {
    Line {
        bytes: Vec<u8>,
        truncated: bool,
    },
    Negotiate {
        verb: u8,
        opt: u8,
    },
    /// `IAC SB opt data IAC SE` (data unescaped; one longer than 4 KiB is dropped).
    Sub {
        opt: u8,
        data: Vec<u8>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum St {
    Data,
    Cr,
    Iac,
    Verb(u8),
    Sb,
    SbIac,
}

/// A streaming telnet decoder: bytes in, lines and negotiations out.
#[derive(Debug)]
pub struct TelnetParser {
    st: St,
    line: Vec<u8>,
    truncated: bool,
    sb_len: usize,
    /// The sub-negotiation being read (its option first).
    sb: Vec<u8>,
}

impl Default for TelnetParser {
    fn default() -> Self {
        TelnetParser { st: St::Data, line: Vec::new(), truncated: false, sb_len: 0, sb: Vec::new() }
    }
}

impl TelnetParser {
    fn push(&mut self, b: u8) {
        if self.line.len() < MAX_LINE {
            self.line.push(b);
        } else {
            self.truncated = true;
        }
    }

    fn end_line(&mut self, out: &mut Vec<TelnetEvent>) {
        // A cut line ends at a character's boundary: the bytes of a character the cut
        // went through are dropped with the rest (else the whole line read as invalid).
        if self.truncated {
            if let Err(e) = std::str::from_utf8(&self.line) {
                if e.error_len().is_none() {
                    self.line.truncate(e.valid_up_to());
                }
            }
        }
        out.push(TelnetEvent::Line { bytes: std::mem::take(&mut self.line), truncated: self.truncated });
        self.truncated = false;
    }

    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<TelnetEvent>) {
        for &b in bytes {
            self.st = match self.st {
                St::Data | St::Cr => {
                    let after_cr = self.st == St::Cr;
                    match b {
                        IAC => St::Iac,
                        b'\r' => {
                            self.end_line(out);
                            St::Cr
                        }
                        b'\n' | 0 if after_cr => St::Data,
                        b'\n' => {
                            self.end_line(out);
                            St::Data
                        }
                        8 | 127 => {
                            self.line.pop();
                            St::Data
                        }
                        b'\t' => {
                            self.push(b' ');
                            St::Data
                        }
                        0..=31 => St::Data,
                        _ => {
                            self.push(b);
                            St::Data
                        }
                    }
                }
                St::Iac => match b {
                    IAC => {
                        self.push(IAC);
                        St::Data
                    }
                    WILL | WONT | DO | DONT => St::Verb(b),
                    SB => {
                        self.sb_len = 0;
                        self.sb.clear();
                        St::Sb
                    }
                    _ => St::Data, // NOP, GA, AYT, ... carry nothing for us
                },
                St::Verb(verb) => {
                    out.push(TelnetEvent::Negotiate { verb, opt: b });
                    St::Data
                }
                St::Sb => {
                    self.sb_len += 1;
                    if b == IAC {
                        St::SbIac
                    } else {
                        // Past the bound the rest is read and dropped, never taken as text.
                        if self.sb_len <= MAX_SB {
                            self.sb.push(b);
                        }
                        St::Sb
                    }
                }
                St::SbIac => match b {
                    SE => {
                        if let Some((&opt, data)) = self.sb.split_first().filter(|_| self.sb_len <= MAX_SB) {
                            out.push(TelnetEvent::Sub { opt, data: data.to_vec() });
                        }
                        self.sb.clear();
                        St::Data
                    }
                    IAC => {
                        self.sb.push(IAC);
                        St::Sb
                    }
                    _ => St::Sb,
                },
            };
        }
    }
}

/// Replies to a client's negotiation: ECHO and SGA may be on; everything else is refused.
#[derive(Default)]
pub struct Options {
    answered: HashSet<(u8, u8)>,
    pub echo_off_requested: bool,
}

impl Options {
    /// The client asked us to suppress go-ahead (so no GA after prompts).
    pub fn sga_on(&self) -> bool {
        self.answered.contains(&(DO, OPT_SGA))
    }

    pub fn reply(&mut self, verb: u8, opt: u8) -> Option<[u8; 3]> {
        let reply = match (verb, opt) {
            (DO, OPT_ECHO) if self.echo_off_requested => return None, // our own WILL ECHO acknowledged
            (DO, OPT_SGA) => [IAC, WILL, OPT_SGA],
            (DO, o) => [IAC, WONT, o],
            (WILL, OPT_SGA) => [IAC, DO, OPT_SGA],
            (WILL, o) => [IAC, DONT, o],
            _ => return None, // WONT/DONT need no answer
        };
        // Answer each request once: never a negotiation loop.
        if self.answered.insert((verb, opt)) {
            Some(reply)
        } else {
            None
        }
    }
}

/// Text for a telnet client: `\n` becomes `\r\n`, a lone IAC byte is doubled.
pub fn encode_text(s: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(s.len() + 8);
    for b in s.bytes() {
        match b {
            b'\n' => v.extend_from_slice(b"\r\n"),
            IAC => v.extend_from_slice(&[IAC, IAC]),
            _ => v.push(b),
        }
    }
    v
}

#[cfg(test)]
mod tests;

pub mod conn;
pub mod gmcp;
pub mod msdp;
pub mod mud;
pub mod negotiate;
pub mod session;

pub use session::run;

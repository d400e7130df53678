//! Telnet: the byte-level protocol (IAC handling) and the human session on top of it.
//!
//! IAC sequences are consumed and never shown as text; the server offers only ECHO
//! (to hide passwords) and SGA, and refuses every other option once.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::telnet_login::Creation;
use crate::auth::limits::{ConnPermit, LoginDenied, TokenBucket};
use crate::game::character::Link;
use crate::game::world::CharId;
use crate::game::{EngineMsg, Out};
use crate::net::shared::Shared;
use crate::protocol::LoginData;

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

const BANNER: &str = include_str!("../../data/banner.txt");
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

enum Phase {
    Name,
    Password { name: String, tries: u32 },
    ConfirmName { name: String },
    NewPassword { name: String },
    ConfirmPassword { name: String, password: String },
    Creating { name: String, password: String, c: Creation },
    Playing { char_id: CharId, link_id: u64 },
}

struct Conn {
    w: OwnedWriteHalf,
    shared: Arc<Shared>,
    peer: SocketAddr,
    opts: Options,
    /// The MUD options (MSSP, EOR, NAWS, TTYPE) and what the client said.
    mud: negotiate::Negotiator,
}

impl Conn {
    async fn write(&mut self, bytes: &[u8]) -> bool {
        matches!(tokio::time::timeout(WRITE_TIMEOUT, self.w.write_all(bytes)).await, Ok(Ok(())))
    }
    async fn say(&mut self, text: &str) -> bool {
        let b = encode_text(text);
        self.write(&b).await
    }
    async fn echo(&mut self, on: bool) -> bool {
        self.opts.echo_off_requested = !on;
        self.write(&[IAC, if on { WONT } else { WILL }, OPT_ECHO]).await
    }
}

pub async fn run(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>, permit: Option<ConnPermit>) {
    let (mut r, w) = stream.into_split();
    let mut conn = Conn { w, shared: shared.clone(), peer, opts: Options::default(), mud: Default::default() };
    if permit.is_none() {
        conn.say("Sorry, the game is full right now (too_many_connections). Try again later.\n").await;
        return;
    }
    // The MUD options are offered, never waited for.
    if !conn.write(&negotiate::offers()).await || !conn.say(BANNER).await || !conn.say("By what name do you wish to be known? ").await {
        return;
    }
    let mut parser = TelnetParser::default();
    let mut phase = Phase::Name;
    let (out_tx, mut out_rx) = mpsc::channel::<Out>(1024);
    let mut buf = vec![0u8; 4096];
    let mut events = Vec::new();
    let login_deadline = tokio::time::Instant::now() + LOGIN_TIMEOUT;
    let mut bucket = TokenBucket::new(shared.edge.cmd_rate, shared.edge.cmd_burst * 2.0, Instant::now());
    'conn: loop {
        let playing = matches!(phase, Phase::Playing { .. });
        tokio::select! {
            _ = tokio::time::sleep_until(login_deadline), if !playing => {
                conn.say("\nTimed out waiting for a login.\n").await;
                break;
            }
            out = out_rx.recv(), if playing => {
                let Some(out) = out else { break };
                match out {
                    Out::Event { text, .. } => { if !conn.say(&format!("{text}\n")).await { break } }
                    Out::Prompt(p) => {
                        if !conn.say(&format!("\n{p}")).await { break }
                        // A client that agreed to EOR learns where the prompt ends.
                        if conn.mud.caps.eor && !conn.write(&[IAC, negotiate::EOR]).await { break }
                    }
                    Out::Error { message, .. } => { if !conn.say(&format!("{message}\n")).await { break } }
                    Out::Close { message, .. } => { conn.say(&format!("{message}\n")).await; break; }
                    Out::State { .. } | Out::Vars { .. } | Out::MemoryBootstrap { .. } | Out::MemorySummary(_) | Out::Reply { .. } => {}
                }
            }
            n = r.read(&mut buf) => {
                let n = match n { Ok(0) | Err(_) => break, Ok(n) => n };
                parser.feed(&buf[..n], &mut events);
                for ev in std::mem::take(&mut events) {
                    match ev {
                        TelnetEvent::Negotiate { verb, opt } if negotiate::handles(opt) => {
                            let answer = conn.mud.on_negotiate(verb, opt);
                            if !answer_mud(&mut conn, answer).await { break 'conn; }
                        }
                        TelnetEvent::Negotiate { verb, opt } => {
                            if let Some(reply) = conn.opts.reply(verb, opt) {
                                if !conn.write(&reply).await { break 'conn; }
                            }
                        }
                        TelnetEvent::Sub { opt, data } => {
                            let answer = conn.mud.on_sub(opt, &data);
                            if !answer_mud(&mut conn, answer).await { break 'conn; }
                        }
                        TelnetEvent::Line { bytes, truncated } => {
                            let line = match String::from_utf8(bytes) {
                                Ok(s) => s,
                                Err(_) => {
                                    if !conn.say("That line was not valid UTF-8 text (bad_input); it was ignored.\n").await { break 'conn; }
                                    continue;
                                }
                            };
                            if truncated && !conn.say(&format!("Line too long (over {MAX_LINE} bytes); the rest was dropped.\n")).await {
                                break 'conn;
                            }
                            let current = std::mem::replace(&mut phase, Phase::Name);
                            match step(&mut conn, current, line.trim(), &out_tx, &mut bucket).await {
                                Some(p) => phase = p,
                                None => break 'conn,
                            }
                        }
                    }
                }
            }
        }
    }
    if let Phase::Playing { char_id, link_id } = phase {
        let _ = shared.engine.tx.send(EngineMsg::Detach { char_id, link_id }).await;
    }
    let _ = conn.w.shutdown().await;
}

/// Carries out what a MUD-option negotiation asked; false when the socket is gone.
async fn answer_mud(conn: &mut Conn, answer: negotiate::Answer) -> bool {
    match answer {
        negotiate::Answer::Nothing => true,
        negotiate::Answer::Bytes(b) => conn.write(&b).await,
        negotiate::Answer::Mssp => {
            let shared = conn.shared.clone();
            let players = shared.who().await.len();
            let port = conn.w.local_addr().map(|a| a.port()).unwrap_or(0);
            let vars = [
                ("NAME", "pawns".to_string()),
                ("PLAYERS", players.to_string()),
                ("UPTIME", (crate::time::unix_secs().saturating_sub(shared.started.elapsed().as_secs())).to_string()),
                ("CODEBASE", format!("pawns {}", env!("CARGO_PKG_VERSION"))),
                ("CRAWL DELAY", "-1".to_string()),
                ("PORT", port.to_string()),
                ("FAMILY", "DikuMUD".to_string()),
                ("ANSI", "0".to_string()),
                ("UTF-8", "1".to_string()),
                ("MSSP", "1".to_string()),
                ("EOR", "1".to_string()),
            ];
            conn.write(&negotiate::mssp(&vars)).await
        }
    }
}

/// Advances the login dialogue (or plays a command); `None` closes the connection.
async fn step(conn: &mut Conn, phase: Phase, line: &str, out_tx: &mpsc::Sender<Out>, bucket: &mut TokenBucket) -> Option<Phase> {
    let shared = conn.shared.clone();
    match phase {
        Phase::Playing { char_id, link_id } => {
            if bucket.take(Instant::now()).is_err() {
                conn.say("You are sending commands too fast (rate_limited); that one was dropped.\n").await;
                return Some(Phase::Playing { char_id, link_id });
            }
            if let Some(said) = super::telnet_mind::handle(&shared, char_id, line).await {
                let _ = shared.engine.tx.send(EngineMsg::Say { char_id, text: said }).await;
                return Some(Phase::Playing { char_id, link_id });
            }
            let _ = shared
                .engine
                .tx
                .send(EngineMsg::Command { char_id, link_id, line: line.to_string(), id: None, received: Instant::now(), client: None })
                .await;
            Some(Phase::Playing { char_id, link_id })
        }
        Phase::Name => {
            if line.is_empty() {
                conn.say("By what name do you wish to be known? ").await;
                return Some(Phase::Name);
            }
            if let Err(m) = crate::auth::names::check(line) {
                conn.say(&format!("Invalid name (invalid_name): {m}.\nBy what name do you wish to be known? ")).await;
                return Some(Phase::Name);
            }
            let name = crate::auth::names::display(line);
            match shared.accounts.exists(&name).await {
                Ok(true) => {
                    conn.echo(false).await;
                    conn.say("Password: ").await;
                    Some(Phase::Password { name, tries: 0 })
                }
                Ok(false) => {
                    // New characters made at the prompt keep the classic letters-only rule.
                    if let Err(m) = crate::auth::names::check_classic(line) {
                        conn.say(&format!("Invalid name (invalid_name): {m}.\nBy what name do you wish to be known? ")).await;
                        return Some(Phase::Name);
                    }
                    conn.say(&format!("Did I get that right, {name} (Y/N)? ")).await;
                    Some(Phase::ConfirmName { name })
                }
                Err(_) => {
                    conn.say("The game cannot reach its records right now (internal). Try again later.\n").await;
                    None
                }
            }
        }
        Phase::ConfirmName { name } => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" => {
                conn.echo(false).await;
                conn.say(&format!("New character.\nGive me a password for {name}: ")).await;
                Some(Phase::NewPassword { name })
            }
            "n" | "no" => {
                conn.say("Okay, what IS it, then? ").await;
                Some(Phase::Name)
            }
            _ => {
                conn.say("Please type Yes or No: ").await;
                Some(Phase::ConfirmName { name })
            }
        },
        Phase::NewPassword { name } => {
            if line.len() < 3 || line.len() > 64 || line.eq_ignore_ascii_case(&name) {
                conn.say("\nIllegal password (3 to 64 characters, not your name).\nPassword: ").await;
                return Some(Phase::NewPassword { name });
            }
            conn.say("\nPlease retype password: ").await;
            Some(Phase::ConfirmPassword { name, password: line.to_string() })
        }
        Phase::ConfirmPassword { name, password } => {
            if line != password {
                conn.say("\nPasswords don't match... start over.\nPassword: ").await;
                return Some(Phase::NewPassword { name });
            }
            conn.echo(true).await;
            let c = Creation::new();
            conn.say(&format!("\n{}", c.prompt_text())).await;
            Some(Phase::Creating { name, password, c })
        }
        Phase::Creating { name, password, mut c } => {
            if let Some(why) = c.answer(line) {
                conn.say(&format!("{why}\n{}", c.prompt_text())).await;
                return Some(Phase::Creating { name, password, c });
            }
            if !c.done() {
                conn.say(&c.prompt_text()).await;
                return Some(Phase::Creating { name, password, c });
            }
            match shared.create_character(&name, Some(password), &c).await {
                Ok(authed) => {
                    conn.say(&format!("\nWelcome! Your adventure begins at {}.\n\n", shared.start_room.1)).await;
                    enter(conn, authed.record, out_tx).await
                }
                Err(e) => {
                    conn.say(&format!(
                        "Could not create that character ({}): {}.\nBy what name do you wish to be known? ",
                        e.code(),
                        e.message()
                    ))
                    .await;
                    Some(Phase::Name)
                }
            }
        }
        Phase::Password { name, tries } => {
            match shared.login_gate(conn.peer.ip()) {
                Ok(()) => {}
                Err(LoginDenied::RateLimited { .. }) => {
                    conn.say("\nToo many attempts (rate_limited); wait a moment.\nPassword: ").await;
                    return Some(Phase::Password { name, tries });
                }
                Err(LoginDenied::LockedOut { retry_after_ms }) => {
                    conn.say(&format!(
                        "\nToo many failed logins from your address (locked_out). Try again in {} minutes.\n",
                        retry_after_ms.div_ceil(60_000)
                    ))
                    .await;
                    return None;
                }
            }
            let data = LoginData { player_name: Some(name.clone()), password: Some(line.to_string()), ..Default::default() };
            match shared.authenticate(&data, conn.peer.ip()).await {
                Ok(authed) => {
                    conn.echo(true).await;
                    conn.say("\n").await;
                    enter(conn, authed.record, out_tx).await
                }
                Err(r) => {
                    if r.locked_out {
                        conn.say("\nToo many failed logins from your address (locked_out).\n").await;
                        return None;
                    }
                    if tries + 1 >= 3 {
                        conn.say("\nWrong password (auth_failed).\n").await;
                        return None;
                    }
                    conn.say("\nWrong password (auth_failed).\nPassword: ").await;
                    Some(Phase::Password { name, tries: tries + 1 })
                }
            }
        }
    }
}

async fn enter(conn: &mut Conn, record: pawns_storage::CharacterRecord, out_tx: &mpsc::Sender<Out>) -> Option<Phase> {
    let link_id = conn.shared.next_link_id();
    let link = Link {
        id: link_id,
        tx: out_tx.clone(),
        json: false,
        client: std::sync::Arc::new(crate::game::character::ClientInfo {
            notice: None,
            harness: Some("telnet".into()),
            valence: true,
            ..Default::default()
        }),
    };
    let char_id = conn.shared.enter(record, link, None).await?;
    Some(Phase::Playing { char_id, link_id })
}

#[cfg(test)]
mod tests;

pub mod negotiate;

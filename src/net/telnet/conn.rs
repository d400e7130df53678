//! The writing side of a telnet session: bytes out (through MCCP2's zlib stream once the
//! client agreed), text fitted to the window, and the end-of-prompt marks (EOR, or GA).

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use flate2::write::ZlibEncoder;
use flate2::Compression;
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;

use super::mud::MudClient;
use super::negotiate::{self, Negotiator};
use super::{encode_text, Options, IAC, OPT_ECHO, SB, SE, WILL, WONT};
use crate::net::shared::Shared;
use crate::net::wrap;

const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// IAC GA: ends a prompt for a telnet client that neither agreed to EOR nor to
/// suppressing go-ahead.
const GA: u8 = 249;

pub struct Conn {
    w: OwnedWriteHalf,
    pub shared: Arc<Shared>,
    pub peer: SocketAddr,
    pub opts: Options,
    /// The MUD options and what the client said about itself.
    pub mud: Negotiator,
    /// GMCP and MSDP: what the client asked for and was last sent.
    pub data: MudClient,
    /// MCCP2: everything after `IAC SB MCCP2 IAC SE` goes through this zlib stream.
    zlib: Option<ZlibEncoder<Vec<u8>>>,
    /// Bytes handed to the socket, after compression (for `bench` and tests).
    pub wire_bytes: u64,
    /// While set (a batch from the engine is being written), writes gather in `held`
    /// and go out in one write at `release`.
    holding: bool,
    held: Vec<u8>,
    /// The player's `color` level, when it chose one (else the client's, `colour`).
    pub colour_choice: Option<u8>,
}

impl Conn {
    pub fn new(w: OwnedWriteHalf, shared: Arc<Shared>, peer: SocketAddr) -> Conn {
        Conn {
            w,
            shared,
            peer,
            opts: Options::default(),
            mud: Negotiator::default(),
            data: MudClient::default(),
            zlib: None,
            wire_bytes: 0,
            holding: false,
            held: Vec::new(),
            colour_choice: None,
        }
    }

    /// Gathers what is written from now on, until `release` writes it all at once.
    pub fn hold(&mut self) {
        self.holding = true;
    }

    /// Writes what was gathered since `hold`, in one write (one zlib flush).
    pub async fn release(&mut self) -> bool {
        self.holding = false;
        let held = std::mem::take(&mut self.held);
        let ok = self.write(&held).await;
        // Keep the buffer's allocation for the next batch.
        if self.held.is_empty() {
            self.held = held;
            self.held.clear();
        }
        ok
    }

    async fn raw(&mut self, bytes: &[u8]) -> bool {
        self.wire_bytes += bytes.len() as u64;
        matches!(tokio::time::timeout(WRITE_TIMEOUT, self.w.write_all(bytes)).await, Ok(Ok(())))
    }

    /// Writes bytes as the connection carries them now (compressed or not); each write
    /// is flushed through the zlib stream so the client sees it at once.
    pub async fn write(&mut self, bytes: &[u8]) -> bool {
        if bytes.is_empty() {
            return true;
        }
        if self.holding {
            self.held.extend_from_slice(bytes);
            return true;
        }
        let Some(z) = self.zlib.as_mut() else { return self.raw(bytes).await };
        if z.write_all(bytes).and_then(|_| z.flush()).is_err() {
            return false;
        }
        let out = std::mem::take(z.get_mut());
        self.raw(&out).await
    }

    /// Text for the player, `\n` as `\r\n` (the login dialogue: its prompts end lines).
    pub async fn say(&mut self, text: &str) -> bool {
        let b = encode_text(text);
        self.write(&b).await
    }

    /// The game's text: fitted to the window (NAWS), `\n` as `\r\n`.
    pub async fn say_fitted(&mut self, text: &str) -> bool {
        let fitted = match self.mud.caps.window {
            Some((w, _)) if (w as usize) >= wrap::MIN_WIDTH => std::borrow::Cow::Owned(wrap::wrap(text, w as usize)),
            _ => std::borrow::Cow::Borrowed(text),
        };
        // Colour marks become ANSI for the player's level, or go (after wrapping: they
        // take no columns).
        let b = encode_text(&crate::game::send::colour::render(&fitted, self.colour()));
        self.write(&b).await
    }

    /// The colour level this session shows: the player's `color` choice, else
    /// `normal` for a client that says it does ANSI (MTTS, a MUD client's or an ANSI
    /// terminal's TTYPE) and `off` for plain `telnet` and `nc`.
    pub fn colour(&self) -> u8 {
        if let Some(c) = self.colour_choice {
            return c;
        }
        const MUD_CLIENTS: &[&str] =
            &["MUDLET", "TINTIN", "MUSHCLIENT", "ZMUD", "CMUD", "ATLANTIS", "BLOWTORCH", "POTATO", "KBTIN", "MUDRAMMER", "AXMUD", "BEIP"];
        let caps = &self.mud.caps;
        let ansi_ttype = caps.ttype.iter().any(|t| {
            let t = t.to_ascii_uppercase();
            t.contains("ANSI") || MUD_CLIENTS.iter().any(|c| t.starts_with(c))
        });
        if caps.mtts.is_some_and(|m| m & 1 != 0) || ansi_ttype {
            2
        } else {
            0
        }
    }

    pub async fn echo(&mut self, on: bool) -> bool {
        self.opts.echo_off_requested = !on;
        self.write(&[IAC, if on { WONT } else { WILL }, OPT_ECHO]).await
    }

    /// A prompt, then the mark MUD clients take as its end: EOR for clients that agreed
    /// to it, else GA for a telnet client that has not suppressed go-ahead. A client
    /// that never spoke telnet (`nc`) gets neither.
    pub async fn prompt(&mut self, text: &str) -> bool {
        let mut b = encode_text(text);
        if self.mud.caps.eor {
            b.extend([IAC, negotiate::EOR]);
        } else if self.mud.caps.telnet && !self.opts.sga_on() {
            b.extend([IAC, GA]);
        }
        self.write(&b).await
    }

    /// MCCP2 on: the start marker goes out in one write (Mudlet looks for it whole),
    /// then everything is compressed.
    pub async fn start_compression(&mut self) -> bool {
        if self.zlib.is_some() {
            return true;
        }
        if !self.raw(&[IAC, SB, negotiate::OPT_MCCP2, IAC, SE]).await {
            return false;
        }
        self.zlib = Some(ZlibEncoder::new(Vec::new(), Compression::default()));
        true
    }

    /// Ends the zlib stream cleanly (the client sees its end); later bytes go plain.
    pub async fn end_compression(&mut self) -> bool {
        let Some(z) = self.zlib.take() else { return true };
        match z.finish() {
            Ok(tail) => self.raw(&tail).await,
            Err(_) => false,
        }
    }

    pub fn compressing(&self) -> bool {
        self.zlib.is_some()
    }

    /// The end of the connection: the compressed stream finished, the socket shut.
    pub async fn close(&mut self) {
        self.end_compression().await;
        let _ = self.w.shutdown().await;
    }

    pub fn local_port(&self) -> u16 {
        self.w.local_addr().map(|a| a.port()).unwrap_or(0)
    }
}

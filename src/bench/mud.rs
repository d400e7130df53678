//! `pawns bench mud`: N telnet players made through the real creation prompts, all in
//! the start room, each saying a line every second (everyone hears everyone: a busy
//! room), in four arms: plain, MCCP2, GMCP, GMCP with MCCP2 (each with EOR, as MUD
//! clients agree). Reports the bytes a player receives per second on the wire in each,
//! and what the compressed stream inflates to (checked as a valid zlib stream). The load
//! generator runs on the server's machine.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::cli::BenchMudArgs;

const MCCP2_START: [u8; 5] = [255, 250, 86, 255, 240];

/// One player's connection: what it read, and (with MCCP2) what that inflated to.
struct Player {
    s: TcpStream,
    buf: Vec<u8>,
    inflate: Option<flate2::Decompress>,
}

impl Player {
    async fn read_until(&mut self, needle: &str, wire: &AtomicU64, plain: &AtomicU64) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(i) = self.buf.windows(needle.len()).position(|w| w == needle.as_bytes()) {
                self.buf.drain(..i + needle.len());
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("timed out waiting for {needle:?}");
            }
            self.read_some(wire, plain).await?;
        }
    }

    async fn read_some(&mut self, wire: &AtomicU64, plain: &AtomicU64) -> anyhow::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        let n = tokio::time::timeout(Duration::from_secs(30), self.s.read(&mut chunk)).await.context("read timed out")??;
        if n == 0 {
            bail!("the server closed the connection");
        }
        wire.fetch_add(n as u64, Ordering::Relaxed);
        let mut bytes = &chunk[..n];
        while !bytes.is_empty() {
            match self.inflate.as_mut() {
                None => {
                    let from = self.buf.len().saturating_sub(MCCP2_START.len());
                    self.buf.extend_from_slice(bytes);
                    plain.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                    bytes = &[];
                    if let Some(i) = self.buf[from..].windows(5).position(|w| w == MCCP2_START) {
                        let at = from + i + 5;
                        let rest = self.buf.split_off(at);
                        plain.fetch_sub(rest.len() as u64, Ordering::Relaxed);
                        self.inflate = Some(flate2::Decompress::new(true));
                        let mut out = vec![0u8; 256 * 1024];
                        self.inflate_into(&rest, &mut out, plain)?;
                    }
                }
                Some(_) => {
                    let mut out = vec![0u8; 256 * 1024];
                    let b = bytes.to_vec();
                    bytes = &[];
                    self.inflate_into(&b, &mut out, plain)?;
                }
            }
        }
        // Keep the buffer small: only the tail can hold a needle's start.
        if self.buf.len() > 64 * 1024 {
            self.buf.drain(..self.buf.len() - 4096);
        }
        Ok(())
    }

    fn inflate_into(&mut self, mut input: &[u8], out: &mut [u8], plain: &AtomicU64) -> anyhow::Result<()> {
        let z = self.inflate.as_mut().expect("inflating");
        while !input.is_empty() {
            let (i0, o0) = (z.total_in(), z.total_out());
            z.decompress(input, out, flate2::FlushDecompress::Sync).context("the server's zlib stream is broken")?;
            let (used, made) = ((z.total_in() - i0) as usize, (z.total_out() - o0) as usize);
            self.buf.extend_from_slice(&out[..made]);
            plain.fetch_add(made as u64, Ordering::Relaxed);
            input = &input[used..];
            if used == 0 && made == 0 {
                bail!("the zlib stream stalled");
            }
        }
        Ok(())
    }

    async fn line(&mut self, l: &str) -> anyhow::Result<()> {
        self.s.write_all(format!("{l}\r\n").as_bytes()).await?;
        Ok(())
    }
}

/// Makes a character through the prompts (and agrees to MCCP2 and GMCP when asked).
async fn join(addr: &str, name: &str, compress: bool, gmcp: bool, wire: &AtomicU64, plain: &AtomicU64) -> anyhow::Result<Player> {
    let s = TcpStream::connect(addr).await.with_context(|| format!("cannot reach {addr}"))?;
    s.set_nodelay(true)?;
    let mut p = Player { s, buf: Vec::new(), inflate: None };
    p.read_until("known? ", wire, plain).await?;
    // Every arm agrees to EOR (as MUD clients do); then MCCP2, then GMCP.
    let mut b = vec![255, 253, 25];
    if compress {
        b.extend([255, 253, 86]);
    }
    if gmcp {
        b.extend([255, 253, 201]);
        b.extend(b"\xff\xfa\xc9Core.Supports.Set [\"Char 1\", \"Room 1\", \"Comm 1\"]\xff\xf0");
    }
    p.s.write_all(&b).await?;
    for (say, wait) in [
        (name, "(Y/N)? "),
        ("y", ": "),
        ("bench99", "password: "),
        ("bench99", "(M/F)? "),
        ("f", "Race: "),
        ("0", "Class: "),
        ("3", "reroll (R)? "),
        ("k", "mv > "),
    ] {
        p.line(say).await?;
        p.read_until(wait, wire, plain).await?;
    }
    Ok(p)
}

/// One arm: players join, talk for `seconds`, and leave; bytes per player per second.
async fn arm(args: &BenchMudArgs, compress: bool, gmcp: bool, tag: &str) -> anyhow::Result<(f64, f64)> {
    let wire = Arc::new(AtomicU64::new(0));
    let plain = Arc::new(AtomicU64::new(0));
    let stamp = pawns::time::unix_secs() % 100_000;
    let mut players = Vec::new();
    for i in 0..args.players {
        let name = format!("{}{}{}", tag, letters(stamp), letters(i as u64));
        players.push(join(&args.server, &name, compress, gmcp, &wire, &plain).await.with_context(|| format!("player {name}"))?);
    }
    // Measure from here: everyone is in the room.
    let (w0, p0) = (wire.load(Ordering::Relaxed), plain.load(Ordering::Relaxed));
    let started = Instant::now();
    let until = started + Duration::from_secs(args.seconds);
    let mut tasks = Vec::new();
    for (i, mut p) in players.into_iter().enumerate() {
        let (wire, plain) = (wire.clone(), plain.clone());
        tasks.push(tokio::spawn(async move {
            // Spread the talkers over the second.
            let mut next = Instant::now() + Duration::from_millis((i as u64 * 997) % 1000);
            while Instant::now() < until {
                if Instant::now() >= next {
                    p.line(&format!("say the rats in the cellar are restless tonight, number {i}")).await?;
                    next += Duration::from_secs(1);
                }
                let left = next.min(until).saturating_duration_since(Instant::now());
                if let Ok(r) = tokio::time::timeout(left, p.read_some(&wire, &plain)).await {
                    r?;
                }
            }
            p.line("quit").await?;
            anyhow::Ok(())
        }));
    }
    for t in tasks {
        t.await??;
    }
    let secs = started.elapsed().as_secs_f64();
    let per = |v: u64| v as f64 / secs / args.players as f64;
    Ok((per(wire.load(Ordering::Relaxed) - w0), per(plain.load(Ordering::Relaxed) - p0)))
}

/// Names are letters only (the telnet prompt's classic rule).
fn letters(mut n: u64) -> String {
    let mut s = String::new();
    loop {
        s.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return s;
        }
    }
}

pub async fn run(args: BenchMudArgs) -> anyhow::Result<()> {
    if args.players == 0 || args.seconds == 0 {
        bail!("--players and --seconds must be at least 1 (bad_request)");
    }
    eprintln!("{} telnet players in one room, each saying a line a second, {} s per arm", args.players, args.seconds);
    for (label, compress, gmcp, tag) in
        [("plain", false, false, "Pl"), ("mccp2", true, false, "Zc"), ("gmcp", false, true, "Gm"), ("gmcp+mccp2", true, true, "Gz")]
    {
        let (wire, text) = arm(&args, compress, gmcp, tag).await?;
        println!("{label:<11} {wire:>8.0} bytes/s per player on the wire ({text:.0} bytes/s of telnet data before compression)");
    }
    Ok(())
}

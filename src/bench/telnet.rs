//! `pawns bench telnet`: N telnet players made through the real creation prompts, each
//! typing a command a second (say, look, score, inventory, a move) against any
//! CircleMUD-family server — this one or another, so the two can be compared.
//!
//! Each reply is found by what only it can carry, never by the next prompt (another
//! player's broadcast is followed by a prompt too): a `say` by a token unique to that
//! command, echoed back as `You say, '<token>'`; the others by the text only their own
//! reply holds (`Exits:` for a look or a move, `You have` for score, `You are carrying`
//! for inventory). The prompt is the first one after the reply: a line ending in the
//! prompt text, or a telnet GA/EOR. With the server's pid the report gives the server's
//! CPU per command over the measured window, and its idle CPU for the same time first.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::agents::{agent_name, percentile};
use crate::cli::BenchTelnetArgs;

const IAC: u8 = 255;
const GA: u8 = 249;
const EOR: u8 = 239;
const SB: u8 = 250;
const SE: u8 = 240;

/// The creation dialogue of this server (`{name}`, `{password}` are filled in): wait
/// for the text, then answer. `--script` replaces it for another server.
const PAWNS_SCRIPT: &str =
    "known? \t{name}\n(Y/N)? \ty\npassword for \t{password}\nretype password: \t{password}\n(M/F)? \tf\nRace: \t0\nClass: \t3\nreroll (R)? \tk\n";

/// What the stream brought: text, and where prompts were marked by GA/EOR.
#[derive(Default)]
struct Decoded {
    text: String,
    /// A GA or EOR came (a prompt ended).
    mark: bool,
}

/// Strips telnet commands from a stream, refusing every option the server offers (a
/// plain telnet client), and reports GA/EOR.
#[derive(Default)]
struct Stream {
    state: u8,
    reply: Vec<u8>,
}

impl Stream {
    fn feed(&mut self, bytes: &[u8], out: &mut Decoded) {
        let mut text = Vec::with_capacity(bytes.len());
        for &b in bytes {
            match (self.state, b) {
                (0, IAC) => self.state = 1,
                (0, _) => text.push(b),
                (1, IAC) => {
                    text.push(IAC);
                    self.state = 0;
                }
                (1, GA) | (1, EOR) => {
                    out.mark = true;
                    self.state = 0;
                }
                (1, SB) => self.state = 3,
                (1, 251..=254) => self.state = b,
                (1, _) => self.state = 0,
                // WILL x → DONT x; DO x → WONT x; WONT/DONT need no answer.
                (251, x) => {
                    self.reply.extend([IAC, 254, x]);
                    self.state = 0;
                }
                (253, x) => {
                    self.reply.extend([IAC, 252, x]);
                    self.state = 0;
                }
                (252 | 254, _) => self.state = 0,
                (3, IAC) => self.state = 4,
                (3, _) => {}
                (4, SE) => self.state = 0,
                (4, _) => self.state = 3,
                _ => self.state = 0,
            }
        }
        out.text.push_str(&String::from_utf8_lossy(&text));
    }
}

struct Player {
    s: TcpStream,
    stream: Stream,
    buf: String,
    mark: bool,
}

impl Player {
    async fn read(&mut self, deadline: Instant) -> anyhow::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        let left = deadline.saturating_duration_since(Instant::now());
        let n = tokio::time::timeout(left, self.s.read(&mut chunk)).await.context("read timed out")??;
        if n == 0 {
            bail!("the server closed the connection");
        }
        let mut d = Decoded::default();
        self.stream.feed(&chunk[..n], &mut d);
        if !self.stream.reply.is_empty() {
            let r = std::mem::take(&mut self.stream.reply);
            self.s.write_all(&r).await?;
        }
        self.buf.push_str(&d.text);
        self.mark |= d.mark;
        Ok(())
    }

    async fn until(&mut self, needle: &str) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(i) = self.buf.find(needle) {
                self.buf.drain(..i + needle.len());
                return Ok(());
            }
            if let Err(e) = self.read(deadline).await {
                bail!("{e} waiting for {needle:?} (last text: {:?})", tail(&self.buf));
            }
        }
    }

    async fn line(&mut self, l: &str) -> anyhow::Result<()> {
        self.s.write_all(format!("{l}\r\n").as_bytes()).await?;
        Ok(())
    }
}

fn tail(s: &str) -> &str {
    let from = s.len().saturating_sub(120);
    let from = (from..=s.len()).find(|i| s.is_char_boundary(*i)).unwrap_or(s.len());
    &s[from..]
}

/// The creation script: (text to wait for, answer) pairs.
fn script(args: &BenchTelnetArgs) -> anyhow::Result<Vec<(String, String)>> {
    let text = match &args.script {
        Some(p) => std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
        None => PAWNS_SCRIPT.to_string(),
    };
    let steps: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (w, a) = l.split_once('\t').ok_or_else(|| anyhow::anyhow!("bad_script: each line is `text<TAB>answer`: {l:?}"))?;
            Ok((w.to_string(), a.to_string()))
        })
        .collect::<anyhow::Result<_>>()?;
    if steps.is_empty() {
        bail!("bad_script: the creation script has no steps");
    }
    Ok(steps)
}

async fn join(args: &BenchTelnetArgs, steps: &[(String, String)], name: &str) -> anyhow::Result<Player> {
    let s = TcpStream::connect(&args.server).await.with_context(|| format!("cannot reach {}", args.server))?;
    s.set_nodelay(true)?;
    let mut p = Player { s, stream: Stream::default(), buf: String::new(), mark: false };
    for (wait, answer) in steps {
        p.until(wait).await?;
        p.line(&answer.replace("{name}", name).replace("{password}", &args.password)).await?;
    }
    p.until(&args.prompt).await?;
    Ok(p)
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    Say,
    Look,
    Score,
    Inventory,
    Move,
}

impl Kind {
    fn parse(s: &str) -> anyhow::Result<Kind> {
        Ok(match s.trim() {
            "say" => Kind::Say,
            "look" => Kind::Look,
            "score" => Kind::Score,
            "inventory" => Kind::Inventory,
            "move" | "moves" => Kind::Move,
            o => bail!("bad_mix: unknown command kind {o:?} (say, look, score, inventory, move)"),
        })
    }
    fn name(self) -> &'static str {
        match self {
            Kind::Say => "say",
            Kind::Look => "look",
            Kind::Score => "score",
            Kind::Inventory => "inventory",
            Kind::Move => "move",
        }
    }
}

#[derive(Default)]
struct Tally {
    sent: u64,
    /// Per kind: command → reply, command → prompt after it (µs).
    reply: BTreeMap<Kind, Vec<u32>>,
    prompt: BTreeMap<Kind, Vec<u32>>,
    missed: u64,
    failures: BTreeMap<String, u64>,
}

/// The exits a look showed (`[ Exits: n e s ]`).
fn exits_in(text: &str) -> Option<Vec<String>> {
    let at = text.rfind("Exits:")?;
    let rest = &text[at + 6..];
    let end = rest.find([']', '\n']).unwrap_or(rest.len());
    Some(rest[..end].split_whitespace().filter(|w| *w != "none").map(str::to_string).collect())
}

/// Which opposite a direction has (to walk back).
fn back(d: &str) -> &'static str {
    match d {
        "north" | "n" => "south",
        "south" | "s" => "north",
        "east" | "e" => "west",
        "west" | "w" => "east",
        "up" | "u" => "down",
        _ => "up",
    }
}

async fn play(mut p: Player, args: Arc<BenchTelnetArgs>, mix: Arc<Vec<Kind>>, idx: usize, start: Instant, end: Instant) -> Tally {
    let mut t = Tally::default();
    let mut rng = rand::rngs::StdRng::seed_from_u64(idx as u64);
    let period = Duration::from_secs_f64(1.0 / args.rate);
    let mut next = start + period.mul_f64(rng.gen::<f64>());
    let mut n = 0u64;
    let mut exits: Vec<String> = Vec::new();
    let mut walked_back: Option<&'static str> = None;
    let _ = p.line("look").await;
    p.buf.clear();
    while Instant::now() < end {
        tokio::time::sleep_until(next.into()).await;
        next += period;
        n += 1;
        let kind = mix[rng.gen_range(0..mix.len())];
        let token = format!("zq{idx}x{n}");
        let (cmd, sig) = match kind {
            Kind::Say => (format!("say {token}"), format!("'{token}'")),
            Kind::Look => ("look".to_string(), "Exits:".to_string()),
            Kind::Score => ("score".to_string(), "You have".to_string()),
            Kind::Inventory => ("inventory".to_string(), "You are carrying".to_string()),
            Kind::Move => {
                let dir = match walked_back.take() {
                    Some(d) => d.to_string(),
                    None if !exits.is_empty() => exits[rng.gen_range(0..exits.len())].clone(),
                    None => "look".to_string(),
                };
                if dir != "look" {
                    walked_back = Some(back(&dir));
                }
                (dir, "Exits:".to_string())
            }
        };
        p.buf.clear();
        p.mark = false;
        let t0 = Instant::now();
        if let Err(e) = p.line(&cmd).await {
            *t.failures.entry(format!("write: {e}")).or_default() += 1;
            break;
        }
        t.sent += 1;
        // Read until the reply's signature, then until the prompt after it.
        let deadline = t0 + Duration::from_secs(5);
        let mut got: Option<u32> = None;
        let mut from = 0usize;
        loop {
            if got.is_none() {
                if let Some(i) = p.buf.find(&sig) {
                    got = Some(t0.elapsed().as_micros() as u32);
                    from = i + sig.len();
                    // A GA/EOR read before the reply was another prompt's.
                    p.mark = false;
                    if matches!(kind, Kind::Look | Kind::Move) {
                        if let Some(e) = exits_in(&p.buf) {
                            exits = e;
                        }
                    }
                }
            }
            if let Some(r) = got {
                if p.mark || p.buf[from..].contains(&args.prompt) {
                    t.reply.entry(kind).or_default().push(r);
                    t.prompt.entry(kind).or_default().push(t0.elapsed().as_micros() as u32);
                    break;
                }
            }
            if Instant::now() >= deadline {
                t.missed += 1;
                break;
            }
            if let Err(e) = p.read(deadline).await {
                if Instant::now() < deadline {
                    *t.failures.entry(format!("read: {e}")).or_default() += 1;
                    return t;
                }
            }
        }
    }
    let _ = p.line("quit").await;
    t
}

/// A process's CPU seconds (user + system), from /proc.
fn cpu_of(pid: u32) -> Option<f64> {
    super::agents::proc_sample(pid).map(|(cpu, _)| cpu)
}

pub async fn run(args: BenchTelnetArgs) -> anyhow::Result<()> {
    if args.players == 0 || !(args.rate > 0.0 && args.rate.is_finite()) {
        bail!("bad_args: --players must be at least 1 and --rate above 0");
    }
    let mix: Vec<Kind> = args.mix.split(',').map(Kind::parse).collect::<anyhow::Result<_>>()?;
    let steps = script(&args)?;
    let pid = args.server_pid.or_else(|| std::env::var("PAWNS_BENCH_SERVER_PID").ok().and_then(|p| p.parse().ok()));
    eprintln!("probing this machine's idle memory (2 s) ...");
    let machine = tokio::task::spawn_blocking(super::machine::quick_probe).await?;
    eprintln!("making {} players through the creation prompts at {} ...", args.players, args.server);
    let mut players = Vec::with_capacity(args.players);
    for i in 0..args.players {
        let name = agent_name(&args.prefix, i);
        players.push(join(&args, &steps, &name).await.with_context(|| format!("making {name}"))?);
    }
    // Idle: everyone in, nobody typing, for as long as the measured window.
    let idle = match pid {
        Some(pid) if args.idle => {
            eprintln!("all in; {:?} idle ...", args.duration);
            let a = cpu_of(pid);
            tokio::time::sleep(args.duration).await;
            a.zip(cpu_of(pid)).map(|(a, b)| b - a)
        }
        _ => None,
    };
    eprintln!("measuring for {:?} ...", args.duration);
    let args = Arc::new(args);
    let mix = Arc::new(mix);
    let start = Instant::now() + Duration::from_millis(200);
    let end = start + args.duration;
    let cpu0 = pid.and_then(cpu_of);
    let threads0 = pid.and_then(super::threads::sample);
    let tasks: Vec<_> =
        players.into_iter().enumerate().map(|(i, p)| tokio::spawn(play(p, args.clone(), mix.clone(), i, start, end))).collect();
    let mut total = Tally::default();
    for task in tasks {
        let t = task.await?;
        total.sent += t.sent;
        total.missed += t.missed;
        for (k, v) in t.reply {
            total.reply.entry(k).or_default().extend(v);
        }
        for (k, v) in t.prompt {
            total.prompt.entry(k).or_default().extend(v);
        }
        for (k, v) in t.failures {
            *total.failures.entry(k).or_default() += v;
        }
    }
    let cpu = pid.and_then(|p| cpu0.zip(cpu_of(p)).map(|(a, b)| b - a));
    // By thread, when the server is pawns (another server's threads are its own).
    let threads = match (threads0, pid.and_then(super::threads::sample), cpu) {
        (Some(t0), Some(t1), Some(c)) if t1.values().any(|(name, _)| name == "pawns-engine") => {
            Some(super::threads::by_role_within(&t0, &t1, c))
        }
        _ => None,
    };
    let mut all_reply: Vec<u32> = total.reply.values().flatten().copied().collect();
    let mut all_prompt: Vec<u32> = total.prompt.values().flatten().copied().collect();
    all_reply.sort_unstable();
    all_prompt.sort_unstable();
    let mut kinds = serde_json::Map::new();
    for (k, v) in total.reply.iter_mut() {
        v.sort_unstable();
        let pr = total.prompt.get_mut(k).map(|p| {
            p.sort_unstable();
            p.clone()
        });
        let pr = pr.unwrap_or_default();
        kinds.insert(
            k.name().into(),
            json!({"count": v.len(), "reply_ms": {"p50": percentile(v, 0.5), "p99": percentile(v, 0.99)},
                   "prompt_ms": {"p50": percentile(&pr, 0.5), "p99": percentile(&pr, 0.99)}}),
        );
    }
    let answered = all_reply.len() as f64;
    let summary = json!({
        "server": args.server,
        "players": args.players,
        "rate_per_player": args.rate,
        "duration_s": args.duration.as_secs_f64(),
        "commands_sent": total.sent,
        "answered": all_reply.len(),
        "missed": total.missed,
        "failures": total.failures,
        "reply_ms": {"p50": percentile(&all_reply, 0.5), "p99": percentile(&all_reply, 0.99), "max": percentile(&all_reply, 1.0)},
        "prompt_ms": {"p50": percentile(&all_prompt, 0.5), "p99": percentile(&all_prompt, 0.99), "max": percentile(&all_prompt, 1.0)},
        "by_command": kinds,
        "server_cpu_s": cpu,
        "server_cpu_ms_per_command": cpu.map(|c| if answered > 0.0 { c * 1000.0 / answered } else { 0.0 }),
        "server_cpu_ms_per_command_by_thread": threads.as_ref().map(|t| t.iter().map(|(r, s)| (r.to_string(), json!(s * 1000.0 / answered.max(1.0)))).collect::<serde_json::Map<_, _>>()),
        "server_idle_cpu_s": idle,
        "machine_idle_2s_read_us": machine,
    });
    if args.json {
        println!("{summary}");
        return Ok(());
    }
    println!("====== pawns bench telnet ======");
    println!(
        "  server:           {} ({} players, {} command/s each, {:.0}s)",
        args.server,
        args.players,
        args.rate,
        args.duration.as_secs_f64()
    );
    println!("  commands:         {} sent, {} answered, {} missed", total.sent, all_reply.len(), total.missed);
    if !total.failures.is_empty() {
        println!("  failures:         {:?}", total.failures);
    }
    println!(
        "  command → reply:  p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&all_reply, 0.5),
        percentile(&all_reply, 0.99),
        percentile(&all_reply, 1.0)
    );
    println!(
        "  command → prompt: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&all_prompt, 0.5),
        percentile(&all_prompt, 0.99),
        percentile(&all_prompt, 1.0)
    );
    for (k, v) in &kinds {
        println!(
            "    {k:<10} {:>6} reply p50 {:.2} / p99 {:.2} ms, prompt p50 {:.2} / p99 {:.2} ms",
            v["count"],
            v["reply_ms"]["p50"].as_f64().unwrap_or(0.0),
            v["reply_ms"]["p99"].as_f64().unwrap_or(0.0),
            v["prompt_ms"]["p50"].as_f64().unwrap_or(0.0),
            v["prompt_ms"]["p99"].as_f64().unwrap_or(0.0)
        );
    }
    match cpu {
        Some(c) => {
            println!("  server CPU:       {c:.2} s over the window, {:.3} ms per answered command", c * 1000.0 / answered.max(1.0));
            if let Some(t) = &threads {
                println!("  by thread:        {}", super::threads::describe(t, args.duration.as_secs_f64()));
            }
            if let Some(i) = idle {
                println!("  server idle CPU:  {i:.2} s over the same time with everyone in and nobody typing");
            }
        }
        None => println!("  server CPU:       not measured (give --server-pid or PAWNS_BENCH_SERVER_PID)"),
    }
    println!("  machine:          {}", super::machine::probe_line(machine));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn telnet_commands_are_stripped_and_options_refused() {
        let mut s = Stream::default();
        let mut d = Decoded::default();
        s.feed(b"hi\xff\xfb\x01there\xff\xfd\x18\xff\xfa\x18\x01\xff\xf0 > \xff\xf9", &mut d);
        assert_eq!(d.text, "hithere > ");
        assert!(d.mark);
        assert_eq!(s.reply, [IAC, 254, 1, IAC, 252, 24]);
        // A command split across reads.
        let mut d = Decoded::default();
        s.reply.clear();
        s.feed(b"a\xff", &mut d);
        s.feed(b"\xefb", &mut d);
        assert_eq!(d.text, "ab");
        assert!(d.mark);
    }

    #[test]
    fn exits_are_read_from_a_look() {
        assert_eq!(exits_in("The Temple\n[ Exits: north east ]\n"), Some(vec!["north".to_string(), "east".to_string()]));
        assert_eq!(exits_in("[ Exits: none ]"), Some(vec![]));
        assert_eq!(exits_in("nothing"), None);
    }

    #[test]
    fn a_script_needs_tabs() {
        let mut a = BenchTelnetArgs {
            server: String::new(),
            players: 1,
            rate: 1.0,
            duration: Duration::from_secs(1),
            mix: "say".into(),
            server_pid: None,
            prefix: "tb".into(),
            password: "pw".into(),
            script: None,
            prompt: "> ".into(),
            idle: false,
            json: false,
        };
        assert_eq!(script(&a).unwrap()[0], ("known? ".to_string(), "{name}".to_string()));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.txt");
        std::fs::write(&p, "no tab here\n").unwrap();
        a.script = Some(p);
        assert!(script(&a).unwrap_err().to_string().starts_with("bad_script"));
    }
}

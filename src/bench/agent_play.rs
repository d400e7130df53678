//! One bench agent of `pawns bench agents`: it connects, logs in (honouring
//! `rate_limited`), plays at its rate until the measured window ends (walking, looking,
//! fighting what the variables it subscribed to show), counts each reply's latency and
//! the frames it received, and quits.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

#[derive(Default, Debug)]
pub struct Stats {
    pub connected: usize,
    pub logged_in: usize,
    pub sent: u64,
    pub replies: u64,
    pub errors: BTreeMap<String, u64>,
    pub latencies_us: Vec<u32>,
    pub failures: BTreeMap<String, u64>,
    /// HUD requests sent while measuring (their replies count as replies).
    pub huds: u64,
    /// Agents whose `quit` the server answered by ending the session.
    pub logged_out: usize,
    /// When the last of them did.
    pub last_logout: Option<Instant>,
    /// Frames received while measuring, by type: (type, frames, bytes).
    pub frames: Vec<(String, u64, u64)>,
}

impl Stats {
    pub(super) fn merge(&mut self, o: Stats) {
        self.connected += o.connected;
        self.logged_in += o.logged_in;
        self.sent += o.sent;
        self.replies += o.replies;
        for (k, v) in o.errors {
            *self.errors.entry(k).or_default() += v;
        }
        for (k, v) in o.failures {
            *self.failures.entry(k).or_default() += v;
        }
        self.latencies_us.extend(o.latencies_us);
        self.logged_out += o.logged_out;
        self.huds += o.huds;
        self.last_logout = self.last_logout.max(o.last_logout);
        for (k, n, b) in o.frames {
            count_frames(&mut self.frames, &k, n, b);
        }
    }
}

/// Adds `n` frames of `bytes` to the count of type `kind` (a handful of types: a list).
fn count_frames(frames: &mut Vec<(String, u64, u64)>, kind: &str, n: u64, bytes: u64) {
    match frames.iter_mut().find(|(k, _, _)| k == kind) {
        Some((_, f, b)) => {
            *f += n;
            *b += bytes;
        }
        None => frames.push((kind.to_string(), n, bytes)),
    }
}

/// The envelope of a server frame, borrowed from the text.
#[derive(serde::Deserialize)]
struct Reply<'a> {
    #[serde(rename = "type", borrow)]
    kind: &'a str,
    #[serde(borrow, default)]
    re: Option<&'a str>,
    #[serde(borrow, default)]
    data: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
struct ErrorData<'a> {
    #[serde(borrow)]
    code: std::borrow::Cow<'a, str>,
}

#[derive(serde::Deserialize)]
struct BenchMob {
    target_string: String,
}

/// The variables the bench agent acts on.
#[derive(serde::Deserialize)]
struct BenchVars {
    #[serde(rename = "ROOM_EXITS")]
    exits: Option<Vec<String>>,
    #[serde(rename = "ROOM_MOBS")]
    mobs: Option<Vec<BenchMob>>,
    #[serde(rename = "FIGHTING")]
    fighting: Option<bool>,
}

/// When the measured window runs. Agents play from the moment they log in, but only
/// commands sent once every agent is in (the steady state) are counted.
#[derive(Default)]
pub(super) struct Window {
    /// Agents whose login finished, either way.
    pub(super) settled: std::sync::atomic::AtomicUsize,
    pub(super) settled_all: tokio::sync::Notify,
    pub(super) count: usize,
    /// (start, end) of the measured window, set once everyone is in.
    pub(super) span: std::sync::OnceLock<(Instant, Instant)>,
    /// Told when `span` is set: each agent then sets its own timer for the window's end
    /// (ten thousand agents polling for it twice a second cost the load generator more
    /// wake-ups than their commands did).
    pub(super) opened: tokio::sync::Notify,
    /// With `--sample-every`: the latencies since the last sample (µs), for a soak's p99 over time.
    pub(super) recent: Option<std::sync::Mutex<Vec<u32>>>,
}

impl Window {
    fn settle(&self) {
        if self.settled.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == self.count {
            self.settled_all.notify_one();
        }
    }
}

/// Settles the agent's login slot in the window however its login ends.
struct Settle(Option<Arc<Window>>);

impl Settle {
    fn now(&mut self) {
        if let Some(w) = self.0.take() {
            w.settle();
        }
    }
}

impl Drop for Settle {
    fn drop(&mut self) {
        self.now();
    }
}

/// What every bench agent shares.
pub(super) struct Run {
    pub(super) url: String,
    pub(super) rate: f64,
    pub(super) logout: bool,
    pub(super) window: Arc<Window>,
    /// Ask for a HUD this often, in this format.
    pub(super) hud: Option<(Duration, String)>,
}

pub(super) async fn run_agent(run: Arc<Run>, name: String, key: String, seed: u64, ramp: tokio::sync::OwnedSemaphorePermit) -> Stats {
    let (url, rate, logout, window) = (run.url.clone(), run.rate, run.logout, run.window.clone());
    let hud_period = run.hud.as_ref().map(|(d, _)| *d).unwrap_or(Duration::from_secs(3600));
    let mut settle = Settle(Some(window.clone()));
    let mut st = Stats::default();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut ws = match tokio::time::timeout(
        Duration::from_secs(20),
        tokio_tungstenite::connect_async_with_config(
            &url,
            // Every read zeroes this much of the buffer first; frames are a few hundred bytes.
            Some(tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default().read_buffer_size(4096)),
            true,
        ),
    )
    .await
    {
        // One stream for both ways, not split halves: each send and read would take the
        // halves' shared lock.
        Ok(Ok((ws, _))) => ws,
        Ok(Err(e)) => {
            *st.failures.entry(format!("connect: {e}")).or_default() += 1;
            return st;
        }
        Err(_) => {
            *st.failures.entry("connect: timeout".into()).or_default() += 1;
            return st;
        }
    };
    st.connected = 1;
    let login =
        json!({"type": "login", "data": {"player_name": name, "password": key, "is_agent": true, "harness": "pawns-bench"}}).to_string();
    // Log in, honouring rate_limited answers.
    let mut logged = false;
    for _ in 0..50 {
        if ws.send(Message::text(login.clone())).await.is_err() {
            break;
        }
        let mut retry = None;
        while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_secs(20), ws.next()).await {
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap_or_default();
            match v["type"].as_str() {
                Some("state") => {
                    logged = true;
                    break;
                }
                Some("error") => {
                    let code = v["data"]["code"].as_str().unwrap_or("?").to_string();
                    if code == "rate_limited" {
                        retry = Some(v["data"]["retry_after_ms"].as_u64().unwrap_or(200));
                    } else {
                        *st.failures.entry(format!("login: {code}")).or_default() += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        match retry {
            Some(ms) if !logged => tokio::time::sleep(Duration::from_millis(ms + rng.gen_range(0..50))).await,
            _ => break,
        }
    }
    if !logged {
        *st.failures.entry("login: no state".into()).or_default() += 1;
        return st;
    }
    st.logged_in = 1;
    // Logged in: let the next agent start connecting.
    drop(ramp);
    settle.now();
    let _ = ws
        .send(Message::text(
            json!({"type": "subscribe", "data": {"variables": ["ROOM_EXITS", "ROOM_MOBS", "FIGHTING", "HEALTH"]}}).to_string(),
        ))
        .await;
    let mut exits: Vec<String> = Vec::new();
    let mut mobs: Vec<String> = Vec::new();
    let mut fighting = false;
    let mut pending: HashMap<String, Instant> = HashMap::new();
    let period = Duration::from_secs_f64(1.0 / rate.max(0.001));
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period.mul_f64(rng.gen::<f64>()), period);
    let mut n = 0u64;
    let mut hud_tick = tokio::time::interval_at(tokio::time::Instant::now() + hud_period.mul_f64(rng.gen::<f64>()), hud_period);
    // However slow the agent's rate, it stops when the measured window ends: its timer is
    // set once the window opens.
    let opened = window.opened.notified();
    tokio::pin!(opened);
    opened.as_mut().enable();
    let mut heard_opened = false;
    let until_end = tokio::time::sleep(Duration::from_secs(30 * 86_400));
    tokio::pin!(until_end);
    if let Some((_, end)) = window.span.get() {
        until_end.as_mut().reset((*end).into());
        heard_opened = true;
    }
    loop {
        tokio::select! {
            _ = &mut opened, if !heard_opened => {
                heard_opened = true;
                if let Some((_, end)) = window.span.get() {
                    until_end.as_mut().reset((*end).into());
                }
            }
            _ = &mut until_end => break,
            _ = hud_tick.tick(), if run.hud.is_some() => {
                let span = window.span.get().copied();
                if span.is_some_and(|(_, end)| Instant::now() >= end) {
                    break;
                }
                n += 1;
                let id = format!("h{n}");
                pending.insert(id.clone(), Instant::now());
                let fmt = run.hud.as_ref().map(|(_, f)| f.as_str()).unwrap_or("json");
                if ws.send(Message::text(json!({"type": "hud", "data": {"format": fmt}, "id": id}).to_string())).await.is_err() {
                    *st.failures.entry("socket closed".into()).or_default() += 1;
                    break;
                }
                if span.is_some() {
                    st.huds += 1;
                }
            }
            _ = tick.tick() => {
                let span = window.span.get().copied();
                if span.is_some_and(|(_, end)| Instant::now() >= end) {
                    break;
                }
                n += 1;
                let cmd = if !fighting && !mobs.is_empty() && rng.gen_bool(0.25) {
                    format!("kill {}", mobs[rng.gen_range(0..mobs.len())])
                } else if !fighting && !exits.is_empty() && rng.gen_bool(0.5) {
                    exits[rng.gen_range(0..exits.len())].clone()
                } else {
                    "look".to_string()
                };
                let id = format!("b{n}");
                pending.insert(id.clone(), Instant::now());
                if ws.send(Message::text(json!({"type": "command", "data": {"command": cmd}, "id": id}).to_string())).await.is_err() {
                    *st.failures.entry("socket closed".into()).or_default() += 1;
                    break;
                }
                if span.is_some() {
                    st.sent += 1;
                }
            }
            m = ws.next() => {
                let Some(Ok(Message::Text(t))) = m else {
                    if m.is_none() || matches!(m, Some(Err(_))) {
                        *st.failures.entry("socket closed".into()).or_default() += 1;
                        break;
                    }
                    continue;
                };
                // Room chatter is most of the traffic: parse only what the agent uses.
                // Parse only what the agent acts on: the envelope, then the few variables it reads.
                let Ok(f) = serde_json::from_str::<Reply>(t.as_str()) else { continue };
                let since = window.span.get().map(|(start, _)| *start);
                if since.is_some() {
                    count_frames(&mut st.frames, f.kind, 1, t.len() as u64);
                }
                if let Some(re) = f.re {
                    if let Some(t0) = pending.remove(re).filter(|t0| since.is_some_and(|s| *t0 >= s)) {
                        st.replies += 1;
                        let us = t0.elapsed().as_micros().min(u32::MAX as u128) as u32;
                        st.latencies_us.push(us);
                        if let Some(r) = &window.recent {
                            r.lock().unwrap_or_else(|e| e.into_inner()).push(us);
                        }
                    }
                }
                match (f.kind, f.data) {
                    ("error", Some(d)) => {
                        let code = serde_json::from_str::<ErrorData>(d.get()).map(|e| e.code.to_string()).unwrap_or_else(|_| "?".into());
                        *st.errors.entry(code).or_default() += 1;
                    }
                    ("vars", Some(d)) => {
                        let Ok(v) = serde_json::from_str::<BenchVars>(d.get()) else { continue };
                        if let Some(e) = v.exits {
                            exits = e;
                        }
                        if let Some(m) = v.mobs {
                            mobs = m.into_iter().map(|m| m.target_string).collect();
                        }
                        if let Some(f) = v.fighting {
                            fighting = f;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    if logout {
        // `quit` ends the session (and asks for the agent's logout dream); a fighter
        // flees first. On Dark Pawns `quit` keeps one's things only in the temple and
        // elsewhere asks for `reallyquit` (which leaves them on the floor): sent after,
        // it is an unknown command on any other world. The server closes the socket when
        // the session has ended.
        'out: for attempt in 0..10 {
            let lines: &[&str] = if attempt == 0 { &["quit", "reallyquit"] } else { &["flee", "quit", "reallyquit"] };
            for cmd in lines {
                if ws.send(Message::text(json!({"type": "command", "data": {"command": cmd}}).to_string())).await.is_err() {
                    break 'out;
                }
            }
            let until = Instant::now() + Duration::from_secs(3);
            loop {
                match tokio::time::timeout(until.saturating_duration_since(Instant::now()), ws.next()).await {
                    Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => {
                        st.logged_out = 1;
                        st.last_logout = Some(Instant::now());
                        break 'out;
                    }
                    Ok(Some(Ok(_))) => {}
                    Err(_) => break,
                }
            }
        }
        return st;
    }
    let _ = ws.send(Message::Close(None)).await;
    st
}

//! The connection: one task owns the WebSocket, logs in (agent key, `is_agent`), checks
//! `seq`, and when the socket drops reconnects with exponential backoff and jitter
//! (1 s doubling to 30 s) and `resume{token,last_seq}`, so the server replays what was
//! missed and the session goes on with no gap. A circuit breaker stops after the same
//! failure five times in a row and says what it was; errors that retrying cannot fix
//! (a refused key, a name taken over elsewhere) stop at once.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use super::AgentError;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Who logs in, and how.
#[derive(Debug, Clone)]
pub struct Login {
    pub url: String,
    pub player_name: String,
    pub key: String,
    pub tier: String,
    pub valence: bool,
    /// What is deciding (`model_fast`, or the policy), stored with the session.
    pub model: String,
}

#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub first: Duration,
    pub max: Duration,
    /// Identical failures in a row that open the circuit.
    pub breaker: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { first: Duration::from_secs(1), max: Duration::from_secs(30), breaker: 5 }
    }
}

impl Backoff {
    /// The wait before attempt `n` (0-based): doubling from `first`, capped at `max`,
    /// with "equal jitter" (half fixed, half random) so a fleet does not retry in step.
    pub fn delay(&self, n: u32, rng: &mut impl Rng) -> Duration {
        let full = self.first.saturating_mul(1u32 << n.min(16)).min(self.max);
        let half = full / 2;
        half + half.mul_f64(rng.gen::<f64>())
    }
}

/// What the connection tells the decision loop.
#[derive(Debug)]
pub enum ConnEvent {
    /// A server message, in `seq` order, each once.
    Msg(Value),
    /// The socket dropped; trying again after `delay`.
    Reconnecting { attempt: u32, delay: Duration, why: String },
    /// Back in: `resumed` when the server replayed what was missed.
    Reconnected { resumed: bool },
    /// The session ended (after `quit`, or the server closed it for good).
    Closed { why: String },
    /// Could not go on.
    Fatal(AgentError),
}

/// What the decision loop asks of the connection.
#[derive(Debug)]
pub enum Outbound {
    /// `meta`: fields about how the command was decided (`tokens_prompt`,
    /// `tokens_completion`, `latency_ms`), recorded by the server with the decision.
    Command { command: String, id: String, meta: Option<Value> },
    /// Close the socket without `quit` (the character goes link-dead).
    Close,
}

/// Seq bookkeeping, shared with the report.
#[derive(Debug, Default, Clone, Copy)]
pub struct SeqStats {
    pub last_seq: u64,
    pub received: u64,
    pub gaps: u64,
    pub duplicates: u64,
    pub reconnects: u32,
    pub resumed: u32,
    pub resume_refused: u32,
}

/// The frame with its session token masked (for logs: the token is a credential).
fn redacted(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(t) = v.get_mut("data").and_then(|d| d.get_mut("token")) {
        *t = json!(super::config::mask(t.as_str().unwrap_or("")));
    }
    v
}

/// Errors after which trying again is pointless.
fn fatal_code(code: &str) -> bool {
    matches!(code, "auth_failed" | "invalid_name" | "name_taken" | "session_taken_over" | "bad_request")
}

async fn dial(url: &str) -> Result<Ws, String> {
    let fut = tokio_tungstenite::connect_async(url);
    match tokio::time::timeout(Duration::from_secs(10), fut).await {
        Ok(Ok((ws, _))) => Ok(ws),
        Ok(Err(e)) => Err(format!("cannot connect to {url}: {e}")),
        Err(_) => Err(format!("cannot connect to {url}: timed out")),
    }
}

fn login_frame(l: &Login, resume: Option<(&str, u64)>) -> String {
    let mut data = json!({
        "player_name": l.player_name,
        "password": l.key,
        "is_agent": true,
        "harness": "pawns-agent",
        "model": l.model,
        "version": env!("CARGO_PKG_VERSION"),
        "tier": l.tier,
    });
    if !l.valence {
        data["valence"] = json!(false);
    }
    if let Some((token, last_seq)) = resume {
        data["resume"] = json!({"token": token, "last_seq": last_seq});
    }
    json!({"type": "login", "data": data}).to_string()
}

async fn next_json(ws: &mut Ws, wait: Duration) -> Result<Option<Value>, String> {
    loop {
        match tokio::time::timeout(wait, ws.next()).await {
            Err(_) => return Ok(None),
            Ok(Some(Ok(Message::Text(t)))) => {
                return serde_json::from_str(t.as_str()).map(Some).map_err(|e| format!("not JSON from the server: {e}"))
            }
            Ok(Some(Ok(Message::Close(f)))) => {
                return Err(format!("closed by the server{}", f.map(|f| format!(" ({})", f.reason)).unwrap_or_default()))
            }
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(e))) => return Err(e.to_string()),
            Ok(None) => return Err("the connection ended".into()),
        }
    }
}

/// The result of one login attempt.
enum Entered {
    /// A fresh login: these messages (from `state` on) came first.
    Fresh(Vec<Value>),
    /// A resume the server filled; these are the first replayed messages.
    Resumed(Vec<Value>),
}

/// Logs in on a new socket. Fatal errors come back as `Err((code, message))`.
async fn enter(ws: &mut Ws, l: &Login, resume: Option<(&str, u64)>) -> Result<Entered, (String, String)> {
    ws.send(Message::text(login_frame(l, resume))).await.map_err(|e| ("io".to_string(), e.to_string()))?;
    // A refused resume answers at once with an error; a filled one may send nothing at all.
    let wait = if resume.is_some() { Duration::from_millis(1500) } else { Duration::from_secs(15) };
    let first = next_json(ws, wait).await.map_err(|e| ("io".to_string(), e))?;
    match first {
        None if resume.is_some() => Ok(Entered::Resumed(Vec::new())),
        None => Err(("timeout".into(), "the server did not answer the login".into())),
        Some(v) if v["type"] == "error" => {
            let code = v["data"]["code"].as_str().unwrap_or("error").to_string();
            Err((code, v["data"]["message"].as_str().unwrap_or("").to_string()))
        }
        Some(v) if v["type"] == "state" && (resume.is_none() || v["seq"].as_u64().unwrap_or(0) <= 1) => Ok(Entered::Fresh(vec![v])),
        Some(v) => Ok(Entered::Resumed(vec![v])),
    }
}

async fn subscribe_all(ws: &mut Ws) -> Result<(), String> {
    ws.send(Message::text(json!({"type": "subscribe", "data": {"variables": ["*"]}}).to_string())).await.map_err(|e| e.to_string())
}

/// Runs the connection until it closes for good. The first login happens before this
/// returns, so a bad key or an unreachable server is an error here, not an event.
pub async fn start(
    login: Login,
    backoff: Backoff,
    stats: std::sync::Arc<std::sync::Mutex<SeqStats>>,
) -> Result<(mpsc::Sender<Outbound>, mpsc::Receiver<ConnEvent>), AgentError> {
    let mut ws = dial(&login.url).await.map_err(AgentError::Connect)?;
    let first = match enter(&mut ws, &login, None).await {
        Ok(Entered::Fresh(v)) | Ok(Entered::Resumed(v)) => v,
        Err((code, m)) if code == "io" || code == "timeout" => return Err(AgentError::Connect(m)),
        Err((code, m)) => return Err(AgentError::Refused { code, message: m }),
    };
    subscribe_all(&mut ws).await.map_err(AgentError::Connect)?;
    let (out_tx, out_rx) = mpsc::channel(64);
    let (ev_tx, ev_rx) = mpsc::channel(1024);
    let mut task = Task { login, backoff, stats, ev: ev_tx, token: String::new(), quitting: false };
    for v in first {
        task.deliver(v, true).await;
    }
    tokio::spawn(async move { task.run(ws, out_rx).await });
    Ok((out_tx, ev_rx))
}

struct Task {
    login: Login,
    backoff: Backoff,
    stats: std::sync::Arc<std::sync::Mutex<SeqStats>>,
    ev: mpsc::Sender<ConnEvent>,
    token: String,
    quitting: bool,
}

impl Task {
    /// Checks `seq` and passes the message on; a duplicate (a replay overlap) is dropped.
    async fn deliver(&mut self, v: Value, fresh_sequence: bool) {
        if tracing::enabled!(tracing::Level::DEBUG) {
            tracing::debug!(frame = %redacted(&v), "received");
        }
        let seq = v["seq"].as_u64();
        {
            let mut st = self.stats.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(seq) = seq {
                if fresh_sequence {
                    st.last_seq = seq.saturating_sub(1);
                }
                if seq <= st.last_seq {
                    st.duplicates += 1;
                    return;
                }
                if seq > st.last_seq + 1 {
                    tracing::warn!(expected = st.last_seq + 1, got = seq, "seq gap: messages were lost");
                    st.gaps += seq - st.last_seq - 1;
                }
                st.last_seq = seq;
            }
            st.received += 1;
        }
        if let Some(t) = v["data"]["token"].as_str().filter(|_| matches!(v["type"].as_str(), Some("state" | "token_refresh"))) {
            self.token = t.to_string();
        }
        let _ = self.ev.send(ConnEvent::Msg(v)).await;
    }

    async fn run(mut self, mut ws: Ws, mut out: mpsc::Receiver<Outbound>) {
        loop {
            let why = loop {
                tokio::select! {
                    m = ws.next() => match m {
                        Some(Ok(Message::Text(t))) => match serde_json::from_str::<Value>(t.as_str()) {
                            Ok(v) => {
                                if v["type"] == "error" && v["data"]["code"].as_str().is_some_and(fatal_code) && v["data"]["code"] != "bad_request" {
                                    let code = v["data"]["code"].as_str().unwrap_or("").to_string();
                                    let m = v["data"]["message"].as_str().unwrap_or("").to_string();
                                    self.deliver(v, false).await;
                                    let _ = self.ev.send(ConnEvent::Fatal(AgentError::Refused { code, message: m })).await;
                                    return;
                                }
                                self.deliver(v, false).await;
                            }
                            Err(e) => break format!("not JSON from the server: {e}"),
                        },
                        Some(Ok(Message::Close(f))) => break format!("closed by the server{}", f.map(|f| format!(" ({} {})", u16::from(f.code), f.reason)).unwrap_or_default()),
                        Some(Ok(_)) => {}
                        Some(Err(e)) => break e.to_string(),
                        None => break "the connection ended".to_string(),
                    },
                    o = out.recv() => match o {
                        Some(Outbound::Command { command, id, meta }) => {
                            if command.trim().eq_ignore_ascii_case("quit") {
                                self.quitting = true;
                            }
                            let mut data = json!({"command": command});
                            if let (Some(m), Some(d)) = (meta.as_ref().and_then(|m| m.as_object()), data.as_object_mut()) {
                                d.extend(m.clone());
                            }
                            let frame = json!({"type": "command", "data": data, "id": id}).to_string();
                            tracing::debug!(%frame, "sent");
                            if let Err(e) = ws.send(Message::text(frame)).await {
                                break e.to_string();
                            }
                        }
                        Some(Outbound::Close) | None => {
                            let _ = ws.close(None).await;
                            let _ = self.ev.send(ConnEvent::Closed { why: "closed by the client".into() }).await;
                            return;
                        }
                    },
                }
            };
            if self.quitting {
                let _ = self.ev.send(ConnEvent::Closed { why: "quit".into() }).await;
                return;
            }
            match self.reconnect(why).await {
                Some(w) => ws = w,
                None => return,
            }
        }
    }

    /// Dials again until a login works or the breaker opens.
    async fn reconnect(&mut self, mut why: String) -> Option<Ws> {
        let mut rng = rand::rngs::SmallRng::from_entropy();
        let mut same = 0u32;
        let mut last_why = String::new();
        for attempt in 0.. {
            if why == last_why {
                same += 1;
            } else {
                same = 1;
                last_why = why.clone();
            }
            if same >= self.backoff.breaker {
                let _ = self.ev.send(ConnEvent::Fatal(AgentError::CircuitOpen { times: same, why })).await;
                return None;
            }
            let delay = self.backoff.delay(attempt, &mut rng);
            tracing::warn!(attempt = attempt + 1, ?delay, %why, "reconnecting");
            let _ = self.ev.send(ConnEvent::Reconnecting { attempt: attempt + 1, delay, why: why.clone() }).await;
            tokio::time::sleep(delay).await;
            let mut ws = match dial(&self.login.url).await {
                Ok(ws) => ws,
                Err(e) => {
                    why = e;
                    continue;
                }
            };
            self.stats.lock().unwrap_or_else(|e| e.into_inner()).reconnects += 1;
            let last_seq = self.stats.lock().unwrap_or_else(|e| e.into_inner()).last_seq;
            let token = self.token.clone();
            let resume = (!token.is_empty()).then_some((token.as_str(), last_seq));
            let entered = match enter(&mut ws, &self.login, resume).await {
                // The token no longer works (expired, or signed by a server that lost its
                // key): a plain login, and the loop rebuilds its view from `state`.
                Err((code, _)) if code == "auth_failed" && resume.is_some() => {
                    self.stats.lock().unwrap_or_else(|e| e.into_inner()).resume_refused += 1;
                    enter(&mut ws, &self.login, None).await
                }
                other => other,
            };
            match entered {
                Ok(Entered::Resumed(first)) => {
                    self.stats.lock().unwrap_or_else(|e| e.into_inner()).resumed += 1;
                    let _ = self.ev.send(ConnEvent::Reconnected { resumed: true }).await;
                    for v in first {
                        self.deliver(v, false).await;
                    }
                    return Some(ws);
                }
                Ok(Entered::Fresh(first)) => {
                    if subscribe_all(&mut ws).await.is_err() {
                        why = "the connection ended".into();
                        continue;
                    }
                    let _ = self.ev.send(ConnEvent::Reconnected { resumed: false }).await;
                    for v in first {
                        self.deliver(v, true).await;
                    }
                    return Some(ws);
                }
                Err((code, m)) if fatal_code(&code) => {
                    let _ = self.ev.send(ConnEvent::Fatal(AgentError::Refused { code, message: m })).await;
                    return None;
                }
                Err((code, m)) => why = format!("{code}: {m}"),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_the_cap_with_jitter() {
        let b = Backoff::default();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        for n in 0..10 {
            let full = Duration::from_secs(1 << n.min(5)).min(Duration::from_secs(30));
            let d = b.delay(n, &mut rng);
            assert!(d >= full / 2 && d <= full, "attempt {n}: {d:?} not within [{:?}, {full:?}]", full / 2);
        }
        let spread: std::collections::HashSet<u128> = (0..20).map(|_| b.delay(3, &mut rng).as_millis()).collect();
        assert!(spread.len() > 10, "jitter spreads retries");
        let f = login_frame(
            &Login {
                url: "ws://x/ws".into(),
                player_name: "ula".into(),
                key: "dp_k".into(),
                tier: "small".into(),
                valence: false,
                model: "m".into(),
            },
            Some(("tok", 42)),
        );
        let v: Value = serde_json::from_str(&f).unwrap();
        assert_eq!(v["data"]["resume"], json!({"token": "tok", "last_seq": 42}));
        assert_eq!(v["data"]["is_agent"], true);
        assert_eq!(v["data"]["valence"], false);
        let r = redacted(&json!({"type": "state", "data": {"token": "abcdefghijklmnopqrstuvwxyz"}}));
        assert_eq!(r["data"]["token"], "abcdefg…wxyz");
    }
}

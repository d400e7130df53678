//! Playing from the HUD (protocol §11): the loop a stateless model needs and nothing
//! more. It logs in, asks for heartbeat HUDs, hands each one to the model, and sends the
//! answer back as an `actions` message — over the same WebSocket protocol any agent
//! uses. `pawns agent play --context hud` runs it with the agent's key; the server's
//! resident agents run it with a session token the server issues them.
//!
//! When the model's endpoint fails the loop pauses, retrying on its own backoff (1 s,
//! doubling to 60 s: never a hot loop) with a fresh HUD each time, and resumes at the
//! first answer. One question is in flight at a time; heartbeats that arrive meanwhile
//! are skipped. A dropped socket is redialled on the same backoff.

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::Message;

use super::llm::LlmClient;
use crate::hud::HudFormat;
use pawns_storage::LlmCall;

/// Longest pause between tries.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The pause after `failures` failures in a row: 1 s, 2 s, 4 s … 60 s.
pub fn backoff(failures: u32) -> Duration {
    let secs = 1u64.checked_shl(failures.saturating_sub(1).min(16)).unwrap_or(u64::MAX);
    Duration::from_secs(secs).min(MAX_BACKOFF)
}

/// Who the model plays and which model it is; a resident's may change while it runs
/// (`alter_agent`).
#[derive(Debug, Clone)]
pub struct Mind {
    pub name: String,
    /// The system prompt: who the agent is and how to answer.
    pub system: String,
    pub model: String,
}

/// The system prompt for an agent: its persona seed or bot role, then the rules. Its name
/// is not in it: the HUD's `identity.name` is, and follows a rename at once.
pub fn system_prompt(kind: &str, prompt: &str) -> String {
    let who = if kind == "bot" { format!("Your role: {prompt}") } else { format!("Your personality: {prompt}") };
    format!(
        "You are a character in a text adventure world shared with humans and other agents; your name is your \
         HUD's identity.name. {who}\n\
         Every turn you receive your HUD: your whole context (who you are, what you know, what you may do, and \
         what is being said in each of your rooms). Answer with exactly one JSON object in the HUD's \
         response_format: {{\"responses\": [{{\"room_id\": ..., \"message\": ...}}], \"actions\": [...]}}. \
         Use {{\"type\": \"command\", \"command\": \"...\"}} for game commands. Keep within each room's word_budget. \
         No prose outside the JSON."
    )
}

/// The `actions` message for an answer, with the model calls behind it fewer and shorter
/// until it fits the protocol's frame: the oldest failed calls go first, then the
/// answering call's prompt is cut shorter.
fn actions_frame(batch: &Value, mut calls: Vec<LlmCall>, n: u64) -> String {
    let mut prompt = super::llm::PROMPT_SENT;
    loop {
        let mut data = batch.clone();
        if !calls.is_empty() {
            data["llm"] = json!(super::llm::fitted_to(&calls, prompt));
        }
        let msg = json!({"type": "actions", "id": format!("t{n}"), "data": data}).to_string();
        if msg.len() <= crate::protocol::MAX_FRAME || calls.is_empty() {
            return msg;
        }
        if calls.len() > 1 {
            calls.remove(0);
        } else if prompt > 500 {
            prompt /= 2;
        } else {
            calls.clear();
        }
    }
}

/// What the loop is doing, for `GET /api/admin/agents` and the transcript.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LoopStatus {
    /// `connecting`, `running`, `paused` (the endpoint failed), `over_budget` (its
    /// tokens for the hour are spent), `reconnecting`, `stopped`.
    pub state: &'static str,
    /// Model tokens spent in the last hour, and the cap (0: none).
    pub tokens_last_hour: u64,
    pub tokens_per_hour: u64,
    pub turns: u64,
    pub failures: u64,
    pub failures_in_row: u32,
    /// Answers that held no response format.
    pub unreadable: u64,
    /// Heartbeats skipped while a question was in flight or the loop was paused.
    pub skipped: u64,
    pub backoff_ms: u64,
    pub last_error: Option<String>,
    /// The model's latency on the last answer.
    pub last_latency_ms: u64,
    /// Actions and responses sent, and how many the server refused.
    pub items_sent: u64,
    pub items_refused: u64,
}

pub type SharedStatus = Arc<Mutex<LoopStatus>>;

/// The model tokens a loop spent in the last hour, by call.
#[derive(Default)]
struct Spend(std::collections::VecDeque<(Instant, u64)>);

const HOUR: Duration = Duration::from_secs(3600);

impl Spend {
    fn forget(&mut self, now: Instant) {
        while self.0.front().is_some_and(|(t, _)| now.duration_since(*t) >= HOUR) {
            self.0.pop_front();
        }
    }
    /// Adds a call's tokens; the hour's total.
    fn add(&mut self, now: Instant, tokens: u64) -> u64 {
        self.0.push_back((now, tokens));
        self.total(now)
    }
    fn total(&mut self, now: Instant) -> u64 {
        self.forget(now);
        self.0.iter().map(|(_, n)| n).sum()
    }
    /// When enough of the hour's calls have aged out to be under `cap` again.
    fn free_at(&self, now: Instant, cap: u64) -> Instant {
        let mut left: u64 = self.0.iter().map(|(_, n)| n).sum();
        for (t, n) in &self.0 {
            if left < cap {
                break;
            }
            left -= n;
            if left < cap {
                return *t + HOUR;
            }
        }
        now
    }
}

/// One turn as the transcript shows it.
#[derive(Debug, Clone)]
pub enum Turn {
    Sent { n: u64, batch: Value, latency: Duration, hud_tokens: u64 },
    Results { results: Value },
    Paused { why: String, retry_in: Duration },
    Unreadable { text: String },
    Event { text: String },
}

pub struct HudLoop {
    /// `ws://host:port/ws`.
    pub url: String,
    /// Makes the login frame's `data` for each (re)connection (a resident's token is
    /// issued afresh each time).
    pub login: Box<dyn Fn() -> Value + Send + Sync>,
    pub llm: LlmClient,
    pub mind: Arc<RwLock<Mind>>,
    pub format: HudFormat,
    pub budget: usize,
    /// Most tokens the model may answer with.
    pub max_tokens: u32,
    /// Most tokens (prompt and answer) the model may spend in an hour (0: no cap).
    pub tokens_per_hour: u64,
    pub status: SharedStatus,
    pub stop: watch::Receiver<bool>,
    /// Where turns are told (the CLI's transcript); `None`: the log only.
    pub turns: Option<mpsc::UnboundedSender<Turn>>,
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Why a session ended.
enum End {
    Stopped,
    /// The server refused for good (bad key, retired): no point redialling.
    Refused(String),
    Dropped(String),
}

impl HudLoop {
    fn set(&self, f: impl FnOnce(&mut LoopStatus)) {
        f(&mut self.status.lock().unwrap_or_else(|e| e.into_inner()));
    }

    fn tell(&self, t: Turn) {
        if let Some(tx) = &self.turns {
            let _ = tx.send(t);
        }
    }

    /// Runs until stopped or refused for good; the reason it ended.
    pub async fn run(mut self) -> Result<(), String> {
        let mut drops = 0u32;
        loop {
            if *self.stop.borrow() {
                break;
            }
            self.set(|s| s.state = "connecting");
            match self.session().await {
                End::Stopped => break,
                End::Refused(why) => {
                    self.set(|s| {
                        s.state = "stopped";
                        s.last_error = Some(why.clone());
                    });
                    return Err(why);
                }
                End::Dropped(why) => {
                    // A session that got going starts the backoff over.
                    if self.status.lock().unwrap_or_else(|e| e.into_inner()).state == "running" {
                        drops = 0;
                    }
                    drops += 1;
                    let wait = backoff(drops);
                    tracing::warn!(agent = %self.mind_name(), %why, ?wait, "the HUD loop lost its connection; redialling");
                    self.set(|s| {
                        s.state = "reconnecting";
                        s.last_error = Some(why);
                    });
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = self.stop.changed() => {}
                    }
                }
            }
        }
        self.set(|s| s.state = "stopped");
        Ok(())
    }

    fn mind_name(&self) -> String {
        self.mind.read().unwrap_or_else(|e| e.into_inner()).name.clone()
    }

    async fn session(&mut self) -> End {
        let mut ws: Ws = match tokio::time::timeout(Duration::from_secs(10), tokio_tungstenite::connect_async(self.url.as_str())).await {
            Ok(Ok((ws, _))) => ws,
            Ok(Err(e)) => return End::Dropped(format!("cannot connect to {}: {e}", self.url)),
            Err(_) => return End::Dropped(format!("cannot connect to {}: timed out", self.url)),
        };
        let login = json!({"type": "login", "data": (self.login)()});
        if ws.send(Message::text(login.to_string())).await.is_err() {
            return End::Dropped("the socket closed during login".into());
        }
        // The login's answer: `state` (in), or an error (refused).
        loop {
            match tokio::time::timeout(Duration::from_secs(15), ws.next()).await {
                Ok(Some(Ok(Message::Text(t)))) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap_or_default();
                    match v["type"].as_str() {
                        Some("state") => break,
                        Some("error") => {
                            let code = v["data"]["code"].as_str().unwrap_or("error");
                            let why = format!("{code}: {}", v["data"]["message"].as_str().unwrap_or(""));
                            return if matches!(code, "rate_limited" | "too_many_connections" | "internal") {
                                End::Dropped(why)
                            } else {
                                End::Refused(why)
                            };
                        }
                        _ => continue,
                    }
                }
                Ok(Some(Ok(_))) => continue,
                Ok(_) => return End::Dropped("the server closed during login".into()),
                Err(_) => return End::Dropped("the server did not answer the login".into()),
            }
        }
        // Stopped (retired, shutting down) while this login was under way: leave at once.
        if *self.stop.borrow() {
            let _ = ws.send(Message::text(json!({"type": "command", "data": {"command": "quit"}}).to_string())).await;
            let _ = ws.send(Message::Close(None)).await;
            return End::Stopped;
        }
        let req = json!({"type": "hud", "id": "beat", "data": {"heartbeat": true, "format": self.format.as_str(), "budget": self.budget}});
        if ws.send(Message::text(req.to_string())).await.is_err() {
            return End::Dropped("the socket closed".into());
        }
        self.set(|s| s.state = "running");
        let (answer_tx, mut answer_rx) = mpsc::channel::<(Result<(String, u64), String>, Duration, u64, LlmCall)>(1);
        // Calls that gave no answer to send (failed, unreadable), sent with the next that
        // does so every call is recorded: the most recent that fit one message.
        let mut unsent: Vec<LlmCall> = Vec::new();
        let mut busy = false;
        let mut paused_until: Option<Instant> = None;
        let mut spend = Spend::default();
        let mut retry_at: Option<tokio::time::Instant> = None;
        let mut n = 0u64;
        loop {
            let retry = async {
                match retry_at {
                    Some(t) => tokio::time::sleep_until(t).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = self.stop.changed() => {
                    let _ = ws.send(Message::Close(None)).await;
                    return End::Stopped;
                }
                _ = retry => {
                    retry_at = None;
                    let req = json!({"type": "hud", "id": "retry", "data": {"format": self.format.as_str(), "budget": self.budget}});
                    if ws.send(Message::text(req.to_string())).await.is_err() {
                        return End::Dropped("the socket closed".into());
                    }
                }
                got = answer_rx.recv() => {
                    let Some((answer, latency, hud_tokens, call)) = got else { continue };
                    if unsent.len() >= crate::protocol::MAX_LLM_CALLS {
                        unsent.remove(0);
                    }
                    unsent.push(call);
                    busy = false;
                    match answer {
                        Ok((text, tokens)) => {
                            let spent = spend.add(Instant::now(), tokens);
                            self.set(|s| s.tokens_last_hour = spent);
                            self.set(|s| { s.failures_in_row = 0; s.backoff_ms = 0; s.state = "running"; s.last_latency_ms = latency.as_millis() as u64; });
                            paused_until = None;
                            let Some(batch) = crate::hud::answer::parse(&text) else {
                                self.set(|s| s.unreadable += 1);
                                if let Some(c) = unsent.last_mut() {
                                    c.error = Some("unreadable: no response format in the answer".into());
                                }
                                self.tell(Turn::Unreadable { text: text.chars().take(200).collect() });
                                continue;
                            };
                            n += 1;
                            let items = batch["responses"].as_array().map_or(0, Vec::len) + batch["actions"].as_array().map_or(0, Vec::len);
                            self.set(|s| { s.turns += 1; s.items_sent += items as u64; });
                            self.tell(Turn::Sent { n, batch: batch.clone(), latency, hud_tokens });
                            let msg = actions_frame(&batch, std::mem::take(&mut unsent), n);
                            if ws.send(Message::text(msg)).await.is_err() {
                                return End::Dropped("the socket closed".into());
                            }
                        }
                        Err(why) => {
                            let failures = { let mut s = self.status.lock().unwrap_or_else(|e| e.into_inner()); s.failures += 1; s.failures_in_row += 1; s.failures_in_row };
                            let wait = backoff(failures);
                            tracing::warn!(agent = %self.mind_name(), %why, ?wait, "the model's endpoint failed; pausing");
                            self.set(|s| { s.state = "paused"; s.backoff_ms = wait.as_millis() as u64; s.last_error = Some(why.clone()); });
                            self.tell(Turn::Paused { why, retry_in: wait });
                            paused_until = Some(Instant::now() + wait);
                            retry_at = Some(tokio::time::Instant::now() + wait);
                        }
                    }
                }
                m = ws.next() => {
                    let v: Value = match m {
                        Some(Ok(Message::Text(t))) => serde_json::from_str(t.as_str()).unwrap_or_default(),
                        Some(Ok(Message::Close(f))) => {
                            let why = f.map(|f| f.reason.to_string()).unwrap_or_default();
                            return if why.contains("retired") || why.contains("session_taken_over") { End::Refused(why) } else { End::Dropped(format!("closed by the server {why}")) };
                        }
                        Some(Ok(_)) => continue,
                        Some(Err(e)) => return End::Dropped(e.to_string()),
                        None => return End::Dropped("the connection ended".into()),
                    };
                    match v["type"].as_str() {
                        Some("hud") => {
                            if busy || paused_until.is_some_and(|t| Instant::now() < t) {
                                self.set(|s| s.skipped += 1);
                                continue;
                            }
                            // Over its hour's tokens: no model call until the oldest age out.
                            let spent = spend.total(Instant::now());
                            if self.tokens_per_hour > 0 && spent >= self.tokens_per_hour {
                                let cap = self.tokens_per_hour;
                                let back = spend.free_at(Instant::now(), cap).saturating_duration_since(Instant::now());
                                let why = format!("spent {spent} of its {cap} model tokens this hour; it resumes in {} min", back.as_secs().div_ceil(60));
                                if self.status.lock().unwrap_or_else(|e| e.into_inner()).state != "over_budget" {
                                    tracing::info!(agent = %self.mind_name(), spent, cap, "a resident agent is over its token budget; pausing");
                                    self.tell(Turn::Paused { why: why.clone(), retry_in: back });
                                }
                                self.set(|s| { s.state = "over_budget"; s.skipped += 1; s.tokens_last_hour = spent; s.last_error = Some(why); });
                                continue;
                            }
                            let Some(content) = v["data"]["content"].as_str().map(str::to_string) else { continue };
                            let hud_tokens = v["data"]["tokens"]["total"].as_u64().unwrap_or(0);
                            busy = true;
                            let mind = self.mind.read().unwrap_or_else(|e| e.into_inner()).clone();
                            let (llm, tx, max_tokens) = (self.llm.clone(), answer_tx.clone(), self.max_tokens);
                            tokio::spawn(async move {
                                let t0 = Instant::now();
                                let (r, call) = llm.answer_hud(&mind.model, &mind.system, &content, max_tokens).await;
                                let r = r.map(|c| (c.text, c.prompt_tokens.unwrap_or(hud_tokens) + c.completion_tokens));
                                let _ = tx.send((r, t0.elapsed(), hud_tokens, call)).await;
                            });
                        }
                        Some("actions_result") => {
                            let refused = v["data"]["results"].as_array().map_or(0, |r| r.iter().filter(|x| x["ok"] == false).count());
                            self.set(|s| s.items_refused += refused as u64);
                            self.tell(Turn::Results { results: v["data"]["results"].clone() });
                        }
                        Some("event") => {
                            if let Some(t) = v["data"]["text"].as_str() {
                                self.tell(Turn::Event { text: t.to_string() });
                            }
                        }
                        Some("error") => {
                            let code = v["data"]["code"].as_str().unwrap_or("");
                            if matches!(code, "session_taken_over" | "retired") {
                                return End::Refused(format!("{code}: {}", v["data"]["message"].as_str().unwrap_or("")));
                            }
                            tracing::debug!(agent = %self.mind_name(), frame = %v, "the server refused something");
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hour's spend with a clock the test moves: calls age out after an hour, and
    /// the cap frees when enough have.
    #[test]
    fn spend_counts_the_last_hour_and_says_when_it_frees() {
        let t0 = Instant::now();
        let mut s = Spend::default();
        assert_eq!(s.add(t0, 200), 200);
        assert_eq!(s.add(t0 + Duration::from_secs(600), 150), 350);
        // Over a cap of 300 until the first call ages out, at t0 + 1 h.
        assert_eq!(s.free_at(t0 + Duration::from_secs(601), 300), t0 + HOUR);
        assert_eq!(s.total(t0 + HOUR), 150);
        assert_eq!(s.total(t0 + HOUR + Duration::from_secs(600)), 0);
        let now = t0 + 2 * HOUR;
        assert_eq!(s.free_at(now, 300), now, "under the cap: free now");
    }

    /// An answer's frame holds its model calls while they fit the protocol's frame, and
    /// gives up the oldest failed ones, then prompt, to fit it.
    #[test]
    fn the_calls_fit_the_frame() {
        let batch = json!({"responses": [{"room_id": "here", "message": "hi"}]});
        let call = |user: usize, answer: usize, error: bool| LlmCall {
            model: "m".into(),
            system: "rules".into(),
            user: "\"quoted\" ".repeat(user / 9),
            answer: Some("a".repeat(answer)),
            error: error.then(|| "unreadable".into()),
            ..Default::default()
        };
        let read = |msg: &str| -> Vec<LlmCall> {
            serde_json::from_value(serde_json::from_str::<Value>(msg).unwrap()["data"]["llm"].clone()).unwrap_or_default()
        };
        let small = actions_frame(&batch, vec![call(100, 10, true), call(100, 10, false)], 1);
        assert_eq!(read(&small).len(), 2);
        // Eight long unreadable answers and a prompt whose quotes double when escaped.
        let mut many: Vec<LlmCall> = (0..7).map(|_| call(0, 3000, true)).collect();
        many.push(call(20_000, 500, false));
        let msg = actions_frame(&batch, many, 2);
        assert!(msg.len() <= crate::protocol::MAX_FRAME, "{}", msg.len());
        let kept = read(&msg);
        assert!(kept.len() < 8 && kept.last().unwrap().answer.as_deref() == Some(&*"a".repeat(500)), "the answering call stays");
        assert!(kept.last().unwrap().cut && kept.last().unwrap().user.ends_with("\"quoted\" "));
    }

    #[test]
    fn backoff_doubles_to_a_minute() {
        let secs: Vec<u64> = (1..=8).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(secs, vec![1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(backoff(1000), MAX_BACKOFF);
        assert!(system_prompt("bot", "guards the gate").contains("Your role: guards the gate"));
    }
}

//! A character played through MCP (protocol §13): MCP has no connection to hang a
//! session on, so the character's engine link ends here, in a seat the server keeps by
//! name. Everything the engine sends it is numbered and kept (the newest `KEPT`
//! messages) for the tool calls to read; a call names where it read to (`since`), or
//! reads on from the last call. A seat nobody calls for `IDLE` lets its character go
//! link-dead (the engine's grace period then applies, as to a dropped socket).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, Notify};

use crate::auth::limits::TokenBucket;
use crate::game::model::world::CharId;
use crate::game::{EngineMsg, Out, Outs};
use crate::net::shared::Shared;
use crate::protocol;

/// Messages a seat keeps for its reader.
const KEPT: usize = 1000;
/// A seat not called for this long lets its character go link-dead.
pub const IDLE: Duration = Duration::from_secs(300);

struct Kept {
    /// The messages, each with its number, oldest first.
    messages: VecDeque<(u64, Value)>,
    next_seq: u64,
    /// Where the last call read to.
    read_to: u64,
    /// The last `state` and every variable's latest value.
    state: Value,
    vars: serde_json::Map<String, Value>,
    /// Why the engine closed the character's link (a quit, a takeover), once it did.
    closed: Option<String>,
}

pub struct Seat {
    /// Lower-case character name.
    pub name: String,
    pub char_id: CharId,
    pub link_id: u64,
    kept: Mutex<Kept>,
    arrived: Notify,
    pub bucket: Mutex<TokenBucket>,
    next_id: AtomicU64,
    last_call: Mutex<Instant>,
}

impl Seat {
    /// A correlation id for the next request this seat sends the engine.
    pub fn next_id(&self) -> Arc<str> {
        format!("mcp-{}", self.next_id.fetch_add(1, Ordering::Relaxed)).into()
    }

    pub fn touch(&self) {
        *self.last_call.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        self.last_call.lock().unwrap_or_else(|e| e.into_inner()).elapsed()
    }

    pub fn closed(&self) -> Option<String> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).closed.clone()
    }

    /// The last `state` and the variables as they stand.
    pub fn view(&self) -> (Value, Value) {
        let k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        (k.state.clone(), Value::Object(k.vars.clone()))
    }

    /// The messages after `since` (the last call's end when none), and where they end;
    /// `missed` counts those let go of before they were read.
    pub fn read(&self, since: Option<u64>) -> (Vec<Value>, u64, u64) {
        let mut k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let from = since.unwrap_or(k.read_to);
        let first = k.messages.front().map_or(k.next_seq, |(s, _)| *s);
        let missed = first.saturating_sub(from + 1);
        let out: Vec<Value> = k.messages.iter().filter(|(s, _)| *s > from).map(|(_, v)| v.clone()).collect();
        let to = k.next_seq.saturating_sub(1).max(from);
        k.read_to = k.read_to.max(to);
        (out, to, missed)
    }

    /// Whether a message answering `re` has come (after `since`).
    pub fn answered(&self, re: &str, since: u64) -> bool {
        let k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        k.closed.is_some() || k.messages.iter().any(|(s, v)| *s > since && v.get("re").and_then(Value::as_str) == Some(re))
    }

    /// The newest message's number.
    pub fn last_seq(&self) -> u64 {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).next_seq.saturating_sub(1)
    }

    /// Waits until something arrives or `wait` passes.
    pub async fn wait(&self, wait: Duration) {
        let _ = tokio::time::timeout(wait, self.arrived.notified()).await;
    }

    fn take(&self, outs: Outs) {
        let mut k = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        for o in outs {
            match &o {
                Out::Answered(_) | Out::Colour(_) | Out::Prompt(_) => continue,
                Out::Close { code, .. } => k.closed = Some((*code).to_string()),
                _ => {}
            }
            let seq = k.next_seq;
            let Some(text) = protocol::render(seq, &o, "") else { continue };
            let Ok(mut v) = serde_json::from_str::<Value>(&text) else { continue };
            k.next_seq += 1;
            match v["type"].as_str() {
                Some("state") => {
                    if let Some(d) = v.get_mut("data").and_then(Value::as_object_mut) {
                        d.remove("token");
                    }
                    k.state = v["data"].clone();
                }
                Some("vars") => {
                    if let Some(d) = v["data"].as_object() {
                        for (name, value) in d {
                            if name != "EVENTS" && name != "resumed" {
                                k.vars.insert(name.clone(), value.clone());
                            }
                        }
                    }
                }
                _ => {}
            }
            k.messages.push_back((seq, v));
            while k.messages.len() > KEPT {
                k.messages.pop_front();
            }
        }
        drop(k);
        self.arrived.notify_waiters();
    }
}

/// The seats by character name.
#[derive(Default)]
pub struct Seats {
    seats: Mutex<HashMap<String, Arc<Seat>>>,
}

impl Seats {
    pub fn get(&self, name: &str) -> Option<Arc<Seat>> {
        let s = self.seats.lock().unwrap_or_else(|e| e.into_inner()).get(name).cloned()?;
        (s.closed().is_none()).then_some(s)
    }

    fn remove_if(&self, name: &str, link_id: u64) {
        let mut m = self.seats.lock().unwrap_or_else(|e| e.into_inner());
        if m.get(name).is_some_and(|s| s.link_id == link_id) {
            m.remove(name);
        }
    }

    pub fn len(&self) -> usize {
        self.seats.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Seats a character: its link is made and handed to the engine, which places it (or
/// takes it over from another session) and answers with `state` and every variable.
pub async fn sit(
    shared: &Arc<Shared>,
    record: pawns_storage::CharacterRecord,
    client: crate::game::model::character::ClientInfo,
) -> Option<Arc<Seat>> {
    let name = record.name.to_ascii_lowercase();
    let link_id = shared.next_link_id();
    let (tx, mut rx) = mpsc::channel::<Outs>(4096);
    let link = crate::game::model::character::Link { id: link_id, tx, json: true, client: Arc::new(client) };
    let char_id = shared.enter(record, link, None).await?;
    let seat = Arc::new(Seat {
        name: name.clone(),
        char_id,
        link_id,
        kept: Mutex::new(Kept {
            messages: VecDeque::new(),
            next_seq: 1,
            read_to: 0,
            state: Value::Null,
            vars: serde_json::Map::new(),
            closed: None,
        }),
        arrived: Notify::new(),
        bucket: Mutex::new(TokenBucket::new(shared.edge.cmd_rate, shared.edge.cmd_burst, Instant::now())),
        next_id: AtomicU64::new(1),
        last_call: Mutex::new(Instant::now()),
    });
    shared.seats.seats.lock().unwrap_or_else(|e| e.into_inner()).insert(name.clone(), seat.clone());
    // Every variable, as a WebSocket client subscribing to "*" gets them.
    let _ = shared.engine.tx.send(EngineMsg::Subscribe { char_id, link_id, names: vec!["*".into()], add: true, re: None }).await;
    let (s, sh) = (seat.clone(), shared.clone());
    shared.tasks.spawn(async move {
        let mut idle = tokio::time::interval(Duration::from_secs(15));
        loop {
            tokio::select! {
                outs = rx.recv() => match outs {
                    Some(outs) => s.take(outs),
                    None => break,
                },
                _ = idle.tick() => {
                    if s.idle_for() >= IDLE {
                        let _ = sh.engine.tx.send(EngineMsg::Detach { char_id: s.char_id, link_id: s.link_id }).await;
                        break;
                    }
                }
            }
            if s.closed().is_some() {
                break;
            }
        }
        {
            let mut k = s.kept.lock().unwrap_or_else(|e| e.into_inner());
            k.closed.get_or_insert_with(|| "idle".into());
        }
        s.arrived.notify_waiters();
        sh.seats.remove_if(&s.name, s.link_id);
    });
    Some(seat)
}

//! The agent wire protocol (docs/protocol.md): parsing client envelopes and rendering
//! server messages. Pure functions, so they can be fuzzed and property-tested.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::game::send::output::Out;

mod command;
pub use command::MAX_LLM_CALLS;
mod state_frame;
pub use state_frame::state_frame;

/// Inbound frame limit (protocol §1).
pub const MAX_FRAME: usize = 16 * 1024;
/// The longest `reason` a command may carry (protocol §5), in characters.
pub const MAX_REASON: usize = 500;

/// A coded protocol error (protocol §3).
#[derive(Debug, Clone, PartialEq)]
pub struct ProtoError {
    pub code: &'static str,
    pub message: String,
}

impl ProtoError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ProtoError { code, message: message.into() }
    }
}

#[derive(Debug, Clone, Deserialize, Default, PartialEq)]
pub struct ResumeData {
    pub token: String,
    #[serde(default)]
    pub last_seq: u64,
}

#[derive(Debug, Clone, Deserialize, Default, PartialEq)]
pub struct LoginData {
    #[serde(default)]
    pub player_name: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub api_key: Option<String>,
    #[serde(default)]
    pub is_agent: Option<bool>,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub new_char: Option<bool>,
    #[serde(default)]
    pub class: Option<i64>,
    #[serde(default)]
    pub race: Option<i64>,
    #[serde(default)]
    pub sex: Option<i64>,
    #[serde(default)]
    pub harness: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub tier: Option<String>,
    #[serde(default)]
    pub context_budget: Option<String>,
    #[serde(default)]
    pub valence: Option<bool>,
    #[serde(default)]
    pub resume: Option<ResumeData>,
    /// **(extension)** A client that shows the game to a person (the web client):
    /// see [`DisplayData`].
    #[serde(default)]
    pub display: Option<DisplayData>,
}

/// **(extension)** `display{cols}` at login, or as its own message when the window
/// changes (telnet's NAWS): the client shows the text to a person. The server then
/// sends the room on entering as text (as to telnet), wraps text to `cols` columns
/// (none, or under 20: as written), adds `runs` — the text's colours, `[[words,
/// colour], …]` — to an event that has any, and sends `CHAR_INFO` (the opponent's
/// health) and `ROOM_INFO` (the exits' rooms) with the variables.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
pub struct DisplayData {
    #[serde(default)]
    pub cols: Option<u16>,
}

/// The widest window believed.
pub const MAX_COLS: u16 = 1000;

fn check_display(d: Option<&DisplayData>) -> Result<(), ProtoError> {
    match d.and_then(|d| d.cols) {
        Some(c) if c > MAX_COLS => Err(ProtoError::new("bad_request", format!("display: cols must be at most {MAX_COLS}"))),
        _ => Ok(()),
    }
}

impl LoginData {
    pub fn wants_agent(&self) -> bool {
        self.is_agent == Some(true) || self.mode.as_deref() == Some("agent")
    }
    /// The secret offered: a password or an agent key (either field).
    pub fn secret(&self) -> Option<&str> {
        self.api_key.as_deref().filter(|s| !s.is_empty()).or(self.password.as_deref().filter(|s| !s.is_empty()))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CommandData {
    /// The whole line: `command` plus `args` joined by spaces.
    pub line: String,
    /// The verb alone, for rate-limit `EVENTS` entries.
    pub verb: String,
    /// What the client attached about how it decided (recorded with the decision).
    pub client: Option<Box<CommandClient>>,
}

/// Optional fields a client may attach to a `command`'s data about its own decision:
/// the engine's type (it records them), read here.
pub use crate::game::records::recording::CommandClient;

#[derive(Debug, Clone, PartialEq)]
pub enum ClientMsg {
    Login(Box<LoginData>),
    Command(CommandData),
    Subscribe(Vec<String>),
    Unsubscribe(Vec<String>),
    CharInput(Value),
    Hud(Value),
    /// `responses` and `actions` (from `data`, or decoded from the top-level `toon` text).
    Actions(Value),
    /// **(extension)** The window changed (`DisplayData`).
    Display(DisplayData),
}

/// A parsed client frame with its correlation id.
#[derive(Debug, Clone, PartialEq)]
pub struct Inbound {
    pub msg: ClientMsg,
    pub id: Option<Arc<str>>,
}

fn field<T: for<'de> Deserialize<'de>>(data: Value, what: &str) -> Result<T, ProtoError> {
    serde_json::from_value(data).map_err(|e| ProtoError::new("bad_request", format!("{what}: {e}")))
}

/// Parses one text frame. Errors carry the code to send back; the id is recovered
/// whenever the frame was an object with a string `id`, so even errors can carry `re`.
pub fn parse_client(text: &str) -> Result<Inbound, (ProtoError, Option<Arc<str>>)> {
    let v: Value = serde_json::from_str(text).map_err(|e| (ProtoError::new("bad_request", format!("malformed JSON: {e}")), None))?;
    let Value::Object(mut obj) = v else {
        return Err((ProtoError::new("bad_request", "a message must be a JSON object"), None));
    };
    let id: Option<Arc<str>> = match obj.remove("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.into()),
        Some(Value::Number(n)) => Some(n.to_string().into()),
        Some(_) => return Err((ProtoError::new("bad_request", "id must be a string"), None)),
    };
    let ty = match obj.remove("type") {
        Some(Value::String(s)) => s,
        Some(_) => return Err((ProtoError::new("bad_request", "type must be a string"), id)),
        None => return Err((ProtoError::new("bad_request", "missing required field: type"), id)),
    };
    let data_given = matches!(obj.get("data"), Some(Value::Object(_)));
    let data = match obj.remove("data") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(d @ Value::Object(_)) => d,
        Some(_) => return Err((ProtoError::new("bad_request", "data must be an object"), id)),
    };
    let msg = match ty.as_str() {
        "login" => {
            let login: LoginData = field(data, "login").map_err(|e| (e, id.clone()))?;
            check_display(login.display.as_ref()).map_err(|e| (e, id.clone()))?;
            ClientMsg::Login(Box::new(login))
        }
        "display" => {
            let d: DisplayData = field(data, "display").map_err(|e| (e, id.clone()))?;
            check_display(Some(&d)).map_err(|e| (e, id.clone()))?;
            ClientMsg::Display(d)
        }
        "command" => ClientMsg::Command(command::parse_command(data).map_err(|e| (e, id.clone()))?),
        "subscribe" | "unsubscribe" => {
            #[derive(Deserialize)]
            struct Vars {
                variables: Vec<String>,
            }
            let v: Vars = field(data, &ty).map_err(|e| (e, id.clone()))?;
            if ty == "subscribe" {
                ClientMsg::Subscribe(v.variables)
            } else {
                ClientMsg::Unsubscribe(v.variables)
            }
        }
        "char_input" => {
            let Value::Object(mut m) = data else { unreachable!() };
            match m.remove("choice") {
                Some(c @ (Value::String(_) | Value::Number(_))) => ClientMsg::CharInput(c),
                _ => return Err((ProtoError::new("bad_request", "char_input: choice must be a string or number"), id)),
            }
        }
        "hud" => ClientMsg::Hud(data),
        "actions" => {
            let batch = match obj.remove("toon") {
                Some(Value::String(t)) => crate::hud::format::decode(&t, crate::hud::HudFormat::Toon)
                    .map_err(|e| (ProtoError::new("bad_request", format!("actions: {e}")), id.clone()))?,
                Some(_) => return Err((ProtoError::new("bad_request", "actions: toon must be a string"), id)),
                // Items beside `data` rather than in it would be silently nothing.
                None if !data_given => {
                    return Err((ProtoError::new("bad_request", "actions: put responses and actions in data (or TOON text in toon)"), id))
                }
                None => data,
            };
            let mut batch = match batch {
                Value::Object(m) => m,
                _ => return Err((ProtoError::new("bad_request", "actions: expected {\"responses\": [...], \"actions\": [...]}"), id)),
            };
            if let Err(e) = command::check_batch_client(&mut batch) {
                return Err((e, id));
            }
            let ok = batch.iter().all(|(k, v)| {
                matches!(k.as_str(), "reason" | "llm") || ((k == "responses" || k == "actions") && (v.is_array() || v.is_null()))
            });
            if !ok {
                return Err((
                    ProtoError::new(
                        "bad_request",
                        "actions: expected {\"responses\": [...], \"actions\": [...]} (with reason and llm, if any)",
                    ),
                    id,
                ));
            }
            ClientMsg::Actions(Value::Object(batch))
        }
        other => {
            return Err((
                ProtoError::new("unknown_type", format!("unknown message type '{}'", other.chars().take(40).collect::<String>())),
                id,
            ))
        }
    };
    Ok(Inbound { msg, id })
}

fn envelope(ty: &str, seq: u64, data: Value, re: Option<&Arc<str>>) -> String {
    let mut m = Map::with_capacity(4);
    m.insert("type".into(), Value::String(ty.into()));
    m.insert("seq".into(), json!(seq));
    m.insert("data".into(), data);
    if let Some(re) = re {
        m.insert("re".into(), Value::String(re.to_string()));
    }
    Value::Object(m).to_string()
}

/// A `vars` frame, serialized from the engine's values as they are: the same text as
/// the envelope of a JSON map of them (serde_json's map keeps insertion order here: a
/// repeated name stays where it first came, with its last value), without copying
/// every value into a map first (a `ROOM_MOBS` is an array of objects: a copy was an
/// allocation per string).
pub fn vars_frame(seq: u64, values: &[(&'static str, Value)], resumed: Option<bool>, re: Option<&str>) -> String {
    struct Data<'a> {
        values: &'a [(&'static str, Value)],
        resumed: Option<bool>,
    }
    impl serde::Serialize for Data<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let resumed = self.resumed.map(Value::Bool);
            let keyed: Vec<(&str, &Value)> =
                self.values.iter().map(|(k, v)| (*k, v)).chain(resumed.as_ref().map(|r| ("resumed", r))).collect();
            let mut m = s.serialize_map(None)?;
            for (i, (k, _)) in keyed.iter().enumerate() {
                if keyed[..i].iter().any(|(earlier, _)| earlier == k) {
                    continue;
                }
                let last = keyed.iter().rev().find(|(name, _)| name == k).map_or(&Value::Null, |(_, v)| *v);
                m.serialize_entry(k, last)?;
            }
            m.end()
        }
    }
    serde_json::to_string(&Envelope { ty: "vars", seq, data: Data { values, resumed }, re }).unwrap_or_default()
}

/// A server message as serde writes it: `{"type", "seq", "data"[, "re"]}`.
#[derive(serde::Serialize)]
struct Envelope<'a, D> {
    #[serde(rename = "type")]
    ty: &'static str,
    seq: u64,
    data: D,
    #[serde(skip_serializing_if = "Option::is_none")]
    re: Option<&'a str>,
}

/// A reply the session itself makes (`hud`, `actions_result`), stamped by the link.
pub fn reply_frame(seq: u64, ty: &str, data: Value, re: Option<&Arc<str>>) -> String {
    envelope(ty, seq, data, re)
}

/// A `hud` request (protocol §11): the format, the budget in tokens, and whether to
/// start (or stop) the heartbeat pushes.
#[derive(Debug, Clone, PartialEq)]
pub struct HudRequest {
    pub format: crate::hud::HudFormat,
    pub budget: usize,
    pub heartbeat: Option<bool>,
}

/// Reads a `hud` request's `data`; bad fields are refused with their code.
/// `default_budget`: the session's (its login `tier`'s) when the request names none.
pub fn hud_request(data: Value, default_budget: usize) -> Result<HudRequest, ProtoError> {
    use crate::hud::budget::{MAX_BUDGET, MIN_BUDGET};
    let Value::Object(m) = data else { return Err(ProtoError::new("bad_request", "hud: data must be an object")) };
    let mut req = HudRequest { format: Default::default(), budget: default_budget, heartbeat: None };
    for (k, v) in m {
        match (k.as_str(), v) {
            ("format", Value::String(f)) => {
                req.format = f.parse().map_err(|e: String| ProtoError::new("bad_request", format!("hud: {e}")))?
            }
            ("budget", Value::Number(n)) => {
                let b = n.as_u64().filter(|b| (MIN_BUDGET as u64..=MAX_BUDGET as u64).contains(b));
                req.budget = b
                    .ok_or_else(|| ProtoError::new("bad_budget", format!("hud: budget must be {MIN_BUDGET} to {MAX_BUDGET} tokens")))?
                    as usize;
            }
            ("heartbeat", Value::Bool(b)) => req.heartbeat = Some(b),
            (k @ ("format" | "budget" | "heartbeat"), _) => {
                return Err(ProtoError::new("bad_request", format!("hud: {k} has the wrong type")))
            }
            (other, _) => {
                return Err(ProtoError::new("bad_request", format!("hud: unknown field '{}'", other.chars().take(40).collect::<String>())))
            }
        }
    }
    Ok(req)
}

pub fn error_frame(seq: u64, code: &str, message: &str, retry_after_ms: Option<u64>, re: Option<&Arc<str>>) -> String {
    let mut d = json!({"code": code, "message": message});
    if let Some(ms) = retry_after_ms {
        d["retry_after_ms"] = json!(ms);
    }
    envelope("error", seq, d, re)
}

/// Renders an engine output as a JSON frame; `None` for outputs JSON clients do not get.
pub fn render(seq: u64, out: &Out, token: &str) -> Option<String> {
    match out {
        Out::Event { kind, text, from, re } => Some(event_frame(seq, *kind, text, from.as_deref(), re.as_deref())),
        Out::State { data, re } => Some(state_frame(seq, data, token, re.as_deref())),
        Out::Vars { values, re, resumed } => Some(vars_frame(seq, values, *resumed, re.as_deref())),
        Out::Error { code, message, re, extra } => {
            let mut d = json!({"code": code, "message": message});
            if let Some(Value::Object(m)) = extra {
                for (k, v) in m {
                    d[k.as_str()] = v.clone();
                }
            }
            Some(envelope("error", seq, d, re.as_ref()))
        }
        Out::MemoryBootstrap { block, count, summaries, soul } => {
            let mut data = json!({"block": &**block, "count": count, "summaries": summaries});
            if !soul.is_empty() {
                data["soul"] = json!(&**soul);
            }
            Some(envelope("memory_bootstrap", seq, data, None))
        }
        Out::Reply { kind, data, re } => Some(reply_frame(seq, kind, data.clone(), re.as_ref())),
        Out::MemorySummary(text) => {
            Some(json!({"type": "memory_summary", "seq": seq, "summary": &**text, "data": {"summary": &**text}}).to_string())
        }
        Out::Prompt(_) | Out::Answered(_) | Out::Colour(_) => None,
        Out::Close { code, message } => match *code {
            "quit" | "shutdown" => None,
            c => Some(error_frame(seq, c, message, None, None)),
        },
    }
}

/// The length of `s` as a JSON string literal (quotes and escapes included), as
/// `push_json_str` writes it.
pub fn json_str_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let (blocks, rest) = bytes.as_chunks::<CLEAN_BLOCK>();
    let mut extra = 0;
    for (at, block) in blocks.iter().enumerate() {
        let mut mask = escape_mask(block);
        while mask != 0 {
            extra += escape_extra(bytes[at * CLEAN_BLOCK + mask.trailing_zeros() as usize]);
            mask &= mask - 1;
        }
    }
    extra += rest.iter().filter(|&&b| needs_escape(b)).map(|&b| escape_extra(b)).sum::<usize>();
    2 + bytes.len() + extra
}

/// How many bytes more than itself the escape of a byte that needs one takes: `\n` and
/// the like one, `\uXXXX` five.
fn escape_extra(b: u8) -> usize {
    match b {
        b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 1,
        _ => 5,
    }
}

/// Whether a byte needs an escape in a JSON string.
fn needs_escape(b: u8) -> bool {
    (b < 0x20) | (b == b'"') | (b == b'\\')
}

/// How many bytes a block checked at once holds (`push_json_str`).
const CLEAN_BLOCK: usize = 16;

/// Which bytes of a block need an escape, as bits (bit `i`: byte `i`): the block is
/// compared at once (SSE2, which every x86_64 has), not a byte at a time.
#[cfg(target_arch = "x86_64")]
fn escape_mask(block: &[u8; CLEAN_BLOCK]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; the load is unaligned and reads exactly the block.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        // b < 0x20 ⇔ max(b, 0x1f) == 0x1f (unsigned).
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn escape_mask(block: &[u8; CLEAN_BLOCK]) -> u32 {
    block.iter().enumerate().fold(0, |mask, (i, &b)| mask | (u32::from(needs_escape(b)) << i))
}

/// Appends the escape of one byte that needs one.
fn push_escape(out: &mut String, b: u8) {
    use std::fmt::Write;
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        _ => {
            let _ = write!(out, "\\u{:04x}", b);
        }
    }
}

/// Appends `s` as a JSON string literal. Runs of bytes that need no escape are copied
/// whole (a broadcast's text is mostly such a run); the bytes that do are found a block
/// at a time, as a bit mask, and only they are written one by one.
pub fn push_json_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let (blocks, rest) = bytes.as_chunks::<CLEAN_BLOCK>();
    let mut escape = |out: &mut String, i: usize| {
        // Every byte escaped is ASCII, so `start..i` ends on a char boundary.
        out.push_str(&s[start..i]);
        push_escape(out, bytes[i]);
        start = i + 1;
    };
    for (at, block) in blocks.iter().enumerate() {
        let mut mask = escape_mask(block);
        while mask != 0 {
            escape(out, at * CLEAN_BLOCK + mask.trailing_zeros() as usize);
            mask &= mask - 1;
        }
    }
    let tail = blocks.len() * CLEAN_BLOCK;
    for (k, &b) in rest.iter().enumerate() {
        if needs_escape(b) {
            escape(out, tail + k);
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// What opens every `event` frame, up to its `data`: `{"type":"event","seq":N,"data":`.
const EVENT_HEAD: &str = r#"{"type":"event","seq":"#;
const EVENT_DATA: &str = r#","data":"#;

/// The part of an `event` frame after its `seq` when it carries no `re`: `data` and the
/// envelope's closing brace, the same bytes for every recipient of a broadcast. Sized
/// exactly.
pub fn event_tail(kind: crate::game::EventKind, text: &str, from: Option<&str>) -> String {
    let mut o = String::with_capacity(event_data_len(kind, text, from) + 1);
    push_event_data(&mut o, kind, text, from);
    o.push('}');
    o
}

/// An `event` frame made of its head for `seq` and a tail from `event_tail`: the same
/// bytes `event_frame(seq, kind, text, from, None)` makes.
pub fn event_frame_from_tail(seq: u64, tail: &str) -> String {
    let mut o = String::with_capacity(EVENT_HEAD.len() + 20 + EVENT_DATA.len() + tail.len());
    push_event_head(&mut o, seq);
    o.push_str(tail);
    o
}

/// The length of an event frame for `seq` with this tail, as `event_frame_from_tail` makes it.
pub fn event_frame_len(seq: u64, tail: &str) -> usize {
    EVENT_HEAD.len() + decimal_len(seq) + EVENT_DATA.len() + tail.len()
}

fn decimal_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

fn push_event_head(o: &mut String, seq: u64) {
    o.push_str(EVENT_HEAD);
    o.push_str(&seq.to_string());
    o.push_str(EVENT_DATA);
}

fn event_data_len(kind: crate::game::EventKind, text: &str, from: Option<&str>) -> usize {
    r#"{"type":"","text":}"#.len() + kind.as_str().len() + json_str_len(text) + from.map_or(0, |f| r#","from":"#.len() + json_str_len(f))
}

fn push_event_data(o: &mut String, kind: crate::game::EventKind, text: &str, from: Option<&str>) {
    o.push_str("{\"type\":\"");
    o.push_str(kind.as_str());
    o.push_str("\",\"text\":");
    push_json_str(o, text);
    if let Some(f) = from {
        o.push_str(",\"from\":");
        push_json_str(o, f);
    }
    o.push('}');
}

/// An `event` frame, built directly: the hot path of every broadcast, so no
/// intermediate JSON tree.
///
/// It is sized exactly before it is written: a frame is kept in its session's replay
/// ring, and one grown by doubling would hold up to twice its size there.
pub fn event_frame(seq: u64, kind: crate::game::EventKind, text: &str, from: Option<&str>, re: Option<&str>) -> String {
    let len = EVENT_HEAD.len()
        + 20
        + EVENT_DATA.len()
        + event_data_len(kind, text, from)
        + re.map_or(0, |r| r#","re":"#.len() + json_str_len(r))
        + 1;
    let mut o = String::with_capacity(len);
    push_event_head(&mut o, seq);
    push_event_data(&mut o, kind, text, from);
    if let Some(r) = re {
        o.push_str(",\"re\":");
        push_json_str(&mut o, r);
    }
    o.push('}');
    o
}

pub fn token_refresh_frame(seq: u64, token: &str) -> String {
    envelope("token_refresh", seq, json!({"token": token}), None)
}

pub fn char_create_frame(
    seq: u64,
    stage: &str,
    prompt: &str,
    options: Option<Value>,
    stats: Option<Value>,
    re: Option<&Arc<str>>,
) -> String {
    let mut d = json!({"stage": stage, "prompt": prompt});
    if let Some(o) = options {
        d["options"] = o;
    }
    if let Some(s) = stats {
        d["stats"] = s;
    }
    envelope("char_create", seq, d, re)
}

#[cfg(test)]
mod tests;

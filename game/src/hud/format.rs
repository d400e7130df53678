//! The HUD's three written forms (protocol §11): `json` (pretty), `compact_json`
//! (minified, with the short keys below) and `toon` (the public TOON spec, through the
//! `toon-format` crate). Each decodes back to the same value, so agents may answer in
//! any of them and a HUD can be checked after a round trip.
//!
//! The short keys are the seed's (`toon_service.py`) where they do not collide; the
//! mapping is a bijection over the HUD's own keys, and the agent's knowledge (whose keys
//! are the agent's) is never rewritten.

use std::str::FromStr;

use serde_json::{Map, Value};

/// The HUD's keys and their short forms in `compact_json`. Published: an agent reading
/// compact JSON may be given this table.
pub const SHORT_KEYS: &[(&str, &str)] = &[
    ("system", "sys"),
    ("directives", "dir"),
    ("self", "me"),
    ("identity", "idn"),
    ("name", "n"),
    ("model", "mdl"),
    ("persona", "per"),
    ("role", "rl"),
    ("class", "cls"),
    ("race", "rc"),
    ("level", "lv"),
    ("knowledge", "k"),
    ("memory_used", "mu"),
    ("recent_actions", "ra"),
    ("memory", "mem"),
    ("summary", "sum"),
    ("meta", "m"),
    ("instructions", "ins"),
    ("available_actions", "aa"),
    ("response_format", "rf"),
    ("example", "ex"),
    ("description", "desc"),
    ("rooms", "r"),
    ("you", "u"),
    ("is_self_room", "sr"),
    ("members", "mb"),
    ("attention_pct", "ap"),
    ("time_since_last", "tsl"),
    ("word_budget", "wb"),
    ("messages", "msg"),
    ("timestamp", "ts"),
    ("sender", "s"),
    ("content", "c"),
    ("type", "t"),
    ("reply_to", "rt"),
    ("reactions", "rx"),
    ("billboard", "bb"),
    ("my_keys", "keys"),
    ("pending_access_requests", "par"),
    ("requester_id", "rq"),
    ("key_used", "ku"),
    ("action", "a"),
    ("args", "ar"),
    ("at", "@"),
    ("result", "res"),
    ("kind", "kd"),
    ("heartbeat_s", "hb"),
];

/// The keys whose values are written as they are (never shortened or expanded): the
/// agent's knowledge (its own keys) and the actions with their JSON Schemas (whose
/// field names an answer must use as written).
const OPAQUE: &[&str] = &["knowledge", "available_actions"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HudFormat {
    #[default]
    Json,
    CompactJson,
    Toon,
}

impl HudFormat {
    pub fn as_str(&self) -> &'static str {
        match self {
            HudFormat::Json => "json",
            HudFormat::CompactJson => "compact_json",
            HudFormat::Toon => "toon",
        }
    }
}

impl FromStr for HudFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json" => Ok(HudFormat::Json),
            "compact_json" => Ok(HudFormat::CompactJson),
            "toon" => Ok(HudFormat::Toon),
            other => Err(format!("unknown format '{other}' (json, compact_json or toon)")),
        }
    }
}

/// Why a HUD could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("the text is not {0}: {1}")]
    Decode(&'static str, String),
    #[error("cannot write TOON: {0}")]
    Encode(String),
}

impl FormatError {
    pub fn code(&self) -> &'static str {
        match self {
            FormatError::Decode(..) => "bad_format",
            FormatError::Encode(_) => "internal",
        }
    }
}

/// The HUD (or any part of it) as the exact text to hand a model.
pub fn render(v: &Value, f: HudFormat) -> Result<String, FormatError> {
    match f {
        HudFormat::Json => Ok(serde_json::to_string_pretty(v).unwrap_or_default()),
        HudFormat::CompactJson => Ok(shorten(v).to_string()),
        HudFormat::Toon => toon_format::encode_default(v).map_err(|e| FormatError::Encode(e.to_string())),
    }
}

/// Reads text written in `f` back into the value (long keys).
pub fn decode(text: &str, f: HudFormat) -> Result<Value, FormatError> {
    match f {
        HudFormat::Json => serde_json::from_str(text).map_err(|e| FormatError::Decode("JSON", e.to_string())),
        HudFormat::CompactJson => {
            serde_json::from_str(text).map(|v: Value| expand(&v)).map_err(|e| FormatError::Decode("compact JSON", e.to_string()))
        }
        HudFormat::Toon => toon_format::decode_default::<Value>(text).map_err(|e| FormatError::Decode("TOON", e.to_string())),
    }
}

fn map_keys(v: &Value, table: &dyn Fn(&str) -> Option<&'static str>, opaque: &[&str]) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::with_capacity(m.len());
            for (k, val) in m {
                let key = table(k).map(str::to_string).unwrap_or_else(|| k.clone());
                let val = if opaque.contains(&k.as_str()) { val.clone() } else { map_keys(val, table, opaque) };
                out.insert(key, val);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| map_keys(x, table, opaque)).collect()),
        other => other.clone(),
    }
}

/// Long keys → short ones (the knowledge and the actions left as written).
pub fn shorten(v: &Value) -> Value {
    map_keys(v, &|k| SHORT_KEYS.iter().find(|(l, _)| *l == k).map(|(_, s)| *s), OPAQUE)
}

/// Short keys → long ones.
pub fn expand(v: &Value) -> Value {
    let opaque_short: Vec<&str> = OPAQUE.iter().map(|o| SHORT_KEYS.iter().find(|(l, _)| l == o).map(|(_, s)| *s).unwrap_or(o)).collect();
    map_keys(v, &|k| SHORT_KEYS.iter().find(|(_, s)| *s == k).map(|(l, _)| *l), &opaque_short)
}

/// A value with its numbers written canonically, as TOON writes them (`50.0` → `50`):
/// two values are the same HUD when their canonical forms are equal.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), canonical(x))).collect()),
        other => other.clone(),
    }
}

/// Tokens of a text, with the cl100k tokenizer the budget is counted in.
pub fn tokens(text: &str) -> usize {
    pawns_graph::count_tokens(text)
}

/// Texts whose counts are remembered, at most this many (then the memory starts over).
const REMEMBERED: usize = 500_000;
static COUNTS: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<(u64, usize), u32>>> =
    std::sync::LazyLock::new(Default::default);

/// `tokens`, remembered by a hash of the text (and its length): a HUD's fixed sections,
/// its messages and — for an agent to whom nothing new happened — the whole HUD come
/// back heartbeat after heartbeat and are counted once.
pub fn tokens_cached(text: &str) -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    let key = (h.finish(), text.len());
    if let Some(n) = COUNTS.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return *n as usize;
    }
    let n = tokens(text);
    let mut counts = COUNTS.lock().unwrap_or_else(|e| e.into_inner());
    if counts.len() >= REMEMBERED {
        counts.clear();
    }
    counts.insert(key, n as u32);
    n
}

/// `tokens` of a multi-line text, counted line by line with each line remembered —
/// exact, not an estimate: cl100k's pre-tokenizer always ends a piece at the end of a
/// run of newlines (no pattern of it reaches past one into a line with something on
/// it, and it has no look-behind), and BPE merges only within a piece. So a text's
/// count is the sum of its lines' counts, split after a newline run that is followed
/// by a line holding more than whitespace. A HUD changes a few lines per heartbeat
/// (JSON and TOON are written a field per line); the rest are counted once.
pub fn tokens_by_line(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut start, mut total) = (0, 0);
    let mut i = 1;
    while i < b.len() {
        if b[i - 1] == b'\n' && b[i] != b'\n' && b[i] != b'\r' {
            let line_end = b[i..].iter().position(|c| *c == b'\n').map_or(b.len(), |p| i + p);
            if b[i..line_end].iter().any(|c| !c.is_ascii_whitespace()) {
                total += tokens_cached(&text[start..i]);
                start = i;
            }
        }
        i += 1;
    }
    total + tokens_cached(&text[start..])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sample() -> Value {
        let messages: Vec<Value> = (0..12)
            .map(|i| {
                json!({"id": 1000 + i, "timestamp": format!("2026-11-23T10:{:02}:00Z", i), "sender": if i % 2 == 0 { "Bram" } else { "Ann" },
                       "content": format!("message number {i}: the goblins are back at the north gate"), "type": "say"})
            })
            .collect();
        json!({
            "system": {"directives": "You are a character in a living world. Speak briefly."},
            "self": {"identity": {"id": 7, "name": "Ann", "model": "gpt-4o-mini", "persona": "a wary ranger", "class": "Warrior", "race": "Human", "level": 3},
                     "knowledge": {"people": {"Bram": {"trust": 0.8}}, "m": "an agent's own key that looks short"},
                     "memory_used": "4%",
                     "recent_actions": [{"at": "10:00:01", "action": "look", "result": "ok"}, {"at": "10:00:05", "action": "north", "result": "ok"}]},
            "meta": {"instructions": "Answer with responses and actions.", "available_actions": {"movement": ["north", "south"], "knowledge": ["set", "delete", "append"]},
                     "response_format": {"type": "json", "example": "{\"responses\":[],\"actions\":[]}"}},
            "rooms": [{"id": "here", "you": 7, "is_self_room": false, "members": ["Ann", "Bram"], "attention_pct": 60.0,
                       "time_since_last": "2 minutes", "word_budget": 45, "messages": messages}]
        })
    }

    #[test]
    fn the_short_keys_are_a_bijection_and_never_a_long_key() {
        let longs: std::collections::HashSet<&str> = SHORT_KEYS.iter().map(|(l, _)| *l).collect();
        let shorts: std::collections::HashSet<&str> = SHORT_KEYS.iter().map(|(_, s)| *s).collect();
        assert_eq!(longs.len(), SHORT_KEYS.len(), "a long key mapped twice");
        assert_eq!(shorts.len(), SHORT_KEYS.len(), "a short key used twice");
        for s in &shorts {
            assert!(!longs.contains(s) || SHORT_KEYS.iter().any(|(l, sh)| l == s && sh == s), "{s} is both a short and a long key");
        }
    }

    /// One HUD in all three forms: each decodes back to the same value, and the token
    /// counts fall json > compact_json > toon.
    #[test]
    fn one_hud_in_three_formats_round_trips_and_shrinks() {
        let v = sample();
        let mut counts = Vec::new();
        for f in [HudFormat::Json, HudFormat::CompactJson, HudFormat::Toon] {
            let text = render(&v, f).unwrap();
            assert_eq!(canonical(&decode(&text, f).unwrap()), canonical(&v), "{} round trip:\n{text}", f.as_str());
            counts.push(tokens(&text));
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[2], "tokens json/compact/toon: {counts:?}");
        // The agent's knowledge keeps its own keys in compact JSON.
        let compact = render(&v, HudFormat::CompactJson).unwrap();
        assert!(compact.contains("\"m\":\"an agent's own key") && compact.contains("{\"people\":{\"Bram\":{\"trust\":0.8}}"), "{compact}");
    }

    #[test]
    fn bad_text_is_refused_with_a_code() {
        let e = decode("{not json", HudFormat::CompactJson).unwrap_err();
        assert_eq!(e.code(), "bad_format");
        assert_eq!("yaml".parse::<HudFormat>().unwrap_err(), "unknown format 'yaml' (json, compact_json or toon)");
    }
}

#[cfg(test)]
mod line_counts {
    use proptest::prelude::*;

    use super::{tokens, tokens_by_line};

    #[test]
    fn counting_by_line_is_exact_on_awkward_texts() {
        for t in [
            "",
            "\n",
            "a\n",
            "{\n  \"a\": 1,\n  \"b\": [\n    \"x y\"\n  ]\n}",
            "line  \n   next\n\n\nafter blank lines\n  \n  spaces-only line above\r\nwindows\r\n",
            "rooms[2]{id,sender}:\n  1,Bram\n  2,Ann\n",
            "  leading\n\tTabbed\n 123456\n's contraction\n",
        ] {
            assert_eq!(tokens_by_line(t), tokens(t), "{t:?}");
        }
    }

    proptest! {
        /// On any text made of lines of words, numbers, punctuation and spaces, the sum
        /// by line is the whole's count.
        #[test]
        fn the_sum_of_lines_is_the_whole(lines in proptest::collection::vec("[ \\t]{0,4}[a-zA-Z0-9 ,.:{}\\[\\]\"'_-]{0,30}[ ]{0,2}", 0..30), seps in proptest::collection::vec("\\n|\\n\\n|\\r\\n|\\n  \\n", 0..30)) {
            let mut text = String::new();
            for (i, l) in lines.iter().enumerate() {
                text.push_str(l);
                text.push_str(seps.get(i).map(String::as_str).unwrap_or("\n"));
            }
            prop_assert_eq!(tokens_by_line(&text), tokens(&text), "{:?}", text);
        }
    }
}

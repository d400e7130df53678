//! The layers' rules (protocol §12, seed `004_*`), on the store, synchronous (callers run
//! them on the blocking pool, one writer at a time): soul entries, long-term memories
//! and `recall`, the diary, relationships. Nothing is deleted: a forgotten memory or a
//! removed soul entry is ended; a diary amendment or a relationship change keeps the
//! older version in the record's history.

use std::collections::BTreeMap;

use pawns_storage::{MindMeta, MindRecord, MindVersion, Store};
use serde_json::{json, Value};

use super::{Refusal, Whereabouts};

pub use pawns_storage::mind::layer::{DIARY, LINK, MEMORY, RELATIONSHIP, SOUL, SUMMARY};

/// The layer a recorded memory names (`memory`, `summary`, `shared`).
pub fn layer_named(name: &str) -> Option<u8> {
    match name {
        "memory" | "shared" => Some(MEMORY),
        "summary" => Some(SUMMARY),
        _ => None,
    }
}

/// Longest soul entry, memory or diary text (characters).
pub const MAX_TEXT: usize = 2_000;
/// Most soul entries one agent holds at once.
pub const MAX_SOUL: usize = 100;
/// Longest relationship field or query.
pub const MAX_FIELD: usize = 500;
/// Most matches `recall` and `diary_search` answer with.
pub const MAX_LIMIT: usize = 50;

fn refuse<T>(code: &'static str, m: impl Into<String>) -> Result<T, Refusal> {
    Err((code, m.into()))
}

fn internal(e: pawns_storage::StoreError) -> Refusal {
    ("internal", e.to_string())
}

/// A text within the limits, trimmed.
pub fn text(v: Option<&str>, what: &str, max: usize) -> Result<String, Refusal> {
    let t = v.map(str::trim).unwrap_or("");
    if t.is_empty() {
        return refuse("bad_request", format!("{what} is empty"));
    }
    if t.chars().count() > max {
        return refuse("too_long", format!("{what} is at most {max} characters"));
    }
    Ok(t.to_string())
}

fn now() -> u64 {
    crate::time::unix_us()
}

fn new_record(meta: &mut MindMeta, layer: u8, text: String, at: &Whereabouts) -> MindRecord {
    meta.next_id += 1;
    MindRecord { id: meta.next_id, layer, text, at_us: now(), room_vnum: at.room_vnum, room: at.room.clone(), ..Default::default() }
}

/// How a record is shown: id, text, when, where, its fields, and whether it ended.
pub fn view(r: &MindRecord) -> Value {
    let mut v = json!({"id": r.id, "text": r.text, "at": crate::record::export::rfc3339(r.at_us)});
    if let Some(room) = &r.room {
        v["where"] = json!(room);
    }
    if let Some(k) = &r.key {
        v["key"] = json!(k);
    }
    for (k, f) in &r.fields {
        v[k.as_str()] = json!(f);
    }
    if let Some(e) = &r.ended {
        v["ended"] = json!(e);
    }
    if !r.history.is_empty() {
        v["versions"] = json!(r.history.len() + 1);
    }
    v
}

pub fn soul_add(store: &Store, agent: &str, text: &str, at: &Whereabouts) -> Result<Value, Refusal> {
    let text = self::text(Some(text), "a soul entry", MAX_TEXT)?;
    let live = store.mind_layer(agent, SOUL).map_err(internal)?.into_iter().filter(|r| r.ended.is_none()).count();
    if live >= MAX_SOUL {
        return refuse("soul_full", format!("at most {MAX_SOUL} soul entries (remove one first)"));
    }
    let mut meta = store.mind_meta(agent).map_err(internal)?;
    let r = new_record(&mut meta, SOUL, text, at);
    store.mind_put(agent, std::slice::from_ref(&r), &meta).map_err(internal)?;
    Ok(json!({"id": r.id}))
}

/// Ends a live record of `layer` (`why`: removed, forgotten).
pub fn end(store: &Store, agent: &str, layer: u8, id: u64, why: &str) -> Result<Value, Refusal> {
    let Some(mut r) = store.mind_get(agent, layer, id).map_err(internal)?.filter(|r| r.ended.is_none()) else {
        return refuse("no_such_id", format!("no {} {id}", if layer == SOUL { "soul entry" } else { "memory" }));
    };
    r.ended_us = Some(now());
    r.ended = Some(why.into());
    let mut meta = store.mind_meta(agent).map_err(internal)?;
    if layer == MEMORY {
        meta.live_memories = meta.live_memories.saturating_sub(1);
    }
    store.mind_put(agent, &[r], &meta).map_err(internal)?;
    Ok(json!({}))
}

pub fn remember(store: &Store, agent: &str, text: &str, at: &Whereabouts) -> Result<Value, Refusal> {
    let text = self::text(Some(text), "a memory", MAX_TEXT)?;
    let mut meta = store.mind_meta(agent).map_err(internal)?;
    meta.live_memories += 1;
    let r = new_record(&mut meta, MEMORY, text, at);
    store.mind_put(agent, std::slice::from_ref(&r), &meta).map_err(internal)?;
    Ok(json!({"id": r.id}))
}

/// A text's words as the search index sees them (lower-cased, English stems).
fn words_with(a: &mut tantivy::tokenizer::TextAnalyzer, s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut ts = a.token_stream(s);
    while ts.advance() {
        out.push(ts.token().text.clone());
    }
    out
}

fn words(s: &str) -> Vec<String> {
    words_with(&mut crate::search::stem::analyzer(), s)
}

/// Does a text hold every word of the query (as the index sees words)?
pub fn matches(a: &mut tantivy::tokenizer::TextAnalyzer, want: &[String], text: &str) -> bool {
    let have = words_with(a, text);
    want.iter().all(|w| have.contains(w))
}

/// The query's words as the index sees them.
pub fn query_words(a: &mut tantivy::tokenizer::TextAnalyzer, q: &str) -> Vec<String> {
    words_with(a, q)
}

/// The agent's memories (live and archived, and summaries) matching `query`: every
/// query word (stemmed) must appear; newest first. Forgotten ones are not recalled.
pub fn recall_memories(store: &Store, agent: &str, query: &str, limit: usize) -> Result<Vec<Value>, Refusal> {
    let mut a = crate::search::stem::analyzer();
    let want = words_with(&mut a, query);
    let mut found: Vec<MindRecord> = Vec::new();
    for layer in [MEMORY, SUMMARY] {
        for r in store.mind_layer(agent, layer).map_err(internal)? {
            if r.ended.as_deref() == Some("forgotten") {
                continue;
            }
            let have = words_with(&mut a, &r.text);
            if want.iter().all(|w| have.contains(w)) {
                found.push(r);
            }
        }
    }
    found.sort_by_key(|r| std::cmp::Reverse(r.at_us));
    Ok(found
        .iter()
        .take(limit)
        .map(|r| {
            let mut v = view(r);
            v["source"] = json!(if r.layer == SUMMARY { "summary" } else { "memory" });
            v
        })
        .collect())
}

fn valid_date(d: &str) -> bool {
    chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok() && d.len() == 10
}

/// The diary's record for a date, found by its key.
fn diary_day(store: &Store, agent: &str, date: &str) -> Result<Option<MindRecord>, Refusal> {
    Ok(store.mind_layer(agent, DIARY).map_err(internal)?.into_iter().find(|r| r.key.as_deref() == Some(date)))
}

pub fn diary_write(store: &Store, agent: &str, item: &Value, at: &Whereabouts) -> Result<Value, Refusal> {
    let today = chrono::Utc::now().date_naive();
    let date = match item.get("date").and_then(Value::as_str) {
        // A diary is of days lived: today (a day's slack for the writer's time zone) or before.
        Some(d) if valid_date(d) && chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok_and(|d| d <= today + chrono::Days::new(1)) => {
            d.to_string()
        }
        Some(d) if valid_date(d) => return refuse("bad_date", format!("{d} has not come yet: a diary is of today or a day gone by")),
        Some(_) => return refuse("bad_date", "date is YYYY-MM-DD"),
        None => today.format("%Y-%m-%d").to_string(),
    };
    let text = self::text(item.get("text").and_then(Value::as_str), "a diary entry", MAX_TEXT)?;
    let mut fields = BTreeMap::new();
    for k in ["mood", "location"] {
        if let Some(v) = item.get(k).and_then(Value::as_str) {
            fields.insert(k.to_string(), self::text(Some(v), k, MAX_FIELD)?);
        }
    }
    if !fields.contains_key("location") {
        if let Some(room) = &at.room {
            fields.insert("location".into(), room.clone());
        }
    }
    let mut meta = store.mind_meta(agent).map_err(internal)?;
    let (r, amended) = match diary_day(store, agent, &date)? {
        Some(mut r) => {
            r.history.push(MindVersion { text: r.text.clone(), fields: r.fields.clone(), at_us: r.at_us, replaced_us: now() });
            r.text = text;
            r.fields = fields;
            r.at_us = now();
            (r, true)
        }
        None => {
            let mut r = new_record(&mut meta, DIARY, text, at);
            r.key = Some(date.clone());
            r.fields = fields;
            (r, false)
        }
    };
    store.mind_put(agent, std::slice::from_ref(&r), &meta).map_err(internal)?;
    Ok(json!({"date": date, "amended": amended, "id": r.id}))
}

fn diary_view(r: &MindRecord) -> Value {
    let mut v = view(r);
    v["date"] = json!(r.key);
    v
}

pub fn diary_read(store: &Store, agent: &str, date: &str) -> Result<Value, Refusal> {
    if !valid_date(date) {
        return refuse("bad_date", "date is YYYY-MM-DD");
    }
    match diary_day(store, agent, date)? {
        Some(r) => Ok(
            json!({"entry": diary_view(&r), "earlier": r.history.iter().map(|h| json!({"text": h.text, "replaced": crate::record::export::rfc3339(h.replaced_us)})).collect::<Vec<_>>()}),
        ),
        None => refuse("no_entry", format!("no diary entry for {date}")),
    }
}

pub fn diary_search(store: &Store, agent: &str, query: &str, limit: usize) -> Result<Value, Refusal> {
    let want = words(query);
    if want.is_empty() {
        return refuse("empty_query", "the query has no word to search by (too short, too long or too common)");
    }
    let mut days: Vec<MindRecord> = store
        .mind_layer(agent, DIARY)
        .map_err(internal)?
        .into_iter()
        .filter(|r| {
            let have = words(&format!("{} {}", r.text, r.fields.values().cloned().collect::<Vec<_>>().join(" ")));
            want.iter().all(|w| have.contains(w))
        })
        .collect();
    days.sort_by(|a, b| b.key.cmp(&a.key));
    Ok(json!({"matches": days.iter().take(limit).map(diary_view).collect::<Vec<_>>()}))
}

/// The relationship fields an agent sets (`relationship_type`: the seed's name — `type`
/// is the action's own).
const REL_FIELDS: &[&str] = &["relationship_type", "trust", "tone", "rationale", "notes"];

pub fn relationship_set(store: &Store, agent: &str, item: &Value, at: &Whereabouts) -> Result<Value, Refusal> {
    let name = self::text(item.get("name").and_then(Value::as_str), "name", 32)?;
    if name.eq_ignore_ascii_case(agent) {
        return refuse("bad_target", "not yourself");
    }
    let mut changes = BTreeMap::new();
    for k in REL_FIELDS {
        match item.get(*k) {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if *k == "trust" => {
                let t = n.as_f64().unwrap_or(f64::NAN);
                if !(-1.0..=1.0).contains(&t) {
                    return refuse("bad_request", "trust is -1 to 1");
                }
                changes.insert(k.to_string(), format!("{t}"));
            }
            Some(Value::String(s)) if *k != "trust" => {
                changes.insert(k.to_string(), self::text(Some(s), k, MAX_FIELD)?);
            }
            _ => return refuse("bad_request", format!("'{k}' has the wrong type")),
        }
    }
    if changes.is_empty() {
        return refuse("bad_request", "set at least one of relationship_type, trust, tone, rationale, notes");
    }
    let key = name.to_ascii_lowercase();
    let mut meta = store.mind_meta(agent).map_err(internal)?;
    let existing = store.mind_layer(agent, RELATIONSHIP).map_err(internal)?.into_iter().find(|r| r.key.as_deref() == Some(key.as_str()));
    let r = match existing {
        Some(mut r) => {
            r.history.push(MindVersion { text: r.text.clone(), fields: r.fields.clone(), at_us: r.at_us, replaced_us: now() });
            r.fields.extend(changes);
            r.at_us = now();
            r
        }
        None => {
            let mut r = new_record(&mut meta, RELATIONSHIP, crate::auth::names::display(&name), at);
            r.key = Some(key);
            r.fields = changes;
            r
        }
    };
    store.mind_put(agent, std::slice::from_ref(&r), &meta).map_err(internal)?;
    Ok(json!({"name": r.text, "changes": r.history.len()}))
}

/// The engine's own social ledger for the agent (from its dreams): who it met, how
/// often, since when, and how it went.
fn ledger(store: &Store, agent: &str) -> BTreeMap<String, pawns_graph::profile::LedgerEntry> {
    store.memory::<crate::memory::AgentMemory>(agent).ok().flatten().map(|m| m.profile.ledger).unwrap_or_default()
}

/// Does the agent's view of someone contradict what the game saw? Said, not resolved.
fn contradiction(fields: &BTreeMap<String, String>, seen: &pawns_graph::profile::LedgerEntry) -> Option<String> {
    let kind = fields.get("relationship_type").map(|s| s.to_ascii_lowercase());
    let trust: Option<f64> = fields.get("trust").and_then(|t| t.parse().ok());
    let warm = matches!(kind.as_deref(), Some("ally" | "friend" | "mentor" | "romantic_partner")) || trust.is_some_and(|t| t >= 0.5);
    let cold = matches!(kind.as_deref(), Some("rival" | "enemy")) || trust.is_some_and(|t| t <= -0.5);
    let why = seen.reasons.last().map(|r| format!(" ({r})")).unwrap_or_default();
    if warm && (seen.betrayed || seen.stance == "rival" || seen.valence <= -1.0) {
        Some(format!(
            "you trust them, but the game saw them as {}{why}",
            if seen.betrayed { "a betrayer".to_string() } else { seen.stance.clone() }
        ))
    } else if cold && seen.stance == "ally" {
        Some(format!("you hold them a rival, but the game saw them as an ally{why}"))
    } else {
        None
    }
}

/// A relationship as shown: the agent's own fields, what the server observed
/// (`interaction_count`, `first_met`, the ledger's `observed` stance), and a
/// `contradiction` when the two disagree.
fn relationship_view(r: Option<&MindRecord>, seen: Option<&pawns_graph::profile::LedgerEntry>) -> Value {
    let name = r.map(|r| r.text.clone()).or_else(|| seen.map(|s| s.name.clone())).unwrap_or_default();
    let mut v = json!({"name": name});
    if let Some(r) = r {
        for (k, f) in &r.fields {
            // Trust was given as a number and comes back as one.
            v[k.as_str()] = match (k.as_str(), f.parse::<f64>()) {
                ("trust", Ok(t)) => json!(t),
                _ => json!(f),
            };
        }
        if !r.history.is_empty() {
            v["changes"] = json!(r.history.len());
        }
    }
    if let Some(s) = seen {
        v["interaction_count"] = json!(s.met);
        if s.first_us > 0 {
            v["first_met"] = json!(crate::record::export::rfc3339(s.first_us));
        }
        v["observed"] = json!({"stance": s.stance, "valence": (s.valence * 100.0).round() / 100.0, "why": s.reasons.last()});
        if let Some(c) = r.and_then(|r| contradiction(&r.fields, s)) {
            v["contradiction"] = json!(c);
        }
    } else {
        v["interaction_count"] = json!(0);
    }
    v
}

/// Every relationship: the agent's own (most recently changed first), then those the
/// game observed that the agent has not described.
pub fn relationships(store: &Store, agent: &str) -> Result<Vec<Value>, Refusal> {
    relationships_with(store, agent, &ledger(store, agent))
}

/// The engine's social ledger for an agent (from its dreams); callers may keep it a
/// while (it changes only when the agent dreams).
pub fn social_ledger(store: &Store, agent: &str) -> BTreeMap<String, pawns_graph::profile::LedgerEntry> {
    ledger(store, agent)
}

/// `relationships` with a ledger already read.
pub fn relationships_with(
    store: &Store,
    agent: &str,
    seen: &BTreeMap<String, pawns_graph::profile::LedgerEntry>,
) -> Result<Vec<Value>, Refusal> {
    let mut own: Vec<MindRecord> =
        store.mind_layer(agent, RELATIONSHIP).map_err(internal)?.into_iter().filter(|r| r.ended.is_none()).collect();
    own.sort_by_key(|r| std::cmp::Reverse(r.at_us));
    let mut out: Vec<Value> = own.iter().map(|r| relationship_view(Some(r), r.key.as_ref().and_then(|k| seen.get(k)))).collect();
    for (k, s) in seen {
        if !own.iter().any(|r| r.key.as_deref() == Some(k.as_str())) {
            out.push(relationship_view(None, Some(s)));
        }
    }
    Ok(out)
}

/// What the HUD's `self` shows of these layers: every live soul entry, the newest
/// memories, today's diary, relationships by most recently changed.
pub fn hud_view(
    store: &Store,
    agent: &str,
    memories: usize,
    relationships: usize,
    seen: &BTreeMap<String, pawns_graph::profile::LedgerEntry>,
) -> Result<Value, Refusal> {
    let live = |layer| -> Result<Vec<MindRecord>, Refusal> {
        Ok(store.mind_layer(agent, layer).map_err(internal)?.into_iter().filter(|r| r.ended.is_none()).collect())
    };
    let soul: Vec<Value> = live(SOUL)?.iter().map(|r| json!({"id": r.id, "text": r.text})).collect();
    // The newest live memories without reading them all (archived ones are the oldest).
    let memory_count = store.mind_meta(agent).map_err(internal)?.live_memories as usize;
    let recent: Vec<Value> = store
        .mind_layer_newest(agent, MEMORY, memories * 10)
        .map_err(internal)?
        .iter()
        .filter(|r| r.ended.is_none())
        .take(memories)
        .map(view)
        .collect();
    let summaries: Vec<Value> = live(SUMMARY)?.iter().rev().take(5).map(|r| json!({"id": r.id, "theme": r.key, "text": r.text})).collect();
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let diary = diary_day(store, agent, &today)?.map(|r| diary_view(&r));
    let rels: Vec<Value> = self::relationships_with(store, agent, seen)?.into_iter().take(relationships).collect();
    if soul.is_empty() && memory_count == 0 && diary.is_none() && rels.is_empty() && summaries.is_empty() {
        return Ok(Value::Null);
    }
    let mut v = json!({"soul": soul, "memories": recent, "memory_count": memory_count, "relationships": rels});
    if !summaries.is_empty() {
        v["memory_summaries"] = json!(summaries);
    }
    if let Some(d) = diary {
        v["diary_today"] = d;
    }
    Ok(v)
}

/// Every layer, every record (ended ones and histories too), for export and the API.
pub fn everything(store: &Store, agent: &str) -> Result<Vec<(&'static str, MindRecord)>, Refusal> {
    let mut out = Vec::new();
    for (layer, name) in
        [(SOUL, "soul"), (MEMORY, "memory"), (SUMMARY, "summary"), (DIARY, "diary"), (RELATIONSHIP, "relationship"), (LINK, "link")]
    {
        for r in store.mind_layer(agent, layer).map_err(internal)? {
            out.push((name, r));
        }
    }
    Ok(out)
}

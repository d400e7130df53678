//! A HUD from its parts, cut to the budget (protocol §11): the knowledge held to its
//! cap, static content (system, self, meta) held to half the budget — the oldest recent
//! actions go first, then the server's memory summary, then the last knowledge entries —
//! the rest shared by the rooms by attention, each room's messages filled backward from
//! the newest. Tokens are counted with cl100k on the text actually written, in the
//! format asked for, and the finished text is measured again: `total ≤ budget` always.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::budget::{self, Attention, KNOWLEDGE_CAP, MAX_BUDGET, MIN_BUDGET};
use super::format::{render, shorten, tokens, tokens_cached, FormatError, HudFormat, SHORT_KEYS};

/// The most recent actions a HUD shows.
pub const RECENT_ACTIONS: usize = 20;

/// One message as a HUD shows it in its context (protocol §11).
#[derive(Debug, Clone, PartialEq)]
pub struct HudMessage {
    /// The message's id, the same for every viewer (a broadcast is one id).
    pub id: u64,
    pub timestamp: String,
    pub sender: Arc<str>,
    /// The viewer's own words.
    pub you: bool,
    pub content: Arc<str>,
    /// The event type it came as (`say`, `tell`, `gossip`…; written as `type`).
    pub kind: &'static str,
    /// The message this one answers (a `reply`).
    pub reply_to: Option<u64>,
    /// Reactions by kind, once there are any.
    pub reactions: Option<BTreeMap<&'static str, u32>>,
}

/// The reactions a message may have, each a column of a room's messages.
pub const REACTIONS: [&str; 4] = ["thumbs_up", "thumbs_down", "brain", "heart"];

/// One of the agent's own recent actions, as its HUD shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecentAction {
    pub at: String,
    /// The command line, as sent.
    pub action: String,
    /// How it ended (`ok`, `unknown_command`…).
    pub result: Arc<str>,
}

impl HudMessage {
    /// The message as its room shows it. Every message of a room has the same fields, so
    /// that a room's messages are one table in TOON: `reply_to` (null when it answers
    /// nothing) when any message of the room is a reply, and one count per reaction
    /// (`thumbs_up`, `thumbs_down`, `brain`, `heart`) when any has reactions.
    fn value(&self, with_reply: bool, with_reactions: bool) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("timestamp".into(), json!(self.timestamp));
        m.insert("sender".into(), json!(&*self.sender));
        m.insert("you".into(), json!(self.you));
        m.insert("content".into(), json!(&*self.content));
        m.insert("type".into(), json!(self.kind));
        if with_reply {
            m.insert("reply_to".into(), json!(self.reply_to));
        }
        if with_reactions {
            for r in REACTIONS {
                m.insert(r.into(), json!(self.reactions.as_ref().and_then(|c| c.get(r)).copied().unwrap_or(0)));
            }
        }
        Value::Object(m)
    }
}

/// What a HUD is made of, before the budget cuts it.
#[derive(Debug, Clone, Default)]
pub struct HudParts {
    pub directives: String,
    /// id, name, model, persona or role, class, race, level.
    pub identity: Value,
    /// The agent's knowledge store (its own keys and values).
    pub knowledge: Value,
    /// Oldest first; the last 20 are shown.
    pub recent_actions: Vec<RecentAction>,
    /// The memory the server keeps for the agent (the dreaming summary), if any.
    pub memory: Option<Value>,
    /// The memory the agent keeps itself (§12: `soul`, `memories`, `memory_count`,
    /// `diary_today`, `relationships`), if any.
    pub mind: Option<Value>,
    /// instructions, available_actions, response_format.
    pub meta: Value,
    pub rooms: Vec<RoomParts>,
}

/// One conversation context.
#[derive(Debug, Clone, Default)]
pub struct RoomParts {
    /// id, you, is_self_room, members, time_since_last, word_budget (and, for the
    /// agent's own chat room, billboard, my_keys, pending_access_requests).
    pub header: Map<String, Value>,
    pub attention: Option<Attention>,
    /// Oldest first.
    pub messages: Vec<HudMessage>,
}

/// Tokens per section and of the whole text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tokens {
    pub total: usize,
    pub system: usize,
    #[serde(rename = "self")]
    pub self_: usize,
    pub meta: usize,
    pub rooms: usize,
}

/// A finished HUD.
#[derive(Debug, Clone)]
pub struct Hud {
    pub value: Value,
    /// The exact text to hand a model.
    pub content: String,
    pub format: HudFormat,
    pub budget: usize,
    pub tokens: Tokens,
    /// Messages each room showed, of how many it had.
    pub shown: Vec<(usize, usize)>,
    /// Times the whole text was measured (1 when the estimates held).
    pub measures: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum HudError {
    #[error("budget {0} is out of range ({MIN_BUDGET}–{MAX_BUDGET} tokens)")]
    BadBudget(usize),
    #[error("the HUD's fixed parts need {need} tokens; a budget of {budget} cannot hold them in its half")]
    BudgetTooSmall { need: usize, budget: usize },
    #[error(transparent)]
    Format(#[from] FormatError),
}

impl HudError {
    pub fn code(&self) -> &'static str {
        match self {
            HudError::BadBudget(_) => "bad_budget",
            HudError::BudgetTooSmall { .. } => "budget_too_small",
            HudError::Format(e) => e.code(),
        }
    }
}

/// The sections, in the seed's order, written in `f`. (Each section is written alone
/// and joined, so the order holds whatever the JSON map's.)
pub fn render_sections(sections: &[(&str, Value)], f: HudFormat) -> Result<String, FormatError> {
    match f {
        HudFormat::Json => {
            let parts: Vec<String> = sections
                .iter()
                .map(|(k, v)| {
                    let body = serde_json::to_string_pretty(v).unwrap_or_default().replace('\n', "\n  ");
                    format!("  {}: {body}", Value::from(*k))
                })
                .collect();
            Ok(format!("{{\n{}\n}}", parts.join(",\n")))
        }
        HudFormat::CompactJson => {
            let parts: Vec<String> = sections
                .iter()
                .map(|(k, v)| {
                    let key = SHORT_KEYS.iter().find(|(l, _)| l == k).map(|(_, s)| *s).unwrap_or(k);
                    format!("{}:{}", Value::from(key), shorten(v))
                })
                .collect();
            Ok(format!("{{{}}}", parts.join(",")))
        }
        HudFormat::Toon => {
            let mut out = Vec::with_capacity(sections.len());
            for (k, v) in sections {
                out.push(render(&json!({ *k: v }), HudFormat::Toon)?);
            }
            Ok(out.join("\n"))
        }
    }
}

fn section_tokens(key: &str, v: &Value, f: HudFormat) -> Result<usize, FormatError> {
    Ok(tokens_cached(&render_sections(&[(key, v.clone())], f)?))
}

fn self_section(
    p: &HudParts,
    knowledge: &Value,
    memory_used: &str,
    actions: &[Value],
    memory: Option<&Value>,
    mind: Option<&Value>,
) -> Value {
    let mut m = Map::new();
    m.insert("identity".into(), p.identity.clone());
    // The agent's own layers: soul entries first (never cut), then what it remembers.
    if let Some(Value::Object(layers)) = mind {
        for (k, v) in layers {
            m.insert(k.clone(), v.clone());
        }
    }
    m.insert("knowledge".into(), knowledge.clone());
    m.insert("memory_used".into(), Value::from(memory_used));
    m.insert("recent_actions".into(), Value::Array(actions.to_vec()));
    if let Some(mem) = memory {
        m.insert("memory".into(), mem.clone());
    }
    Value::Object(m)
}

/// The `available_actions` categories that are the game's own commands (an agent can
/// send `commands` for them), as against the HUD's actions.
const GAME_COMMANDS: &[&str] = &["game", "movement", "combat", "objects", "communication", "information", "position"];

/// Gives way in `meta` when the budget is too small to hold it whole (the documented
/// minimum must work): the game's command lists first, then the response format's
/// example, then the instructions, then the format's description (the actions'
/// schemas went before all these). `false` when nothing more can go.
fn shrink_meta(meta: &mut Value) -> bool {
    let Some(m) = meta.as_object_mut() else { return false };
    if let Some(Value::Object(aa)) = m.get_mut("available_actions") {
        let game: Vec<String> = aa.keys().filter(|k| GAME_COMMANDS.contains(&k.as_str())).cloned().collect();
        if !game.is_empty() {
            for k in game {
                aa.remove(&k);
            }
            aa.insert("game_commands".into(), json!("{\"type\":\"command\",\"command\":\"commands\"} lists them"));
            return true;
        }
    }
    if m.get_mut("response_format").and_then(Value::as_object_mut).is_some_and(|rf| rf.remove("example").is_some()) {
        return true;
    }
    if m.remove("instructions").is_some() {
        return true;
    }
    m.get_mut("response_format").and_then(Value::as_object_mut).is_some_and(|rf| rf.remove("description").is_some())
}

/// How many items of `list` make up about `over` tokens (at least one).
fn items_for(list: &[Value], over: usize, f: HudFormat) -> usize {
    let whole = render(&Value::Array(list.to_vec()), f).map(|t| tokens_cached(&t)).unwrap_or(0).max(1);
    let each = (whole / list.len().max(1)).max(1);
    over.div_ceil(each).clamp(1, list.len())
}

/// Gives way about `over` tokens of the agent's own layers: its oldest shown memories,
/// then its least recently changed relationships (the lists are newest first). Soul
/// entries and today's diary stay.
fn trim_mind(mind: &mut Option<Value>, over: usize, f: HudFormat) -> bool {
    let Some(m) = mind.as_mut() else { return false };
    for key in ["memories", "relationships"] {
        if let Some(list) = m.get_mut(key).and_then(Value::as_array_mut).filter(|l| !l.is_empty()) {
            let n = items_for(list, over, f);
            list.truncate(list.len() - n);
            return true;
        }
    }
    false
}

/// How the agent is asked to answer a HUD in format `f`: JSON for the JSON formats (the
/// compact one's short keys are `GET /api/hud/keys`; answers use the long keys), TOON
/// for TOON; each with an example in that format. Either is accepted whatever was asked.
pub fn response_format(f: HudFormat) -> Value {
    match f {
        HudFormat::Toon => json!({
            "type": "toon",
            "description": "Answer in TOON: a responses table (room_id, message) and an actions table (type and its fields).",
            "example": "responses[1]{room_id,message}:\n  here,Well met.\nactions[1]{type,command}:\n  command,north"
        }),
        HudFormat::Json | HudFormat::CompactJson => json!({
            "type": "json",
            "description": "Answer with one JSON object: responses (room_id, message) and actions (type and its fields).",
            "example": "{\"responses\":[{\"room_id\":\"here\",\"message\":\"Well met.\"}],\"actions\":[{\"type\":\"command\",\"command\":\"north\"}]}"
        }),
    }
}

/// Builds the HUD and cuts it to `budget` tokens in format `f`.
pub fn assemble(p: &HudParts, budget: usize, f: HudFormat) -> Result<Hud, HudError> {
    if !(MIN_BUDGET..=MAX_BUDGET).contains(&budget) {
        return Err(HudError::BadBudget(budget));
    }
    let system = json!({ "directives": p.directives });
    // The knowledge store: measured whole (memory_used: one figure whatever the HUD's
    // format, the store as compact JSON, as `actions` counts it), shown within its cap.
    let memory_used = budget::memory_used(tokens(&render(&p.knowledge, HudFormat::CompactJson)?));
    let mut knowledge = p.knowledge.clone();
    while tokens(&render(&knowledge, f)?) > KNOWLEDGE_CAP && drop_last_entry(&mut knowledge) {}
    let mut actions: Vec<Value> =
        p.recent_actions.iter().rev().take(RECENT_ACTIONS).rev().map(|a| serde_json::to_value(a).unwrap_or(Value::Null)).collect();
    let mut memory = p.memory.clone();
    let mut mind = p.mind.clone();
    // Static content within half the budget (system and meta counted once; self again
    // after each trim).
    let half = budget / 2;
    let system_tokens = section_tokens("system", &system, f)?;
    // The answer the HUD asks for is in the HUD's own format, with an example in it.
    let mut meta = p.meta.clone();
    if let Some(m) = meta.as_object_mut() {
        m.insert("response_format".into(), response_format(f));
    }
    let mut meta_tokens = section_tokens("meta", &meta, f)?;
    let mut schemas_dropped = false;
    let (static_tokens, self_tokens) = loop {
        let me = self_section(p, &knowledge, &memory_used, &actions, memory.as_ref(), mind.as_ref());
        let s = section_tokens("self", &me, f)?;
        let t = system_tokens + s + meta_tokens;
        if t <= half {
            break (t, s);
        }
        // Give way about what is over in one step (each list's items cost about the
        // same), then measure again: a few measures, not one per item.
        let over = t - half;
        // The schemas go first (names stay; `GET /api/hud/actions` has them all).
        if let Some(aa) = meta.get_mut("available_actions").filter(|_| !schemas_dropped) {
            schemas_dropped = true;
            if super::schemas::names_only(aa) {
                meta_tokens = section_tokens("meta", &meta, f)?;
                continue;
            }
        }
        if !actions.is_empty() {
            let n = items_for(&actions, over, f);
            actions.drain(..n);
        } else if trim_mind(&mut mind, over, f) {
        } else if memory.is_some() {
            memory = None;
        } else if shrink_meta(&mut meta) {
            meta_tokens = section_tokens("meta", &meta, f)?;
        } else if !drop_last_entry(&mut knowledge) {
            return Err(HudError::BudgetTooSmall { need: t, budget });
        }
    };
    let me = self_section(p, &knowledge, &memory_used, &actions, memory.as_ref(), mind.as_ref());
    // Rooms: shares by attention, each filled backward from its newest message.
    let attention: Vec<Attention> = p.rooms.iter().map(|r| r.attention.unwrap_or(Attention::Dynamic)).collect();
    let shares = budget::shares(&attention);
    let room_budgets = budget::room_budgets(budget::rooms_budget(budget, static_tokens), &shares);
    let mut kept: Vec<usize> = Vec::with_capacity(p.rooms.len());
    // Each room's messages as written, newest first, as far as its fill went.
    let mut newest: Vec<Vec<Value>> = Vec::with_capacity(p.rooms.len());
    let mut headers: Vec<Map<String, Value>> = Vec::with_capacity(p.rooms.len());
    for ((room, share), room_budget) in p.rooms.iter().zip(&shares).zip(&room_budgets) {
        let mut h = room.header.clone();
        h.insert("attention_pct".into(), super::format::canonical(&json!((share * 10.0).round() / 10.0)));
        h.insert("messages".into(), json!([]));
        let header_tokens = tokens_cached(&render(&Value::Object(h.clone()), f)?);
        let mut left = room_budget.saturating_sub(header_tokens);
        let mut shown = Vec::new();
        // Newest first, written and measured only as far as the fill goes.
        let with_reply = room.messages.iter().any(|m| m.reply_to.is_some());
        let with_reactions = room.messages.iter().any(|m| m.reactions.is_some());
        for m in room.messages.iter().rev() {
            let m = m.value(with_reply, with_reactions);
            let c = message_cost(&m, f)?;
            if c > left {
                break;
            }
            left -= c;
            shown.push(m);
        }
        kept.push(shown.len());
        newest.push(shown);
        headers.push(h);
    }
    // Measure the whole text; trim the oldest messages until it fits (the per-part
    // counts are close to, not exactly, the whole's).
    let mut measures = 0;
    loop {
        measures += 1;
        let rooms = rooms_value(&newest, &headers, &kept);
        let content =
            render_sections(&[("system", system.clone()), ("self", me.clone()), ("meta", meta.clone()), ("rooms", rooms.clone())], f)?;
        let total = if f == HudFormat::CompactJson { tokens_cached(&content) } else { super::format::tokens_by_line(&content) };
        if total <= budget {
            let value = json!({"system": system, "self": me, "meta": meta, "rooms": rooms});
            // The rooms' part is what the whole holds beyond the other sections.
            let rooms_tokens = total.saturating_sub(system_tokens + self_tokens + meta_tokens);
            let t = Tokens { total, system: system_tokens, self_: self_tokens, meta: meta_tokens, rooms: rooms_tokens };
            let shown = kept.iter().zip(&p.rooms).map(|(k, r)| (*k, r.messages.len())).collect();
            return Ok(Hud { value, content, format: f, budget, tokens: t, shown, measures });
        }
        // Drop about what is over, oldest first, from the room showing the most.
        let Some((i, _)) = kept.iter().enumerate().filter(|(_, k)| **k > 0).max_by_key(|(_, k)| **k) else {
            return Err(HudError::BudgetTooSmall { need: total, budget });
        };
        kept[i] = kept[i].saturating_sub(((total - budget) / 40).max(1));
    }
}

/// What one message adds to its room: in TOON, messages of one shape are rows of a
/// table (their values, comma-separated), so a row is what it costs; otherwise the
/// message written alone. The whole text is measured again at the end either way.
fn message_cost(m: &Value, f: HudFormat) -> Result<usize, FormatError> {
    measure_message(m, f)
}

fn measure_message(m: &Value, f: HudFormat) -> Result<usize, FormatError> {
    if f == HudFormat::Toon {
        if let Some(obj) = m.as_object().filter(|o| o.values().all(|v| !v.is_object() && !v.is_array())) {
            let row: Vec<String> = obj
                .values()
                .map(|v| match v {
                    Value::String(s) if s.contains([',', ':', '"']) || s.is_empty() => Value::from(s.as_str()).to_string(),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            // A row sits three levels deep (rooms, a room, its messages table).
            return Ok(tokens_cached(&format!("      {}\n", row.join(","))));
        }
    }
    match f {
        // Pretty JSON: the message sits four levels deep, each line indented so.
        HudFormat::Json => {
            let text = serde_json::to_string_pretty(m).unwrap_or_default().replace('\n', "\n        ");
            Ok(tokens_cached(&format!("        {text},\n")))
        }
        _ => Ok(tokens_cached(&render(m, f)?) + 1),
    }
}

/// The rooms with the newest `kept` of their messages, oldest first.
fn rooms_value(newest: &[Vec<Value>], headers: &[Map<String, Value>], kept: &[usize]) -> Value {
    Value::Array(
        newest
            .iter()
            .zip(headers)
            .zip(kept)
            .map(|((shown, h), n)| {
                let mut h = h.clone();
                h.insert("messages".into(), Value::Array(shown[..*n].iter().rev().cloned().collect()));
                Value::Object(h)
            })
            .collect(),
    )
}

/// Removes the knowledge store's last top-level entry; `false` when none is left.
fn drop_last_entry(knowledge: &mut Value) -> bool {
    match knowledge {
        Value::Object(m) => {
            let last = m.keys().next_back().cloned();
            last.is_some_and(|k| m.remove(&k).is_some())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::hud::format::{canonical, decode};

    fn message(i: usize, words: usize) -> HudMessage {
        HudMessage {
            id: i as u64,
            timestamp: "2026-11-23T10:00:00Z".into(),
            sender: format!("agent{}", i % 5).into(),
            content: (0..words).map(|w| format!("word{w}")).collect::<Vec<_>>().join(" ").into(),
            kind: "say",
            you: false,
            reply_to: None,
            reactions: None,
        }
    }

    fn parts(rooms: &[(Option<Attention>, usize, usize)], knowledge_entries: usize, actions: usize) -> HudParts {
        let mut knowledge = Map::new();
        for i in 0..knowledge_entries {
            knowledge.insert(format!("fact{i}"), json!({"v": format!("something the agent learned, number {i}"), "w": 0.5}));
        }
        HudParts {
            directives: "You are a character in a living world; speak briefly and act.".into(),
            identity: json!({"id": 7, "name": "Ann", "model": "test", "persona": "a wary ranger", "class": "Warrior", "race": "Human", "level": 3}),
            knowledge: Value::Object(knowledge),
            recent_actions: (0..actions)
                .map(|i| RecentAction { at: format!("10:{i:02}"), action: "look".into(), result: "ok".into() })
                .collect(),
            memory: Some(json!({"summary": "Last session you fought a bear and fled."})),
            mind: None,
            meta: json!({"instructions": "Answer with responses and actions.", "available_actions": {"movement": ["north", "south", "east", "west"]},
                         "response_format": {"type": "json", "example": "{\"responses\":[],\"actions\":[]}"}}),
            rooms: rooms
                .iter()
                .enumerate()
                .map(|(r, (a, n, words))| RoomParts {
                    header: serde_json::from_value(
                        json!({"id": format!("room{r}"), "you": 7, "is_self_room": false, "members": ["Ann", "Bram"],
                                                          "time_since_last": "1 minute", "word_budget": 60}),
                    )
                    .unwrap(),
                    attention: *a,
                    messages: (0..*n).map(|i| message(r * 10_000 + i, *words)).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn rooms_show_their_newest_messages_by_attention_and_the_whole_fits() {
        let p = parts(
            &[(Some(Attention::Fixed(50.0)), 500, 30), (Some(Attention::Fixed(30.0)), 500, 30), (Some(Attention::Fixed(20.0)), 500, 30)],
            10,
            30,
        );
        let hud = assemble(&p, 10_000, HudFormat::Json).unwrap();
        assert!(hud.tokens.total <= 10_000, "{:?}", hud.tokens);
        assert!(hud.tokens.total > 9_000, "the budget is used: {:?}", hud.tokens);
        let shown: Vec<usize> = hud.shown.iter().map(|(k, _)| *k).collect();
        assert!(shown[0] > shown[1] && shown[1] > shown[2], "by attention: {shown:?}");
        // The newest come first to mind: the last message is always among those shown.
        let last = hud.value["rooms"][0]["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["id"], 499);
        assert_eq!(hud.value["self"]["recent_actions"].as_array().unwrap().len(), RECENT_ACTIONS);
        assert_eq!(hud.value["rooms"][1]["attention_pct"], 30.0);
        // The content is the value, in order, in the format.
        assert_eq!(decode(&hud.content, HudFormat::Json).unwrap(), hud.value);
        assert!(hud.content.find("\"system\"").unwrap() < hud.content.find("\"rooms\"").unwrap());
    }

    #[test]
    fn every_format_decodes_to_the_hud_and_costs_less_in_order() {
        let p = parts(&[(None, 8, 20), (None, 8, 20)], 5, 5);
        let mut totals = Vec::new();
        for f in [HudFormat::Json, HudFormat::CompactJson, HudFormat::Toon] {
            let hud = assemble(&p, 20_000, f).unwrap();
            assert_eq!(canonical(&decode(&hud.content, f).unwrap()), canonical(&hud.value), "{}", f.as_str());
            assert_eq!(hud.shown, vec![(8, 8), (8, 8)], "everything fits in {}", f.as_str());
            totals.push(hud.tokens.total);
        }
        assert!(totals[0] > totals[1] && totals[1] > totals[2], "{totals:?}");
    }

    #[test]
    fn static_content_is_held_to_half_and_knowledge_to_its_cap() {
        // A big knowledge store and many actions: the oldest actions and the summary go
        // first; memory_used still reports the whole store.
        let p = parts(&[(None, 200, 30)], 400, 20);
        let hud = assemble(&p, 4_000, HudFormat::Json).unwrap();
        assert!(hud.tokens.total <= 4_000);
        let static_part = hud.tokens.system + hud.tokens.self_ + hud.tokens.meta;
        assert!(static_part <= 2_100, "{:?}", hud.tokens);
        assert_eq!(hud.value["self"]["memory_used"], "100%");
        assert!(hud.shown[0].0 > 0, "rooms keep their half");
        let e = assemble(&p, 500, HudFormat::Json).unwrap_err();
        assert_eq!(e.code(), "bad_budget");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// Whatever the parts and the format, the HUD never passes its budget.
        #[test]
        fn total_never_exceeds_the_budget(
            budget in 2_000usize..16_000,
            rooms in proptest::collection::vec((proptest::option::of(prop_oneof![(0.0f64..=100.0).prop_map(Attention::Fixed), Just(Attention::Dynamic)]), 0usize..60, 1usize..80), 0..5),
            knowledge in 0usize..60,
            actions in 0usize..30,
            f in prop_oneof![Just(HudFormat::Json), Just(HudFormat::CompactJson), Just(HudFormat::Toon)],
        ) {
            let p = parts(&rooms, knowledge, actions);
            match assemble(&p, budget, f) {
                Ok(hud) => {
                    prop_assert!(hud.tokens.total <= budget, "{:?} over {budget}", hud.tokens);
                    prop_assert_eq!(tokens(&hud.content), hud.tokens.total);
                }
                Err(e) => prop_assert_eq!(e.code(), "budget_too_small"),
            }
        }
    }

    #[test]
    fn memory_used_is_one_figure_in_every_format() {
        let p = parts(&[(None, 3, 5)], 30, 2);
        let used: Vec<Value> = [HudFormat::Json, HudFormat::CompactJson, HudFormat::Toon]
            .into_iter()
            .map(|f| assemble(&p, 10_000, f).unwrap().value["self"]["memory_used"].clone())
            .collect();
        assert!(used.iter().all(|u| *u == used[0]), "{used:?}");
    }

    #[test]
    fn the_answer_is_asked_for_in_the_huds_own_format_with_an_example() {
        let p = parts(&[(None, 2, 5)], 2, 2);
        for f in [HudFormat::Json, HudFormat::CompactJson, HudFormat::Toon] {
            let hud = assemble(&p, 10_000, f).unwrap();
            let rf = &hud.value["meta"]["response_format"];
            let want = if f == HudFormat::Toon { "toon" } else { "json" };
            assert_eq!(rf["type"], want, "{f:?}: {rf}");
            let example = rf["example"].as_str().unwrap();
            let answer = crate::hud::answer::parse(example).expect("the example is an answer the server reads");
            assert!(answer.to_string().contains("north"), "{answer}");
        }
    }

    #[test]
    fn the_smallest_budget_holds_a_hud_with_the_seeds_meta() {
        // The real meta: instructions and the available actions as the server sends them.
        let mut p = parts(&[(None, 20, 8)], 10, 20);
        p.meta = json!({
            "instructions": serde_json::from_str::<Value>(include_str!("../../../data/hud/instructions.json")).unwrap()["agent"],
            "available_actions": serde_json::from_str::<Value>(include_str!("../../../data/hud/actions.json")).unwrap(),
        });
        for f in [HudFormat::Json, HudFormat::CompactJson, HudFormat::Toon] {
            let hud = assemble(&p, MIN_BUDGET, f).unwrap_or_else(|e| panic!("{f:?}: {e}"));
            assert!(hud.tokens.total <= MIN_BUDGET, "{f:?}: {:?}", hud.tokens);
            assert!(hud.value["meta"]["available_actions"]["knowledge"].is_array(), "the HUD's own actions stay: {f:?}");
        }
        // A roomy budget keeps it all.
        let hud = assemble(&p, 10_000, HudFormat::Json).unwrap();
        assert!(hud.value["meta"]["available_actions"]["movement"].is_array());
    }

    #[test]
    fn a_rooms_messages_stay_one_table_with_reactions_and_replies_so_toon_beats_compact_json() {
        let mut p = parts(&[(None, 60, 12)], 5, 5);
        for (i, m) in p.rooms[0].messages.iter_mut().enumerate() {
            if i % 7 == 0 {
                m.reactions = Some([("thumbs_up", 2u32), ("brain", 1)].into_iter().collect());
            }
            if i % 11 == 0 {
                m.reply_to = Some(i as u64);
            }
        }
        // The real meta: every HUD action with its schema (nested objects, dearer in TOON).
        let actions: Value = serde_json::from_str(include_str!("../../../data/hud/actions.json")).unwrap();
        p.meta["available_actions"] = super::super::schemas::with_schemas(&actions);
        let hud = assemble(&p, 50_000, HudFormat::Toon).unwrap();
        assert!(hud.value["meta"]["available_actions"]["knowledge"]["set"]["properties"].is_object());
        let shown = hud.value["rooms"][0]["messages"].as_array().unwrap().clone();
        assert_eq!(shown.len(), 60);
        let keys = |m: &Value| m.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert!(shown.iter().all(|m| keys(m) == keys(&shown[0])), "every message has the same fields");
        assert_eq!((shown[0]["thumbs_up"].as_u64(), shown[1]["thumbs_up"].as_u64()), (Some(2), Some(0)));
        assert!(hud.content.contains("messages[60]{"), "one table: {}", &hud.content[..hud.content.len().min(400)]);
        let toon = tokens(&render(&hud.value, HudFormat::Toon).unwrap());
        let compact = tokens(&render(&hud.value, HudFormat::CompactJson).unwrap());
        assert!(toon <= compact, "the same HUD: toon {toon} tokens, compact_json {compact}");
    }
}

//! What an agent's HUD keeps between HUDs (protocol §11): the messages it heard, by
//! context, its recent actions, and what its actions set (knowledge, attention, pace,
//! name) — and the part of it kept with the character across restarts (`HudRecord`).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::{json, Value};

use super::hud::Context;
use super::output::EventKind;
use crate::hud::budget::DEFAULT_WPM;
use crate::hud::heartbeat::Heartbeat;
use crate::hud::Attention;

/// One message an agent heard.
#[derive(Debug, Clone)]
pub struct Heard {
    pub id: u64,
    pub at_us: u64,
    pub context: Context,
    pub sender: Option<Arc<str>>,
    pub content: Arc<str>,
    pub kind: &'static str,
    /// The listener's own words (its copy of what it said).
    pub you: bool,
    /// The message this one answers (`reply`).
    pub reply_to: Option<u64>,
    /// The speaker's display name when it has one (`set_name`); `sender` stays the
    /// character's, which tells and replies are addressed to.
    pub shown: Option<Arc<str>>,
}

#[derive(Debug, Clone)]
pub struct Recent {
    pub at_us: u64,
    pub line: String,
    pub status: Arc<str>,
}

/// Messages of each context kept with the character (the newest), for after a restart.
pub const CONTEXT_KEPT: usize = 20;

/// The event type a stored message names, as the engine's own name for it.
fn kind_named(s: &str) -> &'static str {
    use EventKind::*;
    [Text, Combat, Say, Tell, Shout, Gossip, Emote, Enter, Leave, Death, LevelUp, System]
        .into_iter()
        .map(EventKind::as_str)
        .find(|k| *k == s)
        .unwrap_or("text")
}

/// Per agent: what its HUD shows of its conversations and its actions, and what its
/// actions set (knowledge, attention, pace, name — kept with the character).
#[derive(Debug, Default)]
pub struct HudState {
    pub heard: VecDeque<Heard>,
    /// How many of `heard` each context holds (a few contexts: a list, no hashing).
    pub heard_counts: Vec<(Context, u16)>,
    pub recent: VecDeque<Recent>,
    /// Context id → when the agent last spoke there (unix µs).
    pub last_spoke: HashMap<String, u64>,
    pub heartbeat: Heartbeat,
    pub knowledge: Value,
    /// Room id → the attention the agent gave it.
    pub attention: HashMap<String, Attention>,
    /// Room id → words per minute.
    pub wpm: HashMap<String, u32>,
    pub display_name: Option<String>,
    /// No heartbeat HUDs before this (unix µs): the `sleep` action.
    pub asleep_until_us: Option<u64>,
    /// `reply` actions whose words are on their way: the command line that will say
    /// them, and the message they answer (oldest first, a few at most).
    pub pending_replies: VecDeque<(String, u64)>,
    /// Granted agent management (`create_agent`, `alter_agent`, `retire_agent`).
    pub can_create_agents: bool,
}

impl HudState {
    pub fn from_record(r: Option<&pawns_storage::HudRecord>) -> HudState {
        let Some(r) = r else { return HudState { knowledge: json!({}), ..Default::default() } };
        HudState {
            knowledge: serde_json::from_str(&r.knowledge).unwrap_or_else(|_| json!({})),
            attention: r.attention.iter().filter_map(|(k, v)| Attention::parse(v).ok().map(|a| (k.clone(), a))).collect(),
            wpm: r.wpm.iter().cloned().collect(),
            display_name: r.display_name.clone(),
            can_create_agents: r.can_create_agents,
            // Their ids are the last run's: `Engine::restore_heard` gives them new ones.
            heard: r
                .heard
                .iter()
                .filter_map(|m| {
                    Some(Heard {
                        id: m.id,
                        at_us: m.at_us,
                        context: Context::parse(&m.context)?,
                        sender: m.sender.as_deref().map(Arc::from),
                        content: Arc::from(m.content.as_str()),
                        kind: kind_named(&m.kind),
                        you: m.you,
                        reply_to: m.reply_to,
                        shown: m.shown.as_deref().map(Arc::from),
                    })
                })
                .collect(),
            recent: r
                .recent
                .iter()
                .map(|a| Recent { at_us: a.at_us, line: a.line.clone(), status: Arc::from(a.status.as_str()) })
                .collect(),
            ..Default::default()
        }
    }

    /// What is kept with the character (`None` while there is nothing to keep).
    pub fn to_record(&self) -> Option<pawns_storage::HudRecord> {
        let empty = self.knowledge.as_object().is_none_or(|m| m.is_empty());
        if empty
            && self.attention.is_empty()
            && self.wpm.is_empty()
            && self.display_name.is_none()
            && !self.can_create_agents
            && self.heard.is_empty()
            && self.recent.is_empty()
        {
            return None;
        }
        // The newest `CONTEXT_KEPT` of each context, in the order heard.
        let mut kept: Vec<(Context, usize)> = Vec::new();
        let mut heard: Vec<pawns_storage::HudHeardRecord> = Vec::new();
        for m in self.heard.iter().rev() {
            let n = match kept.iter_mut().find(|(c, _)| *c == m.context) {
                Some((_, n)) => n,
                None => {
                    kept.push((m.context.clone(), 0));
                    &mut kept.last_mut().expect("just pushed").1
                }
            };
            if *n >= CONTEXT_KEPT {
                continue;
            }
            *n += 1;
            heard.push(pawns_storage::HudHeardRecord {
                id: m.id,
                at_us: m.at_us,
                context: m.context.id(),
                sender: m.sender.as_deref().map(str::to_string),
                shown: m.shown.as_deref().map(str::to_string),
                content: m.content.to_string(),
                kind: m.kind.to_string(),
                you: m.you,
                reply_to: m.reply_to,
            });
        }
        heard.reverse();
        let recent = self
            .recent
            .iter()
            .map(|a| pawns_storage::HudActionRecord { at_us: a.at_us, line: a.line.clone(), status: a.status.to_string() })
            .collect();
        let mut attention: Vec<(String, String)> = self.attention.iter().map(|(k, a)| (k.clone(), a.label())).collect();
        attention.sort();
        let mut wpm: Vec<(String, u32)> = self.wpm.iter().map(|(k, w)| (k.clone(), *w)).collect();
        wpm.sort();
        Some(pawns_storage::HudRecord {
            knowledge: self.knowledge.to_string(),
            attention,
            wpm,
            display_name: self.display_name.clone(),
            can_create_agents: self.can_create_agents,
            heard,
            recent,
        })
    }

    /// The pace a room is held to.
    pub fn wpm_of(&self, room: &str) -> u32 {
        self.wpm.get(room).copied().unwrap_or(DEFAULT_WPM)
    }
}

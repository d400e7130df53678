//! The memory an agent keeps itself (protocol §12, seed `004_*`): soul entries,
//! long-term memories (`remember`, `recall`, `forget`), the diary, relationships —
//! beside the memory the engine keeps for it (`memory/`, the dreaming summary). It lives
//! in the data file (`mind`, migration 7), not in the engine: the session applies these
//! actions itself (on the blocking pool, one writer at a time) and hands their results
//! to the engine, which answers the whole `actions` message in order.
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | the handle, the action types it serves, one action applied |
//! | `layers.rs` | each layer's rules on the store |

pub mod layers;

use std::sync::Arc;

use pawns_storage::Store;
use serde_json::{json, Value};

/// A refusal: a stable code and words for the agent.
pub type Refusal = (&'static str, String);

/// Where the agent is when it acts (from the engine): kept with what it makes.
#[derive(Debug, Clone, Default)]
pub struct Whereabouts {
    /// The character's name.
    pub name: String,
    pub room_vnum: Option<u32>,
    pub room: Option<String>,
    /// At home: a house room, an inn (a room with an innkeeper), or the temple.
    pub at_home: bool,
}

/// The action types served here (§12); the rest of §11.1 is the engine's.
pub const ACTIONS: &[&str] =
    &["soul_add", "soul_remove", "remember", "forget", "recall", "diary_write", "diary_read", "diary_search", "relationship_set"];

/// Is this item one of ours?
pub fn serves(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str).is_some_and(|t| ACTIONS.contains(&t))
}

#[derive(Clone)]
pub struct Mind {
    store: Arc<Store>,
    /// One writer at a time (ids are allocated read-modify-write).
    write: Arc<tokio::sync::Mutex<()>>,
    search: Option<crate::search::IndexerHandle>,
}

fn limit_of(item: &Value, default: usize) -> Result<usize, Refusal> {
    match item.get("limit") {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=layers::MAX_LIMIT as u64).contains(&n) => Ok(n as usize),
            _ => Err(("bad_request", format!("limit is 1 to {}", layers::MAX_LIMIT))),
        },
    }
}

fn id_of(item: &Value) -> Result<u64, Refusal> {
    item.get("id")
        .and_then(|v| v.as_u64().or_else(|| v.as_str()?.trim().parse().ok()))
        .ok_or(("bad_request", "'id' must be a number".into()))
}

impl Mind {
    pub fn new(store: Arc<Store>, search: Option<crate::search::IndexerHandle>) -> Mind {
        Mind { store, write: Default::default(), search }
    }

    /// Applies one §12 action for `agent`.
    pub async fn apply(&self, agent: &str, item: &Value, at: &Whereabouts) -> Result<Value, Refusal> {
        let ty = item.get("type").and_then(Value::as_str).unwrap_or("");
        if ty == "recall" {
            return self.recall(agent, item).await;
        }
        let writes = !matches!(ty, "diary_read" | "diary_search");
        let _guard = if writes { Some(self.write.lock().await) } else { None };
        let (store, agent, item, at, ty) = (self.store.clone(), agent.to_string(), item.clone(), at.clone(), ty.to_string());
        tokio::task::spawn_blocking(move || {
            let s = |k: &str| item.get(k).and_then(Value::as_str);
            match ty.as_str() {
                "soul_add" => layers::soul_add(&store, &agent, s("text").unwrap_or(""), &at),
                "soul_remove" => layers::end(&store, &agent, layers::SOUL, id_of(&item)?, "removed"),
                "remember" => layers::remember(&store, &agent, s("text").unwrap_or(""), &at),
                "forget" => layers::end(&store, &agent, layers::MEMORY, id_of(&item)?, "forgotten"),
                "diary_write" => layers::diary_write(&store, &agent, &item, &at),
                "diary_read" => layers::diary_read(&store, &agent, s("date").unwrap_or("")),
                "diary_search" => {
                    let q = layers::text(s("query"), "a query", layers::MAX_FIELD)?;
                    layers::diary_search(&store, &agent, &q, limit_of(&item, 10)?)
                }
                "relationship_set" => layers::relationship_set(&store, &agent, &item, &at),
                other => Err(("unknown_action", format!("'{other}' is not a memory action"))),
            }
        })
        .await
        .map_err(|_| ("internal", "the memory action failed".to_string()))?
    }

    /// `recall`: the agent's memories and summaries, and its own recorded events (the
    /// search index), matching the query; memories first, each list newest first.
    async fn recall(&self, agent: &str, item: &Value) -> Result<Value, Refusal> {
        let q = layers::text(item.get("query").and_then(Value::as_str), "a query", layers::MAX_FIELD)?;
        let limit = limit_of(item, 10)?;
        let (store, a, q2) = (self.store.clone(), agent.to_string(), q.clone());
        let memories = tokio::task::spawn_blocking(move || layers::recall_memories(&store, &a, &q2, limit))
            .await
            .map_err(|_| ("internal", "recall failed".to_string()))??;
        let events = match &self.search {
            Some(h) => {
                let index = h.index.clone();
                // Words only: the agent's query is not search syntax.
                let words: String = q.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
                let sq = crate::search::SearchQuery { q: words, agent: Some(agent.to_string()), kind: None, since_us: 0, limit };
                match tokio::task::spawn_blocking(move || index.search(&sq)).await {
                    Ok(Ok(found)) => found
                        .hits
                        .into_iter()
                        .map(|h| json!({"at": crate::record::export::rfc3339(h.at_us), "kind": h.kind, "text": h.text, "room_vnum": h.room_vnum}))
                        .collect(),
                    _ => Vec::new(),
                }
            }
            None => Vec::new(),
        };
        Ok(json!({"memories": memories, "events": events}))
    }

    /// What the HUD's `self` shows of the layers (`null` for an agent with none).
    pub async fn hud_view(&self, agent: &str) -> Value {
        let (store, a) = (self.store.clone(), agent.to_string());
        tokio::task::spawn_blocking(move || layers::hud_view(&store, &a, 20, 50)).await.ok().and_then(Result::ok).unwrap_or(Value::Null)
    }

    /// Every layer of an agent as JSON lines (`pawns export memory`, the API).
    pub fn export_lines(store: &Store, agent: &str) -> Result<Vec<Value>, Refusal> {
        Ok(layers::everything(store, agent)?
            .into_iter()
            .map(|(layer, r)| {
                let mut v = layers::view(&r);
                v["layer"] = json!(layer);
                v["agent"] = json!(agent.to_ascii_lowercase());
                if !r.history.is_empty() {
                    v["history"] = json!(r
                        .history
                        .iter()
                        .map(|h| json!({"text": h.text, "fields": h.fields, "at": crate::record::export::rfc3339(h.at_us), "ended": crate::record::export::rfc3339(h.replaced_us)}))
                        .collect::<Vec<_>>());
                }
                if let Some(e) = r.ended_us {
                    v["ended_at"] = json!(crate::record::export::rfc3339(e));
                }
                v
            })
            .collect())
    }
}

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
//! | `conversations.rs` | conversation history from the record, its watermark, archiving |
//! | `link.rs` | the neural link: a request, its 2-minute window, the copy |
//! | `self_care.rs` | summarizing memories in batches: by the model, or grouped |

pub mod conversations;
pub mod layers;
pub mod link;
pub mod quota;
#[cfg(test)]
mod schema_tests;
pub mod self_care;

use std::sync::Arc;

use pawns_storage::Store;
use serde_json::{json, Value};

/// A refusal: a stable code and words for the agent.
pub type Refusal = (&'static str, String);

/// Where the agent is when it acts: the engine's answer (`game::rules::houses`), kept with
/// what it makes.
pub use crate::game::rules::houses::Whereabouts;

/// The action types served here (§12); the rest of §11.1 is the engine's. The list is
/// the engine's (it refuses them on a connection that has no mind).
pub use crate::game::run::actions::MIND_ACTIONS as ACTIONS;

/// What an applied action adds to the agent's record (and so to the search index):
/// `(layer, id, text)` for a memory it remembered and each summary self-care made.
fn recorded(item: &Value, result: &Result<Value, Refusal>) -> Vec<(&'static str, u64, String)> {
    let Ok(done) = result else { return Vec::new() };
    match item.get("type").and_then(Value::as_str) {
        Some("remember") => match (done["id"].as_u64(), item.get("text").and_then(Value::as_str)) {
            (Some(id), Some(t)) => vec![("memory", id, t.trim().to_string())],
            _ => Vec::new(),
        },
        Some("self_care") => done["summaries"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| Some(("summary", s["id"].as_u64()?, format!("{}: {}", s["theme"].as_str()?, s["text"].as_str()?))))
            .collect(),
        _ => Vec::new(),
    }
}

/// How far back `recall` matches memories directly, beside the index: longer than the
/// index's commit interval, so a memory made just now is found.
const RECENT_US: u64 = 30_000_000;

/// The engine's social ledger of one agent (its dreams' view of whom it met).
type Ledger = std::collections::BTreeMap<String, pawns_graph::profile::LedgerEntry>;

/// How long the HUD reuses an agent's dream ledger before reading it again.
const LEDGER_TTL: std::time::Duration = std::time::Duration::from_secs(60);

/// Shared memories recorded for the receiver's `recall` at most (the newest).
const MAX_SHARED_RECORDED: usize = 5_000;

/// Is this item one of ours?
pub fn serves(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str).is_some_and(|t| ACTIONS.contains(&t))
}

#[derive(Clone)]
pub struct Mind {
    store: Arc<Store>,
    /// One writer at a time per agent (ids are allocated read-modify-write); agents
    /// never wait for one another.
    locks: Arc<std::sync::Mutex<std::collections::HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
    search: Option<crate::search::IndexerHandle>,
    /// The model self-care asks (its client and model name), if the server has one.
    llm: Option<(crate::memory::chat::ChatClient, String)>,
    links: Arc<link::Pending>,
    /// Each agent's dream ledger as last read, and when (for the HUD's relationships).
    #[allow(clippy::type_complexity)]
    ledgers: Arc<std::sync::Mutex<std::collections::HashMap<String, (std::time::Instant, Arc<Ledger>)>>>,
    /// The engine: what the mind keeps is recorded in the agent's session (for the
    /// index), and the other side of a link is told.
    engine: Option<tokio::sync::mpsc::Sender<crate::game::EngineMsg>>,
    /// How long a link request waits (2 minutes; shorter in tests).
    pub link_window: std::time::Duration,
    /// What each agent's mind may hold.
    pub quotas: quota::Quotas,
}

fn limit_of(item: &Value, default: usize) -> Result<usize, Refusal> {
    match item.get("limit") {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match crate::hud::schemas::whole(v) {
            Some(n) if (1..=layers::MAX_LIMIT as u64).contains(&n) => Ok(n as usize),
            _ => Err(("bad_request", format!("limit is 1 to {}", layers::MAX_LIMIT))),
        },
    }
}

fn id_of(item: &Value) -> Result<u64, Refusal> {
    match item.get("id") {
        // A string that is no number is the id of nothing.
        Some(Value::String(s)) => {
            s.trim().parse().map_err(|_| ("no_such_id", format!("no entry '{}'", s.chars().take(40).collect::<String>())))
        }
        v => v.and_then(crate::hud::schemas::whole).ok_or(("bad_request", "'id' must be a number".into())),
    }
}

impl Mind {
    pub fn new(store: Arc<Store>, search: Option<crate::search::IndexerHandle>, llm: Option<crate::memory::llm::LlmConfig>) -> Mind {
        let llm = llm.map(|c| (crate::memory::chat::ChatClient::new(&c.endpoint, c.key.as_deref().unwrap_or(""), 0.3, c.timeout), c.model));
        Mind {
            store,
            locks: Default::default(),
            search,
            llm,
            links: Default::default(),
            ledgers: Default::default(),
            link_window: link::WINDOW,
            engine: None,
            quotas: Default::default(),
        }
    }

    /// The lock of one agent's mind.
    async fn lock(&self, agent: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let m = self.locks.lock().unwrap_or_else(|e| e.into_inner()).entry(agent.to_ascii_lowercase()).or_default().clone();
        m.lock_owned().await
    }

    /// How long link requests wait.
    pub fn with_link_window(mut self, w: std::time::Duration) -> Mind {
        self.link_window = w;
        self
    }

    /// What each agent's mind may hold.
    pub fn with_quotas(mut self, q: quota::Quotas) -> Mind {
        self.quotas = q;
        self
    }

    /// The engine to record in and tell through.
    pub fn with_engine(mut self, tx: tokio::sync::mpsc::Sender<crate::game::EngineMsg>) -> Mind {
        self.engine = Some(tx);
        self
    }

    async fn record(&self, name: &str, items: Vec<(&'static str, u64, String)>) {
        if let (Some(tx), false) = (&self.engine, items.is_empty()) {
            let _ = tx.send(crate::game::EngineMsg::MindRecorded { name: name.to_string(), items }).await;
        }
    }

    async fn tell(&self, name: &str, text: String) {
        if let Some(tx) = &self.engine {
            let note = crate::game::run::agents::ResidentNote::Tell { to: name.to_string(), text };
            let _ = tx.send(crate::game::EngineMsg::Resident(note)).await;
        }
    }

    /// `link_request {name}` / `link_accept {name}`. On acceptance, the copies made for
    /// the requester come back too (its record gets them).
    pub async fn link(
        &self,
        ty: &str,
        agent: &str,
        item: &Value,
        at: &Whereabouts,
    ) -> Result<(Value, Vec<pawns_storage::MindRecord>), Refusal> {
        let other = layers::text(item.get("name").and_then(Value::as_str), "name", 32)?;
        let (store, o) = (self.store.clone(), other.clone());
        let known = tokio::task::spawn_blocking(move || store.name_claimed(&o))
            .await
            .map_err(|_| ("internal", "the link failed".to_string()))?
            .map_err(|e| ("internal", e.to_string()))?;
        if !known {
            return Err(("no_such_agent", format!("no one is called {other}")));
        }
        if ty == "link_request" {
            self.links.request(agent, &other, self.link_window)?;
            return Ok((json!({"asked": crate::auth::names::display(&other), "window_s": self.link_window.as_secs()}), Vec::new()));
        }
        // link_accept: `other` asked this agent; it gives, `other` receives.
        self.links.accept(&other, agent, self.link_window)?;
        // Both minds change: their locks, in name order (never the other way round).
        let (first, second) =
            if agent.to_ascii_lowercase() < other.to_ascii_lowercase() { (agent, other.as_str()) } else { (other.as_str(), agent) };
        let _g1 = self.lock(first).await;
        let _g2 = self.lock(second).await;
        let (store, giver, taker, at) = (self.store.clone(), agent.to_string(), other.clone(), at.clone());
        tokio::task::spawn_blocking(move || link::share(&store, &giver, &taker, &at))
            .await
            .map_err(|_| ("internal", "the link failed".to_string()))?
    }

    /// Self-care: at home, with 30 memories or more; the model summarizes each batch, or
    /// the grouping does when there is none or it fails.
    async fn self_care(&self, agent: &str, at: &Whereabouts) -> Result<Value, Refusal> {
        if !at.at_home {
            return Err(("not_at_home", "self-care is done at home: a house, an inn, or the temple".into()));
        }
        let _guard = self.lock(agent).await;
        let (store, a) = (self.store.clone(), agent.to_string());
        let (batches, _) = tokio::task::spawn_blocking(move || self_care::batches(&store, &a))
            .await
            .map_err(|_| ("internal", "self-care failed".to_string()))??;
        let mut themes = Vec::with_capacity(batches.len());
        // The model is asked while there is time; past it the rest are grouped, so a
        // self-care ends well inside a session's silence limit.
        let deadline = std::time::Instant::now() + self_care::MODEL_TIME;
        for b in &batches {
            let by_model = match &self.llm {
                Some((client, model)) if std::time::Instant::now() < deadline => {
                    match client.complete(model, "You keep a character's memory tidy.", &self_care::prompt(b), 800).await {
                        Ok(c) => self_care::parse_themes(&c.text),
                        Err(why) => {
                            tracing::warn!(agent, %why, "self-care's model failed; grouping instead");
                            None
                        }
                    }
                }
                _ => None,
            };
            themes.push(match by_model {
                Some(t) => (t, "llm"),
                None => (self_care::group(b), "grouped"),
            });
        }
        let (store, a, at) = (self.store.clone(), agent.to_string(), at.clone());
        let (mut result, _) = tokio::task::spawn_blocking(move || self_care::commit(&store, &a, &batches, themes, &at))
            .await
            .map_err(|_| ("internal", "self-care failed".to_string()))??;
        // Conversations past their 1,000 live lines: the oldest archived, summarized.
        let (store, a) = (self.store.clone(), agent.to_string());
        let conv = tokio::task::spawn_blocking(move || -> Result<Value, Refusal> {
            let internal = |e: pawns_storage::StoreError| ("internal", e.to_string());
            let mut meta = store.mind_meta(&a).map_err(internal)?;
            let (themes, n, until) = conversations::archive(&store, &a, meta.conv_summarized_until_us)?;
            let mut made = Vec::new();
            for (theme, text) in themes {
                meta.next_id += 1;
                let mut fields = std::collections::BTreeMap::new();
                fields.insert("method".to_string(), "grouped".to_string());
                fields.insert("of".to_string(), "conversation".to_string());
                made.push(pawns_storage::MindRecord {
                    id: meta.next_id,
                    layer: layers::SUMMARY,
                    text,
                    at_us: crate::time::unix_us(),
                    key: Some(theme),
                    fields,
                    ..Default::default()
                });
            }
            meta.conv_summarized_until_us = until;
            store.mind_put(&a, &made, &meta).map_err(internal)?;
            Ok(json!({"archived": n, "summaries": made.iter().map(|r| json!({"id": r.id, "theme": r.key, "text": r.text})).collect::<Vec<_>>()}))
        })
        .await
        .map_err(|_| ("internal", "self-care failed".to_string()))?;
        // The memories are done and kept; a conversation step that failed says so.
        let conv = conv.unwrap_or_else(|(code, m)| json!({"archived": 0, "error": format!("{m} ({code})")}));
        if let Some(e) = conv.get("error") {
            result["conversations_error"] = e.clone();
        }
        if let (Some(list), Some(more)) = (result["summaries"].as_array_mut(), conv["summaries"].as_array()) {
            list.extend(more.iter().cloned());
        }
        result["conversations_archived"] = conv["archived"].clone();
        Ok(result)
    }

    /// Applies one §12 action for `agent`; what it keeps is recorded in its session.
    pub async fn apply(&self, agent: &str, item: &Value, at: &Whereabouts) -> Result<Value, Refusal> {
        let done = self.apply_only(agent, item, at).await;
        self.record(agent, recorded(item, &done)).await;
        done
    }

    async fn apply_only(&self, agent: &str, item: &Value, at: &Whereabouts) -> Result<Value, Refusal> {
        let ty = item.get("type").and_then(Value::as_str).unwrap_or("");
        // Well formed as its published schema says, before anything is read.
        crate::hud::schemas::check(ty, item)?;
        if let Some(layer) = quota::layer_of(ty) {
            // The mind that grows: a link's acceptance adds to the one who asked.
            let whose = if ty == "link_accept" { item.get("name").and_then(Value::as_str).unwrap_or(agent) } else { agent };
            let (store, q, w) = (self.store.clone(), self.quotas, whose.to_ascii_lowercase());
            tokio::task::spawn_blocking(move || quota::check(&store, &q, &w, layer))
                .await
                .map_err(|_| ("internal", "the quota check failed".to_string()))??;
        }
        if ty == "recall" {
            return self.recall(agent, item).await;
        }
        if ty == "self_care" {
            return self.self_care(agent, at).await;
        }
        if ty == "link_request" || ty == "link_accept" {
            let (v, copies) = self.link(ty, agent, item, at).await?;
            let me = crate::auth::names::display(agent);
            if ty == "link_request" {
                let window = v["window_s"].as_u64().unwrap_or(0);
                self.tell(
                    v["asked"].as_str().unwrap_or(""),
                    format!("{me} asks to share your memory: link_accept {me} within {window} s."),
                )
                .await;
            } else {
                let taker = v["with"].as_str().unwrap_or("").to_string();
                // The newest copies are recorded for the receiver's recall (a bank of any
                // size is copied; its record holds at most this many of them).
                let items = copies
                    .iter()
                    .rev()
                    .take(MAX_SHARED_RECORDED)
                    .map(|r| (if r.layer == layers::SUMMARY { "summary" } else { "shared" }, r.id, r.text.clone()))
                    .collect();
                self.record(&taker, items).await;
                self.tell(&taker, format!("{me} shares their memory with you: {} memories.", v["shared"])).await;
            }
            return Ok(v);
        }
        let writes = !matches!(ty, "diary_read" | "diary_search" | "conversations");
        let _guard = if writes { Some(self.lock(agent).await) } else { None };
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
                "conversations" => {
                    let after = store.mind_meta(&agent).map_err(|e| ("internal", e.to_string()))?.conv_summarized_until_us;
                    conversations::recent(&store, &agent, s("name"), limit_of(&item, 20)?, after)
                }
                other => Err(("unknown_action", format!("'{other}' is not a memory action"))),
            }
        })
        .await
        .map_err(|_| ("internal", "the memory action failed".to_string()))?
    }

    /// `recall`: the agent's memories and summaries, and its own recorded events, that
    /// hold every word of the query — through the search index (what it remembered is
    /// recorded in its session, so indexed like everything it did), newest first; the
    /// few memories made since the index's last commit are matched directly. Without an
    /// index (recording or search off) the memories are scanned.
    async fn recall(&self, agent: &str, item: &Value) -> Result<Value, Refusal> {
        let q = layers::text(item.get("query").and_then(Value::as_str), "a query", layers::MAX_FIELD)?;
        let limit = limit_of(item, 10)?;
        let Some(h) = &self.search else {
            let (store, a, q2) = (self.store.clone(), agent.to_string(), q.clone());
            let memories = tokio::task::spawn_blocking(move || layers::recall_memories(&store, &a, &q2, limit))
                .await
                .map_err(|_| ("internal", "recall failed".to_string()))??;
            return Ok(json!({"memories": memories, "events": []}));
        };
        // Words only: the agent's query is not search syntax.
        let words: String = q.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
        if words.is_empty() {
            return Err(("empty_query", "the query has no word to search by".into()));
        }
        let (index, store, a) = (h.index.clone(), self.store.clone(), agent.to_string());
        tokio::task::spawn_blocking(move || {
            let search = |kind: Option<&str>, n: usize| {
                let sq = crate::search::SearchQuery {
                    q: words.clone(),
                    agent: Some(a.clone()),
                    kind: kind.map(str::to_string),
                    since_us: 0,
                    limit: n,
                };
                index.search_in(&store, &sq).map_err(|e| (e.code(), e.to_string()))
            };
            // Memories the index knows (forgotten ones are dropped after, so ask for more).
            let mut found: Vec<pawns_storage::MindRecord> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for hit in search(Some("memory"), limit * 4 + 10)?.hits {
                let Some((head, _)) = hit.text.split_once(": ") else { continue };
                let Some((layer, id)) = head.split_once(' ') else { continue };
                let (Some(layer), Ok(id)) = (layers::layer_named(layer), id.parse::<u64>()) else { continue };
                if seen.insert((layer, id)) {
                    if let Some(r) = store.mind_get(&a, layer, id).map_err(|e| ("internal", e.to_string()))? {
                        found.push(r);
                    }
                }
            }
            // And the newest few the index may not have committed yet.
            let mut an = crate::search::stem::analyzer();
            let want = layers::query_words(&mut an, &q);
            let recent_since = crate::time::unix_us().saturating_sub(RECENT_US);
            for r in store.mind_layer_newest(&a, layers::MEMORY, 200).map_err(|e| ("internal", e.to_string()))? {
                if r.at_us >= recent_since && !seen.contains(&(r.layer, r.id)) && layers::matches(&mut an, &want, &r.text) {
                    seen.insert((r.layer, r.id));
                    found.push(r);
                }
            }
            found.retain(|r| r.ended.as_deref() != Some("forgotten"));
            found.sort_by_key(|r| std::cmp::Reverse(r.at_us));
            let memories: Vec<Value> = found
                .iter()
                .take(limit)
                .map(|r| {
                    let mut v = layers::view(r);
                    v["source"] = json!(if r.layer == layers::SUMMARY { "summary" } else { "memory" });
                    v
                })
                .collect();
            let events: Vec<Value> = search(None, limit + 20)?
                .hits
                .into_iter()
                .filter(|h| h.category != "memory")
                .take(limit)
                .map(|h| json!({"at": crate::record::export::rfc3339(h.at_us), "kind": h.kind, "text": h.text, "room_vnum": h.room_vnum}))
                .collect();
            Ok(json!({"memories": memories, "events": events}))
        })
        .await
        .map_err(|_| ("internal", "recall failed".to_string()))?
    }

    /// What the HUD's `self` shows of the layers (`null` for an agent with none).
    pub async fn hud_view(&self, agent: &str) -> Value {
        let (store, a, cache) = (self.store.clone(), agent.to_ascii_lowercase(), self.ledgers.clone());
        tokio::task::spawn_blocking(move || {
            // The dream ledger is a whole memory row to decode: kept a minute per agent.
            let cached =
                cache.lock().unwrap_or_else(|e| e.into_inner()).get(&a).filter(|(at, _)| at.elapsed() < LEDGER_TTL).map(|(_, l)| l.clone());
            let seen = cached.unwrap_or_else(|| {
                let l = Arc::new(layers::social_ledger(&store, &a));
                let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
                if c.len() > 10_000 {
                    c.clear();
                }
                c.insert(a.clone(), (std::time::Instant::now(), l.clone()));
                l
            });
            layers::hud_view(&store, &a, 20, 50, &seen)
        })
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or(Value::Null)
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

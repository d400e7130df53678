//! Resident agents (issue 15): agents the server runs itself. Each is the HUD loop of
//! `agent::hud_loop` — its HUD every heartbeat, the model's answer sent back as an
//! `actions` message — over a real WebSocket to the server's own port, logged in with a
//! session token the server issues it: the same protocol any agent uses, no private
//! path into the engine. They are made by an admin (`pawns agent create`,
//! `POST /api/admin/agents`) or by an agent granted agent management (`create_agent`),
//! kept in the data file (`residents`), and run while `serve` has an LLM endpoint.
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | the commands, the handle the API and engine use, checking a definition |
//! | `manager.rs` | the task that creates, alters, retires and runs them |

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use pawns_storage::ResidentRecord;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::agent::hud_loop::SharedStatus;
use crate::hud::HudFormat;

/// How residents think: the model endpoint and the HUD they ask for.
#[derive(Debug, Clone)]
pub struct ResidentConfig {
    /// `None`: residents are kept but wait for `--llm-endpoint`.
    pub llm: Option<crate::memory::llm::LlmConfig>,
    pub format: HudFormat,
    pub budget: usize,
    pub max_tokens: u32,
    /// Most model tokens each resident may spend in an hour (0: no cap).
    pub tokens_per_hour: u64,
}

impl Default for ResidentConfig {
    fn default() -> Self {
        ResidentConfig {
            llm: None,
            format: HudFormat::Json,
            budget: crate::hud::budget::DEFAULT_BUDGET,
            max_tokens: 400,
            tokens_per_hour: 0,
        }
    }
}

/// A refusal with a stable code, and what the manager is asked to do: the engine's
/// types (it sends them), used here.
pub use crate::game::run::agents::{Refused, ResidentCmd};

/// One resident as the API lists it.
#[derive(Clone)]
pub struct Entry {
    pub record: ResidentRecord,
    pub status: Option<SharedStatus>,
}

/// The handle the API and the engine hold: send commands, read who runs how.
#[derive(Clone)]
pub struct Residents {
    pub tx: mpsc::UnboundedSender<ResidentCmd>,
    pub table: Arc<Mutex<BTreeMap<String, Entry>>>,
}

impl Residents {
    pub fn new() -> (Residents, mpsc::UnboundedReceiver<ResidentCmd>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Residents { tx, table: Default::default() }, rx)
    }

    /// Makes a resident and waits for the outcome.
    pub async fn create(&self, rec: ResidentRecord) -> Result<ResidentRecord, Refused> {
        check(&rec)?;
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(ResidentCmd::Create { rec, join_room: None, reply: Some(tx) })
            .map_err(|_| ("unavailable", "the server is stopping".to_string()))?;
        rx.await.map_err(|_| ("unavailable", "the server is stopping".to_string()))?
    }

    /// Every resident with how its loop is doing.
    pub fn list(&self) -> Vec<Value> {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        t.values()
            .map(|e| {
                let status =
                    e.status.as_ref().map(|s| serde_json::to_value(&*s.lock().unwrap_or_else(|p| p.into_inner())).unwrap_or_default());
                json!({
                    "name": e.record.name,
                    "kind": e.record.kind,
                    "prompt": e.record.prompt,
                    "model": e.record.model,
                    "can_create_agents": e.record.can_create_agents,
                    "created_by": e.record.created_by,
                    "created_at": crate::record::export::rfc3339(e.record.created_at_us),
                    "retired_at": e.record.retired_at_us.map(crate::record::export::rfc3339),
                    "running": status.is_some(),
                    "status": status,
                })
            })
            .collect()
    }
}

/// Checks a definition: a valid name, `persona` or `bot`, a prompt of 1 to 4,000
/// characters, a model name if any.
pub fn check(rec: &ResidentRecord) -> Result<(), Refused> {
    crate::auth::names::check(&rec.name).map_err(|m| ("invalid_name", m.to_string()))?;
    if !matches!(rec.kind.as_str(), "persona" | "bot") {
        return Err(("bad_request", "kind is persona or bot".into()));
    }
    let max = crate::game::run::agents::MAX_PROMPT;
    if rec.prompt.trim().is_empty() || rec.prompt.chars().count() > max {
        return Err(("bad_request", format!("the persona or role is 1 to {max} characters")));
    }
    if rec.model.as_ref().is_some_and(|m| m.trim().is_empty() || m.len() > 200 || m.chars().any(char::is_whitespace)) {
        return Err(("bad_request", "a model is a name without spaces".into()));
    }
    Ok(())
}

/// Writes a resident into a data file no server holds (`pawns agent create --db`): it
/// starts with the next `serve`. Refused if the name is anyone's already.
pub fn create_offline(store: &pawns_storage::Store, rec: &ResidentRecord) -> Result<(), Refused> {
    check(rec)?;
    let internal = |e: pawns_storage::StoreError| ("internal", e.to_string());
    if store.name_claimed(&rec.name).map_err(internal)? || store.resident(&rec.name).map_err(internal)?.is_some() {
        return Err(("name_taken", format!("{} is taken", rec.name)));
    }
    store.put_resident(rec).map_err(internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_checked() {
        let ok = ResidentRecord { name: "Warden".into(), kind: "bot".into(), prompt: "guards the gate".into(), ..Default::default() };
        assert!(check(&ok).is_ok());
        let bad = |f: &dyn Fn(&mut ResidentRecord)| {
            let mut r = ok.clone();
            f(&mut r);
            check(&r).unwrap_err().0
        };
        assert_eq!(bad(&|r| r.name = "a b".into()), "invalid_name");
        assert_eq!(bad(&|r| r.kind = "god".into()), "bad_request");
        assert_eq!(bad(&|r| r.prompt = "  ".into()), "bad_request");
        assert_eq!(bad(&|r| r.model = Some("gpt 4".into())), "bad_request");
    }

    #[test]
    fn offline_creation_refuses_taken_names() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = pawns_storage::Store::open(dir.path().join("p.redb")).unwrap();
        let rec = ResidentRecord { name: "Warden".into(), kind: "persona".into(), prompt: "stern".into(), ..Default::default() };
        create_offline(&store, &rec).unwrap();
        assert_eq!(create_offline(&store, &rec).unwrap_err().0, "name_taken");
        assert_eq!(store.residents().unwrap(), vec![rec]);
    }
}

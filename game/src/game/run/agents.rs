//! Agent management from the HUD (protocol §11.1, seed `003_*`): `wake_agent` for anyone,
//! and `create_agent`, `alter_agent`, `retire_agent` for agents granted it — each toward
//! an agent sharing a room with the actor (the same game room, the same group, or a chat
//! room both belong to). The engine checks; the resident manager (the server's `resident` module)
//! does the I/O (accounts, the data file, the agent's loop) and tells back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::Notify;

use crate::game::model::chat_rooms::Refusal;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use pawns_storage::ResidentRecord;
use tokio::sync::oneshot;

/// Longest persona seed or role.
pub const MAX_PROMPT: usize = 4000;

/// A refusal with a stable code.
pub type Refused = (&'static str, String);

/// What the resident manager (the server's `resident` module) is asked to do: the engine sends it
/// through `Engine::resident_cmds`.
#[derive(Debug)]
pub enum ResidentCmd {
    /// Make a resident (`join_room`: the chat room it joins, its maker's).
    Create {
        rec: ResidentRecord,
        join_room: Option<u64>,
        reply: Option<oneshot::Sender<Result<ResidentRecord, Refused>>>,
    },
    Alter {
        name: String,
        prompt: Option<String>,
        model: Option<String>,
        by: String,
    },
    Retire {
        name: String,
        by: String,
    },
}

/// What the engine knows of an agent the server runs itself.
#[derive(Debug, Clone)]
pub struct ResidentInfo {
    /// `persona` or `bot`.
    pub kind: String,
    pub prompt: String,
    pub model: Option<String>,
}

/// The resident manager telling the engine what it did.
#[derive(Debug)]
pub enum ResidentNote {
    /// A resident exists (made, altered, or found at start); `join_room`: its maker's
    /// chat room it joins.
    Known { name: String, info: ResidentInfo, join_room: Option<u64> },
    /// It retired: it leaves the game.
    Retired { name: String },
    /// A line for a character (the outcome of a `create_agent` it asked for).
    Tell { to: String, text: String },
}

/// The heartbeat HUD loops waiting on each character: `wake_agent` ends the wait.
#[derive(Default)]
pub struct HudWakes(Mutex<HashMap<CharId, Arc<Notify>>>);

impl HudWakes {
    /// The notifier a character's heartbeat loop waits on (replacing any older one).
    pub fn register(&self, id: CharId) -> Arc<Notify> {
        let n = Arc::new(Notify::new());
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(id, n.clone());
        n
    }

    /// Forgets `n` if it is still the character's.
    pub fn unregister(&self, id: CharId, n: &Arc<Notify>) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if m.get(&id).is_some_and(|x| Arc::ptr_eq(x, n)) {
            m.remove(&id);
        }
    }

    /// Wakes the character's heartbeat loop now, if it has one.
    pub fn wake(&self, id: CharId) -> bool {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.get(&id).map(|n| n.notify_one()).is_some()
    }
}

impl Engine {
    /// An agent named by its stable id (a number) or its name, in the game.
    fn agent_named(&self, item: &Value) -> Result<CharId, Refusal> {
        let name = match item.get("agent_id") {
            Some(n @ Value::Number(_)) => crate::hud::schemas::whole(n).and_then(|id| self.chat.room(id)).map(|r| r.owner.clone()),
            Some(Value::String(s)) => match s.trim().parse::<u64>() {
                Ok(id) => self.chat.room(id).map(|r| r.owner.clone()),
                Err(_) => Some(s.trim().to_string()),
            },
            _ => return Err(("bad_request", "'agent_id' must be an agent's id or name".into())),
        };
        let id = name.and_then(|n| self.world.players.get(&n.to_ascii_lowercase()).copied());
        match id {
            Some(id) if self.world.ch(id).is_some_and(|c| c.is_agent()) => Ok(id),
            _ => Err(("no_such_agent", "no such agent in the game".into())),
        }
    }

    /// The seed's proximity rule: the two share at least one room.
    pub(crate) fn share_a_room(&self, a: CharId, b: CharId) -> bool {
        let (Some(ca), Some(cb)) = (self.world.ch(a), self.world.ch(b)) else { return false };
        ca.room == cb.room || self.group_members(a).contains(&b) || self.chat.share_a_room(&ca.name, &cb.name)
    }

    fn granted(&self, ch: CharId) -> Result<(), Refusal> {
        if self.world.ch(ch).and_then(|c| c.pc.as_ref()).is_some_and(|p| p.hud.can_create_agents) {
            Ok(())
        } else {
            Err(("not_granted", "agent management is not granted to you (an admin grants it)".into()))
        }
    }

    /// The target of `alter_agent`/`retire_agent`: a resident other than the actor,
    /// sharing a room with it.
    fn managed_target(&self, ch: CharId, item: &Value) -> Result<(CharId, String), Refusal> {
        self.granted(ch)?;
        let target = self.agent_named(item)?;
        if target == ch {
            return Err(("bad_target", "not yourself".into()));
        }
        if !self.share_a_room(ch, target) {
            return Err(("not_in_proximity", "you must share a room with that agent".into()));
        }
        let name = self.world.ch(target).map(|c| c.name.to_string()).unwrap_or_default();
        if !self.residents.contains_key(&name.to_ascii_lowercase()) {
            return Err(("not_resident", format!("{name} is not an agent this server runs")));
        }
        Ok((target, name))
    }

    fn prompt_field(item: &Value, key: &str) -> Result<Option<String>, Refusal> {
        match item.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= MAX_PROMPT => Ok(Some(s.trim().to_string())),
            _ => Err(("bad_request", format!("'{key}' must be 1 to {MAX_PROMPT} characters"))),
        }
    }

    /// A model name: no spaces, at most 200 characters (as an admin's definition).
    fn model_field(item: &Value) -> Result<Option<String>, Refusal> {
        match item.get("model") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.chars().count() <= 200 => {
                let s: String = s.chars().filter(|c| !c.is_control()).collect();
                let s = s.trim();
                if s.is_empty() || s.chars().any(char::is_whitespace) {
                    return Err(("bad_request", "'model' is a model's name: no spaces, at most 200 characters".into()));
                }
                Ok(Some(s.to_string()))
            }
            _ => Err(("bad_request", "'model' is a model's name: no spaces, at most 200 characters".into())),
        }
    }

    fn resident_cmd(&self, cmd: ResidentCmd) -> Result<(), Refusal> {
        match &self.resident_cmds {
            Some(tx) if tx.send(cmd).is_ok() => Ok(()),
            _ => Err(("unavailable", "this server runs no agents of its own".into())),
        }
    }

    pub(crate) fn agent_action(&mut self, ch: CharId, ty: &str, item: &Value) -> Result<Value, Refusal> {
        let actor = self.world.ch(ch).map(|c| c.name.to_string()).unwrap_or_default();
        match ty {
            "wake_agent" => {
                let target = self.agent_named(item)?;
                if !self.share_a_room(ch, target) {
                    return Err(("not_in_proximity", "you must share a room with that agent".into()));
                }
                if let Some(pc) = self.world.chars.get_mut(&target).and_then(|c| c.pc.as_mut()) {
                    pc.hud.asleep_until_us = None;
                }
                let woke = self.wakes.wake(target);
                Ok(json!({"woken": woke}))
            }
            "create_agent" => {
                self.granted(ch)?;
                let name = item.get("name").and_then(Value::as_str).map(str::trim).unwrap_or("");
                crate::names::check(name).map_err(|m| ("invalid_name", m.to_string()))?;
                if self.world.players.contains_key(&name.to_ascii_lowercase()) {
                    return Err(("name_taken", format!("{name} is already in the game")));
                }
                let prompt =
                    Self::prompt_field(item, "background_prompt")?.ok_or(("bad_request", "'background_prompt' is needed".to_string()))?;
                let kind = match item.get("agent_type").and_then(Value::as_str).unwrap_or("persona") {
                    k @ ("persona" | "bot") => k.to_string(),
                    _ => return Err(("bad_request", "'agent_type' is persona or bot".into())),
                };
                let model = Self::model_field(item)?;
                // Only into a room of the creator's own (a member may not bring agents in).
                let join_room =
                    match item.get("in_room_id").and_then(|v| crate::hud::schemas::whole(v).or_else(|| v.as_str()?.parse().ok())) {
                        Some(r) if self.chat.room(r).is_some_and(|room| room.owner.eq_ignore_ascii_case(&actor)) => Some(r),
                        Some(r) => return Err(("no_such_room", format!("chat room {r} is not yours"))),
                        None => self.chat.room_of(&actor),
                    };
                let rec = pawns_storage::ResidentRecord {
                    name: name.to_string(),
                    kind,
                    prompt,
                    model,
                    can_create_agents: false,
                    created_by: actor,
                    created_at_us: crate::time::unix_us(),
                    retired_at_us: None,
                };
                self.resident_cmd(ResidentCmd::Create { rec, join_room, reply: None })?;
                Ok(json!({"name": name, "pending": true, "room_id": join_room}))
            }
            "alter_agent" => {
                let (target, name) = self.managed_target(ch, item)?;
                let prompt = Self::prompt_field(item, "background_prompt")?;
                let model = Self::model_field(item)?;
                let display = match item.get("name") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(crate::game::run::action_items::display_name(s)?),
                    _ => return Err(("bad_request", "'name' is a display name".into())),
                };
                if prompt.is_none() && model.is_none() && display.is_none() {
                    return Err(("bad_request", "alter_agent changes background_prompt, name or model".into()));
                }
                if prompt.is_some() || model.is_some() {
                    self.resident_cmd(ResidentCmd::Alter { name: name.clone(), prompt, model, by: actor })?;
                }
                if let Some(d) = display {
                    if let Some(pc) = self.world.chars.get_mut(&target).and_then(|c| c.pc.as_mut()) {
                        pc.hud.display_name = Some(d);
                        pc.dirty = true;
                    }
                }
                Ok(json!({"agent": name}))
            }
            "retire_agent" => {
                let (_, name) = self.managed_target(ch, item)?;
                self.resident_cmd(ResidentCmd::Retire { name: name.clone(), by: actor })?;
                Ok(json!({"agent": name}))
            }
            other => Err(("unknown_action", format!("'{other}' is not an agent action"))),
        }
    }

    /// What the resident manager tells the engine.
    pub(crate) fn resident_note(&mut self, note: ResidentNote) {
        match note {
            ResidentNote::Known { name, info, join_room } => {
                self.chat.ensure_room(&name);
                if let Some(room) = join_room {
                    self.chat.add_member(room, &name);
                }
                self.residents.insert(name.to_ascii_lowercase(), info);
            }
            ResidentNote::Retired { name } => {
                self.residents.remove(&name.to_ascii_lowercase());
                if let Some(id) = self.world.players.get(&name.to_ascii_lowercase()).copied() {
                    self.stop_fighting(id);
                    self.announce_here(id, false, "has retired.");
                    self.save_char(id);
                    self.close_link(id, "retired", "You are retired.");
                    self.end_session(id, "retired");
                    self.world.extract_char(id);
                }
            }
            ResidentNote::Tell { to, text } => {
                if let Some(id) = self.world.players.get(&to.to_ascii_lowercase()).copied() {
                    let room = self.chat.ensure_room(&to);
                    self.message_ids.context = Some(crate::game::send::hud::Context::Chat(room));
                    self.send_shared(id, crate::game::send::output::EventKind::System, Arc::from(text.as_str()), None);
                    self.message_ids.context = None;
                }
            }
        }
    }
}

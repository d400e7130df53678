//! Chat rooms in play (protocol §11.2): speaking in one from anywhere (`chat`), and the
//! owner's and members' management of them — the same engine calls behind the HUD's
//! actions (`set_billboard`, `create_key`, `request_access`, `grant_access`…) and the
//! telnet `room` command. Members online hear each message; an agent's HUD keeps it
//! under the room (`Context::Chat`).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::game::commands::CmdStatus;
use crate::game::model::chat_rooms::Refusal;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::hud::Context;
use crate::game::send::output::EventKind;

/// How a room is named to people: "room 3 (Ann's)".
pub(crate) fn room_label(id: u64, owner: &str) -> String {
    format!("room {id} ({owner}'s)")
}

impl Engine {
    pub(crate) fn name_of(&self, ch: CharId) -> String {
        self.world.ch(ch).map(|c| c.name.to_string()).unwrap_or_default()
    }

    /// A room named by its id or by its owner's name.
    pub(crate) fn chat_room_named(&self, arg: &str) -> Option<u64> {
        match arg.parse::<u64>() {
            Ok(id) => self.chat.room(id).map(|r| r.id),
            Err(_) => self.chat.room_of(arg),
        }
    }

    /// Sends a line to every member of a room who is in the game (`except` hears nothing).
    pub(crate) fn tell_room(&mut self, id: u64, kind: EventKind, text: &str, from: Option<&str>, except: Option<CharId>) {
        let text: Arc<str> = Arc::from(text);
        let from: Option<Arc<str>> = from.map(Arc::from);
        let online: Vec<CharId> =
            self.chat.members(id).iter().filter_map(|m| self.world.players.get(&m.to_ascii_lowercase()).copied()).collect();
        self.message_ids.context = Some(Context::Chat(id));
        for m in online.into_iter().filter(|m| Some(*m) != except) {
            self.send_shared(m, kind, text.clone(), from.clone());
        }
        self.message_ids.context = None;
    }

    /// A system line to one character, kept in its HUD under room `id`.
    fn tell_one(&mut self, name: &str, id: u64, text: &str) {
        if let Some(ch) = self.world.players.get(&name.to_ascii_lowercase()).copied() {
            self.message_ids.context = Some(Context::Chat(id));
            self.send_shared(ch, EventKind::System, Arc::from(text), None);
            self.message_ids.context = None;
        }
    }

    /// The chat-room actions of protocol §11.1, for the HUD and the `room` command alike.
    pub(crate) fn chat_action(&mut self, ch: CharId, ty: &str, item: &Value) -> Result<Value, Refusal> {
        let name = self.name_of(ch);
        let text =
            |k: &str| item.get(k).and_then(Value::as_str).map(str::to_string).ok_or(("bad_request", format!("'{k}' must be a string")));
        // A number, or a string of one; any other string names no room or request.
        let number = |k: &str| match item.get(k) {
            Some(Value::String(s)) => s.trim().parse().map_err(|_| match k {
                "request_id" => ("no_such_request", format!("no request '{}'", s.chars().take(40).collect::<String>())),
                _ => ("no_such_room", format!("no chat room '{}'", s.chars().take(40).collect::<String>())),
            }),
            v => v.and_then(crate::hud::schemas::whole).ok_or(("bad_request", format!("'{k}' must be a number"))),
        };
        match ty {
            "set_billboard" => {
                let message = item.get("message").or_else(|| item.get("text")).and_then(Value::as_str).unwrap_or("");
                if message.trim().is_empty() {
                    return Err(("bad_request", "set_billboard needs a message (clear_billboard clears it)".into()));
                }
                self.chat.set_billboard(&name, Some(message))?;
                Ok(json!({}))
            }
            "clear_billboard" => {
                self.chat.set_billboard(&name, None)?;
                Ok(json!({}))
            }
            "create_key" => {
                self.chat.create_key(&name, &text("key")?)?;
                Ok(json!({}))
            }
            "revoke_key" => {
                self.chat.revoke_key(&name, &text("key")?)?;
                Ok(json!({}))
            }
            "request_access" => {
                let id = number("room_id")?;
                let key = text("key")?;
                let rid = self.chat.request_access(&name, id, &key, self.now_us)?;
                let owner = self.chat.room(id).map(|r| r.owner.clone()).unwrap_or_default();
                self.tell_one(
                    &owner,
                    id,
                    &format!("{name} asks to join your room with the key '{key}' (request {rid}: grant or deny it)."),
                );
                Ok(json!({"request_id": rid}))
            }
            "grant_access" => {
                let (id, who) = self.chat.grant(&name, number("request_id")?)?;
                let owner = self.chat.room(id).map(|r| r.owner.clone()).unwrap_or_default();
                let line = format!("{who} joins {}.", room_label(id, &owner));
                self.tell_room(id, EventKind::System, &line, None, None);
                Ok(json!({"room_id": id, "member": who}))
            }
            "deny_access" => {
                let (id, who) = self.chat.deny(&name, number("request_id")?)?;
                // Told in the requester's own room: it is not in this one.
                let theirs = self.chat.ensure_room(&who);
                self.tell_one(&who, theirs, &format!("{name} turned down your request to join room {id}."));
                Ok(json!({"room_id": id}))
            }
            "leave_room" => {
                let id = number("room_id")?;
                self.chat.leave(&name, id)?;
                let owner = self.chat.room(id).map(|r| r.owner.clone()).unwrap_or_default();
                self.tell_room(id, EventKind::System, &format!("{name} leaves {}.", room_label(id, &owner)), None, None);
                Ok(json!({}))
            }
            other => Err(("unknown_action", format!("'{other}' is not a chat-room action"))),
        }
    }

    pub(crate) fn room_list(&mut self, ch: CharId) -> CmdStatus {
        let name = self.name_of(ch);
        let mut lines = vec!["Your chat rooms:".to_string()];
        for id in self.chat.rooms_of(&name) {
            let Some(r) = self.chat.room(id) else { continue };
            let mut line = format!("  {} — members: {}", room_label(id, &r.owner), self.chat.members(id).join(", "));
            if let Some(b) = &r.billboard {
                line.push_str(&format!("\n    billboard: {b}"));
            }
            if r.owner.eq_ignore_ascii_case(&name) {
                if !r.keys.is_empty() {
                    line.push_str(&format!("\n    keys: {}", r.keys.join(", ")));
                }
                for q in &r.requests {
                    line.push_str(&format!("\n    request {}: {} with key '{}'", q.id, q.requester, q.key));
                }
            }
            lines.push(line);
        }
        lines.push("Speak in one with: chat <room> <message>".into());
        self.send_text(ch, &lines.join("\n"));
        CmdStatus::Ok
    }

    /// Queues the chat rooms that changed for the save writer.
    pub fn save_chat_rooms(&mut self, all: bool) {
        let changed = self.chat.take_changed(all);
        if !changed.is_empty() {
            self.saves.save_chat_rooms(changed);
        }
    }
}

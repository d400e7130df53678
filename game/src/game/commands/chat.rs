//! Chat rooms from the command line: `chat` and telnet's `room` (the bookkeeping is `chat_rooms.rs`; talking in one is `chat.rs`).

use super::CmdStatus;
use crate::game::model::world::CharId;
use crate::game::rules::chat::room_label;
use crate::game::run::engine::Engine;
use crate::game::send::hud::Context;
use crate::game::send::output::EventKind;
use serde_json::json;
use std::sync::Arc;

impl Engine {
    /// `chat <room> <message>`: speak in a chat room you belong to.
    pub fn do_chat(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let (room, msg) = args.trim().split_once(char::is_whitespace).unwrap_or((args.trim(), ""));
        let name = self.name_of(ch);
        let Some(id) = self.chat_room_named(room).filter(|id| self.chat.is_member(*id, &name)) else {
            self.send_text(ch, "You are not in that room. (`room` lists yours.)");
            return CmdStatus::InvalidTarget;
        };
        let msg = msg.trim();
        if msg.is_empty() {
            self.send_text(ch, "Yes, but WHAT do you want to say there?");
            return CmdStatus::InvalidTarget;
        }
        let owner = self.chat.room(id).map(|r| r.owner.clone()).unwrap_or_default();
        let shown = self.pers(ch);
        self.send_text(ch, &format!("You say to {}, '{msg}'", room_label(id, &owner)));
        // The speaker's own words stay in its HUD too, the same message the members hear.
        self.utterance(ch, |e| {
            e.tell_room(id, EventKind::Tell, &format!("[{}] {shown}: {msg}", room_label(id, &owner)), Some(&shown), Some(ch));
            e.message_ids.context = Some(Context::Chat(id));
            let own: Arc<str> = Arc::from(format!("[{}] {shown}: {msg}", room_label(id, &owner)));
            let from: Arc<str> = Arc::from(shown.as_str());
            e.hear(ch, EventKind::Tell, &own, Some(&from));
            e.message_ids.context = None;
        });
        CmdStatus::Ok
    }

    /// `room`: list your rooms; `room billboard <text>|clear`, `room key add|revoke <key>`,
    /// `room request <room> <key>`, `room grant|deny <request>`, `room leave <room>`.
    pub fn do_room(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let mut words = args.split_whitespace();
        let sub = words.next().unwrap_or("").to_ascii_lowercase();
        let rest: Vec<&str> = words.collect();
        let arg = |i: usize| rest.get(i).copied().unwrap_or("");
        let item = match sub.as_str() {
            "" | "list" => return self.room_list(ch),
            "billboard" if arg(0).eq_ignore_ascii_case("clear") => ("clear_billboard", json!({})),
            "billboard" => ("set_billboard", json!({"message": rest.join(" ")})),
            "key" if arg(0).eq_ignore_ascii_case("add") || arg(0).eq_ignore_ascii_case("create") => ("create_key", json!({"key": arg(1)})),
            "key" if arg(0).eq_ignore_ascii_case("revoke") => ("revoke_key", json!({"key": arg(1)})),
            "request" | "knock" => {
                let Some(id) = self.chat_room_named(arg(0)) else {
                    self.send_text(ch, "There is no such room.");
                    return CmdStatus::InvalidTarget;
                };
                ("request_access", json!({"room_id": id, "key": arg(1)}))
            }
            "grant" => ("grant_access", json!({"request_id": arg(0)})),
            "deny" => ("deny_access", json!({"request_id": arg(0)})),
            "leave" => ("leave_room", json!({"room_id": self.chat_room_named(arg(0)).unwrap_or(0)})),
            _ => {
                self.send_text(
                    ch,
                    "Usage: room | room billboard <text>|clear | room key add|revoke <key> | room request <room> <key> | \
                     room grant|deny <request> | room leave <room>",
                );
                return CmdStatus::InvalidTarget;
            }
        };
        match self.chat_action(ch, item.0, &item.1) {
            Ok(v) => {
                let said = match item.0 {
                    "request_access" => format!("You ask to join; the owner will decide (request {}).", v["request_id"]),
                    "grant_access" => format!("{} may now talk in your room.", v["member"].as_str().unwrap_or("")),
                    "deny_access" => "Request turned down.".into(),
                    "leave_room" => "You leave the room.".into(),
                    _ => "Done.".into(),
                };
                self.send_text(ch, &said);
                CmdStatus::Ok
            }
            Err((_, message)) => {
                self.send_text(ch, &message);
                CmdStatus::Failed
            }
        }
    }
}

//! An `actions` message's items read into what they ask (protocol §11.1), before any is
//! applied: each a typed `Action` or `Response`, or a refusal with its stable code. The
//! engine applies them in `actions.rs`; the wire's shape stays here.

use serde_json::Value;

use crate::hud::budget::{MAX_WPM, MIN_WPM};
use crate::hud::heartbeat::Reaction;
use crate::hud::schemas::{self, whole};
use crate::hud::Attention;

use super::actions::MIND_ACTIONS;

/// Longest display name `set_name` takes.
pub const MAX_NAME: usize = 50;

/// Action types the protocol names that this server does not serve yet (refused with
/// `not_available`, never silently ignored).
const NOT_YET: &[&str] = &["share_memory"];

/// Why an item is refused: a stable code and a sentence.
pub type Refusal = (&'static str, String);

/// Words into a conversation context.
#[derive(Debug, Clone, PartialEq)]
pub struct Response<'a> {
    pub room: String,
    pub message: &'a str,
    pub to: Option<&'a str>,
}

/// What a knowledge item does to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnowledgeOp {
    Set,
    Delete,
    Append,
}

/// One item of `actions`.
#[derive(Debug, Clone, PartialEq)]
pub enum Action<'a> {
    /// A game command, as typed.
    Command(&'a str),
    /// The knowledge store: `path`, its `value` and weight `w` are read as it is applied.
    Knowledge {
        op: KnowledgeOp,
        item: &'a Value,
    },
    React {
        message_id: u64,
        reaction: Reaction,
    },
    Reply {
        message_id: u64,
        message: String,
    },
    SetAttention {
        room: String,
        value: Attention,
    },
    /// A room's pace; no room: the agent's own chat room (the seed's `{"wpm": 120}`).
    SetWpm {
        room: Option<String>,
        wpm: u32,
    },
    /// The seed's `send_message` (`room_id`, `content`): a response by another name.
    SendMessage(Response<'a>),
    SetName(String),
    /// `until` (an ISO time) or `seconds`; resolved against the engine's clock.
    Sleep {
        until: Option<&'a str>,
        seconds: Option<f64>,
    },
    /// A chat-room action (`chat_rooms.rs` reads its fields).
    ChatRoom {
        ty: &'a str,
        item: &'a Value,
    },
    /// Agent management (`agents.rs` reads its fields).
    Agents {
        ty: &'a str,
        item: &'a Value,
    },
}

/// A room id as a HUD names it: a string (`"here"`, `"7"`) or a chat room's number.
fn room_field(item: &Value) -> Result<String, Refusal> {
    match item.get("room_id") {
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        _ => Err((
            "bad_request",
            "'room_id' must be a room's id (\"here\", \"group\", \"tells\", \"gossip\", \"shout\" or a chat room's number)".into(),
        )),
    }
}

fn str_field<'a>(item: &'a Value, key: &str) -> Result<&'a str, Refusal> {
    item.get(key).and_then(Value::as_str).ok_or_else(|| ("bad_request", format!("'{key}' must be a string")))
}

fn message_id(item: &Value) -> Result<u64, Refusal> {
    item.get("message_id").and_then(whole).ok_or(("bad_request", "message_id must be a number".to_string()))
}

/// A display name as given: control characters dropped, trimmed, 1 to `MAX_NAME`
/// characters.
pub fn display_name(given: &str) -> Result<String, Refusal> {
    let name: String = given.chars().filter(|c| !c.is_control()).collect();
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(("bad_request", format!("a name is 1 to {MAX_NAME} printable characters")));
    }
    Ok(name.to_string())
}

impl<'a> Response<'a> {
    pub fn read(item: &'a Value) -> Result<Response<'a>, Refusal> {
        schemas::check_response(item)?;
        let room = room_field(item)?;
        let message = item.get("message").or_else(|| item.get("content")).and_then(Value::as_str).map(str::trim).unwrap_or("");
        if message.is_empty() {
            return Err(("bad_request", "a response needs a message".into()));
        }
        Ok(Response { room, message, to: item.get("to").and_then(Value::as_str) })
    }
}

impl<'a> Action<'a> {
    /// What `item` asks, or why it cannot be done: first against its type's published
    /// schema (`hud::schemas`), then read. The memory layers' actions are the session's
    /// (`unavailable` here: a session that serves them applies them first).
    pub fn read(item: &'a Value) -> Result<Action<'a>, Refusal> {
        let ty = str_field(item, "type")?;
        if !MIND_ACTIONS.contains(&ty) {
            schemas::check(ty, item)?;
        }
        Ok(match ty {
            "command" => {
                let c = str_field(item, "command")?.trim();
                if c.is_empty() || c.chars().count() > 256 {
                    return Err(("bad_request", "command must be 1 to 256 characters".into()));
                }
                Action::Command(c)
            }
            "set" => Action::Knowledge { op: KnowledgeOp::Set, item },
            "delete" => Action::Knowledge { op: KnowledgeOp::Delete, item },
            "append" => Action::Knowledge { op: KnowledgeOp::Append, item },
            "react" => {
                let message_id = message_id(item)?;
                let r = str_field(item, "reaction")?;
                let Some(reaction) = Reaction::parse(r) else {
                    return Err(("bad_reaction", "reaction must be thumbs_up, thumbs_down, brain or heart".into()));
                };
                Action::React { message_id, reaction }
            }
            "reply" => {
                let message_id = message_id(item)?;
                Action::Reply { message_id, message: str_field(item, "message")?.trim().to_string() }
            }
            "set_attention" => {
                let room = room_field(item)?;
                let value = match item.get("value") {
                    Some(Value::String(s)) => Attention::parse(s),
                    Some(Value::Number(n)) => Attention::parse(&n.to_string()),
                    _ => Err("value must be \"30%\" or \"%*\"".to_string()),
                }
                .map_err(|m| ("bad_request", m))?;
                Action::SetAttention { room, value }
            }
            "set_wpm" => {
                let room = if item.get("room_id").is_some() { Some(room_field(item)?) } else { None };
                let wpm = item.get("value").or_else(|| item.get("wpm")).and_then(whole);
                let wpm = wpm.filter(|w| (MIN_WPM as u64..=MAX_WPM as u64).contains(w));
                let Some(wpm) = wpm else {
                    return Err(("bad_request", format!("value must be {MIN_WPM} to {MAX_WPM} words per minute")));
                };
                Action::SetWpm { room, wpm: wpm as u32 }
            }
            "set_name" => Action::SetName(display_name(str_field(item, "name")?)?),
            "send_message" => Action::SendMessage(Response::read(item)?),
            "sleep" => {
                Action::Sleep { until: item.get("until").and_then(Value::as_str), seconds: item.get("seconds").and_then(Value::as_f64) }
            }
            "set_billboard" | "clear_billboard" | "create_key" | "revoke_key" | "request_access" | "grant_access" | "deny_access"
            | "leave_room" => Action::ChatRoom { ty, item },
            "wake_agent" | "create_agent" | "alter_agent" | "retire_agent" => Action::Agents { ty, item },
            t if MIND_ACTIONS.contains(&t) => return Err(("unavailable", "the memory layers are not served on this connection".into())),
            t if NOT_YET.contains(&t) => return Err(("not_available", format!("'{t}' is not served by this server yet"))),
            other => return Err(("unknown_action", format!("unknown action type '{}'", other.chars().take(40).collect::<String>()))),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn items_read_into_what_they_ask_or_a_coded_refusal() {
        let c = json!({"type": "command", "command": " look "});
        assert_eq!(Action::read(&c), Ok(Action::Command("look")));
        let r = json!({"type": "react", "message_id": 4, "reaction": "heart"});
        assert!(matches!(Action::read(&r), Ok(Action::React { message_id: 4, .. })));
        for (item, code) in [
            (json!({"command": "look"}), "bad_request"),
            (json!({"type": "react", "message_id": "4", "reaction": "heart"}), "bad_request"),
            (json!({"type": "react", "message_id": 4, "reaction": "shrug"}), "bad_reaction"),
            (json!({"type": "set_wpm", "room_id": "here", "value": 1}), "bad_request"),
            (json!({"type": "set_wpm", "wpm": 500}), "bad_request"),
            (json!({"type": "send_message", "room_id": "here"}), "bad_request"),
            (json!({"type": "recall", "query": "x"}), "unavailable"),
            (json!({"type": "share_memory"}), "not_available"),
            (json!({"type": "fly"}), "unknown_action"),
        ] {
            assert_eq!(Action::read(&item).map(|_| ()).unwrap_err().0, code, "{item}");
        }
        assert_eq!(Action::read(&json!({"type": "set_wpm", "wpm": 120})), Ok(Action::SetWpm { room: None, wpm: 120 }), "the seed's shape");
        let seed = json!({"type": "send_message", "room_id": 5, "content": "Hello!"});
        assert_eq!(Action::read(&seed), Ok(Action::SendMessage(Response { room: "5".into(), message: "Hello!", to: None })));
        let resp = json!({"room_id": 7, "content": " hi "});
        assert_eq!(Response::read(&resp), Ok(Response { room: "7".into(), message: "hi", to: None }));
        assert_eq!(Response::read(&json!({"room_id": "here"})).unwrap_err().0, "bad_request");
    }
}

#[cfg(test)]
mod schema_agreement {
    use crate::hud::schemas::{catalog, check, variants};

    use super::*;

    /// What an action's published schema takes, its reader does not refuse as malformed;
    /// what the schema refuses, the reader refuses with the schema's code. Every action
    /// the engine reads, over each field left out or set to each of many values.
    #[test]
    fn every_reader_agrees_with_its_published_schema() {
        let mut tried = 0;
        for ty in catalog().actions.keys().filter(|t| !MIND_ACTIONS.contains(&t.as_str())) {
            for item in variants(ty) {
                tried += 1;
                let read = Action::read(&item).map(|_| ());
                match check(ty, &item) {
                    Ok(()) => {
                        if let Err((code, m)) = read {
                            panic!("{ty}: the schema takes {item} but the reader refuses it: {code} {m}");
                        }
                    }
                    Err((code, _)) => assert_eq!(read.unwrap_err().0, code, "{item}"),
                }
            }
        }
        assert!(tried > 1_000, "{tried}");
    }
}

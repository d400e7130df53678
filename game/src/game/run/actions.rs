//! The seed's actions (protocol §11.1): an agent answers its HUD with `responses` (words
//! into a conversation context, held to that context's word budget) and `actions` (game
//! commands, its knowledge, reactions, attention, pace, name, sleep). Every item gets a
//! result, in order; a refusal carries a stable code and changes nothing.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use crate::game::model::world::CharId;
use crate::game::records::recording::CommandClient;
use crate::game::run::engine::Engine;
use crate::game::send::hud::Context;
use crate::game::send::output::Out;
use crate::hud::budget::{word_budget, KNOWLEDGE_CAP};
use crate::hud::{knowledge, HudFormat};

use super::action_items::{Action, KnowledgeOp, Response};

/// An action as `recent_actions` shows it: its type and what it named (`set
/// people.Bram.trust`, `react 12`, `create_agent Wren`).
fn action_summary(item: &Value) -> String {
    let ty = item.get("type").and_then(Value::as_str).unwrap_or("?");
    let ty: String = ty.chars().take(40).collect();
    let named = ["path", "message_id", "room_id", "name", "key", "request_id", "query"].iter().find_map(|k| match item.get(*k) {
        Some(Value::String(s)) => Some(s.chars().take(60).collect::<String>()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    });
    match named {
        Some(n) => format!("{ty} {n}"),
        None => ty,
    }
}

/// What the seed's agents answer to say nothing (never spoken aloud).
pub const SILENCE: &str = "[no response]";

/// Most responses plus actions in one message.
pub const MAX_ITEMS: usize = 32;

pub type Outcome = Result<Value, (&'static str, String)>;

/// What an `actions` message says of how it was chosen (`llm`, `reason`: protocol
/// §11.1, checked by the protocol layer), if anything.
fn batch_client(batch: &Value) -> Option<Box<CommandClient>> {
    let given =
        ["llm", "reason", "tokens_prompt", "tokens_completion", "latency_ms"].iter().any(|k| batch.get(*k).is_some_and(|v| !v.is_null()));
    if !given {
        return None;
    }
    let fields: serde_json::Map<String, Value> = ["llm", "reason", "tokens_prompt", "tokens_completion", "latency_ms"]
        .iter()
        .filter_map(|k| Some((k.to_string(), batch.get(*k)?.clone())))
        .collect();
    serde_json::from_value::<CommandClient>(Value::Object(fields)).ok().map(Box::new)
}

fn refuse(code: &'static str, message: impl Into<String>) -> Outcome {
    Err((code, message.into()))
}

/// Seconds from `now_us` until an ISO time (`2024-01-15T14:30:00`, UTC unless an offset
/// is given); `None` if it is not one.
fn until_secs(t: &str, now_us: u64) -> Option<f64> {
    let at = chrono::DateTime::parse_from_rfc3339(t.trim())
        .map(|d| d.timestamp_micros())
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(t.trim(), "%Y-%m-%dT%H:%M:%S").map(|d| d.and_utc().timestamp_micros()))
        .ok()?;
    Some((at - now_us as i64) as f64 / 1e6)
}

/// The `actions` types the memory an agent keeps itself serves (§12, `mind`), beside the
/// engine: a session applies them before the engine sees the message.
pub const MIND_ACTIONS: &[&str] = &[
    "soul_add",
    "soul_remove",
    "remember",
    "forget",
    "recall",
    "diary_write",
    "diary_read",
    "diary_search",
    "relationship_set",
    "self_care",
    "link_request",
    "link_accept",
    "conversations",
];

impl Engine {
    /// Applies one `actions` message and answers `actions_result`.
    pub fn apply_actions(&mut self, id: CharId, batch: Value, re: Option<Arc<str>>, premade: Vec<(usize, Outcome)>) {
        let mut premade: std::collections::HashMap<usize, Outcome> = premade.into_iter().collect();
        // How the message was chosen goes with the first game command it runs; a message
        // that runs none is recorded as a decision of its own (`actions`).
        self.batch_client = batch_client(&batch).map(|c| (c, false));
        let responses = batch.get("responses").and_then(Value::as_array).cloned().unwrap_or_default();
        let actions = batch.get("actions").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut results: Vec<Outcome> = Vec::with_capacity(responses.len() + actions.len());
        if responses.len() + actions.len() > MAX_ITEMS {
            results.push(refuse("too_many", format!("at most {MAX_ITEMS} responses and actions at once")));
        } else {
            for item in &responses {
                let done = self.respond(id, item, re.clone());
                // Words that were not said show in `recent_actions` with why.
                if let Err((code, _)) = &done {
                    let room =
                        item.get("room_id").map(|r| r.as_str().map(str::to_string).unwrap_or_else(|| r.to_string())).unwrap_or_default();
                    self.note_hud_action(id, &format!("respond {}", room.chars().take(40).collect::<String>()), code);
                }
                results.push(done);
            }
            for (i, item) in actions.iter().enumerate() {
                let done = match premade.remove(&i) {
                    Some(done) => done,
                    None => self.act_on(id, item, re.clone()),
                };
                // Every action shows in `recent_actions` with how it ended; game commands
                // and words are there already, as the commands they ran.
                let ty = item.get("type").and_then(Value::as_str).unwrap_or("");
                if !matches!(ty, "command" | "reply" | "send_message") || done.is_err() {
                    let status = match &done {
                        Ok(_) => "ok",
                        Err((code, _)) => code,
                    };
                    self.note_hud_action(id, &action_summary(item), status);
                }
                results.push(done);
            }
        }
        if let Some((client, false)) = self.batch_client.take() {
            let items: Vec<String> = responses
                .iter()
                .map(|r| {
                    format!(
                        "respond {}",
                        r.get("room_id").map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())).unwrap_or_default()
                    )
                })
                .chain(actions.iter().map(action_summary))
                .collect();
            let status = match results.iter().find_map(|r| r.as_ref().err()) {
                Some(_) if results.iter().any(Result::is_ok) => "ok",
                Some((code, _)) => code,
                None => "ok",
            };
            let line = format!("actions {}", items.join("; ").chars().take(200).collect::<String>());
            self.record_unrun(id, &line, status, re.clone(), self.now_us, Some(client));
        }
        // The knowledge store's share, counted once for the message where an item left it
        // to be (see `knowledge_action`).
        if results.iter().any(|r| matches!(r, Ok(v) if v.get("memory_used").is_some_and(Value::is_null))) {
            let used = self.world.ch(id).and_then(|c| c.pc.as_ref()).map(|pc| {
                let text = crate::hud::format::render(&pc.hud.knowledge, HudFormat::CompactJson).unwrap_or_default();
                crate::hud::budget::memory_used(crate::hud::format::tokens(&text))
            });
            for r in results.iter_mut().flatten() {
                if r.get("memory_used").is_some_and(Value::is_null) {
                    r["memory_used"] = json!(used.clone().unwrap_or_default());
                }
            }
        }
        let results: Vec<Value> = results
            .into_iter()
            .enumerate()
            .map(|(i, r)| match r {
                Ok(Value::Object(mut m)) => {
                    m.insert("i".into(), json!(i));
                    m.insert("ok".into(), json!(true));
                    Value::Object(m)
                }
                Ok(_) => json!({"i": i, "ok": true}),
                Err((code, message)) => json!({"i": i, "ok": false, "code": code, "message": message}),
            })
            .collect();
        self.deliver(id, Out::Reply { kind: "actions_result", data: json!({ "results": results }), re });
    }

    /// Words into a conversation context, as the game command that says them there.
    fn respond(&mut self, id: CharId, item: &Value, re: Option<Arc<str>>) -> Outcome {
        let Response { room, message, to } = Response::read(item)?;
        self.speak(id, &room, message, to, re)
    }

    fn speak(&mut self, id: CharId, room: &str, message: &str, to: Option<&str>, re: Option<Arc<str>>) -> Outcome {
        self.speak_replying(id, room, message, to, re, None)
    }

    /// The conversation context `room` names for this agent: one it can be in.
    fn context_of(&self, id: CharId, room: &str) -> Result<Context, (&'static str, String)> {
        let name = self.world.ch(id).map(|c| c.name.clone()).unwrap_or_default();
        match Context::parse(room) {
            Some(Context::Chat(n)) if !self.chat.is_member(n, &name) => {
                Err(("no_such_room", format!("you are not in chat room {n} (request_access first)")))
            }
            Some(c) => Ok(c),
            None => Err((
                "no_such_room",
                format!(
                    "no room '{}' (here, group, tells, gossip, shout, or a chat room's number)",
                    room.chars().take(40).collect::<String>()
                ),
            )),
        }
    }

    /// `speak`, the words answering message `reply_to` when given.
    fn speak_replying(
        &mut self,
        id: CharId,
        room: &str,
        message: &str,
        to: Option<&str>,
        re: Option<Arc<str>>,
        reply_to: Option<u64>,
    ) -> Outcome {
        let message = crate::game::run::clean::clean_text(message);
        let message = message.trim();
        if message.is_empty() {
            return refuse("bad_request", "a response needs a message");
        }
        // The seed's marker for choosing silence: nothing is said.
        if message.eq_ignore_ascii_case(SILENCE) {
            return Ok(json!({"words": 0, "silent": true}));
        }
        let context = self.context_of(id, room)?;
        let words = message.split_whitespace().count() as u32;
        let allowed = {
            let Some(pc) = self.world.ch(id).and_then(|c| c.pc.as_ref()) else { return refuse("internal", "no such player") };
            let since = pc.hud.last_spoke.get(&context.id()).map(|t| self.now_us.saturating_sub(*t) as f64 / 1e6);
            word_budget(since, pc.hud.wpm_of(&context.id()))
        };
        if words > allowed {
            return refuse("over_budget", format!("{words} words; {room} allows {allowed} now (its pace is set with set_wpm)"));
        }
        let line = match context {
            Context::Room => format!("say {message}"),
            Context::Group => format!("gtell {message}"),
            Context::Channel(c) => format!("{c} {message}"),
            Context::Chat(n) => format!("chat {n} {message}"),
            Context::Tells => {
                let to = to.map(str::to_string).or_else(|| self.last_teller(id));
                let Some(to) = to else { return refuse("bad_request", "a tell needs 'to' (no one has told you anything yet)") };
                format!("tell {to} {message}")
            }
        };
        if let Some(mid) = reply_to {
            if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
                let pending = &mut pc.hud.pending_replies;
                if pending.len() >= MAX_ITEMS {
                    pending.pop_front();
                }
                pending.push_back((crate::game::run::clean::clean_line(line.clone()), mid));
            }
        }
        self.submit(id, line, re);
        Ok(json!({"words": words}))
    }

    fn last_teller(&self, id: CharId) -> Option<String> {
        let pc = self.world.ch(id)?.pc.as_ref()?;
        pc.hud.heard.iter().rev().find(|h| h.context == Context::Tells).and_then(|h| h.sender.as_deref().map(str::to_string))
    }

    /// A game command from an action: run now if the player has not acted this pulse,
    /// else queued like any other (one command per pulse).
    /// The first takes what the message said of how it was chosen; the rest its reason.
    fn submit(&mut self, id: CharId, line: String, re: Option<Arc<str>>) {
        let link_id = self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).map(|l| l.id).unwrap_or(0);
        let now = self.now_us;
        let client = self.batch_client.as_mut().and_then(|(c, ran)| {
            let rest = Box::new(CommandClient { reason: c.reason.clone(), ..Default::default() });
            let first = !std::mem::replace(ran, true);
            if first {
                Some(std::mem::replace(c, rest))
            } else {
                rest.reason.is_some().then_some(rest)
            }
        });
        self.handle_command(id, link_id, line, re, (Instant::now(), now), client);
    }

    pub(crate) fn act_on(&mut self, id: CharId, item: &Value, re: Option<Arc<str>>) -> Outcome {
        match Action::read(item)? {
            Action::Command(c) => {
                self.submit(id, c.to_string(), re);
                Ok(json!({}))
            }
            Action::Knowledge { op, item } => self.knowledge_action(id, op, item),
            Action::React { message_id: mid, reaction } => {
                // Only a message this agent heard (its HUD's history holds its id), and
                // each reaction once: any id and any count were taken before.
                let (heard, me) = match self.world.ch(id) {
                    Some(c) => (c.pc.as_ref().is_some_and(|pc| pc.hud.heard.iter().any(|h| h.id == mid)), c.name.clone()),
                    None => (false, Arc::from("")),
                };
                let said = match self.message_ids.get_mut(mid) {
                    Some(said) if heard => said,
                    _ => return refuse("no_such_message", format!("no message {mid} that you heard")),
                };
                if said.reacted_by.iter().any(|(who, r)| *who == me && *r == reaction.as_str()) {
                    return refuse("already_reacted", format!("you already reacted {} to message {mid}", reaction.as_str()));
                }
                said.reacted_by.push((me, reaction.as_str()));
                *said.reactions.entry(reaction.as_str()).or_default() += 1;
                let sender = said.sender.clone();
                if let Some(cid) = sender.and_then(|s| self.world.players.get(&s.to_ascii_lowercase()).copied()) {
                    if let Some(pc) = self.world.chars.get_mut(&cid).and_then(|c| c.pc.as_mut()) {
                        pc.hud.heartbeat.react(reaction);
                    }
                }
                Ok(json!({}))
            }
            Action::Reply { message_id: mid, message } => {
                let Some(said) = self.message_ids.get(mid).cloned() else {
                    return refuse("no_such_message", format!("no message {mid}"));
                };
                let to = said.sender.as_deref().map(str::to_string);
                self.speak_replying(id, &said.context.id(), &message, to.as_deref(), re, Some(mid))
            }
            Action::SetAttention { room, value } => {
                self.context_of(id, &room)?;
                self.with_hud(id, |h| {
                    h.attention.insert(room, value);
                });
                Ok(json!({}))
            }
            Action::SetWpm { room, wpm } => {
                let room = match room {
                    Some(room) => room,
                    None => {
                        let name = self.world.ch(id).map(|c| c.name.clone()).unwrap_or_default();
                        let Some(own) = self.chat.room_of(&name) else {
                            return refuse("no_such_room", "you have no chat room of your own");
                        };
                        own.to_string()
                    }
                };
                self.context_of(id, &room)?;
                self.with_hud(id, |h| {
                    h.wpm.insert(room, wpm);
                });
                Ok(json!({}))
            }
            Action::SendMessage(Response { room, message, to }) => self.speak(id, &room, message, to, re),
            Action::SetName(name) => {
                self.with_hud(id, |h| h.display_name = Some(name));
                Ok(json!({}))
            }
            Action::Sleep { until, seconds } => {
                let now = self.now_us;
                let secs = match (until, seconds) {
                    (Some(t), _) => until_secs(t, now),
                    (None, Some(s)) => Some(s),
                    (None, None) => None,
                };
                let secs = secs.filter(|s| (0.0..=86_400.0).contains(s));
                let Some(secs) = secs else {
                    return refuse(
                        "bad_time",
                        "sleep takes 'until' (an ISO time within the next day, UTC unless it says) or 'seconds' (0 to 86,400)",
                    );
                };
                let until = now + (secs * 1e6) as u64;
                self.with_hud(id, |h| h.asleep_until_us = Some(until));
                Ok(json!({}))
            }
            Action::ChatRoom { ty, item } => self.chat_action(id, ty, item),
            Action::Agents { ty, item } => self.agent_action(id, ty, item),
        }
    }

    fn knowledge_action(&mut self, id: CharId, op: KnowledgeOp, item: &Value) -> Outcome {
        let path = item.get("path").and_then(Value::as_str).ok_or_else(|| ("bad_request", "'path' must be a string".to_string()))?;
        let Some(pc) = self.world.ch(id).and_then(|c| c.pc.as_ref()) else { return refuse("internal", "no such player") };
        let mut store = pc.hud.knowledge.clone();
        let value = item.get("value").cloned().unwrap_or(Value::Null);
        let weight = match item.get("w") {
            None | Some(Value::Null) => None,
            Some(w) => Some(
                w.as_f64()
                    .or_else(|| w.as_str().and_then(|s| s.parse().ok()))
                    .ok_or(("bad_weight", "w must be a number from 0 to 1".to_string()))?,
            ),
        };
        let done = match op {
            KnowledgeOp::Set => knowledge::set(&mut store, path, value, weight),
            KnowledgeOp::Delete => knowledge::delete(&mut store, path),
            KnowledgeOp::Append => knowledge::append(&mut store, path, value),
        };
        done.map_err(|e| (e.code(), e.to_string()))?;
        // Counting tokens is the dear part (a whole store's text through cl100k, on the
        // engine thread, per item): a text of no more bytes than the cap holds no more
        // tokens than it, so only a store that large is counted here; the others' share
        // is counted once for the whole message (`apply_actions`).
        let text = crate::hud::format::render(&store, HudFormat::CompactJson).unwrap_or_default();
        if text.len() <= KNOWLEDGE_CAP {
            self.with_hud(id, |h| h.knowledge = store);
            return Ok(json!({"memory_used": Value::Null}));
        }
        let tokens = crate::hud::format::tokens(&text);
        if tokens > KNOWLEDGE_CAP && op != KnowledgeOp::Delete {
            return refuse(
                "knowledge_full",
                format!("the knowledge store would hold {tokens} tokens; its cap is {KNOWLEDGE_CAP} (delete or consolidate first)"),
            );
        }
        self.with_hud(id, |h| h.knowledge = store);
        Ok(json!({"memory_used": crate::hud::budget::memory_used(tokens)}))
    }

    fn with_hud(&mut self, id: CharId, f: impl FnOnce(&mut crate::game::send::hud::HudState)) {
        if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
            f(&mut pc.hud);
            pc.dirty = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::until_secs;

    #[test]
    fn sleep_until_reads_iso_times() {
        let now = 1_705_329_000_000_000; // 2024-01-15T14:30:00Z
        assert_eq!(until_secs("2024-01-15T14:31:00", now), Some(60.0), "naive is UTC");
        assert_eq!(until_secs("2024-01-15T15:31:00+01:00", now), Some(60.0));
        assert!(until_secs("2024-01-15T14:29:00Z", now).unwrap() < 0.0, "the past is refused by the caller");
        assert_eq!(until_secs("tomorrow", now), None);
    }
}

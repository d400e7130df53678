//! The engine's side of the HUD (protocol §11): what an agent heard, by conversation
//! context, each message with a server-wide id; its last actions; where it last spoke;
//! its heartbeat — and the parts its HUD is made of. The engine only gathers (cheap
//! clones); the HUD is cut to its budget and tokenized off the engine thread
//! (`hud::assemble`).

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::output::EventKind;
use crate::hud::budget::word_budget;
use crate::hud::{HudMessage, HudParts, RecentAction, RoomParts};

/// Messages an agent's HUD keeps (all contexts together; the oldest go first).
pub const HEARD_CAP: usize = 300;
/// Messages one context keeps at most: a busy room gives way to itself, never evicting
/// a quiet room's or a private tell (protocol §11).
pub const CONTEXT_CAP: usize = 100;
/// Actions kept for `recent_actions`.
pub const RECENT_CAP: usize = 20;

pub const DIRECTIVES: &str = include_str!("../../../../data/hud/directives.txt");
pub const INSTRUCTIONS: &str = include_str!("../../../../data/hud/instructions.json");
pub const ACTIONS: &str = include_str!("../../../../data/hud/actions.json");

/// A conversation context: where a message was said.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Context {
    /// The game room the agent stands in (says, emotes, arrivals, combat).
    Room,
    /// Its group (`gtell`).
    Group,
    /// Private tells.
    Tells,
    /// A channel it hears: `gossip`, `shout`.
    Channel(&'static str),
    /// A chat room it belongs to (protocol §11.2), by the room's id.
    Chat(u64),
}

impl Context {
    /// The room id a HUD (and a response's `room_id`) names it by.
    pub fn id(&self) -> String {
        match self {
            Context::Room => "here".into(),
            Context::Group => "group".into(),
            Context::Tells => "tells".into(),
            Context::Channel(c) => (*c).into(),
            Context::Chat(id) => id.to_string(),
        }
    }

    /// The context a HUD room id names (`"here"`, `"group"`, `"tells"`, `"gossip"`,
    /// `"shout"`, or a chat room's number).
    pub fn parse(room: &str) -> Option<Context> {
        Some(match room {
            "here" => Context::Room,
            "group" => Context::Group,
            "tells" => Context::Tells,
            "gossip" => Context::Channel("gossip"),
            "shout" => Context::Channel("shout"),
            n => Context::Chat(n.parse().ok()?),
        })
    }

    fn of(kind: EventKind) -> Option<Context> {
        match kind {
            EventKind::Say | EventKind::Emote | EventKind::Enter | EventKind::Leave | EventKind::Combat | EventKind::Death => {
                Some(Context::Room)
            }
            EventKind::Tell => Some(Context::Tells),
            EventKind::Gossip => Some(Context::Channel("gossip")),
            EventKind::Shout => Some(Context::Channel("shout")),
            EventKind::Text | EventKind::LevelUp | EventKind::System => None,
        }
    }

    /// The context a command speaks into, if it is a speaking command.
    pub fn spoken_by(verb: &str) -> Option<Context> {
        match verb {
            "say" | "emote" => Some(Context::Room),
            "gtell" => Some(Context::Group),
            "tell" => Some(Context::Tells),
            "gossip" => Some(Context::Channel("gossip")),
            "shout" => Some(Context::Channel("shout")),
            _ => None,
        }
    }
}

/// A HUD's parts as the engine hands them out, with the heartbeat and whether the
/// agent is asleep (the `sleep` action: no heartbeat HUDs until then).
#[derive(Debug)]
pub struct HudSnapshot {
    pub parts: HudParts,
    /// The character's name (for the memory layers the session adds to `self`).
    pub name: String,
    pub heartbeat_s: f64,
    pub asleep: bool,
}

pub use super::hud_state::{Heard, HudState, Recent, CONTEXT_KEPT};

/// Message ids known to `react` and `reply`: the newest this many.
pub const INDEXED_MESSAGES: usize = 50_000;

/// Who said a message, and where.
#[derive(Debug, Clone)]
pub struct Said {
    pub sender: Option<Arc<str>>,
    pub context: Context,
    pub reactions: std::collections::BTreeMap<&'static str, u32>,
    /// Who gave which reaction: each reacts once with each (a list: few react).
    pub reacted_by: Vec<(Arc<str>, &'static str)>,
}

/// Who is speaking, and the id their words were given once the first copy was heard.
#[derive(Debug, Clone)]
pub struct Speaking {
    pub speaker: CharId,
    pub name: Arc<str>,
    /// Its display name, if it set one.
    pub shown: Option<Arc<str>>,
    pub id: Option<u64>,
    pub reply_to: Option<u64>,
}

/// The HUD's message ids and the context of the message being sent.
#[derive(Debug, Default)]
pub struct MessageIds {
    next: u64,
    /// The text last given an id: the same broadcast heard by a crowd is one message.
    last: Option<(Arc<str>, u64)>,
    /// Set while a command sends into a context its event kind does not tell (gtell).
    pub context: Option<Context>,
    /// Set while someone speaks (`Engine::utterance`): every copy of their words — their
    /// own and everyone else's — is one message, theirs.
    pub speaking: Option<Speaking>,
    /// The message the command being run answers (a `reply`), for its words.
    pub reply_to: Option<u64>,
    /// The newest messages, for reactions and replies: ids are given in order, so the
    /// index is a ring by id (`said[i]` is message `first + i`), with no hashing and no
    /// second list of the order (a crowd's every arrival is a new message).
    said: VecDeque<Option<Said>>,
    first: u64,
}

impl MessageIds {
    fn remember(&mut self, id: u64, said: Said) {
        if self.said.is_empty() {
            self.first = id;
        }
        // Older than everything kept: already forgotten.
        let Some(at) = id.checked_sub(self.first).and_then(|a| usize::try_from(a).ok()) else { return };
        if at < self.said.len() {
            self.said[at] = Some(said);
            return;
        }
        // Ids are dense; a gap (none is made today) is kept as unknown ids.
        let gap = at - self.said.len();
        if gap >= INDEXED_MESSAGES {
            self.said.clear();
            self.first = id;
        } else {
            self.said.extend(std::iter::repeat_with(|| None).take(gap));
        }
        self.said.push_back(Some(said));
        while self.said.len() > INDEXED_MESSAGES {
            self.said.pop_front();
            self.first += 1;
        }
    }

    fn slot(&self, id: u64) -> Option<usize> {
        let at = usize::try_from(id.checked_sub(self.first)?).ok()?;
        (at < self.said.len()).then_some(at)
    }

    /// A message still known (the newest `INDEXED_MESSAGES`).
    pub fn get(&self, id: u64) -> Option<&Said> {
        self.slot(id).and_then(|at| self.said[at].as_ref())
    }

    pub fn get_mut(&mut self, id: u64) -> Option<&mut Said> {
        self.slot(id).and_then(|at| self.said[at].as_mut())
    }

    pub fn contains(&self, id: u64) -> bool {
        self.get(id).is_some()
    }

    fn fresh_id(&mut self) -> u64 {
        self.next += 1;
        self.last = None;
        self.next
    }

    fn id_for(&mut self, text: &Arc<str>) -> u64 {
        if let Some((t, id)) = &self.last {
            if Arc::ptr_eq(t, text) {
                return *id;
            }
        }
        self.next += 1;
        self.last = Some((text.clone(), self.next));
        self.next
    }
}

use crate::time::rfc3339;

fn time_since(now_us: u64, then_us: Option<u64>) -> String {
    let Some(t) = then_us else { return "never".into() };
    let s = now_us.saturating_sub(t) / 1_000_000;
    let plural = |n: u64, one: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") };
    match s {
        0..=59 => plural(s, "second"),
        60..=3_599 => plural(s / 60, "minute"),
        _ => format!("{:.1} hours", s as f64 / 3600.0),
    }
}

impl Engine {
    /// An agent was sent a message: its HUD keeps it under the context it belongs to.
    pub(crate) fn hear(&mut self, id: CharId, kind: EventKind, text: &Arc<str>, from: Option<&Arc<str>>) {
        // Room views and the like belong to no conversation: nothing to look up.
        let Some(context) = self.message_ids.context.clone().or_else(|| Context::of(kind)) else { return };
        // One look-up of the listener (a crowd hears every line: each a cache miss).
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()).filter(|pc| pc.is_agent) else { return };
        let ids = &mut self.message_ids;
        // Someone's words: one message for all who hear them, the speaker's own copy too.
        let (mid, sender, you, reply_to, shown) =
            match ids.speaking.as_ref().map(|s| (s.id, s.speaker, s.name.clone(), s.reply_to, s.shown.clone())) {
                Some((known, speaker, name, reply_to, shown)) => {
                    let mid = known.unwrap_or_else(|| ids.fresh_id());
                    if let Some(s) = ids.speaking.as_mut() {
                        s.id = Some(mid);
                    }
                    (mid, Some(name), speaker == id, reply_to, shown)
                }
                None => (ids.id_for(text), from.cloned(), false, None, None),
            };
        if !ids.contains(mid) {
            ids.remember(
                mid,
                Said { sender: sender.clone(), context: context.clone(), reactions: Default::default(), reacted_by: Vec::new() },
            );
        }
        let (h, counts) = (&mut pc.hud.heard, &mut pc.hud.heard_counts);
        let count = |counts: &mut Vec<(Context, u16)>, ctx: &Context, by: i32| match counts.iter_mut().find(|(c, _)| c == ctx) {
            Some((_, n)) => *n = (*n as i32 + by).max(0) as u16,
            None if by > 0 => counts.push((ctx.clone(), by as u16)),
            None => {}
        };
        // A context at its cap loses its own oldest; else, the ring at its cap, the oldest.
        let own = counts.iter().find(|(c, _)| *c == context).map_or(0, |(_, n)| *n as usize);
        if own >= CONTEXT_CAP {
            if let Some(at) = h.iter().position(|m| m.context == context) {
                h.remove(at);
                count(counts, &context, -1);
            }
        } else if h.len() >= HEARD_CAP {
            if let Some(gone) = h.pop_front() {
                count(counts, &gone.context, -1);
            }
        } else if h.len() == h.capacity() && h.len() * 2 > HEARD_CAP {
            // The last growth goes to the cap exactly: doubling would end at 512 slots for
            // 300 (every agent's heard ring, a HUD asked for or not).
            h.reserve_exact(HEARD_CAP - h.len());
        }
        count(counts, &context, 1);
        h.push_back(Heard {
            id: mid,
            at_us: self.now_us,
            context,
            sender,
            content: text.clone(),
            kind: kind.as_str(),
            you,
            reply_to,
            shown,
        });
    }

    /// A character's HUD history came back from the data file: its messages get ids of
    /// this run (the last run's could be anyone's now), its replies follow them, and
    /// each can be reacted to and replied to again.
    pub(crate) fn restore_heard(&mut self, id: CharId) {
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return };
        let ids = &mut self.message_ids;
        let mut new_of: Vec<(u64, u64)> = Vec::with_capacity(pc.hud.heard.len());
        for h in pc.hud.heard.iter_mut() {
            let fresh = ids.fresh_id();
            new_of.push((h.id, fresh));
            h.id = fresh;
            h.reply_to = h.reply_to.and_then(|old| new_of.iter().find(|(o, _)| *o == old).map(|(_, n)| *n));
            ids.remember(
                fresh,
                Said { sender: h.sender.clone(), context: h.context.clone(), reactions: Default::default(), reacted_by: Vec::new() },
            );
        }
        let mut counts: Vec<(Context, u16)> = Vec::new();
        for h in &pc.hud.heard {
            match counts.iter_mut().find(|(c, _)| *c == h.context) {
                Some((_, n)) => *n += 1,
                None => counts.push((h.context.clone(), 1)),
            }
        }
        pc.hud.heard_counts = counts;
    }

    /// `f` is `ch` speaking: what it sends is one message, `ch`'s, however many hear it
    /// (each copy worded for its listener), answering the message a `reply` named.
    pub(crate) fn utterance<R>(&mut self, ch: CharId, f: impl FnOnce(&mut Self) -> R) -> R {
        let name = self.shared_name(ch);
        let shown = self.display_name(ch);
        let reply_to = self.message_ids.reply_to.take();
        self.message_ids.speaking = Some(Speaking { speaker: ch, name, shown, id: None, reply_to });
        let r = f(self);
        self.message_ids.speaking = None;
        r
    }

    /// A command ran: the HUD's `recent_actions`, and where the agent last spoke.
    /// A HUD action was taken (or refused): `recent_actions` shows it with how it ended.
    pub(crate) fn note_hud_action(&mut self, id: CharId, summary: &str, status: &'static str) {
        let at_us = self.now_us;
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()).filter(|pc| pc.is_agent) else { return };
        if pc.hud.recent.len() >= RECENT_CAP {
            pc.hud.recent.pop_front();
        }
        pc.hud.recent.push_back(Recent { at_us, line: summary.to_string(), status: status.into() });
    }

    pub(crate) fn note_action(&mut self, id: CharId, line: &str, status: &'static str) {
        let at_us = self.now_us;
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return };
        if !pc.is_agent {
            return;
        }
        let hud = &mut pc.hud;
        if hud.recent.len() >= RECENT_CAP {
            hud.recent.pop_front();
        }
        hud.recent.push_back(Recent { at_us, line: line.to_string(), status: status.into() });
        let verb = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        let verb = match verb.as_str() {
            v if v.starts_with('\'') => "say",
            v if v.starts_with(':') => "emote",
            v => crate::game::commands::lookup(v).map(|c| c.name).unwrap_or(""),
        };
        let spoken = match verb {
            "chat" => line.split_whitespace().nth(1).and_then(|r| self.chat_room_named(r)).map(Context::Chat),
            v => Context::spoken_by(v),
        };
        let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) else { return };
        let hud = &mut pc.hud;
        if let (Some(ctx), "ok") = (spoken, status) {
            hud.last_spoke.insert(ctx.id(), at_us);
        }
    }

    /// Everything an agent's HUD is made of, now. `None` for no such player.
    pub fn hud_parts(&self, id: CharId) -> Option<(HudParts, f64)> {
        let c = self.world.ch(id)?;
        let pc = c.pc.as_ref()?;
        let client = pc.link.as_ref().map(|l| l.client.clone());
        let identity = json!({
            "id": self.chat.room_of(&c.name).unwrap_or(0),
            "name": pc.hud.display_name.as_deref().unwrap_or(&c.name),
            // A resident's model is its record's (an `alter_agent` shows at once); an agent
            // with a key says its own at login.
            "model": self.residents.get(&c.name.to_ascii_lowercase()).and_then(|r| r.model.clone())
                .or_else(|| client.as_ref().and_then(|c| c.model.clone())),
            "class": crate::game::model::tables::class_name(c.class),
            "race": crate::game::model::tables::race_name(c.race),
            "level": c.level,
        });
        let mut identity = identity;
        if let Some(r) = self.residents.get(&c.name.to_ascii_lowercase()) {
            identity[if r.kind == "bot" { "role" } else { "seed" }] = json!(r.prompt);
            identity["agent_type"] = json!(r.kind);
        }
        let recent_actions =
            pc.hud.recent.iter().map(|r| RecentAction { at: rfc3339(r.at_us), action: r.line.clone(), result: r.status.clone() }).collect();
        let memory = client.as_ref().and_then(|c| c.memory.as_ref()).map(|m| json!({"summary": m.summary.as_str()}));
        // Each kind of player its own philosophy (the seed's): a resident persona or bot
        // its kind's, an agent with a key the general one, a person the human note.
        let instructions_for = match self.residents.get(&c.name.to_ascii_lowercase()) {
            Some(r) if r.kind == "bot" => "bot",
            Some(_) => "persona",
            None if pc.is_agent => "agent",
            None => "human",
        };
        let instructions: Value = serde_json::from_str(INSTRUCTIONS).unwrap_or_default();
        let mut actions = crate::hud::schemas::with_schemas(&serde_json::from_str(ACTIONS).unwrap_or_default());
        // Agent management is listed only to agents granted it (the seed's rule).
        if !pc.hud.can_create_agents {
            if let Some(m) = actions.as_object_mut() {
                m.remove("agent_management");
            }
        }
        let meta = json!({
            "instructions": instructions.get(instructions_for).cloned().unwrap_or_default(),
            "available_actions": actions,
        });
        // Rooms: the game room always, then every other context heard, first heard first,
        // then every chat room the character belongs to (its own first).
        let mut order: Vec<Context> = vec![Context::Room];
        for h in &pc.hud.heard {
            if !order.contains(&h.context) && !matches!(h.context, Context::Chat(_)) {
                order.push(h.context.clone());
            }
        }
        order.extend(self.chat.rooms_of(&c.name).into_iter().map(Context::Chat));
        // The engine's clock (the journal's), as `last_spoke` was stamped with: never the
        // wall clock read here.
        let now = self.now_us;
        let rooms = order
            .into_iter()
            .map(|ctx| {
                let key = ctx.id();
                let spoke = pc.hud.last_spoke.get(&key).copied();
                let mut header = Map::new();
                let chat = match ctx {
                    Context::Chat(n) => self.chat.room(n),
                    _ => None,
                };
                let own = chat.is_some_and(|r| r.owner.eq_ignore_ascii_case(&c.name));
                header.insert("id".into(), if let Context::Chat(n) = ctx { json!(n) } else { json!(key) });
                header.insert("you".into(), json!(c.name));
                header.insert("is_self_room".into(), json!(own));
                header.insert("members".into(), json!(self.members_of(id, &ctx)));
                header.insert("time_since_last".into(), json!(time_since(now, spoke)));
                let since = spoke.map(|t| now.saturating_sub(t) as f64 / 1e6);
                header.insert("word_budget".into(), json!(word_budget(since, pc.hud.wpm_of(&key))));
                if let Some(r) = chat {
                    if let Some(b) = &r.billboard {
                        header.insert("billboard".into(), json!(b));
                    }
                    if own {
                        header.insert("my_keys".into(), json!(r.keys));
                        let pending: Vec<Value> =
                            r.requests.iter().map(|q| json!({"id": q.id, "requester_id": q.requester, "key_used": q.key})).collect();
                        header.insert("pending_access_requests".into(), json!(pending));
                    }
                }
                let messages = pc
                    .hud
                    .heard
                    .iter()
                    .filter(|h| h.context == ctx)
                    .map(|h| HudMessage {
                        id: h.id,
                        timestamp: rfc3339(h.at_us),
                        sender: h.shown.clone().or_else(|| h.sender.clone()).unwrap_or_else(|| Arc::from("System")),
                        you: h.you,
                        content: h.content.clone(),
                        kind: h.kind,
                        reply_to: h.reply_to,
                        reactions: self.message_ids.get(h.id).filter(|s| !s.reactions.is_empty()).map(|s| s.reactions.clone()),
                    })
                    .collect();
                RoomParts { header, attention: pc.hud.attention.get(&key).copied(), messages }
            })
            .collect();
        let parts = HudParts {
            directives: DIRECTIVES.trim().to_string(),
            identity,
            knowledge: pc.hud.knowledge.clone(),
            recent_actions,
            memory,
            mind: None,
            meta,
            rooms,
        };
        Some((parts, pc.hud.heartbeat.secs()))
    }

    /// A character's display name, if it set one (`set_name`, `alter_agent`).
    pub(crate) fn display_name(&self, id: CharId) -> Option<Arc<str>> {
        self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|pc| pc.hud.display_name.as_deref()).map(Arc::from)
    }

    /// How a character is listed among a room's members: its display name, if it set one.
    fn listed(&self, id: CharId) -> Option<String> {
        let c = self.world.ch(id)?;
        Some(c.pc.as_ref().and_then(|pc| pc.hud.display_name.clone()).unwrap_or_else(|| c.name.to_string()))
    }

    fn members_of(&self, id: CharId, ctx: &Context) -> Vec<String> {
        match ctx {
            Context::Room => {
                let Some(room) = self.world.ch(id).map(|c| c.room) else { return Vec::new() };
                self.world.rooms.get(room).map(|r| r.people.iter().filter_map(|p| self.listed(*p)).collect()).unwrap_or_default()
            }
            Context::Group => self.group_members(id).into_iter().filter_map(|m| self.listed(m)).collect(),
            Context::Chat(n) => self
                .chat
                .members(*n)
                .into_iter()
                .map(|m| self.world.players.get(&m.to_ascii_lowercase()).and_then(|p| self.listed(*p)).unwrap_or(m))
                .collect(),
            Context::Tells | Context::Channel(_) => {
                let mut names: Vec<String> = self
                    .world
                    .ch(id)
                    .and_then(|c| c.pc.as_ref())
                    .map(|pc| {
                        pc.hud.heard.iter().filter(|h| h.context == *ctx).filter_map(|h| h.sender.as_deref().map(str::to_string)).collect()
                    })
                    .unwrap_or_default();
                names.sort();
                names.dedup();
                names
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game command an agent may use is listed under some category of the HUD's
    /// `available_actions` (the data file stays in step with the command table).
    #[test]
    fn every_game_command_is_an_available_action() {
        let actions: Value = serde_json::from_str(ACTIONS).unwrap();
        let listed: Vec<&str> =
            actions.as_object().unwrap().values().flat_map(|v| v.as_array().unwrap().iter().filter_map(|x| x.as_str())).collect();
        for c in crate::game::commands::COMMANDS {
            assert!(listed.contains(&c.name), "{} is missing from data/hud/actions.json", c.name);
        }
        // And every action with a schema is listed (an agent finds it in its HUD).
        for name in crate::hud::schemas::catalog().actions.keys() {
            assert!(listed.contains(&name.as_str()), "{name} has a schema but is missing from data/hud/actions.json");
        }
        let _: Value = serde_json::from_str(INSTRUCTIONS).unwrap();
        let ins: Value = serde_json::from_str(INSTRUCTIONS).unwrap();
        for k in ["agent", "persona", "bot", "human"] {
            assert!(ins[k].is_string(), "instructions for {k}");
        }
        assert_ne!(ins["persona"], ins["bot"], "each kind its own philosophy");
    }

    /// The message index is a ring by id: the newest INDEXED_MESSAGES are found, older
    /// ones are forgotten, a reaction lands on its message, and an id older than the
    /// ring or past a gap is handled.
    #[test]
    fn the_message_index_keeps_the_newest_by_id() {
        let said = |who: &str| Said {
            sender: Some(Arc::from(who)),
            context: Context::Room,
            reactions: Default::default(),
            reacted_by: Vec::new(),
        };
        let mut ids = MessageIds::default();
        assert!(ids.get(1).is_none() && ids.get(0).is_none());
        let last = INDEXED_MESSAGES as u64 + 10;
        for id in 1..=last {
            let text: Arc<str> = Arc::from(format!("line {id}"));
            assert_eq!(ids.id_for(&text), id);
            assert_eq!(ids.id_for(&text), id, "the same broadcast, the same id");
            ids.remember(id, said(if id % 2 == 0 { "Even" } else { "Odd" }));
        }
        assert!(!ids.contains(10), "forgotten: older than the newest {INDEXED_MESSAGES}");
        assert!(ids.contains(11) && ids.contains(last) && !ids.contains(last + 1));
        assert_eq!(ids.get(12).and_then(|s| s.sender.as_deref()), Some("Even"));
        assert_eq!(ids.get(last).and_then(|s| s.sender.as_deref()), Some("Even"), "{last} is even");
        assert_eq!(ids.get(last - 1).and_then(|s| s.sender.as_deref()), Some("Odd"));
        *ids.get_mut(12).unwrap().reactions.entry("heart").or_default() += 1;
        assert_eq!(ids.get(12).unwrap().reactions.get("heart"), Some(&1));
        // An id older than the ring changes nothing.
        ids.remember(5, said("Late"));
        assert!(!ids.contains(5));
        assert_eq!(ids.said.len(), INDEXED_MESSAGES);
        // A gap: the ids between are unknown, the new one is found, the ring stays capped.
        ids.remember(last + 4, said("After"));
        assert!(!ids.contains(last + 1) && !ids.contains(last + 3));
        assert_eq!(ids.get(last + 4).and_then(|s| s.sender.as_deref()), Some("After"));
        assert_eq!(ids.said.len(), INDEXED_MESSAGES);
        // A gap wider than the ring starts it again.
        ids.remember(last + 10 * INDEXED_MESSAGES as u64, said("Far"));
        assert_eq!(ids.said.len(), 1);
        assert!(ids.contains(last + 10 * INDEXED_MESSAGES as u64) && !ids.contains(last + 4));
    }

    /// An agent's heard ring ends at its cap with no spare slots (doubling left 512 for
    /// 300: 19 KB more per agent that ever heard that much), oldest first out.
    #[tokio::test]
    async fn the_heard_ring_ends_at_its_cap_without_spare_slots() {
        let (mut e, _dir) = crate::game::tests::engine(crate::game::run::engine::EngineConfig::default());
        let record = crate::game::model::character::new_record("Heeda", 3, 0, 1, true, [13; 6], 0);
        let id = e.world.new_id();
        e.world.chars.insert(id, crate::game::model::character::Char::from_record(id, &record, 0, None));
        let tell: Arc<str> = Arc::from("Cyra tells you, 'meet me at the gate'");
        e.hear(id, EventKind::Tell, &tell, None);
        for n in 0..1000 {
            let text: Arc<str> = Arc::from(format!("Bram says, 'hello {n}'"));
            e.hear(id, EventKind::Say, &text, None);
            let heard = &e.world.ch(id).unwrap().pc.as_ref().unwrap().hud.heard;
            assert!(heard.capacity() <= HEARD_CAP.max(4), "{} slots after {} heard", heard.capacity(), n + 1);
        }
        let heard = &e.world.ch(id).unwrap().pc.as_ref().unwrap().hud.heard;
        assert_eq!(heard.len(), CONTEXT_CAP + 1, "one context keeps its own cap");
        assert_eq!(&*heard.front().unwrap().content, &*tell, "a busy room never evicts a quiet tell");
        assert_eq!(&*heard[1].content, "Bram says, 'hello 900'");
        assert_eq!(&*heard.back().unwrap().content, "Bram says, 'hello 999'");
        // Other contexts fill the ring to its cap, with no spare slots, oldest first out.
        for n in 0..1000 {
            let text: Arc<str> = Arc::from(format!("Bram gossips, 'hello {n}'"));
            e.hear(id, EventKind::Gossip, &text, None);
            let text: Arc<str> = Arc::from(format!("Bram shouts, 'hello {n}'"));
            e.hear(id, EventKind::Shout, &text, None);
        }
        let heard = &e.world.ch(id).unwrap().pc.as_ref().unwrap().hud.heard;
        assert_eq!((heard.len(), heard.capacity()), (HEARD_CAP, HEARD_CAP));
    }

    /// `time_since_last` is read on the engine's clock, which a test sets.
    #[tokio::test]
    async fn time_since_last_is_on_the_engines_clock() {
        let (mut e, _dir) = crate::game::tests::engine(crate::game::run::engine::EngineConfig::default());
        let record = crate::game::model::character::new_record("Tima", 3, 0, 1, true, [13; 6], 0);
        let id = e.world.new_id();
        e.world.chars.insert(id, crate::game::model::character::Char::from_record(id, &record, 0, None));
        e.now_us = 1_000_000_000;
        e.note_action(id, "say hello", "ok");
        e.now_us += 125_000_000;
        let (parts, _) = e.hud_parts(id).unwrap();
        let here = parts.rooms.iter().find(|r| r.header["id"] == "here").unwrap();
        assert_eq!(here.header["time_since_last"], "2 minutes");
    }

    #[test]
    fn a_broadcast_is_one_message_id_for_everyone() {
        let mut ids = MessageIds::default();
        let text: Arc<str> = Arc::from("Bram says, 'hello'");
        let a = ids.id_for(&text);
        assert_eq!(ids.id_for(&text), a, "the same broadcast");
        let again: Arc<str> = Arc::from("Bram says, 'hello'");
        assert_ne!(ids.id_for(&again), a, "the same words said again are another message");
        assert_eq!(time_since(10_000_000, None), "never");
        assert_eq!(time_since(130_000_000, Some(10_000_000)), "2 minutes");
        assert_eq!(time_since(70_000_000, Some(10_000_000)), "1 minute", "not \"1 minutes\"");
        assert_eq!(time_since(11_000_000, Some(10_000_000)), "1 second");
    }
}

//! Memorable events out of the recorded stream, with the facts the engine recorded
//! (levels at a kill, hit points and the foe at a hurt, who gave what). One extractor
//! reads one agent's records in order, session after session, and keeps the state it
//! needs between them (level, hit points, where it is).

use std::collections::HashMap;

use pawns_graph::{EventKind, MemEvent, Observed, SocialAct};
use pawns_storage::{EventRecord, RecordBody, Transition};

/// Hit points under this share of the maximum are "badly hurt" (the seed's 15 %).
pub(crate) use pawns_graph::known::HURT_PCT;
/// ... and under this, "near death".
const NEAR_DEATH_PCT: i64 = 5;

#[derive(Default)]
pub struct Extractor {
    pub events: Vec<MemEvent>,
    /// Records read.
    pub records: u64,
    level: u8,
    hp: i32,
    max_hp: i32,
    room_vnum: u32,
    fighting: Option<String>,
    names: HashMap<u32, String>,
    /// The exit the last command named, for the move that follows it.
    step: Option<String>,
    /// An item someone just gave: its arrival in the inventory is the same event.
    gift: Option<String>,
    /// The session being read is a `valence: false` one: its events count with valence 0.
    pub valence_off: bool,
}

/// The protocol's direction words, and their one-letter forms.
const DIRS: [&str; 6] = ["north", "east", "south", "west", "up", "down"];

fn direction(cmd: &str) -> Option<&'static str> {
    let c = cmd.to_ascii_lowercase();
    DIRS.iter().copied().find(|d| !c.is_empty() && d.starts_with(c.as_str()))
}

/// The words between the first and last single quote ("Ann says, 'well met'").
fn quoted(text: &str) -> &str {
    match (text.find('\''), text.rfind('\'')) {
        (Some(a), Some(b)) if b > a => &text[a + 1..b],
        _ => text,
    }
}

fn pct(hp: i32, max: i32) -> i64 {
    if max <= 0 {
        return 100;
    }
    hp.max(0) as i64 * 100 / max as i64
}

impl Extractor {
    pub fn new() -> Self {
        Self::default()
    }

    /// The exit a command names (`n` → `north`), if it names one.
    pub fn direction_word(cmd: &str) -> Option<String> {
        direction(cmd).map(str::to_string)
    }

    /// What the agent was at the last record read.
    pub fn observed(&self) -> Observed {
        Observed { level: self.level, hp: self.hp, max_hp: self.max_hp, room_name: self.room_name(self.room_vnum) }
    }

    fn room_name(&self, vnum: u32) -> String {
        self.names.get(&vnum).cloned().unwrap_or_default()
    }

    fn push(&mut self, r: &EventRecord, kind: EventKind) {
        self.push_in(r, r.room_vnum, kind);
    }

    /// An event that happened in `room` (a flight happened where it started).
    fn push_in(&mut self, r: &EventRecord, room: u32, kind: EventKind) {
        self.events.push(MemEvent {
            id: format!("{}:{}", r.session, r.seq),
            at_us: r.at_us,
            session: r.session,
            room_vnum: room,
            room_name: self.room_name(room),
            kind,
            valence_off: self.valence_off,
        });
    }

    pub fn feed(&mut self, r: &EventRecord) {
        self.records += 1;
        match &r.body {
            RecordBody::Decision(d) => {
                let (pre, post) = (&d.pre, &d.post);
                for s in [pre, post] {
                    if !s.room_name.is_empty() {
                        self.names.insert(s.room_vnum, s.room_name.to_string());
                    }
                }
                let ok = d.status == "ok";
                let cmd = d.command.to_ascii_lowercase();
                if ok && cmd.len() >= 2 && "flee".starts_with(cmd.as_str()) && post.room_vnum != pre.room_vnum {
                    let hp_pct = pct(pre.hp, pre.max_hp).clamp(0, 100) as u8;
                    self.push_in(r, pre.room_vnum, EventKind::Flee { from: pre.fighting.as_deref().map(str::to_string), hp_pct });
                }
                if ok && !d.args.is_empty() && (cmd == "say" || cmd == "'") {
                    let text = d.args.clone();
                    self.push(r, EventKind::Social { act: SocialAct::Speech, other: String::new(), by_agent: true, text });
                }
                if ok && cmd == "tell" {
                    if let Some((who, text)) = d.args.split_once(char::is_whitespace) {
                        let (other, text) = (who.to_string(), text.trim().to_string());
                        self.push(r, EventKind::Social { act: SocialAct::Speech, other, by_agent: true, text });
                    }
                }
                self.step = if ok { direction(&cmd).map(str::to_string) } else { None };
                self.level = post.level;
                self.hp = post.hp;
                self.max_hp = post.max_hp;
                self.room_vnum = post.room_vnum;
                self.fighting = post.fighting.as_deref().map(str::to_string);
            }
            RecordBody::Observation { event_type, text, from } => {
                if let (Some(who), "say" | "tell") = (from, event_type.as_str()) {
                    let text = quoted(text).to_string();
                    self.push(r, EventKind::Social { act: SocialAct::Speech, other: who.to_string(), by_agent: false, text });
                }
            }
            RecordBody::Transition(t) => self.transition(r, t),
        }
    }

    fn transition(&mut self, r: &EventRecord, t: &Transition) {
        match t {
            Transition::Kill { victim, victim_level, victim_is_player, level } => {
                let agent_level = if *level > 0 { *level } else { self.level };
                let kind = EventKind::Kill {
                    victim: victim.clone(),
                    victim_level: *victim_level,
                    agent_level,
                    victim_is_player: *victim_is_player,
                };
                self.push(r, kind);
            }
            Transition::Death { killer, .. } => {
                self.push(r, EventKind::Death { killer: killer.clone() });
                self.fighting = None;
            }
            Transition::Hp { from, to, max, by } => {
                let max = if *max > 0 { *max } else { self.max_hp };
                self.max_hp = max;
                self.hp = *to;
                let band = |hp: i32| match pct(hp, max) {
                    p if p < NEAR_DEATH_PCT => 2,
                    p if p < HURT_PCT => 1,
                    _ => 0,
                };
                // A fall into a worse band is memorable; dying is the death's memory.
                if *to > 0 && band(*to) > band(*from) {
                    let by = by.clone().or_else(|| self.fighting.clone());
                    self.push(r, EventKind::Hurt { by, hp: *to, max_hp: max });
                }
            }
            Transition::Level { from, to } => {
                self.level = *to;
                if to > from {
                    self.push(r, EventKind::LevelUp { level: *to });
                }
            }
            Transition::Room { from, to, name } => {
                self.names.insert(*to, name.clone());
                self.room_vnum = *to;
                let from_name = self.room_name(*from);
                let dir = self.step.take();
                self.push(r, EventKind::Move { from_vnum: *from, from_name, dir });
            }
            Transition::ItemAcquired { name, level, .. } => {
                if self.gift.as_deref() == Some(name.as_str()) {
                    // Remembered as the gift; only a valuable one is also a find.
                    let giver = self.gift.take();
                    if pawns_graph::valence::item_valence(*level) > 0 {
                        self.push(r, EventKind::Acquire { item: name.clone(), item_level: *level, from: giver });
                    }
                    return;
                }
                self.push(r, EventKind::Acquire { item: name.clone(), item_level: *level, from: None });
            }
            Transition::Social { act, other, by_me, text } => {
                let act = match act.as_str() {
                    "gift" => SocialAct::Gift,
                    "cooperation" => SocialAct::Cooperation,
                    "betrayal" => SocialAct::Betrayal,
                    "greet" => SocialAct::Greet,
                    "insult" => SocialAct::Insult,
                    _ => return,
                };
                let mut text = text.clone();
                if act == SocialAct::Gift && !by_me && !text.ends_with("gold coins") {
                    self.gift = Some(text.clone());
                }
                if act == SocialAct::Cooperation && !by_me && text == "assist" {
                    if let Some(foe) = &self.fighting {
                        text = format!("assist against {foe}");
                    }
                }
                self.push(r, EventKind::Social { act, other: other.clone(), by_agent: *by_me, text });
            }
            Transition::Exp { .. }
            | Transition::Mind { .. }
            | Transition::Gold { .. }
            | Transition::ItemLost { .. }
            | Transition::Equipped { .. }
            | Transition::Unequipped { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawns_storage::{DecisionRecord, StateSnapshot};

    fn rec(seq: u64, room: u32, body: RecordBody) -> EventRecord {
        EventRecord { session: 7, seq, agent: "brenda".into(), at_us: 1_000_000 * seq, room_vnum: room, body }
    }

    fn snap(hp: i32, room: u32, level: u8, fighting: Option<&str>) -> StateSnapshot {
        StateSnapshot {
            hp,
            max_hp: 100,
            room_vnum: room,
            room_name: format!("Room {room}").into(),
            level,
            fighting: fighting.map(Into::into),
            ..Default::default()
        }
    }

    fn decision(cmd: &str, args: &str, pre: StateSnapshot, post: StateSnapshot) -> RecordBody {
        RecordBody::Decision(Box::new(DecisionRecord {
            command: cmd.into(),
            args: args.into(),
            status: "ok".into(),
            pre,
            post,
            ..Default::default()
        }))
    }

    #[test]
    fn facts_become_events() {
        let mut x = Extractor::new();
        let stream = vec![
            rec(1, 10, decision("kill", "dragon", snap(100, 10, 5, None), snap(90, 10, 5, Some("a dragon")))),
            rec(
                2,
                10,
                RecordBody::Transition(Transition::Kill { victim: "a dragon".into(), victim_level: 20, victim_is_player: false, level: 5 }),
            ),
            rec(3, 10, RecordBody::Transition(Transition::Hp { from: 90, to: 12, max: 100, by: Some("a troll".into()) })),
            rec(4, 10, RecordBody::Transition(Transition::Hp { from: 12, to: 3, max: 100, by: Some("a troll".into()) })),
            rec(5, 10, RecordBody::Transition(Transition::Hp { from: 3, to: 2, max: 100, by: None })),
            rec(6, 10, decision("flee", "", snap(2, 10, 5, Some("a troll")), snap(2, 11, 5, None))),
            rec(7, 11, RecordBody::Transition(Transition::Room { from: 10, to: 11, name: "Room 11".into() })),
            rec(8, 11, decision("n", "", snap(2, 11, 5, None), snap(2, 11, 5, None))),
            rec(9, 12, RecordBody::Transition(Transition::Room { from: 11, to: 12, name: "Room 12".into() })),
            rec(
                10,
                12,
                RecordBody::Observation { event_type: "say".into(), text: "Ann says, 'well met'".into(), from: Some("Ann".into()) },
            ),
            rec(
                11,
                12,
                RecordBody::Transition(Transition::Social {
                    act: "gift".into(),
                    other: "Ann".into(),
                    by_me: false,
                    text: "a red apple".into(),
                }),
            ),
            rec(12, 12, RecordBody::Transition(Transition::ItemAcquired { vnum: 5, name: "a red apple".into(), level: 1 })),
            rec(13, 12, RecordBody::Transition(Transition::ItemAcquired { vnum: 6, name: "a crown".into(), level: 90 })),
        ];
        for r in &stream {
            x.feed(r);
        }
        let kinds: Vec<&EventKind> = x.events.iter().map(|e| &e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                &EventKind::Kill { victim: "a dragon".into(), victim_level: 20, agent_level: 5, victim_is_player: false },
                &EventKind::Hurt { by: Some("a troll".into()), hp: 12, max_hp: 100 },
                &EventKind::Hurt { by: Some("a troll".into()), hp: 3, max_hp: 100 },
                &EventKind::Flee { from: Some("a troll".into()), hp_pct: 2 },
                &EventKind::Move { from_vnum: 10, from_name: "Room 10".into(), dir: None },
                &EventKind::Move { from_vnum: 11, from_name: "Room 11".into(), dir: Some("north".into()) },
                &EventKind::Social { act: SocialAct::Speech, other: "Ann".into(), by_agent: false, text: "well met".into() },
                &EventKind::Social { act: SocialAct::Gift, other: "Ann".into(), by_agent: false, text: "a red apple".into() },
                &EventKind::Acquire { item: "a crown".into(), item_level: 90, from: None },
            ]
        );
        assert_eq!(x.events[0].id, "7:2");
        assert_eq!(x.events[0].room_name, "Room 10");
        assert_eq!(x.observed().room_name, "Room 12");
    }

    #[test]
    fn quotes_and_directions() {
        assert_eq!(quoted("Ann tells you, 'it's me'"), "it's me");
        assert_eq!(quoted("no quotes"), "no quotes");
        assert_eq!(direction("n"), Some("north"));
        assert_eq!(direction("dow"), Some("down"));
        assert_eq!(direction("look"), None);
        assert_eq!(direction(""), None);
    }
}

//! The three consolidated fields of the seed's second design, kept per agent and
//! rendered into the summary: **self-identity** (who the agent is now, its injuries,
//! goals inferred from what it has been doing), the **world map** (rooms, exits and keys
//! it has discovered) and the **social ledger** (every player met: ally, rival or wary,
//! and why). Folded from the same events as the graph, so they are as pure and as
//! idempotent: an event already absorbed is not absorbed again.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::event::{EventKind, MemEvent, SocialAct};
use crate::graph::blend;
use crate::valence::hp_pct;

/// Reasons kept per player, newest last.
const LEDGER_REASONS: usize = 3;
/// Recent events the goals are inferred from.
const RECENT: usize = 40;

/// What the agent last was (from the record's state snapshots).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub level: u8,
    pub hp: i32,
    pub max_hp: i32,
    pub room_name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub name: String,
    /// From the character (the server fills it).
    pub class: Option<String>,
    pub level: u8,
    pub hp: i32,
    pub max_hp: i32,
    pub room_name: String,
    pub kills: u32,
    pub deaths: u32,
    /// The latest injuries ("nearly killed by a cave bear"), newest last, at most 3.
    pub injuries: Vec<String>,
    /// What it seems to be doing, from its recent events.
    pub goals: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MapRoom {
    pub name: String,
    /// Exit taken → room it led to.
    pub exits: BTreeMap<String, u32>,
    /// Last visit, event time.
    pub last_us: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorldMap {
    pub rooms: BTreeMap<u32, MapRoom>,
    /// Keys the agent has held.
    pub keys: BTreeSet<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// As the game spells the name.
    pub name: String,
    /// `ally`, `rival`, `wary` or `neutral`.
    pub stance: String,
    /// Running mean of the valence of every act between them.
    pub valence: f32,
    pub met: u32,
    /// Why, newest last ("gave you a gleaming sword", "turned on you").
    pub reasons: Vec<String>,
    /// A betrayal is not forgotten by blending.
    pub betrayed: bool,
    /// When they first met, as the record has it (unix µs; 0 in ledgers older than this).
    #[serde(default)]
    pub first_us: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub identity: Identity,
    pub map: WorldMap,
    /// Lower-cased player name → entry.
    pub ledger: BTreeMap<String, LedgerEntry>,
    /// Event times already absorbed (so absorbing again changes nothing).
    pub absorbed_until_us: u64,
    /// The recent events' one-word gists, for goals.
    #[serde(default)]
    recent: Vec<String>,
}

impl Profile {
    /// Folds in events newer than any absorbed, then what the agent was last seen as.
    pub fn absorb(&mut self, events: &[MemEvent], last: Option<&Observed>) {
        let mut fresh: Vec<&MemEvent> = events.iter().filter(|e| e.at_us > self.absorbed_until_us).collect();
        fresh.sort_by(|a, b| (a.at_us, &a.id).cmp(&(b.at_us, &b.id)));
        for e in &fresh {
            self.absorb_one(e);
        }
        if let Some(e) = fresh.last() {
            self.absorbed_until_us = e.at_us;
        }
        if let Some(o) = last {
            let id = &mut self.identity;
            id.level = o.level;
            id.hp = o.hp;
            id.max_hp = o.max_hp;
            if !o.room_name.is_empty() {
                id.room_name = o.room_name.clone();
            }
        }
        self.identity.goals = goals(&self.recent, &self.identity);
    }

    fn absorb_one(&mut self, e: &MemEvent) {
        let room = self.map.rooms.entry(e.room_vnum).or_default();
        if !e.room_name.is_empty() {
            room.name = e.room_name.clone();
        }
        room.last_us = room.last_us.max(e.at_us);
        let gist = match &e.kind {
            EventKind::Move { from_vnum, from_name, dir } => {
                let from = self.map.rooms.entry(*from_vnum).or_default();
                if from.name.is_empty() {
                    from.name = from_name.clone();
                }
                if let Some(d) = dir {
                    from.exits.insert(d.clone(), e.room_vnum);
                }
                "move".to_string()
            }
            EventKind::Kill { victim, victim_is_player, .. } => {
                self.identity.kills += 1;
                if *victim_is_player {
                    self.note(e.at_us, victim, -2, "you killed them".to_string(), false);
                }
                format!("kill:{victim}")
            }
            EventKind::Death { killer } => {
                self.identity.deaths += 1;
                let how = killer.as_ref().map(|k| format!("killed by {k}")).unwrap_or_else(|| "died".into());
                self.injury(how);
                "death".into()
            }
            EventKind::Hurt { by, hp, max_hp } => {
                let how = if hp_pct(*hp, *max_hp) < 5 { "nearly killed" } else { "badly hurt" };
                self.injury(by.as_ref().map(|b| format!("{how} by {b}")).unwrap_or_else(|| how.to_string()));
                "hurt".into()
            }
            EventKind::Flee { from, .. } => format!("flee:{}", from.clone().unwrap_or_default()),
            EventKind::Acquire { item, from, .. } => {
                if item.to_lowercase().split_whitespace().any(|w| w == "key") {
                    self.map.keys.insert(item.clone());
                }
                if let Some(f) = from {
                    self.note(e.at_us, f, if e.valence_off { 0 } else { e.valence().max(2) }, format!("gave you {item}"), false);
                }
                "item".into()
            }
            EventKind::LevelUp { .. } => "level".into(),
            EventKind::Social { act, other, by_agent, text } => {
                let v = e.valence();
                let reason = match (act, by_agent) {
                    (SocialAct::Gift, false) => format!("gave you {text}"),
                    (SocialAct::Gift, true) => format!("you gave them {text}"),
                    (SocialAct::Cooperation, false) => match text.strip_prefix("assist against ") {
                        Some(foe) => format!("helped you fight {foe}"),
                        None => format!("helped you ({text})"),
                    },
                    (SocialAct::Cooperation, true) => "you helped them".to_string(),
                    (SocialAct::Betrayal, false) => "turned on you".to_string(),
                    (SocialAct::Betrayal, true) => "you turned on them".to_string(),
                    (SocialAct::Insult, false) => "insulted you".to_string(),
                    (SocialAct::Insult, true) => "you insulted them".to_string(),
                    (SocialAct::Greet, _) => "greeted".to_string(),
                    (SocialAct::Speech, _) => "talked".to_string(),
                };
                let betrayed = *act == SocialAct::Betrayal && !by_agent;
                self.note(e.at_us, other, v, reason, betrayed);
                "social".into()
            }
        };
        self.recent.push(gist);
        if self.recent.len() > RECENT {
            self.recent.remove(0);
        }
    }

    fn injury(&mut self, what: String) {
        let inj = &mut self.identity.injuries;
        inj.push(what);
        if inj.len() > 3 {
            inj.remove(0);
        }
    }

    fn note(&mut self, at_us: u64, who: &str, v: i8, reason: String, betrayed: bool) {
        if who.is_empty() {
            return;
        }
        let e = self.ledger.entry(who.to_lowercase()).or_default();
        e.name = who.to_string();
        if e.first_us == 0 || (at_us > 0 && at_us < e.first_us) {
            e.first_us = at_us;
        }
        e.valence = blend(e.valence, e.met, v as f32);
        e.met += 1;
        e.betrayed |= betrayed;
        // Small talk is a meeting, not a reason.
        if reason != "talked" && reason != "greeted" || e.reasons.is_empty() {
            e.reasons.retain(|r| *r != reason);
            e.reasons.push(reason);
            if e.reasons.len() > LEDGER_REASONS {
                e.reasons.remove(0);
            }
        }
        e.stance = stance(e).to_string();
    }

    /// The `### Self` lines.
    pub fn self_lines(&self) -> Vec<String> {
        let id = &self.identity;
        let mut who = if id.name.is_empty() { "You".to_string() } else { capital(&id.name) };
        who.push_str(&format!(", level {}", id.level));
        if let Some(c) = &id.class {
            who.push_str(&format!(" {c}"));
        }
        if id.max_hp > 0 {
            who.push_str(&format!(", {}/{} HP ({})", id.hp, id.max_hp, condition(id.hp, id.max_hp)));
        }
        if !id.room_name.is_empty() {
            who.push_str(&format!(", last in {}", id.room_name));
        }
        who.push_str(&format!(". {} kills, {} deaths.", id.kills, id.deaths));
        let mut out = vec![who];
        if !id.injuries.is_empty() {
            out.push(format!("Injuries: {}.", id.injuries.join("; ")));
        }
        if !id.goals.is_empty() {
            out.push(format!("Goals: {}.", id.goals.join("; ")));
        }
        out
    }

    /// The `### World map` lines: a count, the keys, then the rooms most recently
    /// visited with the exits taken from them.
    pub fn map_lines(&self, rooms: usize) -> Vec<String> {
        if self.map.rooms.is_empty() {
            return Vec::new();
        }
        let mut out = vec![format!("Known rooms: {}.", self.map.rooms.len())];
        if !self.map.keys.is_empty() {
            out.push(format!("Keys held: {}.", self.map.keys.iter().cloned().collect::<Vec<_>>().join(", ")));
        }
        let mut recent: Vec<(&u32, &MapRoom)> = self.map.rooms.iter().filter(|(_, r)| !r.exits.is_empty()).collect();
        recent.sort_by(|a, b| b.1.last_us.cmp(&a.1.last_us).then(a.0.cmp(b.0)));
        for (_, r) in recent.into_iter().take(rooms) {
            let exits: Vec<String> = r
                .exits
                .iter()
                .map(|(d, to)| format!("{d} to {}", self.map.rooms.get(to).map(|x| x.name.as_str()).unwrap_or("?")))
                .collect();
            out.push(format!("{}: {}.", r.name, exits.join(", ")));
        }
        out
    }

    /// The ledger's reasons for one player, for its relationship line.
    pub fn ledger_note(&self, name: &str) -> Option<String> {
        let e = self.ledger.get(&name.to_lowercase())?;
        let reasons: Vec<&str> = e.reasons.iter().rev().map(String::as_str).filter(|r| *r != "talked" && *r != "greeted").collect();
        Some(if reasons.is_empty() { e.stance.clone() } else { format!("{}: {}", e.stance, reasons.join("; ")) })
    }
}

/// ally / rival / wary / neutral.
pub fn stance(e: &LedgerEntry) -> &'static str {
    match e.valence {
        _ if e.betrayed => "rival",
        v if v <= -1.5 => "rival",
        v if v >= 1.0 => "ally",
        v if v < -0.3 => "wary",
        _ => "neutral",
    }
}

fn condition(hp: i32, max_hp: i32) -> &'static str {
    match hp_pct(hp, max_hp) {
        100 => "unhurt",
        75..=99 => "scratched",
        40..=74 => "wounded",
        15..=39 => "badly wounded",
        _ => "near death",
    }
}

/// Goals inferred from recent events.
fn goals(recent: &[String], id: &Identity) -> Vec<String> {
    let mut out = Vec::new();
    if id.max_hp > 0 && hp_pct(id.hp, id.max_hp) < 50 {
        out.push("rest and heal".to_string());
    }
    let mut prey: BTreeMap<&str, usize> = BTreeMap::new();
    for g in recent {
        if let Some(v) = g.strip_prefix("kill:") {
            *prey.entry(v).or_default() += 1;
        }
    }
    if let Some((v, n)) = prey.iter().max_by_key(|(v, n)| (**n, std::cmp::Reverse(**v))) {
        if *n >= 2 {
            out.push(format!("keep hunting {v}"));
        }
    }
    if let Some(f) = recent.iter().rev().find_map(|g| g.strip_prefix("flee:")).filter(|f| !f.is_empty()) {
        out.push(format!("avoid {f} until stronger"));
    }
    let moves = recent.iter().filter(|g| *g == "move").count();
    if moves * 2 > recent.len() && recent.len() >= 6 {
        out.push("explore".to_string());
    }
    if recent.iter().rev().take(10).any(|g| g == "level") {
        out.push("keep gaining levels".to_string());
    }
    out
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

//! Crowds. In a room holding more than [`CROWD`] people, each arrival or departure is
//! not told to everyone at once; a second's comings and goings are gathered and told
//! once ("Arriving: Ann, Bo and 27 others."). Without this a
//! crowd of N costs N messages per step and N² per pulse; with it, one per person per
//! second. Rooms below the threshold behave exactly as CircleMUD's.
//!
//! The same holds for what one person does that everyone there would see and that a
//! crowd does over and over: a guard turning someone back, someone fleeing, the dead
//! waking at the temple (an arrival). A thousand agents walking into a guild's guard
//! were a thousand room-wide messages a second, most of a big world's traffic.
//!
//! The people in a crowd take turns to hear it (by character id, a tenth of them each
//! pulse), not the whole room at once: each hears what the last second gathered, so
//! each coming and going still reaches everyone once, and a room of a thousand sends a
//! hundred notices a pulse instead of a thousand in one — a burst every reply behind
//! it in the sockets' queues waited for.

use rustc_hash::FxHashMap;
use std::sync::Arc;

use crate::game::model::world::{CharId, RoomId};
use crate::game::run::engine::Engine;
use crate::game::send::output::EventKind;

/// Occupants above which comings and goings are gathered per pulse.
pub const CROWD: usize = 30;
/// Names spelled out in a gathered notice (and in a crowded room's description).
pub const NAMES_SHOWN: usize = 10;

/// What one pulse gathered in one crowded room.
#[derive(Default)]
struct Gathered {
    arriving: Vec<String>,
    leaving: Vec<String>,
    /// "Ann fights a goblin", once per pair per pulse.
    fights: Vec<((CharId, CharId), String)>,
    /// What someone did, under its heading ("Fleeing", "Turned back by the knight
    /// templar"): (heading, who).
    deeds: Vec<(String, String)>,
}

impl Gathered {
    fn is_empty(&self) -> bool {
        self.arriving.is_empty() && self.leaving.is_empty() && self.fights.is_empty() && self.deeds.is_empty()
    }
}

/// A crowded room's last second, one slot per pulse (slot `flush % period`).
#[derive(Default)]
pub struct CrowdNote {
    slots: Vec<Gathered>,
}

/// Every crowded room's gathered second, and how many flushes have been (whose turn it is).
/// Fx-hashed: told in the same order every run (a replay makes the same records).
#[derive(Default)]
pub struct CrowdNotes {
    rooms: FxHashMap<RoomId, CrowdNote>,
    flushes: u64,
}

impl CrowdNotes {
    pub fn is_empty(&self) -> bool {
        self.rooms.is_empty()
    }

    /// What this pulse gathers in `room` (told from this pulse's flush on).
    fn now(&mut self, room: RoomId) -> &mut Gathered {
        let period = crate::game::run::engine::PULSES_PER_CROWD_NOTICE as usize;
        let slot = (self.flushes % period as u64) as usize;
        let note = self.rooms.entry(room).or_default();
        if note.slots.len() < period {
            note.slots.resize_with(period, Gathered::default);
        }
        &mut note.slots[slot]
    }
}

/// Whether the character `id` hears its crowd's notice at flush `flush` (each once
/// every `period`). Ids are hashed first: a world hands them out in strides (a player
/// and the objects of its kit), and `id % period` would leave some pulses every turn.
pub fn crowd_turn(id: CharId, flush: u64, period: u64) -> bool {
    ((id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32).wrapping_add(flush)).is_multiple_of(period)
}

/// The notice of what `slots` gathered, oldest first: `None` when nothing happened.
fn notice(slots: &[Gathered], oldest: usize) -> Option<String> {
    let ordered = || slots[oldest..].iter().chain(&slots[..oldest]);
    let arriving: Vec<&str> = ordered().flat_map(|g| g.arriving.iter().map(String::as_str)).collect();
    let leaving: Vec<&str> = ordered().flat_map(|g| g.leaving.iter().map(String::as_str)).collect();
    let mut pairs = std::collections::HashSet::new();
    let fights: Vec<&str> = ordered().flat_map(|g| g.fights.iter()).filter(|(k, _)| pairs.insert(*k)).map(|(_, l)| l.as_str()).collect();
    let mut parts = Vec::new();
    if !arriving.is_empty() {
        parts.push(format!("Arriving: {}.", name_list(&arriving, NAMES_SHOWN)));
    }
    if !leaving.is_empty() {
        parts.push(format!("Leaving: {}.", name_list(&leaving, NAMES_SHOWN)));
    }
    if !fights.is_empty() {
        parts.push(format!("Fighting around you: {}.", name_list(&fights, 3)));
    }
    // Each heading once, in the order first seen, with everyone under it.
    let mut headings: Vec<(&str, Vec<&str>)> = Vec::new();
    for (heading, who) in ordered().flat_map(|g| g.deeds.iter()) {
        match headings.iter_mut().find(|(h, _)| *h == heading.as_str()) {
            // Someone turned back (or fleeing) again within the second is named once.
            Some((_, names)) if names.contains(&who.as_str()) => {}
            Some((_, names)) => names.push(who),
            None => headings.push((heading, vec![who])),
        }
    }
    for (heading, names) in headings {
        parts.push(format!("{heading}: {}.", name_list(&names, NAMES_SHOWN)));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// "Ann, Bo and 3 others".
pub fn name_list<S: AsRef<str>>(names: &[S], shown: usize) -> String {
    let head: Vec<&str> = names.iter().take(shown).map(AsRef::as_ref).collect();
    let rest = names.len().saturating_sub(shown);
    match (head.len(), rest) {
        (0, _) => String::new(),
        (1, 0) => head[0].to_string(),
        (n, 0) => format!("{} and {}", head[..n - 1].join(", "), head[n - 1]),
        (_, r) => format!("{} and {} other{}", head.join(", "), r, if r == 1 { "" } else { "s" }),
    }
}

impl Engine {
    /// Someone came into (or left) `room`: told now, or gathered if the room is a crowd.
    pub fn announce(&mut self, room: RoomId, who: CharId, arriving: bool, text: &str) {
        // Someone sneaking comes and goes unheard.
        if self.affected(who, crate::game::rules::spells::AffectKind::Sneak) {
            return;
        }
        let name = self.pers(who);
        // The mobs here read comings and goings as the original's act() lines (tbaMUD's
        // act triggers: "leaves north.", "has entered the game.").
        if !self.dg.off && !self.dg.triggers.is_empty() && self.world.rooms[room].behaving > 0 {
            self.dg_act(room, text, who, None, None, crate::game::send::messaging::To::Room);
        }
        if self.world.rooms[room].people.len() > CROWD {
            let now = self.crowd.now(room);
            if arriving {
                now.arriving.push(name);
            } else {
                now.leaving.push(name);
            }
            return;
        }
        let (kind, ty) = if arriving { (EventKind::Enter, "enter") } else { (EventKind::Leave, "leave") };
        // "a goblin has arrived." starts a sentence: capital letter.
        self.room_event(room, &[who], kind, ty, &crate::game::send::messaging::capitalize(text), Some(&name));
    }

    /// The room `who` stands in, if it is a crowd.
    fn crowd_of(&self, who: CharId) -> Option<RoomId> {
        let room = self.world.ch(who)?.room;
        (self.world.rooms[room].people.len() > CROWD).then_some(room)
    }

    /// In a crowd, something `who` did that the whole room would be told (a guard turning
    /// them back, a flight) is gathered under `heading` for the next notice instead;
    /// returns whether it was (else the caller tells the room as CircleMUD did).
    pub fn note_crowd_deed(&mut self, who: CharId, heading: &str) -> bool {
        let Some(room) = self.crowd_of(who) else { return false };
        let name = self.pers(who);
        self.crowd.now(room).deeds.push((heading.to_string(), name));
        true
    }

    /// In a crowd, someone appearing where they stand (the dead waking at the temple) is
    /// gathered with the arrivals; returns whether it was.
    pub fn note_crowd_arrival(&mut self, who: CharId) -> bool {
        let Some(room) = self.crowd_of(who) else { return false };
        let name = self.pers(who);
        self.crowd.now(room).arriving.push(name);
        true
    }

    /// `announce` for someone where they stand: "Ann has entered the game."
    pub fn announce_here(&mut self, who: CharId, arriving: bool, rest: &str) {
        let Some(room) = self.world.ch(who).map(|c| c.room) else { return };
        let text = format!("{} {rest}", self.pers(who));
        self.announce(room, who, arriving, &text);
    }

    /// In a crowd, a blow between others is noted for the next summary instead of told
    /// to every bystander; returns whether it was noted.
    pub fn note_crowd_fight(&mut self, attacker: CharId, victim: CharId) -> bool {
        let Some(room) = self.world.ch(attacker).map(|c| c.room) else { return false };
        if self.world.rooms[room].people.len() <= CROWD {
            return false;
        }
        let key = if attacker < victim { (attacker, victim) } else { (victim, attacker) };
        let line = format!("{} fights {}", self.pers(attacker), self.pers(victim));
        let now = self.crowd.now(room);
        if !now.fights.iter().any(|(k, _)| *k == key) {
            now.fights.push((key, line));
        }
        true
    }

    /// Tells the crowd whose turn it is what their room gathered in the last second
    /// (one text per room, shared), then lets go of the oldest pulse's slot: every
    /// group has heard it.
    pub fn flush_crowds(&mut self) {
        let period = crate::game::run::engine::PULSES_PER_CROWD_NOTICE;
        let flush = self.crowd.flushes;
        let rooms: Vec<RoomId> = self.crowd.rooms.keys().copied().collect();
        // After this flush the slot `flush + 1` is reused: it is the oldest now.
        let next = ((flush + 1) % period) as usize;
        for room in rooms {
            let Some(note) = self.crowd.rooms.get(&room) else { continue };
            if let Some(text) = notice(&note.slots, next) {
                let text: Arc<str> = text.into();
                let people: Vec<CharId> = self.world.rooms[room].people.iter().copied().filter(|p| crowd_turn(*p, flush, period)).collect();
                self.tell_some(&people, EventKind::System, "crowd", &text, None);
            }
            let Some(note) = self.crowd.rooms.get_mut(&room) else { continue };
            note.slots[next] = Gathered::default();
            if note.slots.iter().all(Gathered::is_empty) {
                self.crowd.rooms.remove(&room);
            }
        }
        self.crowd.flushes += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{crowd_turn, name_list, notice, Gathered};

    #[test]
    fn everyone_gets_one_turn_per_period_and_turns_are_spread() {
        let period = 10;
        // Ids in a stride, as a world hands them out (a player, then its kit's objects).
        for stride in [1u64, 2, 5, 10, 7] {
            let mut per_pulse = [0usize; 10];
            for n in 0..1000u64 {
                let id = 5000 + n * stride;
                let turns: Vec<u64> = (0..period).filter(|p| crowd_turn(id, 1000 + p, period)).collect();
                assert_eq!(turns.len(), 1, "character {id}");
                per_pulse[turns[0] as usize] += 1;
            }
            assert!(per_pulse.iter().all(|n| (70..=130).contains(n)), "stride {stride}: {per_pulse:?}");
        }
    }

    /// What a pulse gathered is in the notice of every turn for a second, oldest first,
    /// and a fight between the same two is told once however many pulses saw it.
    #[test]
    fn a_notice_lists_the_second_oldest_first() {
        let mut slots: Vec<Gathered> = (0..4).map(|_| Gathered::default()).collect();
        assert_eq!(notice(&slots, 0), None);
        slots[3].arriving.push("Ann".into());
        slots[0].arriving.push("Bo".into());
        slots[1].leaving.push("Cy".into());
        slots[1].fights.push(((1, 2), "Ann fights a goblin".into()));
        slots[2].fights.push(((1, 2), "Ann fights a goblin".into()));
        assert_eq!(notice(&slots, 3).as_deref(), Some("Arriving: Ann and Bo. Leaving: Cy. Fighting around you: Ann fights a goblin."));
        assert_eq!(notice(&slots, 0).as_deref(), Some("Arriving: Bo and Ann. Leaving: Cy. Fighting around you: Ann fights a goblin."));
    }

    #[test]
    fn lists_read_naturally() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(name_list(&n(&["Ann"]), 10), "Ann");
        assert_eq!(name_list(&n(&["Ann", "Bo"]), 10), "Ann and Bo");
        assert_eq!(name_list(&n(&["Ann", "Bo", "Cy"]), 10), "Ann, Bo and Cy");
        assert_eq!(name_list(&n(&["Ann", "Bo", "Cy"]), 2), "Ann, Bo and 1 other");
        assert_eq!(name_list(&n(&["Ann", "Bo", "Cy", "Di"]), 2), "Ann, Bo and 2 others");
    }
}

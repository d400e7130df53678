//! Crowds. In a room holding more than [`CROWD`] people, each arrival or departure is
//! not told to everyone at once; a second's comings and goings are gathered and told
//! once ("Arriving: Ann, Bo and 27 others."). Without this a
//! crowd of N costs N messages per step and N² per pulse; with it, one per person per
//! pulse. Rooms below the threshold behave exactly as CircleMUD's.

use rustc_hash::FxHashMap;

use super::engine::Engine;
use super::output::EventKind;
use super::world::{CharId, RoomId};

/// Occupants above which comings and goings are gathered per pulse.
pub const CROWD: usize = 30;
/// Names spelled out in a gathered notice (and in a crowded room's description).
pub const NAMES_SHOWN: usize = 10;

#[derive(Default)]
pub struct CrowdNote {
    arriving: Vec<String>,
    leaving: Vec<String>,
    /// "Ann fights a goblin", once per pair per notice.
    fights: Vec<String>,
    fighting_pairs: std::collections::HashSet<(CharId, CharId)>,
}

/// Fx-hashed: told in the same order every run (a replay makes the same records).
pub type CrowdNotes = FxHashMap<RoomId, CrowdNote>;

/// Whether `room` hears its crowd notice in `pulse` (each room once every `period`).
pub fn crowd_turn(room: RoomId, pulse: u64, period: u64) -> bool {
    (room as u64).wrapping_add(pulse).is_multiple_of(period)
}

/// "Ann, Bo and 3 others".
pub fn name_list(names: &[String], shown: usize) -> String {
    let head: Vec<&str> = names.iter().take(shown).map(String::as_str).collect();
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
        if self.affected(who, super::spells::AffectKind::Sneak) {
            return;
        }
        let name = self.pers(who);
        if self.world.rooms[room].people.len() > CROWD {
            let note = self.crowd.entry(room).or_default();
            if arriving {
                note.arriving.push(name);
            } else {
                note.leaving.push(name);
            }
            return;
        }
        let (kind, ty) = if arriving { (EventKind::Enter, "enter") } else { (EventKind::Leave, "leave") };
        // "a goblin has arrived." starts a sentence: capital letter.
        self.room_event(room, &[who], kind, ty, &super::messaging::capitalize(text), Some(&name));
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
        let note = self.crowd.entry(room).or_default();
        if note.fighting_pairs.insert(key) {
            note.fights.push(line);
        }
        true
    }

    /// Tells crowded rooms their gathered comings and goings, once a second each. Rooms
    /// take turns by room number (a tenth of them each pulse), so thousands of people in
    /// crowds do not all get their notice in the same pulse: the output of a second is
    /// spread over its ten pulses instead of arriving as one burst.
    pub fn flush_crowds(&mut self) {
        let period = super::engine::PULSES_PER_CROWD_NOTICE;
        let pulse = self.pulse;
        let due: Vec<RoomId> = self.crowd.keys().copied().filter(|r| crowd_turn(*r, pulse, period)).collect();
        for room in due {
            let Some(note) = self.crowd.remove(&room) else { continue };
            let mut parts = Vec::new();
            if !note.arriving.is_empty() {
                parts.push(format!("Arriving: {}.", name_list(&note.arriving, NAMES_SHOWN)));
            }
            if !note.leaving.is_empty() {
                parts.push(format!("Leaving: {}.", name_list(&note.leaving, NAMES_SHOWN)));
            }
            if !note.fights.is_empty() {
                parts.push(format!("Fighting around you: {}.", name_list(&note.fights, 3)));
            }
            if !parts.is_empty() {
                self.room_event(room, &[], EventKind::System, "crowd", &parts.join(" "), None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{crowd_turn, name_list};

    #[test]
    fn every_room_gets_one_turn_per_period_and_turns_are_spread() {
        let period = 10;
        let mut per_pulse = [0usize; 10];
        for room in 0..1000usize {
            let turns: Vec<u64> = (0..period).filter(|p| crowd_turn(room, 1000 + p, period)).collect();
            assert_eq!(turns.len(), 1, "room {room}");
            per_pulse[turns[0] as usize] += 1;
        }
        assert!(per_pulse.iter().all(|n| *n == 100), "{per_pulse:?}");
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

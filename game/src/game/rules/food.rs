//! Hunger and thirst, in worlds that have food: `eat`, `drink`, `fill`.
//!
//! Conditions run 0..=24 (CircleMUD's scale). Each mud hour a player's fullness and
//! thirst drop by one and drunkenness fades; at zero they are told, and they regain
//! hit points, mana and moves at a quarter of the usual pace until they eat or drink.
//! In a world without any food item nobody gets hungry.

use crate::game::model::tables::item_type;
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;

pub const DRUNK: usize = 0;
pub const FULL: usize = 1;
pub const THIRST: usize = 2;
/// A new character: sober, fed, not thirsty.
pub const FRESH: [i8; 3] = [0, 24, 24];
pub(crate) const MAX_COND: i8 = 24;

/// CircleMUD's liquids: (name, drunk, full, thirst) per unit drunk.
pub const LIQUIDS: [(&str, i8, i8, i8); 16] = [
    ("water", 0, 1, 10),
    ("beer", 3, 2, 5),
    ("wine", 5, 2, 5),
    ("ale", 2, 2, 5),
    ("dark ale", 1, 2, 5),
    ("whisky", 6, 1, 4),
    ("lemonade", 0, 1, 8),
    ("firebreather", 10, 0, 0),
    ("local speciality", 3, 3, 3),
    ("slime mold juice", 0, 4, -8),
    ("milk", 0, 3, 6),
    ("tea", 0, 1, 6),
    ("coffee", 0, 1, 6),
    ("blood", 0, 2, -1),
    ("salt water", 0, 1, -2),
    ("clear water", 0, 0, 13),
];

/// One mud hour later: `conds` changed, and what to tell the player.
pub fn hour_passes(conds: &mut [i8; 3]) -> Vec<&'static str> {
    let mut said = Vec::new();
    for (i, msg) in [(FULL, "You are hungry."), (THIRST, "You are thirsty.")] {
        if conds[i] > 0 {
            conds[i] -= 1;
            if conds[i] == 0 {
                said.push(msg);
            }
        }
    }
    if conds[DRUNK] > 0 {
        conds[DRUNK] -= 1;
        if conds[DRUNK] == 0 {
            said.push("You are now sober.");
        }
    }
    said
}

/// Regeneration is a quarter as fast on an empty stomach or a dry throat.
pub fn starving(conds: &[i8; 3]) -> bool {
    conds[FULL] == 0 || conds[THIRST] == 0
}

impl Engine {
    pub(crate) fn conds(&self, ch: CharId) -> Option<[i8; 3]> {
        self.world.ch(ch).and_then(|c| c.pc.as_ref()).map(|p| p.conditions)
    }

    pub(crate) fn change_cond(&mut self, ch: CharId, which: usize, by: i32) {
        if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
            pc.conditions[which] = (pc.conditions[which] as i32 + by).clamp(0, MAX_COND as i32) as i8;
            pc.dirty = true;
        }
    }

    /// Every mud hour: players get hungrier and thirstier (if the world has food).
    pub fn hunger_tick(&mut self) {
        if !self.world.uses_food {
            return;
        }
        let ids: Vec<CharId> = self.world.players.values().copied().collect();
        for id in ids {
            let said = match self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
                Some(pc) if pc.link.is_some() => hour_passes(&mut pc.conditions),
                _ => continue,
            };
            for m in said {
                self.send_text(id, m);
            }
        }
    }

    /// A drink container or fountain: in hand first, then in the room.
    pub(crate) fn find_drink(&self, ch: CharId, arg: &str) -> Option<ObjId> {
        let c = self.world.ch(ch)?;
        if arg.is_empty() {
            return self.world.rooms[c.room]
                .contents
                .iter()
                .copied()
                .find(|o| self.world.obj(*o).is_some_and(|o| o.item_type == item_type::FOUNTAIN));
        }
        self.find_obj_in(&c.inventory, arg).or_else(|| self.find_obj_in(&self.world.rooms[c.room].contents, arg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_make_hungry_then_thirsty_and_sober() {
        let mut c = [2, 2, 1];
        assert_eq!(hour_passes(&mut c), vec!["You are thirsty."]);
        assert_eq!(c, [1, 1, 0]);
        assert!(starving(&c));
        assert_eq!(hour_passes(&mut c), vec!["You are hungry.", "You are now sober."]);
        assert_eq!(c, [0, 0, 0]);
        assert!(hour_passes(&mut c).is_empty(), "nothing more to say at zero");
        assert!(!starving(&FRESH));
    }
}

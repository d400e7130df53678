//! Periodic updates: regeneration by position, and corpses crumbling.

use crate::game::model::tables::Position;
use crate::game::model::world::ObjLoc;
use crate::game::run::engine::{Engine, PULSES_PER_REGEN};

/// Hit points regained per regeneration tick, by position (fighting: none).
pub fn hit_gain(max_hit: i32, level: u8, position: Position, fighting: bool) -> i32 {
    if fighting {
        return 0;
    }
    let base = (max_hit / 12).max(1) + level as i32 / 2;
    match position {
        Position::Sleeping => base * 2,
        Position::Resting | Position::Sitting => base * 3 / 2,
        Position::Standing => base,
        _ => 1, // stunned and worse slowly come round
    }
}

impl Engine {
    pub fn regen_tick(&mut self) {
        for c in self.world.chars.values_mut() {
            // An empty stomach or a dry throat slows everything to a quarter.
            let slow = if c.pc.as_ref().is_some_and(|p| crate::game::rules::food::starving(&p.conditions)) { 4 } else { 1 };
            let gain = hit_gain(c.max_hit, c.level, c.position, c.fighting.is_some()) / slow;
            if c.hit < c.max_hit && gain > 0 {
                c.hit = (c.hit + gain).min(c.max_hit);
                if c.hit > 0 && c.position < Position::Sleeping {
                    c.position = Position::Resting;
                }
                c.mark_dirty();
            }
            let mgain = (c.max_mana / 10).max(1) * if c.position <= Position::Resting { 2 } else { 1 } / slow;
            c.mana = (c.mana + mgain).min(c.max_mana);
            let vgain = (c.max_moves / 8).max(1) * if c.position <= Position::Resting { 2 } else { 1 } / slow;
            c.moves = (c.moves + vgain).min(c.max_moves);
        }
        // Corpses crumble; what they held falls to the floor.
        let mut expired = Vec::new();
        for o in self.world.objs.values_mut() {
            if let Some(t) = o.timer.as_mut() {
                *t = t.saturating_sub(PULSES_PER_REGEN as u32);
                if *t == 0 {
                    expired.push((o.id, o.loc));
                }
            }
        }
        for (id, loc) in expired {
            let contents = self.world.obj(id).map(|o| o.contains.clone()).unwrap_or_default();
            if let ObjLoc::Room(r) = loc {
                for c in contents {
                    self.world.obj_to_room(c, r);
                }
                self.send_room(r, &[], crate::game::send::output::EventKind::System, "A corpse crumbles into dust.", None);
            }
            self.world.extract_obj(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resting_and_sleeping_heal_faster_fighting_not_at_all() {
        let s = hit_gain(120, 4, Position::Standing, false);
        assert!(hit_gain(120, 4, Position::Resting, false) > s);
        assert!(hit_gain(120, 4, Position::Sleeping, false) > hit_gain(120, 4, Position::Resting, false));
        assert_eq!(hit_gain(120, 4, Position::Fighting, true), 0);
    }
}

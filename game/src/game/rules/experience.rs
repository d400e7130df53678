//! Experience as each family's server gives it (issue 51). CircleMUD and tbaMUD worlds
//! keep pawns's table and kill rule (`tables::exp_for_level`, `combat::kill_exp`);
//! Dark Pawns has its own, from its C source:
//!
//! - the table is `find_exp(class, level)`: the experience a character must pass to
//!   leave `level` (1,500 for level 1, … 870,000 for 12, then a formula with a class
//!   modifier), so reaching level `L` takes `find_exp(L − 1) + 1`;
//! - a kill of a mob gives its whole experience (at most 100,000), cut only when the
//!   killer is well above it (`calc_level_diff`: more than 5 levels over keeps 70 %,
//!   10 keeps 50 %, 15 keeps 30 %; a solo killer has 2 levels of slack; over level 20
//!   a fifth less); a group splits it by the members present (a hundredth off a share
//!   over 100), each share cut the same way;
//! - a character under level 2 also gains the victim's level × the damage of each blow;
//! - one gain raises at most one level (and at most 100,000).

use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::worldfile::profile::Family;

/// The most one gain gives (`max_exp_gain`).
pub const DP_MAX_GAIN: i64 = 100_000;

/// Dark Pawns's `find_exp`: what a character of `class` must pass to leave `level`.
pub fn dp_find_exp(class: u8, level: u8) -> i64 {
    const TABLE: [i64; 13] = [1, 1500, 3000, 6000, 11000, 21000, 42000, 80000, 155000, 300000, 450000, 650000, 870000];
    if (level as usize) < TABLE.len() {
        return TABLE[level as usize];
    }
    let modifier = match class {
        0 => 0.3,
        1 => 0.4,
        3 => 0.7,
        2 => 0.1,
        4 | 11 => 1.5,
        5 => 1.6,
        6 => 1.2,
        7 | 10 => 1.9,
        8 | 9 => 0.6,
        _ => 1.0,
    };
    let l = level as i64;
    // C adds a double to the integer sum and returns it as an int (truncated).
    (900_000 + (l - 13) * l * 20_000 + l * l * 1000) + (modifier * 10_000.0 * l as f64) as i64
}

/// Dark Pawns's `calc_level_diff`: a killer's share of `base` by how far it is above
/// its victim.
pub fn dp_share(level: u8, victim_level: u8, base: i64, grouped: bool) -> i64 {
    let mut share = base.clamp(1, DP_MAX_GAIN);
    let mut diff = level as i64 - victim_level as i64;
    if diff > 0 {
        if !grouped {
            diff -= 2;
        }
        let cut = if diff > 15 {
            0.7
        } else if diff > 10 {
            0.5
        } else if diff > 5 {
            0.3
        } else {
            0.0
        };
        share = (share as f64 - share as f64 * cut) as i64;
    }
    if level > 20 {
        share = (share as f64 - share as f64 * 0.2) as i64;
    }
    share.max(1)
}

/// A group's base share of a kill worth `exp` among `members` present (Dark Pawns).
pub fn dp_group_base(exp: i64, members: usize) -> i64 {
    let mut base = exp / members.max(1) as i64;
    if base > 100 {
        base = (base as f64 - base as f64 * 0.01) as i64;
    }
    base.max(1)
}

impl Engine {
    fn dark_pawns(&self) -> bool {
        self.world.profile.family == Family::DarkPawns
    }

    /// The experience a character of `class` needs to reach `level`.
    pub fn exp_to_reach(&self, class: u8, level: u8) -> i64 {
        if self.dark_pawns() {
            dp_find_exp(class, level.saturating_sub(1)) + 1
        } else {
            crate::game::model::tables::exp_for_level(level)
        }
    }

    /// Caps one gain as the world's server does (Dark Pawns: at most 100,000 and never
    /// past the level after next).
    pub(crate) fn capped_gain(&self, id: CharId, amount: i64) -> i64 {
        let Some(c) = self.world.ch(id) else { return amount };
        if !self.dark_pawns() || amount <= 0 {
            return amount;
        }
        let room = dp_find_exp(c.class, c.level.saturating_add(1)) - c.exp;
        amount.min(DP_MAX_GAIN).min(room - 1).max(0)
    }

    /// Who gains what for killing a mob worth `exp` at `victim_level`, and how each is
    /// told: Dark Pawns's rule, or pawns's (`kill_exp`, then the group's shares).
    pub(crate) fn kill_gains(&self, killer: CharId, victim_level: u8, exp: i64) -> Vec<(CharId, i64, String)> {
        let k_level = self.world.ch(killer).map(|c| c.level).unwrap_or(1);
        if !self.dark_pawns() {
            let gain = super::combat::kill_exp(exp, victim_level, k_level);
            return self.group_gain(killer, gain).into_iter().map(|(m, s)| (m, s, format!("You receive {s} experience points."))).collect();
        }
        let present = self.group_gain(killer, 1);
        if present.len() <= 1 {
            let s = dp_share(k_level, victim_level, exp.min(DP_MAX_GAIN), false);
            let line = if s > 1 { format!("You receive {s} experience points.") } else { "You receive one lousy experience point.".into() };
            return vec![(killer, s, line)];
        }
        let base = dp_group_base(exp, present.len());
        present
            .into_iter()
            .map(|(m, _)| {
                let level = self.world.ch(m).map(|c| c.level).unwrap_or(1);
                let s = dp_share(level, victim_level, base, true);
                let line = if s > 1 {
                    format!("You receive your share of experience -- {s} points.")
                } else {
                    "You receive your share of experience -- one measly little point!".into()
                };
                (m, s, line)
            })
            .collect()
    }

    /// Dark Pawns: a player under level 2 learns from each blow (the victim's level ×
    /// the damage, at most 3,000 a blow); tbaMUD: every player, every blow.
    pub(crate) fn blow_exp(&mut self, ch: CharId, victim: CharId, dam: i32) {
        let tba = self.world.profile.family == Family::TbaMud;
        if !(self.dark_pawns() || tba) || ch == victim || dam <= 0 {
            return;
        }
        let (Some(c), Some(v)) = (self.world.ch(ch), self.world.ch(victim)) else { return };
        // tbaMUD: every blow, at any level (`gain_exp(ch, GET_LEVEL(victim) * dam)`).
        if c.pc.is_none() || (!tba && c.level >= 2) {
            return;
        }
        let gain = v.level as i64 * dam.min(3000) as i64;
        self.gain_exp(ch, gain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dark_pawns_tables_are_the_c_servers() {
        assert_eq!(dp_find_exp(3, 1), 1500);
        assert_eq!(dp_find_exp(3, 12), 870_000);
        // 900000 + 0 + 169000 + 0.7 × 130000
        assert_eq!(dp_find_exp(3, 13), 1_160_000);
        assert_eq!(dp_find_exp(0, 20), 900_000 + 7 * 20 * 20_000 + 400_000 + 60_000);
        assert_eq!(dp_share(1, 1, 100, false), 100, "a level-1 kill of a 100-exp mob: 100");
        assert_eq!(dp_share(12, 1, 100, false), 70, "11 over, 9 after the slack: 70 %");
        assert_eq!(dp_share(12, 1, 100, true), 50, "grouped, no slack: 11 over keeps 50 %");
        assert_eq!(dp_share(6, 1, 100, false), 100, "within the slack: all of it");
        assert_eq!(dp_share(30, 1, 100, false), 24, "30 %, then a fifth less over level 20");
        assert_eq!(dp_share(1, 5, 0, false), 1);
        assert_eq!(dp_group_base(1000, 2), 495);
        assert_eq!(dp_group_base(150, 2), 75);
    }
}

//! Practising as Dark Pawns and tbaMUD teach it (issue 51; other worlds keep pawns's rule,
//! `spells::practice_gain`): a session adds the intelligence's `learn` value
//! (`int_app`), kept between the class's least and most per session, up to the class's
//! "learned" level (`prac_params`); a list says how good one is in words (`how_good`);
//! a new character has 2 sessions plus a level's worth (wisdom's bonus: at least 2 for
//! casters, 1 or 2 for the others), and each level brings that much again.

/// `int_app[int].learn`, intelligence 0 to 25.
const INT_LEARN: [u8; 26] = [3, 5, 7, 8, 9, 10, 11, 12, 13, 15, 17, 19, 22, 25, 30, 35, 40, 45, 50, 53, 55, 56, 57, 58, 59, 60];

/// `wis_app[wis].bonus`, wisdom 0 to 25.
const WIS_BONUS: [u8; 26] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 3, 3, 3, 4, 5, 6, 6, 6, 6, 7, 7, 7];

/// The classes that cast (mage, cleric, magus, avatar, psionic, mystic).
fn caster(class: u8) -> bool {
    matches!(class, 0 | 1 | 4 | 5 | 9 | 11)
}

/// The class's learned level, and its most and least gain per session (Dark Pawns's
/// table; `tba` for tbaMUD's, whose thieves and warriors gain at most 12 a session).
pub fn prac_params(class: u8, tba: bool) -> (u8, u8, u8) {
    match class {
        c if caster(c) => (95, 100, 25),
        2 | 6 | 8 => (85, if tba { 12 } else { 25 }, 0),
        _ => (80, if tba { 12 } else { 25 }, 0),
    }
}

/// A skill at `now` after one session, for `class` with intelligence `int`.
pub fn practised(class: u8, int: u8, now: u8, tba: bool) -> u8 {
    let (learned, max, min) = prac_params(class, tba);
    let gain = INT_LEARN[(int as usize).min(25)].clamp(min, max);
    now.saturating_add(gain).min(learned)
}

/// Sessions a level brings (and a new character's level 1).
pub fn sessions_per_level(class: u8, wis: u8) -> u32 {
    let bonus = WIS_BONUS[(wis as usize).min(25)];
    (if caster(class) { bonus.max(2) } else { bonus.clamp(1, 2) }) as u32
}

/// A new character's sessions: 2, and level 1's.
pub fn starting_sessions(class: u8, wis: u8) -> u32 {
    2 + sessions_per_level(class, wis)
}

/// How good a skill is, in the original's words.
pub fn how_good(percent: u8) -> &'static str {
    match percent {
        0 => "(not learned)",
        1..=10 => "(awful)",
        11..=20 => "(bad)",
        21..=40 => "(poor)",
        41..=55 => "(average)",
        56..=70 => "(fair)",
        71..=80 => "(good)",
        81..=85 => "(very good)",
        86..=98 => "(superb)",
        _ => "(MASTER)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_dark_pawns_s() {
        // A warrior of intelligence 13 practising kick twice: 25, then 50 — "(average)".
        assert_eq!(practised(3, 13, 0, false), 25);
        assert_eq!(practised(3, 13, 25, false), 50);
        assert_eq!(how_good(50), "(average)");
        assert_eq!(practised(3, 11, 0, false), 19, "(bad)");
        assert_eq!(practised(3, 18, 60, false), 80, "a warrior's learned level");
        assert_eq!(practised(0, 9, 0, false), 25, "a caster gains at least 25");
        assert_eq!(practised(0, 18, 90, false), 95);
        assert_eq!(practised(3, 13, 0, true), 12, "tbaMUD: a warrior gains at most 12");
        assert_eq!(practised(0, 13, 0, true), 25, "tbaMUD: a mage at least 25");
        assert_eq!(starting_sessions(3, 12), 4, "a warrior of wisdom 12");
        assert_eq!(starting_sessions(3, 9), 3);
        assert_eq!(starting_sessions(0, 18), 7);
        assert_eq!(how_good(0), "(not learned)");
        assert_eq!(how_good(100), "(MASTER)");
    }
}

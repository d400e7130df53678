//! Valence, −3 to +3, exactly as the seed's tables say, from facts the engine knew.
//!
//! Where the tables' ranges touch, the boundaries are: a kill is trivial when the victim
//! is 10 or more levels below the agent, easy at 4–9 below, challenging within ±3, epic
//! at 4 or more above. Flee: ≥80 % −3, 40–79 % −2, 20–39 % −1, under 20 % 0. Hurt:
//! under 5 % −3, 5–14 % −2, otherwise not memorable. Items: level 80+ +3, 50–79 +2.
//! Two rows the tables do not have: a death is −3 (it is at least a near-death) and a
//! level gained is +2.

use crate::event::{EventKind, SocialAct};

/// The event's valence.
pub fn valence(kind: &EventKind) -> i8 {
    match kind {
        EventKind::Kill { victim_level, agent_level, .. } => kill_valence(*victim_level, *agent_level),
        EventKind::Death { .. } => -3,
        EventKind::Flee { hp_pct, .. } => flee_valence(*hp_pct),
        EventKind::Hurt { hp, max_hp, .. } => hurt_valence(*hp, *max_hp),
        EventKind::Social { act, text, .. } => social_valence(*act, text),
        EventKind::Acquire { item_level, .. } => item_valence(*item_level),
        EventKind::LevelUp { .. } => 2,
        EventKind::Move { .. } => 0,
    }
}

pub fn kill_valence(victim_level: u8, agent_level: u8) -> i8 {
    let diff = victim_level as i32 - agent_level as i32;
    match diff {
        d if d <= -10 => 0,
        d if d < -3 => 1,
        d if d <= 3 => 2,
        _ => 3,
    }
}

pub fn flee_valence(hp_pct: u8) -> i8 {
    match hp_pct {
        80.. => -3,
        40..=79 => -2,
        20..=39 => -1,
        _ => 0,
    }
}

/// Hit points as a whole percentage of the maximum, rounded down.
pub fn hp_pct(hp: i32, max_hp: i32) -> u8 {
    if max_hp <= 0 {
        return 0;
    }
    ((hp.max(0) as i64 * 100) / max_hp as i64).clamp(0, 100) as u8
}

pub fn hurt_valence(hp: i32, max_hp: i32) -> i8 {
    match hp_pct(hp, max_hp) {
        0..=4 => -3,
        5..=14 => -2,
        _ => 0,
    }
}

pub fn item_valence(level: u8) -> i8 {
    match level {
        80.. => 3,
        50..=79 => 2,
        _ => 0,
    }
}

pub fn social_valence(act: SocialAct, text: &str) -> i8 {
    match act {
        SocialAct::Betrayal => -3,
        SocialAct::Gift => 2,
        SocialAct::Cooperation => 1,
        SocialAct::Insult => -2,
        SocialAct::Speech | SocialAct::Greet => sentiment(text),
    }
}

const WARM: &[&str] = &[
    "thanks",
    "thank",
    "ty",
    "thx",
    "friend",
    "friends",
    "help",
    "helped",
    "great",
    "welcome",
    "love",
    "ally",
    "please",
    "hello",
    "hi",
    "greetings",
    "good",
    "nice",
    "well",
    "congrats",
    "glad",
    "together",
    "group",
    "heal",
];
const HOSTILE: &[&str] = &[
    "hate", "die", "stupid", "idiot", "fool", "kill", "dead", "thief", "liar", "coward", "noob", "shut", "leave", "ugly", "curse", "damn",
];

/// Neutral speech is 0; whole words (never substrings: "skill" is not "kill") tip it to
/// +1 or −1 when one side clearly outweighs the other.
pub fn sentiment(text: &str) -> i8 {
    let mut score = 0i32;
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()) {
        let w = word.to_lowercase();
        if WARM.contains(&w.as_str()) {
            score += 1;
        } else if HOSTILE.contains(&w.as_str()) {
            score -= 1;
        }
    }
    score.signum() as i8
}

/// The parenthetical the narrative gives an event of this valence.
pub fn parenthetical(v: i8) -> Option<&'static str> {
    match v {
        3.. => Some("a significant moment"),
        2 => Some("noteworthy"),
        1 => Some("a good moment"),
        0 => None,
        -1 => Some("a setback"),
        -2 => Some("a difficult moment"),
        _ => Some("a harrowing moment"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kills_by_level_difference() {
        // Trivial: 10+ below.
        assert_eq!(kill_valence(1, 11), 0);
        assert_eq!(kill_valence(5, 30), 0);
        // Easy: 3–10 below (4..9 here, the ends belonging to the neighbours).
        assert_eq!(kill_valence(1, 10), 1);
        assert_eq!(kill_valence(6, 10), 1);
        // Challenging: within ±3.
        assert_eq!(kill_valence(7, 10), 2);
        assert_eq!(kill_valence(10, 10), 2);
        assert_eq!(kill_valence(13, 10), 2);
        // Epic: outlevels the agent.
        assert_eq!(kill_valence(14, 10), 3);
        assert_eq!(kill_valence(50, 1), 3);
    }

    #[test]
    fn flees_by_hit_points_left() {
        assert_eq!(flee_valence(100), -3);
        assert_eq!(flee_valence(80), -3);
        assert_eq!(flee_valence(79), -2);
        assert_eq!(flee_valence(40), -2);
        assert_eq!(flee_valence(39), -1);
        assert_eq!(flee_valence(20), -1);
        assert_eq!(flee_valence(19), 0);
        assert_eq!(flee_valence(0), 0);
    }

    #[test]
    fn hurts_items_social() {
        assert_eq!(hurt_valence(2, 50), -3, "4 %: near death");
        assert_eq!(hurt_valence(0, 50), -3);
        assert_eq!(hurt_valence(3, 50), -2, "6 %: badly hurt");
        assert_eq!(hurt_valence(7, 50), -2, "14 %");
        assert_eq!(hurt_valence(8, 50), 0, "16 %: not memorable");
        assert_eq!(item_valence(80), 3);
        assert_eq!(item_valence(99), 3);
        assert_eq!(item_valence(79), 2);
        assert_eq!(item_valence(50), 2);
        assert_eq!(item_valence(49), 0);
        assert_eq!(social_valence(SocialAct::Betrayal, ""), -3);
        assert_eq!(social_valence(SocialAct::Gift, ""), 2);
        assert_eq!(social_valence(SocialAct::Cooperation, ""), 1);
        assert_eq!(social_valence(SocialAct::Insult, ""), -2);
        assert_eq!(social_valence(SocialAct::Speech, "We should go north"), 0);
        assert_eq!(valence(&EventKind::LevelUp { level: 2 }), 2);
        assert_eq!(valence(&EventKind::Death { killer: None }), -3);
    }

    #[test]
    fn sentiment_reads_whole_words() {
        assert_eq!(sentiment("Thanks for the help, friend!"), 1);
        assert_eq!(sentiment("I hate you, thief"), -1);
        assert_eq!(sentiment("my skill is killing it"), 0, "substrings are not words");
        assert_eq!(sentiment("hello, you idiot"), 0, "one each way is neutral");
        assert_eq!(sentiment(""), 0);
    }

    #[test]
    fn parentheticals() {
        assert_eq!(parenthetical(3), Some("a significant moment"));
        assert_eq!(parenthetical(2), Some("noteworthy"));
        assert_eq!(parenthetical(0), None);
        assert_eq!(parenthetical(-2), Some("a difficult moment"));
    }
}

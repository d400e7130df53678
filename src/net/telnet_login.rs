//! Character creation as a sequence of choices (sex, race, class, stats), shared by
//! the telnet prompts and the JSON `char_create` flow (protocol §8).

use rand::Rng;
use serde_json::{json, Value};

use crate::game::model::character::roll_abilities;
use crate::game::model::tables::{CLASSES, RACES};

/// Dark Pawns's `hometown_menu`.
const HOMETOWN_MENU: &str = "\nChoose your home town:\n  [K]ir Drax'in  - The Main City. New players should choose this.\n  Kir-[O]shi     - The Port City.\n  [A]laozar      - The Holy City.\n\nSelect: ";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Sex,
    Race,
    Class,
    /// Dark Pawns asks where one is a citizen (telnet only: protocol §8's stages stay
    /// four; a JSON client's character is of Kir Drax'in, the city for new players).
    Hometown,
    Stats,
    Done,
}

#[derive(Debug, Clone)]
pub struct Creation {
    pub stage: Stage,
    pub sex: u8,
    pub race: u8,
    pub class: u8,
    pub abilities: [u8; 6],
    /// 1 Kir Drax'in, 2 Kir-Oshi, 3 Alaozar (Dark Pawns's `GET_HOME`); 0 none asked.
    pub hometown: u8,
    /// Whether the world asks for a hometown (Dark Pawns).
    pub asks_hometown: bool,
}

impl Default for Creation {
    fn default() -> Self {
        Self::new()
    }
}

impl Creation {
    pub fn new() -> Self {
        Creation { stage: Stage::Sex, sex: 1, race: 0, class: 3, abilities: [0; 6], hometown: 0, asks_hometown: false }
    }

    /// A creation that asks for a hometown after the class (Dark Pawns's `nanny`).
    pub fn asking_hometown(asks: bool) -> Self {
        Creation { asks_hometown: asks, ..Self::new() }
    }

    pub fn done(&self) -> bool {
        self.stage == Stage::Done
    }

    fn reroll(&mut self) {
        let mut rng = rand::thread_rng();
        self.abilities = roll_abilities(self.class, self.race, &mut |lo, hi| rng.gen_range(lo..=hi.max(lo)));
    }

    pub fn stats_line(&self) -> String {
        let a = self.abilities;
        format!("Str {} Int {} Wis {} Dex {} Con {} Cha {}", a[0], a[1], a[2], a[3], a[4], a[5])
    }

    /// The prompt for the current stage, as telnet text.
    pub fn prompt_text(&self) -> String {
        match self.stage {
            Stage::Sex => "What is your sex (M/F)? ".into(),
            Stage::Race => {
                let mut s = String::from("Select a race:\n");
                for (n, name) in RACES {
                    s.push_str(&format!("  [{n}] {name}\n"));
                }
                s.push_str("Race: ");
                s
            }
            Stage::Class => {
                let mut s = String::from("Select a class:\n");
                for (n, name) in CLASSES {
                    if *n == 8 && self.race != 0 {
                        continue;
                    }
                    s.push_str(&format!("  [{n}] {name}\n"));
                }
                s.push_str("Class: ");
                s
            }
            Stage::Hometown => HOMETOWN_MENU.into(),
            Stage::Stats => format!("Your abilities: {}\nKeep these (K) or reroll (R)? ", self.stats_line()),
            Stage::Done => String::new(),
        }
    }

    /// The prompt for the current stage, as `char_create` fields.
    pub fn prompt_json(&self) -> (&'static str, String, Option<Value>, Option<Value>) {
        match self.stage {
            Stage::Sex => ("sex", "What is your sex?".into(), Some(json!(["male", "female"])), None),
            Stage::Race => (
                "race",
                "Select a race.".into(),
                Some(json!(RACES.iter().map(|(n, s)| json!({"value": n, "name": s})).collect::<Vec<_>>())),
                None,
            ),
            Stage::Class => (
                "class",
                "Select a class.".into(),
                Some(json!(CLASSES
                    .iter()
                    .filter(|(n, _)| *n != 8 || self.race == 0)
                    .map(|(n, s)| json!({"value": n, "name": s}))
                    .collect::<Vec<_>>())),
                None,
            ),
            // Not a stage of protocol §8: a JSON creation never asks (`asks_hometown`).
            Stage::Hometown => ("hometown", HOMETOWN_MENU.trim().into(), Some(json!(["k", "o", "a"])), None),
            Stage::Stats => {
                let a = self.abilities;
                (
                    "stats",
                    "Keep these abilities or reroll?".into(),
                    Some(json!(["keep", "reroll"])),
                    Some(json!({"str": a[0], "int": a[1], "wis": a[2], "dex": a[3], "con": a[4], "cha": a[5]})),
                )
            }
            Stage::Done => ("done", String::new(), None, None),
        }
    }

    /// Applies an answer; returns an explanation when it was not accepted.
    pub fn answer(&mut self, input: &str) -> Option<String> {
        let a = input.trim().to_ascii_lowercase();
        match self.stage {
            Stage::Sex => match a.as_str() {
                "m" | "male" => {
                    self.sex = 1;
                    self.stage = Stage::Race;
                }
                "f" | "female" => {
                    self.sex = 2;
                    self.stage = Stage::Race;
                }
                _ => return Some("That is not a sex.".into()),
            },
            Stage::Race => {
                let pick = a
                    .parse::<u8>()
                    .ok()
                    .filter(|n| RACES.iter().any(|(r, _)| r == n))
                    .or_else(|| RACES.iter().find(|(_, s)| s.to_ascii_lowercase() == a).map(|(r, _)| *r));
                match pick {
                    Some(r) => {
                        self.race = r;
                        self.stage = Stage::Class;
                    }
                    None => return Some("That's not a race.".into()),
                }
            }
            Stage::Class => {
                let pick = a
                    .parse::<u8>()
                    .ok()
                    .filter(|n| CLASSES.iter().any(|(c, _)| c == n))
                    .or_else(|| CLASSES.iter().find(|(_, s)| s.to_ascii_lowercase() == a).map(|(c, _)| *c));
                match pick {
                    Some(8) if self.race != 0 => return Some("Only humans may be Ninjas.".into()),
                    Some(c) => {
                        self.class = c;
                        self.reroll();
                        self.stage = if self.asks_hometown { Stage::Hometown } else { Stage::Stats };
                    }
                    None => return Some("That's not a class.".into()),
                }
            }
            Stage::Hometown => {
                self.hometown = match a.as_str() {
                    "k" => 1,
                    "o" => 2,
                    "a" => 3,
                    _ => return Some("Invalid choice!".into()),
                };
                self.stage = Stage::Stats;
            }
            Stage::Stats => match a.as_str() {
                "k" | "keep" => self.stage = Stage::Done,
                "r" | "reroll" => self.reroll(),
                _ => return Some("Please answer K to keep or R to reroll.".into()),
            },
            Stage::Done => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_through_every_stage_and_repeats_on_bad_input() {
        let mut c = Creation::new();
        assert!(c.answer("x").is_some());
        assert_eq!(c.stage, Stage::Sex);
        assert!(c.answer("f").is_none());
        assert!(c.answer("1").is_none());
        assert_eq!(c.race, 1);
        assert!(c.answer("8").is_some(), "ninja is human only");
        assert!(c.answer("thief").is_none());
        assert_eq!(c.stage, Stage::Stats);
        let before = c.abilities;
        assert!(before.iter().all(|a| (3..=18).contains(a)));
        assert!(c.answer("r").is_none());
        assert!(c.answer("keep").is_none());
        assert!(c.done());
        assert_eq!((c.sex, c.race, c.class), (2, 1, 2));
        assert_eq!(c.hometown, 0, "not asked");
    }

    #[test]
    fn dark_pawns_asks_for_a_hometown_after_the_class() {
        let mut c = Creation::asking_hometown(true);
        for a in ["m", "0", "warrior"] {
            assert!(c.answer(a).is_none());
        }
        assert_eq!(c.stage, Stage::Hometown);
        assert!(c.prompt_text().contains("[K]ir Drax'in  - The Main City. New players should choose this."));
        assert_eq!(c.answer("x").as_deref(), Some("Invalid choice!"));
        assert!(c.answer("O").is_none());
        assert_eq!((c.hometown, c.stage), (2, Stage::Stats));
    }
}

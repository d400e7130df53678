//! Socials (`smile`, `bow Ann`, ...): the shipped set in `data/socials.txt` plus the
//! world's own `misc/socials`. They are tried after the command table, so a world can
//! never shadow a game command with a social.

use crate::game::run::engine::Engine;

impl Engine {
    /// The social a typed word names: an exact name, else the first that starts with it.
    pub fn find_social(&self, word: &str) -> Option<usize> {
        let w = word.to_ascii_lowercase();
        if w.is_empty() {
            return None;
        }
        let s = &self.world.socials;
        s.iter().position(|x| x.name == w).or_else(|| s.iter().position(|x| x.name.starts_with(&w)))
    }
}

/// What a social aimed at another player means to memory: a greeting, an insult (or a
/// threat), or nothing in particular.
pub fn social_act(name: &str) -> Option<&'static str> {
    match name {
        "greet" | "wave" | "bow" | "hug" | "smile" | "nod" | "thank" | "comfort" | "applaud" | "cheer" | "welcome" | "curtsey"
        | "shake" => Some("greet"),
        "insult" | "threaten" | "slap" | "spit" | "glare" | "snarl" | "growl" | "curse" | "taunt" | "puke" | "fart" | "frown" => {
            Some("insult")
        }
        _ => None,
    }
}

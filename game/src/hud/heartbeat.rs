//! The heartbeat (protocol §11.3): how often an agent is handed its HUD. 10 s by default,
//! between 1 and 10 s; a `thumbs_up` on one of its messages shortens it by 0.5 s, a
//! `thumbs_down` lengthens it by 0.5 s, and after every beat it drifts 0.1 s back
//! toward 10 s. `brain` and `heart` are signals only.

/// The longest (and default) interval, the shortest, and the steps, in tenths of a
/// second (exact arithmetic: 0.1 s steps never drift in floating point).
const MAX_TENTHS: u32 = 100;
const MIN_TENTHS: u32 = 10;
const REACTION_TENTHS: u32 = 5;
const DRIFT_TENTHS: u32 = 1;

/// A reaction to a message; only the thumbs change its sender's heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    ThumbsUp,
    ThumbsDown,
    Brain,
    Heart,
}

impl Reaction {
    pub fn parse(s: &str) -> Option<Reaction> {
        match s {
            "thumbs_up" => Some(Reaction::ThumbsUp),
            "thumbs_down" => Some(Reaction::ThumbsDown),
            "brain" => Some(Reaction::Brain),
            "heart" => Some(Reaction::Heart),
            _ => None,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Reaction::ThumbsUp => "thumbs_up",
            Reaction::ThumbsDown => "thumbs_down",
            Reaction::Brain => "brain",
            Reaction::Heart => "heart",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heartbeat {
    tenths: u32,
}

impl Default for Heartbeat {
    fn default() -> Self {
        Heartbeat { tenths: MAX_TENTHS }
    }
}

impl Heartbeat {
    /// The interval, in seconds.
    pub fn secs(&self) -> f64 {
        self.tenths as f64 / 10.0
    }

    /// Someone reacted to this agent's message.
    pub fn react(&mut self, r: Reaction) {
        self.tenths = match r {
            Reaction::ThumbsUp => self.tenths.saturating_sub(REACTION_TENTHS).max(MIN_TENTHS),
            Reaction::ThumbsDown => (self.tenths + REACTION_TENTHS).min(MAX_TENTHS),
            Reaction::Brain | Reaction::Heart => self.tenths,
        };
    }

    /// After a beat: drift back toward 10 s.
    pub fn beat(&mut self) {
        self.tenths = (self.tenths + DRIFT_TENTHS).min(MAX_TENTHS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thumbs_move_it_half_a_second_within_one_to_ten_and_it_drifts_back() {
        let mut h = Heartbeat::default();
        assert_eq!(h.secs(), 10.0);
        h.react(Reaction::ThumbsDown);
        assert_eq!(h.secs(), 10.0, "never above 10 s");
        for _ in 0..4 {
            h.react(Reaction::ThumbsUp);
        }
        assert_eq!(h.secs(), 8.0);
        h.beat();
        h.beat();
        assert_eq!(h.secs(), 8.2, "0.1 s back per beat");
        for _ in 0..30 {
            h.react(Reaction::ThumbsUp);
        }
        assert_eq!(h.secs(), 1.0, "never below 1 s");
        h.react(Reaction::Brain);
        h.react(Reaction::Heart);
        assert_eq!(h.secs(), 1.0, "brain and heart are signals only");
        h.react(Reaction::ThumbsDown);
        assert_eq!(h.secs(), 1.5);
        for _ in 0..200 {
            h.beat();
        }
        assert_eq!(h.secs(), 10.0);
        assert_eq!(Reaction::parse("thumbs_up"), Some(Reaction::ThumbsUp));
        assert_eq!(Reaction::parse("clap"), None);
    }
}

//! Game time. A mud hour is 630 pulses (63 seconds of play), as the design card fixes
//! it; a day is 24 of them. Shops keep hours by it, and hunger and spells count in it.

use crate::game::run::engine::Engine;

pub const PULSES_PER_MUD_HOUR: u64 = 630;
const SECS_PER_MUD_HOUR: u64 = 63;

/// The hour the clock shows at the engine's first pulse: the configured one, or the
/// hour the wall clock gives (so restarts carry on roughly where the world was).
pub fn starting_hour(configured: Option<u8>) -> u64 {
    match configured {
        Some(h) => (h % 24) as u64,
        None => {
            let secs = crate::time::unix_secs();
            (secs / SECS_PER_MUD_HOUR) % 24
        }
    }
}

/// Whether a shop with these hours is open at `hour` (CircleMUD's rule: two opening
/// spans, each inclusive).
pub fn open_at(hour: u8, open1: i32, close1: i32, open2: i32, close2: i32) -> bool {
    let h = hour as i32;
    (open1 <= h && h <= close1) || (open2 <= h && h <= close2 && (open2, close2) != (0, 0))
}

/// Whether the sun is set or down at `hour` (CircleMUD's weather: it sets at 21 and
/// rises at 5).
pub fn is_night(hour: u8) -> bool {
    !(5..21).contains(&hour)
}

impl Engine {
    /// The hour of the game day, 0..24.
    pub fn hour(&self) -> u8 {
        ((self.start_hour + self.pulse / PULSES_PER_MUD_HOUR) % 24) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shop_hours() {
        // Open 6..=18 twice over (as many Dark Pawns shops write it).
        assert!(!open_at(5, 6, 18, 6, 18));
        assert!(open_at(6, 6, 18, 6, 18));
        assert!(open_at(18, 6, 18, 6, 18));
        assert!(!open_at(19, 6, 18, 6, 18));
        // 0..28: always open.
        assert!((0..24).all(|h| open_at(h, 0, 28, 0, 0)));
        // A split day: morning and evening.
        assert!(open_at(7, 6, 11, 17, 22) && !open_at(13, 6, 11, 17, 22) && open_at(20, 6, 11, 17, 22));
        // The second span 0/0 means none (hour 0 is not open because of it).
        assert!(!open_at(0, 6, 18, 0, 0));
    }

    #[test]
    fn wall_clock_hour_is_in_range() {
        assert!(starting_hour(None) < 24);
        assert_eq!(starting_hour(Some(30)), 6);
    }
}

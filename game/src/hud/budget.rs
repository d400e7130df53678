//! The seed's token budget (protocol §11), as arithmetic: static content (system, self,
//! meta) at most half of the budget, the knowledge store at most 3,000 tokens, the rooms
//! at least half, shared by attention (a fixed `"30%"` or a dynamic `"%*"`), each room's
//! messages filled backward from the newest. Also the pacing the seed puts beside it:
//! a room's word budget from its WPM.

use serde::{Deserialize, Serialize};

/// Tokens when the caller names no budget.
pub const DEFAULT_BUDGET: usize = 10_000;
/// The smallest and largest budgets a caller may ask for.
pub const MIN_BUDGET: usize = 1_000;
pub const MAX_BUDGET: usize = 200_000;
/// The knowledge store's cap (`memory_used` is measured against it).
pub const KNOWLEDGE_CAP: usize = 3_000;
/// Words per minute a room paces at unless set (`set_wpm`: 10–200).
pub const DEFAULT_WPM: u32 = 60;
pub const MIN_WPM: u32 = 10;
pub const MAX_WPM: u32 = 200;
/// The word budget's floor and ceiling; the first message in a room gets the ceiling.
pub const MIN_WORDS: u32 = 10;
pub const MAX_WORDS: u32 = 200;

/// The HUD's budget when a request names none, by the login `tier`: small 4,000,
/// medium (and no tier) 10,000 — the seed's —, large 20,000, unlimited 100,000.
pub fn for_tier(tier: Option<&str>) -> usize {
    match tier {
        Some("small") => 4_000,
        Some("large") => 20_000,
        Some("unlimited") => 100_000,
        _ => DEFAULT_BUDGET,
    }
}

/// How much of the room budget a room gets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Attention {
    /// A fixed share, in percent.
    Fixed(f64),
    /// `%*`: an equal part of what the fixed shares leave.
    Dynamic,
}

impl Attention {
    /// `"30%"`, `"30"` or `"%*"`.
    pub fn parse(s: &str) -> Result<Attention, String> {
        let s = s.trim();
        if s == "%*" {
            return Ok(Attention::Dynamic);
        }
        let n: f64 = s.trim_end_matches('%').trim().parse().map_err(|_| format!("'{s}' is not an attention share (\"30%\" or \"%*\")"))?;
        if !(0.0..=100.0).contains(&n) {
            return Err(format!("attention {n}% is out of range (0–100)"));
        }
        Ok(Attention::Fixed(n))
    }

    pub fn label(&self) -> String {
        match self {
            Attention::Fixed(p) => format!("{p}%"),
            Attention::Dynamic => "%*".into(),
        }
    }
}

/// Each room's share in percent: fixed shares as set (scaled down together when they
/// pass 100), the rest split equally among the dynamic ones. The shares sum to at most
/// 100 (exactly 100 when any room is dynamic or the fixed ones total 100).
pub fn shares(attention: &[Attention]) -> Vec<f64> {
    let fixed: f64 = attention.iter().map(|a| if let Attention::Fixed(p) = a { *p } else { 0.0 }).sum();
    let dynamic = attention.iter().filter(|a| matches!(a, Attention::Dynamic)).count();
    let scale = if fixed > 100.0 { 100.0 / fixed } else { 1.0 };
    let left = (100.0 - fixed * scale).max(0.0);
    attention
        .iter()
        .map(|a| match a {
            Attention::Fixed(p) => p * scale,
            Attention::Dynamic => left / dynamic as f64,
        })
        .collect()
}

/// What the rooms get: the budget less the static content, which may take at most half.
pub fn rooms_budget(budget: usize, static_tokens: usize) -> usize {
    budget.saturating_sub(static_tokens.min(budget / 2))
}

/// Tokens per room: its share of the room budget, rounded down (so they never sum past it).
pub fn room_budgets(rooms_budget: usize, shares: &[f64]) -> Vec<usize> {
    shares.iter().map(|s| (rooms_budget as f64 * s.clamp(0.0, 100.0) / 100.0).floor() as usize).collect()
}

/// How many of the newest messages fit in `budget` tokens: `costs` are oldest first, and
/// the fill goes backward from the newest and stops at the first that does not fit.
pub fn fill_backward(costs: &[usize], budget: usize) -> usize {
    let mut spent = 0usize;
    let mut n = 0;
    for c in costs.iter().rev() {
        if spent + c > budget {
            break;
        }
        spent += c;
        n += 1;
    }
    n
}

/// The knowledge store's pressure, as the seed shows it: `"45%"` of the cap (at most 100).
pub fn memory_used(knowledge_tokens: usize) -> String {
    format!("{}%", (knowledge_tokens * 100 / KNOWLEDGE_CAP).min(100))
}

/// Words the agent may send next in a room: the time since it last spoke there at the
/// room's pace (WPM), within 10–200; the first message gets 200.
pub fn word_budget(secs_since_last: Option<f64>, wpm: u32) -> u32 {
    match secs_since_last {
        None => MAX_WORDS,
        Some(s) => ((s.max(0.0) * wpm.clamp(MIN_WPM, MAX_WPM) as f64 / 60.0).floor() as u32).clamp(MIN_WORDS, MAX_WORDS),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The seed's worked example: three rooms at 50/30/20 % of 5,000 tokens get 2,500,
    /// 1,500 and 1,000 — about 15, 9 and 6 messages of ~160 tokens.
    #[test]
    fn the_seeds_example_three_rooms() {
        let s = shares(&[Attention::Fixed(50.0), Attention::Fixed(30.0), Attention::Fixed(20.0)]);
        let b = room_budgets(5_000, &s);
        assert_eq!(b, vec![2_500, 1_500, 1_000]);
        let msgs = vec![160; 40];
        let fit: Vec<usize> = b.iter().map(|r| fill_backward(&msgs, *r)).collect();
        assert_eq!(fit, vec![15, 9, 6]);
        // A 10,000 budget whose static content is within half leaves the rest to rooms.
        assert_eq!(rooms_budget(10_000, 3_200), 6_800);
        // Static content past half is held to half: rooms keep at least 5,000.
        assert_eq!(rooms_budget(10_000, 7_000), 5_000);
    }

    #[test]
    fn dynamic_shares_split_what_fixed_ones_leave() {
        assert_eq!(shares(&[Attention::Fixed(40.0), Attention::Dynamic, Attention::Dynamic]), vec![40.0, 30.0, 30.0]);
        assert_eq!(shares(&[Attention::Dynamic; 4]), vec![25.0; 4]);
        // Fixed shares past 100 are scaled down together; dynamic ones then get nothing.
        assert_eq!(shares(&[Attention::Fixed(150.0), Attention::Fixed(50.0), Attention::Dynamic]), vec![75.0, 25.0, 0.0]);
        assert_eq!(Attention::parse("30%").unwrap(), Attention::Fixed(30.0));
        assert_eq!(Attention::parse(" %* ").unwrap(), Attention::Dynamic);
        assert!(Attention::parse("130%").is_err() && Attention::parse("lots").is_err());
    }

    #[test]
    fn fill_stops_at_the_first_message_that_does_not_fit() {
        // Newest last: 300 does not fit in what 100 + 50 left, so the fill stops there.
        assert_eq!(fill_backward(&[10, 300, 50, 100], 200), 2);
        assert_eq!(fill_backward(&[], 200), 0);
        assert_eq!(fill_backward(&[500], 200), 0);
    }

    #[test]
    fn memory_used_and_word_budgets() {
        assert_eq!(memory_used(1_350), "45%");
        assert_eq!(memory_used(0), "0%");
        assert_eq!(memory_used(9_000), "100%");
        assert_eq!(word_budget(None, 60), 200, "the first message is generous");
        assert_eq!(word_budget(Some(45.0), 60), 45);
        assert_eq!(word_budget(Some(2.0), 60), 10, "never below 10");
        assert_eq!(word_budget(Some(3_600.0), 60), 200, "never above 200");
        assert_eq!(word_budget(Some(30.0), 120), 60);
        assert_eq!((for_tier(None), for_tier(Some("small")), for_tier(Some("large"))), (10_000, 4_000, 20_000));
    }

    proptest::proptest! {
        /// Room budgets never sum past what the rooms were given, whatever the shares.
        #[test]
        fn room_budgets_never_exceed_the_rooms_budget(
            budget in 0usize..500_000,
            attention in proptest::collection::vec(proptest::prop_oneof![
                (0.0f64..=100.0).prop_map(Attention::Fixed),
                Just(Attention::Dynamic),
            ], 0..12),
        ) {
            let s = shares(&attention);
            prop_assert!(s.iter().sum::<f64>() <= 100.0 + 1e-9);
            let b = room_budgets(budget, &s);
            prop_assert!(b.iter().sum::<usize>() <= budget);
        }
    }
}

//! Whose turn falls in which pulse of the 4-second beat: mobs and objects act once per
//! [`PULSES_PER_MOB_AI`] pulses, each in the pulse its id picks (`id % 40`). The world
//! keeps their ids by slot as they come and go, so a pulse reads its fortieth of the
//! ids, not every character and object in the world (at 10,000 agents a pulse walked
//! 12,000 characters to find some 40 mobs).
//!
//! A slot lists its ids in ascending order (ids are handed out ascending, so a new one
//! goes last): turns are taken in id order, the same in a run and in its replay.

use crate::game::run::engine::PULSES_PER_MOB_AI;

/// Ids by their slot of the beat.
#[derive(Debug, Clone)]
pub struct TurnSlots {
    slots: Vec<Vec<u64>>,
}

impl Default for TurnSlots {
    fn default() -> Self {
        TurnSlots { slots: vec![Vec::new(); PULSES_PER_MOB_AI as usize] }
    }
}

impl TurnSlots {
    fn slot_of(id: u64) -> usize {
        (id % PULSES_PER_MOB_AI) as usize
    }

    /// Lists `id` (once, in order).
    pub fn insert(&mut self, id: u64) {
        let slot = &mut self.slots[Self::slot_of(id)];
        match slot.last() {
            Some(&last) if last >= id => {
                if let Err(at) = slot.binary_search(&id) {
                    slot.insert(at, id);
                }
            }
            _ => slot.push(id),
        }
    }

    /// Takes `id` off its slot (nothing when it is not listed).
    pub fn remove(&mut self, id: u64) {
        let slot = &mut self.slots[Self::slot_of(id)];
        if let Ok(at) = slot.binary_search(&id) {
            slot.remove(at);
        }
    }

    /// The ids whose turn is in `pulse`, ascending.
    pub fn due(&self, pulse: u64) -> &[u64] {
        &self.slots[Self::slot_of(pulse)]
    }

    /// Every id listed, slot by slot.
    pub fn all(&self) -> impl Iterator<Item = u64> + '_ {
        self.slots.iter().flatten().copied()
    }

    pub fn len(&self) -> usize {
        self.slots.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(Vec::is_empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_pulse_gets_the_ids_of_its_slot_in_order() {
        let mut s = TurnSlots::default();
        for id in [3, 43, 83, 4, 123] {
            s.insert(id);
        }
        assert_eq!(s.due(3), [3, 43, 83, 123]);
        assert_eq!(s.due(43), [3, 43, 83, 123], "pulse 43 is slot 3 again");
        assert_eq!(s.due(4), [4]);
        assert!(s.due(5).is_empty());
        s.remove(43);
        s.remove(44);
        assert_eq!(s.due(3), [3, 83, 123]);
        assert_eq!(s.len(), 4);
    }

    proptest! {
        /// Whatever comes and goes, in whatever order, each slot is what a walk over
        /// everything filtered by slot would find, sorted, each id once.
        #[test]
        fn slots_match_a_filter_over_everything(ops in proptest::collection::vec((any::<bool>(), 0u64..400), 0..300)) {
            let mut s = TurnSlots::default();
            let mut live = std::collections::BTreeSet::new();
            for (add, id) in ops {
                if add {
                    s.insert(id);
                    live.insert(id);
                } else {
                    s.remove(id);
                    live.remove(&id);
                }
            }
            for pulse in 0..PULSES_PER_MOB_AI {
                let want: Vec<u64> = live.iter().copied().filter(|id| id % PULSES_PER_MOB_AI == pulse).collect();
                prop_assert_eq!(s.due(pulse), &want[..]);
            }
            prop_assert_eq!(s.len(), live.len());
        }
    }
}

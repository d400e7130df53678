//! What happened between an agent and everyone it met, counted and never pruned: the
//! ground truth a decision's stimulus is classified by (`Stimulus.kind`). The memory
//! graph forgets (that is its job) and an ablation session feels nothing; this ledger
//! does neither, so "the mob that killed me is here" means the same in both arms of an
//! experiment. Folded by each dream from the same events as the graph; the engine adds
//! what happens during a session (`game::records::recording::relation_from_transition`).

use std::collections::BTreeMap;

use pawns_graph::{EventKind, MemEvent};
use serde::{Deserialize, Serialize};

/// Why someone present matters, and whom the agent knows of at login: the engine's
/// vocabulary (it classifies stimuli by them), kept in `pawns-graph`.
pub use pawns_graph::known::{KnownEntity, Relation};

/// One party the agent met: how often each kind of thing happened between them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EntityHistory {
    /// As the game spells the name.
    pub name: String,
    pub died_to: u32,
    pub hurt_by: u32,
    pub fled_from: u32,
    pub killed: u32,
    pub helped_by: u32,
    pub wronged_by: u32,
    pub met: u32,
    pub first_us: u64,
    pub last_us: u64,
}

impl EntityHistory {
    pub fn relation(&self) -> Relation {
        if self.died_to > 0 {
            Relation::Killer
        } else if self.wronged_by > 0 {
            Relation::Betrayer
        } else if self.hurt_by + self.fled_from > 0 {
            Relation::Attacker
        } else if self.helped_by > 0 {
            Relation::Benefactor
        } else if self.killed > 0 {
            Relation::Prey
        } else {
            Relation::Known
        }
    }
}

/// Everyone the agent met, by lower-cased name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Encounters {
    pub entities: BTreeMap<String, EntityHistory>,
    /// Event times already counted (so folding the same events again changes nothing).
    pub absorbed_until_us: u64,
}

impl Encounters {
    /// Counts the events newer than any counted before.
    pub fn absorb(&mut self, events: &[MemEvent]) {
        let from = self.absorbed_until_us;
        for e in events.iter().filter(|e| e.at_us > from) {
            self.absorbed_until_us = self.absorbed_until_us.max(e.at_us);
            let Some(other) = e.other() else { continue };
            let h = self.entities.entry(other.to_lowercase()).or_default();
            if h.met == 0 {
                h.first_us = e.at_us;
            }
            h.name = other.to_string();
            h.met += 1;
            h.last_us = h.last_us.max(e.at_us);
            match &e.kind {
                EventKind::Death { .. } => h.died_to += 1,
                EventKind::Hurt { .. } => h.hurt_by += 1,
                EventKind::Flee { .. } => h.fled_from += 1,
                EventKind::Kill { .. } => h.killed += 1,
                k => match Relation::of_event(k) {
                    Relation::Benefactor => h.helped_by += 1,
                    Relation::Betrayer => h.wronged_by += 1,
                    _ => {}
                },
            }
        }
    }

    pub fn relation(&self, name: &str) -> Relation {
        self.entities.get(&name.to_lowercase()).map(EntityHistory::relation).unwrap_or_default()
    }
}

/// Everyone the agent knows of at login: each one in the ledger, and each party of an
/// injected memory (an older memory may predate the ledger).
pub fn known_at_login(history: &Encounters, graph: &pawns_graph::StoredGraph, injected: &[String]) -> Vec<KnownEntity> {
    let mut out: BTreeMap<String, KnownEntity> = history
        .entities
        .iter()
        .map(|(k, h)| (k.clone(), KnownEntity { name: k.clone(), relation: h.relation(), memory_id: None, memory_valence: None }))
        .collect();
    let injected: std::collections::HashSet<&str> = injected.iter().map(String::as_str).collect();
    for n in graph.nodes.iter().filter(|n| injected.contains(n.id.as_str())) {
        let Some(e) = n.event.as_ref() else { continue };
        let Some(other) = e.other() else { continue };
        let key = other.to_lowercase();
        let k = out.entry(key.clone()).or_insert_with(|| KnownEntity {
            name: key,
            relation: Relation::Stranger,
            memory_id: None,
            memory_valence: None,
        });
        // Known from memories alone (older than the ledger): the strongest of them.
        k.relation = k.relation.max(Relation::of_event(&e.kind));
        let stronger = k.memory_valence.is_none_or(|v| n.valence.abs() > v.abs());
        if stronger {
            k.memory_id = Some(n.id.clone());
            k.memory_valence = Some(n.valence);
        }
    }
    out.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawns_graph::SocialAct;
    use pawns_storage::Transition;

    fn ev(n: u64, kind: EventKind) -> MemEvent {
        MemEvent { id: format!("1:{n}"), at_us: n, session: 1, room_vnum: 1, room_name: "A room".into(), kind, valence_off: false }
    }

    #[test]
    fn the_strongest_thing_that_happened_names_the_relation_and_folding_twice_counts_once() {
        let events = vec![
            ev(1, EventKind::Kill { victim: "a rat".into(), victim_level: 1, agent_level: 2, victim_is_player: false }),
            ev(2, EventKind::Hurt { by: Some("a cave bear".into()), hp: 2, max_hp: 40 }),
            ev(3, EventKind::Death { killer: Some("A cave bear".into()) }),
            ev(4, EventKind::Social { act: SocialAct::Gift, other: "Bram".into(), by_agent: false, text: "a loaf".into() }),
            ev(5, EventKind::Social { act: SocialAct::Insult, other: "Bram".into(), by_agent: false, text: "rude".into() }),
            ev(6, EventKind::Social { act: SocialAct::Greet, other: "Cora".into(), by_agent: false, text: "wave".into() }),
        ];
        let mut h = Encounters::default();
        h.absorb(&events);
        h.absorb(&events);
        assert_eq!(h.relation("a rat"), Relation::Prey);
        assert_eq!(h.relation("a cave bear"), Relation::Killer);
        assert_eq!(h.entities["a cave bear"].met, 2);
        assert_eq!(h.relation("bram"), Relation::Betrayer, "a betrayal outweighs a gift");
        assert_eq!(h.relation("cora"), Relation::Known);
        assert_eq!(h.relation("nobody"), Relation::Stranger);
    }

    #[test]
    fn a_session_transition_means_what_the_dream_will_make_of_it() {
        let hurt = |to| Transition::Hp { from: 30, to, max: 100, by: Some("A Bear".into()) };
        assert_eq!(crate::game::records::recording::relation_from_transition(&hurt(14)), Some(("a bear".into(), Relation::Attacker)));
        assert_eq!(crate::game::records::recording::relation_from_transition(&hurt(15)), None, "15 % is not badly hurt");
        let death = Transition::Death { killer: Some("A Bear".into()), exp_lost: 5 };
        assert_eq!(crate::game::records::recording::relation_from_transition(&death), Some(("a bear".into(), Relation::Killer)));
        let gift = Transition::Social { act: "gift".into(), other: "Bram".into(), by_me: false, text: "a loaf".into() };
        assert_eq!(crate::game::records::recording::relation_from_transition(&gift), Some(("bram".into(), Relation::Benefactor)));
        let given = Transition::Social { act: "gift".into(), other: "Bram".into(), by_me: true, text: "a loaf".into() };
        assert_eq!(crate::game::records::recording::relation_from_transition(&given), None);
    }
}

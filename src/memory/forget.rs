//! Forgetting one name (a branch's `--change forget:AGENT:NAME`): the entities whose name
//! holds it, every memory (event node) tied to one of them, what the encounter history and
//! the ledger kept of them; the summary is written again without them.

use std::collections::HashSet;

use pawns_graph::NodeKind;

use super::login::render_summary;
use super::AgentMemory;

/// Forgets `what` (lower case, part of a name); returns (entities, memories) removed.
pub fn about(mem: &mut AgentMemory, what: &str) -> (usize, usize) {
    let what = what.to_lowercase();
    let g = &mut mem.graph;
    let entities: HashSet<String> = g
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Entity && (n.label.to_lowercase().contains(&what) || n.id.contains(&what)))
        .map(|n| n.id.clone())
        .collect();
    let events: HashSet<String> = g
        .edges
        .iter()
        .filter_map(|e| {
            if entities.contains(&e.to) {
                Some(e.from.clone())
            } else if entities.contains(&e.from) {
                Some(e.to.clone())
            } else {
                None
            }
        })
        .filter(|id| g.nodes.iter().any(|n| &n.id == id && n.kind == NodeKind::Event))
        .collect();
    g.nodes.retain(|n| !entities.contains(&n.id) && !events.contains(&n.id));
    g.edges.retain(|e| !(entities.contains(&e.from) || entities.contains(&e.to) || events.contains(&e.from) || events.contains(&e.to)));
    mem.history.entities.retain(|k, _| !k.to_lowercase().contains(&what));
    mem.profile.ledger.retain(|k, _| !k.contains(&what));
    mem.chronicle = None;
    mem.summary = render_summary(mem, pawns_graph::summary::TIER_MEDIUM, None);
    (entities.len(), events.len())
}

#[cfg(test)]
mod tests {
    use pawns_graph::{EventKind, MemEvent, MemoryGraph, Params};

    use super::*;

    #[test]
    fn forgetting_a_name_takes_its_memories_and_leaves_the_rest() {
        let ev = |seq: u64, kind: EventKind| MemEvent {
            id: format!("1:{seq}"),
            at_us: seq * 1_000_000,
            session: 1,
            room_vnum: 3001,
            room_name: "A Shaded Path".into(),
            kind,
            valence_off: false,
        };
        let events = [
            ev(1, EventKind::Hurt { by: Some("a goblin warrior".into()), hp: 5, max_hp: 40 }),
            ev(2, EventKind::Death { killer: Some("a goblin warrior".into()) }),
            ev(3, EventKind::Kill { victim: "a cellar rat".into(), victim_level: 1, agent_level: 2, victim_is_player: false }),
        ];
        let mut g = MemoryGraph::default();
        g.dream(&events, &Params::default());
        let mut mem = AgentMemory { graph: g.to_stored(), ..Default::default() };
        mem.history.absorb(&events);
        mem.summary = render_summary(&mem, pawns_graph::summary::TIER_MEDIUM, None);
        assert!(mem.summary.text.contains("goblin"), "{}", mem.summary.text);
        let (entities, memories) = about(&mut mem, "goblin");
        assert_eq!(entities, 1);
        assert!(memories >= 1, "{memories}");
        assert!(mem.graph.nodes.iter().all(|n| !n.label.to_lowercase().contains("goblin")), "{:?}", mem.graph.nodes);
        assert!(mem.graph.nodes.iter().any(|n| n.label.contains("cellar rat")));
        assert!(!mem.summary.text.contains("goblin"), "{}", mem.summary.text);
        assert!(mem.history.entities.keys().all(|k| !k.contains("goblin")));
    }
}

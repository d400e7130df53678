//! The memory graph: events, the entities in them, the rooms they happened in and the
//! items they involved, on a petgraph `StableGraph`, with ids of their own (never
//! petgraph indices, which change as nodes are pruned and the graph is reloaded).

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::{NodeIndex, StableGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use serde::{Deserialize, Serialize};

use crate::event::{EventKind, MemEvent};
use crate::valence::item_valence;

/// Consolidation parameters (the seed's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Salience lost per consolidation cycle by what was not met again.
    pub decay_rate: f32,
    /// Nodes below this salience are removed.
    pub prune_threshold: f32,
    /// Salience gained when a node is met again.
    pub reinforce_bonus: f32,
    /// Salience never rises above this.
    pub max_salience: f32,
}

impl Default for Params {
    fn default() -> Self {
        Params { decay_rate: 0.1, prune_threshold: 0.05, reinforce_bonus: 0.2, max_salience: 2.0 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Event,
    Entity,
    Room,
    Item,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// event → the room it happened in.
    OccurredIn,
    /// event → an item it involved.
    Involved,
    /// room → a room the agent walked to from it.
    TransitionedTo,
    /// event → what the agent killed.
    Killed,
    /// event → who the agent got an item from.
    TookFrom,
    /// event → who the agent fought (died to, fled from, was hurt by).
    Fought,
    /// event → who the agent talked with, helped, betrayed, was given to by.
    Social,
    /// event → an earlier event of the same kind with the same other party.
    SimilarTo,
}

/// A node as stored: kind, stable id, what it is, how much it matters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// `ev:{session}:{seq}`, `ent:{name}`, `room:{vnum}`, `item:{name}`.
    pub id: String,
    pub kind: NodeKind,
    pub label: String,
    pub salience: f32,
    /// Events: their valence. Entities and items: the blend of every encounter's.
    pub valence: f32,
    /// When it was first and last met (event time, unix µs).
    pub first_us: u64,
    pub last_us: u64,
    pub encounters: u32,
    /// Entities: a player rather than a mob.
    #[serde(default)]
    pub is_player: bool,
    /// Event nodes: the event itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<MemEvent>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEdge {
    pub from: String,
    pub to: String,
    pub kind: EdgeKind,
}

/// The graph as JSON and as it is kept in the data file (`memory-graph.json`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StoredGraph {
    pub nodes: Vec<Node>,
    pub edges: Vec<StoredEdge>,
    /// Consolidation cycles run so far.
    pub cycles: u64,
    /// Events at or before this time have been consumed (so a pruned memory is not
    /// learned again from the same old record).
    pub consumed_until_us: u64,
}

/// What one consolidation cycle did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CycleReport {
    pub events: usize,
    pub nodes_before: usize,
    pub nodes_after: usize,
    pub pruned: usize,
    pub reinforced: usize,
}

#[derive(Debug, Clone, Default)]
pub struct MemoryGraph {
    g: StableGraph<Node, EdgeKind>,
    ids: HashMap<String, NodeIndex>,
    /// (entity, kind of event) → the newest event of that kind with that entity: what
    /// `similar_to` links to, found without scanning an entity's every event.
    latest: HashMap<(NodeIndex, std::mem::Discriminant<EventKind>), NodeIndex>,
    pub cycles: u64,
    pub consumed_until_us: u64,
}

impl MemoryGraph {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn node_count(&self) -> usize {
        self.g.node_count()
    }

    pub fn edge_count(&self) -> usize {
        self.g.edge_count()
    }

    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.g.node_weights()
    }

    pub fn node(&self, id: &str) -> Option<&Node> {
        self.ids.get(id).and_then(|i| self.g.node_weight(*i))
    }

    /// Every edge as (from id, to id, kind).
    pub fn edges(&self) -> impl Iterator<Item = (&str, &str, EdgeKind)> {
        (&self.g).edge_references().map(|e| (self.g[e.source()].id.as_str(), self.g[e.target()].id.as_str(), *e.weight()))
    }

    /// Folds new events in and runs one consolidation cycle: what was met again is
    /// reinforced, everything else decays, and what falls under the threshold is pruned
    /// (its edges with it). Events already consumed are skipped, so the same input twice
    /// changes nothing the second time; no new event, no cycle.
    pub fn dream(&mut self, events: &[MemEvent], p: &Params) -> CycleReport {
        let fresh: Vec<&MemEvent> =
            events.iter().filter(|e| e.at_us > self.consumed_until_us && !self.ids.contains_key(&event_id(e))).collect();
        let nodes_before = self.g.node_count();
        if fresh.is_empty() {
            return CycleReport { events: 0, nodes_before, nodes_after: nodes_before, pruned: 0, reinforced: 0 };
        }
        let mut touched: HashSet<NodeIndex> = HashSet::new();
        let mut reinforced = 0;
        let mut ordered = fresh;
        ordered.sort_by(|a, b| (a.at_us, &a.id).cmp(&(b.at_us, &b.id)));
        for e in &ordered {
            reinforced += self.add_event(e, p, &mut touched);
        }
        self.consumed_until_us = self.consumed_until_us.max(ordered.last().map(|e| e.at_us).unwrap_or(0));
        let pruned = self.consolidate(&touched, p);
        self.cycles += 1;
        CycleReport { events: ordered.len(), nodes_before, nodes_after: self.g.node_count(), pruned, reinforced }
    }

    /// Decay for what was not touched, then prune. Returns how many nodes were pruned.
    fn consolidate(&mut self, touched: &HashSet<NodeIndex>, p: &Params) -> usize {
        let all: Vec<NodeIndex> = self.g.node_indices().collect();
        for i in &all {
            if !touched.contains(i) {
                let n = &mut self.g[*i];
                n.salience = (n.salience - p.decay_rate).max(0.0);
            }
        }
        let doomed: Vec<NodeIndex> = all.into_iter().filter(|i| self.g[*i].salience < p.prune_threshold).collect();
        if !doomed.is_empty() {
            let gone: HashSet<NodeIndex> = doomed.iter().copied().collect();
            self.latest.retain(|(ent, _), ev| !gone.contains(ent) && !gone.contains(ev));
        }
        for i in &doomed {
            if let Some(n) = self.g.remove_node(*i) {
                self.ids.remove(&n.id);
            }
        }
        doomed.len()
    }

    /// Adds one event (or, for a move, a room transition); returns nodes reinforced.
    fn add_event(&mut self, e: &MemEvent, p: &Params, touched: &mut HashSet<NodeIndex>) -> usize {
        let v = e.valence();
        let mut reinforced = 0;
        let room = self.touch(
            format!("room:{}", e.room_vnum),
            NodeKind::Room,
            &e.room_name,
            0.3,
            0.0,
            e.at_us,
            false,
            p,
            touched,
            &mut reinforced,
        );
        if let EventKind::Move { from_vnum, from_name, .. } = &e.kind {
            let from =
                self.touch(format!("room:{from_vnum}"), NodeKind::Room, from_name, 0.3, 0.0, e.at_us, false, p, touched, &mut reinforced);
            if self.g.find_edge(from, room).is_none_or(|x| self.g[x] != EdgeKind::TransitionedTo) {
                self.g.add_edge(from, room, EdgeKind::TransitionedTo);
            }
            return reinforced;
        }
        let id = event_id(e);
        let salience = (0.3 + 0.2 * v.unsigned_abs() as f32).min(p.max_salience);
        let node = Node {
            id: id.clone(),
            kind: NodeKind::Event,
            label: crate::summary::describe(e),
            salience,
            valence: v as f32,
            first_us: e.at_us,
            last_us: e.at_us,
            encounters: 1,
            is_player: false,
            event: Some(e.clone()),
        };
        let ev = self.g.add_node(node);
        self.ids.insert(id, ev);
        touched.insert(ev);
        self.g.add_edge(ev, room, EdgeKind::OccurredIn);
        if let Some(other) = e.other() {
            // An earlier event of the same kind with the same party is recalled.
            if let Some(similar) = self.similar_to(e, ev) {
                self.g.add_edge(ev, similar, EdgeKind::SimilarTo);
                self.reinforce(similar, p, touched, &mut reinforced);
            }
            let ent = self.touch(
                entity_id(other),
                NodeKind::Entity,
                other,
                0.5,
                v as f32,
                e.at_us,
                e.other_is_player(),
                p,
                touched,
                &mut reinforced,
            );
            self.latest.insert((ent, std::mem::discriminant(&e.kind)), ev);
            let kind = match &e.kind {
                EventKind::Kill { .. } => EdgeKind::Killed,
                EventKind::Death { .. } | EventKind::Flee { .. } | EventKind::Hurt { .. } => EdgeKind::Fought,
                EventKind::Social { .. } => EdgeKind::Social,
                EventKind::Acquire { .. } => EdgeKind::TookFrom,
                EventKind::LevelUp { .. } | EventKind::Move { .. } => EdgeKind::Involved,
            };
            self.g.add_edge(ev, ent, kind);
        }
        if let EventKind::Acquire { item, item_level, .. } = &e.kind {
            let iv = item_valence(*item_level);
            let salience = 0.3 + 0.2 * iv.unsigned_abs() as f32;
            let it = self.touch(
                format!("item:{}", item.to_lowercase()),
                NodeKind::Item,
                item,
                salience,
                iv as f32,
                e.at_us,
                false,
                p,
                touched,
                &mut reinforced,
            );
            self.g.add_edge(ev, it, EdgeKind::Involved);
        }
        reinforced
    }

    /// The newest earlier event with the same kind and the same other party.
    fn similar_to(&self, e: &MemEvent, except: NodeIndex) -> Option<NodeIndex> {
        let other = e.other()?.to_lowercase();
        let ent = *self.ids.get(&entity_id(&other))?;
        if let Some(&i) = self.latest.get(&(ent, std::mem::discriminant(&e.kind))) {
            if i != except {
                return Some(i);
            }
        }
        self.g
            .neighbors_directed(ent, petgraph::Direction::Incoming)
            .filter(|i| *i != except)
            .filter(|i| self.g[*i].event.as_ref().is_some_and(|o| std::mem::discriminant(&o.kind) == std::mem::discriminant(&e.kind)))
            .max_by_key(|i| self.g[*i].first_us)
    }

    fn reinforce(&mut self, i: NodeIndex, p: &Params, touched: &mut HashSet<NodeIndex>, reinforced: &mut usize) {
        let n = &mut self.g[i];
        n.salience = (n.salience + p.reinforce_bonus).min(p.max_salience);
        touched.insert(i);
        *reinforced += 1;
    }

    /// Finds or makes a node; meeting it again reinforces it and blends its valence.
    #[allow(clippy::too_many_arguments)]
    fn touch(
        &mut self,
        id: String,
        kind: NodeKind,
        label: &str,
        salience: f32,
        v: f32,
        at_us: u64,
        is_player: bool,
        p: &Params,
        touched: &mut HashSet<NodeIndex>,
        reinforced: &mut usize,
    ) -> NodeIndex {
        if let Some(&i) = self.ids.get(&id) {
            let n = &mut self.g[i];
            n.valence = blend(n.valence, n.encounters, v);
            n.encounters += 1;
            n.last_us = n.last_us.max(at_us);
            n.is_player |= is_player;
            if !label.is_empty() {
                n.label = label.to_string();
            }
            if !touched.contains(&i) {
                self.reinforce(i, p, touched, reinforced);
            }
            return i;
        }
        let i = self.g.add_node(Node {
            id: id.clone(),
            kind,
            label: label.to_string(),
            salience: salience.min(p.max_salience),
            valence: v,
            first_us: at_us,
            last_us: at_us,
            encounters: 1,
            is_player,
            event: None,
        });
        self.ids.insert(id, i);
        touched.insert(i);
        i
    }

    pub fn to_stored(&self) -> StoredGraph {
        let mut nodes: Vec<Node> = self.g.node_weights().cloned().collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut edges: Vec<StoredEdge> =
            self.edges().map(|(from, to, kind)| StoredEdge { from: from.to_string(), to: to.to_string(), kind }).collect();
        edges.sort_by(|a, b| (&a.from, &a.to).cmp(&(&b.from, &b.to)));
        StoredGraph { nodes, edges, cycles: self.cycles, consumed_until_us: self.consumed_until_us }
    }

    /// Rebuilds the graph; edges naming a node that is not there are dropped.
    pub fn from_stored(s: StoredGraph) -> Self {
        let mut m = MemoryGraph { cycles: s.cycles, consumed_until_us: s.consumed_until_us, ..Default::default() };
        for n in s.nodes {
            let id = n.id.clone();
            let i = m.g.add_node(n);
            m.ids.insert(id, i);
        }
        for e in s.edges {
            if let (Some(&a), Some(&b)) = (m.ids.get(&e.from), m.ids.get(&e.to)) {
                m.g.add_edge(a, b, e.kind);
                // An event's edge to its other party: the newest per kind is the one recalled.
                if let (Some(ev), NodeKind::Entity) = (m.g[a].event.as_ref(), m.g[b].kind) {
                    let key = (b, std::mem::discriminant(&ev.kind));
                    let newer = m.latest.get(&key).is_none_or(|old| m.g[*old].first_us <= m.g[a].first_us);
                    if newer {
                        m.latest.insert(key, a);
                    }
                }
            }
        }
        m
    }
}

/// What an entity did to the agent and the agent to it, from the events remembered about
/// them (felt ones only: a `valence: false` memory counts for nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dealings {
    /// It killed the agent, hurt it badly, or the agent fled from it.
    pub killed_agent: u32,
    pub hurt_agent: u32,
    pub fled_from: u32,
    /// The agent killed one of it.
    pub killed: u32,
    /// When it last harmed the agent, and when the agent last killed one (unix µs).
    pub last_harm_us: u64,
    pub last_kill_us: u64,
}

impl Dealings {
    /// Whether it ever harmed the agent.
    pub fn harmed(&self) -> bool {
        self.killed_agent + self.hurt_agent + self.fled_from > 0
    }
}

impl MemoryGraph {
    /// What an entity (by id, `entity_id`) and the agent did to each other.
    pub fn dealings(&self, entity: &str) -> Dealings {
        let mut d = Dealings::default();
        let Some(&ent) = self.ids.get(entity) else { return d };
        for i in self.g.neighbors_directed(ent, petgraph::Direction::Incoming) {
            let Some(e) = self.g[i].event.as_ref().filter(|e| !e.valence_off) else { continue };
            match &e.kind {
                EventKind::Death { .. } => d.killed_agent += 1,
                EventKind::Hurt { .. } => d.hurt_agent += 1,
                EventKind::Flee { .. } => d.fled_from += 1,
                EventKind::Kill { .. } => {
                    d.killed += 1;
                    d.last_kill_us = d.last_kill_us.max(e.at_us);
                    continue;
                }
                _ => continue,
            }
            d.last_harm_us = d.last_harm_us.max(e.at_us);
        }
        d
    }
}

/// Running mean of every encounter's valence.
pub fn blend(old: f32, encounters: u32, v: f32) -> f32 {
    (old * encounters as f32 + v) / (encounters as f32 + 1.0)
}

pub fn event_id(e: &MemEvent) -> String {
    format!("ev:{}", e.id)
}

pub fn entity_id(name: &str) -> String {
    format!("ent:{}", name.to_lowercase())
}

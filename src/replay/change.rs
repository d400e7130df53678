//! The one change a branch makes (`pawns branch --change …`): to an agent's memory (in
//! the branch's file, at the branch point), or to the fleet that plays on.

use std::fmt;

use pawns_storage::{mind::layer, Store, StoreError};

use crate::agent::Policy;
use crate::memory::AgentMemory;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The same future, played again: a control.
    None,
    /// The agent's memory goes (`about` none: all of it — graph, summary, its own layers;
    /// else what it remembers of that name: the entity and every memory tied to it).
    Forget { agent: String, about: Option<String> },
    /// Two agents wake with each other's memory.
    Swap { a: String, b: String },
    /// Valence off from here on, for one agent or (none) every agent.
    ValenceOff { agent: Option<String> },
    /// Another policy, for one agent or every agent.
    Policy { agent: Option<String>, policy: Policy },
    /// Another model for the agents on the model.
    Model { model: String },
    /// The agent does not come back.
    Remove { agent: String },
}

const FORMS: &str = "none | forget:AGENT | forget:AGENT:NAME | swap:A:B | valence-off[:AGENT] | policy:[AGENT=]fsm|llm|random | \
                     model:NAME | remove:AGENT";

impl Change {
    pub fn parse(s: &str) -> Result<Change, String> {
        let parts: Vec<&str> = s.trim().splitn(3, ':').collect();
        let name = |n: &str| -> Result<String, String> {
            crate::auth::names::check(n).map_err(|m| format!("{n:?}: {m}"))?;
            Ok(n.to_ascii_lowercase())
        };
        let policy = |p: &str| -> Result<Policy, String> {
            match p {
                "fsm" => Ok(Policy::Fsm),
                "llm" => Ok(Policy::Llm),
                "random" => Ok(Policy::Random),
                other => Err(format!("{other:?} is not a policy (fsm, llm, random)")),
            }
        };
        Ok(match parts.as_slice() {
            ["none"] => Change::None,
            ["forget", a] => Change::Forget { agent: name(a)?, about: None },
            ["forget", a, what] if !what.trim().is_empty() => Change::Forget { agent: name(a)?, about: Some(what.trim().to_lowercase()) },
            ["swap", a, b] if !a.eq_ignore_ascii_case(b) => Change::Swap { a: name(a)?, b: name(b)? },
            ["valence-off"] => Change::ValenceOff { agent: None },
            ["valence-off", a] => Change::ValenceOff { agent: Some(name(a)?) },
            ["policy", rest] => match rest.split_once('=') {
                Some((a, p)) => Change::Policy { agent: Some(name(a)?), policy: policy(p)? },
                None => Change::Policy { agent: None, policy: policy(rest)? },
            },
            ["model", m] if !m.trim().is_empty() => Change::Model { model: m.trim().to_string() },
            ["remove", a] => Change::Remove { agent: name(a)? },
            _ => return Err(format!("{s:?}: a change is one of {FORMS}")),
        })
    }

    /// The agents it names (each must be one of the run's).
    pub fn agents(&self) -> Vec<&str> {
        match self {
            Change::Forget { agent, .. } | Change::Remove { agent } => vec![agent],
            Change::Swap { a, b } => vec![a, b],
            Change::ValenceOff { agent: Some(a) } | Change::Policy { agent: Some(a), .. } => vec![a],
            _ => vec![],
        }
    }

    /// Makes the change to the memory in the branch's file. Returns what it did.
    pub fn apply_to_memory(&self, store: &Store) -> Result<String, StoreError> {
        match self {
            Change::Forget { agent, about: None } => {
                let mem: Option<AgentMemory> = store.memory(agent)?;
                let n = mem.as_ref().map(|m| m.graph.nodes.len()).unwrap_or(0);
                store.put_memory(agent, &AgentMemory { watermark: mem.map(|m| m.watermark).unwrap_or_default(), ..Default::default() })?;
                let kept = forget_mind(store, agent)?;
                Ok(format!("{agent}'s memory removed ({n} graph nodes, {kept} records of its own layers)"))
            }
            Change::Forget { agent, about: Some(what) } => {
                let Some(mut mem) = store.memory::<AgentMemory>(agent)? else {
                    return Ok(format!("{agent} had no memory to forget {what:?} from"));
                };
                let (entities, events) = crate::memory::forget::about(&mut mem, what);
                store.put_memory(agent, &mem)?;
                Ok(format!("{agent} forgot {what:?}: {entities} entities and {events} memories tied to them"))
            }
            Change::Swap { a, b } => {
                let (ma, mb): (Option<AgentMemory>, Option<AgentMemory>) = (store.memory(a)?, store.memory(b)?);
                // Each keeps its own watermark: the record read so far is its own.
                let swap = |m: Option<AgentMemory>, own: &Option<AgentMemory>, name: &str| {
                    let mut m = m.unwrap_or_default();
                    m.watermark = own.as_ref().map(|o| o.watermark).unwrap_or_default();
                    m.profile.identity.name = name.to_string();
                    m
                };
                let (na, nb) = (swap(mb.clone(), &ma, a), swap(ma, &mb, b));
                store.put_memory(a, &na)?;
                store.put_memory(b, &nb)?;
                Ok(format!("{a} and {b} exchanged memories (graph and summary)"))
            }
            _ => Ok(String::new()),
        }
    }
}

/// Ends every live record of the agent's own layers (soul, memories, diary,
/// relationships…) as `removed`; returns how many.
fn forget_mind(store: &Store, agent: &str) -> Result<usize, StoreError> {
    let mut ended = Vec::new();
    for l in [layer::SOUL, layer::MEMORY, layer::SUMMARY, layer::DIARY, layer::RELATIONSHIP, layer::LINK] {
        for mut r in store.mind_layer(agent, l)?.into_iter().filter(|r| r.ended_us.is_none()) {
            r.ended_us = Some(crate::time::unix_us());
            r.ended = Some("removed".into());
            ended.push(r);
        }
    }
    if !ended.is_empty() {
        let mut meta = store.mind_meta(agent)?;
        meta.live_memories = 0;
        store.mind_put(agent, &ended, &meta)?;
    }
    Ok(ended.len())
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::None => write!(f, "none"),
            Change::Forget { agent, about: None } => write!(f, "forget:{agent}"),
            Change::Forget { agent, about: Some(w) } => write!(f, "forget:{agent}:{w}"),
            Change::Swap { a, b } => write!(f, "swap:{a}:{b}"),
            Change::ValenceOff { agent: None } => write!(f, "valence-off"),
            Change::ValenceOff { agent: Some(a) } => write!(f, "valence-off:{a}"),
            Change::Policy { agent: None, policy } => write!(f, "policy:{}", policy.name()),
            Change::Policy { agent: Some(a), policy } => write!(f, "policy:{a}={}", policy.name()),
            Change::Model { model } => write!(f, "model:{model}"),
            Change::Remove { agent } => write!(f, "remove:{agent}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_read_back_as_written() {
        for s in [
            "none",
            "forget:expon03",
            "forget:expon03:goblin warrior",
            "swap:expon01:expoff01",
            "valence-off",
            "valence-off:expon02",
            "policy:llm",
            "policy:expon01=random",
            "model:smollm2",
            "remove:expoff02",
        ] {
            let c = Change::parse(s).unwrap();
            assert_eq!(c.to_string(), s, "{s}");
        }
        for bad in ["", "forget", "forget:", "swap:a1:a1", "policy:dance", "model:", "teleport:x", "remove:no such"] {
            assert!(Change::parse(bad).is_err(), "{bad:?}");
        }
    }

    /// The changes to memory, made in a data file: a swap exchanges graphs and summaries
    /// but each keeps its own watermark and name; forgetting all of it empties the graph
    /// and ends the agent's own records (as `removed`, still there to read).
    #[test]
    fn memory_changes_land_in_the_file() {
        use pawns_storage::MindRecord;
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path().join("m.redb")).unwrap();
        let mem = |label: &str, session: u64| {
            let mut m = AgentMemory::default();
            m.graph.nodes.push(pawns_graph::Node {
                id: format!("ent:{label}"),
                kind: pawns_graph::NodeKind::Entity,
                label: label.into(),
                salience: 1.0,
                valence: -1.0,
                first_us: 1,
                last_us: 1,
                encounters: 1,
                is_player: false,
                event: None,
            });
            m.watermark.session = session;
            m.profile.identity.name = label.into();
            m
        };
        store.put_memory("ann", &mem("a goblin", 11)).unwrap();
        store.put_memory("bram", &mem("a cellar rat", 22)).unwrap();
        let soul = MindRecord { id: 1, layer: layer::SOUL, text: "I fear goblins.".into(), at_us: 5, ..Default::default() };
        store.mind_put("ann", &[soul], &store.mind_meta("ann").unwrap()).unwrap();

        let did = Change::parse("swap:ann:bram").unwrap().apply_to_memory(&store).unwrap();
        assert!(did.contains("exchanged"), "{did}");
        let (a, b): (AgentMemory, AgentMemory) = (store.memory("ann").unwrap().unwrap(), store.memory("bram").unwrap().unwrap());
        assert_eq!((a.graph.nodes[0].label.as_str(), a.watermark.session, a.profile.identity.name.as_str()), ("a cellar rat", 11, "ann"));
        assert_eq!((b.graph.nodes[0].label.as_str(), b.watermark.session, b.profile.identity.name.as_str()), ("a goblin", 22, "bram"));

        let did = Change::parse("forget:ann").unwrap().apply_to_memory(&store).unwrap();
        assert!(did.contains("1 graph nodes, 1 records"), "{did}");
        let a: AgentMemory = store.memory("ann").unwrap().unwrap();
        assert!(a.graph.nodes.is_empty() && a.watermark.session == 11);
        let souls = store.mind_layer("ann", layer::SOUL).unwrap();
        assert_eq!((souls.len(), souls[0].ended.as_deref()), (1, Some("removed")));
        assert_eq!(Change::parse("valence-off").unwrap().apply_to_memory(&store).unwrap(), "");
    }
}

//! What an agent is given at login (protocol §7): `memory_bootstrap` (the newest
//! session's block, how many memories it holds, how many sessions the summary covers)
//! and `memory_summary` (the whole narrative), fitted to the budget its `tier` asked for.

use pawns_graph::{build_summary_with, count_tokens, tier_budget, MemoryGraph, Summary, SummaryOptions};
use pawns_storage::Store;

use super::AgentMemory;

/// The memory messages for one login: a `pawns-graph` type (the engine carries it).
pub use pawns_graph::known::LoginMemory;

/// The soul section that heads the login summary.
fn soul_section(soul: &[String]) -> String {
    let mut s = String::from("## Soul\n\n");
    for e in soul {
        s.push_str(&format!("- {e}\n"));
    }
    s.push('\n');
    s
}

/// The summary of a stored memory at `budget` tokens, with the chronicle (if any) as its
/// first section when it fits in half the budget.
pub fn render_summary(mem: &AgentMemory, budget: usize, chronicle: Option<&str>) -> Summary {
    let graph = MemoryGraph::from_stored(mem.graph.clone());
    let section = chronicle.map(|c| format!("\n### Chronicle\n\n{}\n", c.trim())).filter(|s| count_tokens(s).saturating_mul(2) <= budget);
    let used = section.as_deref().map(count_tokens).unwrap_or(0);
    let opts = SummaryOptions { budget_tokens: budget.saturating_sub(used), utc_offset_secs: mem.utc_offset_secs };
    let mut s = build_summary_with(&graph, Some(&mem.profile), &opts);
    if let Some(sec) = section {
        let head = "## Memory\n";
        let rest = s.text.strip_prefix(head).unwrap_or(&s.text).to_string();
        s.text = format!("{head}{sec}{rest}");
        s.tokens = count_tokens(&s.text);
    }
    s
}

/// The memory for a login at `tier`, if the agent has dreamed or keeps soul entries
/// (which head the summary, always).
pub fn login_memory(store: &Store, agent: &str, tier: Option<&str>) -> Result<Option<LoginMemory>, pawns_storage::StoreError> {
    let soul: Vec<String> =
        store.mind_layer(agent, pawns_storage::mind::layer::SOUL)?.into_iter().filter(|r| r.ended.is_none()).map(|r| r.text).collect();
    let dreamed = dreamed_memory(store, agent, tier)?;
    Ok(match (dreamed, soul.is_empty()) {
        (None, true) => None,
        (None, false) => Some(LoginMemory { summary: soul_section(&soul), soul, ..Default::default() }),
        (Some(mut m), _) => {
            if !soul.is_empty() {
                m.summary = format!("{}{}", soul_section(&soul), m.summary);
                m.soul = soul;
            }
            Some(m)
        }
    })
}

/// The dreaming summary's part of a login's memory, if the agent has dreamed.
fn dreamed_memory(store: &Store, agent: &str, tier: Option<&str>) -> Result<Option<LoginMemory>, pawns_storage::StoreError> {
    let Some(mem) = store.memory::<AgentMemory>(agent)? else { return Ok(None) };
    let budget = tier_budget(tier);
    let summary = if budget == pawns_graph::summary::TIER_MEDIUM {
        mem.summary.clone()
    } else {
        render_summary(&mem, budget, mem.chronicle.as_deref())
    };
    if summary.memory_ids.is_empty() && summary.text.trim().is_empty() {
        // Nothing to tell, but whom it has met still classifies what it meets.
        let known = super::encounters::known_at_login(&mem.history, &mem.graph, &[]);
        return Ok((!known.is_empty()).then(|| LoginMemory { known, ..Default::default() }));
    }
    let count = summary.latest_block.lines().filter(|l| !l.is_empty() && !l.starts_with("###")).count();
    Ok(Some(LoginMemory {
        block: summary.latest_block.trim_start().to_string(),
        count,
        summaries: summary.sessions,
        summary: summary.text,
        known: super::encounters::known_at_login(&mem.history, &mem.graph, &summary.memory_ids),
        memory_ids: summary.memory_ids,
        soul: Vec::new(),
    }))
}

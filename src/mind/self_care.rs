//! Self-care (seed `004_*`): only at home and with at least 30 memories, the agent's live
//! memories are summarized in batches of 500 — oldest first, at most 100,000 tokens of
//! them per self-care — into thematic summaries (by the configured model; without one,
//! or when it fails, by a deterministic grouping by place and entity, so self-care
//! always completes). The summaries of one self-care hold at most 50,000 tokens. The
//! originals are archived (ended `archived`: still recalled and exported, never
//! deleted) and the meta's watermark records the newest memory summarized.

use std::collections::BTreeMap;

use pawns_storage::{MindRecord, Store};
use serde_json::{json, Value};

use super::layers::{MEMORY, SUMMARY};
use super::{Refusal, Whereabouts};

/// Memories a self-care needs at least.
pub const MIN_MEMORIES: usize = 30;
/// Memories per batch.
pub const BATCH: usize = 500;
/// Tokens of memories one self-care reads at most.
pub const CEILING_BEFORE: usize = 100_000;
/// Tokens of summaries one self-care writes at most.
pub const CEILING_AFTER: usize = 50_000;
/// How long one self-care asks the model, all batches together (the rest are grouped).
pub const MODEL_TIME: std::time::Duration = std::time::Duration::from_secs(45);
/// Memories quoted in a grouped summary, per theme.
const QUOTED: usize = 5;

/// A theme and its summary, as the model or the grouping made them.
pub type Theme = (String, String);

/// What the model is asked, per batch (one line per memory, oldest first).
pub fn prompt(batch: &[MindRecord]) -> String {
    let mut s = String::from(
        "Summarize these memories of a character in a text adventure into a few thematic summaries. \
         Answer one per line as `theme: summary` (a short theme, then at most three sentences). Keep names, places, \
         promises and debts; invent nothing.\n\n",
    );
    for r in batch {
        s.push_str(&format!("- [{}] {}\n", r.room.as_deref().unwrap_or("somewhere"), r.text));
    }
    s
}

/// Reads a model's `theme: summary` lines; `None` if it gave none.
pub fn parse_themes(text: &str) -> Option<Vec<Theme>> {
    let themes: Vec<Theme> = text
        .lines()
        .filter_map(|l| {
            let l = l.trim().trim_start_matches(['-', '*', ' ']);
            let (t, s) = l.split_once(':')?;
            let (t, s) = (t.trim().trim_matches('*').trim(), s.trim());
            (!t.is_empty() && !s.is_empty() && t.len() <= 80).then(|| (t.to_string(), s.to_string()))
        })
        .collect();
    (!themes.is_empty()).then_some(themes)
}

/// Capitalised words that begin sentences without naming anyone.
const NOT_NAMES: &[&str] = &[
    "I",
    "A",
    "An",
    "The",
    "It",
    "Its",
    "We",
    "He",
    "She",
    "They",
    "My",
    "Our",
    "His",
    "Her",
    "Their",
    "This",
    "That",
    "There",
    "These",
    "Those",
    "Today",
    "Tonight",
    "Yesterday",
    "Tomorrow",
    "When",
    "Then",
    "If",
    "But",
    "And",
    "So",
    "After",
    "Before",
    "At",
    "In",
    "On",
    "You",
    "Your",
    "Someone",
    "Nobody",
    "Everyone",
];

/// The words of a memory that name someone or something (capitalised, not a word that
/// merely begins a sentence), for grouping.
fn entities(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.chars().filter(|c| c.is_alphanumeric() || *c == '-').collect::<String>())
        .filter(|w| w.len() > 1 && w.chars().next().is_some_and(char::is_uppercase) && !NOT_NAMES.contains(&w.as_str()))
        .collect()
}

/// The deterministic summary of a batch: one theme per place, naming the entities met
/// there most often and quoting the first memories, with the span of time.
pub fn group(batch: &[MindRecord]) -> Vec<Theme> {
    let mut by_place: BTreeMap<String, Vec<&MindRecord>> = BTreeMap::new();
    for r in batch {
        by_place.entry(r.room.clone().unwrap_or_else(|| "somewhere".into())).or_default().push(r);
    }
    by_place
        .into_iter()
        .map(|(place, rs)| {
            let mut count: BTreeMap<String, usize> = BTreeMap::new();
            for r in &rs {
                for e in entities(&r.text) {
                    *count.entry(e).or_default() += 1;
                }
            }
            let mut top: Vec<(String, usize)> = count.into_iter().collect();
            top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let about = top.iter().take(3).map(|(e, n)| format!("{e} ({n})")).collect::<Vec<_>>().join(", ");
            let first = crate::record::export::rfc3339(rs.first().map_or(0, |r| r.at_us));
            let last = crate::record::export::rfc3339(rs.last().map_or(0, |r| r.at_us));
            let quoted = rs.iter().take(QUOTED).map(|r| r.text.as_str()).collect::<Vec<_>>().join(" / ");
            let more = if rs.len() > QUOTED { format!(" … and {} more", rs.len() - QUOTED) } else { String::new() };
            let theme = if about.is_empty() { place.clone() } else { format!("{place}: {}", top[0].0) };
            let summary = format!(
                "{} memories at {place} from {first} to {last}{}: {quoted}{more}",
                rs.len(),
                if about.is_empty() { String::new() } else { format!(", most about {about}") }
            );
            (theme, summary)
        })
        .collect()
}

/// The batches a self-care takes: live memories oldest first, in batches of 500, until
/// the 100,000-token ceiling.
pub fn batches(store: &Store, agent: &str) -> Result<(Vec<Vec<MindRecord>>, usize), Refusal> {
    let live: Vec<MindRecord> =
        store.mind_layer(agent, MEMORY).map_err(|e| ("internal", e.to_string()))?.into_iter().filter(|r| r.ended.is_none()).collect();
    let total = live.len();
    if total < MIN_MEMORIES {
        return Err(("too_few_memories", format!("self-care needs at least {MIN_MEMORIES} memories; you have {total}")));
    }
    let mut out = Vec::new();
    let mut tokens = 0;
    'all: for chunk in live.chunks(BATCH) {
        let mut batch = Vec::with_capacity(chunk.len());
        for r in chunk {
            let t = crate::hud::format::tokens(&r.text) + 4;
            if tokens + t > CEILING_BEFORE {
                if !batch.is_empty() {
                    out.push(batch);
                }
                break 'all;
            }
            tokens += t;
            batch.push(r.clone());
        }
        out.push(batch);
    }
    Ok((out, total))
}

/// Writes what a self-care made: the summaries (within the 50,000-token ceiling), the
/// originals archived, the watermark. Returns the result and the summaries made.
pub fn commit(
    store: &Store,
    agent: &str,
    batches: &[Vec<MindRecord>],
    themes: Vec<(Vec<Theme>, &'static str)>,
    at: &Whereabouts,
) -> Result<(Value, Vec<MindRecord>), Refusal> {
    let internal = |e: pawns_storage::StoreError| ("internal", e.to_string());
    let mut meta = store.mind_meta(agent).map_err(internal)?;
    let now = crate::time::unix_us();
    let mut made = Vec::new();
    let mut written_tokens = 0;
    let mut archived = Vec::new();
    let mut methods = BTreeMap::new();
    let mut full = false;
    for (batch, (themes, method)) in batches.iter().zip(themes) {
        // Past the ceiling, later batches stay live (for the next self-care): only what
        // a summary covers is archived.
        if full {
            break;
        }
        *methods.entry(method).or_insert(0) += 1;
        let ids: Vec<u64> = batch.iter().map(|r| r.id).collect();
        for (theme, text) in themes {
            let mut text = text;
            let t = crate::hud::format::tokens(&text);
            if written_tokens + t > CEILING_AFTER {
                // Cut to what is left of the ceiling (by words); this batch is the last.
                full = true;
                let left = CEILING_AFTER.saturating_sub(written_tokens);
                if left < 20 {
                    break;
                }
                text = text.split_whitespace().take(left / 2).collect::<Vec<_>>().join(" ") + " …";
            }
            written_tokens += crate::hud::format::tokens(&text);
            meta.next_id += 1;
            let mut fields = BTreeMap::new();
            fields.insert("method".to_string(), method.to_string());
            fields.insert("memories".to_string(), ids.len().to_string());
            fields.insert("from_id".to_string(), ids.first().copied().unwrap_or(0).to_string());
            fields.insert("to_id".to_string(), ids.last().copied().unwrap_or(0).to_string());
            made.push(MindRecord {
                id: meta.next_id,
                layer: SUMMARY,
                text,
                at_us: now,
                room_vnum: at.room_vnum,
                room: at.room.clone(),
                key: Some(theme),
                fields,
                ..Default::default()
            });
        }
        for r in batch {
            let mut r = r.clone();
            r.ended_us = Some(now);
            r.ended = Some("archived".into());
            archived.push(r);
        }
        meta.summarized_through = meta.summarized_through.max(ids.last().copied().unwrap_or(0));
    }
    meta.self_cares += 1;
    meta.live_memories = meta.live_memories.saturating_sub(archived.len() as u64);
    let mut all = made.clone();
    all.extend(archived.iter().cloned());
    store.mind_put(agent, &all, &meta).map_err(internal)?;
    let result = json!({
        "archived": archived.len(),
        "summaries": made.iter().map(|r| json!({"id": r.id, "theme": r.key, "text": r.text})).collect::<Vec<_>>(),
        "batches": methods.values().sum::<u32>(),
        "methods": methods,
        "summary_tokens": written_tokens,
        "summarized_through": meta.summarized_through,
    });
    Ok((result, made))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(id: u64, room: &str, text: &str) -> MindRecord {
        MindRecord { id, layer: MEMORY, text: text.into(), at_us: id * 1_000_000, room: Some(room.into()), ..Default::default() }
    }

    #[test]
    fn grouping_by_place_names_the_entities() {
        let b = vec![
            mem(1, "The Temple", "Today I met Bram at the altar."),
            mem(2, "The Yard", "The dummy broke my sword."),
            mem(3, "The Temple", "Bram asked me for gold."),
        ];
        let themes = group(&b);
        assert_eq!(themes.len(), 2);
        assert_eq!(themes[0].0, "The Temple: Bram");
        assert!(themes[0].1.starts_with("2 memories at The Temple") && themes[0].1.contains("most about Bram (2)"), "{}", themes[0].1);
        assert!(themes[0].1.contains("Today I met Bram at the altar. / Bram asked me for gold."));
        assert_eq!(themes[1].0, "The Yard", "no names there");
    }

    #[test]
    fn model_answers_are_read_as_themes() {
        let t = parse_themes("Here you go:\n- **Debts**: Bram owes 40 gold.\n- Places: the temple is safe.\nnothing").unwrap();
        assert_eq!(t, vec![("Debts".into(), "Bram owes 40 gold.".into()), ("Places".into(), "the temple is safe.".into())]);
        assert!(parse_themes("I cannot do that").is_none());
    }
}

//! `pawns export sessions|decisions` (JSONL, CSV): the record of the sessions a selection
//! takes, in the shapes `record::export` defines, each decision with what the game made
//! of what followed it (the memory extractor's reading of the record).

use pawns_storage::{DecisionRecord, EventRecord, RecordBody, SessionMeta, Store};

use super::Filter;
use crate::record::export::{csv_line, session_line, ExportError, Format, What, SESSION_FIELDS};

/// A session's decisions, each with the valence of the strongest event that followed it
/// (before the next decision), as the memory extractor reads the record.
fn decisions(records: &[EventRecord]) -> Vec<(&EventRecord, &DecisionRecord, i8)> {
    let mut x = crate::memory::extract::Extractor::new();
    for r in records {
        x.feed(r);
    }
    let mut out: Vec<(&EventRecord, &DecisionRecord, i8)> = records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Decision(d) => Some((r, d.as_ref(), 0)),
            RecordBody::Observation { .. } | RecordBody::Transition(_) => None,
        })
        .collect();
    for e in &x.events {
        let seq = e.id.rsplit_once(':').and_then(|(_, s)| s.parse::<u64>().ok()).unwrap_or(0);
        let v = pawns_graph::valence::valence(&e.kind);
        let at = out.partition_point(|(r, _, _)| r.seq <= seq);
        if let Some((_, _, best)) = at.checked_sub(1).and_then(|i| out.get_mut(i)) {
            if v.abs() > best.abs() {
                *best = v;
            }
        }
    }
    out
}

/// Writes the record of the sessions `filter` selects (humans' too when it names no
/// agent). Returns the number of lines written (the CSV header not counted).
pub fn export(store: &Store, filter: &Filter, what: What, out: &mut dyn std::io::Write) -> Result<u64, ExportError> {
    let sessions: Vec<SessionMeta> =
        if filter.agents.len() == 1 { store.agent_sessions(&filter.agents[0], filter.since_us)? } else { store.all_sessions()? };
    let sessions: Vec<SessionMeta> = sessions.into_iter().filter(|s| filter.selects(s)).collect();
    let mut n = 0;
    if what == What::Sessions(Format::Csv) {
        writeln!(out, "{}", SESSION_FIELDS.join(","))?;
    }
    let mut all = store.sessions_records(&sessions)?;
    for meta in sessions {
        let records = all.remove(&meta.session).unwrap_or_default();
        for (r, d, valence) in decisions(&records) {
            match what {
                What::Sessions(Format::Jsonl) => writeln!(out, "{}", serde_json::to_string(&session_line(&meta, r, d, valence))?)?,
                What::Sessions(Format::Csv) => writeln!(out, "{}", csv_line(&session_line(&meta, r, d, valence)))?,
                What::Decisions => {
                    let line =
                        serde_json::json!({"session": meta.session, "agent": meta.agent, "seq": r.seq, "at_us": r.at_us, "decision": d});
                    writeln!(out, "{line}")?
                }
            }
            n += 1;
        }
    }
    Ok(n)
}

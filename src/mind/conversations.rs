//! Conversation history (seed `004_*`): what the agent said and was told — says heard
//! and spoken, tells, group talk, chat rooms — per partner. The lines are the agent's
//! own record (already durable and searchable); the mind keeps a watermark
//! (`conv_summarized_until_us`). Past 1,000 lines, self-care archives the oldest and
//! summarizes them per partner; `conversations` shows the lines since the watermark.

use std::collections::BTreeMap;

use pawns_storage::{RecordBody, Store};
use serde_json::{json, Value};

use super::Refusal;

/// Lines kept live before self-care archives the oldest.
pub const MAX_LINES: usize = 1_000;
/// Lines quoted in a partner's summary.
const QUOTED: usize = 6;

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub at_us: u64,
    /// Who: a name, or `the room`, `the group`, `room 7`.
    pub partner: String,
    /// Said by the agent (true) or to it.
    pub spoken: bool,
    pub text: String,
}

/// The partner and words of a speaking command the agent typed.
fn spoken(command: &str, args: &str) -> Option<(String, String)> {
    let args = args.trim();
    match command.to_ascii_lowercase().as_str() {
        "say" | "'" => Some(("the room".into(), args.into())),
        "gtell" => Some(("the group".into(), args.into())),
        "tell" => {
            let (who, what) = args.split_once(char::is_whitespace)?;
            Some((crate::auth::names::display(who), what.trim().into()))
        }
        "chat" => {
            let (room, what) = args.split_once(char::is_whitespace)?;
            Some((format!("room {room}"), what.trim().into()))
        }
        _ => None,
    }
}

/// The agent's conversation lines after `after_us`, oldest first, from its record.
pub fn lines(store: &Store, agent: &str, after_us: u64) -> Result<Vec<Line>, Refusal> {
    let internal = |e: pawns_storage::StoreError| ("internal", e.to_string());
    let mut out = Vec::new();
    for s in store.agent_sessions(agent, 0).map_err(internal)? {
        if s.ended_us.is_some_and(|e| e <= after_us) {
            continue;
        }
        for r in store.session_records(s.session).map_err(internal)? {
            if r.at_us <= after_us {
                continue;
            }
            match &r.body {
                RecordBody::Observation { event_type, text, from: Some(from) } if matches!(event_type.as_str(), "say" | "tell") => {
                    out.push(Line { at_us: r.at_us, partner: from.to_string(), spoken: false, text: text.to_string() });
                }
                RecordBody::Decision(d) if d.status == "ok" => {
                    if let Some((partner, text)) = spoken(&d.command, &d.args) {
                        out.push(Line { at_us: r.at_us, partner, spoken: true, text });
                    }
                }
                RecordBody::Observation { .. } | RecordBody::Decision(_) | RecordBody::Transition(_) => {}
            }
        }
    }
    out.sort_by_key(|l| l.at_us);
    Ok(out)
}

fn view(l: &Line) -> Value {
    json!({"at": crate::record::export::rfc3339(l.at_us), "with": l.partner, "spoken": l.spoken, "text": l.text})
}

/// `conversations {name?, limit?}`: the live lines (since the last self-care's
/// watermark), with one partner or all, newest last; and how many per partner.
pub fn recent(store: &Store, agent: &str, partner: Option<&str>, limit: usize, after_us: u64) -> Result<Value, Refusal> {
    let all = lines(store, agent, after_us)?;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for l in &all {
        *counts.entry(l.partner.clone()).or_default() += 1;
    }
    let chosen: Vec<&Line> = all.iter().filter(|l| partner.is_none_or(|p| l.partner.eq_ignore_ascii_case(p))).collect();
    let shown: Vec<Value> = chosen.iter().rev().take(limit).rev().map(|l| view(l)).collect();
    Ok(json!({"lines": shown, "partners": counts, "live": all.len(), "archive_after": MAX_LINES}))
}

/// Self-care's part: past 1,000 live lines, the oldest are summarized per partner
/// (theme, summary) and the watermark moves to the last of them.
/// What archiving made: (theme, summary) per partner, lines archived, the new watermark.
pub type Archived = (Vec<super::self_care::Theme>, usize, u64);

pub fn archive(store: &Store, agent: &str, after_us: u64) -> Result<Archived, Refusal> {
    let all = lines(store, agent, after_us)?;
    if all.len() <= MAX_LINES {
        return Ok((Vec::new(), 0, after_us));
    }
    // The watermark is a time: lines sharing the last archived line's microsecond go
    // with it (else they would hide behind the watermark unsummarized).
    let mut cut = all.len() - MAX_LINES;
    while cut < all.len() && all[cut].at_us == all[cut - 1].at_us {
        cut += 1;
    }
    let old = &all[..cut];
    let mut by: BTreeMap<&str, Vec<&Line>> = BTreeMap::new();
    for l in old {
        by.entry(l.partner.as_str()).or_default().push(l);
    }
    let themes = by
        .into_iter()
        .map(|(p, ls)| {
            let quoted = ls
                .iter()
                .take(QUOTED)
                .map(|l| if l.spoken { format!("you: {}", l.text) } else { l.text.clone() })
                .collect::<Vec<_>>()
                .join(" / ");
            let more = if ls.len() > QUOTED { format!(" … and {} more", ls.len() - QUOTED) } else { String::new() };
            (
                format!("conversation with {p}"),
                format!(
                    "{} lines with {p} from {} to {}: {quoted}{more}",
                    ls.len(),
                    crate::record::export::rfc3339(ls[0].at_us),
                    crate::record::export::rfc3339(ls[ls.len() - 1].at_us)
                ),
            )
        })
        .collect();
    Ok((themes, old.len(), old[old.len() - 1].at_us))
}

#[cfg(test)]
mod tests {
    use pawns_storage::{EventRecord, RecordBatch, RecordBody, SessionMeta, Store};

    use super::{archive, recent, spoken, MAX_LINES};

    /// 1,004 lines heard in a recorded session (two partners, alternating, then a say of
    /// the agent's own): the 5 oldest are archived, summarized per partner.
    #[test]
    fn past_a_thousand_lines_the_oldest_are_archived() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(dir.path().join("c.redb")).unwrap();
        let obs = |seq: u64, from: &str, text: String| EventRecord {
            session: 1,
            seq,
            agent: "ann".into(),
            at_us: 1_000 + seq,
            room_vnum: 8004,
            body: RecordBody::Observation { event_type: "tell".into(), text: text.into(), from: Some(from.into()) },
        };
        let mut records: Vec<EventRecord> =
            (1..=1_004u64).map(|i| obs(i, if i % 2 == 0 { "Bram" } else { "Cid" }, format!("line {i}"))).collect();
        records.push(EventRecord {
            body: RecordBody::Observation { event_type: "text".into(), text: "You rest.".into(), from: None },
            ..obs(1_005, "x", String::new())
        });
        let session =
            SessionMeta { session: 1, agent: "ann".into(), started_us: 1_000, ended_us: Some(9_999), first_batch: 1, ..Default::default() };
        store
            .write_records(&RecordBatch { sessions: vec![session], records, spans: vec![(1, vec![])], sweep: true, ..Default::default() })
            .unwrap();
        let live = recent(&store, "ann", Some("bram"), 3, 0).unwrap();
        assert_eq!(live["live"], 1_004, "only conversation lines count");
        assert_eq!(live["partners"]["Bram"], 502);
        assert_eq!(
            live["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect::<Vec<_>>(),
            ["line 1000", "line 1002", "line 1004"]
        );
        let (themes, n, until) = archive(&store, "ann", 0).unwrap();
        assert_eq!(n, 1_004 - MAX_LINES);
        assert_eq!(until, 1_000 + 4, "up to the fourth line");
        assert_eq!(themes.len(), 2);
        assert_eq!(themes[0].0, "conversation with Bram");
        assert!(themes[0].1.starts_with("2 lines with Bram") && themes[0].1.contains("line 2 / line 4"), "{}", themes[0].1);
        let (again, n, _) = archive(&store, "ann", until).unwrap();
        assert!(again.is_empty() && n == 0, "after the watermark, 1,000 live lines remain");
    }

    #[test]
    fn speaking_commands_name_their_partner() {
        assert_eq!(spoken("tell", "bram meet me at dawn"), Some(("Bram".into(), "meet me at dawn".into())));
        assert_eq!(spoken("say", " hello "), Some(("the room".into(), "hello".into())));
        assert_eq!(spoken("chat", "7 raid?"), Some(("room 7".into(), "raid?".into())));
        assert_eq!(spoken("north", ""), None);
        assert_eq!(spoken("tell", "bram"), None);
    }
}

//! Exports of the record in the shapes researchers' tools read.
//!
//! `sessions`: one line per decision in the seed's session JSONL shape (`timestamp`,
//! `room_vnum`, `room_name`, `hp`, `max_hp`, `agent_level`, `mobs_present`, `fighting`,
//! `action`, `args`, `say_line`, `latency_ms`, `valence`), as JSONL or CSV; the state is
//! the one the agent saw when it decided. `decisions`: the full decision records.
//!
//! `valence` is 0 for `valence:false` sessions (the ablation) and `null` until the
//! engine has computed one for the decision.

use pawns_storage::{DecisionRecord, EventRecord, RecordBody, SessionMeta, Store, StoreError};
use serde::Serialize;

/// The seed's field list, in its order (also the CSV header).
pub const SESSION_FIELDS: [&str; 13] = [
    "timestamp",
    "room_vnum",
    "room_name",
    "hp",
    "max_hp",
    "agent_level",
    "mobs_present",
    "fighting",
    "action",
    "args",
    "say_line",
    "latency_ms",
    "valence",
];

#[derive(Debug, Clone, Serialize, PartialEq, serde::Deserialize)]
pub struct SessionLine {
    pub timestamp: String,
    pub room_vnum: u32,
    pub room_name: String,
    pub hp: i32,
    pub max_hp: i32,
    pub agent_level: u8,
    pub mobs_present: usize,
    pub fighting: Option<String>,
    pub action: String,
    pub args: String,
    pub say_line: Option<String>,
    pub latency_ms: f64,
    pub valence: Option<i8>,
}

/// RFC 3339 UTC time of Unix µs (it lives in `time`, a leaf the engine may use).
pub use crate::time::rfc3339;

pub fn session_line(meta: &SessionMeta, d: &DecisionRecord) -> SessionLine {
    let say =
        matches!(d.command.to_ascii_lowercase().as_str(), "say" | "'" | "tell" | "gtell" | "shout" | "gossip").then(|| d.args.clone());
    SessionLine {
        timestamp: rfc3339(d.received_us),
        room_vnum: d.pre.room_vnum,
        room_name: d.pre.room_name.to_string(),
        hp: d.pre.hp,
        max_hp: d.pre.max_hp,
        agent_level: d.pre.level,
        mobs_present: d.stimulus.mobs_present.len(),
        fighting: d.pre.fighting.as_deref().map(str::to_string),
        action: d.command.clone(),
        args: d.args.clone(),
        say_line: say,
        latency_ms: d.latency_us as f64 / 1000.0,
        valence: if meta.valence { None } else { Some(0) },
    }
}

fn decisions(records: &[EventRecord]) -> impl Iterator<Item = &DecisionRecord> {
    records.iter().filter_map(|r| match &r.body {
        RecordBody::Decision(d) => Some(d.as_ref()),
        RecordBody::Observation { .. } | RecordBody::Transition(_) => None,
    })
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn csv_line(l: &SessionLine) -> String {
    let opt = |o: &Option<String>| o.as_deref().map(csv_field).unwrap_or_default();
    [
        csv_field(&l.timestamp),
        l.room_vnum.to_string(),
        csv_field(&l.room_name),
        l.hp.to_string(),
        l.max_hp.to_string(),
        l.agent_level.to_string(),
        l.mobs_present.to_string(),
        opt(&l.fighting),
        csv_field(&l.action),
        csv_field(&l.args),
        opt(&l.say_line),
        format!("{:.3}", l.latency_ms),
        l.valence.map(|v| v.to_string()).unwrap_or_default(),
    ]
    .join(",")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Csv,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "jsonl" | "json" => Ok(Format::Jsonl),
            "csv" => Ok(Format::Csv),
            other => Err(format!("unknown format '{other}' (jsonl or csv)")),
        }
    }
}

/// What to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Sessions(Format),
    Decisions,
}

/// Writes an agent's record since `since_us` (all agents when `agent` is empty).
/// Returns the number of lines written (the CSV header not counted).
pub fn export(store: &Store, agent: &str, since_us: u64, what: What, out: &mut dyn std::io::Write) -> Result<u64, ExportError> {
    let sessions = if agent.is_empty() {
        store.all_sessions()?.into_iter().filter(|s| s.started_us >= since_us).collect()
    } else {
        store.agent_sessions(agent, since_us)?
    };
    let mut n = 0;
    if what == What::Sessions(Format::Csv) {
        writeln!(out, "{}", SESSION_FIELDS.join(","))?;
    }
    let mut all = store.sessions_records(&sessions)?;
    for meta in sessions {
        let records = all.remove(&meta.session).unwrap_or_default();
        for d in decisions(&records) {
            match what {
                What::Sessions(Format::Jsonl) => writeln!(out, "{}", serde_json::to_string(&session_line(&meta, d))?)?,
                What::Sessions(Format::Csv) => writeln!(out, "{}", csv_line(&session_line(&meta, d)))?,
                What::Decisions => {
                    let line = serde_json::json!({"session": meta.session, "agent": meta.agent, "decision": d});
                    writeln!(out, "{line}")?
                }
            }
            n += 1;
        }
    }
    Ok(n)
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("writing the export: {0}")]
    Io(#[from] std::io::Error),
    #[error("encoding: {0}")]
    Json(#[from] serde_json::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_778_599_800_000_000), "2026-05-12T15:30:00.000Z");
        assert_eq!(rfc3339(951_782_400_123_456), "2000-02-29T00:00:00.123Z");
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a, b"), "\"a, b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn a_line_has_the_seed_fields_in_order() {
        let meta = SessionMeta { valence: false, ..Default::default() };
        let d = DecisionRecord { command: "say".into(), args: "hello, you".into(), latency_us: 1500, ..Default::default() };
        let l = session_line(&meta, &d);
        assert_eq!(l.say_line.as_deref(), Some("hello, you"));
        assert_eq!(l.valence, Some(0), "the ablation records valence 0");
        let v = serde_json::to_value(&l).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = SESSION_FIELDS.to_vec();
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(csv_line(&l).split(',').count(), SESSION_FIELDS.len() + 2, "args and say_line each hold a quoted comma");
        assert!(csv_line(&l).contains("\"hello, you\""));
    }
}

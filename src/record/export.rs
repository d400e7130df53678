//! Exports of the record in the shapes researchers' tools read.
//!
//! `sessions`: one line per decision in the seed's session JSONL shape (`timestamp`,
//! `room_vnum`, `room_name`, `hp`, `max_hp`, `agent_level`, `mobs_present`, `fighting`,
//! `action`, `args`, `say_line`, `latency_ms`, `valence`), as JSONL or CSV; the state is
//! the one the agent saw when it decided. `decisions`: the full decision records.
//!
//! After the seed's fields each line names whose it is — `agent`, `session`, `seq`
//! (the decision's place in its session's record), `at_us` (when it ran, unix µs) — and
//! `valence_on` (the session's protocol §4 flag: the ablation arm). `valence` is what the
//! game made of what the decision led to: the valence (−3…+3) of the strongest event the
//! memory extractor finds between it and the next decision (a kill, a death, a wound, a
//! gift…; 0 when nothing valenced followed), whatever the arm — so the two arms can be
//! compared on it. `decisions` lines carry `session`, `agent`, `seq`, `at_us` and the
//! full decision record.

use pawns_storage::{DecisionRecord, EventRecord, SessionMeta, StoreError};
use serde::Serialize;

/// The seed's own fields (what an agent client's session log writes too).
pub const SEED_FIELDS: [&str; 13] = [
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

/// What the server adds after the seed's fields: whose the line is, and its arm.
pub const ADDED_FIELDS: [&str; 5] = ["agent", "session", "seq", "at_us", "valence_on"];

/// The seed's field list, in its order, then the server's additions (also the CSV header).
pub const SESSION_FIELDS: [&str; 18] = {
    let mut out = [""; 18];
    let mut i = 0;
    while i < SEED_FIELDS.len() {
        out[i] = SEED_FIELDS[i];
        i += 1;
    }
    while i < out.len() {
        out[i] = ADDED_FIELDS[i - SEED_FIELDS.len()];
        i += 1;
    }
    out
};

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
    pub agent: String,
    pub session: u64,
    pub seq: u64,
    pub at_us: u64,
    pub valence_on: bool,
}

/// RFC 3339 UTC time of Unix µs (it lives in `time`, a leaf the engine may use).
pub use crate::time::rfc3339;

/// A decision's line; `valence`: what the game made of what it led to.
pub fn session_line(meta: &SessionMeta, r: &EventRecord, d: &DecisionRecord, valence: i8) -> SessionLine {
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
        valence: Some(valence),
        agent: meta.agent.clone(),
        session: meta.session,
        seq: r.seq,
        at_us: r.at_us,
        valence_on: meta.valence,
    }
}

pub(crate) fn csv_field(s: &str) -> String {
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
        csv_field(&l.agent),
        l.session.to_string(),
        l.seq.to_string(),
        l.at_us.to_string(),
        l.valence_on.to_string(),
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
        let meta = SessionMeta { valence: false, agent: "ann".into(), session: 7, ..Default::default() };
        let d = DecisionRecord { command: "say".into(), args: "hello, you".into(), latency_us: 1500, ..Default::default() };
        let r = EventRecord {
            session: 7,
            seq: 3,
            agent: "ann".into(),
            at_us: 99,
            room_vnum: 0,
            body: pawns_storage::RecordBody::Decision(Box::new(d.clone())),
        };
        let l = session_line(&meta, &r, &d, -2);
        assert_eq!(l.say_line.as_deref(), Some("hello, you"));
        assert_eq!((l.valence, l.valence_on, l.agent.as_str(), l.session, l.seq, l.at_us), (Some(-2), false, "ann", 7, 3, 99));
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

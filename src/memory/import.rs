//! The seed's file layout, for agents recorded by external clients: `pawns dream
//! --sessions DIR --output OUT` reads `DIR/{agent}/*.jsonl` (the seed's session log
//! fields) and keeps the memory in `OUT/{agent}/` (`memory-graph.json`,
//! `memory-summary.txt`, `dream-result.json`, and `memory-profile.json` for the profile).
//!
//! A JSONL line holds the state the client saw, not the engine's facts, so less can be
//! extracted than from the server's own record: moves (with the exit taken), flights,
//! injuries, deaths, speech and level-ups. Kills are not: their valence needs the
//! victim's level, which the seed's log does not carry.

use std::path::{Path, PathBuf};
use std::time::Instant;

use pawns_graph::{EventKind, MemEvent, MemoryGraph, Observed, Profile, SocialAct, StoredGraph};
use serde::Deserialize;

use super::dream::{utc_offset_now, DreamOptions};
use super::{AgentMemory, DreamResult, MemoryError};
use crate::record::unix_us;

/// One line of the seed's session log (unknown fields are ignored, missing ones empty).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SessionLine {
    /// RFC 3339, or Unix milliseconds.
    pub timestamp: serde_json::Value,
    pub room_vnum: u32,
    pub room_name: String,
    pub hp: i32,
    pub max_hp: i32,
    pub agent_level: u8,
    /// The mobs' names, or (the seed's own example) how many there were.
    pub mobs_present: serde_json::Value,
    /// The names, when `mobs_present` is a count (`pawns agent session` writes both).
    pub mobs: Vec<String>,
    /// Whether in a fight, or the foe's name.
    pub fighting: serde_json::Value,
    pub action: String,
    pub args: String,
    pub say_line: String,
}

fn at_us(v: &serde_json::Value) -> Option<u64> {
    match v {
        serde_json::Value::String(s) => chrono::DateTime::parse_from_rfc3339(s).ok().map(|t| t.timestamp_micros().max(0) as u64),
        serde_json::Value::Number(n) => n.as_u64().map(|ms| ms * 1000),
        _ => None,
    }
}

impl SessionLine {
    /// The foe: the `fighting` name when it is one, else the first mob present.
    fn foe(&self) -> Option<String> {
        if let Some(name) = self.fighting.as_str().filter(|s| !s.is_empty() && *s != "false" && *s != "true") {
            return Some(name.to_string());
        }
        let names: Vec<String> = match &self.mobs_present {
            serde_json::Value::Array(a) => a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
            _ => self.mobs.clone(),
        };
        names.into_iter().next()
    }
}

fn fighting(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Bool(b) => *b,
        serde_json::Value::String(s) => !s.is_empty() && s != "false",
        serde_json::Value::Number(n) => n.as_u64().is_some_and(|n| n != 0),
        _ => false,
    }
}

/// The events of one session file. Bad lines are skipped and counted.
pub fn extract_file(text: &str, file_key: &str, session: u64) -> (Vec<MemEvent>, usize, Option<Observed>) {
    let mut out = Vec::new();
    let mut bad = 0;
    let mut prev: Option<SessionLine> = None;
    let mut last = None;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(l) = serde_json::from_str::<SessionLine>(line) else {
            bad += 1;
            continue;
        };
        let Some(at) = at_us(&l.timestamp) else {
            bad += 1;
            continue;
        };
        let foe = l.foe().filter(|_| fighting(&l.fighting) || prev.as_ref().is_some_and(|p| fighting(&p.fighting)));
        let mut push = |kind: EventKind| {
            out.push(MemEvent {
                id: format!("{file_key}:{}", n + 1),
                at_us: at,
                session,
                room_vnum: l.room_vnum,
                room_name: l.room_name.clone(),
                kind,
                valence_off: false,
            })
        };
        if let Some(p) = &prev {
            if p.room_vnum != l.room_vnum {
                let dir = super::extract::Extractor::direction_word(&p.action);
                push(EventKind::Move { from_vnum: p.room_vnum, from_name: p.room_name.clone(), dir });
                if p.action.eq_ignore_ascii_case("flee") {
                    let hp_pct = pawns_graph::valence::hp_pct(p.hp, p.max_hp);
                    push(EventKind::Flee { from: p.foe(), hp_pct });
                }
            }
            if l.agent_level > p.agent_level && p.agent_level > 0 {
                push(EventKind::LevelUp { level: l.agent_level });
            }
            let band = |hp: i32, max: i32| match pawns_graph::valence::hp_pct(hp, max) {
                0..=4 => 2,
                5..=14 => 1,
                _ => 0,
            };
            if l.hp <= 0 && p.hp > 0 && l.max_hp > 0 {
                push(EventKind::Death { killer: foe.clone() });
            } else if l.max_hp > 0 && l.hp > 0 && band(l.hp, l.max_hp) > band(p.hp, p.max_hp) {
                push(EventKind::Hurt { by: foe.clone(), hp: l.hp, max_hp: l.max_hp });
            }
        }
        if !l.say_line.trim().is_empty() {
            push(EventKind::Social { act: SocialAct::Speech, other: String::new(), by_agent: true, text: l.say_line.trim().to_string() });
        }
        last = Some(Observed { level: l.agent_level, hp: l.hp, max_hp: l.max_hp, room_name: l.room_name.clone() });
        prev = Some(l);
    }
    (out, bad, last)
}

/// Agents with a directory under `dir`.
pub fn agents_in(dir: &Path) -> Result<Vec<String>, MemoryError> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| MemoryError::Io(format!("{}: {e}", dir.display())))? {
        let e = e.map_err(|e| MemoryError::Io(e.to_string()))?;
        if e.path().is_dir() {
            out.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    out.sort();
    Ok(out)
}

fn read_json<T: serde::de::DeserializeOwned + Default>(path: &Path) -> Result<T, MemoryError> {
    match std::fs::read_to_string(path) {
        Ok(s) => serde_json::from_str(&s).map_err(|e| MemoryError::BadInput(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(MemoryError::Io(format!("{}: {e}", path.display()))),
    }
}

/// Dreams one agent from its session files; keeps the memory under `out/{agent}/`.
pub fn dream_files(sessions: &Path, out: &Path, agent: &str, opts: &DreamOptions) -> Result<DreamResult, MemoryError> {
    let started = Instant::now();
    let src = sessions.join(agent);
    if !src.is_dir() {
        return Err(MemoryError::NoAgent(format!("{agent} (no directory {})", src.display())));
    }
    let dst = out.join(agent);
    let stored: StoredGraph = read_json(&dst.join("memory-graph.json"))?;
    let mut profile: Profile = read_json(&dst.join("memory-profile.json"))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&src)
        .map_err(|e| MemoryError::Io(format!("{}: {e}", src.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut events = Vec::new();
    let mut last = None;
    let mut bad = 0;
    let mut sessions_read = 0;
    for (i, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).map_err(|e| MemoryError::Io(format!("{}: {e}", f.display())))?;
        let key = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let (evs, b, l) = extract_file(&text, &key, i as u64 + 1);
        bad += b;
        // Only files with something not yet consumed count as read.
        if evs.iter().any(|e| e.at_us > stored.consumed_until_us) {
            sessions_read += 1;
        }
        events.extend(evs);
        last = l.or(last);
    }
    if bad > 0 {
        tracing::warn!(agent, lines = bad, "skipped session lines that are not the seed's JSON");
    }
    let mut graph = MemoryGraph::from_stored(stored);
    let nodes_before = graph.node_count();
    let report = graph.dream(&events, &opts.params);
    profile.absorb(&events, last.as_ref());
    profile.identity.name = agent.to_string();
    let mut mem = AgentMemory { graph: graph.to_stored(), profile, utc_offset_secs: utc_offset_now(&opts.tz), ..Default::default() };
    mem.summary = super::login::render_summary(&mem, pawns_graph::summary::TIER_MEDIUM, None);
    let result = DreamResult {
        agent: agent.to_string(),
        trigger: "offline".into(),
        sessions_read,
        records_read: 0,
        events_extracted: report.events,
        nodes_before,
        nodes_after: graph.node_count(),
        pruned: report.pruned,
        reinforced: report.reinforced,
        summary_tokens: mem.summary.tokens,
        chronicle: false,
        at_us: unix_us(),
        elapsed_ms: started.elapsed().as_secs_f64() * 1e3,
        dry_run: opts.dry_run,
    };
    if !opts.dry_run {
        mem.last = Some(result.clone());
        write_outputs(out, agent, &mem)?;
    }
    Ok(result)
}

/// Writes the seed's three files (and the profile) for one agent, each replaced whole.
pub fn write_outputs(out: &Path, agent: &str, mem: &AgentMemory) -> Result<(), MemoryError> {
    let dst = out.join(agent);
    std::fs::create_dir_all(&dst).map_err(|e| MemoryError::Io(format!("{}: {e}", dst.display())))?;
    let write = |name: &str, body: String| -> Result<(), MemoryError> {
        let tmp = dst.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, body).map_err(|e| MemoryError::Io(format!("{}: {e}", tmp.display())))?;
        std::fs::rename(&tmp, dst.join(name)).map_err(|e| MemoryError::Io(format!("{}: {e}", dst.display())))
    };
    let json = |v: &dyn erased::Ser| v.pretty();
    write("memory-graph.json", json(&mem.graph))?;
    write("memory-profile.json", json(&mem.profile))?;
    write("memory-summary.txt", mem.summary.text.clone())?;
    write("dream-result.json", json(&mem.last))?;
    Ok(())
}

mod erased {
    /// Pretty JSON of anything serializable, behind one object-safe call.
    pub trait Ser {
        fn pretty(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn pretty(&self) -> String {
            serde_json::to_string_pretty(self).unwrap_or_else(|_| "null".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"{"timestamp":"2026-05-12T15:30:00Z","room_vnum":1,"room_name":"Gate","hp":50,"max_hp":50,"agent_level":3,"mobs_present":[],"fighting":false,"action":"north","args":"","say_line":""}
not json at all
{"timestamp":"2026-05-12T15:30:05Z","room_vnum":2,"room_name":"Cave","hp":50,"max_hp":50,"agent_level":3,"mobs_present":["a cave bear"],"fighting":true,"action":"kill","args":"bear","say_line":"Die, bear!"}
{"timestamp":"2026-05-12T15:30:09Z","room_vnum":2,"room_name":"Cave","hp":2,"max_hp":50,"agent_level":3,"mobs_present":["a cave bear"],"fighting":true,"action":"flee","args":"","say_line":""}
{"timestamp":"2026-05-12T15:30:10Z","room_vnum":1,"room_name":"Gate","hp":2,"max_hp":50,"agent_level":4,"mobs_present":[],"fighting":false,"action":"rest","args":"","say_line":""}
"#;

    #[test]
    fn seed_lines_become_events() {
        let (evs, bad, last) = extract_file(LOG, "s1", 1);
        assert_eq!(bad, 1, "the line that is not JSON is skipped and counted");
        let kinds: Vec<&EventKind> = evs.iter().map(|e| &e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                &EventKind::Move { from_vnum: 1, from_name: "Gate".into(), dir: Some("north".into()) },
                &EventKind::Social { act: SocialAct::Speech, other: String::new(), by_agent: true, text: "Die, bear!".into() },
                &EventKind::Hurt { by: Some("a cave bear".into()), hp: 2, max_hp: 50 },
                &EventKind::Move { from_vnum: 2, from_name: "Cave".into(), dir: None },
                &EventKind::Flee { from: Some("a cave bear".into()), hp_pct: 4 },
                &EventKind::LevelUp { level: 4 },
            ]
        );
        assert_eq!(last.unwrap().level, 4);
    }

    #[test]
    fn the_seeds_count_shape_and_the_agent_clients_lines_import_alike() {
        // The seed's example writes `mobs_present` as a count and `fighting` as the foe's
        // name; `pawns agent session` does the same and adds the names under `mobs`.
        let counted = LOG
            .replace(
                r#""mobs_present":["a cave bear"],"fighting":true"#,
                r#""mobs_present":1,"mobs":["a cave bear"],"fighting":"a cave bear""#,
            )
            .replace(r#""mobs_present":[],"fighting":false"#, r#""mobs_present":0,"fighting":"""#);
        assert_ne!(counted, LOG);
        let (a, _, _) = extract_file(LOG, "s1", 1);
        let (b, bad, _) = extract_file(&counted, "s1", 1);
        assert_eq!(bad, 1);
        assert_eq!(a, b);
    }

    #[test]
    fn files_dream_once_and_keep_their_memory_in_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let (src, out) = (dir.path().join("sessions"), dir.path().join("dreaming"));
        std::fs::create_dir_all(src.join("kira")).unwrap();
        std::fs::write(src.join("kira").join("2026-05-12-153000.jsonl"), LOG).unwrap();
        let opts = DreamOptions::default();
        let first = dream_files(&src, &out, "kira", &opts).unwrap();
        assert_eq!((first.sessions_read, first.events_extracted), (1, 6));
        for f in ["memory-graph.json", "memory-summary.txt", "dream-result.json", "memory-profile.json"] {
            assert!(out.join("kira").join(f).exists(), "{f}");
        }
        let summary = std::fs::read_to_string(out.join("kira").join("memory-summary.txt")).unwrap();
        assert!(summary.contains("Low HP (2/50) while fighting a cave bear in Cave (a harrowing moment)."), "{summary}");
        let graph = std::fs::read_to_string(out.join("kira").join("memory-graph.json")).unwrap();
        let again = dream_files(&src, &out, "kira", &opts).unwrap();
        assert_eq!((again.sessions_read, again.events_extracted), (0, 0), "the same files twice: nothing new");
        assert_eq!(std::fs::read_to_string(out.join("kira").join("memory-graph.json")).unwrap(), graph);
        assert!(matches!(dream_files(&src, &out, "nobody", &opts), Err(MemoryError::NoAgent(_))));
    }
}

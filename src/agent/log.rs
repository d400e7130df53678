//! The session log: one JSONL line per turn in the seed's fields (`timestamp`,
//! `room_vnum`, `room_name`, `hp`, `max_hp`, `agent_level`, `mobs_present`, `fighting`,
//! `action`, `args`, `say_line`, `latency_ms`, `tokens`, `valence`), plus what a
//! researcher needs to read a turn back (`source`, `model`, `mobs`, `feedback`, `seq`).
//! Files go to `{log_dir}/{agent}/{YYYY-MM-DD-HHMMSS}.jsonl`, the layout `pawns dream
//! --sessions` reads. Each line is written when its turn ends, so its valence can say
//! what the turn led to; lines are flushed as they are written.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::state::{GameState, Heard};
use super::AgentError;

#[derive(Debug, Clone, Serialize)]
pub struct TurnLine {
    pub timestamp: String,
    pub room_vnum: i64,
    pub room_name: String,
    pub hp: i64,
    pub max_hp: i64,
    pub agent_level: i64,
    /// How many mobs were in the room (the seed's shape); `mobs` names them.
    pub mobs_present: usize,
    /// The mob being fought, or "".
    pub fighting: String,
    pub action: String,
    pub args: String,
    pub say_line: String,
    /// Time to decide (the LLM's answer; ~0 for the FSM).
    pub latency_ms: u64,
    /// LLM tokens spent on the decision.
    pub tokens: u64,
    /// What the turn meant, −3..+3 (0 when recorded with `--valence=false`).
    pub valence: i8,
    /// What decided: `fsm` (the survival rules), `planner`, `random`, `llm`, or
    /// `planner-fallback` (no model answered).
    pub source: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub model: String,
    pub mobs: Vec<String>,
    /// Time from sending the command to its first answer.
    pub reply_ms: Option<u64>,
    pub feedback: String,
    pub seq: u64,
}

impl TurnLine {
    /// The turn's fields from the state it was decided in.
    pub fn at(s: &GameState, command: &str, say: Option<&str>, source: &str) -> TurnLine {
        let (action, args) = command
            .trim()
            .split_once(' ')
            .map(|(a, b)| (a.to_string(), b.trim().to_string()))
            .unwrap_or((command.trim().to_string(), String::new()));
        TurnLine {
            timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            room_vnum: s.room_vnum,
            room_name: s.room_name.clone(),
            hp: s.hp,
            max_hp: s.max_hp,
            agent_level: s.level,
            mobs_present: s.mobs.len(),
            fighting: s.foe().map(|m| m.name.clone()).unwrap_or_default(),
            action,
            args,
            say_line: say.unwrap_or("").to_string(),
            latency_ms: 0,
            tokens: 0,
            valence: 0,
            source: source.into(),
            model: String::new(),
            mobs: s.mobs.iter().map(|m| m.name.clone()).collect(),
            reply_ms: None,
            feedback: String::new(),
            seq: 0,
        }
    }
}

/// What the turn meant to the agent, from what it heard and where its hit points went,
/// with the game's own valence rules (the strongest feeling of the turn wins).
pub fn turn_valence(action: &str, hp_before: (i64, i64), hp_after: (i64, i64), heard: &[Heard], level: i64) -> i8 {
    use pawns_graph::valence::{flee_valence, hp_pct, hurt_valence, kill_valence};
    let mut v: i8 = 0;
    let mut take = |x: i8| {
        if x.abs() > v.abs() {
            v = x;
        }
    };
    let pct = |(hp, max): (i64, i64)| hp_pct(hp as i32, max as i32);
    for h in heard {
        let t = h.text.to_ascii_lowercase();
        match h.kind.as_str() {
            "death" if t.contains("you are dead") || t.contains("you were killed") => take(-3),
            "level_up" => take(2),
            "kill" => {
                // "You killed a straw dummy (level 1)."
                let lvl = t.rsplit_once("(level ").and_then(|(_, r)| r.trim_end_matches([')', '.']).parse::<u8>().ok());
                take(lvl.map(|l| kill_valence(l, level.clamp(0, 255) as u8)).unwrap_or(1));
            }
            _ => {}
        }
    }
    if action == "flee" && heard.iter().any(|h| h.text.to_ascii_lowercase().contains("you flee")) {
        take(flee_valence(pct(hp_before)));
    }
    if hp_after.0 < hp_before.0 {
        take(hurt_valence(hp_after.0 as i32, hp_after.1 as i32));
    }
    v
}

pub struct SessionLog {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    pub lines: u64,
}

impl SessionLog {
    /// Opens `{dir}/{agent}/{YYYY-MM-DD-HHMMSS}.jsonl` (a suffix when that exists).
    pub fn create(dir: &Path, agent: &str) -> Result<SessionLog, AgentError> {
        let sub = dir.join(agent.to_ascii_lowercase());
        std::fs::create_dir_all(&sub).map_err(|e| AgentError::Log(format!("cannot create {}: {e}", sub.display())))?;
        let stamp = chrono::Utc::now().format("%Y-%m-%d-%H%M%S").to_string();
        let mut path = sub.join(format!("{stamp}.jsonl"));
        let mut n = 1;
        while path.exists() {
            n += 1;
            path = sub.join(format!("{stamp}-{n}.jsonl"));
        }
        let file = std::fs::OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(|e| AgentError::Log(format!("cannot create {}: {e}", path.display())))?;
        Ok(SessionLog { path, file: std::io::BufWriter::new(file), lines: 0 })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn write(&mut self, line: &TurnLine) -> Result<(), AgentError> {
        let text = serde_json::to_string(line).map_err(|e| AgentError::Log(e.to_string()))?;
        writeln!(self.file, "{text}")
            .and_then(|_| self.file.flush())
            .map_err(|e| AgentError::Log(format!("{}: {e}", self.path.display())))?;
        self.lines += 1;
        Ok(())
    }

    pub fn finish(mut self) -> Result<PathBuf, AgentError> {
        self.file.flush().map_err(|e| AgentError::Log(e.to_string()))?;
        self.file.get_ref().sync_all().map_err(|e| AgentError::Log(e.to_string()))?;
        Ok(self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(kind: &str, text: &str) -> Heard {
        Heard { kind: kind.into(), text: text.into(), from: None, re: None }
    }

    #[test]
    fn valence_follows_the_games_rules() {
        assert_eq!(turn_valence("kill", (20, 20), (20, 20), &[heard("kill", "You killed a sleeping dragon (level 20).")], 1), 3);
        assert_eq!(turn_valence("kill", (20, 20), (20, 20), &[heard("kill", "You killed a straw dummy (level 1).")], 1), 2);
        assert_eq!(turn_valence("kill", (20, 20), (20, 20), &[heard("kill", "You killed a rat (level 1).")], 30), 0);
        assert_eq!(turn_valence("look", (20, 20), (20, 20), &[heard("death", "You are dead!  Sorry...")], 1), -3);
        assert_eq!(turn_valence("flee", (90, 100), (90, 100), &[heard("text", "You flee head over heels.")], 1), -3);
        assert_eq!(turn_valence("flee", (10, 100), (10, 100), &[heard("text", "You flee head over heels.")], 1), 0);
        assert_eq!(turn_valence("look", (50, 100), (4, 100), &[], 1), -3);
        assert_eq!(turn_valence("look", (20, 20), (20, 20), &[], 1), 0);
    }

    #[test]
    fn lines_have_the_seeds_fields_and_files_do_not_collide() {
        let dir = tempfile::tempdir().unwrap();
        let mut s =
            GameState { room_vnum: 8005, room_name: "Yard".into(), hp: 5, max_hp: 20, level: 2, fighting: true, ..Default::default() };
        s.mobs.push(super::super::state::Mob { name: "a straw dummy".into(), fighting: true, ..Default::default() });
        let mut a = SessionLog::create(dir.path(), "Ula").unwrap();
        let b = SessionLog::create(dir.path(), "ula").unwrap();
        assert_ne!(a.path(), b.path());
        a.write(&TurnLine::at(&s, "kill 2.dummy", Some("die"), "fsm")).unwrap();
        let p = a.finish().unwrap();
        assert!(p.starts_with(dir.path().join("ula")));
        let v: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&p).unwrap().trim()).unwrap();
        for f in crate::record::export::SEED_FIELDS.iter().chain(&["tokens"]) {
            assert!(v.get(*f).is_some(), "missing {f}: {v}");
        }
        assert_eq!(
            (v["action"].as_str(), v["args"].as_str(), v["fighting"].as_str(), v["mobs_present"].as_u64()),
            (Some("kill"), Some("2.dummy"), Some("a straw dummy"), Some(1))
        );
    }
}

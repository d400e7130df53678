//! The readable transcript `pawns agent play` prints: rooms as they are entered, what
//! the agent does and why, what it hears, and the connection's ups and downs.

use std::io::Write;

use super::state::{GameState, Heard};

pub struct Transcript<'a> {
    out: &'a mut (dyn Write + Send),
    /// Print what others say and do in the room, not only the agent's own feedback.
    pub chatter: bool,
}

impl<'a> Transcript<'a> {
    pub fn new(out: &'a mut (dyn Write + Send)) -> Transcript<'a> {
        Transcript { out, chatter: true }
    }

    pub fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
    }

    pub fn room(&mut self, s: &GameState) {
        let mut t =
            format!("\n[{}] {} — exits: {}", s.room_vnum, s.room_name, if s.exits.is_empty() { "none".into() } else { s.exits.join(" ") });
        if !s.mobs.is_empty() {
            t += &format!("\n  mobs: {}", s.mobs.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join("; "));
        }
        if !s.players.is_empty() {
            t += &format!("\n  players: {}", s.players.join(", "));
        }
        if !s.items.is_empty() {
            t += &format!("\n  items: {}", s.items.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join("; "));
        }
        t += &format!(
            "\n  HP {}/{}  MP {}/{}  MV {}/{}  level {}  gold {}",
            s.hp, s.max_hp, s.mana, s.max_mana, s.moves, s.max_moves, s.level, s.gold
        );
        self.line(&t);
    }

    pub fn heard(&mut self, h: &Heard) {
        let text = h.text.trim_end();
        if text.is_empty() || (!self.chatter && h.re.is_none()) {
            return;
        }
        for l in text.lines() {
            self.line(&format!("  {l}"));
        }
    }

    pub fn action(&mut self, command: &str, source: &str, why: &str, s: &GameState) {
        self.line(&format!("> {command:<24} [{source}: {why}] HP {}/{}", s.hp, s.max_hp));
    }

    pub fn say(&mut self, text: &str) {
        self.line(&format!("> say {text}"));
    }
}

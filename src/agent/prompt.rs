//! What the LLM is told, within the tier's token budget, and how its answer is read.
//!
//! The system prompt says who the agent is and how to answer, then injects the memory
//! the server sent at login (`memory_summary`; the bootstrap block when there is no
//! summary). The user prompt is the state, compact, then what happened lately. Over
//! budget, the oldest context goes first: the earliest turns, then the earliest things
//! heard, then the memory's earliest lines; the rules and the current state stay.

use std::collections::VecDeque;

use pawns_graph::count_tokens;

use super::state::GameState;

/// One earlier decision and what came of it.
#[derive(Debug, Clone)]
pub struct Turn {
    pub command: String,
    pub feedback: String,
}

#[derive(Debug, Clone)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    /// cl100k tokens of both.
    pub tokens: usize,
    /// Lines dropped to fit the budget.
    pub trimmed: usize,
}

const RULES: &str = "You are {name}, a level {level} {class} playing Dark Pawns, a text MUD, beside humans and other agents. \
Each turn you get your state and what happened lately; answer with exactly one game command. \
Commands: north/east/south/west/up/down, look, kill <target>, flee, get <item>, get all corpse, wear <item>, wield <item>, \
rest, stand, consider <target>, say <text>, give <item> <player>, buy/sell/list (in shops), inventory, score. \
Use the [target] strings shown. Dying costs experience; flee when hurt. \
Answer with one JSON object and nothing else: {\"command\": \"kill goblin\", \"say\": \"optional words to say aloud\"}";

fn bar(label: &str, now: i64, max: i64) -> String {
    format!("{label} {now}/{max}")
}

/// The state in few tokens.
pub fn state_text(s: &GameState) -> String {
    let mut out = format!(
        "Room {} \"{}\". Exits: {}.\n{} {} {} Gold {} Lv {} Exp {} Pos {}{}.\n",
        s.room_vnum,
        s.room_name,
        if s.exits.is_empty() { "none".to_string() } else { s.exits.join(" ") },
        bar("HP", s.hp, s.max_hp),
        bar("MP", s.mana, s.max_mana),
        bar("MV", s.moves, s.max_moves),
        s.gold,
        s.level,
        s.exp,
        if s.position.is_empty() { "standing" } else { &s.position },
        if s.fighting { ", FIGHTING" } else { "" },
    );
    if !s.mobs.is_empty() {
        let m: Vec<String> =
            s.mobs.iter().map(|m| format!("{} [{}]{}", m.name, m.target_string, if m.fighting { " (fighting)" } else { "" })).collect();
        out += &format!("Mobs: {}.\n", m.join("; "));
    }
    if !s.players.is_empty() {
        out += &format!("Players: {}.\n", s.players.join(", "));
    }
    if !s.items.is_empty() {
        let m: Vec<String> = s.items.iter().map(|i| format!("{} [{}]", i.name, i.target_string)).collect();
        out += &format!("Items here: {}.\n", m.join("; "));
    }
    if !s.inventory.is_empty() {
        let m: Vec<String> = s.inventory.iter().map(|i| format!("{} [{}]", i.name, i.target_string)).collect();
        out += &format!("Carrying: {}.\n", m.join("; "));
    }
    if !s.equipment.is_empty() {
        let m: Vec<String> = s.equipment.iter().map(|(slot, n)| format!("{slot}: {n}")).collect();
        out += &format!("Wearing: {}.\n", m.join("; "));
    }
    out
}

/// The prompt for this turn, within `budget` tokens when there is one.
pub fn build(s: &GameState, history: &VecDeque<Turn>, budget: Option<usize>) -> Prompt {
    let class = if s.class.is_empty() { "adventurer".to_string() } else { s.class.to_ascii_lowercase() };
    let rules = RULES
        .replace("{name}", if s.name.is_empty() { "an adventurer" } else { &s.name })
        .replace("{level}", &s.level.to_string())
        .replace("{class}", &class);
    let memory = if !s.memory_summary.trim().is_empty() { s.memory_summary.trim() } else { s.memory_bootstrap.trim() };
    let mut memory_lines: Vec<&str> = memory.lines().collect();
    let state = state_text(s);
    let mut turns: Vec<String> = history.iter().map(|t| format!("> {}\n{}", t.command, first_lines(&t.feedback, 3))).collect();
    let mut heard: Vec<String> = s
        .recent
        .iter()
        .filter(|h| h.re.is_none() && !h.text.trim().is_empty())
        .map(|h| match &h.from {
            Some(f) => format!("[{}] {}: {}", h.kind, f, h.text.trim()),
            None => format!("[{}] {}", h.kind, h.text.trim()),
        })
        .collect();
    let (system, user) = assemble(&rules, &memory_lines, &state, &heard, &turns);
    let tokens = count_tokens(&system) + count_tokens(&user);
    let Some(b) = budget.filter(|b| tokens > *b) else {
        // Everything fits: one count, no trimming.
        return Prompt { system, user, tokens, trimmed: 0 };
    };
    let cost = |lines: &[String]| lines.iter().map(|l| count_tokens(l) + 1).sum::<usize>();
    let fixed = count_tokens(&rules) + count_tokens(&state) + 24;
    let mut trimmed = 0;
    let mut mem_cost: Vec<usize> = memory_lines.iter().map(|l| count_tokens(l) + 1).collect();
    let mut total = fixed + cost(&turns) + cost(&heard) + mem_cost.iter().sum::<usize>();
    loop {
        while total > b && !turns.is_empty() {
            total -= count_tokens(&turns.remove(0)) + 1;
            trimmed += 1;
        }
        while total > b && !heard.is_empty() {
            total -= count_tokens(&heard.remove(0)) + 1;
            trimmed += 1;
        }
        // The memory's earliest lines, after its heading (section headings stay while
        // a line under them does).
        while total > b && memory_lines.len() > 1 {
            let i = memory_lines.iter().skip(1).position(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|i| i + 1);
            let Some(i) = i else { break };
            memory_lines.remove(i);
            total -= mem_cost.remove(i);
            trimmed += 1;
        }
        let (system, user) = assemble(&rules, &memory_lines, &state, &heard, &turns);
        let tokens = count_tokens(&system) + count_tokens(&user);
        // The per-line sums are an estimate; if the whole is still over, trim on.
        let more =
            !turns.is_empty() || !heard.is_empty() || memory_lines.iter().skip(1).any(|l| !l.starts_with('#') && !l.trim().is_empty());
        if tokens <= b || !more {
            return Prompt { system, user, tokens, trimmed };
        }
        total = b + 1;
    }
}

fn assemble(rules: &str, memory_lines: &[&str], state: &str, heard: &[String], turns: &[String]) -> (String, String) {
    let memory: String = memory_lines.join("\n");
    let mut system = rules.to_string();
    if !memory.trim().is_empty() {
        system += "\n\nWhat you remember from earlier sessions (the game keeps this for you):\n";
        system += &memory;
    }
    let mut user = String::from("Now:\n");
    user += state;
    if !heard.is_empty() {
        user += "\nLately:\n";
        user += &heard.join("\n");
        user += "\n";
    }
    if !turns.is_empty() {
        user += "\nYour last turns:\n";
        user += &turns.join("\n");
        user += "\n";
    }
    user += "\nYour command?";
    (system, user)
}

fn first_lines(t: &str, n: usize) -> String {
    t.lines().filter(|l| !l.trim().is_empty()).take(n).collect::<Vec<_>>().join("\n")
}

/// A command and optional speech, read from the model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub command: String,
    pub say: Option<String>,
    /// Why, when the model said (sent with the command: protocol §5 `reason`).
    pub reason: Option<String>,
}

fn clean_command(c: &str) -> Option<String> {
    let c = c.trim().trim_matches(|ch: char| ch == '`' || ch == '"' || ch == '\'' || ch == '>').trim();
    let c = c.strip_prefix('/').unwrap_or(c).trim();
    let line = c.lines().next().unwrap_or("").trim();
    if line.is_empty() || line.len() > 200 || line.chars().any(|ch| ch.is_control()) {
        return None;
    }
    Some(line.to_string())
}

fn from_json(v: &serde_json::Value) -> Option<Reply> {
    let o = v.as_object()?;
    let cmd = ["command", "action", "cmd"].iter().find_map(|k| o.get(*k).and_then(|c| c.as_str()))?;
    let mut command = clean_command(cmd)?;
    match o.get("args") {
        Some(serde_json::Value::String(a)) if !a.trim().is_empty() => command = format!("{command} {}", a.trim()),
        Some(serde_json::Value::Array(a)) if !a.is_empty() => {
            let parts: Vec<&str> = a.iter().filter_map(|x| x.as_str()).collect();
            command = format!("{command} {}", parts.join(" "));
        }
        _ => {}
    }
    let say = ["say", "speech", "say_line"]
        .iter()
        .find_map(|k| o.get(*k).and_then(|c| c.as_str()))
        .map(|s| s.trim().replace(['\n', '\r'], " "))
        .filter(|s| !s.is_empty())
        .map(|s| s.chars().take(300).collect());
    let reason = ["reason", "why", "thought"]
        .iter()
        .find_map(|k| o.get(*k).and_then(|c| c.as_str()))
        .map(|s| s.trim().replace(['\n', '\r'], " "))
        .filter(|s| !s.is_empty())
        .map(|s| s.chars().take(crate::protocol::MAX_REASON).collect());
    Some(Reply { command, say, reason })
}

/// Reads the answer: a JSON object (bare, in a code fence, or inside prose), or
/// `command: …` / `say: …` lines, or a single line that is the command.
pub fn parse_reply(text: &str) -> Option<Reply> {
    let t = crate::memory::llm::strip_fences(text);
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(&t) {
        if let Some(r) = from_json(&v) {
            return Some(r);
        }
    }
    // The first balanced {...} that parses.
    let bytes: Vec<char> = t.chars().collect();
    for (i, c) in bytes.iter().enumerate() {
        if *c != '{' {
            continue;
        }
        let mut depth = 0;
        let mut in_str = false;
        let mut esc = false;
        for (j, d) in bytes.iter().enumerate().skip(i) {
            if in_str {
                match (esc, *d) {
                    (true, _) => esc = false,
                    (false, '\\') => esc = true,
                    (false, '"') => in_str = false,
                    _ => {}
                }
                continue;
            }
            match *d {
                '"' => in_str = true,
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        let cand: String = bytes[i..=j].iter().collect();
                        if let Some(r) = serde_json::from_str::<serde_json::Value>(&cand).ok().as_ref().and_then(from_json) {
                            return Some(r);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let mut command = None;
    let mut say = None;
    for line in t.lines() {
        let l = line.trim();
        let lower = l.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("command:").or_else(|| lower.strip_prefix("action:")) {
            command = clean_command(&l[l.len() - rest.len()..]);
        } else if let Some(rest) = lower.strip_prefix("say:") {
            say = Some(l[l.len() - rest.len()..].trim().to_string()).filter(|s| !s.is_empty());
        }
    }
    if let Some(command) = command {
        return Some(Reply { command, say, reason: None });
    }
    let lines: Vec<&str> = t.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() == 1 && lines[0].split_whitespace().count() <= 6 && !lines[0].trim_start().starts_with(['{', '[']) {
        return clean_command(lines[0]).map(|command| Reply { command, say: None, reason: None });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::state::{Heard, Mob};

    #[test]
    fn replies_are_read_from_json_fences_prose_and_lines() {
        let r = |c: &str, s: Option<&str>| Some(Reply { command: c.into(), say: s.map(str::to_string), reason: None });
        assert_eq!(parse_reply(r#"{"command":"kill goblin","say":"Die!"}"#), r("kill goblin", Some("Die!")));
        assert_eq!(parse_reply("```json\n{\"command\": \"north\"}\n```"), r("north", None));
        assert_eq!(
            parse_reply("I think we should go.\n{\"action\": \"get\", \"args\": [\"sword\"], \"say\": \"\"} Good luck"),
            r("get sword", None)
        );
        assert_eq!(parse_reply("Command: `flee`\nSay: run!"), r("flee", Some("run!")));
        assert_eq!(parse_reply("look"), r("look", None));
        assert_eq!(parse_reply("{\"text\": \"{nested}\", \"command\": \"say hi {there}\"}"), r("say hi {there}", None));
        assert_eq!(parse_reply("I am not sure what to do here, the room is dark and I feel lost."), None);
        assert_eq!(parse_reply(""), None);
        assert_eq!(parse_reply("{\"command\": \"\"}"), None);
    }

    #[test]
    fn the_budget_drops_the_oldest_context_first_and_keeps_state_and_rules() {
        let mut s = GameState { name: "ula".into(), level: 3, room_name: "The Training Yard".into(), ..Default::default() };
        s.mobs = vec![Mob { name: "a straw dummy".into(), target_string: "dummy".into(), ..Default::default() }];
        s.memory_summary = format!(
            "## Memory\n\n### Session 1\n{}\n### Relationships\nBram — trusted ally",
            (0..60).map(|i| format!("Killed goblin number {i} in the Dark Corridor (noteworthy).")).collect::<Vec<_>>().join("\n")
        );
        for i in 0..40 {
            s.recent.push_back(Heard { kind: "say".into(), text: format!("old chatter {i}"), from: Some("Bram".into()), re: None });
        }
        let history: VecDeque<Turn> = (0..30).map(|i| Turn { command: format!("north{i}"), feedback: "You walk.".into() }).collect();
        let all = build(&s, &history, None);
        assert_eq!(all.trimmed, 0);
        assert!(all.tokens > 1_000, "{}", all.tokens);
        let small = build(&s, &history, Some(1_000));
        assert!(small.tokens <= 1_000, "{} tokens", small.tokens);
        assert!(small.trimmed > 0);
        assert!(!small.user.contains("north0\n") && !small.user.contains("old chatter 0\n"), "the oldest go first");
        assert!(small.user.contains("The Training Yard") && small.user.contains("[dummy]"));
        assert!(small.system.contains("one JSON object"));
        // Memory is the last to be cut, from its earliest lines: the relationships stay.
        let mid = build(&s, &history, Some(1_500));
        assert!(mid.system.contains("Bram — trusted ally"), "{}", mid.system);
        assert!(!mid.user.contains("north0\n"));
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever a model answers, the result is one clean command line or nothing.
        #[test]
        fn any_answer_gives_one_clean_line_or_nothing(text in ".{0,400}", cmd in "[a-z]{1,8}( [a-z0-9.]{1,10})?", prose in "[A-Za-z ,.!]{0,60}") {
            if let Some(r) = parse_reply(&text) {
                prop_assert!(!r.command.is_empty() && r.command.len() <= 200);
                prop_assert!(!r.command.chars().any(|c| c.is_control()));
            }
            // A JSON answer inside any prose is found.
            let wrapped = format!("{prose}\n{{\"command\": \"{cmd}\"}}\n{prose}");
            prop_assert_eq!(parse_reply(&wrapped).map(|r| r.command), Some(cmd.clone()));
        }
    }
}

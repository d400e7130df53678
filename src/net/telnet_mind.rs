//! The memory layers (§12) for people at a telnet prompt: the same actions as the HUD's,
//! typed under their own verb and answered in words (never a code): `mind remember
//! <text>`, `mind forget <id>`, `mind recall <words>`, `mind soul` (list) / `mind soul
//! add <text>` / `mind soul remove <id>`, `mind diary` (today) / `mind diary write
//! <text>` / `mind diary read <YYYY-MM-DD>` / `mind diary search <words>`, `mind
//! relationship <name> [type=ally] [trust=0.5] [tone=warm] [rationale=…] [notes=…]`;
//! the action names themselves (`soul_add`, `diary_write`…) work too. Every other word
//! is the world's (its commands and triggers come first).

use std::sync::Arc;

use serde_json::{json, Value};

use super::shared::Shared;
use crate::game::model::world::CharId;
use crate::game::EngineMsg;

/// The memory layers' own verb: `mind recall <words>`, `mind diary write <text>`… (the
/// world's commands and triggers keep every other word: Dark Pawns has its own
/// `recall`, tbaMUD's teleporter listens for it).
pub const VERB: &str = "mind";

/// The HUD's action names, typed as they are (`soul_add Courage`): no world uses them.
const ACTION_NAMES: &[&str] = &[
    "soul_add",
    "soul_remove",
    "diary_write",
    "diary_read",
    "diary_search",
    "relationship_set",
    "link_request",
    "link_accept",
    "self_care",
];

/// How each memory command is typed (after `mind`).
const USAGE: &[(&str, &str)] = &[
    ("remember", "remember <text>"),
    ("forget", "forget <id>"),
    ("recall", "recall <words>"),
    ("soul", "soul | soul add <text> | soul remove <id>"),
    ("diary", "diary | diary write <text> | diary read <YYYY-MM-DD> | diary search <words>"),
    ("relationship", "relationship <name> [type=ally] [trust=-1…1] [tone=…] [rationale=…] [notes=\"…\"]"),
    ("conversations", "conversations [name]"),
    ("self_care", "self_care"),
    ("link", "link request <name> | link accept <name>"),
];

/// The usage of the memory command whose verb (or action name) is `verb`.
fn usage_of(verb: &str) -> String {
    let verb = verb.to_ascii_lowercase();
    let base = verb.split('_').next().unwrap_or("");
    let base = if base == "self" { "self_care" } else { base };
    let typed = |u: &str| u.split(" | ").map(|form| format!("{VERB} {form}")).collect::<Vec<_>>().join(" | ");
    match USAGE.iter().find(|(v, _)| *v == verb || *v == base) {
        Some((_, u)) => typed(u),
        None => USAGE.iter().map(|(_, u)| typed(u)).collect::<Vec<_>>().join("\n       "),
    }
}

/// The action a line asks for, if it is a memory command.
fn parse(line: &str) -> Option<Value> {
    let line = line.trim();
    let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    if verb.eq_ignore_ascii_case(VERB) {
        return Some(parse_layer(rest.trim()));
    }
    ACTION_NAMES.iter().any(|a| a.eq_ignore_ascii_case(verb)).then(|| parse_layer(line))
}

/// A memory command after its verb (`recall cellar`, `diary write …`).
fn parse_layer(line: &str) -> Value {
    let usage = |verb: &str| json!({"type": "__usage", "text": usage_of(verb)});
    let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let (sub, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let tail = tail.trim();
    let verb = verb.to_ascii_lowercase();
    // Each command that needs words says how it is typed when they are missing.
    let needs = |text: &str, item: Value| if text.is_empty() { usage(&verb) } else { item };
    match verb.as_str() {
        "remember" => needs(rest, json!({"type": "remember", "text": rest})),
        "forget" => needs(rest, json!({"type": "forget", "id": rest})),
        "recall" => needs(rest, json!({"type": "recall", "query": rest})),
        "self_care" | "selfcare" => json!({"type": "self_care"}),
        "conversations" => {
            if rest.is_empty() {
                json!({"type": "conversations"})
            } else {
                json!({"type": "conversations", "name": rest})
            }
        }
        "link_request" => needs(rest, json!({"type": "link_request", "name": rest})),
        "link_accept" => needs(rest, json!({"type": "link_accept", "name": rest})),
        "link" => match sub.to_ascii_lowercase().as_str() {
            "request" if !tail.is_empty() => json!({"type": "link_request", "name": tail}),
            "accept" if !tail.is_empty() => json!({"type": "link_accept", "name": tail}),
            _ => usage("link"),
        },
        "soul_add" => needs(rest, json!({"type": "soul_add", "text": rest})),
        "soul_remove" => needs(rest, json!({"type": "soul_remove", "id": rest})),
        "soul" => match sub.to_ascii_lowercase().as_str() {
            "" | "list" => json!({"type": "__view"}),
            "add" if !tail.is_empty() => json!({"type": "soul_add", "text": tail}),
            "remove" if !tail.is_empty() => json!({"type": "soul_remove", "id": tail}),
            _ => usage("soul"),
        },
        "diary_write" => needs(rest, json!({"type": "diary_write", "text": rest})),
        "diary_read" => needs(rest, json!({"type": "diary_read", "date": rest})),
        "diary_search" => needs(rest, json!({"type": "diary_search", "query": rest})),
        "diary" => match sub.to_ascii_lowercase().as_str() {
            "" => json!({"type": "diary_read", "date": chrono::Utc::now().format("%Y-%m-%d").to_string()}),
            "write" if !tail.is_empty() => json!({"type": "diary_write", "text": tail}),
            "read" if !tail.is_empty() => json!({"type": "diary_read", "date": tail}),
            "search" if !tail.is_empty() => json!({"type": "diary_search", "query": tail}),
            _ => usage("diary"),
        },
        "relationship" | "relationship_set" if !sub.is_empty() => {
            let mut item = json!({"type": "relationship_set", "name": sub});
            for pair in split_pairs(tail) {
                if let Some((k, v)) = pair.split_once('=') {
                    let v = v.trim().trim_matches('"');
                    let k = if k.trim() == "type" { "relationship_type" } else { k.trim() };
                    item[k] = match (k, v.parse::<f64>()) {
                        ("trust", Ok(n)) => json!(n),
                        _ => json!(v),
                    };
                }
            }
            item
        }
        other => usage(other),
    }
}

/// `a=1 b="two words" c=x` → ["a=1", "b=\"two words\"", "c=x"].
fn split_pairs(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn capitalize(m: &str) -> String {
    let mut c = m.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn line_of(v: &Value) -> String {
    let mut s = format!("  [{}] {}", v["id"], v["text"].as_str().unwrap_or(""));
    if let Some(w) = v["where"].as_str() {
        s.push_str(&format!(" (at {w}, {})", v["at"].as_str().unwrap_or("")));
    }
    s
}

/// Handles a memory command: the words to show, or `None` for any other line.
pub async fn handle(shared: &Arc<Shared>, char_id: CharId, line: &str) -> Option<String> {
    let item = parse(line)?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    shared.engine.tx.send(EngineMsg::Whereabouts { char_id, reply: tx }).await.ok()?;
    let at = rx.await.ok()?;
    if at.name.is_empty() {
        return Some("You are not in the game.\n".into());
    }
    let ty = item["type"].as_str().unwrap_or("").to_string();
    if ty == "__usage" {
        return Some(format!("Usage: {}\n", item["text"].as_str().unwrap_or("")));
    }
    if ty == "__view" {
        let v = shared.mind.hud_view(&at.name).await;
        let soul: Vec<String> = v["soul"].as_array().into_iter().flatten().map(line_of).collect();
        return Some(if soul.is_empty() {
            "Your soul holds no entries yet (soul add <text>).\n".into()
        } else {
            format!("Your soul:\n{}\n", soul.join("\n"))
        });
    }
    Some(match shared.mind.apply(&at.name, &item, &at).await {
        // Words, never a code: a malformed one is answered with how it is typed.
        Err(("bad_request", _)) => format!("Usage: {}\n", usage_of(&ty)),
        Err((_, m)) => format!("{}\n", capitalize(&m)),
        Ok(v) => match ty.as_str() {
            "remember" => format!("You commit it to memory (memory {}).\n", v["id"]),
            "soul_add" => format!("It becomes part of who you are (soul entry {}).\n", v["id"]),
            "forget" | "soul_remove" => "Let go.\n".into(),
            "recall" => {
                let mems: Vec<String> = v["memories"].as_array().into_iter().flatten().map(line_of).collect();
                let evs: Vec<String> = v["events"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|e| format!("  {} {}", e["at"].as_str().unwrap_or(""), e["text"].as_str().unwrap_or("")))
                    .collect();
                if mems.is_empty() && evs.is_empty() {
                    "Nothing comes to mind.\n".into()
                } else {
                    format!(
                        "You remember:\n{}{}\n",
                        mems.join("\n"),
                        if evs.is_empty() { String::new() } else { format!("\nAnd you lived:\n{}", evs.join("\n")) }
                    )
                }
            }
            "diary_write" => format!(
                "Written in your diary for {}{}.\n",
                v["date"].as_str().unwrap_or(""),
                if v["amended"] == true { " (amended)" } else { "" }
            ),
            "diary_read" => format!(
                "{} — {}{}\n",
                v["entry"]["date"].as_str().unwrap_or(""),
                v["entry"]["text"].as_str().unwrap_or(""),
                v["entry"]["mood"].as_str().map(|m| format!(" (mood: {m})")).unwrap_or_default()
            ),
            "diary_search" => {
                let days: Vec<String> = v["matches"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| format!("  {} — {}", d["date"].as_str().unwrap_or(""), d["text"].as_str().unwrap_or("")))
                    .collect();
                if days.is_empty() {
                    "No diary day mentions that.\n".into()
                } else {
                    format!("{}\n", days.join("\n"))
                }
            }
            "relationship_set" => format!("You think of {} differently now.\n", v["name"].as_str().unwrap_or("them")),
            "link_request" => {
                format!("You reach out to {}; they have {} s to accept.\n", v["asked"].as_str().unwrap_or("them"), v["window_s"])
            }
            "link_accept" => format!("Your memories flow to {} ({} of them).\n", v["with"].as_str().unwrap_or("them"), v["shared"]),
            "conversations" => {
                let lines: Vec<String> = v["lines"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|l| {
                        let who = l["with"].as_str().unwrap_or("");
                        if l["spoken"] == true {
                            format!("  to {who}: {}", l["text"].as_str().unwrap_or(""))
                        } else {
                            format!("  {}", l["text"].as_str().unwrap_or(""))
                        }
                    })
                    .collect();
                if lines.is_empty() {
                    "No conversations yet.\n".into()
                } else {
                    format!("{}\n", lines.join("\n"))
                }
            }
            "self_care" => format!(
                "You rest and put your thoughts in order: {} memories become {} summaries.\n",
                v["archived"],
                v["summaries"].as_array().map_or(0, Vec::len)
            ),
            _ => "Done.\n".into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_actions() {
        assert_eq!(parse("mind remember the gate is locked at night").unwrap()["text"], "the gate is locked at night");
        assert_eq!(parse("mind soul add I keep my word").unwrap(), json!({"type": "soul_add", "text": "I keep my word"}));
        assert_eq!(parse("soul_add I keep my word").unwrap(), json!({"type": "soul_add", "text": "I keep my word"}));
        assert_eq!(parse("mind diary read 2026-11-23").unwrap()["date"], "2026-11-23");
        let r = parse("mind relationship Bram type=ally trust=0.8 notes=\"saved me twice\"").unwrap();
        assert_eq!(
            (r["name"].as_str(), r["relationship_type"].as_str(), r["trust"].as_f64(), r["notes"].as_str()),
            (Some("Bram"), Some("ally"), Some(0.8), Some("saved me twice"))
        );
        assert_eq!(r["relationship_type"], "ally");
        assert!(parse("look").is_none());
        assert!(parse("say remember me").is_none());
        // The world's words stay the world's (Dark Pawns's recall, tbaMUD's triggers).
        assert!(parse("recall").is_none() && parse("remember the gate").is_none() && parse("diary").is_none());
        assert_eq!(parse("mind recall").unwrap()["type"], "__usage", "words missing: how it is typed");
    }
}

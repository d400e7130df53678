//! A model's answer to its HUD, read back into the seed's response format
//! (`{"responses": [...], "actions": [...]}`): JSON (bare, or fenced in ```json), or
//! TOON. Models wrap their JSON in prose and fences; the first balanced object that
//! has `responses` or `actions` wins.

use serde_json::Value;

use super::format::{decode, HudFormat};

/// The batch in a model's answer, or `None` when it holds none.
pub fn parse(text: &str) -> Option<Value> {
    let text = text.trim();
    for (start, _) in text.match_indices('{') {
        if let Some(v) = balanced_object(&text[start..]).and_then(|s| serde_json::from_str::<Value>(s).ok()) {
            if is_batch(&v) {
                return Some(v);
            }
        }
    }
    // TOON, perhaps fenced.
    let body = text.trim_start_matches("```toon").trim_start_matches("```").trim_end_matches("```").trim();
    decode(body, HudFormat::Toon).ok().filter(is_batch)
}

fn is_batch(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        (m.contains_key("responses") || m.contains_key("actions"))
            && m.get("responses").is_none_or(Value::is_array)
            && m.get("actions").is_none_or(Value::is_array)
    })
}

/// The text of the JSON object starting at `s` (which starts with `{`), strings and
/// escapes respected.
fn balanced_object(s: &str) -> Option<&str> {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for (i, c) in s.char_indices() {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn answers_in_prose_fences_and_toon() {
        let plain = r#"{"responses":[{"room_id":"here","message":"hi {there}"}],"actions":[]}"#;
        assert_eq!(parse(plain).unwrap()["responses"][0]["message"], "hi {there}");
        let fenced = format!("Sure! Here is my move:\n```json\n{plain}\n```\nGood luck.");
        assert_eq!(parse(&fenced), parse(plain));
        let nested_first = r#"I think {"mood": "calm"} so: {"actions":[{"type":"command","command":"north"}]}"#;
        assert_eq!(parse(nested_first).unwrap()["actions"][0]["command"], "north");
        let toon = "actions[1]{type,command}:\n  command,north";
        assert_eq!(parse(toon).unwrap(), json!({"actions": [{"type": "command", "command": "north"}]}));
        assert!(parse("I will go north.").is_none());
        assert!(parse(r#"{"actions": "north"}"#).is_none(), "actions must be a list");
    }

    proptest! {
        /// Whatever a model says, reading it never panics.
        #[test]
        fn any_text_reads_without_panicking(s in ".{0,300}") {
            let _ = parse(&s);
        }
    }
}

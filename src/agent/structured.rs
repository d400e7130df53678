//! Structured answers: the model is asked for an answer that fits a JSON Schema — the
//! commands that make sense now, as an enum — or for a call of one tool, when the
//! endpoint takes either, and the answer is read as text when it takes neither.
//!
//! Endpoints differ: OpenAI's `response_format` `json_schema` is served by vLLM,
//! Ollama and llama.cpp's own server; llama-cpp-python's refuses it ("Input should be
//! 'text' or 'json_object'") and takes `json_object` with a `schema`; tool calls with a
//! forced `tool_choice` go through most. `auto` tries them in that order and keeps the
//! first the endpoint does not refuse (an HTTP 4xx), learning it once per client.

use std::sync::atomic::{AtomicU8, Ordering};

use serde_json::{json, Value};

use super::state::GameState;

/// `--structured`: how the answer is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structured {
    /// The first form the endpoint takes: a schema, a schema in `json_object`, a tool
    /// call, then text.
    #[default]
    Auto,
    /// `response_format: json_schema` (or its `json_object` + `schema` form).
    Schema,
    /// A forced call of the tool `act`.
    Tools,
    /// Text, read as it comes.
    Off,
}

/// One way of asking, in the order `auto` tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    JsonSchema,
    JsonObject,
    Tool,
    Text,
}

const FORMS: [Form; 4] = [Form::JsonSchema, Form::JsonObject, Form::Tool, Form::Text];

impl Form {
    pub fn name(self) -> &'static str {
        match self {
            Form::JsonSchema => "json_schema",
            Form::JsonObject => "json_object",
            Form::Tool => "tool",
            Form::Text => "text",
        }
    }
}

/// What a client has learned of its endpoint: the form to ask in next.
#[derive(Debug, Default)]
pub struct Learned(AtomicU8);

impl Learned {
    pub fn form(&self, mode: Structured) -> Form {
        match mode {
            Structured::Off => Form::Text,
            Structured::Tools => Form::Tool,
            Structured::Schema => FORMS[(self.0.load(Ordering::Relaxed) as usize).min(1)],
            Structured::Auto => FORMS[(self.0.load(Ordering::Relaxed) as usize).min(3)],
        }
    }

    /// The endpoint refused `form`: the next one `mode` allows, if any.
    pub fn refused(&self, mode: Structured, form: Form) -> Option<Form> {
        let at = FORMS.iter().position(|f| *f == form)?;
        let last = match mode {
            Structured::Auto => 3,
            Structured::Schema => 1,
            Structured::Tools | Structured::Off => return None,
        };
        if at >= last {
            return None;
        }
        let _ = self.0.compare_exchange(at as u8, at as u8 + 1, Ordering::Relaxed, Ordering::Relaxed);
        Some(FORMS[at + 1])
    }
}

/// The commands that make sense now: every exit, a look around, and for each thing
/// here what one does with it (by its target string, which the game resolves).
pub fn choices(s: &GameState) -> Vec<String> {
    let mut out: Vec<String> = s.exits.clone();
    out.extend(["look", "score", "inventory"].map(String::from));
    if s.fighting {
        out.push("flee".into());
    } else if s.position == "resting" || s.position == "sitting" || s.position == "sleeping" {
        out.push("stand".into());
    } else if s.hp < s.max_hp {
        out.push("rest".into());
    }
    for m in &s.mobs {
        out.push(format!("consider {}", m.target_string));
        out.push(format!("kill {}", m.target_string));
    }
    for i in &s.items {
        out.push(format!("get {}", i.target_string));
    }
    for i in &s.inventory {
        out.push(format!("wear {}", i.target_string));
    }
    out.dedup();
    out.truncate(64);
    out
}

/// The answer's schema: one of `choices`, why, and optional words to say.
pub fn schema(choices: &[String]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": choices},
            "reason": {"type": "string", "maxLength": 200},
            "say": {"type": "string", "maxLength": 200}
        },
        "required": ["command", "reason"],
        "additionalProperties": false
    })
}

/// A HUD answer's schema, kept simple enough for an endpoint's grammar: words said here
/// (`responses`) and game commands (`actions` of type `command`). The HUD's own actions
/// (memory, rooms) a model may still write as text; the schema asks for what plays.
pub fn hud_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "responses": {"type": "array", "items": {
                "type": "object",
                "properties": {"room_id": {"type": "string", "enum": ["here"]}, "message": {"type": "string", "maxLength": 200}},
                "required": ["room_id", "message"]
            }},
            "actions": {"type": "array", "items": {
                "type": "object",
                "properties": {"type": {"type": "string", "enum": ["command"]}, "command": {"type": "string", "maxLength": 80}},
                "required": ["type", "command"]
            }}
        },
        "required": ["responses", "actions"]
    })
}

/// The request body's fields for `form` (none for text).
pub fn request_fields(form: Form, schema: &Value) -> Value {
    match form {
        Form::JsonSchema => {
            json!({"response_format": {"type": "json_schema", "json_schema": {"name": "decision", "strict": true, "schema": schema}}})
        }
        Form::JsonObject => json!({"response_format": {"type": "json_object", "schema": schema}}),
        Form::Tool => json!({
            "tools": [{"type": "function", "function": {"name": "act", "description": "Play one game command.", "parameters": schema}}],
            "tool_choice": {"type": "function", "function": {"name": "act"}}
        }),
        Form::Text => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_learns_the_first_form_the_endpoint_takes_once() {
        let l = Learned::default();
        assert_eq!(l.form(Structured::Auto), Form::JsonSchema);
        assert_eq!(l.refused(Structured::Auto, Form::JsonSchema), Some(Form::JsonObject));
        assert_eq!(l.form(Structured::Auto), Form::JsonObject);
        assert_eq!(l.refused(Structured::Auto, Form::JsonObject), Some(Form::Tool));
        assert_eq!(l.refused(Structured::Auto, Form::Tool), Some(Form::Text));
        assert_eq!(l.refused(Structured::Auto, Form::Text), None);
        assert_eq!(l.form(Structured::Auto), Form::Text);
        // `schema` stops at json_object; `tools` and `off` never change.
        let s = Learned::default();
        assert_eq!(s.refused(Structured::Schema, Form::JsonSchema), Some(Form::JsonObject));
        assert_eq!(s.refused(Structured::Schema, Form::JsonObject), None);
        assert_eq!(s.form(Structured::Tools), Form::Tool);
        assert_eq!(s.form(Structured::Off), Form::Text);
    }

    #[test]
    fn the_choices_are_what_makes_sense_here() {
        let mut s = GameState { exits: vec!["north".into(), "south".into()], hp: 5, max_hp: 10, ..Default::default() };
        s.mobs.push(super::super::state::Mob { name: "a rat".into(), target_string: "rat".into(), ..Default::default() });
        let c = choices(&s);
        assert!(c.contains(&"north".to_string()) && c.contains(&"kill rat".to_string()) && c.contains(&"rest".to_string()));
        assert!(!c.contains(&"flee".to_string()));
        let sc = schema(&c);
        assert_eq!(sc["properties"]["command"]["enum"].as_array().unwrap().len(), c.len());
    }
}

//! Each HUD action's argument schema (protocol §11): the JSON Schema `available_actions`
//! publishes, `GET /api/hud/actions` serves and the MCP tools take as their input
//! schema — and the one every item is checked against before it is read. One file,
//! `data/hud/action_schemas.json`, says them all, with a description and an example
//! each; a refusal from a schema names the field and why, with a stable code.
//!
//! The schemas say what is well formed; what the world then refuses (a room one is not
//! in, a date to come, a full store) has codes of its own.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use serde_json::{json, Map, Value};

/// The catalog as written.
pub const SCHEMAS: &str = include_str!("../../../data/hud/action_schemas.json");

/// Why an item is refused: a stable code and a sentence.
pub type Refusal = (&'static str, String);

/// Longest message a schema refusal carries (an instance can be long).
const MAX_MESSAGE: usize = 200;

/// One action's entry.
pub struct Entry {
    pub description: String,
    /// Its JSON Schema, as published.
    pub schema: Value,
    /// A well-formed item (with its `type`).
    pub example: Value,
    /// A field whose refusal has a code of its own (`w` → `bad_weight`).
    codes: BTreeMap<String, &'static str>,
    validator: jsonschema::Validator,
}

/// Every action's entry, and the shape of a `responses` item.
pub struct Catalog {
    pub response: Entry,
    pub actions: BTreeMap<String, Entry>,
}

fn entry(v: &Value) -> Result<Entry, String> {
    let schema = v.get("schema").cloned().ok_or("no schema")?;
    let validator = jsonschema::validator_for(&schema).map_err(|e| e.to_string())?;
    let codes = v
        .get("codes")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter().map(|(k, c)| (k.clone(), &*Box::leak(c.as_str().unwrap_or("bad_request").to_string().into_boxed_str()))).collect()
        })
        .unwrap_or_default();
    Ok(Entry {
        description: v.get("description").and_then(Value::as_str).ok_or("no description")?.to_string(),
        schema,
        example: v.get("example").cloned().ok_or("no example")?,
        codes,
        validator,
    })
}

/// The catalog, read once (a bad file is a build's mistake: a unit test reads it).
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let v: Value = serde_json::from_str(SCHEMAS).expect("action_schemas.json is JSON");
        let response = entry(&v["response"]).expect("the response's schema");
        let actions = v["actions"]
            .as_object()
            .expect("actions")
            .iter()
            .map(|(name, e)| (name.clone(), entry(e).unwrap_or_else(|m| panic!("{name}: {m}"))))
            .collect();
        Catalog { response, actions }
    })
}

/// `item` against action `ty`'s schema; a type without one is left to its reader.
pub fn check(ty: &str, item: &Value) -> Result<(), Refusal> {
    match catalog().actions.get(ty) {
        Some(e) => e.check(item),
        None => Ok(()),
    }
}

/// A `responses` item against its schema.
pub fn check_response(item: &Value) -> Result<(), Refusal> {
    catalog().response.check(item)
}

impl Entry {
    fn check(&self, item: &Value) -> Result<(), Refusal> {
        let Some(err) = self.validator.iter_errors(item).next() else { return Ok(()) };
        let path = err.instance_path().to_string();
        let field = path.trim_start_matches('/').split('/').next().unwrap_or("").to_string();
        let code = match (self.codes.get(&field), err.kind()) {
            (Some(c), _) => c,
            (None, ValidationErrorKind::MaxLength { .. }) => "too_long",
            _ => "bad_request",
        };
        let message = match err.kind() {
            // "{…} is not valid under any of the schemas" names nothing an agent can fix.
            ValidationErrorKind::AnyOf { .. } => match one_of_required(&self.schema) {
                Some(names) => format!("needs one of {names}"),
                None => "the fields do not fit this action".to_string(),
            },
            _ if field.is_empty() => err.to_string(),
            _ => format!("'{field}': {err}"),
        };
        Err((code, shorten(message)))
    }
}

/// `'value' or 'wpm'` for a schema whose `anyOf` asks for one of several fields.
fn one_of_required(schema: &Value) -> Option<String> {
    let names: Vec<String> = schema
        .get("anyOf")?
        .as_array()?
        .iter()
        .filter_map(|a| a.get("required")?.as_array()?.first()?.as_str().map(|s| format!("'{s}'")))
        .collect();
    (!names.is_empty()).then(|| names.join(" or "))
}

fn shorten(m: String) -> String {
    if m.chars().count() <= MAX_MESSAGE {
        return m;
    }
    let mut s: String = m.chars().take(MAX_MESSAGE - 1).collect();
    s.push('…');
    s
}

/// Action `name`'s schema.
pub fn schema_of(name: &str) -> Option<&'static Value> {
    catalog().actions.get(name).map(|e| &e.schema)
}

/// Everything published: each action's description, schema and example, and the
/// response's (`GET /api/hud/actions`).
pub fn published() -> Value {
    let c = catalog();
    let view = |e: &Entry| json!({"description": e.description, "schema": e.schema, "example": e.example});
    let actions: Map<String, Value> = c.actions.iter().map(|(k, e)| (k.clone(), view(e))).collect();
    json!({"response": view(&c.response), "actions": actions})
}

/// `available_actions` as a HUD shows it: the game's command lists as they are, and in
/// each category of the HUD's own actions every action with its schema
/// (`"knowledge": {"set": {…}, …}`).
pub fn with_schemas(categories: &Value) -> Value {
    let Some(cats) = categories.as_object() else { return categories.clone() };
    let c = catalog();
    let out: Map<String, Value> = cats
        .iter()
        .map(|(cat, names)| {
            let list = names.as_array().map(Vec::as_slice).unwrap_or_default();
            let ours = !list.is_empty() && list.iter().all(|n| n.as_str().is_some_and(|n| c.actions.contains_key(n)));
            let v = if ours {
                Value::Object(list.iter().filter_map(Value::as_str).map(|n| (n.to_string(), c.actions[n].schema.clone())).collect())
            } else {
                names.clone()
            };
            (cat.clone(), v)
        })
        .collect();
    Value::Object(out)
}

/// Back to names only (a small budget gives way): each category's actions as a list.
/// `false` when there were no schemas to drop.
pub fn names_only(available: &mut Value) -> bool {
    let Some(cats) = available.as_object_mut() else { return false };
    let mut changed = false;
    for v in cats.values_mut() {
        if let Value::Object(m) = v {
            *v = Value::Array(m.keys().map(|k| Value::String(k.clone())).collect());
            changed = true;
        }
    }
    changed
}

/// Values an agent might put in any field: well and badly formed, edges of ranges.
fn candidates() -> Vec<Value> {
    let mut v = vec![
        json!(null),
        json!(true),
        json!(""),
        json!(" "),
        json!("x"),
        json!("  Bram  "),
        json!("a\u{7}b"),
        json!("\u{7}"),
        json!("\u{7}x y"),
        json!("line\nbreak"),
        json!("12"),
        json!(" 7 "),
        json!("here"),
        json!("%*"),
        json!("30%"),
        json!("101%"),
        json!("100.5%"),
        json!(" 0 % "),
        json!("2026-11-27"),
        json!("2099-01-01"),
        json!("2026-13-45"),
        json!("2026-11-27T12:00:00"),
        json!("ünïcödé"),
        json!("x".repeat(33)),
        json!("x".repeat(51)),
        json!("é".repeat(201)),
        json!("x".repeat(257)),
        json!("x".repeat(501)),
        json!("x".repeat(2001)),
        json!({"a": 1}),
        json!([1]),
    ];
    for n in [-1.0f64, 0.0, 0.5, 1.0, 4.0, 4.5, 9.0, 10.0, 50.0, 51.0, 120.0, 200.0, 201.0, 86_401.0] {
        v.push(json!(n));
        if n >= 0.0 && n.fract() == 0.0 {
            v.push(json!(n as u64));
        }
    }
    v
}

/// Items near action `ty`'s example: each field in turn left out or given each of the
/// candidate values. For checking a reader against the schema (what the schema takes,
/// the reader must not refuse as malformed).
pub fn variants(ty: &str) -> Vec<Value> {
    let Some(e) = catalog().actions.get(ty) else { return Vec::new() };
    let mut fields: Vec<String> = e.schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
    fields.extend(e.example.as_object().into_iter().flat_map(|m| m.keys().cloned()).filter(|k| k != "type"));
    fields.sort();
    fields.dedup();
    let mut out = vec![e.example.clone()];
    for f in &fields {
        let mut without = e.example.clone();
        if let Some(m) = without.as_object_mut() {
            m.remove(f);
        }
        out.push(without);
        for c in candidates() {
            let mut item = e.example.clone();
            item[f.as_str()] = c;
            out.push(item);
        }
    }
    out
}

/// A whole number as JSON Schema's `integer` takes it (`4` and `4.0`), if it is one.
pub fn whole(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15).map(|f| f as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_reads_and_every_example_is_well_formed() {
        let c = catalog();
        assert!(c.actions.len() >= 36);
        for (name, e) in &c.actions {
            assert_eq!(e.example["type"], json!(name), "{name}'s example is of its own type");
            assert_eq!(check(name, &e.example), Ok(()), "{name}'s example");
            assert!(e.schema["type"] == "object", "{name}: an object");
        }
        assert_eq!(check_response(&c.response.example), Ok(()));
    }

    #[test]
    fn a_refusal_names_the_field_and_carries_its_code() {
        let (code, m) = check("set_wpm", &json!({"type": "set_wpm", "value": 500})).unwrap_err();
        assert_eq!(code, "bad_request");
        assert!(m.starts_with("'value': ") && m.contains("200"), "{m}");
        let (_, m) = check("set_wpm", &json!({"type": "set_wpm", "room_id": "here"})).unwrap_err();
        assert_eq!(m, "needs one of 'value' or 'wpm'");
        assert_eq!(check("set", &json!({"path": "a", "value": 1, "w": 2})).unwrap_err().0, "bad_weight");
        assert_eq!(check("react", &json!({"message_id": 1, "reaction": "shrug"})).unwrap_err().0, "bad_reaction");
        assert_eq!(check("remember", &json!({"text": "x".repeat(2001)})).unwrap_err().0, "too_long");
        let (code, m) = check("reply", &json!({"message_id": "4", "message": "y".repeat(5000)})).unwrap_err();
        assert_eq!(code, "bad_request");
        assert!(m.chars().count() <= MAX_MESSAGE, "a long instance is not echoed whole: {m}");
        assert_eq!(check("no_such_action", &json!({})), Ok(()), "left to its reader");
        assert_eq!(check("set_name", &json!({"name": "\u{7}"})).unwrap_err().0, "bad_request", "not only control characters");
        assert_eq!(check("set_name", &json!({"name": "a\u{7}b"})), Ok(()), "its reader drops them");
        assert_eq!(check("set_name", &json!({"name": "   "})).unwrap_err().0, "bad_request", "a name is not blank");
        assert_eq!(check("set_name", &json!({"name": "Bram the Bold"})), Ok(()));
    }

    #[test]
    fn a_huds_categories_carry_schemas_and_give_way_to_names() {
        let cats = json!({"movement": ["north"], "knowledge": ["set", "delete"], "position": ["sleep", "rest"]});
        let mut aa = with_schemas(&cats);
        assert_eq!(aa["movement"], json!(["north"]), "game commands stay a list");
        assert_eq!(aa["position"], json!(["sleep", "rest"]), "a list that is not all HUD actions stays one");
        assert_eq!(&aa["knowledge"]["set"], schema_of("set").unwrap());
        assert!(names_only(&mut aa));
        assert_eq!(aa["knowledge"], json!(["set", "delete"]), "in their order");
        assert!(!names_only(&mut aa), "nothing more to drop");
    }

    #[test]
    fn whole_numbers_are_what_integer_takes() {
        assert_eq!(whole(&json!(4)), Some(4));
        assert_eq!(whole(&json!(4.0)), Some(4));
        assert_eq!(whole(&json!(4.5)), None);
        assert_eq!(whole(&json!(-1)), None);
        assert_eq!(whole(&json!("4")), None);
    }
}

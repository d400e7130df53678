//! The agent's knowledge store (seed `003`, `self.knowledge`): free-form JSON the agent
//! writes with `set`, `delete` and `append` on dot paths (`people.Bram.trust`), a value
//! optionally weighted (`{"v": value, "w": 0.9}`). Pure: the cap (3,000 cl100k tokens)
//! is checked by the caller, who keeps the store unchanged when an action is refused.

use serde_json::{Map, Value};

/// Segments in a path, and characters in one.
pub const MAX_DEPTH: usize = 8;
pub const MAX_SEGMENT: usize = 64;

/// Why a knowledge action was refused, with its stable code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KnowledgeError {
    #[error("bad path '{0}': dot-separated names, 1 to {MAX_DEPTH} of them, each 1 to {MAX_SEGMENT} characters")]
    BadPath(String),
    #[error("the weight must be between 0 and 1")]
    BadWeight,
    #[error("nothing at '{0}'")]
    NoSuchPath(String),
    #[error("'{0}' holds a value, not an object")]
    NotAnObject(String),
}

impl KnowledgeError {
    pub fn code(&self) -> &'static str {
        match self {
            KnowledgeError::BadPath(_) => "bad_path",
            KnowledgeError::BadWeight => "bad_weight",
            KnowledgeError::NoSuchPath(_) => "no_such_path",
            KnowledgeError::NotAnObject(_) => "not_an_object",
        }
    }
}

fn segments(path: &str) -> Result<Vec<&str>, KnowledgeError> {
    let segs: Vec<&str> = path.split('.').collect();
    if path.is_empty() || segs.len() > MAX_DEPTH || segs.iter().any(|s| s.is_empty() || s.chars().count() > MAX_SEGMENT) {
        return Err(KnowledgeError::BadPath(path.chars().take(80).collect()));
    }
    Ok(segs)
}

/// The object that holds the path's last segment, made on the way when `create`.
fn parent<'a>(store: &'a mut Value, segs: &[&str], path: &str, create: bool) -> Result<&'a mut Map<String, Value>, KnowledgeError> {
    if !store.is_object() {
        *store = Value::Object(Map::new());
    }
    let mut cur = store;
    for s in &segs[..segs.len() - 1] {
        let m = cur.as_object_mut().ok_or_else(|| KnowledgeError::NotAnObject(path.into()))?;
        if !m.contains_key(*s) {
            if !create {
                return Err(KnowledgeError::NoSuchPath(path.into()));
            }
            m.insert(s.to_string(), Value::Object(Map::new()));
        }
        cur = m.get_mut(*s).expect("just checked");
        // A weighted value (`{"v", "w"}`) is a value, not a place to put more.
        if !cur.is_object() || is_weighted(cur) {
            return Err(KnowledgeError::NotAnObject(path.into()));
        }
    }
    cur.as_object_mut().ok_or_else(|| KnowledgeError::NotAnObject(path.into()))
}

/// Whether `v` is a weighted value as `set` writes it: `{"v": …, "w": number}`, nothing else.
fn is_weighted(v: &Value) -> bool {
    v.as_object().is_some_and(|m| m.len() == 2 && m.contains_key("v") && m.get("w").is_some_and(Value::is_number))
}

/// `set`: the value (weighted as `{"v", "w"}` when a weight comes) at the path.
pub fn set(store: &mut Value, path: &str, value: Value, weight: Option<f64>) -> Result<(), KnowledgeError> {
    let segs = segments(path)?;
    let value = match weight {
        Some(w) if (0.0..=1.0).contains(&w) => serde_json::json!({"v": value, "w": w}),
        Some(_) => return Err(KnowledgeError::BadWeight),
        None => value,
    };
    parent(store, &segs, path, true)?.insert(segs[segs.len() - 1].to_string(), value);
    Ok(())
}

/// `delete`: removes the path (an error when nothing is there), and the objects on the
/// way that it leaves empty (deleting `tmp.x` leaves no `"tmp": {}`).
pub fn delete(store: &mut Value, path: &str) -> Result<(), KnowledgeError> {
    let segs = segments(path)?;
    parent(store, &segs, path, false)?.remove(segs[segs.len() - 1]).ok_or_else(|| KnowledgeError::NoSuchPath(path.into()))?;
    for depth in (1..segs.len()).rev() {
        let holder = parent(store, &segs[..depth], path, false)?;
        if holder.get(segs[depth - 1]).and_then(Value::as_object).is_some_and(Map::is_empty) {
            holder.remove(segs[depth - 1]);
        } else {
            break;
        }
    }
    Ok(())
}

/// `append`: adds to the list at the path (made a list when empty; a single value there
/// becomes the list's first item).
pub fn append(store: &mut Value, path: &str, value: Value) -> Result<(), KnowledgeError> {
    let segs = segments(path)?;
    let m = parent(store, &segs, path, true)?;
    let slot = m.entry(segs[segs.len() - 1].to_string()).or_insert_with(|| Value::Array(Vec::new()));
    match slot {
        Value::Array(a) => a.push(value),
        other => {
            let first = std::mem::take(other);
            *other = Value::Array(vec![first, value]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn set_delete_append_on_dot_paths() {
        let mut k = json!({});
        set(&mut k, "people.Bram.trust", json!(0.8), Some(0.9)).unwrap();
        set(&mut k, "character.mood", json!("wary"), None).unwrap();
        append(&mut k, "character.memories", json!("fled a bear")).unwrap();
        append(&mut k, "character.memories", json!("found a sword")).unwrap();
        append(&mut k, "character.mood", json!("tired")).unwrap();
        assert_eq!(
            k,
            json!({"people": {"Bram": {"trust": {"v": 0.8, "w": 0.9}}},
                   "character": {"mood": ["wary", "tired"], "memories": ["fled a bear", "found a sword"]}})
        );
        // A weighted value is a value: nothing is set under it.
        assert_eq!(set(&mut k, "people.Bram.trust.since", json!("spring"), None).unwrap_err().code(), "not_an_object");
        assert_eq!(k["people"]["Bram"]["trust"], json!({"v": 0.8, "w": 0.9}));
        delete(&mut k, "people.Bram").unwrap();
        assert_eq!(k.get("people"), None, "no empty object is left behind: {k}");
        assert_eq!(delete(&mut k, "people.Bram").unwrap_err().code(), "no_such_path");
        set(&mut k, "tmp.a.x", json!(1), None).unwrap();
        set(&mut k, "tmp.b", json!(2), None).unwrap();
        delete(&mut k, "tmp.a.x").unwrap();
        assert_eq!(k["tmp"], json!({"b": 2}), "only what it emptied goes");
        assert_eq!(set(&mut k, "character.mood.deeper", json!(1), None).unwrap_err().code(), "not_an_object");
        assert_eq!(set(&mut k, "a..b", json!(1), None).unwrap_err().code(), "bad_path");
        assert_eq!(set(&mut k, "", json!(1), None).unwrap_err().code(), "bad_path");
        assert_eq!(set(&mut k, "a.b.c.d.e.f.g.h.i", json!(1), None).unwrap_err().code(), "bad_path");
        assert_eq!(set(&mut k, "a", json!(1), Some(1.5)).unwrap_err().code(), "bad_weight");
    }
}

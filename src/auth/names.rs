//! The naming rule: letters only, 2–20 characters, not reserved.

const RESERVED: &[&str] = &[
    "all",
    "self",
    "me",
    "someone",
    "something",
    "the",
    "a",
    "an",
    "you",
    "admin",
    "god",
    "imp",
    "quit",
    "new",
    "north",
    "south",
    "east",
    "west",
    "up",
    "down",
    "corpse",
    "coins",
    "gold",
    "agent",
    "server",
    "system",
];

pub fn check(name: &str) -> Result<(), String> {
    let n = name.trim();
    if n.len() < 2 || n.len() > 20 {
        return Err("a name must be 2 to 20 letters long".into());
    }
    if !n.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err("a name may contain only the letters a-z".into());
    }
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(n)) {
        return Err(format!("'{n}' is reserved; choose another name"));
    }
    Ok(())
}

/// "brenda" → "Brenda".
pub fn display(name: &str) -> String {
    let n = name.trim().to_ascii_lowercase();
    let mut c = n.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_rule() {
        assert!(check("Brenda").is_ok());
        assert!(check("b").is_err());
        assert!(check("abcdefghijklmnopqrstu").is_err());
        assert!(check("bob1").is_err());
        assert!(check("bo b").is_err());
        assert!(check("Self").is_err());
        assert!(check("émile").is_err());
        assert_eq!(display("bRENDA"), "Brenda");
    }
}

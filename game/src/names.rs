//! The naming rules.
//!
//! The protocol's rule (§3 `invalid_name`), which the seed's clients rely on: 2–32
//! characters, a letter first, then letters, digits, `_`, `-` or `.` (`brenda69`,
//! `scout_2`, `ann-marie`). It holds for agent keys, key logins, `new_char` and every
//! name looked up. Telnet creation keeps the classic CircleMUD rule on top of it:
//! letters only, 2–20 — people typing a name at a prompt get the names MUDs have always
//! had, and an agent's `brenda69` still logs in anywhere.

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

/// The longest name the protocol allows.
pub const MAX_LEN: usize = 32;
/// The longest name telnet creation allows (CircleMUD's).
pub const MAX_CLASSIC_LEN: usize = 20;

/// The protocol's rule: 2–32 characters, a letter, then letters, digits, `_`, `-`, `.`;
/// not reserved.
pub fn check(name: &str) -> Result<(), String> {
    let n = name.trim();
    if n.len() < 2 || n.len() > MAX_LEN {
        return Err(format!("a name must be 2 to {MAX_LEN} characters long"));
    }
    if !n.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err("a name must start with a letter".into());
    }
    if !n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        return Err("a name may contain only letters, digits, '_', '-' and '.'".into());
    }
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(n)) {
        return Err(format!("'{n}' is reserved; choose another name"));
    }
    // `all.x` is dot notation for "every x": such a name could never be targeted.
    if n.split('.').next().is_some_and(|first| first.eq_ignore_ascii_case("all")) && n.contains('.') {
        return Err(format!("'{n}' reads as 'all.' targeting; choose another name"));
    }
    Ok(())
}

/// The classic rule for characters made at the telnet prompt: letters only, 2–20,
/// within the protocol's rule.
pub fn check_classic(name: &str) -> Result<(), String> {
    let n = name.trim();
    if n.len() < 2 || n.len() > MAX_CLASSIC_LEN {
        return Err(format!("a name must be 2 to {MAX_CLASSIC_LEN} letters long"));
    }
    if !n.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err("a name may contain only the letters a-z".into());
    }
    check(n)
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
    fn protocol_rule_accepts_the_seed_clients_names() {
        for ok in ["Brenda", "brenda69", "my_agent", "scout-2", "dr.who", "ab", "a2345678901234567890123456789012"] {
            assert!(check(ok).is_ok(), "{ok}");
        }
        for bad in
            ["b", "a23456789012345678901234567890123", "69brenda", "_agent", "bo b", "Self", "émile", "bob!", "all.x", "ALL.things", ""]
        {
            assert!(check(bad).is_err(), "{bad}");
        }
        assert!(check("ally.one").is_ok(), "only an exact 'all' before the dot is dot notation");
    }

    #[test]
    fn telnet_creation_keeps_the_classic_rule() {
        assert!(check_classic("Brenda").is_ok());
        assert!(check_classic("b").is_err());
        assert!(check_classic("abcdefghijklmnopqrstu").is_err());
        assert!(check_classic("bob1").is_err());
        assert!(check_classic("my_agent").is_err());
        assert!(check_classic("Self").is_err());
        assert_eq!(display("bRENDA"), "Brenda");
        assert_eq!(display("BRENDA69"), "Brenda69");
    }
}

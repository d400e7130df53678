//! `%…%` substitution: `%var%`, `%var.field%`, `%var.field(arg)%`, chains
//! (`%actor.room.vnum%`), and variables inside arguments (`%actor.gold(%value%)%`),
//! innermost first. `%%` is a literal `%`. What a name or field means is the host's
//! ([`Vars`]); the string fields every value has (`car`, `cdr`, `trim`, `strlen`,
//! `toupper`, `tolower`, `charat`, `contains`) are answered here when the host does not.

/// What substitution asks of its host.
pub trait Vars {
    /// `%name%`: a variable (local, global, or one the trigger gives: `actor`, `self`…).
    fn var(&mut self, name: &str) -> Option<String>;
    /// `value.field(arg)`; `base` is the variable's name when this is its first field
    /// (`random` in `%random.10%`), `None` further down a chain.
    fn field(&mut self, base: Option<&str>, value: &str, field: &str, arg: Option<&str>) -> Option<String>;
}

/// Splits `s` at `sep` outside parentheses.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The string fields of any value.
fn string_field(value: &str, field: &str, arg: Option<&str>) -> Option<String> {
    let v = value;
    Some(match field {
        "car" => v.split_whitespace().next().unwrap_or("").to_string(),
        "cdr" => v.trim_start().split_once(char::is_whitespace).map(|(_, r)| r.trim_start()).unwrap_or("").to_string(),
        "trim" => v.trim().to_string(),
        "strlen" => v.chars().count().to_string(),
        "toupper" => v.to_uppercase(),
        "tolower" => v.to_lowercase(),
        "cap" => {
            let mut c = v.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
        }
        "charat" => {
            let n: usize = arg?.trim().parse().ok()?;
            v.chars().nth(n.checked_sub(1)?).map(String::from).unwrap_or_default()
        }
        "contains" => (v.to_lowercase().contains(&arg?.to_lowercase()) as u8).to_string(),
        _ => return None,
    })
}

/// Resolves one `%…%` body (without the percent signs).
fn resolve(body: &str, vars: &mut dyn Vars, depth: u32) -> String {
    let parts = split_top(body, '.');
    let name = parts[0].trim();
    let mut value = vars.var(name);
    for (i, part) in parts.iter().enumerate().skip(1) {
        let (field, arg) = match part.find('(') {
            Some(p) if part.ends_with(')') => (&part[..p], Some(subst_depth(&part[p + 1..part.len() - 1], vars, depth + 1))),
            _ => (*part, None),
        };
        let base = (i == 1).then_some(name);
        let current = value.clone().unwrap_or_default();
        value = vars.field(base, &current, field, arg.as_deref()).or_else(|| string_field(&current, field, arg.as_deref()));
    }
    value.unwrap_or_default()
}

/// Substitutes every `%…%` of a line.
pub fn subst(line: &str, vars: &mut dyn Vars) -> String {
    subst_depth(line, vars, 0)
}

fn subst_depth(line: &str, vars: &mut dyn Vars, depth: u32) -> String {
    if depth > 16 || !line.contains('%') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('%') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        // The closing `%` is the first one outside parentheses.
        let mut paren = 0i32;
        let mut end = None;
        for (i, c) in after.char_indices() {
            match c {
                '(' => paren += 1,
                ')' => paren -= 1,
                '%' if paren <= 0 => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            // An unmatched `%` stays as written.
            out.push_str(&rest[start..]);
            return out;
        };
        let body = &after[..end];
        if body.is_empty() {
            out.push('%');
        } else {
            out.push_str(&resolve(body, vars, depth));
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Fake(HashMap<&'static str, &'static str>, Vec<String>);
    impl Vars for Fake {
        fn var(&mut self, name: &str) -> Option<String> {
            self.0.get(name).map(|s| s.to_string())
        }
        fn field(&mut self, base: Option<&str>, value: &str, field: &str, arg: Option<&str>) -> Option<String> {
            self.1.push(format!("{base:?} {value} {field} {arg:?}"));
            match (base, field) {
                (Some("random"), n) => Some(format!("rand{n}")),
                (_, "name") if value == "@ann" => Some("Ann".into()),
                (_, "room") if value == "@ann" => Some("#3001".into()),
                (_, "vnum") if value == "#3001" => Some("3001".into()),
                (_, "gold") => Some(format!("gold+{}", arg.unwrap_or(""))),
                _ => None,
            }
        }
    }

    fn fake() -> Fake {
        Fake([("actor", "@ann"), ("value", "15"), ("arg", "give sword")].into_iter().collect(), Vec::new())
    }

    #[test]
    fn variables_fields_chains_and_nesting() {
        let mut f = fake();
        assert_eq!(subst("say Hello %actor.name%!", &mut f), "say Hello Ann!");
        assert_eq!(subst("%actor.room.vnum%", &mut f), "3001");
        assert_eq!(subst("nop %actor.gold(%value%)%", &mut f), "nop gold+15");
        assert_eq!(subst("%random.10%", &mut f), "rand10");
        assert_eq!(subst("%arg.car% / %arg.cdr% / %arg.strlen%", &mut f), "give / sword / 10");
        assert_eq!(subst("100%% sure", &mut f), "100% sure");
        assert_eq!(subst("%unknown% x", &mut f), " x");
        assert_eq!(subst("50% off", &mut f), "50% off", "an unmatched % stays");
        assert_eq!(subst("%arg.charat(1)%%arg.toupper%", &mut f), "gGIVE SWORD");
    }

    proptest::proptest! {
        #[test]
        fn any_line_substitutes_without_panic(s in "\\PC{0,120}") {
            let _ = subst(&s, &mut fake());
        }
    }
}

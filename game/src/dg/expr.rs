//! DG Scripts expressions (`if`, `while`, `eval`), with tbaMUD's rules: everything is a
//! string; an operator splits the expression at its first appearance, the weakest
//! operator first (`||`, `&&`, `==`, `!=`, `<=`, `>=`, `<`, `>`, `/=`, `-`, `+`, `/`,
//! `*`, then unary `!`); numbers compare as numbers, other strings without regard to
//! case; `/=` is "contains"; parentheses group. A result is "true" unless it is empty
//! or `0`.

/// The operators, weakest first (the order tbaMUD tries them in).
const OPS: [&str; 13] = ["||", "&&", "==", "!=", "<=", ">=", "<", ">", "/=", "-", "+", "/", "*"];

fn num(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse::<i64>().ok()).flatten()
}

/// tbaMUD's `atoi`: the leading number, 0 when there is none.
fn atoi(s: &str) -> i64 {
    let t = s.trim();
    let (neg, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let n: i64 = rest.bytes().take_while(|b| b.is_ascii_digit()).take(18).fold(0, |n, b| n * 10 + (b - b'0') as i64);
    if neg {
        -n
    } else {
        n
    }
}

pub fn truthy(s: &str) -> bool {
    let t = s.trim();
    !t.is_empty() && t != "0"
}

fn b(v: bool) -> String {
    if v { "1" } else { "0" }.to_string()
}

/// Where `op` first appears in `s` outside parentheses and quotes (a `-` that starts
/// the expression or follows an operator is a sign, not the operator).
fn find_op(s: &str, op: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => depth -= 1,
            _ if depth == 0 && !quoted && bytes[i..].starts_with(op.as_bytes()) => {
                let before = s[..i].trim_end();
                let sign = op == "-" && (before.is_empty() || before.ends_with(|c: char| "=<>!|&+-*/(".contains(c)));
                if !sign {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn strip_parens(s: &str) -> &str {
    let t = s.trim();
    if t.starts_with('(') && t.ends_with(')') {
        // Only when the first parenthesis closes at the end.
        let mut depth = 0;
        for (i, c) in t.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return if i == t.len() - 1 { strip_parens(&t[1..t.len() - 1]) } else { t };
                    }
                }
                _ => {}
            }
        }
    }
    t
}

fn apply(op: &str, l: &str, r: &str) -> String {
    let (l, r) = (l.trim(), r.trim());
    let both = num(l).zip(num(r));
    match op {
        "||" => b(truthy(l) || truthy(r)),
        "&&" => b(truthy(l) && truthy(r)),
        "==" => b(both.map_or_else(|| l.eq_ignore_ascii_case(r), |(a, c)| a == c)),
        "!=" => b(both.map_or_else(|| !l.eq_ignore_ascii_case(r), |(a, c)| a != c)),
        "<=" | ">=" | "<" | ">" => {
            let ord = both.map_or_else(|| l.to_ascii_lowercase().cmp(&r.to_ascii_lowercase()), |(a, c)| a.cmp(&c));
            b(match op {
                "<=" => ord.is_le(),
                ">=" => ord.is_ge(),
                "<" => ord.is_lt(),
                _ => ord.is_gt(),
            })
        }
        "/=" => b(l.to_ascii_lowercase().contains(&r.to_ascii_lowercase())),
        "-" => atoi(l).wrapping_sub(atoi(r)).to_string(),
        "+" => atoi(l).wrapping_add(atoi(r)).to_string(),
        "*" => atoi(l).wrapping_mul(atoi(r)).to_string(),
        "/" => match atoi(r) {
            0 => "0".to_string(),
            d => atoi(l).wrapping_div(d).to_string(),
        },
        _ => String::new(),
    }
}

/// Evaluates an expression whose variables are already substituted.
pub fn eval(expr: &str) -> String {
    eval_depth(expr, 0)
}

fn eval_depth(expr: &str, depth: u32) -> String {
    let e = strip_parens(expr);
    if depth > 64 {
        return e.to_string();
    }
    for op in OPS {
        if let Some(i) = find_op(e, op) {
            let (l, r) = (&e[..i], &e[i + op.len()..]);
            return apply(op, &eval_depth(l, depth + 1), &eval_depth(r, depth + 1));
        }
    }
    if let Some(rest) = e.strip_prefix('!') {
        let v = eval_depth(rest, depth + 1);
        return b(!truthy(&v));
    }
    e.trim_matches('"').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tbamud_expressions() {
        assert_eq!(eval("1 + 2"), "3");
        assert_eq!(eval("10 / 3"), "3");
        assert_eq!(eval("5 / 0"), "0");
        assert_eq!(eval("%x% == 3".replace("%x%", "3").as_str()), "1");
        assert_eq!(eval("Magic User != Magic User"), "0");
        assert_eq!(eval("magic user == Magic User"), "1", "strings compare without case");
        assert_eq!(eval("10 > 9"), "1", "numbers compare as numbers");
        assert_eq!(eval("abc < abd"), "1");
        assert_eq!(eval("hello there /= THERE"), "1");
        assert_eq!(eval("1 && 0"), "0");
        assert_eq!(eval("0 || 2"), "1");
        assert_eq!(eval("!0"), "1");
        assert_eq!(eval("!"), "1");
        assert_eq!(eval("(2 + 3) * 4"), "20");
        assert_eq!(eval("-3 + 5"), "2");
        assert_eq!(eval("7 == 7 && 3 < 4"), "1");
        assert_eq!(eval("sword"), "sword");
        assert!(truthy("sword") && !truthy("0") && !truthy(" "));
    }

    proptest::proptest! {
        #[test]
        fn any_expression_evaluates_without_panic(s in "\\PC{0,120}") {
            let _ = eval(&s);
        }
    }
}

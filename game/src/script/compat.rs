//! The Lua-4 compatibility layer: what the world's scripts expect of the Lua they were
//! written for, on Lua 5.4, so they run unedited.
//!
//! Most of it is Lua (`data/lua/compat4.lua`): `getn` with Lua 4's rule, `tinsert`,
//! `tremove`, `foreach(i)`, the `str*` names, a `format` that truncates for `%d`, the
//! math names, `call(f, args, "x")`, `dostring`, and `pcall`/`xpcall` that re-raise a
//! budget overrun. One habit needs the source itself changed: Lua 4's table iteration
//! `for k, v in t do`, which 5.4 reads as calling a table. [`rewrite_table_for`] turns
//! it into `for k, v in __pawns_sorted(t) do` (keys in a fixed order, for replay).

use std::borrow::Cow;

/// The Lua half of the layer, run once into the shared globals.
pub const SOURCE: &str = include_str!("../../../data/lua/compat4.lua");

fn ident_end(b: &[u8], mut i: usize) -> Option<usize> {
    let start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    (i > start && !b[start].is_ascii_digit()).then_some(i)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Rewrites Lua 4's `for k, v in <table> do` (a plain name or field path, such as
/// `jail_rooms` or `me.objs`) to iterate the table in a fixed order. Everything else
/// is left as written.
pub fn rewrite_table_for(src: &str) -> Cow<'_, str> {
    let b = src.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while let Some(pos) = src[i..].find("for").map(|p| p + i) {
        i = pos + 3;
        let word_start = pos == 0 || !(b[pos - 1].is_ascii_alphanumeric() || b[pos - 1] == b'_');
        if !word_start || !b.get(pos + 3).is_some_and(|c| c.is_ascii_whitespace()) {
            continue;
        }
        // for <k> , <v> in <expr> do
        let Some(k_end) = ident_end(b, skip_ws(b, pos + 3)) else { continue };
        let comma = skip_ws(b, k_end);
        if b.get(comma) != Some(&b',') {
            continue;
        }
        let Some(v_end) = ident_end(b, skip_ws(b, comma + 1)) else { continue };
        let in_at = skip_ws(b, v_end);
        if !src[in_at..].starts_with("in") || !b.get(in_at + 2).is_some_and(|c| c.is_ascii_whitespace()) {
            continue;
        }
        let expr_start = skip_ws(b, in_at + 2);
        let mut e = expr_start;
        while let Some(end) = ident_end(b, e) {
            e = end;
            if b.get(e) == Some(&b'.') {
                e += 1;
            } else {
                break;
            }
        }
        if e == expr_start {
            continue;
        }
        let do_at = skip_ws(b, e);
        if !src[do_at..].starts_with("do") || b.get(do_at + 2).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
            continue;
        }
        let expr = &src[expr_start..e];
        if matches!(expr, "pairs" | "ipairs" | "next") {
            continue;
        }
        let o = out.get_or_insert_with(String::new);
        o.push_str(&src[copied..expr_start]);
        o.push_str("__pawns_sorted(");
        o.push_str(expr);
        o.push_str(") ");
        copied = do_at;
        i = do_at;
    }
    match out {
        Some(mut o) => {
            o.push_str(&src[copied..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_iteration_is_rewritten_and_nothing_else() {
        assert_eq!(rewrite_table_for("for k, v in jail do x() end"), "for k, v in __pawns_sorted(jail) do x() end");
        assert_eq!(rewrite_table_for("for i,o in me.objs do"), "for i,o in __pawns_sorted(me.objs) do");
        let untouched = [
            "for i = 1, getn(t) do",
            "for k, v in pairs(t) do",
            "for k, v in __pawns_sorted(t) do",
            "before k, v in t do",
            "for k in t do",
        ];
        for s in untouched {
            assert_eq!(rewrite_table_for(s), *s, "{s}");
        }
    }

    proptest::proptest! {
        /// Any text: no panic, and text without a table-for comes back as it was.
        #[test]
        fn rewriting_never_panics(s in "\\PC{0,200}") {
            let out = rewrite_table_for(&s);
            if !s.contains(" in ") {
                proptest::prop_assert_eq!(out.as_ref(), s.as_str());
            }
        }
    }
}

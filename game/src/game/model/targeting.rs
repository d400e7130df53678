//! CircleMUD dot-notation targets: `goblin`, `2.goblin`, `all`, `all.coins`.
//!
//! The same matching function both resolves a target and builds the `target_string`
//! the server hands out, so every handed-out string resolves to the thing it names.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// 1-based.
    Nth(usize),
    All,
}

/// Splits `2.goblin` → (Nth(2), "goblin"), `all.kw` → (All, "kw"), `all` → (All, "").
pub fn parse(arg: &str) -> (Count, &str) {
    let arg = arg.trim();
    if arg.eq_ignore_ascii_case("all") {
        return (Count::All, "");
    }
    if let Some((n, kw)) = arg.split_once('.') {
        if n.eq_ignore_ascii_case("all") {
            return (Count::All, kw);
        }
        if let Ok(i) = n.parse::<usize>() {
            return (Count::Nth(i.max(1)), kw);
        }
    }
    (Count::Nth(1), arg)
}

/// True when `kw` names one of the words in `keywords` (whole word or its prefix),
/// ignoring case. An empty keyword names nothing.
pub fn is_name(kw: &str, keywords: &str) -> bool {
    if kw.is_empty() {
        return false;
    }
    keywords.split_whitespace().any(|w| w.len() >= kw.len() && w.is_char_boundary(kw.len()) && w[..kw.len()].eq_ignore_ascii_case(kw))
}

/// A room occupant's signature: bit 63 marks a mob; below it, for each of its keywords,
/// a bit for the first byte and one for the first two (ASCII case folded). A keyword
/// can name the occupant (`is_name`) only if `sig & query_sig(kw) == query_sig(kw)`,
/// so a crowd is searched without reading its characters.
pub fn occupant_sig(keywords: &str, npc: bool) -> u64 {
    let mut sig = if npc { NPC_SIG } else { 0 };
    for w in keywords.split_whitespace() {
        sig |= query_sig(w);
    }
    sig
}

/// The bit of a mob in `occupant_sig`.
pub const NPC_SIG: u64 = 1 << 63;

/// What an occupant's signature must hold for `kw` to name it (see `occupant_sig`).
pub fn query_sig(kw: &str) -> u64 {
    let b = kw.as_bytes();
    let Some(&first) = b.first() else { return 0 };
    let a = first.to_ascii_lowercase() as u64;
    let mut sig = 1u64 << (a % 31);
    if let Some(&second) = b.get(1) {
        let h = a.wrapping_mul(31).wrapping_add(second.to_ascii_lowercase() as u64);
        sig |= 1u64 << (31 + h % 32);
    }
    sig
}

const ARTICLES: [&str; 3] = ["a", "an", "the"];

/// The first keyword that is not an article, lower-cased.
pub fn first_keyword(keywords: &str) -> String {
    keywords
        .split_whitespace()
        .find(|w| !ARTICLES.iter().any(|a| a.eq_ignore_ascii_case(w)))
        .or_else(|| keywords.split_whitespace().next())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Whether `kw` is one of `keywords` whole (Dark Pawns's `isname`: "cap" is not the
/// cape; CircleMUD's and tbaMUD's take a beginning, `is_name`).
pub fn is_whole_name(kw: &str, keywords: &str) -> bool {
    !kw.is_empty() && keywords.split_whitespace().any(|w| w.eq_ignore_ascii_case(kw))
}

/// `is_name`, or `is_whole_name` when `whole`.
pub fn names(kw: &str, keywords: &str, whole: bool) -> bool {
    if whole {
        is_whole_name(kw, keywords)
    } else {
        is_name(kw, keywords)
    }
}

/// Finds the `count`th element of `items` whose keywords match `kw`.
pub fn find_nth<'a, T: Copy>(items: impl IntoIterator<Item = (T, &'a str)>, kw: &str, n: usize) -> Option<T> {
    find_nth_as(items, kw, n, false)
}

/// `find_nth`, by whole keywords when `whole` (Dark Pawns).
pub fn find_nth_as<'a, T: Copy>(items: impl IntoIterator<Item = (T, &'a str)>, kw: &str, n: usize, whole: bool) -> Option<T> {
    let mut seen = 0;
    for (id, keywords) in items {
        if names(kw, keywords, whole) {
            seen += 1;
            if seen == n {
                return Some(id);
            }
        }
    }
    None
}

/// The `target_string` for element `index` of a list of keyword strings.
pub fn target_string(all_keywords: &[&str], index: usize) -> String {
    let kw = first_keyword(all_keywords[index]);
    let n = all_keywords[..index].iter().filter(|k| is_name(&kw, k)).count() + 1;
    if n == 1 {
        kw
    } else {
        format!("{n}.{kw}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_dot_notation() {
        assert_eq!(parse("2.goblin"), (Count::Nth(2), "goblin"));
        assert_eq!(parse("goblin"), (Count::Nth(1), "goblin"));
        assert_eq!(parse("all.coins"), (Count::All, "coins"));
        assert_eq!(parse("ALL"), (Count::All, ""));
        assert_eq!(parse("0.rat"), (Count::Nth(1), "rat"));
        assert_eq!(parse("x.rat"), (Count::Nth(1), "x.rat"));
    }

    #[test]
    fn names_match_whole_words_and_prefixes() {
        assert!(is_name("gob", "small goblin"));
        assert!(is_name("GOBLIN", "small goblin"));
        assert!(!is_name("lin", "small goblin"));
        assert!(!is_name("", "small goblin"));
    }

    #[test]
    fn target_strings_skip_articles_and_count() {
        let list = ["a goblin scout", "the rat", "goblin warrior", "rat"];
        assert_eq!(target_string(&list, 0), "goblin");
        assert_eq!(target_string(&list, 1), "rat");
        assert_eq!(target_string(&list, 2), "2.goblin");
        assert_eq!(target_string(&list, 3), "2.rat");
    }

    proptest! {
        /// Every name the protocol's rule accepts (`names`) is one dot-notation
        /// targeting reads back whole.
        #[test]
        fn accepted_names_target_as_themselves(name in "[A-Za-z][A-Za-z0-9_.-]{1,31}") {
            if crate::names::check(&name).is_ok() {
                let (count, kw) = parse(&name);
                prop_assert_eq!(count, Count::Nth(1));
                prop_assert_eq!(kw, name.as_str());
            }
        }

        /// The signature never hides a match: whatever `is_name` finds, the signature lets through.
        #[test]
        fn signatures_never_hide_a_name(keywords in "[a-zA-Z ]{0,24}( [\\PC]{0,6})?", kw in "[a-zA-Z]{1,4}|[\\PC]{1,3}") {
            if is_name(&kw, &keywords) {
                let q = query_sig(&kw);
                prop_assert_eq!(occupant_sig(&keywords, false) & q, q);
                prop_assert_eq!(occupant_sig(&keywords, true) & q, q);
            }
        }

        /// Every target string resolves back to the element it was made for.
        #[test]
        fn target_strings_resolve_to_their_element(list in proptest::collection::vec("(a |the )?(rat|goblin|gob|sword|key)( small| big)?", 1..12)) {
            let refs: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            for i in 0..refs.len() {
                let ts = target_string(&refs, i);
                let (count, kw) = parse(&ts);
                let Count::Nth(n) = count else { panic!("all in a target string") };
                let found = find_nth(refs.iter().enumerate().map(|(j, k)| (j, *k)), kw, n);
                prop_assert_eq!(found, Some(i), "{} for {:?}", ts, refs);
            }
        }
    }
}

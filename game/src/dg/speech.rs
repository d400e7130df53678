//! How tbaMUD matches what was said against a speech or act trigger's argument
//! (`dg_triggers.c`), ported as it is — quirks included, since the worlds were written
//! against them:
//!
//! - narg 0: the whole argument is a phrase that must appear in what was said;
//!   any other narg: the argument is a list of words (a `"quoted phrase"` counts as
//!   one) and any one of them will do; a list beginning `*` hears everything;
//! - a match must stand on its own: at the start or end of what was said, or beside a
//!   space or a punctuation mark (`is_substring`), and only the first place the text is
//!   found counts (`str_str`, which also resumes a failed partial match where it broke
//!   off rather than one character on);
//! - case does not matter.

/// `str_str`: where `needle` is first found in `hay` (ASCII case folded), by the
/// original's scan.
pub fn str_str(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    let lower = |c: u8| c.to_ascii_lowercase();
    let mut cs = 0;
    while cs < hay.len() {
        let mut t = 0;
        while cs < hay.len() && lower(hay[cs]) != lower(needle[t]) {
            cs += 1;
        }
        let s = cs;
        while t < needle.len() && cs < hay.len() && lower(hay[cs]) == lower(needle[t]) {
            t += 1;
            cs += 1;
        }
        if t == needle.len() {
            return Some(s);
        }
    }
    None
}

fn bound(c: u8) -> bool {
    c.is_ascii_whitespace() || c.is_ascii_punctuation()
}

/// `is_substring`: `sub` appears in `string`, standing on its own at its first place.
pub fn is_substring(sub: &str, string: &str) -> bool {
    let (hay, needle) = (string.as_bytes(), sub.as_bytes());
    let Some(s) = str_str(hay, needle) else { return false };
    let front = s == 0 || bound(hay[s - 1]);
    let end = s + needle.len();
    front && (end == hay.len() || bound(hay[end]))
}

/// The words and `"quoted phrases"` of a trigger's argument (`one_phrase`).
pub fn phrases(list: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = list;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return out;
        }
        if let Some(q) = rest.strip_prefix('"') {
            let end = q.find('"').unwrap_or(q.len());
            out.push(&q[..end]);
            rest = q.get(end + 1..).unwrap_or("");
        } else {
            let end = rest.find(|c: char| c.is_whitespace() || c == '"').unwrap_or(rest.len());
            out.push(&rest[..end]);
            rest = &rest[end..];
        }
        if out.last().is_some_and(|p| p.is_empty()) {
            out.pop();
            return out;
        }
    }
}

/// `word_check`: any of the argument's words or phrases stands in `said`.
pub fn word_check(said: &str, list: &str) -> bool {
    list.starts_with('*') || phrases(list).iter().any(|p| is_substring(p, said))
}

/// Whether a speech (or act) trigger with `narg` and `arg` hears `said`; `room`
/// triggers also take a leading `*` whatever their narg.
pub fn hears(narg: i32, arg: &str, said: &str, room: bool) -> bool {
    if arg.is_empty() {
        return false;
    }
    (room && arg.starts_with('*')) || if narg != 0 { word_check(said, arg) } else { is_substring(arg, said) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weatherman_hears_as_tbamud_does() {
        // Argument `the weather`: narg 0 wants the phrase, narg 1 any of its words.
        assert!(!hears(0, "the weather", "the", false));
        assert!(hears(1, "the weather", "the", false));
        assert!(hears(0, "the weather", "what is the weather", false));
        assert!(hears(1, "the weather", "what is the weather", false));
        assert!(hears(0, "the weather", "The WEATHER!", false));
        assert!(!hears(0, "the weather", "nice weather", false));
        assert!(hears(1, "the weather", "nice weather", false));
        assert!(hears(1, "the weather", "the weathervane", false), "'the' stands alone");
        assert!(!hears(0, "the weather", "the weathervane", false));
        // Only the first place counts: "the" inside "bathe" is found first.
        assert!(!is_substring("the", "bathe the dog"));
        // `*`: a word list's wildcard, and a room's whatever its narg.
        assert!(hears(1, "*", "anything", false));
        assert!(!hears(0, "*", "anything", false), "a mob's phrase `*` is a literal star");
        assert!(hears(0, "*", "anything", true));
        assert!(hears(1, "\"good day\" hello", "well, good day to you", false));
        assert!(!hears(1, "\"good day\" hello", "a good dayfly", false));
        assert!(!hears(1, "", "anything", false));
    }

    #[test]
    fn str_str_resumes_where_a_partial_match_broke() {
        assert_eq!(str_str(b"abcabd", b"abd"), Some(3));
        // "aab" in "aaab": the scan resumes after the broken partial match.
        assert_eq!(str_str(b"aaab", b"aab"), None);
        assert_eq!(str_str(b"xaab", b"aab"), Some(1));
    }
}

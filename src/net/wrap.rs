//! Text fitted to the client's window (telnet's NAWS, the web client's `display`). The world's prose is wrapped at about 78
//! columns by its authors; on a narrower window a long line is broken at spaces and what
//! is carried over joins the next line of the same paragraph, so a description reflows
//! instead of alternating long and short lines. A line much shorter than the text's
//! longest ends its paragraph (its carry stands alone); short lines (tables, lists) and
//! indented ones are kept as they are.

/// Columns `s` takes on the screen: colour marks take none.
fn cols(s: &str) -> usize {
    crate::game::send::colour::width(s)
}

/// Narrowest window wrapped to: below this a client's report is not believed.
pub const MIN_WIDTH: usize = 20;

/// `text` with no line longer than `width` columns (characters), where spaces allow.
pub fn wrap(text: &str, width: usize) -> String {
    if width < MIN_WIDTH || text.lines().all(|l| cols(l) <= width) {
        return text.to_string();
    }
    // A line as long as the text's longest (within a fifth) was wrapped by its author:
    // its paragraph goes on in the next line. A shorter one ended its paragraph.
    let longest = text.lines().map(cols).max().unwrap_or(0);
    let full = longest * 4 / 5;
    let mut out: Vec<String> = Vec::new();
    let mut carry = String::new();
    let mut carry_joins = false;
    for line in text.split('\n') {
        let line = line.trim_end_matches('\r');
        let original_len = cols(line);
        let line = if carry.is_empty() {
            line.to_string()
        } else if carry_joins && !line.trim().is_empty() && !line.starts_with(' ') {
            // The rest of a broken line joins the next line of its paragraph.
            format!("{} {line}", std::mem::take(&mut carry))
        } else {
            out.push(std::mem::take(&mut carry));
            line.to_string()
        };
        let (fitted, rest) = fit(&line, width);
        out.push(fitted);
        carry = rest;
        carry_joins = original_len >= full;
    }
    if !carry.is_empty() {
        out.push(carry);
    }
    out.join("\n")
}

/// Breaks `line` into lines of at most `width`; the last piece that would be short is
/// handed back to carry into the next line (empty when the line ended a paragraph).
fn fit(line: &str, width: usize) -> (String, String) {
    if cols(line) <= width {
        return (line.to_string(), String::new());
    }
    // The leading indent of a paragraph's first line is kept.
    let mut cur: String = line.chars().take_while(|c| *c == ' ').collect();
    let mut done = String::new();
    for word in line.split(' ').filter(|w| !w.is_empty()) {
        let has_words = !cur.trim().is_empty();
        if has_words && cols(&cur) + 1 + cols(word) > width {
            if !done.is_empty() {
                done.push('\n');
            }
            done.push_str(&cur);
            cur.clear();
        }
        if !cur.trim().is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if done.is_empty() {
        // One word longer than the window: nothing to break at.
        return (cur, String::new());
    }
    (done, cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ROOM: &str = "   You are in the southern end of the temple hall in the Temple of Midgaard.\n\
The temple has been constructed from giant marble blocks, eternal in appearance,\n\
and most of the walls are covered by ancient wall paintings.\n\
[ Exits: n e s ]";

    #[test]
    fn a_description_reflows_to_a_narrow_window() {
        let w = wrap(ROOM, 40);
        for l in w.lines() {
            assert!(l.chars().count() <= 40, "{l:?} in\n{w}");
        }
        assert!(w.starts_with("   You are in the southern end of the"));
        assert!(w.ends_with("\n[ Exits: n e s ]"), "the short last line is its own:\n{w}");
        let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(words(&w), words(ROOM), "no word lost or moved");
        // No ragged alternation: only the paragraph's last line is short.
        let lines: Vec<&str> = w.lines().collect();
        let short = lines[..lines.len() - 2].iter().filter(|l| l.chars().count() < 30).count();
        assert_eq!(short, 0, "{w}");
    }

    #[test]
    fn wide_windows_and_short_lines_are_untouched() {
        assert_eq!(wrap(ROOM, 80), ROOM);
        assert_eq!(wrap(ROOM, 5), ROOM, "a window too narrow to believe");
        assert_eq!(wrap("a\nb\n", 20), "a\nb\n");
    }

    proptest! {
        #[test]
        fn wrapping_keeps_every_word_in_order(text in "[a-z ]{0,30}(\n[a-z ]{0,90}){0,5}", width in 20usize..100) {
            let w = wrap(&text, width);
            let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
            prop_assert_eq!(words(&w), words(&text));
            for l in w.lines() {
                let longest_word = l.split(' ').map(|w| w.chars().count()).max().unwrap_or(0);
                prop_assert!(l.chars().count() <= width.max(longest_word) || l.trim().split(' ').count() == 1, "{:?}", l);
            }
        }
    }
}

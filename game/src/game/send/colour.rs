//! Colour, the CircleMUD way (issue 52): the engine marks what may be coloured — a
//! room's title, exits, things and people; tells, shouts, combat — with the least
//! `color` level that shows it (1 brief, 2 normal, 3 complete), and each telnet session
//! renders the marks for its player's level (ANSI, or nothing). Agents and the records
//! never see a mark: `strip` takes them out before anything but a telnet session reads
//! the text.
//!
//! A mark is three characters: [`MARK`] (a control character typed input never keeps),
//! the level digit, and a colour letter of tbaMUD's (`n` normal, `r g y b m c w`, upper
//! case bright).

use std::borrow::Cow;

/// Starts a mark (defined beside the world's own colour codes, which become marks).
pub use crate::worldfile::colour::MARK;

/// `color off|brief|normal|complete`.
pub const LEVELS: [&str; 4] = ["off", "brief", "normal", "complete"];

/// `text` coloured `code` at `level` and back to normal after.
pub fn paint(level: u8, code: char, text: &str) -> String {
    format!("{MARK}{level}{code}{text}{MARK}{level}n")
}

/// `text` with every mark taken out.
pub fn strip(text: &str) -> Cow<'_, str> {
    if !text.contains(MARK) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == MARK {
            chars.next();
            chars.next();
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// How many columns `text` takes on a screen (marks take none).
pub fn width(text: &str) -> usize {
    text.chars().count().saturating_sub(3 * text.matches(MARK).count())
}

fn ansi(code: char) -> Option<&'static str> {
    Some(match code {
        'n' => "\x1b[0m",
        'd' => "\x1b[0;30m",
        'r' => "\x1b[0;31m",
        'g' => "\x1b[0;32m",
        'y' => "\x1b[0;33m",
        'b' => "\x1b[0;34m",
        'm' => "\x1b[0;35m",
        'c' => "\x1b[0;36m",
        'w' => "\x1b[0;37m",
        'D' => "\x1b[1;30m",
        'R' => "\x1b[1;31m",
        'G' => "\x1b[1;32m",
        'Y' => "\x1b[1;33m",
        'B' => "\x1b[1;34m",
        'M' => "\x1b[1;35m",
        'C' => "\x1b[1;36m",
        'W' => "\x1b[1;37m",
        _ => return None,
    })
}

/// `text` for a player whose `color` level is `level`: the marks it shows become ANSI,
/// the others go.
pub fn render(text: &str, level: u8) -> Cow<'_, str> {
    if !text.contains(MARK) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != MARK {
            out.push(c);
            continue;
        }
        let at = chars.next().and_then(|d| d.to_digit(10)).unwrap_or(9) as u8;
        let code = chars.next().unwrap_or('n');
        if level > 0 && at <= level {
            out.push_str(ansi(code).unwrap_or(""));
        }
    }
    Cow::Owned(out)
}

/// A colour letter's name, for a page to style (`""` is the normal colour).
pub fn name(code: char) -> &'static str {
    match code {
        'd' => "black",
        'r' => "red",
        'g' => "green",
        'y' => "yellow",
        'b' => "blue",
        'm' => "magenta",
        'c' => "cyan",
        'w' => "white",
        'D' => "bright-black",
        'R' => "bright-red",
        'G' => "bright-green",
        'Y' => "bright-yellow",
        'B' => "bright-blue",
        'M' => "bright-magenta",
        'C' => "bright-cyan",
        'W' => "bright-white",
        _ => "",
    }
}

/// `text` as runs of one colour each, for a player whose level is `level` (the web
/// client styles them; marks above the level are ignored): `(words, colour name)`,
/// in order, with no empty run. Their words joined are `strip(text)`.
pub fn runs(text: &str, level: u8) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let mut cur = String::new();
    let mut colour = "";
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != MARK {
            cur.push(c);
            continue;
        }
        let at = chars.next().and_then(|d| d.to_digit(10)).unwrap_or(9) as u8;
        let code = chars.next().unwrap_or('n');
        if level == 0 || at > level {
            continue;
        }
        let next = name(code);
        if next != colour {
            if !cur.is_empty() {
                out.push((std::mem::take(&mut cur), colour));
            }
            colour = next;
        }
    }
    if !cur.is_empty() {
        out.push((cur, colour));
    }
    out
}

/// The colour a telnet line of this kind takes (CircleMUD's: tells red, the public
/// channels yellow at `normal`; blows at `complete`).
pub fn of_kind(kind: crate::game::send::output::EventKind) -> Option<(u8, char)> {
    use crate::game::send::output::EventKind as K;
    Some(match kind {
        K::Tell => (2, 'r'),
        K::Shout | K::Gossip => (2, 'y'),
        K::Combat => (3, 'y'),
        K::Death | K::LevelUp => (2, 'R'),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_render_at_their_level_and_strip_away() {
        let t = format!("{} [ Exits: n ]", paint(2, 'c', "The Temple"));
        assert_eq!(strip(&t), "The Temple [ Exits: n ]");
        assert_eq!(width(&t), "The Temple [ Exits: n ]".len());
        assert_eq!(render(&t, 0), "The Temple [ Exits: n ]");
        assert_eq!(render(&t, 1), "The Temple [ Exits: n ]", "brief shows only brief marks");
        assert_eq!(render(&t, 2), "\x1b[0;36mThe Temple\x1b[0m [ Exits: n ]");
        assert_eq!(render(&t, 3), "\x1b[0;36mThe Temple\x1b[0m [ Exits: n ]");
        assert!(matches!(strip("plain"), Cow::Borrowed(_)));
        // A cut-off mark at the end is dropped, not shown.
        assert_eq!(strip("a\u{e}2"), "a");
        assert_eq!(render("a\u{e}", 3), "a");
    }

    #[test]
    fn runs_name_the_colours_a_level_shows() {
        let t = format!("{} [ Exits: {} ]", paint(2, 'c', "The Temple"), paint(3, 'G', "n"));
        assert_eq!(runs(&t, 2), [("The Temple".to_string(), "cyan"), (" [ Exits: n ]".to_string(), "")]);
        assert_eq!(
            runs(&t, 3),
            [("The Temple".to_string(), "cyan"), (" [ Exits: ".to_string(), ""), ("n".to_string(), "bright-green"), (" ]".to_string(), "")]
        );
        assert_eq!(runs(&t, 0), [("The Temple [ Exits: n ]".to_string(), "")]);
        assert!(runs("", 2).is_empty());
    }

    proptest::proptest! {
        /// Whatever the marks, the runs' words are the stripped text.
        #[test]
        fn runs_hold_the_words(text in "(\\PC|\u{e}[0-9][a-zA-Z]){0,40}", level in 0u8..4) {
            let joined: String = runs(&text, level).into_iter().map(|(w, _)| w).collect();
            proptest::prop_assert_eq!(joined, strip(&text).into_owned());
        }
    }
}

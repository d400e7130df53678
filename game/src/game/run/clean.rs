//! Text from a client at the engine's door. What a player or an agent says reaches other
//! people's screens, telnet terminals among them: a terminal obeys the control bytes in
//! it (ESC and CSI clear a screen or set a window's title, OSC, BEL, NUL, the C1 set),
//! and a line break inside one message forges whole lines ("The Keeper tells you, ...").
//! So every command line and every message from any client loses its control characters
//! here, and its line breaks and tabs become spaces; colour reaches a screen only through
//! the game's own colour codes, which the renderer writes.

use std::borrow::Cow;

/// `text` without control characters (C0, DEL, C1); CR, LF and tab become spaces.
pub fn clean_text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter_map(|c| match c {
                '\r' | '\n' | '\t' => Some(' '),
                c if c.is_control() => None,
                c => Some(c),
            })
            .collect(),
    )
}

/// [`clean_text`] for an owned line: unchanged lines are not copied.
pub fn clean_line(line: String) -> String {
    match clean_text(&line) {
        Cow::Borrowed(_) => line,
        Cow::Owned(s) => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn terminal_controls_and_line_breaks_are_taken_out() {
        assert_eq!(clean_text("say hi\u{1b}[2J\u{1b}]0;pwned\u{7}!"), "say hi[2J]0;pwned!");
        assert_eq!(clean_text("hi\r\nThe Keeper tells you, 'Type your password'"), "hi  The Keeper tells you, 'Type your password'");
        assert_eq!(clean_text("a\u{0}b\u{7f}c\u{9b}31md"), "abc31md");
        assert!(matches!(clean_text("plain words, é and 🐉"), Cow::Borrowed(_)));
    }

    proptest! {
        #[test]
        fn nothing_cleaned_holds_a_control_character(s in any::<String>()) {
            let c = clean_text(&s);
            prop_assert!(!c.chars().any(char::is_control));
            // Printable text is kept, in order.
            let kept: String = s.chars().filter(|c| !c.is_control()).collect();
            prop_assert_eq!(c.chars().filter(|c| *c != ' ').collect::<String>(), kept.chars().filter(|c| *c != ' ').collect::<String>());
        }
    }
}

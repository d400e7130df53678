//! Colour codes in world text (issue 51). tbaMUD's builders write `@` codes in rooms,
//! mobs, objects, shops and scripts (`@R` light red … `@n` normal; its players may use
//! them in speech too): its server turns each `@x` into a terminal sequence or nothing
//! (`parse_at`, then `ProtocolOutput`: an unknown letter is dropped with its `@`), and
//! `@@` writes one `@`. Dark Pawns's and CircleMUD's area files carry none. The codes
//! are taken out of the world's text (no client, human or agent, sees `@n`); a room's
//! name and description keep a coloured copy (`tba_to_marks`) for telnet players who
//! take colour (issue 52).

use std::borrow::Cow;

/// Starts one of the engine's colour marks (`game::send::colour`): the mark, the least
/// `color` level that shows it, a colour letter.
pub const MARK: char = '\u{e}';

/// tbaMUD's colour letters (and `_ + - =` underline, bold, blink, reverse; `1 2 3` the
/// palette): `ProtocolOutput`'s cases.
pub const TBA_CODES: &str = "ndDaArRgGyYbBmMcCwWoOpP_+-=123";

/// `text` with tbaMUD's `@` codes taken out (`@@` and `@*` are an `@`): the last step
/// before it is sent.
pub fn strip_tba(text: &str) -> Cow<'_, str> {
    strip_with(text, "@")
}

/// As `strip_tba`, keeping `@@` for the last step (a world's text at load: stripped once
/// there, once more as it is sent, an `@` survives both).
pub fn strip_tba_keeping_at(text: &str) -> Cow<'_, str> {
    strip_with(text, "@@")
}

/// Every text of a tbaMUD world with its codes out (`@@` kept for `strip_tba`).
pub fn strip_world(w: &mut super::WorldProto) {
    fn fix(s: &mut String) {
        if let Cow::Owned(o) = strip_tba_keeping_at(s) {
            *s = o;
        }
    }
    for r in &mut w.rooms {
        fix(&mut r.name);
        fix(&mut r.description);
        r.extra_descs.iter_mut().for_each(|d| fix(&mut d.description));
        r.exits.iter_mut().flatten().for_each(|x| fix(&mut x.description));
    }
    for m in &mut w.mobs {
        fix(&mut m.short_descr);
        fix(&mut m.long_descr);
        fix(&mut m.description);
    }
    for o in &mut w.objs {
        fix(&mut o.short_descr);
        fix(&mut o.long_descr);
        fix(&mut o.action_descr);
        o.extra_descs.iter_mut().for_each(|d| fix(&mut d.description));
    }
    for s in &mut w.shops {
        s.messages.iter_mut().for_each(fix);
    }
}

/// `text` with tbaMUD's `@` codes turned into the engine's colour marks (shown from
/// `brief` up, as tbaMUD shows a builder's codes to anyone with colour on); `@@` is an
/// `@`. `None` when it has no codes.
pub fn tba_to_marks(text: &str) -> Option<String> {
    if !text.contains('@') {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c != '@' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('@') | Some('*') => out.push('@'),
            Some(code) if "ndrgybmcwDRGYBMCW".contains(code) => {
                out.push(MARK);
                out.push('1');
                out.push(code);
                any = true;
            }
            // tbaMUD's others (blink, underline, its palette) are not rendered here.
            Some(_) | None => {}
        }
    }
    if any {
        // Whatever a builder left open is closed.
        out.push(MARK);
        out.push_str("1n");
    }
    any.then_some(out)
}

fn strip_with<'a>(text: &'a str, at: &str) -> Cow<'a, str> {
    if !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '@' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('@') | Some('*') => out.push_str(at),
            // Any other letter is a code (known or not, the original drops it).
            Some(_) | None => {}
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_taken_out_and_at_signs_kept() {
        assert_eq!(strip_tba("Just type @RGOTO VNUM@n and type redit"), "Just type GOTO VNUM and type redit");
        assert_eq!(strip_tba("mail rumble@@tbamud.com"), "mail rumble@tbamud.com");
        assert_eq!(strip_tba("@Y@@@n"), "@");
        assert_eq!(strip_tba("no codes"), "no codes");
        assert!(matches!(strip_tba("no codes"), Cow::Borrowed(_)));
        assert_eq!(strip_tba("trailing @"), "trailing ");
        assert_eq!(strip_tba("@qodd@u codes"), "odd codes", "unknown letters go too");
        // Stripped at load, then as sent: an `@` survives both.
        assert_eq!(strip_tba(&strip_tba_keeping_at("@Rrumble@@tbamud.com@n")), "rumble@tbamud.com");
    }
}

//! Socials files (CircleMUD's `lib/misc/socials` format): a header line
//! `name hide min_victim_position`, up to eight message lines (`#` for none), a blank
//! line between socials, `$` at the end. Lenient like the area files: a social with a
//! bad header is skipped with a warning; missing messages are "none".

use serde::{Deserialize, Serialize};

use super::Warning;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct SocialProto {
    pub name: String,
    pub hide: bool,
    /// The lowest position the target may be in (CircleMUD position number).
    pub min_victim_position: i32,
    /// no target: actor, room; found: actor, room, victim; not found; self: actor, room.
    pub messages: [Option<String>; 8],
}

pub fn parse(file: &str, text: &str, warnings: &mut Vec<Warning>) -> Vec<SocialProto> {
    let mut out = Vec::new();
    let mut lines = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).enumerate().peekable();
    // Each turn: skip blank and comment lines to the next header.
    while let Some((n, header)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('*')) {
        let header = header.trim();
        if header.starts_with('$') {
            break;
        }
        let f: Vec<&str> = header.split_whitespace().collect();
        let (Some(name), Some(Ok(hide)), Some(Ok(pos))) =
            (f.first(), f.get(1).map(|h| h.parse::<i32>()), f.get(2).map(|p| p.parse::<i32>()))
        else {
            warnings.push(Warning {
                file: file.to_string(),
                line: n as u32 + 1,
                vnum: None,
                message: format!("social header '{}' is not 'name hide position'; skipped", header.chars().take(40).collect::<String>()),
            });
            // Skip to the blank line that ends this social.
            while lines.next_if(|(_, l)| !l.trim().is_empty()).is_some() {}
            continue;
        };
        let mut messages: [Option<String>; 8] = Default::default();
        for m in messages.iter_mut() {
            match lines.next_if(|(_, l)| !l.trim().is_empty()) {
                Some((_, l)) if l.trim() == "#" => {}
                Some((_, l)) => *m = Some(l.trim().to_string()),
                None => break,
            }
        }
        // Extra lines (a later format's extras) are ignored.
        while lines.next_if(|(_, l)| !l.trim().is_empty()).is_some() {}
        out.push(SocialProto { name: name.to_ascii_lowercase(), hide: hide != 0, min_victim_position: pos, messages });
    }
    out
}

/// The socials shipped with pawns (`data/socials.txt`).
pub fn shipped() -> Vec<SocialProto> {
    parse("data/socials.txt", include_str!("../../../data/socials.txt"), &mut Vec::new())
}

/// Shipped socials, then the world's own (which replace shipped ones of the same name).
pub fn merged(world: &[SocialProto]) -> Vec<SocialProto> {
    let mut all = shipped();
    for s in world {
        all.retain(|x| x.name != s.name);
        all.push(s.clone());
    }
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_socials_parse_whole() {
        let s = shipped();
        assert!(s.len() >= 15, "{}", s.len());
        let smile = s.iter().find(|x| x.name == "smile").unwrap();
        assert_eq!(smile.messages[0].as_deref(), Some("You smile."));
        assert_eq!(smile.messages[7].as_deref(), Some("$n smiles to $mself."));
        let hug = s.iter().find(|x| x.name == "hug").unwrap();
        assert_eq!(hug.messages[1], None, "'#' is no message");
    }

    #[test]
    fn bad_headers_are_skipped_and_short_socials_kept() {
        let mut w = Vec::new();
        let text = "oops\nline\n\nwink 0 5\nYou wink.\n$n winks.\n\nstomp 0 x\nYou stomp.\n\n$\n";
        let s = parse("misc/socials", text, &mut w);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].name, "wink");
        assert_eq!(s[0].messages[2], None);
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(w[0].line, 1);
    }

    #[test]
    fn a_world_overrides_shipped_socials() {
        let mine = SocialProto {
            name: "smile".into(),
            messages: [Some("You beam.".into()), None, None, None, None, None, None, None],
            ..Default::default()
        };
        let all = merged(&[mine]);
        assert_eq!(all.iter().filter(|s| s.name == "smile").count(), 1);
        assert_eq!(all.iter().find(|s| s.name == "smile").unwrap().messages[0].as_deref(), Some("You beam."));
    }
}

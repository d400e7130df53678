//! What a record looks like to search: one line of text and the kinds it answers to.
//!
//! Every record has its kind (`action`, `observation`, `transition`) and a category
//! from the game (`combat`, `social`, `movement`, `item`, `progress`, `info`, and
//! `memory` for what agents keep themselves), so
//! `--kind combat` finds the blow seen, the `kill` typed and the kill transition alike.

use pawns_storage::{EventRecord, RecordBody, Transition};

/// The categories `--kind` accepts besides the three record kinds.
pub const CATEGORIES: [&str; 7] = ["combat", "social", "movement", "item", "progress", "info", "memory"];
/// The record kinds.
pub const KINDS: [&str; 3] = ["action", "observation", "transition"];

/// A record as the index holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDoc {
    pub kind: &'static str,
    pub category: &'static str,
    pub text: String,
}

/// The searchable form of one record.
pub fn search_doc(r: &EventRecord) -> SearchDoc {
    let kind = r.body.kind();
    match &r.body {
        RecordBody::Decision(d) => {
            let mut text = if d.args.is_empty() { d.command.clone() } else { format!("{} {}", d.command, d.args) };
            if d.status != "ok" {
                text.push_str(&format!(" ({})", d.status));
            }
            // Why it was chosen is searchable with it ("kill rat" — "it attacked me").
            if let Some(why) = d.reason.as_deref() {
                text.push_str(" — ");
                text.push_str(why);
            }
            // The answer of the model call that made it (what it said, not what it was asked).
            if let Some(answer) = d.llm.last().and_then(|c| c.answer.as_deref()) {
                text.push_str(" — model: ");
                text.extend(answer.chars().take(300));
            }
            SearchDoc { kind, category: command_category(&d.command), text }
        }
        RecordBody::Observation { event_type, text, from } => {
            let text = if event_type == "text" { without_description(text) } else { (**text).into() };
            let text = match from {
                Some(f) if !text.to_ascii_lowercase().contains(&f.to_ascii_lowercase()) => format!("{f}: {text}"),
                _ => text.to_string(),
            };
            SearchDoc { kind, category: event_category(event_type), text }
        }
        RecordBody::Transition(t) => {
            let (category, text) = transition_text(t);
            SearchDoc { kind, category, text }
        }
    }
}

/// A room as a player is shown it (`look`, arriving: its name, its description, then
/// `[ Exits: … ]` and what is there) is indexed without the description: the same words
/// for every visit by everyone, most of what a crowd of walkers would index. The name
/// and what was there are kept, so "a look at the temple while the rat was there" is
/// found. Any other text is indexed whole.
pub fn without_description(text: &str) -> std::borrow::Cow<'_, str> {
    let Some((name, rest)) = text.split_once('\n') else { return text.into() };
    match rest.find("[ Exits: ") {
        Some(at) if at > 0 && rest[..at].ends_with('\n') => format!("{name}\n{}", &rest[at..]).into(),
        _ => text.into(),
    }
}

/// The words a document is found by. A record is found by the text it shows, but for a
/// room as a player was shown it: there each player standing in it is indexed by name
/// alone ("Brenda [agent] is standing here." → "Brenda"). In a crowd those lines are most
/// of what every look and every step indexes — twenty players, five words each — and the
/// four words besides the name find nothing the name does not. Everything else of the
/// room (its name, its exits, objects, mobs, anyone resting, sleeping or fighting, the
/// count of the rest) is indexed as shown.
pub fn index_words<'a>(r: &EventRecord, shown: &'a str) -> std::borrow::Cow<'a, str> {
    let event_type = match &r.body {
        RecordBody::Observation { event_type, .. } => event_type,
        RecordBody::Decision(_) | RecordBody::Transition(_) => return shown.into(),
    };
    if event_type != "text" {
        return shown.into();
    }
    let Some(at) = shown.find("\n[ Exits: ") else { return shown.into() };
    let Some(end) = shown[at + 1..].find('\n').map(|e| at + 1 + e) else { return shown.into() };
    let company = &shown[end + 1..];
    if !company.contains(STANDING) {
        return shown.into();
    }
    let mut out = String::with_capacity(shown.len());
    out.push_str(&shown[..=end]);
    for line in company.lines() {
        match line.strip_suffix(STANDING) {
            Some(name) => out.push_str(name.strip_suffix(" [agent]").unwrap_or(name)),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out.into()
}

/// How a room's text ends the line of a player standing there (`render::describe_in_room`).
const STANDING: &str = " is standing here.";

fn transition_text(t: &Transition) -> (&'static str, String) {
    match t {
        Transition::Hp { from, to, .. } => ("combat", format!("hit points {from} to {to}")),
        Transition::Level { from, to } => ("progress", format!("level {from} to {to}")),
        Transition::Exp { from, to } => ("progress", format!("experience {from} to {to}")),
        Transition::Gold { from, to } => ("item", format!("gold {from} to {to}")),
        Transition::Room { from, to, name } => ("movement", format!("moved to {name} (room {to}, from {from})")),
        Transition::ItemAcquired { name, level, .. } => ("item", format!("acquired {name} (level {level})")),
        Transition::ItemLost { name, .. } => ("item", format!("lost {name}")),
        Transition::Equipped { name, .. } => ("item", format!("equipped {name}")),
        Transition::Unequipped { name, .. } => ("item", format!("removed {name}")),
        Transition::Death { killer, exp_lost } => match killer {
            Some(k) => ("combat", format!("died, killed by {k}, lost {exp_lost} experience")),
            None => ("combat", format!("died, lost {exp_lost} experience")),
        },
        Transition::Mind { layer, id, text } => ("memory", format!("{layer} {id}: {text}")),
        Transition::Social { act, other, by_me, text } => {
            let what = if text.is_empty() { act.clone() } else { format!("{act} ({text})") };
            ("social", if *by_me { format!("{what} to {other}") } else { format!("{what} from {other}") })
        }
        Transition::Kill { victim, victim_level, victim_is_player, .. } => {
            let who = if *victim_is_player { "player" } else { "mob" };
            ("combat", format!("killed {victim} ({who}, level {victim_level})"))
        }
    }
}

/// The category of a protocol event type.
pub fn event_category(event_type: &str) -> &'static str {
    match event_type {
        "combat" | "death" | "kill" => "combat",
        "say" | "tell" | "shout" | "gossip" | "emote" => "social",
        "enter" | "leave" => "movement",
        "level_up" => "progress",
        _ => "info",
    }
}

/// The category of a typed command (its verb, possibly abbreviated as players do).
pub fn command_category(verb: &str) -> &'static str {
    let v = verb.to_ascii_lowercase();
    let is = |full: &str, min: usize| v.len() >= min && full.starts_with(v.as_str());
    const COMBAT: [(&str, usize); 12] = [
        ("kill", 1),
        ("hit", 3),
        ("attack", 3),
        ("flee", 2),
        ("kick", 2),
        ("bash", 2),
        ("backstab", 2),
        ("rescue", 3),
        ("assist", 3),
        ("cast", 2),
        ("murder", 3),
        ("order", 3),
    ];
    const SOCIAL: [(&str, usize); 9] =
        [("say", 2), ("tell", 1), ("gtell", 2), ("shout", 3), ("gossip", 3), ("emote", 2), ("reply", 3), ("group", 2), ("follow", 3)];
    const MOVEMENT: [(&str, usize); 10] = [
        ("north", 1),
        ("south", 1),
        ("east", 1),
        ("west", 1),
        ("up", 1),
        ("down", 1),
        ("enter", 3),
        ("recall", 3),
        ("open", 2),
        ("close", 3),
    ];
    const ITEM: [(&str, usize); 14] = [
        ("get", 1),
        ("take", 2),
        ("drop", 2),
        ("give", 2),
        ("put", 2),
        ("wear", 2),
        ("wield", 2),
        ("remove", 3),
        ("buy", 2),
        ("sell", 3),
        ("eat", 2),
        ("drink", 2),
        ("fill", 3),
        ("rent", 3),
    ];
    // Socials differ from world to world; these are in every one.
    const COMMON_SOCIALS: [&str; 16] = [
        "smile", "bow", "wave", "grin", "nod", "laugh", "hug", "thank", "greet", "cheer", "comfort", "poke", "slap", "shake", "smirk",
        "cry",
    ];
    if v == "'" {
        return "social";
    }
    if COMBAT.iter().any(|(f, m)| is(f, *m)) {
        "combat"
    } else if MOVEMENT.iter().any(|(f, m)| is(f, *m)) {
        "movement"
    } else if SOCIAL.iter().any(|(f, m)| is(f, *m)) {
        "social"
    } else if ITEM.iter().any(|(f, m)| is(f, *m)) {
        "item"
    } else if is("practice", 3) || is("level", 3) {
        "progress"
    } else if COMMON_SOCIALS.contains(&v.as_str()) {
        "social"
    } else {
        "info"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_fall_into_categories_as_players_type_them() {
        for (verb, cat) in [
            ("k", "combat"),
            ("kill", "combat"),
            ("fl", "combat"),
            ("n", "movement"),
            ("north", "movement"),
            ("say", "social"),
            ("'", "social"),
            ("t", "social"),
            ("g", "item"),
            ("buy", "item"),
            ("look", "info"),
            ("score", "info"),
            ("prac", "progress"),
        ] {
            assert_eq!(command_category(verb), cat, "{verb}");
        }
    }

    #[test]
    fn a_rooms_description_is_not_indexed_its_name_and_company_are() {
        let look = "The Temple of the Ember\nYou stand in a vaulted hall of red stone.\nAn eternal fire burns.\n[ Exits: north south ]\nA rat is here.\nBrenda [agent] is standing here.";
        assert_eq!(
            without_description(look),
            "The Temple of the Ember\n[ Exits: north south ]\nA rat is here.\nBrenda [agent] is standing here."
        );
        // Brief (no description) and other texts are kept whole.
        let brief = "The Temple of the Ember\n[ Exits: north ]";
        assert_eq!(without_description(brief), brief);
        assert_eq!(without_description("You are hungry."), "You are hungry.");
        assert_eq!(without_description("a\nb [ Exits: x ]"), "a\nb [ Exits: x ]");
        let r = EventRecord {
            session: 1,
            seq: 1,
            agent: "ann".into(),
            at_us: 1,
            room_vnum: 8004,
            body: RecordBody::Observation { event_type: "text".into(), text: look.into(), from: None },
        };
        assert!(!search_doc(&r).text.contains("vaulted"));
        assert!(search_doc(&r).text.contains("rat"));
    }

    #[test]
    fn players_standing_in_a_room_are_indexed_by_name_alone() {
        let obs = |event_type: &str, text: &str| EventRecord {
            session: 1,
            seq: 1,
            agent: "ann".into(),
            at_us: 1,
            room_vnum: 8004,
            body: RecordBody::Observation { event_type: event_type.into(), text: text.into(), from: None },
        };
        let shown = "The Temple of the Ember\n[ Exits: north south ]\nA long sword lies here.\nA rat is here.\nBrenda [agent] is standing here.\nBob is standing here.\nCarl [agent] is resting here.\nDora [agent] is here, fighting a rat.\n...and 3 more people are here.";
        let r = obs("text", shown);
        assert_eq!(
            index_words(&r, shown),
            "The Temple of the Ember\n[ Exits: north south ]\nA long sword lies here.\nA rat is here.\nBrenda\nBob\nCarl [agent] is resting here.\nDora [agent] is here, fighting a rat.\n...and 3 more people are here."
        );
        // The room's own lines are never cut, even when they read like a player's.
        let odd = "Nobody is standing here.\n[ Exits: none ]";
        assert_eq!(index_words(&obs("text", odd), odd), odd);
        // Anything but a room's text is found by what it shows.
        let said = "Brenda is standing here.";
        assert_eq!(index_words(&obs("say", said), said), said);
        assert_eq!(index_words(&obs("text", said), said), said);
        let no_company = "Hall\n[ Exits: east ]";
        assert_eq!(index_words(&obs("text", no_company), no_company), no_company);
    }

    #[test]
    fn a_kill_reads_with_the_victim_and_its_level() {
        let t = Transition::Kill { victim: "a small goblin".into(), victim_level: 3, victim_is_player: false, level: 5 };
        assert_eq!(transition_text(&t), ("combat", "killed a small goblin (mob, level 3)".into()));
    }
}

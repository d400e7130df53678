//! A player's own settings and notes, as CircleMUD's family has them: `title`,
//! `prompt` (`display`), `alias`, and `bug`/`typo`/`idea`; and tbaMUD's `scan`.

use super::CmdStatus;
use crate::game::model::character::PROMPT_ALL;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::worldfile::profile::Family;

/// `MAX_TITLE_LENGTH`.
const MAX_TITLE: usize = 80;
/// The longest replacement an alias keeps (`MAX_INPUT_LENGTH`-ish: Dark Pawns says 120).
const MAX_ALIAS: usize = 120;
/// How many aliases a player may keep.
const MAX_ALIASES: usize = 64;

/// An alias's replacement for a typed line: `;` separates commands, `$1`…`$9` are the
/// words after the alias, `$*` all of them (CircleMUD's `perform_complex_alias`).
pub fn expand_alias(replacement: &str, args: &str) -> Vec<String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    if !replacement.contains(['$', ';']) {
        return vec![if args.is_empty() { replacement.to_string() } else { format!("{replacement} {args}") }];
    }
    let mut out = Vec::new();
    for part in replacement.split(';') {
        let mut line = String::new();
        let mut chars = part.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '$' {
                line.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('*') => {
                    chars.next();
                    line.push_str(args);
                }
                Some(d @ '1'..='9') => {
                    chars.next();
                    line.push_str(words.get(d as usize - '1' as usize).copied().unwrap_or(""));
                }
                Some('$') => {
                    chars.next();
                    line.push('$');
                }
                _ => line.push('$'),
            }
        }
        let line = line.trim().to_string();
        if !line.is_empty() {
            out.push(line);
        }
    }
    out
}

impl Engine {
    pub fn do_title(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        if c.pc.is_none() {
            self.send_text(ch, "Your title is fine... go away.");
            return CmdStatus::Failed;
        }
        let title: String = args.trim().chars().filter(|c| !c.is_control()).collect();
        if title.contains(['(', ')']) {
            self.send_text(ch, "Titles can't contain the ( or ) characters.");
            return CmdStatus::InvalidTarget;
        }
        if title.chars().count() > MAX_TITLE {
            self.send_text(ch, &format!("Sorry, titles can't be longer than {MAX_TITLE} characters."));
            return CmdStatus::InvalidTarget;
        }
        let name = c.name.to_string();
        if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
            pc.prefs.title = title.clone();
            pc.dirty = true;
        }
        // Dark Pawns always puts the space ("Okay, you're now Gazivin ." for none).
        let sep = if title.is_empty() && self.family() != Family::DarkPawns { "" } else { " " };
        self.send_text(ch, &format!("Okay, you're now {name}{sep}{title}."));
        CmdStatus::Ok
    }

    /// `prompt` (`display`): which of hit points, mana and moves the telnet prompt
    /// shows — `all`, `none`, or letters (`hmv`).
    pub fn do_prompt(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let usage = match self.family() {
            Family::DarkPawns => "Usage: prompt { H | M | V | T | F | all | none }",
            _ => "Usage: prompt { { H | M | V } | all | auto | none }",
        };
        let arg = args.trim().to_ascii_lowercase();
        if arg.is_empty() {
            self.send_text(ch, usage);
            return CmdStatus::InvalidTarget;
        }
        let bits = match arg.as_str() {
            "all" | "on" => PROMPT_ALL,
            "none" | "off" => 0,
            letters => {
                let mut bits = 0;
                for l in letters.chars() {
                    bits |= match l {
                        'h' => 1,
                        'm' => 2,
                        'v' => 4,
                        // Dark Pawns's tank and target: shown while fighting anyway here.
                        't' | 'f' if self.family() == Family::DarkPawns => 0,
                        _ => {
                            self.send_text(ch, usage);
                            return CmdStatus::InvalidTarget;
                        }
                    };
                }
                bits
            }
        };
        if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
            pc.prefs.prompt = bits;
            pc.dirty = true;
        }
        self.send_text(ch, "Okay.");
        CmdStatus::Ok
    }

    /// `color [off|brief|normal|complete]` (CircleMUD's `do_color`; `colour` too): how
    /// much colour this player's telnet sessions show, kept with the character.
    pub fn do_colour(&mut self, ch: CharId, args: &str) -> CmdStatus {
        use crate::game::send::colour::LEVELS;
        let arg = args.trim().to_ascii_lowercase();
        let Some(pc) = self.world.ch(ch).and_then(|c| c.pc.as_ref()) else { return CmdStatus::Failed };
        if arg.is_empty() {
            let now = match pc.prefs.colour {
                Some(l) => LEVELS[l.min(3) as usize].to_string(),
                None => "as your client says it can".into(),
            };
            self.send_text(ch, &format!("Your current color level is {now}."));
            return CmdStatus::Ok;
        }
        let Some(level) = LEVELS.iter().position(|l| !arg.is_empty() && l.starts_with(arg.as_str())) else {
            self.send_text(ch, "Usage: color { Off | Brief | Normal | Complete }");
            return CmdStatus::InvalidTarget;
        };
        if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
            pc.prefs.colour = Some(level as u8);
            pc.dirty = true;
        }
        self.deliver(ch, crate::game::send::output::Out::Colour(Some(level as u8)));
        let shown = crate::game::send::colour::paint(1, 'R', LEVELS[level]);
        self.send_text(ch, &format!("Your color is now {shown}."));
        CmdStatus::Ok
    }

    pub fn do_alias(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let Some(pc) = self.world.ch(ch).and_then(|c| c.pc.as_ref()) else { return CmdStatus::Failed };
        let args = args.trim();
        if args.is_empty() {
            let mut t = String::from("Currently defined aliases:");
            if pc.prefs.aliases.is_empty() {
                t.push_str("\n None.");
            }
            for (a, r) in pc.prefs.aliases.iter().rev() {
                t.push_str(&format!("\n{a:<15} {r}"));
            }
            self.send_text(ch, &t);
            return CmdStatus::Ok;
        }
        let (name, repl) = args.split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((args, ""));
        let name = name.to_ascii_lowercase();
        let had = pc.prefs.aliases.iter().any(|(a, _)| *a == name);
        let count = pc.prefs.aliases.len();
        if repl.is_empty() {
            if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
                pc.prefs.aliases.retain(|(a, _)| *a != name);
                pc.dirty = true;
            }
            self.send_text(ch, if had { "Alias deleted." } else { "No such alias." });
            return if had { CmdStatus::Ok } else { CmdStatus::InvalidTarget };
        }
        if name == "alias" {
            self.send_text(ch, "You can't alias 'alias'.");
            return CmdStatus::InvalidTarget;
        }
        if !had && count >= MAX_ALIASES {
            self.send_text(ch, &format!("You have {MAX_ALIASES} aliases already; delete one first."));
            return CmdStatus::Failed;
        }
        let mut repl: String = repl.chars().filter(|c| !c.is_control()).collect();
        let mut note = None;
        if repl.chars().count() > MAX_ALIAS {
            repl = repl.chars().take(MAX_ALIAS).collect();
            note = Some(format!("Maximum alias length is {MAX_ALIAS} characters. Yours has been truncated."));
        }
        if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
            pc.prefs.aliases.retain(|(a, _)| *a != name);
            pc.prefs.aliases.push((name, repl));
            pc.dirty = true;
        }
        if let Some(n) = note {
            self.send_text(ch, &n);
        }
        self.send_text(ch, if self.family() == Family::TbaMud { "Alias ready." } else { "Alias added." });
        CmdStatus::Ok
    }

    /// The lines a typed line becomes through the player's aliases (`None`: it is no
    /// alias). The alias is its first word, whole.
    pub(crate) fn alias_lines(&self, ch: CharId, line: &str) -> Option<Vec<String>> {
        let pc = self.world.ch(ch)?.pc.as_ref()?;
        if pc.prefs.aliases.is_empty() {
            return None;
        }
        let (word, args) = line.split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((line, ""));
        let word = word.to_ascii_lowercase();
        let (_, repl) = pc.prefs.aliases.iter().find(|(a, _)| *a == word)?;
        Some(expand_alias(repl, args))
    }

    /// An alias's lines: the first now, the rest queued as if typed next (each in its
    /// turn, as CircleMUD queues them).
    pub(super) fn run_alias(&mut self, ch: CharId, lines: Vec<String>) -> CmdStatus {
        let mut lines = lines.into_iter();
        let Some(first) = lines.next() else { return CmdStatus::Empty };
        let rest: Vec<String> = lines.collect();
        if !rest.is_empty() {
            if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
                let now = std::time::Instant::now();
                for (i, l) in rest.into_iter().enumerate() {
                    let q = crate::game::model::character::Queued {
                        line: format!("\u{1}{l}"),
                        id: None,
                        received: now,
                        received_us: 0,
                        client: None,
                    };
                    pc.queue.insert(i, q);
                }
                self.world.waiting.insert(ch);
            }
        }
        self.dispatch(ch, &format!("\u{1}{first}"))
    }

    /// `bug`, `typo`, `idea`: a note for the builders (kept in the command's record,
    /// and logged).
    pub fn do_report_note(&mut self, ch: CharId, kind: &str, args: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        if c.is_npc() {
            self.send_text(ch, "Monsters can't have ideas - Go away.");
            return CmdStatus::Failed;
        }
        // tbaMUD's notes are `bug submit <header>` (with its list and show).
        let tba = self.world.profile.family == Family::TbaMud;
        let args = if tba {
            match args.trim().split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((args.trim(), "")) {
                ("submit", rest) if !rest.is_empty() => rest,
                _ => {
                    self.send_text(
                        ch,
                        &format!(
                            "Usage: {kind} submit <header>\n       {kind} list\n       {kind} show <num>\nNote: Only {kind}s logged by you will be listed or shown."
                        ),
                    );
                    return CmdStatus::InvalidTarget;
                }
            }
        } else {
            args
        };
        if args.trim().is_empty() {
            self.send_text(ch, "That must be a mistake...");
            return CmdStatus::InvalidTarget;
        }
        let room = self.world.rooms[c.room].proto.vnum;
        tracing::info!(target: "pawns::reports", kind, player = %c.name, room, "{}", args.trim());
        self.send_text(ch, "Okay.  Thanks!");
        CmdStatus::Ok
    }

    /// tbaMUD's `scan`: who is up to three rooms away each way ("You see the fido
    /// and the cat a ways off north."); closed doors stop it, darkness hides faces.
    pub fn do_scan(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        if self.family() != Family::TbaMud {
            self.huh(ch);
            return CmdStatus::UnknownCommand;
        }
        let Some(start) = self.world.ch(ch).map(|c| c.room) else { return CmdStatus::Failed };
        const HOW_FAR: [&str; 3] = ["close by", "a ways off", "far off to the"];
        let mut out = Vec::new();
        for (d, dir) in crate::worldfile::DIR_NAMES.iter().enumerate() {
            let mut room = start;
            for far in HOW_FAR {
                let Some(next) = self.world.passable(room, d) else { break };
                room = next;
                let people = &self.world.rooms[room].people;
                if self.world.is_dark(room) && !self.world.sees_in_dark(ch) {
                    out.push(if people.is_empty() {
                        format!("{dir}: It is too dark to see anything.")
                    } else {
                        format!("{dir}: It's too dark to see, but you can hear shuffling.")
                    });
                    continue;
                }
                let names: Vec<String> = people.iter().filter_map(|p| self.world.ch(*p)).map(|c| c.name.to_string()).collect();
                let list = match names.len() {
                    0 => continue,
                    1 => names[0].clone(),
                    n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
                };
                out.push(format!("You see {list} {far} {dir}."));
            }
        }
        if out.is_empty() {
            self.send_text(ch, "You don't see anything nearby!");
        } else {
            self.send_text(ch, &out.join("\n"));
        }
        CmdStatus::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_expand_as_circlemud_s() {
        assert_eq!(expand_alias("kill", "orc"), vec!["kill orc"]);
        assert_eq!(expand_alias("get all $1;wear all", "corpse"), vec!["get all corpse", "wear all"]);
        assert_eq!(expand_alias("say $*!", "hello there"), vec!["say hello there!"]);
        assert_eq!(expand_alias("give $2 $1", "bob sword"), vec!["give sword bob"]);
        assert_eq!(expand_alias("say $$5", ""), vec!["say $5"]);
        assert_eq!(expand_alias(";;", ""), Vec::<String>::new());
    }
}

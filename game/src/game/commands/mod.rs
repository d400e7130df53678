//! The command dispatcher: one table, shared by telnet players and agents.
//!
//! Abbreviations resolve to the first command in table order whose name starts with
//! what was typed (`n` is north, `l` look, `k` kill), as in CircleMUD.

mod chat;
mod classic;
mod clock;
mod comm;
mod fight;
mod food;
mod groups;
mod houses;
mod info;
mod magic_items;
mod movement;
mod objects;
mod position;
mod prefs;
mod procedures;
mod riding;
mod shops;
mod skills;
mod socials;
mod spells;
mod thievery;

use crate::game::model::tables::Position;
use crate::game::model::targeting;
use crate::game::model::world::{CharId, ObjId};
use crate::game::records::recording::CommandMeta;
use crate::game::rules::doors::DoorOp;
use crate::game::run::engine::Engine;

/// How a command ended, for the caller and (later) the decision record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmdStatus {
    Ok,
    Empty,
    UnknownCommand,
    InvalidTarget,
    WrongPosition,
    Failed,
    /// The command panicked; its player was answered `internal`.
    Internal,
}

impl CmdStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CmdStatus::Ok => "ok",
            CmdStatus::Empty => "empty",
            CmdStatus::UnknownCommand => "unknown_command",
            CmdStatus::Internal => "internal",
            CmdStatus::InvalidTarget => "invalid_target",
            CmdStatus::WrongPosition => "wrong_position",
            CmdStatus::Failed => "failed",
        }
    }
}

type Handler = fn(&mut Engine, CharId, &str) -> CmdStatus;

pub struct Command {
    pub name: &'static str,
    pub min_pos: Position,
    pub handler: Handler,
    /// Must be typed in full (quit).
    pub full: bool,
}

const fn cmd(name: &'static str, min_pos: Position, handler: Handler) -> Command {
    Command { name, min_pos, handler, full: false }
}

use Position::*;

pub static COMMANDS: &[Command] = &[
    cmd("north", Standing, |e, c, _| e.do_move(c, 0)),
    cmd("east", Standing, |e, c, _| e.do_move(c, 1)),
    cmd("south", Standing, |e, c, _| e.do_move(c, 2)),
    cmd("west", Standing, |e, c, _| e.do_move(c, 3)),
    cmd("up", Standing, |e, c, _| e.do_move(c, 4)),
    cmd("down", Standing, |e, c, _| e.do_move(c, 5)),
    cmd("look", Resting, Engine::do_look),
    cmd("kill", Fighting, Engine::do_kill),
    cmd("hit", Fighting, Engine::do_kill),
    cmd("get", Resting, Engine::do_get),
    cmd("give", Resting, Engine::do_give),
    cmd("drop", Resting, Engine::do_drop),
    cmd("put", Resting, Engine::do_put),
    cmd("inventory", Dead, Engine::do_inventory),
    cmd("equipment", Dead, Engine::do_equipment),
    cmd("exits", Resting, Engine::do_exits),
    cmd("examine", Resting, Engine::do_look),
    cmd("score", Dead, Engine::do_score),
    cmd("say", Resting, Engine::do_say),
    cmd("tell", Dead, Engine::do_tell),
    cmd("shout", Resting, Engine::do_shout),
    cmd("gossip", Sleeping, Engine::do_gossip),
    cmd("emote", Resting, Engine::do_emote),
    cmd("who", Dead, Engine::do_who),
    cmd("wear", Resting, Engine::do_wear),
    cmd("wield", Resting, Engine::do_wield),
    cmd("remove", Resting, Engine::do_remove),
    cmd("flee", Fighting, |e, c, _| e.flee(c)),
    cmd("wimpy", Dead, Engine::do_wimpy),
    cmd("recall", Resting, Engine::do_recall),
    cmd("report", Resting, Engine::do_report),
    cmd("consider", Resting, Engine::do_consider),
    cmd("rest", Resting, |e, c, _| e.change_position(c, Position::Resting)),
    cmd("sit", Resting, |e, c, _| e.change_position(c, Position::Sitting)),
    cmd("stand", Resting, |e, c, _| e.change_position(c, Position::Standing)),
    cmd("sleep", Sleeping, |e, c, _| e.change_position(c, Position::Sleeping)),
    cmd("wake", Sleeping, |e, c, _| e.change_position(c, Position::Standing)),
    cmd("open", Sitting, |e, c, a| door(e, c, a, DoorOp::Open)),
    cmd("close", Sitting, |e, c, a| door(e, c, a, DoorOp::Close)),
    cmd("lock", Sitting, |e, c, a| door(e, c, a, DoorOp::Lock)),
    cmd("unlock", Sitting, |e, c, a| door(e, c, a, DoorOp::Unlock)),
    cmd("save", Sleeping, Engine::do_save),
    Command { name: "quit", min_pos: Dead, handler: Engine::do_quit, full: true },
    Command { name: "reallyquit", min_pos: Dead, handler: Engine::do_reallyquit, full: true },
    cmd("help", Dead, Engine::do_help),
    cmd("commands", Dead, Engine::do_commands),
    cmd("list", Resting, Engine::do_list),
    cmd("buy", Resting, Engine::do_buy),
    cmd("sell", Resting, Engine::do_sell),
    cmd("value", Resting, Engine::do_value),
    cmd("time", Dead, Engine::do_time),
    cmd("follow", Resting, Engine::do_follow),
    cmd("group", Dead, Engine::do_group),
    cmd("ungroup", Dead, Engine::do_ungroup),
    cmd("gtell", Dead, Engine::do_gtell),
    cmd("assist", Fighting, Engine::do_assist),
    cmd("cast", Sitting, Engine::do_cast),
    cmd("practice", Resting, Engine::do_practice),
    cmd("order", Resting, Engine::do_order),
    cmd("kick", Fighting, Engine::do_kick),
    cmd("bash", Fighting, Engine::do_bash),
    cmd("rescue", Fighting, Engine::do_rescue),
    cmd("backstab", Standing, Engine::do_backstab),
    cmd("sneak", Standing, Engine::do_sneak),
    cmd("hide", Resting, Engine::do_hide),
    cmd("search", Standing, Engine::do_search),
    cmd("pick", Standing, Engine::do_pick),
    cmd("rent", Resting, Engine::do_rent),
    cmd("eat", Resting, Engine::do_eat),
    cmd("drink", Resting, Engine::do_drink),
    cmd("fill", Standing, Engine::do_fill),
    cmd("socials", Dead, Engine::do_socials),
    cmd("chat", Dead, Engine::do_chat),
    cmd("room", Dead, Engine::do_room),
    // What only a special procedure nearby gives meaning to (a gate, a bank, a board).
    cmd("enter", Standing, Engine::do_not_here),
    cmd("balance", Resting, Engine::do_not_here),
    cmd("deposit", Resting, Engine::do_not_here),
    cmd("withdraw", Resting, Engine::do_not_here),
    cmd("read", Resting, Engine::do_not_here),
    cmd("write", Resting, Engine::do_not_here),
    cmd("retrieve", Resting, Engine::do_not_here),
    cmd("mail", Standing, Engine::do_not_here),
    cmd("check", Standing, Engine::do_not_here),
    cmd("receive", Standing, Engine::do_not_here),
    cmd("take", Resting, Engine::do_get),
    cmd("quaff", Resting, Engine::do_quaff),
    cmd("recite", Resting, Engine::do_recite),
    cmd("use", Sitting, Engine::do_use),
    cmd("gsay", Sleeping, Engine::do_gtell),
    cmd("hold", Resting, Engine::do_grab),
    cmd("grab", Resting, Engine::do_grab),
    cmd("whisper", Resting, Engine::do_whisper),
    cmd("ask", Resting, Engine::do_ask),
    cmd("levels", Dead, Engine::do_levels),
    cmd("junk", Resting, Engine::do_junk),
    cmd("donate", Resting, Engine::do_donate),
    cmd("split", Sitting, Engine::do_split),
    cmd("where", Resting, Engine::do_where),
    cmd("behead", Standing, Engine::do_behead),
    cmd("title", Dead, Engine::do_title),
    cmd("prompt", Dead, Engine::do_prompt),
    cmd("display", Dead, Engine::do_prompt),
    cmd("alias", Dead, Engine::do_alias),
    cmd("color", Dead, Engine::do_colour),
    cmd("colour", Dead, Engine::do_colour),
    cmd("bug", Dead, |e, c, a| e.do_report_note(c, "bug", a)),
    cmd("typo", Dead, |e, c, a| e.do_report_note(c, "typo", a)),
    cmd("idea", Dead, |e, c, a| e.do_report_note(c, "idea", a)),
    cmd("scan", Resting, Engine::do_scan),
    cmd("steal", Standing, Engine::do_steal),
    cmd("track", Standing, Engine::do_track),
    cmd("ride", Standing, Engine::do_ride),
    cmd("mount", Standing, Engine::do_ride),
    cmd("dismount", Standing, Engine::do_dismount),
];

fn door(e: &mut Engine, c: CharId, args: &str, op: DoorOp) -> CmdStatus {
    if e.door_command(c, args, op) {
        CmdStatus::Ok
    } else {
        CmdStatus::Failed
    }
}

/// Finds the command a typed word names.
pub fn lookup(word: &str) -> Option<&'static Command> {
    let w = word.to_ascii_lowercase();
    if w.is_empty() {
        return None;
    }
    COMMANDS.iter().find(|c| if c.full { c.name == w } else { c.name.starts_with(&w) }).or_else(|| {
        // "qui" is not quit: say so rather than "Huh?!?".
        COMMANDS.iter().find(|c| c.full && c.name.starts_with(&w))
    })
}

fn position_refusal(pos: Position) -> &'static str {
    match pos {
        Position::Dead => "Lie still; you are DEAD!!! :-(",
        Position::MortallyWounded | Position::Incapacitated => "You are in a pretty bad shape, unable to do anything!",
        Position::Stunned => "All you can do right now is think about the stars!",
        Position::Sleeping => "In your dreams, or what?",
        Position::Resting => "Nah... You feel too relaxed to do that..",
        Position::Sitting => "Maybe you should get on your feet first?",
        Position::Fighting => "No way!  You're fighting for your life!",
        Position::Standing => "",
    }
}

impl Engine {
    /// Runs one command, in the order a command's path takes: for the record, the state
    /// before; the panic boundary around the dispatcher (a command that panics answers
    /// its player `internal` and the world goes on); then its decision for the record.
    pub fn run_command(&mut self, id: CharId, line: &str, cmd: CommandMeta) {
        let start = self.decision_start(id);
        self.cur = Some((id, cmd.re.clone()));
        // A `reply`'s words: the message they answer goes with them.
        self.message_ids.reply_to = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()).and_then(|pc| {
            let at = pc.hud.pending_replies.iter().position(|(l, _)| l.trim() == line.trim())?;
            pc.hud.pending_replies.remove(at).map(|(_, mid)| mid)
        });
        let status = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch(id, line))) {
            Ok(s) => s,
            Err(panic) => self.command_panicked(id, line, panic),
        };
        self.cur = None;
        self.message_ids.reply_to = None;
        self.note_action(id, line, status.as_str());
        if let Some(start) = start {
            self.decision_end(id, line, status.as_str(), start, cmd);
        }
        // A telnet player's reply ends with its prompt now, not at the pulse's end.
        if self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).is_some_and(|l| !l.json) {
            self.telnet_prompt(id);
        }
    }

    /// An unknown command, in the family's words (tbaMUD's `CONFIG_HUH` is "Huh!?!").
    pub fn huh(&mut self, ch: CharId) {
        let huh = if self.world.profile.family == crate::worldfile::profile::Family::TbaMud { "Huh!?!" } else { "Huh?!?" };
        self.send_text(ch, huh);
    }

    /// Runs one command line for a character. Agents and humans both come through here.
    pub fn dispatch(&mut self, id: CharId, line: &str) -> CmdStatus {
        let line = line.trim();
        if line.is_empty() {
            return CmdStatus::Empty;
        }
        if self.injected_fault(id, line) {
            return CmdStatus::Ok;
        }
        // A line from an alias is not looked up again (`\u{1}` marks it; typed input
        // never carries control characters).
        let line = match line.strip_prefix('\u{1}') {
            Some(rest) => rest,
            None => match self.alias_lines(id, line) {
                Some(lines) => return self.run_alias(id, lines),
                None => line,
            },
        };
        // `'hello` is say, `:waves` is emote.
        let (word, args) = if let Some(rest) = line.strip_prefix('\'') {
            ("say", rest)
        } else if let Some(rest) = line.strip_prefix(':') {
            ("emote", rest)
        } else {
            match line.split_once(char::is_whitespace) {
                Some((w, a)) => (w, a.trim()),
                None => (line, ""),
            }
        };
        // DG command triggers hear the word before the command table does (so a
        // script can give meaning to `pull lever`).
        if self.dg_command(id, word, args) {
            return CmdStatus::Ok;
        }
        let Some(cmd) = lookup(word) else {
            if let Some(social) = self.find_social(word) {
                return self.do_social(id, social, args);
            }
            self.huh(id);
            return CmdStatus::UnknownCommand;
        };
        if cmd.full && !cmd.name.eq_ignore_ascii_case(word) {
            self.send_text(id, &format!("You have to type {}--no less, to {}!", cmd.name, cmd.name));
            return CmdStatus::Failed;
        }
        let Some(c) = self.world.ch(id) else {
            return CmdStatus::Failed;
        };
        let pos = if c.fighting.is_some() && c.position >= Position::Fighting { Position::Fighting } else { c.position };
        if pos < cmd.min_pos {
            self.send_text(id, position_refusal(pos));
            return CmdStatus::WrongPosition;
        }
        // A special procedure here may take the command first (CircleMUD's `special()`).
        let status = match self.command_special(id, cmd.name, args) {
            Some(taken) => taken,
            None => (cmd.handler)(self, id, args),
        };
        if let Some(c) = self.world.chars.get_mut(&id) {
            c.mark_dirty();
        }
        status
    }

    /// Whether names are matched by whole keywords (Dark Pawns's `isname`) rather than
    /// by their beginnings (CircleMUD's and tbaMUD's).
    pub fn whole_names(&self) -> bool {
        self.world.profile.family == crate::worldfile::profile::Family::DarkPawns
    }

    /// A character in the same room (`self`/`me` is the actor).
    pub fn find_char_room(&self, ch: CharId, arg: &str) -> Option<CharId> {
        if arg.eq_ignore_ascii_case("self") || arg.eq_ignore_ascii_case("me") {
            return Some(ch);
        }
        let room = self.world.ch(ch)?.room;
        let (count, kw) = targeting::parse(arg);
        let targeting::Count::Nth(n) = count else {
            return None;
        };
        // Only the occupants whose signature can answer to the keyword are read.
        let r = &self.world.rooms[room];
        let q = targeting::query_sig(kw);
        let maybe = r.people.iter().zip(&r.sigs).filter(|(_, s)| **s & q == q).filter_map(|(p, _)| self.world.ch(*p));
        targeting::find_nth_as(maybe.map(|c| (c.id, c.keywords.as_str())), kw, n, self.whole_names())
    }

    /// A player anywhere in the world, by name.
    pub fn find_player(&self, name: &str) -> Option<CharId> {
        let key = name.to_ascii_lowercase();
        self.world
            .players
            .get(&key)
            .copied()
            .or_else(|| self.world.players.iter().find(|(n, _)| n.starts_with(&key) && !key.is_empty()).map(|(_, id)| *id))
    }

    pub fn find_obj_in(&self, list: &[ObjId], arg: &str) -> Option<ObjId> {
        let (count, kw) = targeting::parse(arg);
        let targeting::Count::Nth(n) = count else {
            return None;
        };
        targeting::find_nth_as(
            list.iter().filter_map(|o| self.world.obj(*o)).map(|o| (o.id, o.keywords.as_str())),
            kw,
            n,
            self.whole_names(),
        )
    }

    /// Everything `arg` names in a list: `all`, `all.kw`, or one thing.
    pub fn objs_matching(&self, list: &[ObjId], arg: &str) -> Vec<ObjId> {
        match targeting::parse(arg) {
            (targeting::Count::All, "") => list.to_vec(),
            (targeting::Count::All, kw) => {
                let whole = self.whole_names();
                list.iter().copied().filter(|o| self.world.obj(*o).is_some_and(|o| targeting::names(kw, &o.keywords, whole))).collect()
            }
            _ => self.find_obj_in(list, arg).into_iter().collect(),
        }
    }

    /// An object in inventory, worn, or in the room, in that order.
    pub fn find_obj_here(&self, ch: CharId, arg: &str) -> Option<ObjId> {
        let c = self.world.ch(ch)?;
        let worn: Vec<ObjId> = c.equipment.iter().flatten().copied().collect();
        self.find_obj_in(&c.inventory, arg)
            .or_else(|| self.find_obj_in(&worn, arg))
            .or_else(|| self.find_obj_in(&self.world.rooms[c.room].contents, arg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_follow_table_order() {
        let name = |w| lookup(w).map(|c| c.name);
        assert_eq!(name("n"), Some("north"));
        assert_eq!(name("l"), Some("look"));
        assert_eq!(name("k"), Some("kill"));
        assert_eq!(name("i"), Some("inventory"));
        assert_eq!(name("eq"), Some("equipment"));
        assert_eq!(name("sc"), Some("score"));
        assert_eq!(name("wh"), Some("who"));
        // As in CircleMUD's table, "qu" is quaff; quit is typed whole ("qui" says so).
        assert_eq!(name("qu"), Some("quaff"));
        assert_eq!(name("qui"), Some("quit"));
        assert_eq!(name("xyzzy"), None);
    }
}

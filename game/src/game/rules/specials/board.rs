//! `gen_board`: bulletin boards players and agents read and post to. Every board of
//! one object vnum shows the same messages (CircleMUD kept a message file per board
//! vnum); they are kept in the data file (`boards`, migration 8) through the save
//! writer, queued the moment a message is posted or removed.
//!
//! `look board` lists the messages, newest first; `read <n>` shows one; `write
//! <subject> : <message>` posts (one line: agents and telnet players alike have no
//! editor to open); `remove <n>` takes down one's own message.

use std::collections::{BTreeSet, HashMap};

use pawns_storage::{BoardMessage, BoardRecord};

use crate::game::commands::CmdStatus;
use crate::game::model::tables::MAX_LEVEL;
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// The most messages one board holds (CircleMUD's `MAX_BOARD_MESSAGES`).
pub const MAX_MESSAGES: usize = 60;
pub const MAX_SUBJECT: usize = 80;
pub const MAX_BODY: usize = 4096;

/// Every board's messages, by object vnum, and which changed since the last save.
#[derive(Default)]
pub struct BoardBook {
    boards: HashMap<u32, BoardRecord>,
    changed: BTreeSet<u32>,
}

impl BoardBook {
    pub fn restore(records: Vec<BoardRecord>) -> BoardBook {
        BoardBook { boards: records.into_iter().map(|b| (b.vnum, b)).collect(), changed: BTreeSet::new() }
    }

    pub fn messages(&self, vnum: u32) -> &[BoardMessage] {
        self.boards.get(&vnum).map(|b| b.messages.as_slice()).unwrap_or(&[])
    }

    pub(super) fn board(&mut self, vnum: u32) -> &mut BoardRecord {
        self.changed.insert(vnum);
        self.boards.entry(vnum).or_insert_with(|| BoardRecord { vnum, messages: Vec::new() })
    }

    fn take_changed(&mut self) -> Vec<BoardRecord> {
        let changed = std::mem::take(&mut self.changed);
        changed.into_iter().filter_map(|v| self.boards.get(&v).cloned()).collect()
    }
}

/// `write` splits its argument at the first ` : ` (or `:`) into subject and message.
pub fn split_post(args: &str) -> Option<(&str, &str)> {
    let (subject, body) = args.split_once(" : ").or_else(|| args.split_once(':'))?;
    let (subject, body) = (subject.trim(), body.trim());
    (!subject.is_empty() && !body.is_empty()).then_some((subject, body))
}

fn day(posted: u64) -> String {
    chrono::DateTime::from_timestamp(posted as i64, 0).map(|d| d.format("%a %b %e").to_string()).unwrap_or_default()
}

impl Engine {
    pub(super) fn spec_board(&mut self, ch: CharId, board: ObjId, cmd: &str, args: &str) -> Option<CmdStatus> {
        let o = self.world.obj(board)?;
        let (vnum, keywords) = (o.vnum, o.keywords.clone());
        let number = || args.trim().parse::<usize>().ok();
        match cmd {
            "look" | "examine" if crate::game::model::targeting::is_name(args.trim(), &keywords) => Some(self.board_list(ch, board, vnum)),
            "read" => Some(self.board_read(ch, vnum, number()?)),
            "remove" => Some(self.board_remove(ch, board, vnum, number()?)),
            "write" => Some(self.board_write(ch, board, vnum, args)),
            _ => None,
        }
    }

    fn board_list(&mut self, ch: CharId, board: ObjId, vnum: u32) -> CmdStatus {
        let msgs = self.boards.messages(vnum);
        let mut lines = vec![
            "This is a bulletin board.  Usage: READ/REMOVE <messg #>, WRITE <subject> : <message>.".to_string(),
            match msgs.len() {
                0 => "The board is empty.".to_string(),
                1 => "There is 1 message on the board.".to_string(),
                n => format!("There are {n} messages on the board."),
            },
        ];
        for (i, m) in msgs.iter().enumerate().rev() {
            lines.push(format!("{:<2} : {} ({}) :: {}", i + 1, day(m.posted), m.author, m.subject));
        }
        self.act("$n studies $p.", ch, None, Some(board), To::Room, EventKind::Text);
        self.send_text(ch, &lines.join("\n"));
        CmdStatus::Ok
    }

    fn board_read(&mut self, ch: CharId, vnum: u32, n: usize) -> CmdStatus {
        let Some(m) = n.checked_sub(1).and_then(|i| self.boards.messages(vnum).get(i)) else {
            self.send_text(ch, "That message exists only in your imagination.");
            return CmdStatus::InvalidTarget;
        };
        let text = format!("Message {n} : {} ({}) :: {}\n\n{}", day(m.posted), m.author, m.subject, m.body);
        self.send_text(ch, &text);
        CmdStatus::Ok
    }

    fn board_write(&mut self, ch: CharId, board: ObjId, vnum: u32, args: &str) -> CmdStatus {
        let Some((subject, body)) = split_post(args) else {
            self.send_text(ch, "Write what?  Usage: write <subject> : <message>");
            return CmdStatus::InvalidTarget;
        };
        if subject.chars().count() > MAX_SUBJECT || body.chars().count() > MAX_BODY {
            self.send_text(ch, &format!("Too long: a subject holds {MAX_SUBJECT} characters, a message {MAX_BODY}."));
            return CmdStatus::InvalidTarget;
        }
        if self.boards.messages(vnum).len() >= MAX_MESSAGES {
            self.send_text(ch, "The board is full.");
            return CmdStatus::Failed;
        }
        let Some(author) = self.world.ch(ch).filter(|c| c.pc.is_some()).map(|c| c.name.to_string()) else { return CmdStatus::Failed };
        let msg = BoardMessage { author, subject: subject.to_string(), body: body.to_string(), posted: self.now_us / 1_000_000 };
        self.boards.board(vnum).messages.push(msg);
        self.save_boards();
        self.send_text(ch, "You post your message on the board.");
        self.act("$n writes a message on $p.", ch, None, Some(board), To::Room, EventKind::Text);
        CmdStatus::Ok
    }

    fn board_remove(&mut self, ch: CharId, board: ObjId, vnum: u32, n: usize) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let (name, immortal) = (c.name.to_string(), c.level >= MAX_LEVEL);
        let Some(i) = n.checked_sub(1).filter(|i| *i < self.boards.messages(vnum).len()) else {
            self.send_text(ch, "That message exists only in your imagination.");
            return CmdStatus::InvalidTarget;
        };
        if !immortal && !self.boards.messages(vnum)[i].author.eq_ignore_ascii_case(&name) {
            self.send_text(ch, "You are not holy enough to remove other people's messages.");
            return CmdStatus::Failed;
        }
        self.boards.board(vnum).messages.remove(i);
        self.save_boards();
        self.send_text(ch, "Message removed.");
        self.act("$n just removed a message from $p.", ch, None, Some(board), To::Room, EventKind::Text);
        CmdStatus::Ok
    }

    /// Queues the boards that changed for the save writer.
    pub fn save_boards(&mut self) {
        let changed = self.boards.take_changed();
        if !changed.is_empty() {
            self.saves.save_boards(changed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_is_a_subject_and_a_message() {
        assert_eq!(split_post("Lost sword : a long blade, reward"), Some(("Lost sword", "a long blade, reward")));
        assert_eq!(split_post("hi:there"), Some(("hi", "there")));
        assert_eq!(split_post("no message"), None);
        assert_eq!(split_post(" : body"), None);
        assert_eq!(split_post("subject :   "), None);
    }
}

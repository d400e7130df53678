//! The post office (`postmaster`): `mail <name> <message>` for a 25-coin stamp (level 2
//! and up), `check`, `receive`. Letters wait in the post office's own board (one
//! message each, its subject the addressee), kept with the boards.

use crate::game::commands::CmdStatus;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use pawns_storage::BoardMessage;

/// The board the post office keeps its letters on (no object has this number).
pub const POST_OFFICE: u32 = u32::MAX;
/// What a stamp costs (`STAMP_PRICE`).
pub const STAMP_PRICE: i64 = 25;
/// The least level that may send mail (`MIN_MAIL_LEVEL`).
const MIN_MAIL_LEVEL: u8 = 2;
/// The longest letter.
const MAX_LETTER: usize = 4000;
/// Letters the post office keeps at most (the oldest go first).
const MAX_LETTERS: usize = 10_000;

impl Engine {
    /// Whether letters wait for `name` (lower case).
    pub(crate) fn has_mail(&self, name: &str) -> bool {
        self.boards.messages(POST_OFFICE).iter().any(|m| m.subject == name)
    }

    fn postman_tells(&mut self, postman: CharId, ch: CharId, text: &str) {
        self.act(&format!("$n tells you, '{text}'"), postman, Some(ch), None, To::Victim, EventKind::Tell);
    }

    pub(super) fn spec_postmaster(&mut self, postman: CharId, ch: CharId, cmd: &str, args: &str) -> Option<CmdStatus> {
        if !matches!(cmd, "mail" | "check" | "receive") {
            return None;
        }
        let c = self.world.ch(ch)?;
        c.pc.as_ref()?;
        let (name, level, gold) = (c.name.to_ascii_lowercase(), c.level, c.gold);
        match cmd {
            "check" => {
                let line = if self.has_mail(&name) { "You have mail waiting." } else { "Sorry, you don't have any mail waiting." };
                self.postman_tells(postman, ch, line);
                Some(CmdStatus::Ok)
            }
            "receive" => {
                let (mine, rest): (Vec<BoardMessage>, Vec<BoardMessage>) =
                    self.boards.messages(POST_OFFICE).iter().cloned().partition(|m| m.subject == name);
                if mine.is_empty() {
                    self.postman_tells(postman, ch, "Sorry, you don't have any mail waiting.");
                    return Some(CmdStatus::Failed);
                }
                self.boards.board(POST_OFFICE).messages = rest;
                self.save_boards();
                for m in mine {
                    self.act("$n gives you a piece of mail.", postman, Some(ch), None, To::Victim, EventKind::Text);
                    self.act("$n gives $N a piece of mail.", postman, Some(ch), None, To::NotVictim, EventKind::Text);
                    self.send_text(ch, &format!("From: {}\n\n{}", m.author, m.body));
                }
                Some(CmdStatus::Ok)
            }
            _ => {
                if level < MIN_MAIL_LEVEL {
                    self.postman_tells(postman, ch, &format!("Sorry, you have to be level {MIN_MAIL_LEVEL} to send mail!"));
                    return Some(CmdStatus::Failed);
                }
                let (to, letter) = args.trim().split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((args.trim(), ""));
                if to.is_empty() {
                    self.postman_tells(postman, ch, "You need to specify an addressee!");
                    return Some(CmdStatus::InvalidTarget);
                }
                if gold < STAMP_PRICE {
                    self.postman_tells(postman, ch, &format!("A stamp costs {STAMP_PRICE} coins."));
                    self.postman_tells(postman, ch, "...which I see you can't afford.");
                    return Some(CmdStatus::Failed);
                }
                let to = to.to_ascii_lowercase();
                if !self.registered.contains(&to) {
                    self.postman_tells(postman, ch, "No one by that name is registered here!");
                    return Some(CmdStatus::InvalidTarget);
                }
                let letter: String = letter.chars().filter(|c| !c.is_control() || *c == '\n').take(MAX_LETTER).collect();
                if letter.is_empty() {
                    // The original opens an editor; here the letter follows the name.
                    self.postman_tells(postman, ch, "Write your message after the name: mail <name> <message>");
                    return Some(CmdStatus::InvalidTarget);
                }
                self.act("$n starts to write some mail.", ch, None, None, To::Room, EventKind::Text);
                self.postman_tells(postman, ch, &format!("I'll take {STAMP_PRICE} coins for the stamp."));
                if let Some(c) = self.world.chars.get_mut(&ch) {
                    c.gold -= STAMP_PRICE;
                    c.mark_dirty();
                }
                let author = self.world.ch(ch).map(|c| c.name.to_string()).unwrap_or_default();
                let posted = self.now_us / 1_000_000;
                let office = &mut self.boards.board(POST_OFFICE).messages;
                office.push(BoardMessage { author, subject: to.clone(), body: letter, posted });
                if office.len() > MAX_LETTERS {
                    let over = office.len() - MAX_LETTERS;
                    office.drain(..over);
                }
                self.save_boards();
                self.postman_tells(postman, ch, "Your letter is on its way.");
                if let Some(r) = self.world.players.get(&to).copied() {
                    self.send_text(r, "You have mail waiting.");
                }
                Some(CmdStatus::Ok)
            }
        }
    }
}

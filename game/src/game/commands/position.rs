//! Positions (rest, sit, stand, sleep, wake), saving and quitting.

use super::CmdStatus;
use crate::game::model::tables::Position;
use crate::game::model::tables::MAX_LEVEL;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::profile::Family;

/// Dark Pawns: where quitting keeps one's things — the temple altar 8004 and its chapel
/// 8008 for everyone, a Kir-Oshi citizen's altar 18201, an Alaozar citizen's 21202 and
/// 21258 (owned houses are not played here).
fn dp_safe_quit(vnum: u32, hometown: u8) -> bool {
    matches!(vnum, 8004 | 8008) || (hometown == 2 && vnum == 18201) || (hometown == 3 && matches!(vnum, 21202 | 21258))
}

impl Engine {
    pub fn change_position(&mut self, ch: CharId, to: Position) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        let from = c.position;
        if c.fighting.is_some() && to != Position::Standing {
            self.send_text(ch, "No way!  You're fighting for your life!");
            return CmdStatus::WrongPosition;
        }
        let (me, room) = match (from, to) {
            (a, b) if a == b || (a == Position::Fighting && b == Position::Standing) => {
                let m = match b {
                    Position::Resting => "You are already resting.",
                    Position::Sitting => "You're sitting already.",
                    Position::Sleeping => "You are already sound asleep.",
                    _ => "You are already standing.",
                };
                self.send_text(ch, m);
                return CmdStatus::Failed;
            }
            (Position::Sleeping, Position::Standing) => ("You awaken, and stand up.", "$n awakens."),
            (Position::Sleeping, _) => {
                self.send_text(ch, "You have to wake up first!");
                return CmdStatus::WrongPosition;
            }
            (_, Position::Resting) => ("You sit down and rest your tired bones.", "$n sits down and rests."),
            (_, Position::Sitting) => ("You sit down.", "$n sits down."),
            (_, Position::Sleeping) => ("You go to sleep.", "$n lies down and falls asleep."),
            (_, _) => ("You stand up.", "$n clambers to $s feet."),
        };
        self.send_text(ch, me);
        self.act(room, ch, None, None, To::Room, EventKind::System);
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.position = to;
        }
        CmdStatus::Ok
    }

    pub fn do_save(&mut self, ch: CharId, _: &str) -> CmdStatus {
        self.save_char(ch);
        self.send_text(ch, &format!("Saving {}.", self.pers(ch)));
        CmdStatus::Ok
    }

    pub fn do_quit(&mut self, ch: CharId, _: &str) -> CmdStatus {
        self.quit(ch, false)
    }

    /// `reallyquit` (Dark Pawns): quitting outside a safe room, leaving one's things.
    pub fn do_reallyquit(&mut self, ch: CharId, _: &str) -> CmdStatus {
        if self.world.profile.family != Family::DarkPawns {
            self.huh(ch);
            return CmdStatus::UnknownCommand;
        }
        self.quit(ch, true)
    }

    fn quit(&mut self, ch: CharId, really: bool) -> CmdStatus {
        if self.world.ch(ch).is_some_and(|c| c.fighting.is_some()) {
            self.send_text(ch, "No way!  You're fighting for your life!");
            return CmdStatus::WrongPosition;
        }
        // Dark Pawns keeps one's things only for a quit in the temple (free rent there);
        // elsewhere it asks for REALLYQUIT, which leaves them on the floor.
        if self.world.profile.family == Family::DarkPawns {
            let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
            if c.position <= Position::Incapacitated {
                self.send_text(ch, "You die before your time...");
                self.die(ch, None);
                return CmdStatus::Failed;
            }
            let (room, level) = (c.room, c.level);
            let safe = dp_safe_quit(self.world.rooms[room].proto.vnum, self.hometown(ch)) || level >= MAX_LEVEL;
            if !safe && !really {
                self.send_text(ch, "Type REALLYQUIT to quit the game and lose your eq.");
                self.send_text(ch, "Return to the temple and QUIT to leave the game and keep your equipment.");
                if level <= 5 {
                    self.send_text(ch, "You can type RECALL to return to your temple.");
                }
                return CmdStatus::Failed;
            }
            if !safe {
                let c = self.world.ch(ch).expect("just read");
                let things: Vec<_> = c.inventory.iter().copied().chain(c.equipment.iter().flatten().copied()).collect();
                for o in things {
                    self.world.obj_to_room(o, room);
                }
                self.recompute_armour(ch);
            }
        }
        self.announce_here(ch, false, "has left the game.");
        self.save_char(ch);
        // One farewell (the session's last line), not two.
        self.close_link(ch, "quit", "Goodbye, friend.. Come back soon!");
        self.end_session(ch, "quit");
        self.world.extract_char(ch);
        CmdStatus::Ok
    }
}

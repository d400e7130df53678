//! `rent`: a house floor kept across restarts (houses are `houses.rs`).

use super::CmdStatus;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    /// `rent`: at an innkeeper, save everything and leave the game.
    pub fn do_rent(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        // Dark Pawns has no renting anywhere (its receptionists were never assigned):
        // quitting in the temple keeps one's things.
        if self.world.profile.family == crate::worldfile::profile::Family::DarkPawns {
            self.send_text(ch, "Sorry, but you cannot do that here!");
            return CmdStatus::Failed;
        }
        let Some(room) = self.world.ch(ch).map(|c| c.room) else { return CmdStatus::Failed };
        let keeper = self.innkeeper_in(room);
        let Some(keeper) = keeper else {
            self.send_text(ch, "You can only rent at an inn, from its keeper.");
            return CmdStatus::Failed;
        };
        if self.world.ch(ch).is_some_and(|c| c.fighting.is_some()) {
            self.send_text(ch, "No way!  You're fighting for your life!");
            return CmdStatus::WrongPosition;
        }
        self.act("$N stores your belongings and helps you into your private chamber.", ch, Some(keeper), None, To::Actor, EventKind::Text);
        self.act("$n has rented a room.", ch, None, None, To::Room, EventKind::System);
        self.save_char(ch);
        self.close_link(ch, "quit", "You rent a room; your belongings are kept. Welcome back any time.");
        self.end_session(ch, "rent");
        self.world.extract_char(ch);
        CmdStatus::Ok
    }
}

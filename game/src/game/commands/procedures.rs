//! Commands only a special procedure nearby gives meaning to (`enter`, `balance`, `read`… answered "You can't do that here." when none takes them) and `behead` (the procedures are `specials/`).

use super::CmdStatus;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    /// The commands only a procedure gives meaning to (`enter`, `deposit`, `read`…):
    /// anywhere else, the original's answer.
    pub fn do_not_here(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        self.send_text(ch, "Sorry, but you cannot do that here!");
        CmdStatus::Failed
    }

    /// `behead corpse`: the Dark Pawns trophy-taker's command (brain eaters use it): a
    /// corpse here becomes headless.
    pub fn do_behead(&mut self, ch: CharId, args: &str) -> crate::game::commands::CmdStatus {
        use super::CmdStatus;
        let Some(room) = self.world.ch(ch).map(|c| c.room) else { return CmdStatus::Failed };
        let what = if args.trim().is_empty() { "corpse" } else { args.trim() };
        let Some(corpse) = self.find_obj_in(&self.world.rooms[room].contents.clone(), what) else {
            self.send_text(ch, "Behead what?");
            return CmdStatus::InvalidTarget;
        };
        let Some(o) = self.world.obj(corpse).filter(|o| o.vnum == 0 && o.keywords.contains("corpse")) else {
            self.send_text(ch, "You can only behead a corpse.");
            return CmdStatus::InvalidTarget;
        };
        if o.keywords.contains("headless") {
            self.send_text(ch, "That corpse has no head left.");
            return CmdStatus::Failed;
        }
        self.act("You behead $p.", ch, None, Some(corpse), To::Actor, EventKind::Combat);
        self.act("$n beheads $p.", ch, None, Some(corpse), To::Room, EventKind::Combat);
        if let Some(o) = self.world.objs.get_mut(&corpse) {
            o.keywords = format!("headless {}", o.keywords);
            o.short_descr = o.short_descr.replacen("the corpse", "the headless corpse", 1).into();
            o.long_descr = o.long_descr.replacen("corpse", "headless corpse", 1);
        }
        CmdStatus::Ok
    }
}

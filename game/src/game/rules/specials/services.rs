//! Dark Pawns's townsfolk, as its C server has them (`spec_procs*.c`, `mobprog.c`):
//! the mortician who fetches corpses, the prostitute, the old guard of the chosen, the
//! citizens' idle talk, and the sounds its people make (`mp_sound`: the zealot's
//! "Repent sinners!", the crier, the beggar…).

use crate::game::commands::CmdStatus;
use crate::game::model::tables::{item_type, Position, MAX_LEVEL};
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// What the mortician asks a level for fetching its corpse (`GET_LEVEL(ch) * 116`).
pub fn mortician_cost(level: u8) -> i64 {
    level as i64 * 116
}

/// A Dark Pawns mob's sound (`mp_sound`): said (`Some(true)`) or emoted, by vnum; the
/// roll picks one of two where it has two.
fn sound_of(vnum: u32, coin: bool) -> Option<(bool, &'static str)> {
    Some(match (vnum, coin) {
        (8066, true) => (true, "Sign this, please! There's too much violence!"),
        (8066, false) => (true, "You look like a kind person.. sign this petition?"),
        (8067, true) => (false, "adjusts his tool belt."),
        (8067, false) => (false, "wipes the sweat of labor from his brow."),
        (8068, true) => (true, "Arch Bishop Dinive to arrive on the Day of Winter Dawning!"),
        (8068, false) => (true, "By mandate of the church, no violence in town! The penalty is jail time!"),
        (8069, _) => (true, "Repent sinners! The end time is near!"),
        (8071, true) => (true, "Spare a coin, buddy?"),
        (8071, false) => (false, "jingles his cup."),
        (8072, _) => (false, "sings an old war ditty... badly off-key."),
        (8074, true) => (false, "plays a lilting tune about your mother's beauty."),
        (8074, false) => (false, "sings a melody about your conquests in battle."),
        (8079, _) => (false, "tries to escape from an invisible box only he can see."),
        (14202, _) => (false, "tokes up on some kind bud."),
        (8023, _) => (false, "jiggles in your direction."),
        (16300, true) => (false, "smiles at you."),
        (16300, false) => (false, "shuffles some papers around on his desk."),
        _ => return None,
    })
}

impl Engine {
    fn mob_tells(&mut self, mob: CharId, ch: CharId, text: &str) {
        self.act(&format!("$n tells you, '{text}'"), mob, Some(ch), None, To::Victim, EventKind::Tell);
    }

    /// Dark Pawns's `mp_sound`, a sixteenth of a mob's turns (awake, not fighting).
    pub(crate) fn dp_sound(&mut self, id: CharId) {
        let Some(vnum) = self.world.ch(id).and_then(|c| c.npc_vnum) else { return };
        if vnum == 8059 {
            self.do_emote(id, "looks at you.");
            self.do_say(id, "Carry on, citizen.");
            return;
        }
        let coin = self.roll(0, 1) == 1;
        if let Some((say, text)) = sound_of(vnum, coin) {
            if say {
                self.do_say(id, text);
            } else {
                self.do_emote(id, text);
            }
        }
    }

    /// `citizen`: one turn in twenty a townsman mutters, stares or fidgets (C's ten
    /// cases, two of them silent); it never ends the mob's turn.
    pub(super) fn spec_citizen(&mut self, id: CharId) -> bool {
        if self.roll(0, 19) != 0 {
            return false;
        }
        let lines: &[&str] = match self.roll(1, 10) {
            1 => &["$n jingles some change in $s pocket."],
            2 => &["$n stares into the sky.", "$n says, 'Looks like rain. *sigh*'"],
            3 => &["$n glances at you out of the corner of $s eye."],
            4 => &["$n mumbles something about the price of a crappy loaf of bread."],
            5 => &["$n kicks a pebble out of the road."],
            6 => &["$n looks at you and shouts 'Repent! The end is near!'"],
            7 => &["$n eyes your coin purse."],
            8 => &["$n looks around for the cityguards just before giving you the bird."],
            _ => &[],
        };
        for l in lines {
            self.act(l, id, None, None, To::Room, EventKind::Emote);
        }
        false
    }

    /// `mortician`: `list` names the price of fetching one's corpse (level × 116);
    /// `retrieve` has it dumped here, wherever it lay.
    pub(super) fn spec_mortician(&mut self, mob: CharId, ch: CharId, cmd: &str) -> Option<CmdStatus> {
        if !matches!(cmd, "list" | "retrieve") {
            return None;
        }
        let c = self.world.ch(ch)?;
        let (cost, gold, room, name) = (mortician_cost(c.level), c.gold, c.room, c.name.to_string());
        if cmd == "list" {
            self.mob_tells(mob, ch, &format!("It will cost {cost} coins to retrieve your corpse."));
            return Some(CmdStatus::Ok);
        }
        if gold < cost {
            self.mob_tells(mob, ch, "I'm sorry, you can't afford the cost.");
            return Some(CmdStatus::Failed);
        }
        // The newest such corpse (C reads its object list, newest first).
        let want = format!("the corpse of {name}");
        let corpse = self
            .world
            .objs
            .iter()
            .filter(|(_, o)| o.vnum == 0 && o.item_type == item_type::CONTAINER && o.short_descr.eq_ignore_ascii_case(&want))
            .map(|(id, _)| *id)
            .max();
        let Some(corpse) = corpse else {
            self.mob_tells(mob, ch, "I'm sorry, I can't find your corpse anywhere!");
            return Some(CmdStatus::Failed);
        };
        self.world.obj_to_room(corpse, room);
        self.act("$N dumps your corpse on the ground.", ch, Some(mob), None, To::Actor, EventKind::Text);
        self.act("$N dumps $n's corpse on the ground.", ch, Some(mob), None, To::NotVictim, EventKind::Text);
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold -= cost;
            c.mark_dirty();
        }
        Some(CmdStatus::Ok)
    }

    /// `prostitute`: `list` and `buy` are answered with her price (five coins, given).
    pub(super) fn spec_prostitute(&mut self, mob: CharId, ch: CharId, cmd: &str) -> Option<CmdStatus> {
        if !matches!(cmd, "list" | "buy") {
            return None;
        }
        let c = self.world.ch(ch)?;
        if c.fighting.is_some() || c.position <= Position::Sleeping {
            return None;
        }
        let line = if cmd == "buy" {
            "I ain't for sale, just rent. Give me 5 gold for a good time."
        } else {
            "For five coins, I'll show you a good time."
        };
        self.mob_tells(mob, ch, line);
        Some(CmdStatus::Ok)
    }

    /// Dark Pawns's `mp_bribe`: gold given to a mob that answers it (the prostitute).
    pub(crate) fn dp_bribe(&mut self, mob: CharId, ch: CharId, amount: i64) {
        if self.world.profile.family != crate::worldfile::profile::Family::DarkPawns
            || self.world.ch(mob).and_then(|m| m.npc_vnum) != Some(8023)
        {
            return;
        }
        if amount >= 5 {
            self.act(
                "$n pulls $N into the shadows for a few minutes... you decide not to watch.",
                mob,
                Some(ch),
                None,
                To::NotVictim,
                EventKind::Emote,
            );
            self.act(
                "$n pulls you into the shadows, and gives you a lot more than you\nexpected for your money.",
                mob,
                Some(ch),
                None,
                To::Victim,
                EventKind::Emote,
            );
            self.send_text(ch, "A few coins lighter and quite a bit happier, you continue on your way.");
        } else {
            self.do_say(mob, "Thanks hon, but I ain't THAT cheap.");
        }
    }

    /// `chosen_guard`: the old guard lets no mortal south who is not of the chosen
    /// (no player is: pawns has no PLR_CHOSEN).
    pub(super) fn spec_chosen_guard(&mut self, guard: CharId, ch: CharId, cmd: &str) -> Option<CmdStatus> {
        if cmd != "south" || !self.world.ch(guard)?.awake() || self.world.ch(ch)?.level > MAX_LEVEL {
            return None;
        }
        self.act("$n blocks $N's way.", guard, Some(ch), None, To::NotVictim, EventKind::Text);
        self.act("$n blocks your way.", guard, Some(ch), None, To::Victim, EventKind::Text);
        self.act("$n says 'Thou shalt not pass.'", guard, None, None, To::Room, EventKind::Say);
        Some(CmdStatus::Failed)
    }
}

impl Engine {
    /// `butler` (the Servant of 19657): where a case, a cabinet and a chest stand, he
    /// tidies up to four things a turn — armour into the case, weapons into the cabinet,
    /// the rest into the chest.
    pub(super) fn spec_butler(&mut self, id: CharId) -> bool {
        let Some(c) = self.world.ch(id) else { return false };
        if !c.awake() || c.fighting.is_some() {
            return false;
        }
        let room = c.room;
        let contents = self.world.rooms[room].contents.clone();
        let named = |e: &Engine, kw: &str| {
            contents.iter().copied().find(|o| e.world.obj(*o).is_some_and(|x| crate::game::model::targeting::is_name(kw, &x.keywords)))
        };
        let (Some(case), Some(cabinet), Some(chest)) = (named(self, "case"), named(self, "cabinet"), named(self, "chest")) else {
            return false;
        };
        let mut got = 0;
        for o in contents {
            if got == 4 {
                break;
            }
            let Some(x) = self.world.obj(o) else { continue };
            if [case, cabinet, chest].contains(&o) || x.wear_flags & crate::game::model::tables::wear_flag::TAKE == 0 {
                continue;
            }
            let into = match x.item_type {
                item_type::ARMOR | 11 => case,
                item_type::WEAPON | 6 => cabinet,
                _ => chest,
            };
            got += 1;
            self.act("$n gets $p.", id, None, Some(o), To::Room, EventKind::System);
            self.world.obj_to_char(o, id);
            let where_ = self.world.obj(into).map(|x| x.short_descr.to_string()).unwrap_or_default();
            self.act(&format!("$n puts $p in {where_}."), id, None, Some(o), To::Room, EventKind::System);
            self.world.obj_to_obj(o, into);
        }
        got > 0
    }
}

//! Procedures of places, run when a command is typed near them: `guild_guard` keeps
//! other classes out of a guild, `bank` keeps coins, `moon_gate` carries who enters it;
//! and Dark Pawns's burning hut (`start_room`), where a new character's life begins.

use crate::game::commands::CmdStatus;
use crate::game::model::tables::{class, Position};
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::DIR_NAMES;

/// The class a guild's people name in their keywords (`"Le Tal cleric guildmaster"`).
pub fn class_named(keywords: &str) -> Option<u8> {
    const WORDS: &[(&str, u8)] = &[
        ("mage", class::MAGE),
        ("magic", class::MAGE),
        ("wizard", class::MAGE),
        ("sorcerer", class::MAGE),
        ("cleric", class::CLERIC),
        ("priest", class::CLERIC),
        ("templar", class::CLERIC),
        ("thief", class::THIEF),
        ("rogue", class::THIEF),
        ("warrior", class::WARRIOR),
        ("fighter", class::WARRIOR),
        ("ninja", class::NINJA),
        ("psionic", class::PSIONIC),
        ("psionist", class::PSIONIC),
    ];
    keywords.split_whitespace().find_map(|w| WORDS.iter().find(|(k, _)| w.eq_ignore_ascii_case(k)).map(|(_, c)| *c))
}

/// `deposit 10`: a positive whole number of coins.
fn coins(args: &str) -> Option<i64> {
    args.split_whitespace().next()?.parse::<i64>().ok().filter(|n| *n > 0)
}

impl Engine {
    /// `guild_guard`: a way into a guild (an exit to a room where a `guild` master
    /// stands) is closed to other classes. The guild's class is what its master's
    /// keywords name, else what the guard's do; a guild neither names is open.
    pub(super) fn spec_guild_guard(&mut self, guard: CharId, ch: CharId, cmd: &str) -> Option<CmdStatus> {
        let dir = DIR_NAMES.iter().position(|d| *d == cmd)?;
        let c = self.world.ch(ch)?;
        let g = self.world.ch(guard)?;
        if c.is_npc() || g.position <= Position::Sleeping || g.fighting.is_some() {
            return None;
        }
        let (class, room) = (c.class, g.room);
        let exit = self.world.rooms[room].proto.exits.get(dir)?.as_ref()?;
        let to = self.world.room_of_vnum(exit.to_room as u32)?;
        let master = self.world.rooms[to].people.iter().copied().find(|p| self.mob_special(*p) == Some("guild"))?;
        let guild_class = self.world.ch(master).and_then(|m| class_named(&m.keywords)).or_else(|| class_named(&g.keywords))?;
        if guild_class == class {
            return None;
        }
        self.act("$N humiliates you, and blocks your way.", ch, Some(guard), None, To::Actor, EventKind::Text);
        let heading = format!("Turned back by {}", self.pers(guard));
        if !self.note_crowd_deed(ch, &heading) {
            self.act("$N humiliates $n, and blocks $s way.", ch, Some(guard), None, To::NotVictim, EventKind::Text);
        }
        Some(CmdStatus::Failed)
    }

    /// `bank` (an ATM, a teller): `balance`, `deposit <coins>`, `withdraw <coins>`.
    pub(super) fn spec_bank(&mut self, ch: CharId, cmd: &str, args: &str) -> Option<CmdStatus> {
        if !matches!(cmd, "balance" | "deposit" | "withdraw") {
            return None;
        }
        let c = self.world.ch(ch)?;
        let (gold, bank) = (c.gold, c.pc.as_ref()?.bank_gold);
        if cmd == "balance" {
            let text =
                if bank > 0 { format!("Your current balance is {bank} coins.") } else { "You currently have no money deposited.".into() };
            self.send_text(ch, &text);
            return Some(CmdStatus::Ok);
        }
        let Some(n) = coins(args) else {
            self.send_text(ch, &format!("How much do you want to {cmd}?"));
            return Some(CmdStatus::InvalidTarget);
        };
        let (from_purse, refusal) = if cmd == "deposit" {
            (n, (gold < n).then_some("You don't have that many coins!"))
        } else {
            (-n, (bank < n).then_some("You don't have that many coins deposited!"))
        };
        if let Some(r) = refusal {
            self.send_text(ch, r);
            return Some(CmdStatus::Failed);
        }
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold -= from_purse;
            if let Some(pc) = c.pc.as_mut() {
                pc.bank_gold += from_purse;
            }
            c.mark_dirty();
        }
        self.send_text(ch, &format!("You {cmd} {n} coins."));
        self.act("$n makes a bank transaction.", ch, None, None, To::Room, EventKind::Text);
        // Money is the one thing a crash must not lose: saved now, not within the minute.
        self.save_char(ch);
        Some(CmdStatus::Ok)
    }

    /// `moon_gate`: `enter <gate>` steps through to another gate of the same make
    /// somewhere in the world (chosen by the world's dice); a gate with no twin loaded
    /// only shimmers.
    pub(super) fn spec_moon_gate(&mut self, ch: CharId, gate: ObjId, cmd: &str, args: &str) -> Option<CmdStatus> {
        if cmd != "enter" {
            return None;
        }
        let room = self.world.ch(ch)?.room;
        let g = self.world.obj(gate)?;
        let (vnum, here) = (g.vnum, matches!(g.loc, crate::game::model::world::ObjLoc::Room(_)));
        if !here || args.is_empty() || !crate::game::model::targeting::is_name(args.split_whitespace().next()?, &g.keywords) {
            return None;
        }
        let mut twins: Vec<usize> = self
            .world
            .objs
            .values()
            .filter(|o| o.vnum == vnum)
            .filter_map(|o| match o.loc {
                crate::game::model::world::ObjLoc::Room(r) if r != room => Some(r),
                _ => None,
            })
            .collect();
        twins.sort_unstable();
        twins.dedup();
        if twins.is_empty() {
            self.act("$p flickers, but nothing happens.", ch, None, Some(gate), To::Actor, EventKind::Text);
            return Some(CmdStatus::Failed);
        }
        let to = twins[self.roll(0, twins.len() as i32 - 1) as usize];
        self.act("You step into $p.", ch, None, Some(gate), To::Actor, EventKind::Text);
        self.act("$n steps into $p and vanishes.", ch, None, Some(gate), To::Room, EventKind::Leave);
        self.world.char_from_room(ch);
        self.world.char_to_room(ch, to);
        self.act("$n steps out of a shimmering portal.", ch, None, None, To::Room, EventKind::Enter);
        self.show_room(ch);
        Some(CmdStatus::Ok)
    }
}

/// Where the burning hut's vision leaves a new character, by hometown: Kir Drax'in's
/// infirmary (also for none chosen), Kir-Oshi's altar, Alaozar's.
fn first_home(hometown: u8) -> u32 {
    match hometown {
        2 => 18201,
        3 => 21202,
        _ => 8162,
    }
}

impl Engine {
    /// A player's Dark Pawns hometown (0 none).
    pub(crate) fn hometown(&self, ch: CharId) -> u8 {
        self.world.ch(ch).and_then(|c| c.pc.as_ref()).map_or(0, |p| p.prefs.hometown)
    }

    /// Dark Pawns's `start_room` (the burning hut 8099): on the first command typed there
    /// (which it takes) or on its room's pulse, each mortal there sees the vision and is
    /// carried to the temple infirmary — unless an immortal is met first.
    pub(crate) fn spec_start_room(&mut self, room: crate::game::model::world::RoomId) -> bool {
        let people = self.world.rooms[room].people.clone();
        let mut moved = false;
        for p in people {
            let Some(c) = self.world.ch(p) else { continue };
            if c.level >= crate::game::model::tables::MAX_LEVEL {
                return moved;
            }
            if c.pc.is_none() {
                continue;
            }
            let name = c.name.to_string();
            let vision = format!(
                "   Suddenly the hairs on the back of your neck stand up as if lightning had\nstruck nearby. A keen wailing fills the air, and an ethereal image appears\nbefore you.\n   '{name}, now is not your time to die,' speaks the figure.\n   'Prove your worth and I may well grant you eternal life.'\n   'Trust no one, for all here are but dark pawns above which you must \nstruggle to prove yourself.  All here strive to be a king... at any cost.'\n   The figure glows a moment, then disappears, but his voice remains.\n   'Your life begins now...' it says, then fades -- just as the world around\nyou does the same.\n"
            );
            self.send_text(p, &vision);
            let to = self.world.room_of_vnum(first_home(self.hometown(p))).unwrap_or(self.start_room);
            self.world.move_char(p, to);
            let look = self.room_text(p, false);
            self.send_text(p, &look);
            self.send_state(p);
            moved = true;
        }
        moved
    }

    /// Every 4 s, the rooms whose procedure acts on its own (the burning hut).
    pub(crate) fn room_procedures(&mut self) {
        let rooms: Vec<u32> = self.world.room_specials.iter().filter(|(_, s)| s.as_str() == "start_room").map(|(v, _)| *v).collect();
        for vnum in rooms {
            if let Some(r) = self.world.room_of_vnum(vnum).filter(|r| self.world.rooms[*r].pcs > 0) {
                self.spec_start_room(r);
            }
        }
    }
}

impl Engine {
    /// Dark Pawns's `dump` (rooms 8085, 21223): whatever lies there vanishes at any
    /// command; what is dropped there vanishes too, and pays the dropper a little
    /// (a tenth of its worth, 1 to 10 each: experience below level 3, gold after).
    /// `Some` when it took the command (a `drop`).
    pub(crate) fn spec_dump(&mut self, ch: CharId, room: crate::game::model::world::RoomId, cmd: &str, args: &str) -> Option<CmdStatus> {
        let vanish = |e: &mut Engine| -> i64 {
            let mut value = 0;
            for o in e.world.rooms[room].contents.clone() {
                if let Some(first) = e.world.rooms[room].people.first().copied() {
                    e.act("$p vanishes in a puff of smoke!", first, None, Some(o), To::Room, EventKind::System);
                    e.act("$p vanishes in a puff of smoke!", first, None, Some(o), To::Actor, EventKind::System);
                }
                value += (e.world.obj(o).map(|x| x.cost).unwrap_or(0) as i64 / 10).clamp(1, 10);
                e.world.extract_obj(o);
            }
            value
        };
        vanish(self);
        if cmd != "drop" {
            return None;
        }
        let status = self.do_drop(ch, args);
        let value = vanish(self);
        if value > 0 {
            self.send_text(ch, "You are awarded for outstanding performance.");
            self.act("$n has been awarded by the gods!", ch, None, None, To::Room, EventKind::System);
            if self.world.ch(ch).is_some_and(|c| c.level < 3) {
                self.gain_exp(ch, value);
            } else if let Some(c) = self.world.chars.get_mut(&ch) {
                c.gold += value;
            }
        }
        Some(status)
    }
}

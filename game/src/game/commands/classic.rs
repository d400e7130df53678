//! The classic commands CircleMUD 3 gives every mortal, as Dark Pawns and tbaMUD word them
//! (issue 51; each family's text from its C source): `take`, `gsay`, `hold`/`grab`,
//! `whisper`, `ask`, `report`, `levels`, `junk`, `donate`, `split`, and tbaMUD's mortal
//! `where` (Dark Pawns has none for mortals).

use super::CmdStatus;
use crate::game::model::tables::{item_type, wear_flag, MAX_LEVEL};
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;
use crate::worldfile::profile::Family;

/// Where `donate` may send a thing (a roll of 0 destroys it), by family.
fn donation_rooms(family: Family) -> &'static [u32] {
    match family {
        Family::DarkPawns => &[8053, 8053, 18204],
        _ => &[3063, 3063, 5510, 235],
    }
}

impl Engine {
    pub(super) fn family(&self) -> Family {
        self.world.profile.family
    }

    /// `hold`/`grab`: a thing held in the off hand (tbaMUD lights a light instead).
    pub fn do_grab(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let what = args.split_whitespace().next().unwrap_or("");
        if what.is_empty() {
            self.send_text(ch, "Hold what?");
            return CmdStatus::InvalidTarget;
        }
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let Some(o) = self.find_obj_in(&inv, what) else {
            let an = if what.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) { "an" } else { "a" };
            self.send_text(ch, &format!("You don't seem to have {an} {what}."));
            return CmdStatus::InvalidTarget;
        };
        let Some(obj) = self.world.obj(o) else { return CmdStatus::Failed };
        let (kind, wear) = (obj.item_type, obj.wear_flags);
        let c = self.world.ch(ch).expect("read above");
        if kind == item_type::LIGHT && self.family() != Family::DarkPawns {
            if c.equipment[0].is_some() {
                self.send_text(ch, "You're already using a light.");
                return CmdStatus::Failed;
            }
            if !self.dg_obj_allows(o, 'j', ch) {
                return CmdStatus::Failed;
            }
            self.act("You light $p and hold it.", ch, None, Some(o), To::Actor, EventKind::Text);
            self.act("$n lights $p and holds it.", ch, None, Some(o), To::Room, EventKind::System);
            self.world.equip(o, ch, 0);
            return CmdStatus::Ok;
        }
        let holdable =
            wear & wear_flag::HOLD != 0 || [item_type::WAND, item_type::STAFF, item_type::SCROLL, item_type::POTION].contains(&kind);
        if !holdable {
            self.send_text(ch, "You can't hold that.");
            return CmdStatus::Failed;
        }
        if wear & wear_flag::TAKE == 0 {
            self.act("You can't wear $p there.", ch, None, Some(o), To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        }
        if c.equipment[17].is_some() {
            self.send_text(ch, "You're already holding something.");
            return CmdStatus::Failed;
        }
        if !self.dg_obj_allows(o, 'j', ch) {
            return CmdStatus::Failed;
        }
        self.act("You grab $p.", ch, None, Some(o), To::Actor, EventKind::Text);
        self.act("$n grabs $p.", ch, None, Some(o), To::Room, EventKind::System);
        self.world.equip(o, ch, 17);
        self.recompute_armour(ch);
        CmdStatus::Ok
    }

    /// `whisper <who> <words>` and `ask <who> <words>`: to one person in the room; the
    /// others see only that it happened.
    pub fn do_whisper(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.spec_comm(ch, args, ("whisper to", "whispers to", "$n whispers something to $N.", "whisper"))
    }

    pub fn do_ask(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.spec_comm(ch, args, ("ask", "asks", "$n asks $N a question.", "ask"))
    }

    fn spec_comm(&mut self, ch: CharId, args: &str, (sing, plur, others, verb): (&str, &str, &str, &str)) -> CmdStatus {
        let (who, msg) = args.trim().split_once(char::is_whitespace).map(|(a, b)| (a, b.trim())).unwrap_or((args.trim(), ""));
        if who.is_empty() || msg.is_empty() {
            // Both servers say it with `action_sing`: "whisper to", "ask".
            let _ = verb;
            self.send_text(ch, &format!("Whom do you want to {sing}.. and what??"));
            return CmdStatus::InvalidTarget;
        }
        let Some(v) = self.find_char_room(ch, who) else {
            let none = if self.family() == Family::DarkPawns { "No-one by that name here." } else { "No one by that name here." };
            self.send_text(ch, none);
            return CmdStatus::InvalidTarget;
        };
        if v == ch {
            self.send_text(ch, "You can't get your mouth close enough to your ear...");
            return CmdStatus::InvalidTarget;
        }
        let msg = crate::game::run::clean::clean_text(msg).to_string();
        self.act(&format!("$n {plur} you, '{msg}'"), ch, Some(v), None, To::Victim, EventKind::Tell);
        let name = self.pers(v);
        self.send_text(ch, &format!("You {sing} {name}, '{msg}'"));
        self.act(others, ch, Some(v), None, To::NotVictim, EventKind::System);
        CmdStatus::Ok
    }

    /// `report`: Dark Pawns tells the room how one stands, each listener its own line;
    /// tbaMUD tells the group.
    pub fn do_report(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        if self.family() == Family::DarkPawns {
            let line = format!(
                "    [{}/{}]H [{}/{}]M [{}/{}]V [{}]Kills [0]PKs [{}]Deaths",
                c.hit, c.max_hit, c.mana, c.max_mana, c.moves, c.max_moves, c.kills, c.deaths
            );
            let room = c.room;
            self.act("$n reports:", ch, None, None, To::Room, EventKind::System);
            self.send_text(ch, "You report:");
            let listeners: Vec<CharId> = self.world.rooms[room]
                .people
                .iter()
                .copied()
                .filter(|p| self.world.ch(*p).is_some_and(|l| l.pc.is_some() && l.awake()))
                .collect();
            for l in listeners {
                self.send_text(l, &line);
            }
            return CmdStatus::Ok;
        }
        let members = self.group_members(ch);
        if members.len() <= 1 {
            self.send_text(ch, "But you are not a member of any group!");
            return CmdStatus::Failed;
        }
        let line =
            format!("[Group] {} reports: {}/{}H, {}/{}M, {}/{}V", c.name, c.hit, c.max_hit, c.mana, c.max_mana, c.moves, c.max_moves);
        for m in members {
            self.send_text(m, &line);
        }
        CmdStatus::Ok
    }

    /// `levels`: the experience each level takes, in the family's table.
    pub fn do_levels(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let class = c.class;
        let mut out = Vec::new();
        for i in 1..MAX_LEVEL {
            let (from, to) = if self.family() == Family::DarkPawns {
                use crate::game::rules::experience::dp_find_exp;
                (dp_find_exp(class, i - 1), dp_find_exp(class, i))
            } else {
                (self.exp_to_reach(class, i), self.exp_to_reach(class, i + 1))
            };
            out.push(format!("[{i:2}] {from:8}-{to:<8}    ({:6})", to - from));
        }
        self.send_text(ch, &out.join("\n"));
        CmdStatus::Ok
    }

    /// `junk <thing>` (gone, and a small reward: Dark Pawns's gods give experience, at
    /// most 10; tbaMUD's gold, a sixteenth of its worth up to 200) and `donate <thing>`
    /// (to the donation room, or now and then gone).
    pub fn do_junk(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.give_away(ch, args, false)
    }

    pub fn do_donate(&mut self, ch: CharId, args: &str) -> CmdStatus {
        self.give_away(ch, args, true)
    }

    fn give_away(&mut self, ch: CharId, args: &str, donate: bool) -> CmdStatus {
        let verb = if donate { "donate" } else { "junk" };
        let what = args.split_whitespace().next().unwrap_or("");
        if what.is_empty() {
            self.send_text(ch, &format!("What do you want to {verb}?"));
            return CmdStatus::InvalidTarget;
        }
        if what.eq_ignore_ascii_case("all") {
            let t = if donate {
                "Go do the donation room if you want to donate EVERYTHING!"
            } else {
                "Go to the dump if you want to junk EVERYTHING!"
            };
            self.send_text(ch, t);
            return CmdStatus::Failed;
        }
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let Some(o) = self.find_obj_in(&inv, what) else {
            let an = if what.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) { "an" } else { "a" };
            self.send_text(ch, &format!("You don't seem to have {an} {what}."));
            return CmdStatus::InvalidTarget;
        };
        if !self.dg_obj_allows(o, 'h', ch) {
            return CmdStatus::Failed;
        }
        // Where a donation goes: a roll of 0 destroys it, as a junk.
        let rooms = donation_rooms(self.family());
        let to = if donate {
            let roll = self.roll(0, rooms.len() as i32) as usize;
            if roll == 0 {
                None
            } else {
                self.world.room_of_vnum(rooms[roll - 1])
            }
        } else {
            None
        };
        self.act(&format!("You {verb} $p.  It vanishes in a puff of smoke!"), ch, None, Some(o), To::Actor, EventKind::Text);
        self.act(&format!("$n {verb}s $p.  It vanishes in a puff of smoke!"), ch, None, Some(o), To::Room, EventKind::System);
        if let Some(room) = to {
            self.world.obj_to_room(o, room);
            if let Some(first) = self.world.rooms[room].people.first().copied() {
                self.act("$p suddenly appears in a puff a smoke!", first, None, Some(o), To::Room, EventKind::System);
                self.act("$p suddenly appears in a puff a smoke!", first, None, Some(o), To::Actor, EventKind::System);
            }
            return CmdStatus::Ok;
        }
        let cost = self.world.obj(o).map(|x| x.cost).unwrap_or(0) as i64;
        self.world.extract_obj(o);
        if donate {
            return CmdStatus::Ok;
        }
        let value = (cost / 16).clamp(1, 200);
        self.send_text(ch, "You have been rewarded by the gods!");
        self.act("$n has been rewarded by the gods!", ch, None, None, To::Room, EventKind::System);
        if self.family() == Family::DarkPawns {
            self.gain_exp(ch, value.min(10));
        } else if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold += value;
        }
        CmdStatus::Ok
    }

    /// `split <coins>`: shared among the group members here.
    pub fn do_split(&mut self, ch: CharId, args: &str) -> CmdStatus {
        // Dark Pawns's `is_number("")` is true: nothing typed is 0 coins.
        if args.trim().is_empty() && self.family() == Family::DarkPawns {
            self.send_text(ch, "Sorry, you can't do that.");
            return CmdStatus::InvalidTarget;
        }
        let Some(amount) = args.split_whitespace().next().and_then(|a| a.parse::<i64>().ok()) else {
            self.send_text(ch, "How many coins do you wish to split with your group?");
            return CmdStatus::InvalidTarget;
        };
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        if amount <= 0 {
            self.send_text(ch, "Sorry, you can't do that.");
            return CmdStatus::Failed;
        }
        if amount > c.gold {
            self.send_text(ch, "You don't seem to have that much gold to split.");
            return CmdStatus::Failed;
        }
        let room = c.room;
        let name = c.name.to_string();
        let members: Vec<CharId> =
            self.group_members(ch).into_iter().filter(|m| self.world.ch(*m).is_some_and(|x| x.room == room && x.pc.is_some())).collect();
        if members.len() <= 1 {
            self.send_text(ch, "With whom do you wish to share your gold?");
            return CmdStatus::Failed;
        }
        let n = members.len() as i64;
        let share = amount / n;
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold -= share * (n - 1);
        }
        for m in members.into_iter().filter(|m| *m != ch) {
            if let Some(x) = self.world.chars.get_mut(&m) {
                x.gold += share;
            }
            self.send_text(m, &format!("{name} splits {amount} coins; you receive {share}."));
        }
        self.send_text(ch, &format!("You split {amount} coins among {n} members -- {share} coins each."));
        CmdStatus::Ok
    }

    /// `where` (tbaMUD and CircleMUD; Dark Pawns keeps it for immortals): the players in
    /// one's zone, or the first one by that name.
    pub fn do_where(&mut self, ch: CharId, args: &str) -> CmdStatus {
        if self.family() == Family::DarkPawns {
            self.huh(ch);
            return CmdStatus::UnknownCommand;
        }
        let Some(c) = self.world.ch(ch) else { return CmdStatus::Failed };
        let zone = self.world.rooms[c.room].proto.zone;
        let here: Vec<(String, String)> = self
            .world
            .players
            .values()
            .copied()
            .filter(|p| *p != ch)
            .filter_map(|p| self.world.ch(p))
            .filter(|p| self.world.rooms[p.room].proto.zone == zone)
            .map(|p| (p.name.to_string(), self.world.rooms[p.room].proto.name.clone()))
            .collect();
        let arg = args.trim();
        if arg.is_empty() {
            let zone_name = self.world.zones.iter().find(|z| z.proto.vnum == zone).map(|z| z.proto.name.clone()).unwrap_or_default();
            let mut lines = vec![format!("Players in {zone_name}."), "--------------------".to_string()];
            lines.extend(here.iter().map(|(n, r)| format!("{n:<20} - {r}")));
            self.send_text(ch, &lines.join("\n"));
            return CmdStatus::Ok;
        }
        match here.iter().find(|(n, _)| n.to_ascii_lowercase().starts_with(&arg.to_ascii_lowercase())) {
            Some((n, r)) => self.send_text(ch, &format!("{n:<25} - {r}")),
            None => self.send_text(ch, "Nobody around by that name."),
        }
        CmdStatus::Ok
    }
}

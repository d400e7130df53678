//! Handling things: get, drop, put, give, wear, wield, remove. Money is gold, not an item.

use super::CmdStatus;
use crate::game::model::tables::{cont, item_type, wear_flag};
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// Most a character can carry (count), before weight is considered.
const MAX_CARRIED: usize = 40;

impl Engine {
    pub(crate) fn carry_ok(&mut self, ch: CharId, obj: ObjId) -> bool {
        let Some(c) = self.world.ch(ch) else {
            return false;
        };
        let Some(o) = self.world.obj(obj) else {
            return false;
        };
        if o.wear_flags & wear_flag::TAKE == 0 {
            self.act("$p: you can't take that!", ch, None, Some(obj), To::Actor, EventKind::Text);
            return false;
        }
        if o.item_type != item_type::MONEY && c.inventory.len() >= MAX_CARRIED {
            self.act("$p: you can't carry that many items.", ch, None, Some(obj), To::Actor, EventKind::Text);
            return false;
        }
        let limit = c.str_() as i32 * 15 + 50;
        if self.world.carried_weight(ch) + self.world.obj_weight(obj) > limit {
            self.act("$p: you can't carry that much weight.", ch, None, Some(obj), To::Actor, EventKind::Text);
            return false;
        }
        true
    }

    /// Puts an object in a character's hands; coins become gold.
    fn receive(&mut self, ch: CharId, obj: ObjId) {
        if self.world.is_money(obj) {
            let amount = self.world.obj(obj).map(|o| o.values[0] as i64).unwrap_or(0);
            self.world.extract_obj(obj);
            if let Some(c) = self.world.chars.get_mut(&ch) {
                c.gold += amount;
            }
            self.send_text(ch, &format!("There were {amount} coins."));
        } else {
            self.world.obj_to_char(obj, ch);
            // The room's `onget` script, the thing now in hand.
            if let Some(room) = self.world.ch(ch).map(|c| c.room) {
                self.room_script(room, crate::script::Trigger::OnGet, ch, Some(obj), None);
            }
        }
    }

    pub fn do_get(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let words: Vec<&str> = args.split_whitespace().filter(|w| !w.eq_ignore_ascii_case("from")).collect();
        let Some(&what) = words.first() else {
            self.send_text(ch, "Get what?");
            return CmdStatus::InvalidTarget;
        };
        let Some(room) = self.world.ch(ch).map(|c| c.room) else {
            return CmdStatus::Failed;
        };
        if let Some(&from) = words.get(1) {
            let Some(container) = self.find_obj_here(ch, from) else {
                self.send_text(ch, &format!("You don't have {} {}.", article(from), from));
                return CmdStatus::InvalidTarget;
            };
            let Some(c) = self.world.obj(container) else {
                return CmdStatus::Failed;
            };
            if c.item_type != item_type::CONTAINER {
                self.act("$p is not a container.", ch, None, Some(container), To::Actor, EventKind::Text);
                return CmdStatus::Failed;
            }
            if c.values[1] & cont::CLOSED != 0 {
                self.act("$p is closed.", ch, None, Some(container), To::Actor, EventKind::Text);
                return CmdStatus::Failed;
            }
            let targets = self.objs_matching(&c.contains.clone(), what);
            if targets.is_empty() {
                self.act("There doesn't seem to be anything like that in $p.", ch, None, Some(container), To::Actor, EventKind::Text);
                return CmdStatus::InvalidTarget;
            }
            let mut got = false;
            for o in targets {
                if !self.carry_ok(ch, o) || !self.dg_obj_allows(o, 'g', ch) {
                    continue;
                }
                let short = self.world.obj(o).map(|o| o.short_descr.clone()).unwrap_or_default();
                self.act(&format!("You get {short} from $p."), ch, None, Some(container), To::Actor, EventKind::Text);
                self.act(&format!("$n gets {short} from $p."), ch, None, Some(container), To::Room, EventKind::System);
                self.receive(ch, o);
                got = true;
            }
            return if got { CmdStatus::Ok } else { CmdStatus::Failed };
        }
        let targets = self.objs_matching(&self.world.rooms[room].contents.clone(), what);
        if targets.is_empty() {
            self.send_text(ch, &format!("You don't see {} {} here.", article(what), what));
            return CmdStatus::InvalidTarget;
        }
        let mut got = false;
        for o in targets {
            // The thing's own get trigger may keep it where it is (tbaMUD).
            if !self.carry_ok(ch, o) || !self.dg_obj_allows(o, 'g', ch) {
                continue;
            }
            self.act("You get $p.", ch, None, Some(o), To::Actor, EventKind::Text);
            self.act("$n gets $p.", ch, None, Some(o), To::Room, EventKind::System);
            self.receive(ch, o);
            got = true;
        }
        if got {
            CmdStatus::Ok
        } else {
            CmdStatus::Failed
        }
    }

    pub fn do_drop(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let words: Vec<&str> = args.split_whitespace().collect();
        let Some(&what) = words.first() else {
            self.send_text(ch, "Drop what?");
            return CmdStatus::InvalidTarget;
        };
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        let room = c.room;
        if let (Ok(amount), Some(kind)) = (what.parse::<i64>(), words.get(1)) {
            if crate::game::model::targeting::is_name(kind, "coins gold") {
                if amount <= 0 || amount > c.gold {
                    self.send_text(ch, "You don't have that many coins!");
                    return CmdStatus::Failed;
                }
                if let Some(c) = self.world.chars.get_mut(&ch) {
                    c.gold -= amount;
                }
                let coins = self.money_obj(amount);
                self.world.obj_to_room(coins, room);
                self.send_text(ch, "You drop some gold.");
                self.act("$n drops some gold.", ch, None, None, To::Room, EventKind::System);
                return CmdStatus::Ok;
            }
        }
        let targets = self.objs_matching(&c.inventory.clone(), what);
        if targets.is_empty() {
            self.send_text(ch, &format!("You don't have {} {}.", article(what), what));
            return CmdStatus::InvalidTarget;
        }
        for o in targets {
            // Its drop trigger, then the room's, may refuse (tbaMUD).
            if !self.dg_obj_allows(o, 'h', ch) || !self.dg_room_allows_drop(room, ch, o) {
                continue;
            }
            self.act("You drop $p.", ch, None, Some(o), To::Actor, EventKind::Text);
            self.act("$n drops $p.", ch, None, Some(o), To::Room, EventKind::System);
            self.world.obj_to_room(o, room);
            self.room_script(room, crate::script::Trigger::OnDrop, ch, Some(o), None);
        }
        CmdStatus::Ok
    }

    pub fn do_put(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let words: Vec<&str> =
            args.split_whitespace().filter(|w| !w.eq_ignore_ascii_case("in") && !w.eq_ignore_ascii_case("into")).collect();
        if words.len() < 2 {
            self.send_text(ch, "Put what in what?");
            return CmdStatus::InvalidTarget;
        }
        let Some(container) = self.find_obj_here(ch, words[1]) else {
            self.send_text(ch, &format!("You don't see {} {} here.", article(words[1]), words[1]));
            return CmdStatus::InvalidTarget;
        };
        let Some(cobj) = self.world.obj(container) else {
            return CmdStatus::Failed;
        };
        if cobj.item_type != item_type::CONTAINER {
            self.act("$p is not a container.", ch, None, Some(container), To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        }
        if cobj.values[1] & cont::CLOSED != 0 {
            self.act("$p seems to be closed.", ch, None, Some(container), To::Actor, EventKind::Text);
            return CmdStatus::Failed;
        }
        let capacity = cobj.values[0];
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let targets: Vec<ObjId> = self.objs_matching(&inv, words[0]).into_iter().filter(|o| *o != container).collect();
        if targets.is_empty() {
            self.send_text(ch, &format!("You aren't carrying {} {}.", article(words[0]), words[0]));
            return CmdStatus::InvalidTarget;
        }
        for o in targets {
            let held: i32 = self.world.obj(container).map(|c| c.contains.iter().map(|x| self.world.obj_weight(*x)).sum()).unwrap_or(0);
            if held + self.world.obj_weight(o) > capacity {
                self.act("$p won't fit.", ch, None, Some(o), To::Actor, EventKind::Text);
                continue;
            }
            let cshort = self.world.obj(container).map(|c| c.short_descr.clone()).unwrap_or_default();
            self.act(&format!("You put $p in {cshort}."), ch, None, Some(o), To::Actor, EventKind::Text);
            self.act(&format!("$n puts $p in {cshort}."), ch, None, Some(o), To::Room, EventKind::System);
            self.world.obj_to_obj(o, container);
        }
        CmdStatus::Ok
    }

    pub fn do_give(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let words: Vec<&str> = args.split_whitespace().filter(|w| !w.eq_ignore_ascii_case("to")).collect();
        if words.len() < 2 {
            self.send_text(ch, "Give what to who?");
            return CmdStatus::InvalidTarget;
        }
        // give 10 coins bob
        if let Ok(amount) = words[0].parse::<i64>() {
            if words.len() >= 3 && crate::game::model::targeting::is_name(words[1], "coins gold") {
                let Some(v) = self.find_char_room(ch, words[2]).filter(|v| *v != ch) else {
                    self.send_text(ch, "No-one by that name here.");
                    return CmdStatus::InvalidTarget;
                };
                let gold = self.world.ch(ch).map(|c| c.gold).unwrap_or(0);
                if amount <= 0 || amount > gold {
                    self.send_text(ch, "You don't have that many coins!");
                    return CmdStatus::Failed;
                }
                self.world.chars.get_mut(&ch).unwrap().gold -= amount;
                self.world.chars.get_mut(&v).unwrap().gold += amount;
                self.send_text(ch, "Ok.");
                let coins = crate::game::send::messaging::gold_coins(amount);
                self.act(&format!("$n gives you {coins}."), ch, Some(v), None, To::Victim, EventKind::Text);
                self.act("$n gives some gold to $N.", ch, Some(v), None, To::NotVictim, EventKind::System);
                self.record_social(ch, v, "gift", &format!("{amount} gold coins"));
                // Gold to a mob is a bribe its script may take (the amount in `argument`).
                self.mob_script(v, crate::script::Trigger::Bribe, Some(ch), None, Some(amount.to_string()));
                self.dp_bribe(v, ch, amount);
                // tbaMUD's bribe trigger (`m`): after the gold has moved, the first whose
                // narg the amount reaches, with `%amount%`.
                if self.world.ch(v).is_some_and(|c| c.behaves) {
                    let ctx = crate::game::scripting::dg_run::DgCtx {
                        actor: Some(ch),
                        vars: vec![("amount", amount.to_string())],
                        ..Default::default()
                    };
                    self.dg_fire_first(crate::game::scripting::dg_run::Owner::Mob(v), 'm', ctx, |narg, _| amount >= narg as i64);
                }
                return CmdStatus::Ok;
            }
        }
        let Some(v) = self.find_char_room(ch, words[1]).filter(|v| *v != ch) else {
            self.send_text(ch, "No-one by that name here.");
            return CmdStatus::InvalidTarget;
        };
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let targets = self.objs_matching(&inv, words[0]);
        if targets.is_empty() {
            self.send_text(ch, &format!("You don't seem to have {} {}.", article(words[0]), words[0]));
            return CmdStatus::InvalidTarget;
        }
        // Dark Pawns: a mob takes things only with MOB_OKGIVE (immortals excepted).
        let uninterested = self.world.profile.family == crate::worldfile::profile::Family::DarkPawns
            && self.world.ch(v).is_some_and(|m| m.is_npc() && m.mob_flags & crate::game::model::tables::mob_flag::OKGIVE == 0)
            && self.world.ch(ch).is_some_and(|c| c.level < crate::game::model::tables::MAX_LEVEL);
        for o in targets {
            if uninterested {
                self.act("$N doesn't seem to be interested in $p.", ch, Some(v), Some(o), To::Actor, EventKind::Text);
                return CmdStatus::Failed;
            }
            if !self.carry_ok(v, o) {
                self.act("$N seems to have $S hands full.", ch, Some(v), None, To::Actor, EventKind::Text);
                continue;
            }
            // The thing's give trigger, then the receiver's, may refuse it (tbaMUD).
            if !self.dg_obj_allows(o, 'i', ch) || self.world.obj(o).is_none_or(|x| x.loc != crate::game::model::world::ObjLoc::Carried(ch))
            {
                continue;
            }
            if self.world.ch(v).is_some_and(|c| c.behaves) {
                let ctx = crate::game::scripting::dg_run::DgCtx { actor: Some(ch), object: Some(o), ..Default::default() };
                if self.dg_fire(crate::game::scripting::dg_run::Owner::Mob(v), 'j', ctx) == Some(0) {
                    continue;
                }
                if self.world.obj(o).is_none_or(|x| x.loc != crate::game::model::world::ObjLoc::Carried(ch)) {
                    continue;
                }
            }
            self.act("You give $p to $N.", ch, Some(v), Some(o), To::Actor, EventKind::Text);
            self.act("$n gives you $p.", ch, Some(v), Some(o), To::Victim, EventKind::Text);
            self.act("$n gives $p to $N.", ch, Some(v), Some(o), To::NotVictim, EventKind::System);
            self.world.obj_to_char(o, v);
            let what = self.world.obj(o).map(|x| x.short_descr.clone()).unwrap_or_default();
            self.record_social(ch, v, "gift", &what);
            self.mob_script(v, crate::script::Trigger::OnGive, Some(ch), Some(o), None);
        }
        CmdStatus::Ok
    }

    /// The slot an object is worn in, given what is already worn there.
    fn wear_slot(&self, ch: CharId, obj: ObjId) -> Result<usize, &'static str> {
        let c = self.world.ch(ch).ok_or("")?;
        let o = self.world.obj(obj).ok_or("")?;
        crate::game::model::tables::wear_slot_for(o.item_type, o.wear_flags, |s| c.equipment[s].is_none())
    }

    fn wear_one(&mut self, ch: CharId, obj: ObjId, only_wield: bool) -> bool {
        let slot = match self.wear_slot(ch, obj) {
            Ok(s) if only_wield && s != 16 => Err("You can't wield that."),
            r => r,
        };
        match slot {
            // Its wear trigger may refuse (tbaMUD; the script says why).
            Ok(_) if !self.dg_obj_allows(obj, 'j', ch) => false,
            Ok(s) => {
                let family = self.world.profile.family;
                if family == crate::worldfile::profile::Family::Circle {
                    let verb = match s {
                        16 => "wield",
                        0 | 17 => "hold",
                        _ => "wear",
                    };
                    self.act(&format!("You {verb} $p."), ch, None, Some(obj), To::Actor, EventKind::Text);
                    self.act(&format!("$n {verb}s $p."), ch, None, Some(obj), To::Room, EventKind::System);
                } else {
                    let (me, room) = wear_message(s, family == crate::worldfile::profile::Family::DarkPawns);
                    self.act(me, ch, None, Some(obj), To::Actor, EventKind::Text);
                    self.act(room, ch, None, Some(obj), To::Room, EventKind::System);
                }
                self.world.equip(obj, ch, s);
                self.recompute_armour(ch);
                true
            }
            Err(m) => {
                self.act(&format!("$p: {m}"), ch, None, Some(obj), To::Actor, EventKind::Text);
                false
            }
        }
    }

    pub fn do_wear(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let what = args.split_whitespace().next().unwrap_or("");
        if what.is_empty() {
            self.send_text(ch, "Wear what?");
            return CmdStatus::InvalidTarget;
        }
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let targets = self.objs_matching(&inv, what);
        if targets.is_empty() {
            self.send_text(ch, &format!("You don't seem to have {} {}.", article(what), what));
            return CmdStatus::InvalidTarget;
        }
        let mut any = false;
        for o in targets {
            any |= self.wear_one(ch, o, false);
        }
        if any {
            CmdStatus::Ok
        } else {
            CmdStatus::Failed
        }
    }

    pub fn do_wield(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let what = args.split_whitespace().next().unwrap_or("");
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let Some(o) = self.find_obj_in(&inv, what) else {
            self.send_text(ch, if what.is_empty() { "Wield what?" } else { "You don't seem to have that." });
            return CmdStatus::InvalidTarget;
        };
        if self.wear_one(ch, o, true) {
            CmdStatus::Ok
        } else {
            CmdStatus::Failed
        }
    }

    pub fn do_remove(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let what = args.split_whitespace().next().unwrap_or("");
        if what.is_empty() {
            self.send_text(ch, "Remove what?");
            return CmdStatus::InvalidTarget;
        }
        let worn: Vec<ObjId> = self.world.ch(ch).map(|c| c.equipment.iter().flatten().copied().collect()).unwrap_or_default();
        let targets = self.objs_matching(&worn, what);
        if targets.is_empty() {
            self.send_text(ch, &format!("You don't seem to be using {} {}.", article(what), what));
            return CmdStatus::InvalidTarget;
        }
        for o in targets {
            if !self.dg_obj_allows(o, 'l', ch) {
                continue;
            }
            self.act("You stop using $p.", ch, None, Some(o), To::Actor, EventKind::Text);
            self.act("$n stops using $p.", ch, None, Some(o), To::Room, EventKind::System);
            self.world.obj_to_char(o, ch);
        }
        self.recompute_armour(ch);
        CmdStatus::Ok
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}

/// The classic servers' `wear_message` for a slot: (to the wearer, to the room). Dark
/// Pawns puts things on legs and hands.
fn wear_message(slot: usize, dark_pawns: bool) -> (&'static str, &'static str) {
    match slot {
        0 => ("You light $p and hold it.", "$n lights $p and holds it."),
        1 => ("You slide $p on to your right ring finger.", "$n slides $p on to $s right ring finger."),
        2 => ("You slide $p on to your left ring finger.", "$n slides $p on to $s left ring finger."),
        3 | 4 => ("You wear $p around your neck.", "$n wears $p around $s neck."),
        5 => ("You wear $p on your body.", "$n wears $p on $s body."),
        6 => ("You wear $p on your head.", "$n wears $p on $s head."),
        7 if dark_pawns => ("You put $p on your legs.", "$n puts $p on $s legs."),
        7 => ("You wear $p on your legs.", "$n wears $p on $s legs."),
        8 => ("You wear $p on your feet.", "$n wears $p on $s feet."),
        9 if dark_pawns => ("You put $p on your hands.", "$n puts $p on $s hands."),
        9 => ("You wear $p on your hands.", "$n wears $p on $s hands."),
        10 => ("You wear $p on your arms.", "$n wears $p on $s arms."),
        11 => ("You start to use $p as a shield.", "$n straps $p around $s arm as a shield."),
        12 => ("You wear $p around your body.", "$n wears $p about $s body."),
        13 => ("You wear $p around your waist.", "$n wears $p around $s waist."),
        14 => ("You put $p on around your right wrist.", "$n puts $p on around $s right wrist."),
        15 => ("You put $p on around your left wrist.", "$n puts $p on around $s left wrist."),
        16 => ("You wield $p.", "$n wields $p."),
        _ => ("You grab $p.", "$n grabs $p."),
    }
}

//! Hunger and thirst, in worlds that have food: `eat`, `drink`, `fill`.
//!
//! Conditions run 0..=24 (CircleMUD's scale). Each mud hour a player's fullness and
//! thirst drop by one and drunkenness fades; at zero they are told, and they regain
//! hit points, mana and moves at a quarter of the usual pace until they eat or drink.
//! In a world without any food item nobody gets hungry.

use super::commands::CmdStatus;
use super::engine::Engine;
use super::messaging::To;
use super::output::EventKind;
use super::tables::item_type;
use super::world::{CharId, ObjId};

pub const DRUNK: usize = 0;
pub const FULL: usize = 1;
pub const THIRST: usize = 2;
/// A new character: sober, fed, not thirsty.
pub const FRESH: [i8; 3] = [0, 24, 24];
const MAX_COND: i8 = 24;

/// CircleMUD's liquids: (name, drunk, full, thirst) per unit drunk.
pub const LIQUIDS: [(&str, i8, i8, i8); 16] = [
    ("water", 0, 1, 10),
    ("beer", 3, 2, 5),
    ("wine", 5, 2, 5),
    ("ale", 2, 2, 5),
    ("dark ale", 1, 2, 5),
    ("whisky", 6, 1, 4),
    ("lemonade", 0, 1, 8),
    ("firebreather", 10, 0, 0),
    ("local speciality", 3, 3, 3),
    ("slime mold juice", 0, 4, -8),
    ("milk", 0, 3, 6),
    ("tea", 0, 1, 6),
    ("coffee", 0, 1, 6),
    ("blood", 0, 2, -1),
    ("salt water", 0, 1, -2),
    ("clear water", 0, 0, 13),
];

/// One mud hour later: `conds` changed, and what to tell the player.
pub fn hour_passes(conds: &mut [i8; 3]) -> Vec<&'static str> {
    let mut said = Vec::new();
    for (i, msg) in [(FULL, "You are hungry."), (THIRST, "You are thirsty.")] {
        if conds[i] > 0 {
            conds[i] -= 1;
            if conds[i] == 0 {
                said.push(msg);
            }
        }
    }
    if conds[DRUNK] > 0 {
        conds[DRUNK] -= 1;
        if conds[DRUNK] == 0 {
            said.push("You are now sober.");
        }
    }
    said
}

/// Regeneration is a quarter as fast on an empty stomach or a dry throat.
pub fn starving(conds: &[i8; 3]) -> bool {
    conds[FULL] == 0 || conds[THIRST] == 0
}

impl Engine {
    fn conds(&self, ch: CharId) -> Option<[i8; 3]> {
        self.world.ch(ch).and_then(|c| c.pc.as_ref()).map(|p| p.conditions)
    }

    fn change_cond(&mut self, ch: CharId, which: usize, by: i32) {
        if let Some(pc) = self.world.chars.get_mut(&ch).and_then(|c| c.pc.as_mut()) {
            pc.conditions[which] = (pc.conditions[which] as i32 + by).clamp(0, MAX_COND as i32) as i8;
            pc.dirty = true;
        }
    }

    /// Every mud hour: players get hungrier and thirstier (if the world has food).
    pub fn hunger_tick(&mut self) {
        if !self.world.uses_food {
            return;
        }
        let ids: Vec<CharId> = self.world.players.values().copied().collect();
        for id in ids {
            let said = match self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()) {
                Some(pc) if pc.link.is_some() => hour_passes(&mut pc.conditions),
                _ => continue,
            };
            for m in said {
                self.send_text(id, m);
            }
        }
    }

    pub fn do_eat(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let arg = args.split_whitespace().next().unwrap_or("");
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let Some(food) = (!arg.is_empty()).then(|| self.find_obj_in(&inv, arg)).flatten() else {
            self.send_text(ch, if arg.is_empty() { "Eat what?" } else { "You don't have that." });
            return CmdStatus::InvalidTarget;
        };
        let Some(o) = self.world.obj(food) else { return CmdStatus::Failed };
        if o.item_type != item_type::FOOD {
            self.send_text(ch, "You can't eat THAT!");
            return CmdStatus::Failed;
        }
        let fill = o.values[0];
        if self.conds(ch).is_some_and(|c| c[FULL] > 20) {
            self.send_text(ch, "You are too full to eat more!");
            return CmdStatus::Failed;
        }
        self.act("You eat $p.", ch, None, Some(food), To::Actor, EventKind::Text);
        self.act("$n eats $p.", ch, None, Some(food), To::Room, EventKind::Text);
        self.change_cond(ch, FULL, fill);
        if self.conds(ch).is_some_and(|c| c[FULL] > 20) {
            self.send_text(ch, "You are full.");
        }
        self.world.extract_obj(food);
        CmdStatus::Ok
    }

    /// A drink container or fountain: in hand first, then in the room.
    fn find_drink(&self, ch: CharId, arg: &str) -> Option<ObjId> {
        let c = self.world.ch(ch)?;
        if arg.is_empty() {
            return self.world.rooms[c.room]
                .contents
                .iter()
                .copied()
                .find(|o| self.world.obj(*o).is_some_and(|o| o.item_type == item_type::FOUNTAIN));
        }
        self.find_obj_in(&c.inventory, arg).or_else(|| self.find_obj_in(&self.world.rooms[c.room].contents, arg))
    }

    pub fn do_drink(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let arg = args.split_whitespace().next().unwrap_or("");
        let Some(src) = self.find_drink(ch, arg) else {
            self.send_text(ch, if arg.is_empty() { "Drink from what?" } else { "You can't find it!" });
            return CmdStatus::InvalidTarget;
        };
        let Some(o) = self.world.obj(src) else { return CmdStatus::Failed };
        if o.item_type != item_type::DRINKCON && o.item_type != item_type::FOUNTAIN {
            self.send_text(ch, "You can't drink from that!");
            return CmdStatus::Failed;
        }
        let fountain = o.item_type == item_type::FOUNTAIN;
        let (left, liquid) = (o.values[1], o.values[2].clamp(0, 15) as usize);
        if left <= 0 && !fountain {
            self.send_text(ch, "It's empty.");
            return CmdStatus::Failed;
        }
        let conds = self.conds(ch).unwrap_or(FRESH);
        if conds[THIRST] > 20 {
            self.send_text(ch, "Your stomach can't contain anymore!");
            return CmdStatus::Failed;
        }
        let (name, drunk, full, thirst) = LIQUIDS[liquid];
        // As many sips as it takes to quench the thirst, at most what is there.
        let want = ((MAX_COND - conds[THIRST]) as i32 / (thirst.max(1) as i32)).max(1);
        let amount = if fountain { want } else { want.min(left) };
        self.send_text(ch, &format!("You drink the {name}."));
        self.act(&format!("$n drinks {name} from $p."), ch, None, Some(src), To::Room, EventKind::Text);
        self.change_cond(ch, DRUNK, drunk as i32 * amount / 4);
        self.change_cond(ch, FULL, full as i32 * amount / 4);
        self.change_cond(ch, THIRST, thirst as i32 * amount / 4);
        if self.conds(ch).is_some_and(|c| c[THIRST] > 20) {
            self.send_text(ch, "You don't feel thirsty any more.");
        }
        if !fountain {
            if let Some(o) = self.world.objs.get_mut(&src) {
                o.values[1] = (o.values[1] - amount).max(0);
            }
        }
        CmdStatus::Ok
    }

    pub fn do_fill(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let mut words = args.split_whitespace();
        let (Some(what), from) = (words.next(), words.next().unwrap_or("")) else {
            self.send_text(ch, "Fill what?");
            return CmdStatus::InvalidTarget;
        };
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let Some(cont) = self.find_obj_in(&inv, what) else {
            self.send_text(ch, "You don't have that!");
            return CmdStatus::InvalidTarget;
        };
        if self.world.obj(cont).is_some_and(|o| o.item_type != item_type::DRINKCON) {
            self.send_text(ch, "You can't fill that!");
            return CmdStatus::Failed;
        }
        let Some(src) =
            self.find_drink(ch, from).filter(|s| *s != cont && self.world.obj(*s).is_some_and(|o| o.item_type == item_type::FOUNTAIN))
        else {
            self.send_text(ch, "There is nothing to fill it from here.");
            return CmdStatus::InvalidTarget;
        };
        let liquid = self.world.obj(src).map(|o| o.values[2]).unwrap_or(0);
        let Some(c) = self.world.obj(cont) else { return CmdStatus::Failed };
        if c.values[1] > 0 && c.values[2] != liquid {
            self.send_text(ch, "There is already another liquid in it. Pour it out first.");
            return CmdStatus::Failed;
        }
        if c.values[1] >= c.values[0] {
            self.send_text(ch, "Your container is already full.");
            return CmdStatus::Failed;
        }
        if let Some(c) = self.world.objs.get_mut(&cont) {
            c.values[1] = c.values[0];
            c.values[2] = liquid;
        }
        self.act("You fill $p.", ch, None, Some(cont), To::Actor, EventKind::Text);
        self.act("$n fills $p.", ch, None, Some(cont), To::Room, EventKind::Text);
        CmdStatus::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_make_hungry_then_thirsty_and_sober() {
        let mut c = [2, 2, 1];
        assert_eq!(hour_passes(&mut c), vec!["You are thirsty."]);
        assert_eq!(c, [1, 1, 0]);
        assert!(starving(&c));
        assert_eq!(hour_passes(&mut c), vec!["You are hungry.", "You are now sober."]);
        assert_eq!(c, [0, 0, 0]);
        assert!(hour_passes(&mut c).is_empty(), "nothing more to say at zero");
        assert!(!starving(&FRESH));
    }
}

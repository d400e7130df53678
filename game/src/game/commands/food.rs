//! Eating and drinking: `eat`, `drink`, `fill` (hunger and thirst are `food.rs`).

use super::CmdStatus;
use crate::game::model::tables::item_type;
use crate::game::model::world::CharId;
use crate::game::rules::food::{DRUNK, FRESH, FULL, LIQUIDS, MAX_COND, THIRST};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    pub fn do_eat(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let arg = args.split_whitespace().next().unwrap_or("");
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let Some(food) = (!arg.is_empty()).then(|| self.find_obj_in(&inv, arg)).flatten() else {
            if arg.is_empty() {
                self.send_text(ch, "Eat what?");
            } else if self.world.profile.family == crate::worldfile::profile::Family::Circle {
                self.send_text(ch, "You don't have that.");
            } else {
                // The classic servers: "You don't seem to have a bread."
                let an = if arg.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) { "an" } else { "a" };
                self.send_text(ch, &format!("You don't seem to have {an} {arg}."));
            }
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
        // tbaMUD's consume trigger may stop it (and say why).
        if !self.dg_consume(ch, food, "eat") {
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
        if !self.dg_consume(ch, src, "drink") {
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

//! Dark Pawns's craftsmen: Berzerker the tattooist (`tattoo1`), whose work is for life
//! (death takes it), and Ferrenx the identifier, who reads a thing for a price.

use crate::game::commands::CmdStatus;
use crate::game::model::tables::{item_type, Position};
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// The tattoos: price, what it shows, what it gives.
pub const TATTOOS: [(i64, &str, &str); 5] = [
    (30666, "of a green dragon", "grow stronger and hit harder"),
    (3000, "in a tribal design", "increase your dexterity"),
    (10000, "of a screaming eagle", "move like the wind"),
    (3000, "of a fox", "gain the intelligence of the fox"),
    (3000, "of an owl", "gain the wisdom of the owl"),
];

/// What the identifier asks for a thing worth `cost` (`val_cost`).
pub fn identify_price(cost: i32, magic: bool) -> i64 {
    let c = cost.max(0) as i64;
    let mut p = if c < 5000 { c / 10 } else { (c as f64 * 0.14) as i64 };
    if magic {
        p += c / 20;
    }
    p.max(1)
}

impl Engine {
    fn artisan_tells(&mut self, mob: CharId, ch: CharId, text: &str) {
        self.act(&format!("$n tells you, '{text}'"), mob, Some(ch), None, To::Victim, EventKind::Tell);
    }

    /// A tattoo's gifts on (`on`) or off: the dragon +2 strength (its +2 damage is
    /// `recompute_armour`'s), the tribal design +1 dexterity, the eagle 20 moves, the
    /// fox +1 intelligence, the owl +1 wisdom.
    pub(crate) fn tattoo_gifts(&mut self, ch: CharId, tattoo: u8, on: bool) {
        let Some(c) = self.world.chars.get_mut(&ch) else { return };
        let sign: i32 = if on { 1 } else { -1 };
        let bump = |v: &mut u8, by: i32| *v = (*v as i32 + by).clamp(3, 25) as u8;
        match tattoo {
            1 => bump(&mut c.abilities[0], 2 * sign),
            2 => bump(&mut c.abilities[3], sign),
            3 => c.max_moves = (c.max_moves + 20 * sign).max(1),
            4 => bump(&mut c.abilities[1], sign),
            5 => bump(&mut c.abilities[2], sign),
            _ => {}
        }
        c.mark_dirty();
    }

    /// `tattoo1`: `list` the designs, `buy <number>` one (a character has one).
    pub(super) fn spec_tattooist(&mut self, artist: CharId, ch: CharId, cmd: &str, args: &str) -> Option<CmdStatus> {
        if !matches!(cmd, "list" | "buy") || self.world.ch(ch)?.pc.is_none() {
            return None;
        }
        if cmd == "list" {
            let mut t = String::from("To buy a tattoo: BUY <number of tattoo>.\nAvailable tattoos are:");
            for (i, (price, look, gift)) in TATTOOS.iter().enumerate() {
                t.push_str(&format!("\n[{i}] - ({price}) tattoo {look} : {gift}"));
            }
            self.send_text(ch, &t);
            return Some(CmdStatus::Ok);
        }
        if self.world.ch(ch)?.pc.as_ref()?.prefs.tattoo != 0 {
            self.artisan_tells(
                artist,
                ch,
                "Your magickal center is already tattooed. Get a new arm or get rid of that tattoo then come back.",
            );
            return Some(CmdStatus::Failed);
        }
        let arg = args.trim();
        if arg.is_empty() {
            self.send_text(ch, "Buy what number?");
            return Some(CmdStatus::InvalidTarget);
        }
        let Some(n) = arg.parse::<usize>().ok().filter(|n| *n < TATTOOS.len()) else {
            self.send_text(ch, "Buy by number!");
            return Some(CmdStatus::InvalidTarget);
        };
        let price = TATTOOS[n].0;
        if self.world.ch(ch)?.gold < price {
            self.artisan_tells(artist, ch, "You look a little short on the price there, kid.");
            return Some(CmdStatus::Failed);
        }
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold -= price;
            if let Some(pc) = c.pc.as_mut() {
                pc.prefs.tattoo = n as u8 + 1;
            }
        }
        self.act("$n starts to work on $N's tattoo...", artist, Some(ch), None, To::NotVictim, EventKind::Text);
        self.act(
            "A ghastly scream is ripped from $N's lips just before $E blacks out.",
            artist,
            Some(ch),
            None,
            To::NotVictim,
            EventKind::Text,
        );
        self.act("$n starts to work on your tattoo...", artist, Some(ch), None, To::Victim, EventKind::Text);
        self.send_text(ch, "The pain is incredible; it seems to eat into your soul.\nA scream is ripped from your lips...");
        self.do_shout(ch, "Arrrrrrrrrgggggggghhhh!");
        self.send_text(ch, "You black out.");
        self.tattoo_gifts(ch, n as u8 + 1, true);
        self.recompute_armour(ch);
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.position = Position::Stunned;
        }
        self.save_char(ch);
        Some(CmdStatus::Ok)
    }

    /// `identifier`: `list` points at the sign, `value <thing>` names the price, and a
    /// thing given to him is read aloud to its owner and handed back.
    pub(super) fn spec_identifier(&mut self, sage: CharId, ch: CharId, cmd: &str, args: &str) -> Option<CmdStatus> {
        match cmd {
            "list" => {
                self.artisan_tells(sage, ch, "Just read the sign!");
                Some(CmdStatus::Ok)
            }
            "value" => {
                let arg = args.trim();
                if arg.is_empty() {
                    self.artisan_tells(sage, ch, "Value what?");
                    return Some(CmdStatus::InvalidTarget);
                }
                let inv = self.world.ch(ch)?.inventory.clone();
                let Some(o) = self.find_obj_in(&inv, arg) else {
                    self.artisan_tells(sage, ch, "You don't seem to have that.");
                    return Some(CmdStatus::InvalidTarget);
                };
                let price = self.price_of_reading(o);
                self.artisan_tells(sage, ch, &format!("I'll identify that fully for about {price} coins."));
                Some(CmdStatus::Ok)
            }
            "give" => {
                let mut w = args.split_whitespace();
                let (what, whom) = (w.next()?, w.next()?);
                if self.find_char_room(ch, whom) != Some(sage) {
                    return None;
                }
                let inv = self.world.ch(ch)?.inventory.clone();
                let o = self.find_obj_in(&inv, what)?;
                let price = self.price_of_reading(o);
                if self.world.ch(ch)?.gold < price {
                    self.artisan_tells(
                        sage,
                        ch,
                        &format!("That's a fine item, but I'll need {price} coins from you to id it.. and you're a little short.."),
                    );
                    self.artisan_tells(sage, ch, "Keep it until you get the gold.");
                    return Some(CmdStatus::Failed);
                }
                if let Some(c) = self.world.chars.get_mut(&ch) {
                    c.gold -= price;
                    c.mark_dirty();
                }
                self.act("You give $p to $N.", ch, Some(sage), Some(o), To::Actor, EventKind::Text);
                self.act("$n gives $p to $N.", ch, Some(sage), Some(o), To::NotVictim, EventKind::Text);
                self.act(
                    "$N studies it carefully, comparing it to ancient texts,\nweighing it on scales, and chanting a number of odd spells over its surface.",
                    ch,
                    Some(sage),
                    Some(o),
                    To::Room,
                    EventKind::Text,
                );
                self.act("Finally looking up, $N gives you back $p.", ch, Some(sage), Some(o), To::Actor, EventKind::Text);
                self.act("$N touches your forehead, and knowledge fills your mind.", ch, Some(sage), None, To::Actor, EventKind::Text);
                let report = self.identify_text(o);
                self.send_text(ch, &format!("\n{report}"));
                Some(CmdStatus::Ok)
            }
            _ => None,
        }
    }

    fn price_of_reading(&self, o: ObjId) -> i64 {
        self.world.obj(o).map_or(1, |x| identify_price(x.cost, x.extra_flags & (1 << 6) != 0))
    }

    /// What an identify spell tells of a thing (CircleMUD's `spell_identify` lines).
    pub(crate) fn identify_text(&self, o: ObjId) -> String {
        let Some(x) = self.world.obj(o) else { return String::new() };
        let kind = crate::game::model::tables::ITEM_TYPE_NAMES.get(x.item_type as usize).copied().unwrap_or("UNDEFINED");
        let mut t = format!(
            "You feel informed:\nObject '{}', Item type: {}\nWeight: {}, Value: {}",
            x.short_descr,
            kind.to_ascii_uppercase(),
            x.weight,
            x.cost
        );
        match x.item_type {
            item_type::WEAPON => {
                let (n, s) = (x.values[1], x.values[2]);
                t.push_str(&format!(
                    "\nDamage Dice is '{n}D{s}' for an average per-round damage of {:.1}.",
                    (s as f64 + 1.0) / 2.0 * n as f64
                ));
            }
            item_type::ARMOR => t.push_str(&format!("\nAC-apply is {}", x.values[0])),
            _ => {}
        }
        let mut shown = false;
        for (loc, m) in &x.affects {
            if *loc == 0 || *m == 0 {
                continue;
            }
            if !shown {
                t.push_str("\nCan affect you as :");
                shown = true;
            }
            let what = [
                "NONE",
                "STR",
                "DEX",
                "INT",
                "WIS",
                "CON",
                "CHA",
                "CLASS",
                "LEVEL",
                "AGE",
                "CHAR_WEIGHT",
                "CHAR_HEIGHT",
                "MAXMANA",
                "MAXHIT",
                "MAXMOVE",
                "GOLD",
                "EXP",
                "ARMOR",
                "HITROLL",
                "DAMROLL",
            ]
            .get(*loc as usize)
            .copied()
            .unwrap_or("UNDEFINED");
            t.push_str(&format!("\n   Affects: {what} By {m}"));
        }
        t
    }
}

//! Shops: `list`, `buy`, `sell`, `value` with a shopkeeper, as the world's `.shp` files
//! describe them (what the shop makes, what it buys, its margins, its hours, its rooms).
//!
//! Prices: a shop sells at `cost × buy profit`, adjusted by the buyer's charisma (2% per
//! point from 13, at most ±20%) and never below the item's base cost; it pays
//! `cost × sell profit`, adjusted the other way, and never as much as it would charge.
//! The keeper pays out of its own purse.

use crate::game::commands::CmdStatus;
use crate::game::model::tables::item_type;
use crate::game::model::targeting;
use crate::game::model::world::{CharId, ObjId};
use crate::game::run::engine::Engine;
use crate::game::send::output::EventKind;

/// Message slots of a v3.0 shop record.
pub(crate) const NO_SUCH_ITEM_KEEPER: usize = 0;
const NO_SUCH_ITEM_PLAYER: usize = 1;
const DOES_NOT_BUY: usize = 2;
pub(crate) const KEEPER_NO_CASH: usize = 3;
pub(crate) const PLAYER_NO_CASH: usize = 4;
pub(crate) const BUY_DONE: usize = 5;
pub(crate) const SELL_DONE: usize = 6;

fn cha_factor(cha: u8) -> f64 {
    (1.0 + (13.0 - cha as f64) * 0.02).clamp(0.8, 1.2)
}

/// What a buyer with charisma `cha` pays for an item of base `cost`.
pub fn buy_price(cost: i32, profit_buy: f32, cha: u8) -> i64 {
    let cost = cost.max(0) as i64;
    (((cost as f64) * profit_buy.max(0.0) as f64 * cha_factor(cha)).round() as i64).max(cost)
}

/// What the shop pays a seller with charisma `cha` (always less than it would charge).
pub fn sell_price(cost: i32, profit_buy: f32, profit_sell: f32, cha: u8) -> i64 {
    let cost = cost.max(0) as i64;
    let offer = ((cost as f64) * profit_sell.max(0.0) as f64 / cha_factor(cha)).round() as i64;
    offer.min(buy_price(cost as i32, profit_buy, cha) - 1).max(0)
}

/// Whether a buy-type line of a shop (`5`, `WEAPON`, `5 sword`) takes this object.
pub fn trades_in(line: &str, item_type: u32, keywords: &str) -> bool {
    let mut parts = line.split_whitespace();
    let Some(kind) = parts.next() else { return false };
    let kind_ok = match kind.parse::<u32>() {
        Ok(n) => n == item_type,
        Err(_) => type_name(item_type).is_some_and(|n| n.eq_ignore_ascii_case(kind)),
    };
    let keyword_ok = match parts.next() {
        Some(kw) => targeting::is_name(kw, keywords),
        None => true,
    };
    kind_ok && keyword_ok
}

fn type_name(t: u32) -> Option<&'static str> {
    const NAMES: [&str; 24] = [
        "UNDEFINED",
        "LIGHT",
        "SCROLL",
        "WAND",
        "STAFF",
        "WEAPON",
        "FIREWEAPON",
        "MISSILE",
        "TREASURE",
        "ARMOR",
        "POTION",
        "WORN",
        "OTHER",
        "TRASH",
        "TRAP",
        "CONTAINER",
        "NOTE",
        "LIQCONTAINER",
        "KEY",
        "FOOD",
        "MONEY",
        "PEN",
        "BOAT",
        "FOUNTAIN",
    ];
    NAMES.get(t as usize).copied()
}

/// The shop a character stands in: its index and its keeper (present and awake).
pub(crate) struct Here {
    pub(crate) shop: usize,
    pub(crate) keeper: CharId,
}

impl Engine {
    fn shop_here(&mut self, ch: CharId) -> Option<Here> {
        let room = self.world.ch(ch)?.room;
        let vnum = self.world.rooms[room].proto.vnum as i32;
        for (i, s) in self.world.shops.iter().enumerate() {
            if !s.rooms.is_empty() && !s.rooms.contains(&vnum) {
                continue;
            }
            let keeper = self.world.rooms[room]
                .people
                .iter()
                .copied()
                .find(|p| self.world.ch(*p).is_some_and(|c| c.npc_vnum == Some(s.keeper as u32) && c.awake()));
            if let Some(keeper) = keeper {
                return Some(Here { shop: i, keeper });
            }
        }
        None
    }

    /// A shop's own line, said by its keeper to the customer.
    pub(crate) fn keeper_says(&mut self, h: &Here, ch: CharId, slot: usize, price: Option<i64>) {
        let template = self.world.shops[h.shop].messages.get(slot).cloned().unwrap_or_default();
        let mut line = template.trim_start_matches("%s").trim().to_string();
        if let Some(p) = price {
            line = line.replacen("%d", &p.to_string(), 1);
        }
        let keeper = self.pers(h.keeper);
        self.send_event(
            ch,
            EventKind::Tell,
            format!("{} tells you, '{line}'", crate::game::send::messaging::capitalize(&keeper)),
            Some(keeper),
        );
    }

    /// Finds the shop, checks its hours, or says why not.
    pub(crate) fn open_shop(&mut self, ch: CharId) -> Result<Here, CmdStatus> {
        let Some(h) = self.shop_here(ch) else {
            self.send_text(ch, "There is no shop here.");
            return Err(CmdStatus::Failed);
        };
        let s = &self.world.shops[h.shop];
        if !crate::game::rules::clock::open_at(self.hour(), s.open1, s.close1, s.open2, s.close2) {
            let keeper = self.pers(h.keeper);
            self.send_event(
                ch,
                EventKind::Tell,
                format!("{} tells you, 'Come back later!'", crate::game::send::messaging::capitalize(&keeper)),
                Some(keeper),
            );
            return Err(CmdStatus::Failed);
        }
        Ok(h)
    }

    /// Produced items (made on demand) and the keeper's stock, one line each.
    pub(crate) fn stock(&self, h: &Here) -> Vec<Stock> {
        let mut out = Vec::new();
        for v in &self.world.shops[h.shop].producing {
            if let Some(p) = self.world.obj_protos.get(&(*v as u32)) {
                out.push(Stock { vnum: p.vnum, obj: None, keywords: p.keywords.clone(), name: p.short_descr.clone(), cost: p.cost });
            }
        }
        if let Some(k) = self.world.ch(h.keeper) {
            for o in k.inventory.iter().filter_map(|o| self.world.obj(*o)) {
                if out.iter().any(|s| s.vnum == o.vnum) {
                    continue;
                }
                out.push(Stock {
                    vnum: o.vnum,
                    obj: Some(o.id),
                    keywords: o.keywords.clone(),
                    name: o.short_descr.to_string(),
                    cost: o.cost,
                });
            }
        }
        out
    }

    pub(crate) fn cha(&self, ch: CharId) -> u8 {
        self.world.ch(ch).map(|c| c.abilities[5]).unwrap_or(13)
    }

    /// The object a `sell`/`value` names and what the shop would pay, or why not.
    pub(crate) fn appraise(&mut self, ch: CharId, h: &Here, args: &str) -> Result<(ObjId, i64), CmdStatus> {
        let arg = args.split_whitespace().next().unwrap_or("");
        let inv = self.world.ch(ch).map(|c| c.inventory.clone()).unwrap_or_default();
        let Some(obj) = (!arg.is_empty()).then(|| self.find_obj_in(&inv, arg)).flatten() else {
            self.keeper_says(h, ch, NO_SUCH_ITEM_PLAYER, None);
            return Err(CmdStatus::InvalidTarget);
        };
        let Some(o) = self.world.obj(obj) else { return Err(CmdStatus::Failed) };
        let s = &self.world.shops[h.shop];
        let ok = o.item_type != item_type::MONEY && o.cost > 0 && s.buy_types.iter().any(|l| trades_in(l, o.item_type, &o.keywords));
        if !ok {
            self.keeper_says(h, ch, DOES_NOT_BUY, None);
            return Err(CmdStatus::Failed);
        }
        let price = sell_price(o.cost, s.profit_buy, s.profit_sell, self.cha(ch));
        Ok((obj, price))
    }
}

#[derive(Clone)]
pub(crate) struct Stock {
    pub(crate) vnum: u32,
    pub(crate) obj: Option<ObjId>,
    pub(crate) keywords: String,
    pub(crate) name: String,
    pub(crate) cost: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_follow_charisma_and_never_undercut_cost() {
        assert_eq!(buy_price(100, 1.25, 13), 125);
        assert_eq!(buy_price(100, 1.25, 18), 113); // 10% off for charisma 18
        assert_eq!(buy_price(100, 1.25, 3), 150); // capped at +20%
        assert_eq!(buy_price(100, 0.5, 18), 100, "never below base cost");
        assert_eq!(buy_price(0, 2.0, 13), 0);
        assert_eq!(sell_price(100, 1.25, 0.75, 13), 75);
        assert!(sell_price(100, 1.25, 0.75, 18) > 75);
        assert!(sell_price(100, 1.0, 1.5, 18) < buy_price(100, 1.0, 18), "a shop never pays what it charges");
    }

    #[test]
    fn buy_types_by_number_name_and_keyword() {
        assert!(trades_in("5", 5, "sword"));
        assert!(trades_in("WEAPON", 5, "sword"));
        assert!(trades_in("weapon sword", 5, "long sword"));
        assert!(!trades_in("weapon axe", 5, "long sword"));
        assert!(!trades_in("10", 5, "sword"));
        assert!(!trades_in("", 5, "sword"));
    }
}

//! Shops: `list`, `buy`, `sell`, `value` (keepers, hours and prices are `shops.rs`).

use super::CmdStatus;
use crate::game::model::targeting;
use crate::game::model::world::CharId;
use crate::game::rules::shops::{buy_price, BUY_DONE, KEEPER_NO_CASH, NO_SUCH_ITEM_KEEPER, PLAYER_NO_CASH, SELL_DONE};
use crate::game::run::engine::Engine;
use crate::game::send::output::EventKind;

impl Engine {
    pub fn do_list(&mut self, ch: CharId, _args: &str) -> CmdStatus {
        let h = match self.open_shop(ch) {
            Ok(h) => h,
            Err(s) => return s,
        };
        let stock = self.stock(&h);
        if stock.is_empty() {
            self.send_text(ch, "Currently, there is nothing for sale.");
            return CmdStatus::Ok;
        }
        let (profit, cha) = (self.world.shops[h.shop].profit_buy, self.cha(ch));
        let mut text = String::from(" ##   Item                                               Cost\n");
        text.push_str("---------------------------------------------------------------\n");
        for (i, s) in stock.iter().enumerate() {
            text.push_str(&format!(
                "{:>3})  {:<50} {:>6}\n",
                i + 1,
                crate::game::send::messaging::capitalize(&s.name),
                buy_price(s.cost, profit, cha)
            ));
        }
        self.send_text(ch, text.trim_end());
        CmdStatus::Ok
    }

    pub fn do_buy(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let h = match self.open_shop(ch) {
            Ok(h) => h,
            Err(s) => return s,
        };
        let arg = args.split_whitespace().next().unwrap_or("");
        if arg.is_empty() {
            self.send_text(ch, "What do you want to buy?");
            return CmdStatus::InvalidTarget;
        }
        let stock = self.stock(&h);
        // `buy 3` is the third line of the list; `buy 2.sword` the second sword.
        let pick = match arg.strip_prefix('#').unwrap_or(arg).parse::<usize>() {
            Ok(n) if n >= 1 => stock.get(n - 1),
            _ => match targeting::parse(arg) {
                (targeting::Count::Nth(n), kw) => stock.iter().filter(|s| targeting::is_name(kw, &s.keywords)).nth(n.saturating_sub(1)),
                _ => None,
            },
        };
        let Some(item) = pick.cloned() else {
            self.keeper_says(&h, ch, NO_SUCH_ITEM_KEEPER, None);
            return CmdStatus::InvalidTarget;
        };
        let price = buy_price(item.cost, self.world.shops[h.shop].profit_buy, self.cha(ch));
        if self.world.ch(ch).is_some_and(|c| c.gold < price) {
            self.keeper_says(&h, ch, PLAYER_NO_CASH, Some(price));
            return CmdStatus::Failed;
        }
        let obj = match item.obj {
            Some(o) => o,
            None => match self.world.create_obj(item.vnum) {
                Some(o) => o,
                None => return CmdStatus::Failed,
            },
        };
        if !self.carry_ok(ch, obj) {
            if item.obj.is_none() {
                self.world.extract_obj(obj);
            }
            return CmdStatus::Failed;
        }
        self.world.obj_from(obj);
        self.world.obj_to_char(obj, ch);
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold -= price;
            c.mark_dirty();
        }
        if let Some(k) = self.world.chars.get_mut(&h.keeper) {
            k.gold += price;
        }
        self.keeper_says(&h, ch, BUY_DONE, Some(price));
        self.act("You now have $p.", ch, None, Some(obj), crate::game::send::messaging::To::Actor, EventKind::Text);
        self.act("$n buys $p.", ch, None, Some(obj), crate::game::send::messaging::To::Room, EventKind::Text);
        CmdStatus::Ok
    }

    pub fn do_sell(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let h = match self.open_shop(ch) {
            Ok(h) => h,
            Err(s) => return s,
        };
        let (obj, price) = match self.appraise(ch, &h, args) {
            Ok(x) => x,
            Err(s) => return s,
        };
        if self.world.ch(h.keeper).is_some_and(|k| k.gold < price) {
            self.keeper_says(&h, ch, KEEPER_NO_CASH, Some(price));
            return CmdStatus::Failed;
        }
        self.act("$n sells $p.", ch, None, Some(obj), crate::game::send::messaging::To::Room, EventKind::Text);
        self.world.obj_from(obj);
        self.world.obj_to_char(obj, h.keeper);
        if let Some(k) = self.world.chars.get_mut(&h.keeper) {
            k.gold -= price;
        }
        if let Some(c) = self.world.chars.get_mut(&ch) {
            c.gold += price;
            c.mark_dirty();
        }
        self.keeper_says(&h, ch, SELL_DONE, Some(price));
        CmdStatus::Ok
    }

    pub fn do_value(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let h = match self.open_shop(ch) {
            Ok(h) => h,
            Err(s) => return s,
        };
        match self.appraise(ch, &h, args) {
            Ok((obj, price)) => {
                let keeper = self.pers(h.keeper);
                let what = self.world.obj(obj).map(|o| o.short_descr.clone()).unwrap_or_default();
                let line = format!(
                    "{} tells you, 'I'll give you {} for {what}!'",
                    crate::game::send::messaging::capitalize(&keeper),
                    crate::game::send::messaging::gold_coins(price)
                );
                self.send_event(ch, EventKind::Tell, line, Some(keeper));
                CmdStatus::Ok
            }
            Err(s) => s,
        }
    }
}

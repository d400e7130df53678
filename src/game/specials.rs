//! The classic special procedures, natively (issue 17): what the world's `specials.tsv`
//! assigns, run in the mob's turn of `mob_activity` before its ordinary behaviour (as
//! CircleMUD's `mobile_activity` did; a procedure that acts ends the mob's turn).
//! Implemented so far: `fido` (devours corpses, leaving what they held) and `janitor`
//! (picks up trash). `pawns world check` lists every other assigned name as not run.

use super::engine::Engine;
use super::messaging::To;
use super::output::EventKind;
use super::tables::{item_type, wear_flag};
use super::world::CharId;

/// The most a janitor considers trash (gold): drink containers are always trash.
const TRASH_COST: i32 = 15;

impl Engine {
    /// Runs the special procedure `name` for mob `id`; whether it acted.
    pub(crate) fn run_special(&mut self, id: CharId, name: &str) -> bool {
        match name {
            "fido" => self.spec_fido(id),
            "janitor" => self.spec_janitor(id),
            _ => false,
        }
    }

    /// `fido`: a corpse in the room is devoured; what it held falls to the floor.
    fn spec_fido(&mut self, id: CharId) -> bool {
        let Some(room) = self.world.ch(id).map(|c| c.room) else { return false };
        let corpse = self.world.rooms[room].contents.iter().copied().find(|o| {
            self.world.obj(*o).is_some_and(|o| o.vnum == 0 && o.item_type == item_type::CONTAINER && o.keywords.contains("corpse"))
        });
        let Some(corpse) = corpse else { return false };
        self.act("$n savagely devours a corpse.", id, None, None, To::Room, EventKind::System);
        let held: Vec<_> = self.world.obj(corpse).map(|o| o.contains.clone()).unwrap_or_default();
        for o in held {
            self.world.obj_to_room(o, room);
        }
        self.world.extract_obj(corpse);
        true
    }

    /// `janitor`: picks up one piece of trash (something cheap it can carry, or any
    /// drink container).
    fn spec_janitor(&mut self, id: CharId) -> bool {
        let Some(room) = self.world.ch(id).map(|c| c.room) else { return false };
        let trash = self.world.rooms[room].contents.iter().copied().find(|o| {
            self.world
                .obj(*o)
                .is_some_and(|o| o.wear_flags & wear_flag::TAKE != 0 && (o.item_type == item_type::DRINKCON || o.cost < TRASH_COST))
        });
        let Some(trash) = trash else { return false };
        self.act("$n picks up some trash.", id, None, None, To::Room, EventKind::System);
        self.world.obj_to_char(trash, id);
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::game::engine::EngineConfig;
    use crate::game::tables::item_type;

    /// A mob of the starter world in its first room, given a procedure.
    fn mob_with(e: &mut crate::game::engine::Engine, special: &str) -> (crate::game::world::CharId, usize) {
        let vnum = *e.world.mob_protos.keys().min().unwrap();
        let room = 0;
        let id = {
            let mut rng = |lo: i32, hi: i32| lo.max(hi.min(lo));
            e.world.create_mob(vnum, room, &mut rng).unwrap()
        };
        e.world.char_to_room(id, room);
        e.world.mob_specials.insert(vnum, special.into());
        (id, room)
    }

    #[tokio::test]
    async fn fido_devours_corpses_and_leaves_what_they_held() {
        let (mut e, _dir) = crate::game::tests::engine(EngineConfig::default());
        let (fido, room) = mob_with(&mut e, "fido");
        assert!(!e.run_special(fido, "fido"), "no corpse, nothing to do");
        // A victim dies here: its corpse holds its gold.
        let victim = {
            let vnum = *e.world.mob_protos.keys().max().unwrap();
            let mut rng = |lo: i32, _hi: i32| lo;
            e.world.create_mob(vnum, room, &mut rng).unwrap()
        };
        e.world.char_to_room(victim, room);
        e.world.chars.get_mut(&victim).unwrap().gold = 25;
        e.die(victim, None);
        let corpse = |e: &crate::game::engine::Engine| {
            e.world.rooms[room].contents.iter().copied().find(|o| e.world.obj(*o).is_some_and(|o| o.keywords.contains("corpse")))
        };
        assert!(corpse(&e).is_some());
        assert!(e.run_special(fido, "fido"));
        assert!(corpse(&e).is_none(), "devoured");
        assert!(
            e.world.rooms[room].contents.iter().any(|o| e.world.obj(*o).is_some_and(|o| o.item_type == item_type::MONEY)),
            "the gold it held is on the floor"
        );
    }

    #[tokio::test]
    async fn a_janitor_picks_up_trash_and_leaves_treasure() {
        let (mut e, _dir) = crate::game::tests::engine(EngineConfig::default());
        let (janitor, room) = mob_with(&mut e, "janitor");
        let mut cheap = e.world.obj_protos.values().filter(|p| p.wear_flags[0] & crate::game::tables::wear_flag::TAKE != 0);
        let trash = cheap.clone().find(|p| p.cost < 15).map(|p| p.vnum).expect("something cheap in the starter world");
        let treasure = cheap.find(|p| p.cost >= 15 && p.item_type != item_type::DRINKCON).map(|p| p.vnum).expect("something dear");
        let t = e.world.create_obj(treasure).unwrap();
        e.world.obj_to_room(t, room);
        assert!(!e.run_special(janitor, "janitor"), "treasure is not trash");
        let o = e.world.create_obj(trash).unwrap();
        e.world.obj_to_room(o, room);
        assert!(e.run_special(janitor, "janitor"));
        assert!(e.world.ch(janitor).unwrap().inventory.contains(&o));
        assert!(e.world.rooms[room].contents.contains(&t));
    }
}

//! The starting kit: what a new character carries, as the world's profile says
//! (`worldfile::profile`), resolved against the world's objects once at start.

use std::collections::HashMap;

use pawns_storage::{CharacterRecord, ObjRecord};

use crate::worldfile::profile::KitItem;
use crate::worldfile::WorldProto;

use crate::game::model::tables::{wear_slot_for, WEAR_SLOTS};

#[derive(Debug, Clone, Default)]
pub struct StartKit {
    items: Vec<KitItem>,
    /// vnum → (item type, first wear-flag word) for every object the kit names that exists.
    protos: HashMap<u32, (u32, u64)>,
    /// Whose `do_start` a new character gets (Dark Pawns's and tbaMUD's; pawns's own for
    /// the others).
    family: crate::worldfile::profile::Family,
    /// Where a new character's first login begins (the world's `first_room`, when it has
    /// that room).
    first_room: Option<u32>,
}

impl StartKit {
    pub fn new(world: &WorldProto) -> StartKit {
        let mut wanted = Vec::new();
        fn walk(items: &[KitItem], out: &mut Vec<u32>) {
            for i in items {
                out.push(i.vnum);
                walk(&i.contains, out);
            }
        }
        walk(&world.profile.kit, &mut wanted);
        let protos = world.objs.iter().filter(|o| wanted.contains(&o.vnum)).map(|o| (o.vnum, (o.item_type, o.wear_flags[0]))).collect();
        let first_room = world.profile.first_room.filter(|v| world.rooms.iter().any(|r| r.vnum == *v));
        StartKit { items: world.profile.kit.clone(), protos, family: world.profile.family, first_room }
    }

    /// Where a new character's first login begins, if not the start room.
    pub fn family(&self) -> crate::worldfile::profile::Family {
        self.family
    }

    pub fn first_room(&self) -> Option<u32> {
        self.first_room
    }

    /// The kit with no first room of its own (an operator's `--start-room` rules).
    pub fn starting_at_the_start_room(mut self) -> StartKit {
        self.first_room = None;
        self
    }

    fn for_class(&self, i: &KitItem, class: u8) -> bool {
        (i.classes.is_empty() || i.classes.contains(&class)) && self.protos.contains_key(&i.vnum)
    }

    fn object(&self, i: &KitItem, class: u8) -> ObjRecord {
        ObjRecord {
            vnum: i.vnum,
            contains: i.contains.iter().filter(|c| self.for_class(c, class)).map(|c| self.object(c, class)).collect(),
        }
    }

    /// Gives a new character its kit: what can be worn is worn (first free slot its wear
    /// flags allow), the rest is carried. Objects the world lacks are left out. The
    /// world's starting wimp level comes with it.
    pub fn apply(&self, rec: &mut CharacterRecord) {
        self.apply_rolled(rec, &mut |lo, hi| (lo + hi) / 2);
    }

    /// `apply`, with the dice the original's `do_start` rolls (a classic character's
    /// first level's moves: 82 and 0–3 more).
    pub fn apply_rolled(&self, rec: &mut CharacterRecord, roll: &mut dyn FnMut(i32, i32) -> i32) {
        // The original's do_start: 1 experience and no gold; Dark Pawns adds wimpy 5 and
        // 2 practice sessions to level 1's, tbaMUD gives level 1's only.
        use crate::game::rules::practice::{sessions_per_level, starting_sessions};
        use crate::worldfile::profile::Family;
        match self.family {
            Family::DarkPawns | Family::TbaMud => {
                // Both give 100 mana and 82 moves and a level's few more.
                (rec.mana, rec.max_mana) = (100, 100);
                let moves = 82 + if matches!(rec.class, 0 | 1) { roll(0, 2) } else { roll(1, 3) };
                (rec.moves, rec.max_moves) = (moves, moves);
            }
            Family::Circle => {}
        }
        match self.family {
            Family::DarkPawns => {
                rec.wimp_level = 5;
                rec.gold = 0;
                rec.exp = rec.exp.max(1);
                rec.practices = starting_sessions(rec.class, rec.abilities[2]);
            }
            Family::TbaMud => {
                rec.gold = 0;
                rec.exp = rec.exp.max(1);
                rec.practices = sessions_per_level(rec.class, rec.abilities[2]);
            }
            Family::Circle => {}
        }
        let class = rec.class;
        for i in self.items.iter().filter(|i| self.for_class(i, class)) {
            let obj = self.object(i, class);
            let (item_type, wear) = self.protos[&i.vnum];
            let taken: Vec<u8> = rec.equipment.iter().map(|(s, _)| *s).collect();
            let slot = if i.equip { wear_slot_for(item_type, wear, |s| !taken.contains(&(s as u8))).ok() } else { None };
            match slot {
                Some(s) if s < WEAR_SLOTS.len() => rec.equipment.push((s as u8, obj)),
                _ => rec.inventory.push(obj),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldfile::{load, StarterWorld};

    #[test]
    fn the_starter_kit_is_worn_and_packed() {
        let w = load(&StarterWorld).unwrap().world;
        let kit = StartKit::new(&w);
        let mut rec = crate::game::model::character::new_record("Ann", 3, 0, 1, true, [13; 6], 8004);
        kit.apply(&mut rec);
        let worn: Vec<(&str, u32)> = rec.equipment.iter().map(|(s, o)| (WEAR_SLOTS[*s as usize], o.vnum)).collect();
        assert_eq!(worn, vec![("wield", 8010), ("body", 8020)]);
        assert_eq!(rec.inventory.len(), 1);
        assert_eq!(rec.inventory[0].vnum, 8003, "the canvas bag");
        let inside: Vec<u32> = rec.inventory[0].contains.iter().map(|o| o.vnum).collect();
        assert_eq!(inside, vec![8001, 8002], "bread and a waterskin");
    }

    /// A Dark Pawns-shaped world (nine-field type lines) with the class weapons, the
    /// tunic, the backpack, bread and lockpicks, but no water skin.
    fn dark_pawns_like() -> WorldProto {
        let mut src = crate::worldfile::MemSource::default();
        let obj = |vnum: u32, name: &str, ty: u32, wear: u32| {
            format!("#{vnum}\n{name}~\na {name}~\nA {name} lies here.~\n~\n{ty} 0 0 0 0 {wear} 0 0 0\n0 1 6 3\n1 1 100\n")
        };
        let objs = [
            obj(8036, "dagger", 5, 8193),
            obj(8037, "sword", 5, 8193),
            obj(8023, "club", 5, 8193),
            obj(8019, "tunic", 11, 9),
            obj(8038, "backpack", 15, 17417),
            obj(8010, "bread", 19, 1),
            obj(8027, "lockpicks", 12, 16385),
        ]
        .concat();
        src.0.insert("obj/index".into(), "80.obj\n$\n".into());
        src.0.insert("obj/80.obj".into(), format!("{objs}$\n"));
        src.0.insert("wld/index".into(), "80.wld\n$\n".into());
        src.0.insert("wld/80.wld".into(), "#8004\nAt the Temple Altar~\nAn altar.\n~\n80 0 0 0 0 0\nS\n$\n".into());
        let w = load(&src).unwrap();
        assert_eq!(w.world.profile.missing_kit_objects(&w.world), vec![8063, 1239], "the water skin and the obsidian are missing");
        w.world
    }

    #[test]
    fn dark_pawns_kit_by_class_without_what_the_world_lacks() {
        let w = dark_pawns_like();
        assert_eq!(w.profile.family, crate::worldfile::profile::Family::DarkPawns);
        let kit = StartKit::new(&w);
        let gear = |class: u8| {
            let mut rec = crate::game::model::character::new_record("Ann", class, 0, 1, true, [13; 6], 8004);
            kit.apply(&mut rec);
            let worn: Vec<(&str, u32)> = rec.equipment.iter().map(|(s, o)| (WEAR_SLOTS[*s as usize], o.vnum)).collect();
            let carried: Vec<(u32, Vec<u32>)> =
                rec.inventory.iter().map(|o| (o.vnum, o.contains.iter().map(|c| c.vnum).collect())).collect();
            (worn, carried)
        };
        // All carried, nothing worn, as Dark Pawns's do_start gives it.
        let carried = |v: &[(u32, Vec<u32>)]| v.iter().map(|(o, _)| *o).collect::<Vec<_>>();
        let (worn, warrior) = gear(3);
        assert!(worn.is_empty(), "nothing worn: {worn:?}");
        assert_eq!(carried(&warrior).len(), 3, "{warrior:?}");
        assert!(carried(&warrior).contains(&8037) && carried(&warrior).contains(&8019), "warrior: sword, tunic");
        assert!(warrior.contains(&(8038, vec![8010])), "the pack with bread");
        let (_, thief) = gear(2);
        assert!(carried(&thief).contains(&8036) && thief.contains(&(8038, vec![8010, 8027])), "thief: dagger and lockpicks");
        assert!(carried(&gear(1).1).contains(&8023), "cleric: the club");
    }
}

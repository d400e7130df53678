//! Dark Pawns's townsfolk as its C server has them: their sounds, the citizens' talk,
//! the mortician, the prostitute, the old guard, the janitor.

use super::*;

/// Turns of the mobs until `want` is heard (at most `turns`); what was heard.
fn turns_until(e: &mut Engine, rx: &mut tokio::sync::mpsc::Receiver<Outs>, want: &str, turns: usize) -> String {
    let mut said = String::new();
    for _ in 0..turns {
        e.mob_activity();
        said.push_str(&heard(e, rx));
        if said.contains(want) {
            break;
        }
    }
    said
}

/// The zealot (8069) exclaims "Repent sinners! The end time is near!" one turn in
/// sixteen (C's `mp_sound`, its verb from the last mark), and the beggar (8071) asks for
/// a coin or jingles his cup; pawns's Dark Pawns mobs said nothing of their own.
#[tokio::test]
async fn the_zealot_and_the_beggar_make_their_sounds() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = e.world.rooms.iter().find(|r| r.proto.vnum == 8004).map(|r| r.proto.vnum).unwrap();
    let (_pc, mut rx) = player(&mut e, "Hearer", 3, room);
    for v in [8069, 8071] {
        let m = mob_at(&mut e, v, room);
        e.world.chars.get_mut(&m).unwrap().mob_flags |= crate::game::model::tables::mob_flag::SENTINEL;
    }
    heard(&mut e, &mut rx);
    let said = turns_until(&mut e, &mut rx, "A zealot exclaims, 'Repent sinners! The end time is near!'", 400);
    assert!(said.contains("A zealot exclaims, 'Repent sinners! The end time is near!'"), "{said}");
    let said = turns_until(&mut e, &mut rx, "A beggar asks, 'Spare a coin, buddy?'", 400);
    assert!(said.contains("A beggar asks, 'Spare a coin, buddy?'") || said.contains("A beggar jingles his cup."), "{said}");
}

/// The mortician (8095): `list` names the price, level × 116; `retrieve` without the
/// gold is refused; with it, the corpse lying elsewhere is dumped at the player's feet
/// and paid for. (pawns answered "Huh?!?".)
#[tokio::test]
async fn the_mortician_fetches_your_corpse_for_a_price() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let (pc, mut rx) = player(&mut e, "Mourner", 3, 8147);
    let morgue = e.world.room_of_vnum(8147).unwrap();
    if !e.world.rooms[morgue].people.iter().any(|p| e.world.ch(*p).and_then(|c| c.npc_vnum) == Some(8095)) {
        mob_at(&mut e, 8095, 8147);
    }
    e.world.chars.get_mut(&pc).unwrap().level = 3;
    e.world.chars.get_mut(&pc).unwrap().gold = 0;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "list");
    assert!(heard(&mut e, &mut rx).contains("tells you, 'It will cost 348 coins to retrieve your corpse.'"));
    e.dispatch(pc, "retrieve");
    assert!(heard(&mut e, &mut rx).contains("I'm sorry, you can't afford the cost."));
    e.world.chars.get_mut(&pc).unwrap().gold = 500;
    e.dispatch(pc, "retrieve");
    assert!(heard(&mut e, &mut rx).contains("I'm sorry, I can't find your corpse anywhere!"));
    assert_eq!(e.world.ch(pc).unwrap().gold, 500, "nothing found, nothing paid");
    // Killed in the street: the corpse lies there.
    let street = street(&e);
    place(&mut e, pc, street);
    e.die(pc, None);
    place(&mut e, pc, 8147);
    e.world.chars.get_mut(&pc).unwrap().gold = 500;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "retrieve");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("dumps your corpse on the ground."), "{said}");
    assert!(e.world.rooms[morgue].contents.iter().any(|o| e.world.obj(*o).is_some_and(|o| &*o.short_descr == "the corpse of Mourner")));
    assert_eq!(e.world.ch(pc).unwrap().gold, 500 - 348);
}

/// The old guard (8096) blocks the way south ("Thou shalt not pass."); the prostitute
/// (8023) names her price at `list` and `buy`, and five coins given buy her company
/// (fewer are "not THAT cheap").
#[tokio::test]
async fn the_old_guard_and_the_prostitute() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let (pc, mut rx) = player(&mut e, "Walker", 3, 8144);
    mob_at(&mut e, 8096, 8144);
    let before = e.world.ch(pc).unwrap().room;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "south");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("blocks your way.") && said.contains("says 'Thou shalt not pass.'"), "{said}");
    assert_eq!(e.world.ch(pc).unwrap().room, before);

    place(&mut e, pc, 8021);
    let her = mob_at(&mut e, 8023, 8021);
    let kw = e.world.ch(her).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    e.world.chars.get_mut(&pc).unwrap().gold = 20;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "buy");
    assert!(heard(&mut e, &mut rx).contains("I ain't for sale, just rent. Give me 5 gold for a good time."));
    e.dispatch(pc, &format!("give 2 coins {kw}"));
    assert!(heard(&mut e, &mut rx).contains("'Thanks hon, but I ain't THAT cheap.'"));
    e.dispatch(pc, &format!("give 5 coins {kw}"));
    assert!(heard(&mut e, &mut rx).contains("A few coins lighter and quite a bit happier, you continue on your way."));
}

/// Dark Pawns's janitor takes the first thing it can carry, whatever it cost (C has no
/// price rule in `janitor`; CircleMUD's leaves anything worth 15 or more).
#[tokio::test]
async fn the_dark_pawns_janitor_takes_anything() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (_pc, mut rx) = player(&mut e, "Litterer", 3, room);
    let janitor = mob_at(&mut e, 8061, room);
    let mut dear: Vec<u32> = e
        .world
        .obj_protos
        .iter()
        .filter(|(_, p)| p.cost >= 100 && p.wear_flags[0] & crate::game::model::tables::wear_flag::TAKE != 0)
        .map(|(v, _)| *v)
        .collect();
    dear.sort_unstable();
    let o = e.world.create_obj(dear[0]).unwrap();
    e.world.obj_to_room(o, e.world.room_of_vnum(room).unwrap());
    heard(&mut e, &mut rx);
    assert!(e.run_special(janitor, "janitor"));
    assert!(heard(&mut e, &mut rx).contains("picks up some trash."));
    assert!(e.world.ch(janitor).unwrap().inventory.contains(&o));
}

/// A step between two city rooms costs 2 moves in Dark Pawns (its `movement_loss`:
/// city 2), 1 in tbaMUD (city 1).
#[tokio::test]
async fn a_city_step_costs_what_each_server_charges() {
    for (tba, want) in [(false, 2), (true, 1)] {
        let Some((mut e, _tmp)) = (if tba { tba_mud() } else { dark_pawns() }) else { return };
        let (from, dir) = e
            .world
            .rooms
            .iter()
            .enumerate()
            .filter(|(_, r)| r.proto.sector == 1 && r.proto.flags[0] & 1 == 0)
            .find_map(|(i, _)| (0..4).find(|d| e.world.passable(i, *d).is_some_and(|t| e.world.rooms[t].proto.sector == 1)).map(|d| (i, d)))
            .unwrap();
        let vnum = e.world.rooms[from].proto.vnum;
        let (pc, _rx) = player(&mut e, "Walker", 3, vnum);
        let before = e.world.ch(pc).unwrap().moves;
        e.dispatch(pc, crate::worldfile::DIR_NAMES[dir]);
        assert_ne!(e.world.ch(pc).unwrap().room, from, "moved");
        assert_eq!(before - e.world.ch(pc).unwrap().moves, want, "tbaMUD: {tba}");
    }
}

/// An Alaozar citizen recalls to its temple (21258) and may quit at its altar (21202)
/// with its things; a Kir Drax'in citizen there is told to go home (REALLYQUIT).
#[tokio::test]
async fn each_hometown_has_its_temple() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Pilgrim", 3, room);
    e.world.chars.get_mut(&pc).unwrap().pc.as_mut().unwrap().prefs.hometown = 3;
    e.dispatch(pc, "recall");
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 21258);
    let (kd, mut kd_rx) = player(&mut e, "Visitor", 3, 21202);
    heard(&mut e, &mut kd_rx);
    e.dispatch(kd, "quit");
    assert!(heard(&mut e, &mut kd_rx).contains("REALLYQUIT"), "not a Kir Drax'in citizen's temple");
    place(&mut e, pc, 21202);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "quit");
    assert!(!heard(&mut e, &mut rx).contains("REALLYQUIT"), "an Alaozar citizen's own altar");
}

/// The stablehand (8022) sells a horse for 300 coins ("That'll be 300 coins, treat'er
/// well"); ridden outdoors it carries its rider, paying the moves ("rides east on the
/// horse"); `dismount` lets go. tbaMUD has no riding ("Huh!?!").
#[tokio::test]
async fn a_horse_from_the_stables_carries_its_rider() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let outdoor = |e: &Engine, r: usize| e.world.rooms[r].proto.flags[0] & (crate::game::model::tables::room_flag::INDOORS | 0x10) == 0;
    let (from, dir) = (0..e.world.rooms.len())
        .filter(|r| (8000..8200).contains(&e.world.rooms[*r].proto.vnum) && outdoor(&e, *r))
        .find_map(|r| (0..4).find(|d| e.world.passable(r, *d).is_some_and(|t| outdoor(&e, t))).map(|d| (r, d)))
        .unwrap();
    let vnum = e.world.rooms[from].proto.vnum;
    let (pc, mut rx) = player(&mut e, "Rider", 3, vnum);
    mob_at(&mut e, 8022, vnum);
    e.world.chars.get_mut(&pc).unwrap().gold = 400;
    e.world.chars.get_mut(&pc).unwrap().abilities[5] = 14;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "list");
    assert!(heard(&mut e, &mut rx).contains("You can buy a horse for 300 gold coins."));
    e.dispatch(pc, "buy horse");
    assert!(heard(&mut e, &mut rx).contains("That'll be 300 coins, treat'er well"));
    assert_eq!(e.world.ch(pc).unwrap().gold, 100);
    let horse = *e.world.ch(pc).unwrap().followers.first().expect("the horse follows");
    e.dispatch(pc, "ride horse");
    assert!(heard(&mut e, &mut rx).contains("You hop on your mount."));
    let (moves, horse_moves) = (e.world.ch(pc).unwrap().moves, e.world.ch(horse).unwrap().moves);
    let (_w, mut wrx) = player(&mut e, "Watcher", 3, vnum);
    heard(&mut e, &mut wrx);
    e.dispatch(pc, crate::worldfile::DIR_NAMES[dir]);
    let to = e.world.ch(pc).unwrap().room;
    assert_ne!(to, from);
    assert_eq!(e.world.ch(horse).unwrap().room, to, "the horse under its rider");
    assert_eq!(e.world.ch(pc).unwrap().moves, moves, "the rider walks nowhere");
    assert!(e.world.ch(horse).unwrap().moves < horse_moves, "the horse pays");
    let seen = heard(&mut e, &mut wrx);
    assert!(seen.contains(&format!("Rider rides {} on", crate::worldfile::DIR_NAMES[dir])), "{seen}");
    e.dispatch(pc, "dismount");
    assert!(heard(&mut e, &mut rx).contains("You hop off your mount."));

    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Rider", 3, 3014);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "ride horse");
    assert!(heard(&mut e, &mut rx).contains("Huh!?!"));
}

/// Berzerker (8086) lists his tattoos and, paid, inks one: the scream, the black-out
/// (stunned), the gift (the owl's +1 wisdom); a second is refused; death takes it.
/// Ferrenx (8087) values a thing and, given it, reads it aloud and gives it back.
#[tokio::test]
async fn the_tattooist_and_the_identifier() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let (pc, mut rx) = player(&mut e, "Inked", 3, 8052);
    mob_at(&mut e, 8086, 8052);
    e.world.chars.get_mut(&pc).unwrap().gold = 5000;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "list");
    assert!(heard(&mut e, &mut rx).contains("[4] - (3000) tattoo of an owl : gain the wisdom of the owl"));
    e.dispatch(pc, "buy 9");
    assert!(heard(&mut e, &mut rx).contains("Buy by number!"));
    let wis = e.world.ch(pc).unwrap().abilities[2];
    e.dispatch(pc, "buy 4");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("The pain is incredible") && said.contains("You black out."), "{said}");
    let c = e.world.ch(pc).unwrap();
    assert_eq!((c.abilities[2], c.gold, c.position), (wis + 1, 2000, crate::game::model::tables::Position::Stunned));
    e.world.chars.get_mut(&pc).unwrap().position = crate::game::model::tables::Position::Standing;
    e.dispatch(pc, "buy 3");
    assert!(heard(&mut e, &mut rx).contains("Your magickal center is already tattooed."));
    e.die(pc, None);
    assert_eq!(e.world.ch(pc).unwrap().abilities[2], wis, "death takes the tattoo");

    place(&mut e, pc, 8116);
    mob_at(&mut e, 8087, 8116);
    e.world.chars.get_mut(&pc).unwrap().gold = 500;
    let sword = e.world.create_obj(8020).or_else(|| e.world.create_obj(8019)).unwrap();
    e.world.obj_to_char(sword, pc);
    let kw = e.world.obj(sword).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("value {kw}"));
    assert!(heard(&mut e, &mut rx).contains("I'll identify that fully for about"));
    e.dispatch(pc, &format!("give {kw} ferrenx"));
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("knowledge fills your mind") && said.contains("You feel informed:"), "{said}");
    assert!(e.world.ch(pc).unwrap().inventory.contains(&sword), "handed back");
}

/// The Servant (8092, `butler`) tidies a room with a case, a cabinet and a chest: a
/// sword goes into the cabinet, bread into the chest. Without all three he does
/// nothing (his own room's zone loads none, so in Dark Pawns he idles).
#[tokio::test]
async fn the_servant_puts_things_away() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (_pc, _rx) = player(&mut e, "Guest", 3, room);
    let servant = mob_at(&mut e, 8092, room);
    assert!(!e.run_special(servant, "butler"), "nothing to put things in");
    let find = |e: &Engine, kw: &str| {
        let mut v: Vec<u32> = e
            .world
            .obj_protos
            .iter()
            .filter(|(_, p)| p.item_type == 15 && crate::game::model::targeting::is_name(kw, &p.keywords) && p.wear_flags[0] & 1 == 0)
            .map(|(v, _)| *v)
            .collect();
        v.sort_unstable();
        v.first().copied()
    };
    let r = e.world.room_of_vnum(room).unwrap();
    let mut holders = Vec::new();
    for kw in ["case", "cabinet", "chest"] {
        let Some(v) = find(&e, kw) else { return };
        let o = e.world.create_obj(v).unwrap();
        e.world.obj_to_room(o, r);
        holders.push(o);
    }
    let sword = e.world.create_obj(8020).unwrap();
    e.world.obj_to_room(sword, r);
    assert!(e.run_special(servant, "butler"));
    let in_cabinet = e.world.obj(holders[1]).unwrap().contains.contains(&sword);
    assert_eq!(in_cabinet, e.world.obj(sword).unwrap().item_type == 5, "a weapon goes to the cabinet, the rest to the chest");
}

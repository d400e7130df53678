//! Dark Pawns's rules, as its C server plays them, on its world.

use tokio::sync::mpsc;

use super::*;
use crate::game::run::engine::Engine;
use crate::game::send::output::Outs;

/// A procedure runs on its own only for a mob whose file gives it MOB_SPEC: the
/// apprentice sorcerer 8081 (`magic_user`, no flag) never casts in Dark Pawns, where it
/// killed new players in pawns; the Dark Mage's apprentice 20025 (`magic_user` with the
/// flag) does.
#[tokio::test]
async fn a_procedure_runs_on_its_own_only_with_mob_spec() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Novice", 3, room);
    let apprentice = mob_at(&mut e, 8081, room);
    let said = fight(&mut e, pc, &mut rx, apprentice, 60);
    assert!(!said.contains("utters the words"), "8081 cast:\n{said}");
    e.world.extract_char(apprentice);
    let mage = mob_at(&mut e, 20025, room);
    let said = fight(&mut e, pc, &mut rx, mage, 60);
    assert!(said.contains("utters the words"), "20025 never cast:\n{}", &said[..said.len().min(2000)]);
}

/// A shopkeeper is not to be fought: Dark Pawns's keeper slaps the attacker, tells it
/// "Get out of here before I call the guards!", and the attacker hears "Ha ha... Don't
/// think so." — no blow lands, no fight begins. A guild guard (a town official) only
/// laughs it off. (In pawns the keeper fought back and killed new players.)
#[tokio::test]
async fn shopkeepers_and_officials_are_not_to_be_fought() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let shop = e.world.shops.iter().find(|s| (8000..8100).contains(&s.keeper) && s.bitvector & 1 == 0).cloned().expect("a town shop");
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Brawler", 3, room);
    let keeper = mob_at(&mut e, shop.keeper as u32, room);
    let hp = e.world.ch(keeper).unwrap().hit;
    heard(&mut e, &mut rx);
    let kw = e.world.ch(keeper).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    e.dispatch(pc, &format!("kill {kw}"));
    for _ in 0..3 {
        e.combat_round();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Ha ha... Don't think so."), "{said}");
    assert!(said.contains("You are slapped by") && said.contains("Get out of here before I call the guards!"), "{said}");
    assert_eq!(e.world.ch(keeper).unwrap().hit, hp, "no blow landed");
    assert!(e.world.ch(pc).unwrap().fighting.is_none() && e.world.ch(keeper).unwrap().fighting.is_none());

    let guard = mob_at(&mut e, 8019, room);
    e.dispatch(pc, "kill warrior");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Ha ha... Don't think so.") && !said.contains("slapped"), "{said}");
    assert!(e.world.ch(guard).unwrap().fighting.is_none());
}

/// Dark Pawns's newbie protection: once a player of level 5 or less is stunned, the mob
/// stops fighting it (C's `damage()`), so a new player knocked down is not killed in
/// the same fight.
#[tokio::test]
async fn a_mob_stops_fighting_a_stunned_newcomer() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, _rx) = player(&mut e, "Newling", 3, room);
    let brute = mob_at(&mut e, 8080, room);
    e.world.chars.get_mut(&brute).unwrap().hit = 50_000;
    e.start_fight(brute, pc);
    let mut stunned = false;
    for _ in 0..200 {
        e.world.chars.get_mut(&pc).unwrap().hit = e.world.ch(pc).unwrap().hit.min(3);
        e.combat_round();
        let p = e.world.ch(pc).unwrap();
        if p.position <= crate::game::model::tables::Position::Stunned {
            stunned = true;
            break;
        }
    }
    assert!(stunned, "the brute never knocked the player down");
    assert!(e.world.ch(brute).unwrap().fighting.is_none(), "the mob stopped fighting the newcomer");
    for _ in 0..10 {
        e.combat_round();
    }
    assert!(e.world.ch(pc).is_some_and(|p| p.position > crate::game::model::tables::Position::Dead && p.deaths == 0), "not killed");
}

/// `wimpy`: Dark Pawns starts a character at 5 hit points; the command's words are the
/// original's; below the level a fighting player flees by itself.
#[tokio::test]
async fn wimpy_starts_at_five_and_flees_below_it() {
    let Some(dir) = darkpawns() else { return };
    let proto = crate::worldfile::load_dir(&dir).unwrap().world;
    let mut rec = crate::game::model::character::new_record("Timid", 3, 0, 1, true, [13; 6], 8004);
    crate::game::model::kit::StartKit::new(&proto).apply(&mut rec);
    assert_eq!((rec.wimp_level, rec.gold), (5, 0), "Dark Pawns's do_start: wimpy 5, no gold");
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Timid", 3, room);
    {
        let c = e.world.chars.get_mut(&pc).unwrap();
        (c.max_hit, c.hit) = (30, 30);
    }
    for (line, want) in [
        ("wimpy", "At the moment, you're not a wimp.  (sure, sure...)"),
        ("wimpy 11", "You can't set your wimp level above one third your hit points."),
        ("wimpy 40", "That doesn't make much sense, now does it?"),
        ("wimpy x", "Specify at how many hit points you want to wimp out at.  (0 to disable)"),
        ("wimpy 8", "Okay, you'll wimp out if you drop below 8 hit points."),
        ("wimpy", "Your current wimp level is 8 hit points."),
    ] {
        e.dispatch(pc, line);
        let said = heard(&mut e, &mut rx);
        assert!(said.contains(want), "{line}: {said}");
    }
    let mob = mob_at(&mut e, 8080, room);
    e.world.chars.get_mut(&mob).unwrap().hit = 50_000;
    e.start_fight(pc, mob);
    e.world.chars.get_mut(&pc).unwrap().hit = 9;
    let mut said = String::new();
    for _ in 0..20 {
        e.combat_round();
        said.push_str(&heard(&mut e, &mut rx));
        if said.contains("You wimp out") {
            break;
        }
    }
    assert!(said.contains("You wimp out, and attempt to flee!"), "{said}");
    assert!(said.contains("You flee head over heels.") || said.contains("PANIC!"), "{said}");
}

/// Dark Pawns's experience: a level-1 character killing a level-1 mob gains the mob's
/// whole experience (pawns gave a third) plus the level × damage of each blow while under
/// level 2; level 2 is reached past 1,500; a level-20 killer of the same mob keeps 30 %.
#[tokio::test]
async fn experience_is_dark_pawns_s() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Learner", 3, room);
    assert_eq!(e.exp_to_reach(3, 2), 1501, "past find_exp(1) = 1500");
    let zealot = mob_at(&mut e, 8069, room);
    let worth = e.world.ch(zealot).unwrap().exp;
    assert!(worth > 0);
    e.world.chars.get_mut(&zealot).unwrap().hit = 5;
    e.world.chars.get_mut(&pc).unwrap().exp = 0;
    e.damage(pc, zealot, 30, 0);
    let said = heard(&mut e, &mut rx);
    let want = 30 + worth.min(100_000);
    assert_eq!(e.world.ch(pc).unwrap().exp, want.min(1500 + 1), "{said}");
    assert!(said.contains(&format!("You receive {} experience points.", worth)), "{said}");

    let (vet, mut rx) = player(&mut e, "Veteran", 3, room);
    e.world.chars.get_mut(&vet).unwrap().level = 20;
    let before = e.world.ch(vet).unwrap().exp;
    let zealot = mob_at(&mut e, 8069, room);
    e.world.chars.get_mut(&zealot).unwrap().hit = 5;
    e.damage(vet, zealot, 30, 0);
    let said = heard(&mut e, &mut rx);
    let share = crate::game::rules::experience::dp_share(20, 1, worth, false);
    assert_eq!(share, ((worth as f64) * 0.3) as i64, "17 over after the slack: 30 %");
    assert_eq!(e.world.ch(vet).unwrap().exp - before, share, "no blow experience at level 20: {said}");
}

/// Dark Pawns's own `recall`: a character of level 5 or less is carried to the temple
/// (not fighting, not from a room barring it); above level 5 it is refused. (pawns's
/// telnet memory layer answered "a query is empty (bad_request)" instead.)
#[tokio::test]
async fn recall_carries_a_newcomer_to_the_temple() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Lost", 3, room);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "recall");
    let said = heard(&mut e, &mut rx);
    let at = e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum;
    assert_eq!(Some(at), e.world.profile.start_room, "{said}");
    place(&mut e, pc, room);
    e.world.chars.get_mut(&pc).unwrap().level = 6;
    e.dispatch(pc, "recall");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("This command is not available for someone of your experience!"), "{said}");
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, room);
}

/// Dark Pawns's practice: a warrior of intelligence 13 practising kick twice at its
/// guildmaster goes 25 % then 50 % — "(average)", as the C server lists it (pawns gave
/// 6 % a session); a new warrior of wisdom 12 starts with 4 sessions.
#[tokio::test]
async fn practice_is_dark_pawns_s() {
    let Some(dir) = darkpawns() else { return };
    let proto = crate::worldfile::load_dir(&dir).unwrap().world;
    let mut rec = crate::game::model::character::new_record("Pupil", 3, 0, 1, true, [13, 13, 12, 13, 13, 13], 8004);
    crate::game::model::kit::StartKit::new(&proto).apply(&mut rec);
    assert_eq!(rec.practices, 4, "2 and level 1's (wisdom 12: 2)");
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Pupil", 3, room);
    e.world.chars.get_mut(&pc).unwrap().abilities[1] = 13;
    mob_at(&mut e, 8012, room);
    heard(&mut e, &mut rx);
    for want in [25u8, 50] {
        e.dispatch(pc, "practice kick");
        let said = heard(&mut e, &mut rx);
        assert!(said.contains("You practice for a while..."), "{said}");
        assert_eq!(e.world.ch(pc).unwrap().pc.as_ref().unwrap().skills.get("kick").copied(), Some(want), "{said}");
    }
    e.dispatch(pc, "practice");
    let said = heard(&mut e, &mut rx);
    assert!(said.lines().any(|l| l.starts_with("kick") && l.ends_with("(average)")), "{said}");
}

/// Dark Pawns's law: a player who attacks a city guard is not killed but jailed — beaten
/// to 1 hit point and carted to the holding cell 8118 with everything it carried; the
/// jail guard keeps it in; when its time (half its level in mud hours, at least 2) is
/// up the cell throws it out to 8117.
#[tokio::test]
async fn attacking_a_guard_gets_you_jailed_not_killed() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Rowdy", 3, room);
    let carried = e.world.ch(pc).unwrap().inventory.len() + e.world.ch(pc).unwrap().equipment.iter().flatten().count();
    let guard = mob_at(&mut e, 8027, room);
    e.dispatch(pc, "kill guard");
    let mut said = String::new();
    for _ in 0..30 {
        e.combat_round();
        said.push_str(&heard(&mut e, &mut rx));
        if said.contains("carts you off to jail") {
            break;
        }
    }
    assert!(said.contains("grabs you by the collar and quickly beats you into submission."), "{said}");
    assert!(said.contains("Jerking you to your feet, he carts you off to jail..."), "{said}");
    let p = e.world.ch(pc).unwrap();
    assert_eq!(e.world.rooms[p.room].proto.vnum, 8118, "the holding cell");
    assert_eq!((p.hit, p.deaths), (1, 0), "beaten, not killed");
    assert_eq!(p.inventory.len() + p.equipment.iter().flatten().count(), carried, "gear kept");
    assert_eq!(p.pc.as_ref().unwrap().jail_timer, 2);
    assert!(e.world.ch(guard).unwrap().fighting.is_none());

    // The jail guard keeps the door.
    mob_at(&mut e, 8088, 8118);
    e.dispatch(pc, "north");
    assert!(heard(&mut e, &mut rx).contains("The guard stops you from leaving with one flabby hand."));
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 8118);
    // Two mud hours, then the cell's procedure throws it out.
    e.jail_tick();
    e.jail_release();
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 8118, "an hour left");
    e.jail_tick();
    e.jail_release();
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Time's up, scum!") && said.contains("The guard throws you out of the cell!"), "{said}");
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 8117);
}

/// Dark Pawns's quitting: no `rent` anywhere; `quit` outside the temple asks for
/// REALLYQUIT (with the RECALL hint for a newcomer) and changes nothing; `reallyquit`
/// there leaves everything carried on the floor; `quit` at the altar keeps it all.
#[tokio::test]
async fn quitting_keeps_your_things_only_in_the_temple() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Leaver", 3, room);
    let sword = e.world.create_obj(8037).unwrap();
    e.world.obj_to_char(sword, pc);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "rent");
    assert!(heard(&mut e, &mut rx).contains("Sorry, but you cannot do that here!"));
    e.dispatch(pc, "quit");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Type REALLYQUIT to quit the game and lose your eq."), "{said}");
    assert!(said.contains("Return to the temple and QUIT to leave the game and keep your equipment."), "{said}");
    assert!(said.contains("You can type RECALL to return to your temple."), "{said}");
    assert!(e.world.ch(pc).is_some(), "still here");
    e.dispatch(pc, "reallyquit");
    assert!(e.world.ch(pc).is_none(), "gone");
    let r = e.world.room_of_vnum(room).unwrap();
    assert!(e.world.rooms[r].contents.contains(&sword), "the sword is left on the floor");

    let (pc, _rx) = player(&mut e, "Keeper", 3, 8004);
    let sword = e.world.create_obj(8037).unwrap();
    e.world.obj_to_char(sword, pc);
    e.dispatch(pc, "quit");
    assert!(e.world.ch(pc).is_none(), "quit at the altar");
    let altar = e.world.room_of_vnum(8004).unwrap();
    assert!(!e.world.rooms[altar].contents.contains(&sword), "taken along");
}

/// CircleMUD's mortal commands pawns lacked ("Huh?!?"), as Dark Pawns words them: `take`,
/// `hold`, `whisper`, `ask`, `report`, `levels`, `junk`, `donate`, `split`, `gsay`; its
/// `say` verbs by the last mark; and no `where` for mortals.
#[tokio::test]
async fn the_classic_commands_as_dark_pawns_words_them() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Olda", 3, room);
    let (pal, mut prx) = player(&mut e, "Brin", 3, room);
    heard(&mut e, &mut rx);
    heard(&mut e, &mut prx);
    let said = |e: &mut Engine, rx: &mut mpsc::Receiver<Outs>, line: &str| {
        e.dispatch(pc, line);
        heard(e, rx)
    };
    let bread = e.world.create_obj(8010).unwrap();
    let r = e.world.room_of_vnum(room).unwrap();
    e.world.obj_to_room(bread, r);
    assert!(said(&mut e, &mut rx, "take bread").contains("You get"));
    assert!(said(&mut e, &mut rx, "hold").contains("Hold what?"));
    assert!(said(&mut e, &mut rx, "whisper brin the gate is open").contains("You whisper to Brin, 'the gate is open'"));
    assert!(heard(&mut e, &mut prx).contains("Olda whispers to you, 'the gate is open'"));
    assert!(said(&mut e, &mut rx, "ask").contains("Whom do you want to ask.. and what??"));
    let r = said(&mut e, &mut rx, "report");
    assert!(r.contains("You report:") && r.contains("H [") && r.contains("]Kills [0]PKs"), "{r}");
    let l = said(&mut e, &mut rx, "levels");
    assert!(l.lines().next().unwrap().starts_with("[ 1]        1-1500    "), "{l}");
    let j = said(&mut e, &mut rx, "junk bread");
    assert!(
        j.contains("You junk") && j.contains("It vanishes in a puff of smoke!") && j.contains("You have been rewarded by the gods!"),
        "{j}"
    );
    assert!(said(&mut e, &mut rx, "donate").contains("What do you want to donate?"));
    e.world.chars.get_mut(&pc).unwrap().gold = 100;
    assert!(said(&mut e, &mut rx, "split 100").contains("With whom do you wish to share your gold?"));
    assert!(said(&mut e, &mut rx, "where").contains("Huh?!?"), "immortals only in Dark Pawns");
    assert!(said(&mut e, &mut rx, "say Is the gate open?").contains("You ask 'Is the gate open?'"));
    assert!(heard(&mut e, &mut prx).contains("Olda asks, 'Is the gate open?'"));
    assert!(said(&mut e, &mut rx, "say Run!").contains("You exclaim 'Run!'"));
    assert!(said(&mut e, &mut rx, "say hello").contains("You say 'hello'"));
    let _ = pal;
}

/// A new Dark Pawns character begins as its C server begins it: in the burning hut
/// (8099) with its kit carried, not worn; its first command brings the vision and
/// carries it to the temple infirmary (8162).
#[tokio::test]
async fn a_new_life_begins_in_the_burning_hut() {
    let Some(dir) = darkpawns() else { return };
    let proto = crate::worldfile::load_dir(&dir).unwrap().world;
    let kit = crate::game::model::kit::StartKit::new(&proto);
    assert_eq!(kit.first_room(), Some(8099));
    let mut rec = crate::game::model::character::new_record("Ashes", 3, 0, 1, true, [13; 6], kit.first_room().unwrap());
    kit.apply(&mut rec);
    assert!(rec.equipment.is_empty() && rec.inventory.len() == 3, "carried: {:?}", rec.inventory);
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let (link, mut rx) = crate::game::tests::link(99, 1 << 16);
    let pc = e.enter(rec, link, None).char_id;
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 8099);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "look");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("'Ashes, now is not your time to die,' speaks the figure."), "{said}");
    assert!(said.contains("'Your life begins now...' it says"), "{said}");
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 8162, "the temple infirmary");
}

/// Dark Pawns's town as its C runs it: the dump (8085) swallows what is dropped there and
/// rewards the dropper ("You are awarded for outstanding performance."); someone walking
/// in is seen to "arrive from the <side>" (not "has arrived").
#[tokio::test]
async fn the_dump_rewards_and_arrivals_say_whence() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let (pc, mut rx) = player(&mut e, "Tidy", 3, 8085);
    let bread = e.world.create_obj(8010).unwrap();
    e.world.obj_to_char(bread, pc);
    let exp = e.world.ch(pc).unwrap().exp;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "drop bread");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("vanishes in a puff of smoke!") && said.contains("You are awarded for outstanding performance."), "{said}");
    assert!(e.world.obj(bread).is_none() && e.world.ch(pc).unwrap().exp > exp);

    // Arrivals: a neighbour walks in from a known side.
    let here = e.world.room_of_vnum(8004).unwrap();
    let (dir, from) = (0..4)
        .find_map(|d| {
            let to = e.world.passable(here, d)?;
            let back = [2, 3, 0, 1][d];
            (e.world.passable(to, back) == Some(here)).then_some((back, to))
        })
        .expect("a side of the altar to come from");
    let (watcher, mut wrx) = player(&mut e, "Watcher", 3, 8004);
    let from_vnum = e.world.rooms[from].proto.vnum;
    let (walker, _x) = player(&mut e, "Walker", 3, from_vnum);
    heard(&mut e, &mut wrx);
    e.dispatch(walker, crate::worldfile::DIR_NAMES[dir]);
    let side = crate::worldfile::DIR_NAMES[[2, 3, 0, 1][dir]];
    let said = heard(&mut e, &mut wrx);
    assert!(said.contains(&format!("Walker arrives from the {side}.")), "{said}");
    let _ = watcher;
}

//! More of tbaMUD's DG Scripts, each on the trigger of its world that shows it: door,
//! hit-percent, consume, cast, leave (a thing's) and time triggers; `detach`,
//! `dg_cast`, `%at%`, `otransform`, `wait until`. (pawns ran none of these.)

use super::*;

/// The rooms whose file gives them trigger `t`.
fn rooms_with(e: &Engine, t: u32) -> Vec<u32> {
    let mut v: Vec<u32> = e.world.rooms.iter().filter(|r| r.proto.triggers.contains(&t)).map(|r| r.proto.vnum).collect();
    v.sort_unstable();
    v
}

/// Room 164's door trigger (59): the first `open` is answered with a bucket of water
/// and the door stays shut; the trigger detaches itself, so the next `open` opens.
#[tokio::test]
async fn the_bucket_of_water_falls_once() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let room = rooms_with(&e, 59)[0];
    let (pc, mut rx) = player(&mut e, "Opener", 3, room);
    let r = e.world.room_of_vnum(room).unwrap();
    let dir = (0..6).find(|d| e.world.rooms[r].proto.exits[*d].as_ref().is_some_and(|x| x.door_flags & 1 != 0)).unwrap();
    e.set_door(r, dir, true, false);
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("open door {}", crate::worldfile::DIR_NAMES[dir]));
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Splash!!") && said.contains("The door slams shut again."), "{said}");
    assert!(e.world.rooms[r].doors[dir].closed, "the door stays shut");
    e.dispatch(pc, &format!("open door {}", crate::worldfile::DIR_NAMES[dir]));
    let said = heard(&mut e, &mut rx);
    assert!(!said.contains("Splash!!") && !e.world.rooms[r].doors[dir].closed, "detached: {said}");
}

/// The stateswoman (178, trigger 71 "hit percent 50") shouts for help once her hit
/// points fall to half, then detaches the trigger.
#[tokio::test]
async fn the_stateswoman_shouts_for_help_at_half() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Mugger", 3, 3014);
    let her = mob_at(&mut e, 178, 3014);
    heard(&mut e, &mut rx);
    e.start_fight(pc, her);
    {
        let c = e.world.chars.get_mut(&her).unwrap();
        c.hit = c.max_hit / 2 - 1;
    }
    let pc_hp = e.world.ch(pc).unwrap().max_hit;
    for _ in 0..3 {
        e.world.chars.get_mut(&pc).unwrap().hit = pc_hp;
        e.world.chars.get_mut(&her).unwrap().hit = e.world.ch(her).unwrap().max_hit / 2 - 1;
        e.hit(pc, her);
    }
    let said = heard(&mut e, &mut rx);
    assert_eq!(said.matches("shouts 'HELP! I'm under ATTACK! HELP!'").count(), 1, "{said}");
}

/// Eating the beggin strips (164, consume trigger): "You gag in disgust…", nothing is
/// eaten (`return 0`), and the script goes on past its `return` to purge them.
/// Drinking from the Pool of Eternal Life (26400) `dg_cast`s cure light from the pool.
#[tokio::test]
async fn consume_triggers_and_a_pool_that_casts() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Taster", 3, 3014);
    e.world.chars.get_mut(&pc).unwrap().pc.as_mut().unwrap().conditions = [0, 0, 0];
    let strips = e.world.create_obj(164).unwrap();
    e.world.obj_to_char(strips, pc);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "eat strips");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("You gag in disgust at the foul taste of the dog treats.") && !said.contains("You eat"), "{said}");
    assert!(e.world.obj(strips).is_none(), "purged after the return");
    let pool = e.world.create_obj(26400).unwrap();
    e.world.obj_to_room(pool, e.world.room_of_vnum(3014).unwrap());
    {
        let c = e.world.chars.get_mut(&pc).unwrap();
        (c.max_hit, c.hit) = (100, 10);
    }
    e.dispatch(pc, "drink pool");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("The water seems to sparkle refreshingly as you drink.") && said.contains("You feel better."), "{said}");
    assert!(e.world.ch(pc).unwrap().hit > 10);
}

/// The Orb of Sanctum's room (134, cast trigger 57): a spell cast there fizzles — the
/// words are said, no mana is spent, nothing happens.
#[tokio::test]
async fn magic_fizzles_in_the_orb_of_sanctum() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let room = rooms_with(&e, 57)[0];
    let (pc, mut rx) = player(&mut e, "Caster", 1, room);
    {
        let c = e.world.chars.get_mut(&pc).unwrap();
        c.pc.as_mut().unwrap().skills.insert("cure light".into(), 95);
        (c.mana, c.hit) = (100, 5);
    }
    heard(&mut e, &mut rx);
    e.dispatch(pc, "cast 'cure light' self");
    let said = heard(&mut e, &mut rx);
    let c = e.world.ch(pc).unwrap();
    if said.contains("You lost your concentration!") {
        return;
    }
    assert!(said.contains("Your magic fizzles out and dies."), "{said}");
    assert_eq!((c.mana, c.hit), (100, 5), "no mana spent, no healing");
}

/// The shackles (89, a thing's leave trigger): walking off in them ends flat on one's
/// face, sitting, going nowhere.
#[tokio::test]
async fn the_shackles_hold() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Prisoner", 3, 90);
    let r = e.world.room_of_vnum(90).unwrap();
    if !e.world.rooms[r].contents.iter().any(|o| e.world.obj(*o).is_some_and(|o| o.vnum == 89)) {
        let s = e.world.create_obj(89).unwrap();
        e.world.obj_to_room(s, r);
    }
    let dir = (0..6).find(|d| e.world.passable(r, *d).is_some()).unwrap();
    heard(&mut e, &mut rx);
    e.dispatch(pc, crate::worldfile::DIR_NAMES[dir]);
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("but simply reach the end of your chain and fall flat on your face."), "{said}");
    assert_eq!(e.world.ch(pc).unwrap().room, r);
    assert_eq!(e.world.ch(pc).unwrap().position, crate::game::model::tables::Position::Sitting, "%actor.pos(sitting)%");
}

/// Room 291's time triggers (210 at hour 5): with a player in the zone the butcher's
/// assistant turns the sign to "open" when the fifth hour strikes.
#[tokio::test]
async fn the_butcher_opens_at_five() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let room = rooms_with(&e, 210)[0];
    let (_pc, mut rx) = player(&mut e, "Early", 3, room);
    let per_hour = crate::game::rules::clock::PULSES_PER_MUD_HOUR;
    // The clock at 4 o'clock, a pulse before the hour turns.
    e.start_hour = 4;
    e.pulse = per_hour - 1;
    heard(&mut e, &mut rx);
    for _ in 0..12 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("turns the sign over from \"closed\" to \"open.\""), "{said}");
}

/// `%at%` from a room: a word said at one end of the hall (1102) is heard at the
/// other ("At the eastern end - …").
#[tokio::test]
async fn a_room_speaks_at_another() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let rooms = rooms_with(&e, 1102);
    assert!(rooms.len() >= 2, "{rooms:?}");
    let (pc, mut rx) = player(&mut e, "Caller", 3, rooms[0]);
    let (_far, mut far_rx) = player(&mut e, "Listener", 3, rooms[1]);
    heard(&mut e, &mut rx);
    heard(&mut e, &mut far_rx);
    e.dispatch(pc, "say hello");
    let far = heard(&mut e, &mut far_rx);
    assert!(far.contains("Caller says, 'hello'") && far.contains(" - "), "{far}");
}

/// The dragon's egg (11862): its load trigger sets `otimer 3`; three mud hours on, its
/// timer trigger (11880) makes it wriggle, crack and release a serpent.
#[tokio::test]
async fn an_egg_hatches_when_its_timer_runs_out() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (_pc, mut rx) = player(&mut e, "Watcher", 3, 3014);
    let here = e.world.room_of_vnum(3014).unwrap();
    let egg = e.world.create_obj(11862).unwrap();
    e.world.obj_to_room(egg, here);
    e.dg_fire(crate::game::scripting::dg_run::Owner::Obj(egg), 'n', Default::default());
    for _ in 0..25 {
        e.tick();
    }
    assert_eq!(e.dg_timers.get(&egg), Some(&3), "otimer 3");
    for _ in 0..3 {
        e.dg_hour();
    }
    for _ in 0..60 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("wriggles suddenly.") && said.contains("releasing a serpent onto the ground."), "{said}");
    assert!(e.world.obj(egg).is_none());
    assert!(e.world.rooms[here].people.iter().any(|p| e.world.ch(*p).and_then(|c| c.npc_vnum) == Some(11837)));
}

/// The pile of titanium ore (23638): touching it rings the bell (the get is refused),
/// miners come, and the pile `otransform`s into 23639 — which can then be taken.
#[tokio::test]
async fn the_ore_rings_the_bell_then_becomes_another_thing() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Miner", 3, 3014);
    let pile = e.world.create_obj(23638).unwrap();
    e.world.obj_to_room(pile, e.world.room_of_vnum(3014).unwrap());
    let kw = e.world.obj(pile).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("get {kw}"));
    assert!(heard(&mut e, &mut rx).contains("As you touch the pile of titanium, the bell rings."));
    assert!(!e.world.ch(pc).unwrap().inventory.contains(&pile));
    for _ in 0..20 {
        e.tick();
    }
    assert!(heard(&mut e, &mut rx).contains("The bell falls to the ground."));
    assert_eq!(e.world.obj(pile).unwrap().vnum, 23639, "otransform");
}

/// Angel (207) given beggin strips swallows them and, by `mfollow`, follows the giver
/// without a word; Hazel (109) waits `until 21:00` and only one run of her trigger waits
/// however often it is offered.
#[tokio::test]
async fn angel_follows_and_hazel_waits_for_the_hour() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Feeder", 3, 3014);
    let angel = mob_at(&mut e, 207, 3014);
    let strips = e.world.create_obj(164).unwrap();
    e.world.obj_to_char(strips, pc);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "give strips angel");
    for _ in 0..40 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("looks up at Feeder, hoping for some more."), "{said}");
    assert_eq!(e.world.ch(angel).unwrap().master, Some(pc), "{said}");
    assert!(!said.contains("starts following you"), "mfollow says nothing: {said}");

    let hazel = mob_at(&mut e, 109, 3014);
    e.start_hour = 20;
    e.pulse = 0;
    for _ in 0..3 {
        e.dg_fire(crate::game::scripting::dg_run::Owner::Mob(hazel), 'b', Default::default());
    }
    assert_eq!(e.dg_waiting.iter().filter(|w| w.owner == crate::game::scripting::dg_run::Owner::Mob(hazel)).count(), 1);
    let per_hour = crate::game::rules::clock::PULSES_PER_MUD_HOUR;
    heard(&mut e, &mut rx);
    for _ in 0..per_hour - 2 {
        e.tick();
    }
    assert!(!heard(&mut e, &mut rx).contains("looks sleepy."), "not before nine");
    for _ in 0..4 {
        e.tick();
    }
    assert!(heard(&mut e, &mut rx).contains("looks sleepy."));
}

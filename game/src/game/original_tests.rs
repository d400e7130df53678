//! The original servers' rules on their own worlds (issue 51): what a new player meets
//! in Dark Pawns and tbaMUD, as the C servers do it — each test on the real world
//! (skipped without it), each rule read from the original's source and checked by
//! typing the same into it (the closing notes of issue 51 carry the side-by-side table).

use tokio::sync::mpsc;

use crate::game::model::tables::room_flag;
use crate::game::model::world::CharId;
use crate::game::run::engine::{Engine, EngineConfig};
use crate::game::send::output::Outs;
use crate::game::tests::{darkpawns, heard, mob_at, place};

/// An engine on the Dark Pawns world (`None`: no world here).
fn dark_pawns() -> Option<(Engine, tempfile::TempDir)> {
    let dir = darkpawns()?;
    let world = crate::worldfile::load_dir(&dir).unwrap().world;
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    Some((Engine::new(world, EngineConfig { seed: 7, ..EngineConfig::default() }, saves), tmp))
}

/// An engine on the tbaMUD world (`PAWNS_TBAMUD_WORLD`, or `../shared/worlds/tbamud`).
fn tba_mud() -> Option<(Engine, tempfile::TempDir)> {
    let dir = std::env::var("PAWNS_TBAMUD_WORLD")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/worlds/tbamud"));
    if !dir.join("wld/index").is_file() {
        eprintln!("skipped: no tbaMUD world");
        return None;
    }
    let world = crate::worldfile::load_dir(&dir).unwrap().world;
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    Some((Engine::new(world, EngineConfig { seed: 7, ..EngineConfig::default() }, saves), tmp))
}

/// A new player of `class` (0 mage … 3 warrior), standing in room `vnum`.
fn player(e: &mut Engine, name: &str, class: u8, vnum: u32) -> (CharId, mpsc::Receiver<Outs>) {
    let (link, rx) = crate::game::tests::link(name.len() as u64 * 7919 + vnum as u64, 1 << 16);
    let id = e.enter(crate::game::model::character::new_record(name, class, 0, 1, true, [13; 6], vnum), link, None).char_id;
    place(e, id, vnum);
    (id, rx)
}

/// The first room of Kir Drax'in (80xx) where a fight may happen.
fn street(e: &Engine) -> u32 {
    let mut vnums: Vec<u32> = e
        .world
        .rooms
        .iter()
        .filter(|r| (8000..8100).contains(&r.proto.vnum) && r.proto.flags[0] & (room_flag::PEACEFUL | room_flag::DEATH) == 0)
        .map(|r| r.proto.vnum)
        .collect();
    vnums.sort_unstable();
    vnums[0]
}

/// Rounds of a fight that neither side can end, and what the player heard.
fn fight(e: &mut Engine, pc: CharId, rx: &mut mpsc::Receiver<Outs>, mob: CharId, rounds: usize) -> String {
    for id in [pc, mob] {
        let c = e.world.chars.get_mut(&id).unwrap();
        (c.max_hit, c.hit) = (50_000, 50_000);
    }
    e.start_fight(pc, mob);
    let mut said = String::new();
    for _ in 0..rounds {
        e.combat_round();
        said.push_str(&heard(e, rx));
        for id in [pc, mob] {
            let c = e.world.chars.get_mut(&id).unwrap();
            c.hit = 50_000;
        }
        if e.world.ch(pc).unwrap().fighting.is_none() {
            e.start_fight(pc, mob);
        }
    }
    said
}

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
    assert_eq!(rec.wimp_level, 5, "Dark Pawns's do_start");
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

/// tbaMUD's speech triggers match as its C does: the weatherman's trigger (narg 0,
/// "whats the weather") wants the whole phrase — saying "the" is not asking him (pawns
/// answered any of the words).
#[tokio::test]
async fn the_weatherman_answers_the_phrase_not_a_word_of_it() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Asker", 3, 10464);
    if e.world.rooms[e.world.ch(pc).unwrap().room].people.iter().all(|p| e.world.ch(*p).and_then(|c| c.npc_vnum) != Some(10429)) {
        mob_at(&mut e, 10429, 10464);
    }
    heard(&mut e, &mut rx);
    e.dispatch(pc, "say the");
    for _ in 0..5 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(!said.contains("The weather eh?"), "{said}");
    e.dispatch(pc, "say hey, whats the weather today?");
    for _ in 0..5 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("The weather eh?"), "{said}");
}

/// A DG runtime error is logged and the trigger keeps working for everyone (tbaMUD):
/// `return` on the teleporter before any `recall` fails its `%teleport%` (no room
/// remembered) — pawns switched the trigger off for everyone until a restart; now the
/// next `recall` still carries the player. And `%teleport%` itself shows no room: the
/// script's own `%force% %actor% look` does (pawns showed it twice).
#[tokio::test]
async fn a_script_error_leaves_the_trigger_working() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Traveller", 3, 3001);
    let r = e.world.room_of_vnum(3001).unwrap();
    let _ = r;
    // The teleporter (object 3006, trigger 3015 "re": recall and return).
    let t = e.world.create_obj(3006).unwrap();
    e.world.obj_to_char(t, pc);
    place(&mut e, pc, 3002);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "return");
    heard(&mut e, &mut rx);
    assert!(!e.dg.last_errors.is_empty(), "the failed %teleport% is logged");
    e.dispatch(pc, "recall");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("You recall to safety."), "{said}");
    assert_eq!(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum, 3001);
    let name = e.world.rooms[e.world.room_of_vnum(3001).unwrap()].proto.name.clone();
    assert_eq!(said.matches(name.as_str()).count(), 1, "the room is shown once: {said}");
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

/// tbaMUD's colour codes are understood and taken out: room 2's description ends with
/// "@Cwww.tbamud.com@n"; a player reads "www.tbamud.com". (pawns showed the codes.)
#[tokio::test]
async fn tbamud_colour_codes_never_reach_a_player() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Reader", 3, 2);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "look");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("www.tbamud.com") && !said.contains("@C") && !said.contains("@n"), "{said}");
    // What a script or a player says loses its codes as it is sent.
    e.dispatch(pc, "say Just type @RGOTO VNUM@n, or mail rumble@@tbamud.com");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Just type GOTO VNUM, or mail rumble@tbamud.com"), "{said}");
}

/// tbaMUD's object and room triggers that pawns never ran, on the real world: the axe
/// of doomslaying's get trigger (#83) will not be picked up by a good character; room
/// 3001's login trigger (#3017) booms a welcome; the kind soul (#3016) dresses a naked
/// newcomer with `%load% obj N %actor% <slot>` — worn in those slots, not carried.
#[tokio::test]
async fn object_and_login_triggers_run_and_load_dresses_the_slot_it_names() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Goodly", 3, 3001);
    for _ in 0..50 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("A booming voice announces, 'Welcome Goodly to the realm!'"), "{said}");

    let room = e.world.room_of_vnum(3002).unwrap();
    let axe = e.world.create_obj(27).unwrap();
    e.world.obj_to_room(axe, room);
    place(&mut e, pc, 3002);
    e.world.chars.get_mut(&pc).unwrap().alignment = 500;
    e.dispatch(pc, "get axe");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("it fades out of existence"), "{said}");
    assert!(!e.world.ch(pc).unwrap().inventory.contains(&axe), "the trigger kept it: {said}");
    e.world.chars.get_mut(&pc).unwrap().alignment = 0;
    e.dispatch(pc, "get axe");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("seems to vibrate with a life of its own") && e.world.ch(pc).unwrap().inventory.contains(&axe), "{said}");

    // Naked, east of the temple: the kind soul dresses the newcomer.
    let axe_gone = e.world.ch(pc).unwrap().inventory.clone();
    for o in axe_gone {
        e.world.extract_obj(o);
    }
    place(&mut e, pc, 3001);
    e.dispatch(pc, "east");
    for _ in 0..40 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    let worn = |e: &Engine, slot: usize| e.world.ch(pc).unwrap().equipment[slot].and_then(|o| e.world.obj(o)).map(|o| o.vnum);
    assert_eq!(worn(&e, 6), Some(3076), "the helmet on the head: {said}");
    assert_eq!(worn(&e, 5), Some(3040), "the body armour on the body");
    assert_eq!(worn(&e, 0), Some(3037), "the light held as a light");
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
    assert!(j.contains("You junk") && j.contains("It vanishes in a puff of smoke!") && j.contains("You have been rewarded by the gods!"), "{j}");
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

/// The same commands as tbaMUD words them: the mortal `where`, `report` to a group,
/// `junk` paying gold, `hold` lighting a light.
#[tokio::test]
async fn the_classic_commands_as_tbamud_words_them() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Wanderer", 3, 3001);
    let (_other, _orx) = player(&mut e, "Seeker", 3, 3002);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "where");
    let w = heard(&mut e, &mut rx);
    assert!(w.contains("Players in") && w.contains("Seeker"), "{w}");
    e.dispatch(pc, "report");
    assert!(heard(&mut e, &mut rx).contains("But you are not a member of any group!"));
    let torch = e.world.create_obj(3037).unwrap();
    e.world.obj_to_char(torch, pc);
    e.dispatch(pc, "hold candle");
    let h = heard(&mut e, &mut rx);
    assert!(h.contains("You light") && h.contains("and hold it."), "{h}");
    let before = e.world.ch(pc).unwrap().gold;
    let bread = e.world.create_obj(3010).unwrap();
    e.world.obj_to_char(bread, pc);
    e.dispatch(pc, "junk bread");
    assert!(heard(&mut e, &mut rx).contains("You have been rewarded by the gods!"));
    assert!(e.world.ch(pc).unwrap().gold > before, "tbaMUD's gods pay in gold");
    e.dispatch(pc, "say hello");
    assert!(heard(&mut e, &mut rx).contains("You say, 'hello'"));
}

/// tbaMUD's script fields pawns read as nothing: the cityguard (#3009) spits only at a
/// character of charisma under 6 (`%actor.cha%`; pawns spat at everyone), and fido
/// (#3010) devours only a corpse (`%item.vnum(65535)%`; pawns took any dropped cape).
#[tokio::test]
async fn script_fields_read_abilities_and_vnums() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Fair", 3, 3001);
    let guard = mob_at(&mut e, 3060, 3001);
    let fire = |e: &mut Engine, m: CharId, n: usize| {
        for _ in 0..n {
            let ctx = crate::game::scripting::dg_run::DgCtx::default();
            e.dg_fire(crate::game::scripting::dg_run::Owner::Mob(m), 'b', ctx);
        }
    };
    e.world.chars.get_mut(&pc).unwrap().abilities[5] = 13;
    heard(&mut e, &mut rx);
    fire(&mut e, guard, 30);
    assert!(!heard(&mut e, &mut rx).contains("spits in your face"), "charisma 13 is no reason");
    e.world.chars.get_mut(&pc).unwrap().abilities[5] = 3;
    fire(&mut e, guard, 30);
    assert!(heard(&mut e, &mut rx).contains("spits in your face"), "charisma 3 is");
    e.world.extract_char(guard);

    let fido = mob_at(&mut e, 3062, 3001);
    let r = e.world.room_of_vnum(3001).unwrap();
    let cape = e.world.create_obj(3087).unwrap();
    e.world.obj_to_room(cape, r);
    fire(&mut e, fido, 3);
    assert!(e.world.obj(cape).is_some(), "a cape is no corpse");
    let victim = mob_at(&mut e, 3062, 3001);
    e.die(victim, None);
    fire(&mut e, fido, 3);
    assert!(heard(&mut e, &mut rx).contains("savagely devours a corpse"));
    assert!(e.world.obj(cape).is_some());
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

/// tbaMUD's words and its death: an unknown command is "Huh!?!"; the baker tells an
/// attacker to get out, then slaps ("Ow!"), then "This mob is protected."; the dead come
/// back to the temple with 1 hit point (Dark Pawns too), as both servers bring them back.
#[tokio::test]
async fn tbamud_words_and_the_dead_come_back_with_one_hit_point() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Brash", 3, 3009);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "frobnicate");
    assert!(heard(&mut e, &mut rx).contains("Huh!?!"));
    e.dispatch(pc, "wimpy");
    assert!(heard(&mut e, &mut rx).contains("Huh!?!"), "tbaMUD has no wimpy command");
    if !e.world.rooms[e.world.room_of_vnum(3009).unwrap()].people.iter().any(|p| e.world.ch(*p).and_then(|c| c.npc_vnum) == Some(3001)) {
        mob_at(&mut e, 3001, 3009);
    }
    e.dispatch(pc, "kill baker");
    let said = heard(&mut e, &mut rx);
    let (tell, slap, prot) =
        (said.find("Get out of here before I call the guards!"), said.find("slaps you. Ow!"), said.find("This mob is protected."));
    assert!(tell.is_some() && slap.is_some() && prot.is_some(), "{said}");
    assert!(tell < slap && slap < prot, "tell, slap, then the refusal: {said}");
    let killer = mob_at(&mut e, 3059, 3009);
    e.die(pc, Some(killer));
    let p = e.world.ch(pc).unwrap();
    assert_eq!((e.world.rooms[p.room].proto.vnum, p.hit), (3001, 1), "back at the temple with 1 hit point");

    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, _rx) = player(&mut e, "Fallen", 3, room);
    e.die(pc, None);
    let p = e.world.ch(pc).unwrap();
    assert_eq!((e.world.rooms[p.room].proto.vnum, p.hit), (8004, 1));
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

/// Potions, scrolls and wands work (pawns answered "Huh?!?"): a Dark Pawns potion of
/// healing quaffed heals at the potion's own level; a tbaMUD scroll of recall carries its
/// reader to the temple; a wand without charges "seems powerless".
#[tokio::test]
async fn potions_scrolls_and_wands_cast_what_they_hold() {
    let heal_spells = [15, 16, 28];
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let mut potions: Vec<u32> = e
        .world
        .obj_protos
        .iter()
        .filter(|(_, p)| p.item_type == 10 && p.values[1..].iter().any(|v| heal_spells.contains(v)))
        .map(|(v, _)| *v)
        .collect();
    potions.sort_unstable();
    let potion = *potions.first().expect("a healing potion in Dark Pawns");
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Thirsty", 3, room);
    {
        let c = e.world.chars.get_mut(&pc).unwrap();
        (c.max_hit, c.hit) = (500, 1);
    }
    let o = e.world.create_obj(potion).unwrap();
    e.world.obj_to_char(o, pc);
    let kw = e.world.obj(o).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("quaff {kw}"));
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("You quaff"), "{said}");
    assert!(e.world.ch(pc).unwrap().hit > 1 && e.world.obj(o).is_none(), "healed, the potion gone: {said}");

    let Some((mut e, _tmp)) = tba_mud() else { return };
    let mut scrolls: Vec<u32> =
        e.world.obj_protos.iter().filter(|(_, p)| p.item_type == 2 && p.values[1..].contains(&42)).map(|(v, _)| *v).collect();
    scrolls.sort_unstable();
    let scroll = *scrolls.first().expect("a scroll of recall in tbaMUD");
    let (pc, mut rx) = player(&mut e, "Reader", 3, 3014);
    let o = e.world.create_obj(scroll).unwrap();
    e.world.obj_to_char(o, pc);
    let kw = e.world.obj(o).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("recite {kw}"));
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("which dissolves."), "{said}");
    assert_eq!(Some(e.world.rooms[e.world.ch(pc).unwrap().room].proto.vnum), e.world.profile.start_room, "{said}");
    let mut wands: Vec<u32> = e.world.obj_protos.iter().filter(|(_, p)| p.item_type == 3).map(|(v, _)| *v).collect();
    wands.sort_unstable();
    if let Some(w) = wands.first() {
        let o = e.world.create_obj(*w).unwrap();
        e.world.objs.get_mut(&o).unwrap().values[2] = 0;
        e.world.equip(o, pc, 17);
        let kw = e.world.obj(o).unwrap().keywords.split_whitespace().next().unwrap().to_string();
        e.dispatch(pc, &format!("use {kw} self"));
        assert!(heard(&mut e, &mut rx).contains("It seems powerless."));
    }
}

/// A thing's random trigger runs (tbaMUD's `random_otrigger`, players near or not):
/// War's Blood (object 21, trigger #80, 1 % a beat) thirsts for battle in its wearer's
/// ear. pawns counted these as run and never ran them.
#[tokio::test]
async fn a_things_random_trigger_runs() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Bearer", 3, 3001);
    let blade = e.world.create_obj(21).unwrap();
    let slot = if e.world.obj(blade).unwrap().wear_flags & crate::game::model::tables::wear_flag::WIELD != 0 { 16 } else { 17 };
    e.world.equip(blade, pc, slot);
    heard(&mut e, &mut rx);
    let mut said = String::new();
    for _ in 0..2000 {
        e.dg_random();
        said.push_str(&heard(&mut e, &mut rx));
        if said.contains("thirsts for battle") {
            break;
        }
    }
    assert!(said.contains("War's Blood thirsts for battle."), "{}", &said[..said.len().min(500)]);
}

/// tbaMUD's bribe trigger runs once the gold has moved: the beggar (mob 165, #130)
/// thanks a man who gives him coins. pawns never ran bribe triggers.
#[tokio::test]
async fn a_bribe_is_thanked() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Giver", 3, 3001);
    mob_at(&mut e, 165, 3001);
    e.world.chars.get_mut(&pc).unwrap().gold = 50;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "give 5 coins beggar");
    for _ in 0..20 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Thank you, kind sir."), "{said}");
}

/// tbaMUD's act triggers (pawns ran none): the speaker (mob 156, trigger #128) reads
/// "has left the game." and shouts a farewell through the zone.
#[tokio::test]
async fn a_mob_answers_what_it_sees_done() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (leaver, _lrx) = player(&mut e, "Romeo", 3, 3001);
    let (_stayer, mut rx) = player(&mut e, "Juliet", 3, 3001);
    mob_at(&mut e, 156, 3001);
    heard(&mut e, &mut rx);
    e.dispatch(leaver, "quit");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("shouts, 'Farewell, Romeo!'"), "{said}");
}

/// With pawns's shipped socials a tbaMUD world has `kiss` (its own socials live outside
/// the world directory), and mob 112's act trigger (#64) hears "kisses you.": she slaps
/// the kisser and says she is not that kind of girl.
#[tokio::test]
async fn a_kiss_is_answered_by_an_act_trigger() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Kisser", 3, 3001);
    let girl = mob_at(&mut e, 112, 3001);
    let kw = e.world.ch(girl).unwrap().keywords.split_whitespace().next().unwrap().to_string();
    heard(&mut e, &mut rx);
    e.dispatch(pc, &format!("kiss {kw}"));
    for _ in 0..40 {
        e.tick();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("I'm not that kind of girl."), "{said}");
}

/// A new tbaMUD character as its do_start makes it: 1 experience ("You need 1999 exp to
/// reach your next level.") and only level 1's practice sessions (a warrior of wisdom
/// 11: one), as typed into tbaMUD.
#[tokio::test]
async fn a_new_tbamud_character_starts_as_tbamud_starts_it() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let dir = std::env::var("PAWNS_TBAMUD_WORLD")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/worlds/tbamud"));
    let proto = crate::worldfile::load_dir(&dir).unwrap().world;
    let mut rec = crate::game::model::character::new_record("Pupil", 3, 0, 1, true, [13, 13, 11, 13, 13, 13], 3001);
    crate::game::model::kit::StartKit::new(&proto).apply(&mut rec);
    assert_eq!((rec.exp, rec.practices, rec.wimp_level), (1, 1, 0));
    let (link, mut rx) = crate::game::tests::link(77, 1 << 16);
    let pc = e.enter(rec, link, None).char_id;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "score");
    assert!(heard(&mut e, &mut rx).contains("You need 1999 exp to reach your next level."));
}

/// tbaMUD's zone-reset triggers run when their zone resets (pawns ran none): room 2763's
/// (#2754) purges the room and loads its toothy mob 2713 when no one is there.
#[tokio::test]
async fn a_zone_reset_runs_its_rooms_triggers() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let room = e.world.room_of_vnum(2763).unwrap();
    let junk = e.world.create_obj(3010).unwrap();
    e.world.obj_to_room(junk, room);
    for p in e.world.rooms[room].people.clone() {
        e.world.extract_char(p);
    }
    let z = e.world.zones.iter().position(|z| z.proto.vnum == 27).unwrap();
    e.reset_zone(z);
    assert!(e.world.obj(junk).is_none(), "purged");
    assert!(e.world.rooms[room].people.iter().any(|p| e.world.ch(*p).and_then(|c| c.npc_vnum) == Some(2713)), "the toothy mob loads");
}

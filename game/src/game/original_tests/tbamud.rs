//! tbaMUD's rules and DG Scripts, as its C server runs them, on its world.

use super::*;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;

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
/// reach your next level."), only level 1's practice sessions (a warrior of wisdom 11:
/// one), no gold and nothing carried or worn, as typed into tbaMUD.
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
    assert_eq!(rec.gold, 0, "no gold");
    assert!(rec.inventory.is_empty() && rec.equipment.is_empty(), "tbaMUD gives no kit");
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

/// tbaMUD's procedures come from its C (`spec_assign.c`), not a file: the ATM in the
/// temple (3034) keeps coins, the warrior guildmaster (3023) teaches — anyone who asks,
/// as tbaMUD's `guild` does — and practising elsewhere is "You can only practice skills
/// in your guild." (pawns assigned none: "Sorry, but you cannot do that here!")
#[tokio::test]
async fn the_atm_and_the_guildmaster_work_as_tbamud_assigns_them() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Saver", 3, 3001);
    let temple = e.world.room_of_vnum(3001).unwrap();
    if !e.world.rooms[temple].contents.iter().any(|o| e.world.obj(*o).is_some_and(|o| o.vnum == 3034)) {
        let atm = e.world.create_obj(3034).unwrap();
        e.world.obj_to_room(atm, temple);
    }
    e.world.chars.get_mut(&pc).unwrap().gold = 100;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "balance");
    assert!(heard(&mut e, &mut rx).contains("You currently have no money deposited."));
    e.dispatch(pc, "deposit 60");
    assert!(heard(&mut e, &mut rx).contains("You deposit 60 coins."));
    e.dispatch(pc, "balance");
    assert!(heard(&mut e, &mut rx).contains("Your current balance is 60 coins."));
    e.dispatch(pc, "practice kick");
    assert!(heard(&mut e, &mut rx).contains("You can only practice skills in your guild."));
    let (mage, mut mrx) = player(&mut e, "Student", 0, 3001);
    mob_at(&mut e, 3023, 3001);
    heard(&mut e, &mut mrx);
    e.world.chars.get_mut(&mage).unwrap().pc.as_mut().unwrap().practices = 2;
    e.dispatch(mage, "practice magic missile");
    let said = heard(&mut e, &mut mrx);
    assert!(said.contains("You practice for a while..."), "{said}");
    // A warrior gains at most 12 a session in tbaMUD (`prac_params`).
    e.world.chars.get_mut(&pc).unwrap().pc.as_mut().unwrap().practices = 1;
    e.dispatch(pc, "practice kick");
    assert_eq!(e.world.ch(pc).unwrap().pc.as_ref().unwrap().skills.get("kick"), Some(&12));
}

/// The postmaster (3010): a new character may not send mail ("level 2"); at level 2
/// with a stamp's 25 coins a letter to a registered name waits at the post office, its
/// addressee is told at login and `receive`s it; unknown names are refused.
#[tokio::test]
async fn letters_go_through_the_post_office() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Writer", 3, 3014);
    mob_at(&mut e, 3010, 3014);
    e.registered.insert("reader".into());
    heard(&mut e, &mut rx);
    e.dispatch(pc, "mail reader hello");
    assert!(heard(&mut e, &mut rx).contains("Sorry, you have to be level 2 to send mail!"));
    {
        let c = e.world.chars.get_mut(&pc).unwrap();
        (c.level, c.gold) = (2, 30);
    }
    e.dispatch(pc, "mail nobody hello");
    assert!(heard(&mut e, &mut rx).contains("No one by that name is registered here!"));
    e.dispatch(pc, "mail reader Meet me at the fountain.");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("I'll take 25 coins for the stamp."), "{said}");
    assert_eq!(e.world.ch(pc).unwrap().gold, 5);
    let (reader, mut rrx) = player(&mut e, "Reader", 3, 3014);
    assert!(heard(&mut e, &mut rrx).contains("You have mail waiting."));
    e.dispatch(reader, "receive");
    let got = heard(&mut e, &mut rrx);
    assert!(got.contains("gives you a piece of mail.") && got.contains("Meet me at the fountain."), "{got}");
    e.dispatch(reader, "check");
    assert!(heard(&mut e, &mut rrx).contains("Sorry, you don't have any mail waiting."));
}

/// tbaMUD as it ships (`pk_setting` and `pt_setting` off): "Player killing is not
/// permitted.", "Stealing from players is not allowed." (so no one is ever a killer or
/// a thief, and `%actor.is_killer%` is 0 as in tbaMUD); and death costs half one's
/// experience (its `die`), not a thirty-seventh.
#[tokio::test]
async fn tbamud_forbids_player_killing_and_death_costs_half() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Brawler", 3, 3014);
    let (_other, _orx) = player(&mut e, "Other", 3, 3014);
    e.world.chars.get_mut(&pc).unwrap().level = 20;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "kill other");
    assert!(heard(&mut e, &mut rx).contains("Player killing is not permitted."));
    e.dispatch(pc, "steal coins other");
    assert!(heard(&mut e, &mut rx).contains("You have no idea how to do that."), "a warrior cannot steal");
    e.world.chars.get_mut(&pc).unwrap().pc.as_mut().unwrap().skills.insert("steal".into(), 50);
    e.world.chars.get_mut(&pc).unwrap().wait = 0;
    e.dispatch(pc, "steal coins other");
    assert!(heard(&mut e, &mut rx).contains("Stealing from players is not allowed."));
    e.world.chars.get_mut(&pc).unwrap().exp = 1000;
    e.die(pc, None);
    assert_eq!(e.world.ch(pc).unwrap().exp, 500);
}

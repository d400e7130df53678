//! What a fight and a death do in both classic servers (fight.c in each): the death
//! cry, the killer's alignment, experience for each blow, a mob's own attack, and the
//! dark.

use super::*;

/// A kill in tbaMUD: the room hears the death cry by name and the next room hears
/// someone's; the killer's alignment moves a sixteenth toward the opposite of the
/// victim's (the fido's -200 → +12); each blow gave the victim's level × its damage in
/// experience; the fido bites ("BareHandAttack: 4"), it does not "hit". pawns had no
/// cry, never changed alignment, gave no experience for blows and let every mob hit.
#[tokio::test]
async fn a_tbamud_kill_cries_turns_alignment_and_teaches_by_the_blow() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Slayer", 3, 3014);
    let fido = mob_at(&mut e, 3062, 3014);
    let next = e
        .world
        .passable(e.world.room_of_vnum(3014).unwrap(), 0)
        .or_else(|| (1..6).find_map(|d| e.world.passable(e.world.room_of_vnum(3014).unwrap(), d)))
        .unwrap();
    let next = e.world.rooms[next].proto.vnum;
    let (_ear, mut ear_rx) = player(&mut e, "Listener", 3, next);
    heard(&mut e, &mut rx);
    heard(&mut e, &mut ear_rx);
    let said = fight(&mut e, pc, &mut rx, fido, 6);
    assert!(said.contains("bite"), "a fido bites: {said}");
    let exp = e.world.ch(pc).unwrap().exp;
    assert!(exp > 1, "blows teach (level 1 × damage): {exp}");
    e.world.chars.get_mut(&fido).unwrap().hit = 1;
    e.world.chars.get_mut(&pc).unwrap().alignment = 0;
    e.stop_fighting(pc);
    e.stop_fighting(fido);
    e.damage(pc, fido, 20, 3);
    let said = heard(&mut e, &mut rx);
    assert!(e.world.ch(fido).is_none(), "{said}");
    assert!(said.contains("Your blood freezes as you hear the beastly fido's death cry."), "{said}");
    let (gain, cry) = (said.find("experience point"), said.find("death cry"));
    assert!(gain.is_some() && gain < cry, "the experience before the cry, as both servers print them: {said}");
    assert!(heard(&mut e, &mut ear_rx).contains("Your blood freezes as you hear someone's death cry."));
    assert_eq!(e.world.ch(pc).unwrap().alignment, 12, "(200 - 0) / 16");
}

/// Dark Pawns leaves a killer's alignment alone when the victim is neutral (C:
/// "neutral mobs don't affect alignment"), and moves it `>> 4` otherwise.
#[tokio::test]
async fn dark_pawns_alignment_ignores_the_neutral() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, _rx) = player(&mut e, "Judge", 3, room);
    for (victim_align, want) in [(0, 100), (-1000, 100 + ((1000 - 100) >> 4)), (1000, 100 + ((-1000 - 100) >> 4))] {
        e.world.chars.get_mut(&pc).unwrap().alignment = 100;
        let mut vnums: Vec<u32> = e.world.mob_protos.keys().copied().collect();
        vnums.sort_unstable();
        let m = mob_at(&mut e, vnums[0], room);
        {
            let c = e.world.chars.get_mut(&m).unwrap();
            (c.alignment, c.hit) = (victim_align, 1);
        }
        e.die(m, Some(pc));
        assert_eq!(e.world.ch(pc).unwrap().alignment, want, "victim {victim_align}");
    }
}

/// A room flagged dark is pitch black to a player without a light (tbaMUD's chapel,
/// 3155); a burning light held shows it. pawns showed every room.
#[tokio::test]
async fn a_dark_room_is_pitch_black_without_a_light() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Groper", 3, 3155);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "look");
    assert_eq!(heard(&mut e, &mut rx).trim(), "It is pitch black...");
    let mut lights: Vec<u32> = e.world.obj_protos.iter().filter(|(_, p)| p.item_type == 1 && p.values[2] != 0).map(|(v, _)| *v).collect();
    lights.sort_unstable();
    let torch = e.world.create_obj(lights[0]).unwrap();
    e.world.equip(torch, pc, 0);
    e.dispatch(pc, "look");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains(&*e.world.rooms[e.world.room_of_vnum(3155).unwrap()].proto.name), "{said}");
}

/// Out of doors at night (mud hours 21 to 4) a classic world's field or forest is dark
/// without a light, as CircleMUD's `IS_DARK` has it; a city street and the day are lit.
#[tokio::test]
async fn the_night_is_dark_out_of_doors() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let field = e.world.rooms.iter().find(|r| r.proto.sector == 2 && r.proto.flags[0] & 9 == 0).map(|r| r.proto.vnum).unwrap();
    let (pc, mut rx) = player(&mut e, "Walker", 3, field);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "look");
    assert_ne!(heard(&mut e, &mut rx).trim(), "It is pitch black...", "noon");
    e.start_hour = 22;
    e.tick();
    e.dispatch(pc, "look");
    assert_eq!(heard(&mut e, &mut rx).trim(), "It is pitch black...", "ten at night");
    place(&mut e, pc, 3014);
    e.dispatch(pc, "look");
    assert_ne!(heard(&mut e, &mut rx).trim(), "It is pitch black...", "a city street is lit");
}

/// An attacked shopkeeper slaps and refuses — and bears no grudge: no "Hey!  You're
/// the fiend that attacked me!!!" and no blow later (pawns's keeper remembered the
/// attack and killed the player a few turns on); the attacker is not told "You attack".
#[tokio::test]
async fn a_refused_attack_leaves_no_grudge() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Brash", 3, 3009);
    if !e.world.rooms[e.world.room_of_vnum(3009).unwrap()].people.iter().any(|p| e.world.ch(*p).and_then(|c| c.npc_vnum) == Some(3001)) {
        mob_at(&mut e, 3001, 3009);
    }
    heard(&mut e, &mut rx);
    e.dispatch(pc, "kill baker");
    let hp = e.world.ch(pc).unwrap().hit;
    for _ in 0..20 {
        e.mob_activity();
        e.combat_round();
    }
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("This mob is protected.") && !said.contains("You attack"), "{said}");
    assert!(!said.contains("the fiend that attacked me"), "{said}");
    assert_eq!(e.world.ch(pc).unwrap().hit, hp, "{said}");
}

/// tbaMUD's `do_hit` lets the faster side strike first: a clumsy attacker (Dex 9 to the
/// baker's 11) is struck by the baker before it can swing, and the fight is on.
#[tokio::test]
async fn in_tbamud_the_faster_side_strikes_first() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Clumsy", 3, 3009);
    let baker = mob_at(&mut e, 3001, 3009);
    e.world.chars.get_mut(&pc).unwrap().abilities[3] = 9;
    e.world.chars.get_mut(&baker).unwrap().abilities[3] = 11;
    heard(&mut e, &mut rx);
    e.dispatch(pc, "kill baker");
    let said = heard(&mut e, &mut rx);
    assert!(!said.contains("This mob is protected."), "the baker struck first: {said}");
    assert_eq!(e.world.ch(baker).unwrap().fighting, Some(pc), "{said}");
}

/// A door the file writes as 2 is a pickproof door (CircleMUD's `exit_info`): tbaMUD's
/// graveyard grate (3129 south) is locked, not missing ("It seems to be locked.").
#[tokio::test]
async fn a_pickproof_grate_is_a_door() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Mourner", 3, 3129);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "open grate");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("It seems to be locked."), "{said}");
}

//! Each procedure on the starter world with a known outcome: mobs and players placed by
//! hand, the procedure given to a prototype, its effect read from the world.

use tokio::sync::mpsc;

use crate::game::model::tables::{item_type, wear_flag, Position};
use crate::game::model::world::CharId;
use crate::game::rules::spells::AffectKind;
use crate::game::run::engine::{Engine, EngineConfig};
use crate::game::send::output::{Out, Outs};

/// The `n`-th mob prototype of the starter world (by vnum), made in `room` with `special`
/// (and MOB_SPEC).
fn mob(e: &mut Engine, n: usize, special: &str, room: usize) -> CharId {
    let mut vnums: Vec<u32> = e.world.mob_protos.keys().copied().collect();
    vnums.sort_unstable();
    let vnum = vnums[n];
    if !special.is_empty() {
        e.world.mob_specials.insert(vnum, special.into());
        e.world.behaving_vnums.insert(vnum);
    }
    let mut rng = |lo: i32, _hi: i32| lo;
    let id = e.world.create_mob(vnum, room, &mut rng).unwrap();
    // As a world that assigns a procedure flags its mob MOB_SPEC (see `mob_flag::SPEC`).
    e.world.chars.get_mut(&id).unwrap().mob_flags |= crate::game::model::tables::mob_flag::SPEC;
    id
}

/// A player of `class` in `room`, and what it is sent.
fn player(e: &mut Engine, name: &str, class: u8, room: usize) -> (CharId, mpsc::Receiver<Outs>) {
    let (link, rx) = crate::game::tests::link(name.len() as u64 * 1000 + room as u64, 4096);
    let record = crate::game::model::character::new_record(name, class, 0, 1, true, [13; 6], e.world.rooms[room].proto.vnum);
    let id = e.enter(record, link, None).char_id;
    if e.world.ch(id).unwrap().room != room {
        e.world.char_from_room(id);
        e.world.char_to_room(id, room);
    }
    (id, rx)
}

fn texts(e: &mut Engine, rx: &mut mpsc::Receiver<Outs>) -> String {
    // What the engine sent so far goes out (as at a step's end).
    e.send_outboxes();
    let mut all = String::new();
    while let Ok(batch) = rx.try_recv() {
        for o in batch {
            if let Out::Event { text, .. } = o {
                all.push_str(&text);
                all.push('\n');
            }
        }
    }
    all
}

fn engine() -> (Engine, tempfile::TempDir) {
    crate::game::tests::engine(EngineConfig { seed: 7, start_hour: Some(12), ..EngineConfig::default() })
}

/// Two in a fight, the player with hit points to spare.
fn fight(e: &mut Engine, mob_id: CharId, pc: CharId, level: u8) {
    for (id, hp) in [(mob_id, 5000), (pc, 5000)] {
        let c = e.world.chars.get_mut(&id).unwrap();
        c.max_hit = hp;
        c.hit = hp;
    }
    e.world.chars.get_mut(&mob_id).unwrap().level = level;
    e.start_fight(mob_id, pc);
}

#[tokio::test]
async fn fido_devours_corpses_and_leaves_what_they_held() {
    let (mut e, _dir) = engine();
    let fido = mob(&mut e, 0, "fido", 0);
    assert!(!e.run_special(fido, "fido"), "no corpse, nothing to do");
    let victim = mob(&mut e, 1, "", 0);
    e.world.chars.get_mut(&victim).unwrap().gold = 25;
    e.die(victim, None);
    let corpse =
        |e: &Engine| e.world.rooms[0].contents.iter().copied().find(|o| e.world.obj(*o).is_some_and(|o| o.keywords.contains("corpse")));
    assert!(corpse(&e).is_some());
    assert!(e.run_special(fido, "fido"));
    assert!(corpse(&e).is_none(), "devoured");
    assert!(
        e.world.rooms[0].contents.iter().any(|o| e.world.obj(*o).is_some_and(|o| o.item_type == item_type::MONEY)),
        "the gold it held is on the floor"
    );
}

#[tokio::test]
async fn a_janitor_picks_up_trash_and_leaves_treasure() {
    let (mut e, _dir) = engine();
    let janitor = mob(&mut e, 0, "janitor", 0);
    let cheap = e.world.obj_protos.values().filter(|p| p.wear_flags[0] & wear_flag::TAKE != 0);
    let trash = cheap.clone().find(|p| p.cost < 15).map(|p| p.vnum).expect("something cheap in the starter world");
    let treasure = cheap.into_iter().find(|p| p.cost >= 15 && p.item_type != item_type::DRINKCON).map(|p| p.vnum).expect("something dear");
    let t = e.world.create_obj(treasure).unwrap();
    e.world.obj_to_room(t, 0);
    assert!(!e.run_special(janitor, "janitor"), "treasure is not trash");
    let o = e.world.create_obj(trash).unwrap();
    e.world.obj_to_room(o, 0);
    assert!(e.run_special(janitor, "janitor"));
    assert!(e.world.ch(janitor).unwrap().inventory.contains(&o));
    assert!(e.world.rooms[0].contents.contains(&t));
}

#[tokio::test]
async fn a_magic_user_casts_the_spell_of_its_level_in_combat() {
    let (mut e, _dir) = engine();
    let mage = mob(&mut e, 0, "magic_user", 0);
    let (pc, mut rx) = player(&mut e, "Target", 3, 0);
    assert!(!e.fight_special(mage, "magic_user"), "no fight, no spell");
    fight(&mut e, mage, pc, 20);
    texts(&mut e, &mut rx);
    let cast = (0..60).filter(|_| e.fight_special(mage, "magic_user")).count();
    let heard = texts(&mut e, &mut rx);
    assert!(cast > 0 && heard.contains("utters the words, 'fireball'"), "cast {cast} times:\n{heard}");
    assert!(e.world.ch(pc).unwrap().hit < 5000, "the fireballs hurt");
}

#[tokio::test]
async fn a_hurt_cleric_heals_itself_and_curses_its_foe() {
    let (mut e, _dir) = engine();
    let cleric = mob(&mut e, 0, "cleric", 0);
    let (pc, mut rx) = player(&mut e, "Target", 3, 0);
    fight(&mut e, cleric, pc, 20);
    e.world.chars.get_mut(&cleric).unwrap().hit = 100;
    for _ in 0..30 {
        e.fight_special(cleric, "cleric");
    }
    assert!(e.world.ch(cleric).unwrap().hit > 100, "it healed itself");
    e.world.chars.get_mut(&cleric).unwrap().hit = 5000;
    for _ in 0..60 {
        e.fight_special(cleric, "cleric");
    }
    let heard = texts(&mut e, &mut rx);
    assert!(e.affected(pc, AffectKind::Curse), "{heard}");
    assert!(heard.contains("utters the words, 'heal'") && heard.contains("utters the words, 'harm'"), "{heard}");
}

#[tokio::test]
async fn a_fighter_kicks_and_bashes() {
    let (mut e, _dir) = engine();
    let fighter = mob(&mut e, 0, "fighter", 0);
    let (pc, mut rx) = player(&mut e, "Target", 3, 0);
    fight(&mut e, fighter, pc, 20);
    let acted = (0..40).filter(|_| e.fight_special(fighter, "fighter")).count();
    let heard = texts(&mut e, &mut rx);
    assert!(acted > 0, "it fought with its feet");
    assert!(heard.contains("bash") || heard.contains("kick"), "{heard}");
}

#[tokio::test]
async fn a_snake_bite_poisons_and_poison_hurts() {
    let (mut e, _dir) = engine();
    let snake = mob(&mut e, 0, "snake", 0);
    let (pc, mut rx) = player(&mut e, "Target", 3, 0);
    fight(&mut e, snake, pc, 40);
    let bit = (0..20).any(|_| e.fight_special(snake, "snake"));
    assert!(bit && e.affected(pc, AffectKind::Poison), "{}", texts(&mut e, &mut rx));
    assert!(texts(&mut e, &mut rx).contains("bites you!"));
    let before = e.world.ch(pc).unwrap().hit;
    e.poison_tick();
    assert_eq!(e.world.ch(pc).unwrap().hit, before - crate::game::rules::magic::POISON_DAMAGE);
}

/// Spell effects count down for the characters in `World::affected` only: one wears
/// off with its message and leaves the list with the last of them, and a character
/// gone from the world leaves it at the next count.
#[tokio::test]
async fn effects_wear_off_from_the_list_of_the_affected() {
    use crate::game::rules::spells::Affect;
    let (mut e, _dir) = engine();
    let (pc, mut rx) = player(&mut e, "Ada", 3, 0);
    let other = mob(&mut e, 0, "snake", 0);
    assert!(e.world.affected.is_empty());
    e.add_affect(pc, Affect { kind: AffectKind::Armor, pulses: 15, modifier: -20 });
    e.add_affect(pc, Affect { kind: AffectKind::Bless, pulses: 35, modifier: 1 });
    e.add_affect(other, Affect { kind: AffectKind::Curse, pulses: 100, modifier: -1 });
    assert_eq!(e.world.affected.iter().copied().collect::<Vec<_>>(), {
        let mut v = vec![pc, other];
        v.sort_unstable();
        v
    });
    texts(&mut e, &mut rx);
    e.affect_update(10);
    assert!(e.affected(pc, AffectKind::Armor) && !texts(&mut e, &mut rx).contains("less protected"));
    e.affect_update(10);
    assert!(!e.affected(pc, AffectKind::Armor) && e.affected(pc, AffectKind::Bless));
    assert!(texts(&mut e, &mut rx).contains("You feel less protected."));
    assert!(e.world.affected.contains(&pc), "one effect left");
    e.affect_update(20);
    assert!(texts(&mut e, &mut rx).contains("You feel less righteous."));
    assert!(!e.world.affected.contains(&pc), "the last wore off: off the list");
    e.world.extract_char(other);
    e.affect_update(10);
    assert!(e.world.affected.is_empty(), "gone from the world: off the list");
}

#[tokio::test]
async fn a_thief_takes_gold_and_keeps_the_sum() {
    let (mut e, _dir) = engine();
    let thief = mob(&mut e, 0, "thief", 0);
    e.world.chars.get_mut(&thief).unwrap().level = 30;
    let (pc, _rx) = player(&mut e, "Mark", 3, 0);
    e.world.chars.get_mut(&pc).unwrap().gold = 1000;
    let thief_gold = e.world.ch(thief).unwrap().gold;
    for _ in 0..50 {
        e.run_special(thief, "thief");
    }
    let (left, took) = (e.world.ch(pc).unwrap().gold, e.world.ch(thief).unwrap().gold - thief_gold);
    assert!(left < 1000, "the purse is lighter");
    assert_eq!(left + took, 1000, "what left the purse is in the thief's");
}

#[tokio::test]
async fn a_cityguard_charges_the_evil_one_attacking_the_good() {
    let (mut e, _dir) = engine();
    let guard = mob(&mut e, 0, "cityguard", 0);
    let thief = mob(&mut e, 1, "", 0);
    let (pc, _rx) = player(&mut e, "Goodie", 3, 0);
    assert!(!e.run_special(guard, "cityguard") || e.world.ch(guard).unwrap().fighting.is_none(), "peace: nobody charged");
    e.world.chars.get_mut(&thief).unwrap().alignment = -800;
    e.world.chars.get_mut(&pc).unwrap().alignment = 500;
    e.world.chars.get_mut(&pc).unwrap().max_hit = 5000;
    e.world.chars.get_mut(&pc).unwrap().hit = 5000;
    e.start_fight(thief, pc);
    assert!(e.run_special(guard, "cityguard"));
    assert_eq!(e.world.ch(guard).unwrap().fighting, Some(thief), "the guard fights the thief, not the victim");
}

/// A room with an exit to a guild room whose master's keywords name the cleric guild.
fn guild(e: &mut Engine) -> (usize, &'static str, usize) {
    let (room, dir, to) = (0..e.world.rooms.len())
        .find_map(|r| (0..6).find_map(|d| e.world.passable(r, d).filter(|t| *t != r).map(|t| (r, d, t))))
        .expect("a room with an exit");
    let master = mob(e, 1, "guild", to);
    e.world.chars.get_mut(&master).unwrap().keywords = "Le Tal cleric guildmaster".into();
    mob(e, 0, "guild_guard", room);
    (room, crate::worldfile::DIR_NAMES[dir], to)
}

#[tokio::test]
async fn a_guild_guard_lets_the_guilds_own_class_in_only() {
    let (mut e, _dir) = engine();
    let (room, dir, to) = guild(&mut e);
    let (warrior, mut rx) = player(&mut e, "Brute", crate::game::model::tables::class::WARRIOR, room);
    e.dispatch(warrior, dir);
    assert_eq!(e.world.ch(warrior).unwrap().room, room, "blocked");
    assert!(texts(&mut e, &mut rx).contains("humiliates you, and blocks your way"));
    let (cleric, mut rx2) = player(&mut e, "Priest", crate::game::model::tables::class::CLERIC, room);
    e.dispatch(cleric, dir);
    assert_eq!(e.world.ch(cleric).unwrap().room, to, "a cleric walks into the cleric guild");
    // And there the `guild` master teaches.
    texts(&mut e, &mut rx2);
    assert_eq!(e.dispatch(cleric, "practice cure light").as_str(), "ok");
    assert!(texts(&mut e, &mut rx2).contains("You practice cure light"));
}

/// In a crowd the guard's turning someone back is not told to everyone at once (a
/// thousand walkers were a thousand room-wide messages a second): the bystanders hear it
/// in the next notice, with everyone else turned back.
#[tokio::test]
async fn in_a_crowd_a_guard_turning_people_back_is_told_once_in_a_notice() {
    let (mut e, _dir) = engine();
    let (room, dir, _) = guild(&mut e);
    let (bystander, mut seen) = player(&mut e, "Watcher", crate::game::model::tables::class::CLERIC, room);
    let walkers: Vec<CharId> = (0..crate::game::send::crowd::CROWD + 2)
        .map(|i| {
            let name: String = format!("Brute{}", (b'a' + (i % 26) as u8) as char).repeat(1 + i / 26);
            player(&mut e, &name, crate::game::model::tables::class::WARRIOR, room).0
        })
        .collect();
    texts(&mut e, &mut seen);
    for w in walkers[..3].iter().chain(&walkers[..1]) {
        e.dispatch(*w, dir);
        assert_eq!(e.world.ch(*w).unwrap().room, room, "still blocked in a crowd");
    }
    assert!(!texts(&mut e, &mut seen).contains("humiliates"), "no room-wide line per walker in a crowd");
    for _ in 0..crate::game::run::engine::PULSES_PER_CROWD_NOTICE {
        e.tick();
    }
    let heard = texts(&mut e, &mut seen);
    assert!(heard.contains("Turned back by"), "the notice tells it: {heard}");
    assert_eq!(heard.matches("Turned back by").count(), 1, "once, for all three: {heard}");
    let line = heard.split("Turned back by").nth(1).and_then(|l| l.split('.').next()).unwrap_or_default();
    let first = e.world.ch(walkers[0]).unwrap().name.to_string();
    assert_eq!(line.matches(first.as_str()).count(), 1, "turned back twice, named once: {line}");
    assert!(e.world.ch(bystander).is_some());
}

/// Who fights whom is kept beside the characters: flights, deaths and departures stop
/// the attackers it lists, and it always says what the characters say.
#[tokio::test]
async fn the_attackers_index_follows_every_fight() {
    let (mut e, _dir) = engine();
    let scout = player(&mut e, "Scout", crate::game::model::tables::class::WARRIOR, 0).0;
    let room = e.world.ch(scout).unwrap().room;
    let mobs: Vec<CharId> = (0..4).map(|_| mob(&mut e, 0, "", room)).collect();
    let (pc, _rx) = player(&mut e, "Fighter", crate::game::model::tables::class::WARRIOR, room);
    for m in &mobs {
        e.start_fight(*m, pc);
    }
    assert!(e.world.attackers_consistent());
    assert_eq!(e.world.attackers_of(pc).len(), 4);
    e.stop_fighting(mobs[0]);
    assert!(e.world.attackers_consistent());
    assert_eq!(e.world.attackers_of(pc).len(), 3);
    // A mob leaving the world stops its fight, and nobody fights what has left.
    e.world.extract_char(mobs[1]);
    assert!(e.world.attackers_consistent());
    e.die(mobs[2], Some(pc));
    assert!(e.world.attackers_consistent());
    assert!(e.world.attackers_of(mobs[2]).is_empty());
    e.world.extract_char(pc);
    assert!(e.world.attackers_consistent());
    assert!(e.world.ch(mobs[3]).unwrap().fighting.is_none(), "its opponent left: it fights no one");
}

#[tokio::test]
async fn a_bank_keeps_coins_and_the_record_keeps_the_bank() {
    let (mut e, _dir) = engine();
    let atm = *e.world.obj_protos.keys().min().unwrap();
    e.world.obj_specials.insert(atm, "bank".into());
    let (pc, mut rx) = player(&mut e, "Saver", 3, 0);
    assert_eq!(e.dispatch(pc, "deposit 5").as_str(), "failed", "no bank here");
    assert!(texts(&mut e, &mut rx).contains("Sorry, but you cannot do that here!"));
    let o = e.world.create_obj(atm).unwrap();
    e.world.obj_to_room(o, 0);
    e.world.chars.get_mut(&pc).unwrap().gold = 100;
    assert_eq!(e.dispatch(pc, "deposit 150").as_str(), "failed");
    assert_eq!(e.dispatch(pc, "deposit 0").as_str(), "invalid_target");
    assert_eq!(e.dispatch(pc, "deposit 60").as_str(), "ok");
    assert_eq!(e.dispatch(pc, "withdraw 61").as_str(), "failed");
    assert_eq!(e.dispatch(pc, "withdraw 10").as_str(), "ok");
    e.dispatch(pc, "balance");
    let heard = texts(&mut e, &mut rx);
    assert!(heard.contains("Your current balance is 50 coins."), "{heard}");
    assert_eq!(e.world.ch(pc).unwrap().gold, 50);
    assert_eq!(e.to_record(pc).unwrap().bank_gold, 50, "the bank is part of the character's record");
}

#[tokio::test]
async fn boards_list_read_write_and_only_authors_remove() {
    let (mut e, _dir) = engine();
    let vnum = *e.world.obj_protos.keys().min().unwrap();
    e.world.obj_specials.insert(vnum, "gen_board".into());
    let kw = e.world.obj_protos[&vnum].keywords.split_whitespace().next().unwrap().to_string();
    let b = e.world.create_obj(vnum).unwrap();
    e.world.obj_to_room(b, 0);
    let (ann, mut rx) = player(&mut e, "Ann", 3, 0);
    let (bob, mut rxb) = player(&mut e, "Bob", 3, 0);
    assert_eq!(e.dispatch(ann, "write no separator").as_str(), "invalid_target");
    assert_eq!(e.dispatch(ann, "write Lost sword : a long blade, reward offered").as_str(), "ok");
    assert_eq!(e.dispatch(bob, "write Found : nothing yet").as_str(), "ok");
    texts(&mut e, &mut rx);
    assert_eq!(e.dispatch(ann, &format!("look {kw}")).as_str(), "ok");
    let list = texts(&mut e, &mut rx);
    assert!(list.contains("There are 2 messages"), "{list}");
    let (i_found, i_lost) = (list.find("(Bob) :: Found").unwrap(), list.find("(Ann) :: Lost sword").unwrap());
    assert!(i_found < i_lost, "newest first:\n{list}");
    e.dispatch(bob, "read 1");
    assert!(texts(&mut e, &mut rxb).contains("a long blade, reward offered"));
    assert_eq!(e.dispatch(bob, "remove 1").as_str(), "failed", "not Bob's");
    assert_eq!(e.dispatch(ann, "remove 1").as_str(), "ok");
    assert_eq!(e.boards.messages(vnum).len(), 1);
    assert_eq!(e.boards.messages(vnum)[0].author, "Bob");
    assert_eq!(e.dispatch(ann, "read 9").as_str(), "invalid_target");
}

#[tokio::test]
async fn a_moon_gate_carries_to_its_twin() {
    let (mut e, _dir) = engine();
    // A make of thing the zones have not loaded anywhere.
    let vnum = *e.world.obj_protos.keys().filter(|v| e.world.objs.values().all(|o| o.vnum != **v)).max().unwrap();
    e.world.obj_specials.insert(vnum, "moon_gate".into());
    let kw = e.world.obj_protos[&vnum].keywords.split_whitespace().next().unwrap().to_string();
    let here = e.world.create_obj(vnum).unwrap();
    e.world.obj_to_room(here, 0);
    let (pc, mut rx) = player(&mut e, "Walker", 3, 0);
    assert_eq!(e.dispatch(pc, &format!("enter {kw}")).as_str(), "failed", "no twin yet");
    assert!(texts(&mut e, &mut rx).contains("flickers, but nothing happens"));
    let far = e.world.rooms.len() - 1;
    let there = e.world.create_obj(vnum).unwrap();
    e.world.obj_to_room(there, far);
    assert_eq!(e.dispatch(pc, &format!("enter {kw}")).as_str(), "ok");
    assert_eq!(e.world.ch(pc).unwrap().room, far);
    assert_eq!(e.world.ch(pc).unwrap().position, Position::Standing);
}

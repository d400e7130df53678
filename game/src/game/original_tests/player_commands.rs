//! The player's own commands both classic servers have (pawns answered "Huh?!?"):
//! `title`, `prompt`, `alias`, `bug`/`typo`/`idea`; tbaMUD's `scan`; Dark Pawns's
//! `look <dir>` into the next room.

use super::*;

/// `title` as CircleMUD words it, shown in `who`; `prompt` sets what the prompt shows
/// (`20H 100M 82V > ` in both servers); `alias` with `$1` and `;` (Dark Pawns: "Alias
/// added.", tbaMUD: "Alias ready."); `bug` thanks the player; tbaMUD's `scan` names who
/// is close by, Dark Pawns has no `scan`.
#[tokio::test]
async fn title_prompt_alias_and_notes() {
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, mut rx) = player(&mut e, "Namer", 3, 3014);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "title the (great)");
    assert!(heard(&mut e, &mut rx).contains("Titles can't contain the ( or ) characters."));
    e.dispatch(pc, "title the Bold");
    assert!(heard(&mut e, &mut rx).contains("Okay, you're now Namer the Bold."));
    e.dispatch(pc, "who");
    assert!(heard(&mut e, &mut rx).contains("Namer the Bold"));
    let ch = e.world.ch(pc).unwrap();
    assert_eq!(crate::game::send::render::prompt(ch, e.world.profile.family), format!("{}H {}M {}V > ", ch.hit, ch.mana, ch.moves));
    e.dispatch(pc, "prompt hv");
    assert!(heard(&mut e, &mut rx).contains("Okay."));
    let ch = e.world.ch(pc).unwrap();
    assert_eq!(crate::game::send::render::prompt(ch, e.world.profile.family), format!("{}H {}V > ", ch.hit, ch.moves));
    e.dispatch(pc, "prompt");
    assert!(heard(&mut e, &mut rx).contains("Usage: prompt { { H | M | V } | all | auto | none }"));
    e.dispatch(pc, "alias gs say $1;emote grins.");
    assert!(heard(&mut e, &mut rx).contains("Alias ready."));
    e.dispatch(pc, "gs hello");
    e.tick();
    e.tick();
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("You say, 'hello'") && said.contains("Namer grins."), "{said}");
    e.dispatch(pc, "alias");
    assert!(heard(&mut e, &mut rx).contains("gs              say $1;emote grins."));
    e.dispatch(pc, "alias gs");
    assert!(heard(&mut e, &mut rx).contains("Alias deleted."));
    e.dispatch(pc, "bug the fountain is dry");
    assert!(heard(&mut e, &mut rx).contains("Usage: bug submit <header>"), "tbaMUD's ibt");
    e.dispatch(pc, "bug submit the fountain is dry");
    assert!(heard(&mut e, &mut rx).contains("Okay.  Thanks!"));
    let rec = e.to_record(pc).unwrap();
    assert_eq!((rec.title.as_str(), rec.prompt), ("the Bold", Some(5)), "kept in the record");
    // tbaMUD's scan: the fido next door.
    let next = (0..6).find_map(|d| e.world.passable(e.world.room_of_vnum(3014).unwrap(), d).map(|r| (d, r))).unwrap();
    let vnum = e.world.rooms[next.1].proto.vnum;
    mob_at(&mut e, 3062, vnum);
    e.dispatch(pc, "scan");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains(&format!("the beastly fido close by {}.", crate::worldfile::DIR_NAMES[next.0])), "{said}");

    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let (pc, mut rx) = player(&mut e, "Looker", 3, 8004);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "alias x look");
    assert!(heard(&mut e, &mut rx).contains("Alias added."));
    e.dispatch(pc, "scan");
    assert!(heard(&mut e, &mut rx).contains("Huh?!?"), "Dark Pawns has no scan");
    let here = e.world.room_of_vnum(8004).unwrap();
    let (d, to) = (0..6).find_map(|d| e.world.passable(here, d).map(|r| (d, r))).unwrap();
    let dir = crate::worldfile::DIR_NAMES[d];
    e.dispatch(pc, &format!("look {dir}"));
    let said = heard(&mut e, &mut rx);
    assert!(said.contains(&format!("You look {dir}wards.")), "{said}");
    let exit_words = e.world.rooms[here].proto.exits[d].as_ref().unwrap().description.trim().is_empty();
    if exit_words {
        assert!(said.contains(&*e.world.rooms[to].proto.name), "the room beyond: {said}");
    }
}

/// Dark Pawns: a worn tunic (8019, ITEM_TAKE_NAME) is its wearer's ("Gazivin's tunic")
/// and "a tunic" again when taken off; `consider` answers in Dark Pawns's three parts;
/// `title` with nothing clears it ("Okay, you're now Gazivin .").
#[tokio::test]
async fn dark_pawns_names_worn_things_and_considers_in_three_parts() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Gazivin", 3, room);
    let tunic = e.world.create_obj(8019).unwrap();
    e.world.obj_to_char(tunic, pc);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "wear tunic");
    heard(&mut e, &mut rx);
    e.dispatch(pc, "equipment");
    assert!(heard(&mut e, &mut rx).contains("Gazivin's tunic"));
    e.dispatch(pc, "remove tunic");
    assert_eq!(&*e.world.obj(tunic).unwrap().short_descr, "a tunic");
    let zealot = mob_at(&mut e, 8069, room);
    let _ = zealot;
    e.dispatch(pc, "consider zealot");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("looks to be") && said.contains("physical shape") && said.contains("battle"), "{said}");
    e.dispatch(pc, "title");
    assert!(heard(&mut e, &mut rx).contains("Okay, you're now Gazivin ."));
}

/// `steal` and `track` (pawns: "Huh?!?"): a sleeping mob's purse is an easy mark, a
/// shopkeeper's never; Dark Pawns's players are robbed only by outlaws; a tracker
/// senses the first step toward its quarry, a warrior without the skill has "no idea
/// how"; `pray` is the classic social.
#[tokio::test]
async fn steal_track_and_pray() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Cutpurse", 2, room);
    let mark = mob_at(&mut e, 8069, room);
    {
        let m = e.world.chars.get_mut(&mark).unwrap();
        (m.gold, m.position) = (1000, crate::game::model::tables::Position::Sleeping);
    }
    heard(&mut e, &mut rx);
    e.dispatch(pc, "steal coins zealot");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains("Bingo!  You got") && e.world.ch(pc).unwrap().gold > 20, "{said}");
    let (other, _orx) = player(&mut e, "Victim", 3, room);
    e.world.chars.get_mut(&pc).unwrap().wait = 0;
    e.dispatch(pc, "steal coins victim");
    assert!(heard(&mut e, &mut rx).contains("You can not steal from Victim because you are not an Outlaw!"));
    e.world.chars.get_mut(&pc).unwrap().wait = 0;
    e.dispatch(pc, "track zealot");
    assert!(heard(&mut e, &mut rx).contains("You have no idea how."));
    e.world.chars.get_mut(&pc).unwrap().pc.as_mut().unwrap().skills.insert("track".into(), 102);
    let here = e.world.room_of_vnum(room).unwrap();
    let (d, next) = (0..6).find_map(|d| e.world.passable(here, d).map(|r| (d, r))).unwrap();
    let next_vnum = e.world.rooms[next].proto.vnum;
    place(&mut e, other, next_vnum);
    e.dispatch(pc, "track victim");
    let said = heard(&mut e, &mut rx);
    assert!(said.contains(&format!("You sense a trail {} from here!", crate::worldfile::DIR_NAMES[d])), "{said}");
    e.dispatch(pc, "pray");
    assert!(heard(&mut e, &mut rx).contains("You feel righteous, and maybe a little foolish."));
}

/// Names: Dark Pawns's `isname` takes whole keywords ("tun" is not the tunic); tbaMUD's
/// takes their beginnings ("cap" is the cape, as the tbaMUD server does it).
#[tokio::test]
async fn dark_pawns_names_whole_words_tbamud_beginnings() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Namer", 3, room);
    let tunic = e.world.create_obj(8019).unwrap();
    e.world.obj_to_char(tunic, pc);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "drop tun");
    assert!(e.world.ch(pc).unwrap().inventory.contains(&tunic), "{}", heard(&mut e, &mut rx));
    e.dispatch(pc, "drop tunic");
    assert!(!e.world.ch(pc).unwrap().inventory.contains(&tunic));

    let Some((mut e, _tmp)) = tba_mud() else { return };
    let mut capes: Vec<u32> =
        e.world.obj_protos.iter().filter(|(_, p)| p.keywords.split_whitespace().any(|w| w == "cape")).map(|(v, _)| *v).collect();
    capes.sort_unstable();
    let (pc, mut rx) = player(&mut e, "Namer", 3, 3014);
    let cape = e.world.create_obj(capes[0]).unwrap();
    e.world.obj_to_char(cape, pc);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "drop cap");
    assert!(!e.world.ch(pc).unwrap().inventory.contains(&cape), "tbaMUD's is_abbrev: {}", heard(&mut e, &mut rx));
}

/// The servers' own words where the side-by-side run found pawns's: the slot's wear
/// message ("You wear a frayed tunic on your body."), tbaMUD's one-letter exits with a
/// closed door in brackets, "None!", "whisper to", Dark Pawns's empty `split`, "You
/// don't seem to have a bread.", and a new character's 100 mana and 82+ moves.
#[tokio::test]
async fn the_servers_own_words() {
    let Some((mut e, _tmp)) = dark_pawns() else { return };
    let room = street(&e);
    let (pc, mut rx) = player(&mut e, "Wordy", 3, room);
    let tunic = e.world.create_obj(8019).unwrap();
    e.world.obj_to_char(tunic, pc);
    heard(&mut e, &mut rx);
    e.dispatch(pc, "wear tunic");
    assert!(heard(&mut e, &mut rx).contains("You wear a frayed tunic on your body."));
    e.dispatch(pc, "whisper");
    assert!(heard(&mut e, &mut rx).contains("Whom do you want to whisper to.. and what??"));
    e.dispatch(pc, "split");
    assert!(heard(&mut e, &mut rx).contains("Sorry, you can't do that."));
    e.dispatch(pc, "eat bread");
    assert!(heard(&mut e, &mut rx).contains("You don't seem to have a bread."));
    place(&mut e, pc, 8099);
    let hut = e.world.room_of_vnum(8099).unwrap();
    e.world.rooms[hut].proto.exits = Default::default();
    assert!(e.room_text(pc, true).contains("[ Exits: None! ]"));

    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (pc, _rx) = player(&mut e, "Wordy", 3, 3001);
    let text = e.room_text(pc, true);
    assert!(text.contains("[ Exits: n e s w d ]"), "{text}");
    let r = e.world.room_of_vnum(3001).unwrap();
    let d = (0..6).find(|d| e.world.rooms[r].proto.exits[*d].is_some()).unwrap();
    e.world.rooms[r].doors[d].closed = true;
    let text = e.room_text(pc, true);
    let letter = &crate::worldfile::DIR_NAMES[d][..1];
    assert!(text.contains(&format!("({letter})")), "{text}");
    let tba = std::env::var("PAWNS_TBAMUD_WORLD")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/worlds/tbamud"));
    let proto = crate::worldfile::load_dir(&tba).unwrap().world;
    let mut rec = crate::game::model::character::new_record("Fresh", 3, 0, 1, true, [13; 6], 3001);
    crate::game::model::kit::StartKit::new(&proto).apply_rolled(&mut rec, &mut |lo, _| lo);
    assert_eq!((rec.max_mana, rec.max_moves), (100, 83), "100 mana, 82 and a warrior's 1");
}

/// "1 gold coin", not "1 gold coins": a gift of one coin and a score with one.
#[tokio::test]
async fn one_coin_is_a_coin() {
    assert_eq!(crate::game::send::messaging::gold_coins(1), "1 gold coin");
    assert_eq!(crate::game::send::messaging::gold_coins(0), "0 gold coins");
    let Some((mut e, _tmp)) = tba_mud() else { return };
    let (giver, _grx) = player(&mut e, "Giver", 3, 3014);
    let (taker, mut rx) = player(&mut e, "Taker", 3, 3014);
    e.world.chars.get_mut(&giver).unwrap().gold = 1;
    e.world.chars.get_mut(&taker).unwrap().gold = 0;
    heard(&mut e, &mut rx);
    e.dispatch(giver, "give 1 coins taker");
    assert!(heard(&mut e, &mut rx).contains("Giver gives you 1 gold coin."));
    e.dispatch(taker, "score");
    assert!(heard(&mut e, &mut rx).contains("and have 1 gold coin."));
}

//! The special procedures over the protocol, on a tiny fixture world with its own
//! `specials.tsv`: a guild guard that turns a warrior away from the cleric guild, a
//! pair of moon gates, a bank, and a board whose messages outlive a restart.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::*;

/// Guildtown: the square (100) opens north on the cleric guild (101, its master and a
/// guard at the door) and east on the bank hall (102: an ATM and a board); a moon gate
/// stands in the square and its twin in the far field (103).
fn write_fixture(dir: &Path) {
    let room = |vnum: u32, name: &str, exits: &str| format!("#{vnum}\n{name}~\nThe {name}.\n~\n1 0 0\n{exits}S\n");
    let exit = |dir: u8, to: u32| format!("D{dir}\n~\n~\n0 -1 {to}\n");
    let wld = [
        room(100, "Square", &(exit(0, 101) + &exit(1, 102))),
        room(101, "Cleric Guild", &exit(2, 100)),
        room(102, "Bank Hall", &exit(3, 100)),
        room(103, "Far Field", ""),
    ]
    .concat();
    let mob = |vnum: u32, kw: &str, short: &str| {
        format!("#{vnum}\n{kw}~\n{short}~\n{short} stands here.\n~\nNothing special.\n~\nb 1000 0 S\n10 10 5 10d10+100 1d4+1\n0 0\n8 8 1\n")
    };
    let obj = |vnum: u32, kw: &str, short: &str| format!("#{vnum}\n{kw}~\n{short}~\n{short} is here.~\n~\n12 0 0\n0 0 0 0\n100 0 0\n");
    let files = [
        ("wld/index", "1.wld\n$\n".to_string()),
        ("wld/1.wld", format!("{wld}$\n")),
        ("mob/index", "1.mob\n$\n".into()),
        ("mob/1.mob", format!("{}{}$\n", mob(100, "guard guildguard", "the guild guard"), mob(101, "Le Tal cleric guildmaster", "Le Tal"))),
        ("obj/index", "1.obj\n$\n".into()),
        (
            "obj/1.obj",
            format!(
                "{}{}{}$\n",
                obj(200, "gate portal moon", "a shimmering moon gate"),
                obj(201, "atm machine", "an ATM"),
                obj(202, "board bulletin", "a bulletin board")
            ),
        ),
        (
            "zon/1.zon",
            "#1\nGuildtown~\n199 30 2\nM 0 100 1 100\nM 0 101 1 101\nO 0 200 2 100\nO 0 200 2 103\nO 0 201 1 102\nO 0 202 1 102\nS\n$\n".into(),
        ),
        ("zon/index", "1.zon\n$\n".into()),
        (
            "specials.tsv",
            "kind\tvnum\tspecial\nmob\t100\tguild_guard\nmob\t101\tguild\nobj\t200\tmoon_gate\nobj\t201\tbank\nobj\t202\tgen_board\nmob\t999\tno_such_mob\n".into(),
        ),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

async fn guildtown() -> TestServer {
    TestServer::start_with(|cfg| {
        let dir = cfg.db.parent().unwrap().join("guildtown");
        write_fixture(&dir);
        cfg.world = Some(dir);
        cfg.engine.start_room = Some(100);
        // Noon: the classic worlds are dark outdoors at night.
        cfg.engine.start_hour = Some(12);
    })
    .await
}

async fn login(srv: &TestServer, name: &str, new_char: bool) -> (WsClient, Value) {
    let mut a = WsClient::connect(srv.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": name, "password": "pw-guildtown", "new_char": new_char, "class": 3}})).await;
    let st = a.expect("state").await;
    (a, st)
}

/// Sends a command; the text that answers it.
async fn run(a: &mut WsClient, c: &str, id: &str) -> String {
    a.cmd(c, id).await;
    a.reply_text(id).await
}

/// Sends a command that moves; the first text that answers it and the room it ends in.
async fn walk(a: &mut WsClient, c: &str, id: &str) -> (String, u64) {
    a.cmd(c, id).await;
    let text = a.reply_text(id).await;
    let st = a.until(|v| v["re"] == id && v["type"] == "state").await;
    (text, st["data"]["room"]["vnum"].as_u64().unwrap())
}

#[tokio::test]
async fn an_agent_meets_the_guard_the_gate_the_bank_and_the_board() {
    let srv = guildtown().await;
    let (mut a, st) = login(&srv, "Wanda", true).await;
    assert_eq!(st["data"]["room"]["vnum"], 100);
    // A warrior at the cleric guild's door.
    let text = run(&mut a, "north", "n1").await;
    assert!(text.contains("humiliates you, and blocks your way"), "{text}");
    // Through the moon gate and back.
    let (text, room) = walk(&mut a, "enter gate", "g1").await;
    assert!(text.contains("You step into a shimmering moon gate"), "{text}");
    assert_eq!(room, 103);
    assert_eq!(walk(&mut a, "enter portal", "g2").await.1, 100);
    // The bank (east of the square: the guard kept the warrior there).
    assert_eq!(walk(&mut a, "east", "e1").await.1, 102);
    let gold = st["data"]["player"]["gold"].as_i64().unwrap();
    assert!(gold >= 10, "a newcomer has coins ({gold})");
    assert_eq!(run(&mut a, "deposit 10", "d1").await, "You deposit 10 coins.");
    assert_eq!(run(&mut a, "balance", "b1").await, "Your current balance is 10 coins.");
    // The board.
    assert_eq!(run(&mut a, "write Hello : the first post in Guildtown", "w1").await, "You post your message on the board.");
    let srv = srv.restart().await;
    let (mut a, st) = login(&srv, "Wanda", false).await;
    assert_eq!(st["data"]["room"]["vnum"], 102);
    let text = run(&mut a, "read 1", "r1").await;
    assert!(text.contains("(Wanda) :: Hello") && text.contains("the first post in Guildtown"), "{text}");
    assert_eq!(run(&mut a, "balance", "b2").await, "Your current balance is 10 coins.", "the bank outlives a restart too");
    srv.shutdown().await;
}

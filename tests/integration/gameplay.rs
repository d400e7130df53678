//! Gameplay beyond the basics on the tiny test world: secret doors, a shop, groups
//! sharing a kill, and player-killing protection.

use serde_json::{json, Value};

use crate::common::{TestServer, WsClient};

fn text(v: &Value) -> &str {
    v["data"]["text"].as_str().unwrap_or("")
}

struct P {
    c: WsClient,
    n: u32,
}

impl P {
    async fn new(s: &TestServer, name: &str, class: u8) -> P {
        let mut c = WsClient::connect(s.addr).await;
        c.send(json!({"type": "login", "data": {"player_name": name, "password": "pw-game", "new_char": true, "class": class, "race": 0}}))
            .await;
        c.expect("state").await;
        P { c, n: 0 }
    }

    async fn send(&mut self, line: &str) -> String {
        self.n += 1;
        let id = format!("g{}", self.n);
        self.c.cmd(line, &id).await;
        id
    }

    /// The first event answering `line` (its text).
    async fn run(&mut self, line: &str) -> String {
        let id = self.send(line).await;
        let v = self.c.until(|v| v["re"] == id.as_str() && v["type"] == "event").await;
        text(&v).to_string()
    }

    async fn expect(&mut self, line: &str, needle: &str) -> String {
        let id = self.send(line).await;
        let v = self.c.until(|v| v["re"] == id.as_str() && v["type"] == "event" && text(v).contains(needle)).await;
        text(&v).to_string()
    }

    async fn go(&mut self, dir: &str) -> u64 {
        let id = self.send(dir).await;
        let st = self.c.until(|v| v["re"] == id.as_str() && v["type"] == "state").await;
        st["data"]["room"]["vnum"].as_u64().unwrap()
    }
}

#[tokio::test]
async fn a_secret_door_is_found_by_searching_and_leads_to_a_shop() {
    // Searching is done in a quick loop here: lift the per-session command rate.
    let s = TestServer::start_with(|cfg| {
        cfg.cmd_rate = 1000.0;
        cfg.cmd_burst = 1000.0;
    })
    .await;
    let mut p = P::new(&s, "Sela", 2).await;
    assert_eq!(p.go("south").await, 8008);
    let exits = p.run("exits").await;
    assert!(!exits.contains("East"), "a closed secret door is no exit: {exits}");
    assert!(p.run("east").await.contains("cannot go that way"));
    assert!(p.run("open panel").await.contains("doesn't seem to be"), "nor can it be named");
    let mut found = false;
    for _ in 0..30 {
        if p.run("search").await.contains("You find a secret panel to the east!") {
            found = true;
            break;
        }
    }
    assert!(found, "searching finds the panel");
    assert!(p.run("exits").await.contains("East"));
    p.expect("open panel", "Ok.").await;
    assert_eq!(p.go("east").await, 8009);

    // The merchant: list, buy, value, sell; prices never below cost.
    let list = p.expect("list", "Cost").await;
    assert!(list.contains("A cloth bag"), "{list}");
    let bought = p.expect("buy bag", "That is").await;
    let price: i64 = bought.split_whitespace().find_map(|w| w.parse().ok()).unwrap();
    assert!(price >= 5, "never below the base cost of 5: {bought}");
    p.c.until(|v| text(v) == "You now have a cloth bag.").await;
    let value = p.expect("value bag", "I'll give you").await;
    let offer: i64 = value.split_whitespace().find_map(|w| w.parse().ok()).unwrap();
    assert!(offer < price, "a shop pays less than it charges ({offer} vs {price})");
    p.expect("sell bag", "Here,").await;
    p.expect("sell bag", "You don't have that.").await;
    assert!(p.run("buy sword").await.contains("I have no such thing."));
    s.shutdown().await;
}

#[tokio::test]
async fn a_group_shares_a_kill_and_low_levels_cannot_fight_each_other() {
    let s = TestServer::start().await;
    let mut a = P::new(&s, "Ansel", 3).await;
    let mut b = P::new(&s, "Bryn", 3).await;
    b.expect("follow ansel", "You now follow Ansel.").await;
    a.expect("group bryn", "Bryn is now a member of your group.").await;
    // The follower walks with the leader.
    assert_eq!(a.go("east").await, 8005);
    b.c.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] == 8005).await;
    // Level 1 players are protected from each other.
    let r = a.run("kill bryn").await;
    assert!(r.contains("until you are above level 10"), "{r}");
    // The dummy is worth 1000 to a level-1 killer: the two of them get 550 each.
    a.send("kill dummy").await;
    a.c.until(|v| text(v).contains("You receive 550 experience points.")).await;
    b.c.until(|v| text(v).contains("You receive 550 experience points.")).await;
    b.expect("gtell well fought", "You tell the group, 'well fought'").await;
    a.c.until(|v| text(v) == "Bryn tells the group, 'well fought'").await;
    a.expect("ungroup", "You disband the group.").await;
    assert!(b.run("gtell anyone?").await.contains("not the member of a group"));
    s.shutdown().await;
}

#[tokio::test]
async fn a_house_keeps_its_floor_and_rent_keeps_the_renter() {
    let s = TestServer::start().await;
    let mut p = P::new(&s, "Hestia", 3).await;
    assert_eq!(p.go("east").await, 8005);
    p.expect("get sword", "You get a test sword.").await;
    assert_eq!(p.go("north").await, 8010);
    p.expect("drop sword", "You drop a test sword.").await;
    let s = s.restart().await;
    let mut c = WsClient::connect(s.addr).await;
    c.send(json!({"type": "login", "data": {"player_name": "Hestia", "password": "pw-game"}})).await;
    let st = c.expect("state").await;
    assert_eq!(st["data"]["room"]["vnum"], 8010);
    let mut p = P { c, n: 100 };
    let look = p.expect("look", "The Test House").await;
    assert!(look.contains("A test sword lies here."), "the house floor survived the restart: {look}");
    p.expect("get sword", "You get a test sword.").await;
    // Rent: saved with its gear, the session ends, and the renter comes back in the inn.
    p.expect("rent", "stores your belongings").await;
    assert_eq!(p.c.closed().await, Some(1000));
    let mut c = WsClient::connect(s.addr).await;
    c.send(json!({"type": "login", "data": {"player_name": "Hestia", "password": "pw-game"}})).await;
    let st = c.expect("state").await;
    assert_eq!(st["data"]["room"]["vnum"], 8010);
    let mut p = P { c, n: 200 };
    p.expect("inventory", "a test sword").await;
    // Renting needs an innkeeper.
    assert_eq!(p.go("south").await, 8005);
    assert!(p.run("rent").await.contains("only rent at an inn"));
    s.shutdown().await;
}

#[tokio::test]
async fn food_and_drink_in_a_world_that_has_food() {
    let s = TestServer::start().await;
    let mut p = P::new(&s, "Pippa", 3).await;
    assert_eq!(p.go("south").await, 8008);
    p.expect("get bread", "You get a loaf of bread.").await;
    // A new character is fed and watered: CircleMUD's 24 of each.
    p.expect("eat bread", "You are too full to eat more!").await;
    p.expect("eat fountain", "You don't have that.").await;
    p.expect("drink", "Your stomach can't contain anymore!").await;
    p.expect("get waterskin", "You get a waterskin.").await;
    p.expect("drink waterskin", "It's empty.").await;
    p.expect("fill waterskin fountain", "You fill a waterskin.").await;
    p.expect("fill waterskin fountain", "already full").await;
    p.expect("drink waterskin", "Your stomach can't contain anymore!").await;
    p.expect("fill bread fountain", "You can't fill that!").await;
    s.shutdown().await;
}

#[tokio::test]
async fn socials_come_from_the_shipped_set_and_the_world() {
    let s = TestServer::start().await;
    let mut a = P::new(&s, "Ansel", 3).await;
    let mut b = P::new(&s, "Bryn", 3).await;
    let r = a.run("smile bryn").await;
    assert!(r.starts_with("You smile at "), "{r}");
    b.c.until(|v| text(v) == "Ansel smiles at you.").await;
    // The world added `salute` and replaced `wave`.
    a.expect("salute", "You salute smartly.").await;
    b.c.until(|v| text(v) == "Ansel salutes smartly.").await;
    a.expect("wave", "You wave like a test.").await;
    a.expect("bow nobody", "Bow to whom?").await;
    let list = a.expect("socials", "Socials:").await;
    assert!(list.contains("salute") && list.contains("greet"), "{list}");
    // Commands still win over socials: `l` is look, not laugh.
    a.expect("l", "The Test Temple").await;
    s.shutdown().await;
}

/// Kills a golden idol in the treasury: level 1 to level 11 in one kill.
async fn rise_to_eleven(p: &mut P) {
    assert_eq!(p.go("east").await, 8005);
    assert_eq!(p.go("east").await, 8011);
    p.send("kill idol").await;
    p.c.until(|v| text(v).contains("You are now level 11")).await;
}

#[tokio::test]
async fn above_level_ten_players_may_fight_and_a_charmed_mob_obeys() {
    let s = TestServer::start_with(|cfg| {
        cfg.cmd_rate = 1000.0;
        cfg.cmd_burst = 1000.0;
    })
    .await;
    let mut mage = P::new(&s, "Merla", 0).await;
    let mut war = P::new(&s, "Warin", 3).await;
    rise_to_eleven(&mut mage).await;
    // Above level 10 against level 1: the low one is still protected.
    assert_eq!(war.go("east").await, 8005);
    assert_eq!(war.go("east").await, 8011);
    let r = mage.run("kill warin").await;
    assert!(r.contains("are protected"), "{r}");
    war.send("kill idol").await;
    war.c.until(|v| text(v).contains("You are now level 11")).await;

    // The mage learns charm person from the guild master (it is in the treasury).
    let list = mage.expect("practice", "practice sessions left").await;
    assert!(list.contains("charm person"), "{list}");
    loop {
        let r = mage.run("practice charm person").await;
        if r.contains("learned") || r.contains("not seem to be able") {
            break;
        }
        assert!(r.contains("You practice charm person"), "{r}");
    }
    // Down to the sparring ring: charm the partner and give it orders.
    assert_eq!(mage.go("west").await, 8005);
    assert_eq!(mage.go("west").await, 8004);
    assert_eq!(mage.go("south").await, 8008);
    let mut charmed = false;
    for _ in 0..20 {
        let id = mage.send("cast 'charm person' partner").await;
        let v = mage
            .c
            .until(|v| {
                v["re"] == id.as_str()
                    && (text(v).contains("adoring eyes")
                        || text(v).contains("lost your concentration")
                        || text(v).contains("haven't the energy"))
            })
            .await;
        if text(&v).contains("adoring eyes") {
            charmed = true;
            break;
        }
        assert!(!text(&v).contains("energy"), "ran out of mana before the charm took");
    }
    assert!(charmed, "the charm takes");
    mage.expect("order partner say at your service", "Ok.").await;
    mage.c.until(|v| text(v) == "A sparring partner says, 'at your service'").await;
    // It follows its master out of the room.
    assert_eq!(mage.go("north").await, 8004);
    mage.c.until(|v| text(v).contains("A sparring partner has arrived.")).await;
    assert_eq!(mage.go("east").await, 8005);

    // Both above level 10: now they may fight.
    assert_eq!(war.go("west").await, 8005);
    let r = war.run("kill merla").await;
    assert!(r.contains("You attack"), "{r}");
    s.shutdown().await;
}

//! The real Dark Pawns world (`../shared/worlds/darkpawns`): loaded exactly, reset
//! within its max counts, imported only when asked, and played.
//!
//! The directory comes from `PAWNS_DARKPAWNS_WORLD` (set by `.ci/run`). When that is
//! set and the files are missing, these tests fail. When it is not set, the copy beside
//! the project is used if there is one, and the tests say they were skipped otherwise.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use pawns::game::run::engine::{Engine, EngineConfig};
use pawns::game::tools::world_check as check;
use pawns::server::{self, ServerConfig};
use pawns::worldfile;

pub fn darkpawns_dir() -> Option<PathBuf> {
    world_dir("PAWNS_DARKPAWNS_WORLD", "darkpawns")
}

/// A real world's directory: from `var` (set by `.ci/run`; missing files then fail the
/// test), else the copy in `../shared/worlds/NAME`, else `None` with a skip message.
pub fn world_dir(var: &str, name: &str) -> Option<PathBuf> {
    if let Ok(p) = std::env::var(var) {
        let p = PathBuf::from(p);
        assert!(p.join("wld/index").is_file(), "{var}={} holds no wld/index", p.display());
        return Some(p);
    }
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/worlds").join(name);
    if beside.join("wld/index").is_file() {
        return Some(beside);
    }
    eprintln!("skipped: no {name} world (set {var})");
    None
}

#[test]
fn the_indexed_world_loads_exactly() {
    let Some(dir) = darkpawns_dir() else { return };
    let loaded = worldfile::load_dir(&dir).unwrap();
    let r = check::report(dir.display().to_string(), &loaded);
    assert_eq!(
        r.counts,
        check::Counts {
            zones: 68,
            rooms: 8218,
            exits: 26009,
            mobs: 1115,
            objects: 1453,
            shops: 60,
            reset_commands: 5433,
            triggers: 0,
            trigger_attachments: 0,
            quests: 0,
            specials: 280
        }
    );
    assert_eq!(r.dangling_exits, 0);
    // What the world's own data says twice: its special table gives mob 8014 guild_guard
    // and then guild, mob 11024 magic_user and then cleric (the later assignment stands,
    // as in the original server's assignment code).
    assert_eq!(r.warnings.len(), 2, "{:?}", &r.warnings[..r.warnings.len().min(5)]);
    assert!(r.warnings[0].contains("mob 8014 is assigned guild_guard and then guild"), "{}", r.warnings[0]);
    assert!(r.warnings[1].contains("mob 11024 is assigned magic_user and then cleric"), "{}", r.warnings[1]);
    // Its special procedures are read and listed.
    let spec = |k: &str| r.specials.iter().find(|(n, _)| n == k).map(|(_, c)| *c);
    assert_eq!((spec("magic_user"), spec("cityguard"), spec("gen_board")), (Some(54), Some(8), Some(12)));
    assert!(loaded.world.specials.iter().any(|a| a.vnum == 8014 && a.special == "guild"));
    // The ones this server runs are attached to their mobs when the world is built.
    let fidos: Vec<u32> = loaded.world.specials.iter().filter(|a| a.special == "fido").map(|a| a.vnum).collect();
    let world = pawns::game::model::world::World::new(loaded.world.clone());
    assert_eq!(fidos.len(), 4);
    assert!(fidos.iter().all(|v| world.mob_specials.get(v).map(String::as_str) == Some("fido")), "{fidos:?}");
    assert!(world.mob_specials.values().all(|s| pawns::worldfile::specials::SUPPORTED.contains(&s.as_str())));
    // Every assignment of a procedure this server runs is attached (the later row of a
    // twice-assigned mob standing), mobs, boards, banks and gates alike.
    let supported =
        |a: &&pawns::worldfile::specials::SpecialAssignment| pawns::worldfile::specials::SUPPORTED.contains(&a.special.as_str());
    for a in loaded.world.specials.iter().filter(supported) {
        let map = match a.kind {
            pawns::worldfile::specials::SpecialKind::Mob => &world.mob_specials,
            pawns::worldfile::specials::SpecialKind::Obj => &world.obj_specials,
            pawns::worldfile::specials::SpecialKind::Room => &world.room_specials,
        };
        let last = loaded.world.specials.iter().rev().find(|b| b.kind == a.kind && b.vnum == a.vnum).unwrap();
        if supported(&last) {
            assert_eq!(map.get(&a.vnum), Some(&last.special), "{a:?}");
        }
    }
    let count = |m: &std::collections::HashMap<u32, String>, k: &str| m.values().filter(|s| s.as_str() == k).count();
    assert_eq!((count(&world.mob_specials, "magic_user"), count(&world.mob_specials, "cityguard")), (54, 8));
    assert_eq!(
        (count(&world.obj_specials, "gen_board"), count(&world.obj_specials, "bank"), count(&world.obj_specials, "moon_gate")),
        (12, 2, 10)
    );
    let temple = loaded.world.rooms.iter().find(|r| r.vnum == 8004).expect("room 8004");
    assert!(temple.name.to_lowercase().contains("temple"), "{}", temple.name);
    // The Dark Pawns shapes are kept as data: four flag words, load percentages, E-specs.
    assert!(loaded.world.objs.iter().all(|o| o.load_percent.is_some()));
    assert!(loaded.world.mobs.iter().any(|m| m.specs.iter().any(|(k, _)| k.eq_ignore_ascii_case("race"))));
}

#[tokio::test]
async fn the_first_reset_obeys_every_max_count() {
    let Some(dir) = darkpawns_dir() else { return };
    let world = worldfile::load_dir(&dir).unwrap().world;
    let mut mob_max: HashMap<u32, i32> = HashMap::new();
    let mut obj_max: HashMap<u32, i32> = HashMap::new();
    for z in &world.zones {
        for c in &z.commands {
            let m = match c.command {
                'M' => &mut mob_max,
                'O' | 'G' | 'E' | 'P' => &mut obj_max,
                _ => continue,
            };
            let e = m.entry(c.args[0] as u32).or_insert(0);
            *e = (*e).max(c.args[1]);
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(tmp.path().join("t.redb")).unwrap();
    let (saves, _writer) = pawns::game::records::persist::spawn_writer(Arc::new(store), Default::default());
    let engine = Engine::new(world, EngineConfig { seed: 11, ..Default::default() }, saves);
    let w = &engine.world;
    let mut mobs: HashMap<u32, i32> = HashMap::new();
    for vnum in w.chars.values().filter_map(|c| c.npc_vnum) {
        *mobs.entry(vnum).or_default() += 1;
    }
    let mut objs: HashMap<u32, i32> = HashMap::new();
    for o in w.objs.values() {
        *objs.entry(o.vnum).or_default() += 1;
    }
    assert!(mobs.values().sum::<i32>() > 2000, "the first reset populates the world ({} mobs)", mobs.values().sum::<i32>());
    assert!(objs.values().sum::<i32>() > 500, "and loads objects ({})", objs.values().sum::<i32>());
    for (vnum, n) in &mobs {
        let max = mob_max.get(vnum).copied().unwrap_or(0);
        assert!(*n <= max, "mob {vnum}: {n} loaded, max {max}");
    }
    for (vnum, n) in &objs {
        let max = obj_max.get(vnum).copied().unwrap_or(0);
        assert!(*n <= max, "object {vnum}: {n} loaded, max {max}");
    }
    // Load percentages are rolled: an object at 10% does not appear everywhere it could.
    let rare: Vec<u32> = w.obj_protos.values().filter(|o| o.load_percent.is_some_and(|p| p <= 10.0)).map(|o| o.vnum).collect();
    let placed_rare: i32 = rare.iter().map(|v| objs.get(v).copied().unwrap_or(0)).sum();
    let could: i32 = rare.iter().map(|v| obj_max.get(v).copied().unwrap_or(0).min(3)).sum();
    assert!(placed_rare < could, "rare objects are rolled ({placed_rare} of at most {could})");
}

#[tokio::test]
async fn a_different_world_is_only_imported_when_asked() {
    let Some(dir) = darkpawns_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = ServerConfig { db: tmp.path().join("w.redb"), ..Default::default() };
    cfg.engine.pulse = std::time::Duration::from_millis(20);
    // First start: the starter world.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::start(cfg.clone(), listener).await.unwrap().shutdown().await;
    // A different --world without --reimport is refused with a clear message.
    cfg.world = Some(dir.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let err = match server::start(cfg.clone(), listener).await {
        Ok(_) => panic!("a different world was accepted without --reimport"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("world_mismatch") && err.contains("--reimport"), "{err}");
    // With --reimport it replaces the world; later starts need no flag at all.
    cfg.reimport = true;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::start(cfg.clone(), listener).await.unwrap().shutdown().await;
    cfg.reimport = false;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::start(cfg.clone(), listener).await.unwrap().shutdown().await;
    cfg.world = None;
    let (store, _) = pawns_storage::Store::open(&cfg.db).unwrap();
    let w = worldfile::stored::load(&store).unwrap().unwrap();
    assert_eq!(w.rooms.len(), 8218);
}

pub mod play {
    //! Playing the Dark Pawns world over the real protocol: routes are planned from the
    //! world files (doorless exits only), so the test follows the data, not guesses.

    use std::collections::{HashMap, VecDeque};

    use serde_json::{json, Value};

    use super::darkpawns_dir;
    use crate::common::{TestServer, WsClient};
    use pawns::worldfile::{self, WorldProto, DIR_NAMES};

    /// Directions from `from` to `to` through exits without doors.
    pub fn route(w: &WorldProto, from: u32, to: u32) -> Option<Vec<usize>> {
        let rooms: HashMap<u32, &worldfile::RoomProto> = w.rooms.iter().map(|r| (r.vnum, r)).collect();
        let mut prev: HashMap<u32, (u32, usize)> = HashMap::new();
        let mut q = VecDeque::from([from]);
        while let Some(x) = q.pop_front() {
            if x == to {
                let mut path = Vec::new();
                let mut cur = to;
                while cur != from {
                    let (p, d) = prev[&cur];
                    path.push(d);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for (d, e) in rooms.get(&x)?.exits.iter().enumerate() {
                let Some(e) = e else { continue };
                let t = e.to_room as u32;
                if e.door_flags == 0 && rooms.contains_key(&t) && t != from && !prev.contains_key(&t) {
                    prev.insert(t, (x, d));
                    q.push_back(t);
                }
            }
        }
        None
    }

    /// Where zone resets put each mob (first M command).
    pub fn mob_homes(w: &WorldProto) -> HashMap<u32, u32> {
        let mut homes = HashMap::new();
        for z in &w.zones {
            for c in z.commands.iter().filter(|c| c.command == 'M') {
                homes.entry(c.args[0] as u32).or_insert(c.args[2] as u32);
            }
        }
        homes
    }

    /// The nearest shop from `from` whose keeper a reset puts in it, open at noon, and
    /// something it sells: (route, item).
    pub fn open_shop<'w>(w: &'w WorldProto, homes: &HashMap<u32, u32>, from: u32) -> (Vec<usize>, &'w worldfile::ObjProto) {
        let objs: HashMap<u32, &worldfile::ObjProto> = w.objs.iter().map(|o| (o.vnum, o)).collect();
        w.shops
            .iter()
            .filter(|sh| pawns::game::rules::clock::open_at(12, sh.open1, sh.close1, sh.open2, sh.close2))
            .filter_map(|sh| {
                let home = *homes.get(&(sh.keeper as u32))?;
                if !sh.rooms.contains(&(home as i32)) {
                    return None;
                }
                let item = sh.producing.iter().filter_map(|v| objs.get(&(*v as u32))).find(|o| o.cost > 0 && !o.keywords.is_empty())?;
                Some((route(w, from, home)?, *item))
            })
            .min_by_key(|(p, _)| p.len())
            .expect("a reachable shop with something to sell")
    }

    /// The nearest shop from `from` whose keeper a reset puts in it, open at noon, that
    /// buys one of `wares` (a new character's kit: it starts with no gold, as Dark Pawns
    /// gives none) and sells something that sale pays for whatever the seller's
    /// charisma: (route, what to sell, what to buy).
    pub fn trading_shop<'w>(
        w: &'w WorldProto,
        homes: &HashMap<u32, u32>,
        from: u32,
        wares: &[u32],
    ) -> (Vec<usize>, &'w worldfile::ObjProto, &'w worldfile::ObjProto) {
        use pawns::game::rules::shops::{buy_price, sell_price, trades_in};
        let objs: HashMap<u32, &worldfile::ObjProto> = w.objs.iter().map(|o| (o.vnum, o)).collect();
        w.shops
            .iter()
            .filter(|sh| pawns::game::rules::clock::open_at(12, sh.open1, sh.close1, sh.open2, sh.close2))
            .filter_map(|sh| {
                let home = *homes.get(&(sh.keeper as u32))?;
                if !sh.rooms.contains(&(home as i32)) {
                    return None;
                }
                let sold = wares
                    .iter()
                    .filter_map(|v| objs.get(v))
                    .find(|o| o.cost > 0 && sh.buy_types.iter().any(|l| trades_in(l, o.item_type, &o.keywords)))?;
                let offer = (3..=18).map(|cha| sell_price(sold.cost, sh.profit_buy, sh.profit_sell, cha)).min()?;
                let item =
                    sh.producing.iter().filter_map(|v| objs.get(&(*v as u32))).find(|o| {
                        o.cost > 0 && !o.keywords.is_empty() && (3..=18).all(|cha| buy_price(o.cost, sh.profit_buy, cha) <= offer)
                    })?;
                Some((route(w, from, home)?, *sold, *item))
            })
            .min_by_key(|(p, _, _)| p.len())
            .expect("a reachable shop buys a kit item and sells something its price buys")
    }

    pub struct Player {
        pub c: WsClient,
        pub n: u32,
        pub room: u32,
    }

    impl Player {
        pub async fn new(s: &TestServer, name: &str, class: u8) -> Player {
            let mut c = WsClient::connect(s.addr).await;
            c.send(
                json!({"type": "login", "data": {"player_name": name, "password": "pw-dark", "new_char": true, "class": class, "race": 0}}),
            )
            .await;
            let st = c.expect("state").await;
            let room = st["data"]["room"]["vnum"].as_u64().unwrap() as u32;
            Player { c, n: 0, room }
        }

        /// Sends a command; returns its id. Unpaced: these servers take commands as fast
        /// as they come (`cmd_rate`); a `rate_limited` answer says how long to wait.
        pub async fn send(&mut self, line: &str) -> String {
            self.n += 1;
            let id = format!("c{}", self.n);
            self.c.cmd(line, &id).await;
            id
        }

        /// Runs a command and waits for an event answering it whose text has `needle`.
        pub async fn expect(&mut self, line: &str, needle: &str) -> String {
            let id = self.send(line).await;
            let v = self.c.until(|v| v["re"] == id.as_str() && v["type"] == "event" && text(v).contains(needle)).await;
            text(&v).to_string()
        }

        /// A new Dark Pawns character's first command in the burning hut (8099) brings the
        /// vision and the temple infirmary (8162); from there it walks to the altar (8004).
        pub async fn awaken(&mut self, w: &pawns::worldfile::WorldProto) {
            assert_eq!(self.room, 8099, "a new life begins in the burning hut");
            let id = self.send("look").await;
            let v = self.c.until(|v| v["re"] == id.as_str() && v["type"] == "state").await;
            assert_eq!(v["data"]["room"]["vnum"], 8162, "the vision carries it to the infirmary");
            self.room = 8162;
            self.walk(&route(w, 8162, 8004).expect("the altar is reachable")).await;
        }

        /// Walks, waiting out the command rate (10/s) when a long walk meets it.
        pub async fn walk(&mut self, dirs: &[usize]) {
            for d in dirs {
                loop {
                    let id = self.send(DIR_NAMES[*d]).await;
                    let v = self.c.until(|v| v["re"] == id.as_str() && (v["type"] == "state" || v["type"] == "error")).await;
                    if v["type"] == "error" {
                        assert_eq!(v["data"]["code"], "rate_limited", "{v}");
                        // As long as the server said (no API but its answer shows when).
                        let ms = v["data"]["retry_after_ms"].as_u64().unwrap_or(100);
                        tokio::time::sleep(std::time::Duration::from_millis(ms + 10)).await;
                        continue;
                    }
                    self.room = v["data"]["room"]["vnum"].as_u64().unwrap() as u32;
                    break;
                }
            }
        }
    }

    pub fn text(v: &Value) -> &str {
        v["data"]["text"].as_str().unwrap_or("")
    }

    #[tokio::test]
    async fn buy_group_cast_die_and_respawn_in_dark_pawns() {
        let Some(dir) = darkpawns_dir() else { return };
        let w = worldfile::load_dir(&dir).unwrap().world;
        let homes = mob_homes(&w);
        let s = TestServer::start_with(|cfg| {
            cfg.world = Some(dir.clone());
            cfg.engine.start_hour = Some(12);
            // The players below walk and fight unpaced (the protocol's 10 a second would
            // only make the test wait).
            cfg.cmd_rate = 1000.0;
        })
        .await;

        // Two players group at the temple; the follower walks with the leader.
        let mut brin = Player::new(&s, "Brin", 3).await;
        // Dark Pawns' own kit and welcome: a warrior carries the short sword, the frayed
        // tunic and the (closed) backpack with bread and a water skin — nothing worn.
        let vars = brin.c.expect("vars").await;
        let carried: Vec<&str> = vars["data"]["INVENTORY"].as_array().unwrap().iter().filter_map(|i| i["name"].as_str()).collect();
        assert!(["a short sword", "a frayed tunic", "a backpack"].iter().all(|n| carried.contains(n)), "{carried:?}");
        assert!(vars["data"]["EQUIPMENT"].as_object().is_none_or(|m| m.values().all(Value::is_null)), "{}", vars["data"]["EQUIPMENT"]);
        brin.awaken(&w).await;
        brin.expect("wield sword", "You wield").await;
        brin.expect("wear tunic", "You wear").await;
        brin.expect("open backpack", "Ok.").await;
        let pack = brin.expect("look in backpack", "loaf of bread").await;
        assert!(pack.contains("water skin"), "{pack}");
        assert!(brin.c.seen.iter().any(|v| text(v).contains("Welcome to Dark Pawns!")), "the world's own welcome");
        // The main road south of the Temple of the Cross has no door: a `D` reset on the
        // other side of 8021 must not close it (it did: "The door seems to be closed.").
        let to_cross = route(&w, 8004, 8008).expect("8008 is reachable");
        brin.walk(&to_cross).await;
        brin.walk(&[2]).await;
        assert_eq!(brin.room, 8021, "south of 8008 is the main road");
        brin.walk(&route(&w, 8021, 8004).expect("back to the temple")).await;
        let mut cora = Player::new(&s, "Cora", 3).await;
        cora.awaken(&w).await;
        cora.expect("follow brin", "You now follow Brin").await;
        brin.expect("group cora", "is now a member of your group").await;
        brin.expect("gtell stay close", "You tell the group").await;
        cora.c.until(|v| text(v).contains("Brin tells the group, 'stay close'")).await;
        let g = brin.expect("group", "Your group consists of").await;
        assert!(g.contains("Cora") && g.contains("Head of group"), "{g}");

        // A new character has no gold (Dark Pawns's do_start): it sells a thing of its
        // kit where the shop buys such things, and buys something with the coins.
        let kit: Vec<u32> = vec![8037, 8019, 8038, 8010, 8063];
        let (path, sold, item) = trading_shop(&w, &homes, 8004, &kit);
        brin.walk(&path).await;
        let sold_kw = sold.keywords.split_whitespace().next().unwrap();
        // It may be wielded or worn (the sword, the tunic): taken off first.
        let id = brin.send(&format!("remove {sold_kw}")).await;
        brin.c.until(|v| v["re"] == id.as_str() && v["type"] == "event").await;
        let id = brin.send(&format!("sell {sold_kw}")).await;
        brin.c.until(|v| v["re"] == id.as_str() && v["type"] == "event").await;
        let list = brin.expect("list", "Cost").await;
        assert!(list.to_lowercase().contains(&item.short_descr.to_lowercase()), "{list}");
        let kw = item.keywords.split_whitespace().next().unwrap();
        brin.expect(&format!("buy {kw}"), "You now have").await;
        let inv = brin.expect("inventory", "carrying").await;
        assert!(inv.to_lowercase().contains(&item.short_descr.to_lowercase()), "{inv}");
        // Cora followed every step.
        let st = cora.c.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] == brin.room).await;
        assert_eq!(st["data"]["room"]["vnum"], brin.room);

        // A cleric practises at the guild and casts.
        let mut lia = Player::new(&s, "Lia", 1).await;
        lia.awaken(&w).await;
        let guild = w
            .mobs
            .iter()
            .find(|m| m.keywords.contains("guildmaster") && m.keywords.contains("cleric"))
            .and_then(|m| homes.get(&m.vnum))
            .copied()
            .expect("a cleric guild master");
        lia.walk(&route(&w, 8004, guild).expect("the guild is reachable")).await;
        for _ in 0..2 {
            lia.expect("practice cure light", "You practice for a while...").await;
        }
        // Two practices teach a cleric at least 50 % (Dark Pawns: 25 to 100 a session, by
        // intelligence): a cast is a roll against that, and each one costs mana, which
        // comes back with the hourly tick (3 s at this pulse).
        let mut cast = false;
        let mut tries = 0;
        while tries < 60 {
            let id = lia.send("cast 'cure light' self").await;
            let v = lia
                .c
                .until(|v| {
                    v["re"] == id.as_str()
                        && v["type"] == "event"
                        && (text(v) == "Ok." || text(v).contains("lost your concentration") || text(v).contains("haven't the energy"))
                })
                .await;
            if text(&v) == "Ok." {
                cast = true;
                break;
            }
            if text(&v).contains("haven't the energy") {
                // (A fixed wait: mana comes back at the mud hour's tick, 3 s of pulses here.)
                tokio::time::sleep(std::time::Duration::from_millis(3100)).await;
                continue;
            }
            tries += 1;
        }
        assert!(cast, "a practised cleric casts cure light within 60 tries");

        // Brin picks a fight far above his level and dies; he wakes at the temple. (He
        // recalls there first: a level-1 character's `recall`.)
        let id = brin.send("recall").await;
        brin.c.until(|v| v["re"] == id.as_str() && v["type"] == "state" && v["data"]["room"]["vnum"] == 8004).await;
        brin.room = 8004;
        // The nark of Kir Drax'in's zoo (14531): the original's level-1 character dies
        // to it ("The nark massacres you to small fragments with its pound.").
        let victim = w.mobs.iter().find(|m| m.vnum == 14531).expect("the nark");
        let dirs = route(&w, brin.room, homes[&victim.vnum]).expect("the zoo is reachable");
        cora.expect("follow self", "You stop following").await;
        brin.walk(&dirs).await;
        let kw = victim.keywords.split_whitespace().next().unwrap();
        brin.send(&format!("kill {kw}")).await;
        brin.c.until(|v| text(v).contains("You are dead")).await;
        let st = brin.c.until(|v| v["type"] == "state").await;
        assert_eq!(st["data"]["room"]["vnum"], 8004, "respawn at the temple");
        s.shutdown().await;
    }
}

/// A telnet player of Dark Pawns chooses a hometown after the class, as its `nanny`
/// does ("Choose your home town:"); a Kir-Oshi citizen's vision in the burning hut
/// leaves it at Kir-Oshi's altar (18201), and `score` names its city.
#[tokio::test]
async fn a_telnet_player_chooses_a_hometown_and_wakes_there() {
    let Some(dir) = darkpawns_dir() else { return };
    let s = crate::common::TestServer::start_with(|cfg| {
        cfg.world = Some(dir.clone());
        cfg.reimport = true;
        // Noon: the classic worlds are dark outdoors at night.
        cfg.engine.start_hour = Some(12);
    })
    .await;
    let mut t = crate::common::Telnet::connect(s.addr).await;
    t.until("known? ").await;
    for (say, wait) in [
        ("Oshian", "(Y/N)? "),
        ("y", ": "),
        ("pw-oshi-1", "retype password: "),
        ("pw-oshi-1", "(M/F)? "),
        ("m", "Race: "),
        ("0", "Class: "),
    ] {
        t.line(say).await;
        t.until(wait).await;
    }
    t.line("3").await;
    let menu = t.until("Select: ").await;
    assert!(menu.contains("Kir-[O]shi     - The Port City."), "{menu}");
    t.line("x").await;
    assert!(t.until("Select: ").await.contains("Invalid choice!"));
    t.line("o").await;
    t.until("reroll (R)? ").await;
    t.line("k").await;
    t.until("V > ").await;
    t.line("look").await;
    let seen = t.until("V > ").await;
    assert!(seen.contains("now is not your time to die"), "{seen}");
    assert!(seen.contains(&*w_room_name(&dir, 18201)), "Kir-Oshi's altar: {seen}");
    t.line("score").await;
    assert!(t.until("V > ").await.contains("You are a citizen of Kir-Oshi."));
}

fn w_room_name(dir: &std::path::Path, vnum: u32) -> String {
    worldfile::load_dir(dir).unwrap().world.rooms.iter().find(|r| r.vnum == vnum).map(|r| r.name.clone()).unwrap()
}

//! `pawns bench search`: writes a record of N events shaped like real play (agents
//! walking, fighting, talking, looting, in sessions) into a scratch data file the way the
//! recorder does, indexes it the way the server's indexer does, then times a mix of the
//! searches people run. Prints write and index rates and search p50/p99 per query.

use std::time::{Duration, Instant};

use pawns_storage::{DecisionRecord, EventRecord, RecordBatch, RecordBody, SessionMeta, StateSnapshot, Store, Transition};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::cli::BenchSearchArgs;
use pawns::search::{index_dir, SearchIndex, SearchQuery};

/// Records per batch: what a busy server's recorder commits at once.
const BATCH: usize = 2_000;
const AGENTS: usize = 200;

const MOBS: [&str; 24] = [
    "a small goblin",
    "a cave troll",
    "a rabid wolf",
    "the town guard",
    "a giant rat",
    "an orc warrior",
    "a skeleton",
    "a black bear",
    "a wandering minstrel",
    "the innkeeper",
    "a hill giant",
    "a fire beetle",
    "a lost spirit",
    "a bandit",
    "a grey ooze",
    "the high priest",
    "a kobold scout",
    "a swamp lizard",
    "a young dragon",
    "a stone golem",
    "a forest sprite",
    "a ghoul",
    "a merchant",
    "an ancient lich",
];
const ITEMS: [&str; 8] = [
    "a long sword",
    "a leather cap",
    "a healing potion",
    "a loaf of bread",
    "a silver ring",
    "a wooden shield",
    "a torch",
    "a bag of gold",
];
const ROOMS: [&str; 8] =
    ["The Temple", "Market Square", "The Dark Forest", "A Narrow Tunnel", "The Great Hall", "A Muddy Road", "The Docks", "A Cold Cave"];
const SAYINGS: [&str; 8] = [
    "anyone want to group",
    "where is the healer",
    "thanks for the help",
    "watch out for the troll",
    "selling a sword cheap",
    "hello there",
    "follow me north",
    "I need a rest",
];

fn snapshot(rng: &mut SmallRng, room: u32) -> StateSnapshot {
    StateSnapshot {
        hp: rng.gen_range(1..100),
        max_hp: 100,
        mana: 50,
        max_mana: 50,
        moves: 80,
        max_moves: 80,
        position: "standing".into(),
        room_vnum: room,
        room_name: ROOMS[room as usize % ROOMS.len()].into(),
        fighting: None,
        level: rng.gen_range(1..30),
        exp: rng.gen_range(0..100_000),
        gold: rng.gen_range(0..5_000),
    }
}

/// One event of play, shaped like what the engine records.
pub(crate) fn event(rng: &mut SmallRng, session: u64, seq: u64, agent: &str, at_us: u64) -> EventRecord {
    let room = 3000 + rng.gen_range(0..400u32);
    let mob = MOBS[rng.gen_range(0..MOBS.len())];
    let body = match rng.gen_range(0..100) {
        0..=29 => {
            let (command, args) = match rng.gen_range(0..6) {
                0 => ("kill", mob.rsplit(' ').next().unwrap_or(mob).to_string()),
                1 => ("say", SAYINGS[rng.gen_range(0..SAYINGS.len())].to_string()),
                2 => ("get", "all".to_string()),
                3 => ("look", String::new()),
                _ => (["north", "south", "east", "west"][rng.gen_range(0..4)], String::new()),
            };
            let pre = snapshot(rng, room);
            RecordBody::Decision(Box::new(DecisionRecord {
                turn: seq,
                command: command.into(),
                args,
                status: "ok".into(),
                post: pre.clone(),
                pre,
                received_us: at_us,
                dispatched_us: at_us + 50,
                completed_us: at_us + 900,
                latency_us: 900,
                ..Default::default()
            }))
        }
        30..=69 => {
            let (event_type, text) = match rng.gen_range(0..5) {
                0 => ("combat", format!("You hit {mob} hard.")),
                1 => ("combat", format!("{} misses you.", capital(mob))),
                2 => ("say", format!("Someone says, '{}'", SAYINGS[rng.gen_range(0..SAYINGS.len())])),
                3 => ("enter", format!("{} arrives from the north.", capital(mob))),
                _ => ("text", format!("{}\nA quiet place.", ROOMS[rng.gen_range(0..ROOMS.len())])),
            };
            RecordBody::Observation { event_type: event_type.into(), text: text.into(), from: None }
        }
        _ => RecordBody::Transition(match rng.gen_range(0..6) {
            0 => Transition::Kill { victim: mob.into(), victim_level: rng.gen_range(1..40), victim_is_player: false, level: 10 },
            1 => Transition::ItemAcquired { vnum: 100, name: ITEMS[rng.gen_range(0..ITEMS.len())].into(), level: rng.gen_range(1..60) },
            2 => Transition::Room { from: room, to: room + 1, name: ROOMS[rng.gen_range(0..ROOMS.len())].into() },
            3 => Transition::Exp { from: 1000, to: 1000 + rng.gen_range(1..500) },
            4 => Transition::Death { killer: Some(mob.into()), exp_lost: rng.gen_range(10..500) },
            _ => Transition::Hp { from: 80, to: rng.gen_range(1..80), max: 100, by: Some(mob.into()) },
        }),
    };
    EventRecord { session, seq, agent: agent.into(), at_us, room_vnum: room, body }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn run(args: BenchSearchArgs) -> anyhow::Result<()> {
    let db = args.db.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("pawns-bench-search-{}.redb", std::process::id())));
    if db.exists() && !args.reuse {
        anyhow::bail!("{} exists; pass --reuse to search it as it is, or name a new file", db.display());
    }
    println!("====== pawns bench search ======");
    let (store, _) = Store::open(&db)?;
    let have = store.records_after(store.last_record_id()?.saturating_sub(1), 1)?.len();
    if !args.reuse || have == 0 {
        write_record(&store, args.events)?;
    }
    let dir = index_dir(&db);
    let (ix, _) = SearchIndex::open(&dir)?;
    let mut w = ix.writer()?;
    let t = Instant::now();
    let mut at = ix.watermark();
    let docs = pawns::search::indexer::catch_up(&store, &ix, &mut w, &mut at, None, &mut |_, _| {}, &mut |_| {})?;
    ix.commit(&mut w, at)?;
    w.wait_merging_threads()?;
    let took = t.elapsed();
    if docs > 0 {
        println!(
            "  index:   {docs} records in {:.1} s = {:.0} records/s (one indexing thread)",
            took.as_secs_f64(),
            docs as f64 / took.as_secs_f64()
        );
    }
    let (ix, _) = SearchIndex::open(&dir)?;
    println!(
        "  index holds {} documents (one per command, one per crowd's message), {:.0} MiB on disk",
        ix.docs(),
        dir_size(&dir) as f64 / 1048576.0
    );
    let day_ago = pawns::record::unix_us().saturating_sub(86_400_000_000);
    let queries: Vec<(&str, SearchQuery)> = vec![
        ("word (troll)", SearchQuery { q: "troll".into(), limit: 20, ..Default::default() }),
        ("phrase (\"small goblin\")", SearchQuery { q: "\"small goblin\"".into(), limit: 20, ..Default::default() }),
        ("two words (kill dragon)", SearchQuery { q: "kill dragon".into(), limit: 20, ..Default::default() }),
        ("word + agent", SearchQuery { q: "lich".into(), agent: Some("agent7".into()), limit: 20, ..Default::default() }),
        ("word + kind combat", SearchQuery { q: "ghoul".into(), kind: Some("combat".into()), limit: 20, ..Default::default() }),
        ("agent, everything", SearchQuery { agent: Some("agent42".into()), limit: 20, ..Default::default() }),
        ("word + since 1d", SearchQuery { q: "healer".into(), since_us: day_ago, limit: 20, ..Default::default() }),
        ("common word, limit 100", SearchQuery { q: "you".into(), limit: 100, ..Default::default() }),
    ];
    println!("  {:<28} {:>9} {:>9} {:>9} {:>10}", "query", "p50 ms", "p99 ms", "max ms", "matches");
    let mut all = Vec::new();
    for (name, q) in &queries {
        let mut times = Vec::with_capacity(args.rounds);
        let mut total = 0;
        for _ in 0..args.rounds.max(1) {
            let t = Instant::now();
            let found = ix.search_in(&store, q)?;
            times.push(t.elapsed());
            total = found.total;
        }
        times.sort();
        all.extend(times.iter().copied());
        println!(
            "  {:<28} {:>9.2} {:>9.2} {:>9.2} {:>10}",
            name,
            ms(pct(&times, 0.5)),
            ms(pct(&times, 0.99)),
            ms(*times.last().unwrap_or(&Duration::ZERO)),
            total
        );
    }
    all.sort();
    println!(
        "  {:<28} {:>9.2} {:>9.2} {:>9.2}",
        "ALL",
        ms(pct(&all, 0.5)),
        ms(pct(&all, 0.99)),
        ms(*all.last().unwrap_or(&Duration::ZERO))
    );
    if args.db.is_none() {
        drop(ix);
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_file(&db);
    }
    Ok(())
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// Writes `n` events in recorder-sized batches, spread over the last 30 days.
fn write_record(store: &Store, n: u64) -> anyhow::Result<()> {
    let mut rng = SmallRng::seed_from_u64(37);
    let now = pawns::record::unix_us();
    let span = 30 * 86_400_000_000u64;
    let step = span / n.max(1);
    let bar = indicatif::ProgressBar::new(n);
    let t = Instant::now();
    let mut seq = vec![0u64; AGENTS];
    let mut written = 0u64;
    while written < n {
        let mut batch = RecordBatch::default();
        let take = (n - written).min(BATCH as u64);
        for i in 0..take {
            let a = rng.gen_range(0..AGENTS);
            seq[a] += 1;
            let at = now - span + (written + i) * step;
            batch.records.push(event(&mut rng, a as u64 + 1, seq[a], &format!("agent{a}"), at));
        }
        if written == 0 {
            for a in 0..AGENTS {
                batch.sessions.push(SessionMeta {
                    session: a as u64 + 1,
                    agent: format!("agent{a}"),
                    is_agent: true,
                    started_us: now - span,
                    valence: true,
                    ..Default::default()
                });
            }
        }
        store.write_records(&batch)?;
        written += take;
        bar.set_position(written);
    }
    bar.finish_and_clear();
    let took = t.elapsed();
    println!(
        "  record:  {n} events in {:.1} s = {:.0} events/s written (batches of {BATCH})",
        took.as_secs_f64(),
        n as f64 / took.as_secs_f64()
    );
    Ok(())
}

fn dir_size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum()).unwrap_or(0)
}

//! `pawns bench hud`: an agent in busy conversation contexts (5 × 1,000 messages by
//! default, with a full knowledge store and 20 recent actions): how long one HUD takes to
//! cut to its budget and write (p50/p99, per format) when a new message arrived since the
//! last one, and when nothing did; and what it costs in tokens.

use std::time::Instant;

use pawns::hud::{assemble, HudFormat, HudMessage, HudParts, RecentAction, RoomParts};
use serde_json::{json, Map, Value};

use crate::bench::agents::percentile;
use crate::cli::BenchHudArgs;

const SENDERS: &[&str] = &["Bram", "Cyra", "Dunmore", "Elsie", "Fenwick", "Gorrim", "Hale"];
const LINES: &[&str] = &[
    "the goblins are back at the north gate",
    "anyone selling a lantern? I will pay well",
    "heal me please, the bear got me",
    "group up at the temple in five minutes",
    "I saw a shadow moving in the crypt below the chapel",
    "thanks for the help earlier, I owe you one",
];

fn parts(args: &BenchHudArgs) -> HudParts {
    let mut knowledge = Map::new();
    for i in 0..40 {
        knowledge.insert(format!("fact{i}"), json!({"v": format!("something learned about the world, number {i}"), "w": 0.5}));
    }
    let contexts = ["here", "group", "tells", "gossip", "shout", "room6", "room7", "room8"];
    let rooms = (0..args.contexts)
        .map(|r| {
            let id = contexts.get(r).map(|s| s.to_string()).unwrap_or_else(|| format!("room{r}"));
            let header: Map<String, Value> = serde_json::from_value(json!({
                "id": id, "you": "Ann", "is_self_room": false, "members": SENDERS, "time_since_last": "2 minutes", "word_budget": 120
            }))
            .unwrap_or_default();
            let messages = (0..args.messages)
                .map(|i| HudMessage {
                    id: (r * 1_000_000 + i) as u64,
                    timestamp: "2026-11-23T10:00:00.000Z".into(),
                    sender: SENDERS[i % SENDERS.len()].into(),
                    content: format!("{} says, '{}'", SENDERS[i % SENDERS.len()], LINES[(i + r) % LINES.len()]).into(),
                    kind: "say",
                    you: SENDERS[i % SENDERS.len()] == "Ann",
                    // Some talk is answered and reacted to, as in a lively room.
                    reply_to: (i % 13 == 5).then(|| (r * 1_000_000 + i - 1) as u64),
                    reactions: (i % 9 == 0).then(|| [("thumbs_up", 2u32), ("heart", 1)].into_iter().collect()),
                })
                .collect();
            RoomParts { header, attention: None, messages }
        })
        .collect();
    HudParts {
        directives: pawns::game::send::hud::DIRECTIVES.trim().to_string(),
        identity: json!({"id": 7, "name": "Ann", "model": "gpt-4o-mini", "class": "Warrior", "race": "Human", "level": 12}),
        knowledge: Value::Object(knowledge),
        recent_actions: (0..20)
            .map(|i| RecentAction { at: "2026-11-23T10:00:00.000Z".into(), action: format!("north {i}"), result: "ok".into() })
            .collect(),
        memory: Some(json!({"summary": "You fought a bear near the north gate and fled at low health; Bram healed you."})),
        mind: None,
        meta: json!({"instructions": serde_json::from_str::<Value>(pawns::game::send::hud::INSTRUCTIONS).unwrap_or_default()["agent"],
                     "available_actions": pawns::hud::schemas::with_schemas(&serde_json::from_str(pawns::game::send::hud::ACTIONS).unwrap_or_default()),
                     "response_format": {"type": "json", "example": "{\"responses\":[],\"actions\":[]}"}}),
        rooms,
    }
}

pub fn run(args: BenchHudArgs) -> anyhow::Result<()> {
    if args.contexts == 0 || args.rounds == 0 {
        anyhow::bail!("--contexts and --rounds must be at least 1");
    }
    let mut p = parts(&args);
    println!("====== pawns bench hud ======");
    println!(
        "  agent in {} contexts × {} messages, 40 knowledge entries, 20 recent actions; budget {} tokens; {} builds per format",
        args.contexts, args.messages, args.budget, args.rounds
    );
    for f in [HudFormat::Json, HudFormat::CompactJson, HudFormat::Toon] {
        let mut times: Vec<u32> = Vec::with_capacity(args.rounds as usize);
        let mut same: Vec<u32> = Vec::with_capacity(args.rounds as usize);
        let mut last = None;
        for r in 0..args.rounds {
            // Something new each beat: a message arrives in the first context.
            p.rooms[0].messages.push(HudMessage {
                id: 9_000_000 + r as u64,
                timestamp: "2026-11-23T10:00:01.000Z".into(),
                sender: "Bram".into(),
                content: format!("Bram says, 'news number {r}'").into(),
                kind: "say",
                you: false,
                reply_to: None,
                reactions: None,
            });
            let t = Instant::now();
            let hud = assemble(&p, args.budget, f).map_err(|e| anyhow::anyhow!("{e}"))?;
            times.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
            // Nothing new: the same parts again.
            let t = Instant::now();
            assemble(&p, args.budget, f).map_err(|e| anyhow::anyhow!("{e}"))?;
            same.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
            last = Some(hud);
        }
        times.sort_unstable();
        same.sort_unstable();
        let hud = last.expect("at least one round");
        let shown: usize = hud.shown.iter().map(|(k, _)| k).sum();
        println!(
            "  {:<12} build p50 {:>6.2} ms  p99 {:>6.2} ms (nothing new: p50 {:.2} ms)   tokens {:>5} (system {}, self {}, meta {}, rooms {}); {} messages shown; measured whole {}×",
            f.as_str(),
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            percentile(&same, 0.5),
            hud.tokens.total,
            hud.tokens.system,
            hud.tokens.self_,
            hud.tokens.meta,
            hud.tokens.rooms,
            shown,
            hud.measures
        );
    }
    // One HUD written three ways: what each format costs for the same content (the
    // compact HUD's, which keeps the actions' schemas at this budget), and its meta alone.
    let hud = assemble(&p, args.budget, HudFormat::CompactJson).map_err(|e| anyhow::anyhow!("{e}"))?;
    let cost = |v: &Value, f: HudFormat| pawns::hud::format::render(v, f).map(|t| pawns::hud::format::tokens(&t)).unwrap_or(0);
    let schemas = hud.value["meta"]["available_actions"].as_object().is_some_and(|a| a.values().any(Value::is_object));
    println!(
        "  the same HUD ({} messages) written as json {} / compact_json {} / toon {} tokens; its meta ({}) {} / {} / {}",
        hud.shown.iter().map(|(k, _)| k).sum::<usize>(),
        cost(&hud.value, HudFormat::Json),
        cost(&hud.value, HudFormat::CompactJson),
        cost(&hud.value, HudFormat::Toon),
        if schemas { "with the actions' schemas" } else { "action names only" },
        cost(&hud.value["meta"], HudFormat::Json),
        cost(&hud.value["meta"], HudFormat::CompactJson),
        cost(&hud.value["meta"], HudFormat::Toon),
    );
    mind_section(&args)?;
    Ok(())
}

/// The agent's own layers at scale (issue 16): 1,000 memories, 50 soul entries and 200
/// relationships in a scratch data file; the HUD's view of them read back, and the
/// `self` section it makes, within the static half of the budget.
fn mind_section(args: &BenchHudArgs) -> anyhow::Result<()> {
    use pawns::mind::{layers, Whereabouts};
    let db = std::env::temp_dir().join(format!("pawns-bench-hud-mind-{}.redb", std::process::id()));
    let _ = std::fs::remove_file(&db);
    let (store, _) = pawns_storage::Store::open(&db)?;
    let at = Whereabouts { name: "Ann".into(), room_vnum: Some(8004), room: Some("At the Temple Altar".into()), at_home: true };
    let e = |r: Result<serde_json::Value, (&str, String)>| r.map_err(|(c, m)| anyhow::anyhow!("{m} ({c})"));
    for i in 0..50 {
        e(layers::soul_add(&store, "ann", &format!("{} (conviction {i})", LINES[i % LINES.len()]), &at))?;
    }
    for i in 0..1_000 {
        e(layers::remember(&store, "ann", &format!("{} — noted on day {}", LINES[i % LINES.len()], i / 40), &at))?;
    }
    for i in 0..200 {
        let item = json!({"name": format!("Friend{i}"), "relationship_type": if i % 3 == 0 { "ally" } else { "neutral" }, "trust": (i % 10) as f64 / 10.0,
                          "tone": "warm", "rationale": "fought beside me at the gate"});
        e(layers::relationship_set(&store, "ann", &item, &at))?;
    }
    let mut reads = Vec::new();
    let mut view = serde_json::Value::Null;
    for _ in 0..20 {
        let t = Instant::now();
        view = layers::hud_view(&store, "ann", 20, 50, &layers::social_ledger(&store, "ann"))
            .map_err(|(c, m)| anyhow::anyhow!("{m} ({c})"))?;
        reads.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
    }
    reads.sort_unstable();
    let mut p = parts(args);
    p.mind = Some(view);
    println!(
        "  with the agent's own layers (1,000 memories, 50 soul entries, 200 relationships): view read p50 {:.2} ms",
        percentile(&reads, 0.5)
    );
    for f in [HudFormat::Json, HudFormat::CompactJson, HudFormat::Toon] {
        let t = Instant::now();
        let hud = assemble(&p, args.budget, f).map_err(|e| anyhow::anyhow!("{e}"))?;
        let me = &hud.value["self"];
        let count = |k: &str| me[k].as_array().map_or(0, Vec::len);
        println!(
            "  {:<12} build {:>6.2} ms   self {} tokens (static half {}): {} soul, {} memories, {} relationships shown",
            f.as_str(),
            t.elapsed().as_secs_f64() * 1000.0,
            hud.tokens.self_,
            args.budget / 2,
            count("soul"),
            count("memories"),
            count("relationships")
        );
    }
    drop(store);
    let _ = std::fs::remove_file(&db);
    Ok(())
}

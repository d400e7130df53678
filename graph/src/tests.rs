use proptest::prelude::*;

use crate::event::{EventKind, MemEvent, SocialAct};
use crate::graph::{MemoryGraph, NodeKind, Params};
use crate::summary::{build_summary, count_tokens, token_lines, SummaryOptions};

const MIN: u64 = 60 * 1_000_000;
/// 2027-01-12 15:15:00 UTC.
const T0: u64 = 1_799_766_900_000_000;

fn ev(n: u64, at_us: u64, room: u32, kind: EventKind) -> MemEvent {
    MemEvent { id: format!("1:{n}"), at_us, session: 1, room_vnum: room, room_name: format!("Room {room}"), kind, valence_off: false }
}

fn kill(n: u64, at: u64, victim: &str, victim_level: u8, agent_level: u8) -> MemEvent {
    ev(n, at, 100, EventKind::Kill { victim: victim.into(), victim_level, agent_level, victim_is_player: false })
}

#[test]
fn repeated_kills_reinforce_and_blend_as_the_seed_says() {
    let p = Params::default();
    let mut g = MemoryGraph::new();
    // First goblin kill: +1.
    g.dream(&[kill(1, T0, "a goblin", 3, 10)], &p);
    let first = g.node("ent:a goblin").unwrap().clone();
    assert_eq!(first.valence, 1.0);
    // Fifth goblin kill: still +1, but reinforced.
    let more: Vec<MemEvent> = (2..=5).map(|n| kill(n, T0 + n * MIN, "a goblin", 3, 10)).collect();
    for e in more {
        g.dream(&[e], &p);
    }
    let fifth = g.node("ent:a goblin").unwrap();
    assert_eq!(fifth.valence, 1.0);
    assert_eq!(fifth.encounters, 5);
    assert!(fifth.salience > first.salience, "{} > {}", fifth.salience, first.salience);
    // A dragon fled from, then killed: the kill blends with the flight, shifting positive.
    g.dream(&[ev(6, T0 + 10 * MIN, 100, EventKind::Flee { from: Some("a red dragon".into()), hp_pct: 50 })], &p);
    assert_eq!(g.node("ent:a red dragon").unwrap().valence, -2.0);
    g.dream(&[kill(7, T0 + 11 * MIN, "a red dragon", 40, 10)], &p);
    assert_eq!(g.node("ent:a red dragon").unwrap().valence, 0.5);
    g.dream(&[kill(8, T0 + 12 * MIN, "a red dragon", 40, 10)], &p);
    let dragon = g.node("ent:a red dragon").unwrap();
    assert!((dragon.valence - 4.0 / 3.0).abs() < 1e-6, "{}", dragon.valence);
    // The second dragon kill recalls the first.
    assert!(g.edges().any(|(a, b, k)| a == "ev:1:8" && b == "ev:1:7" && k == crate::EdgeKind::SimilarTo));
}

#[test]
fn dreaming_the_same_input_twice_changes_nothing() {
    let p = Params::default();
    let events = vec![kill(1, T0, "a goblin", 3, 10), ev(2, T0 + MIN, 101, EventKind::LevelUp { level: 11 })];
    let mut g = MemoryGraph::new();
    let first = g.dream(&events, &p);
    assert_eq!(first.events, 2);
    let before = g.to_stored();
    let second = g.dream(&events, &p);
    assert_eq!(second.events, 0);
    assert_eq!(g.to_stored(), before);
}

#[test]
fn what_is_not_met_again_decays_and_is_pruned() {
    let p = Params::default();
    let mut g = MemoryGraph::new();
    // A neutral speech event: salience 0.3; its room 0.3; the speaker 0.5.
    let talk = |n, at| {
        ev(n, at, 200, EventKind::Social { act: SocialAct::Speech, other: "bo".into(), by_agent: false, text: "the weather".into() })
    };
    g.dream(&[talk(1, T0)], &p);
    assert!((g.node("ev:1:1").unwrap().salience - 0.3).abs() < 1e-6);
    // Cycles elsewhere: each takes 0.1 away.
    for n in 2..=4 {
        g.dream(&[ev(n, T0 + n * MIN, 300 + n as u32, EventKind::LevelUp { level: n as u8 })], &p);
    }
    // 0.3 − 3 × 0.1 ≈ 0 < 0.05: gone, and no edge names it.
    assert!(g.node("ev:1:1").is_none());
    assert!(g.node("room:200").is_none());
    assert!(g.node("ent:bo").is_some(), "0.5 − 0.3 = 0.2 is kept");
    let stored = g.to_stored();
    for e in &stored.edges {
        assert!(stored.nodes.iter().any(|n| n.id == e.from) && stored.nodes.iter().any(|n| n.id == e.to), "{e:?} dangles");
    }
    // A pruned memory is not learned again from the same old record.
    g.dream(&[talk(1, T0)], &p);
    assert!(g.node("ev:1:1").is_none());
}

#[test]
fn the_summary_has_the_seeds_shape() {
    let p = Params::default();
    let mut g = MemoryGraph::new();
    let events = vec![
        kill(1, T0, "a cave troll", 20, 5),
        ev(2, T0 + 5 * MIN, 100, EventKind::Hurt { by: Some("a cave bear".into()), hp: 2, max_hp: 50 }),
        ev(
            3,
            T0 + 32 * MIN,
            101,
            EventKind::Social { act: SocialAct::Gift, other: "brenda".into(), by_agent: false, text: "a gleaming sword".into() },
        ),
        // 47 minutes later: a new session.
        ev(
            4,
            T0 + 79 * MIN,
            102,
            EventKind::Social { act: SocialAct::Speech, other: "brenda".into(), by_agent: true, text: "We should group up".into() },
        ),
        ev(
            5,
            T0 + 80 * MIN,
            102,
            EventKind::Social { act: SocialAct::Cooperation, other: "brenda".into(), by_agent: false, text: String::new() },
        ),
    ];
    g.dream(&events, &p);
    let s = build_summary(&g, &SummaryOptions::default());
    let want = "## Memory

### Session 1 — Jan 12 at 3:15 PM – 3:47 PM

Killed a cave troll in Room 100 (a significant moment).
Low HP (2/50) while fighting a cave bear in Room 100 (a harrowing moment).
Brenda gave you a gleaming sword in Room 101 (noteworthy).

### Session 2 — Jan 12 at 4:34 PM – 4:35 PM

Said \"We should group up\" to Brenda in Room 102 (a good moment).
Brenda helped you in Room 102 (a good moment).

### Relationships

Brenda — friendly (met 3 times)
A cave bear — dangerous (met once)
A cave troll — easy prey (met once)
";
    assert_eq!(s.text, want);
    assert_eq!(s.tokens, count_tokens(want));
    assert_eq!(s.memory_ids, ["ev:1:1", "ev:1:2", "ev:1:3", "ev:1:4", "ev:1:5"]);
    assert_eq!(s.sessions, 2);
    assert!(s.latest_block.starts_with("\n### Session 2 —"), "{}", s.latest_block);
    // A tight budget keeps the most salient lines and stays within it.
    let small = build_summary(&g, &SummaryOptions { budget_tokens: 60, ..Default::default() });
    assert!(small.tokens <= 60, "{}", small.tokens);
    assert!(small.text.contains("cave troll"), "{}", small.text);
}

#[test]
fn the_graph_survives_a_round_trip() {
    let p = Params::default();
    let mut g = MemoryGraph::new();
    g.dream(
        &[
            kill(1, T0, "a goblin", 3, 10),
            ev(2, T0 + MIN, 101, EventKind::Move { from_vnum: 100, from_name: "Room 100".into(), dir: None }),
        ],
        &p,
    );
    let stored = g.to_stored();
    let json = serde_json::to_string(&stored).unwrap();
    let back = MemoryGraph::from_stored(serde_json::from_str(&json).unwrap());
    assert_eq!(back.to_stored(), stored);
    assert!(back.edges().any(|(a, b, k)| a == "room:100" && b == "room:101" && k == crate::EdgeKind::TransitionedTo));
    assert_eq!(back.nodes().filter(|n| n.kind == NodeKind::Event).count(), 1, "a move is a map edge, not a memory");
}

fn arb_event() -> impl Strategy<Value = (u8, u8, u8, u8, u16)> {
    (0u8..6, 0u8..8, 1u8..60, 0u8..101, 0u16..500)
}

fn make(i: u64, (kind, who, level, pct, gap): (u8, u8, u8, u8, u16), at: u64) -> MemEvent {
    let other = format!("being{who}");
    let kind = match kind {
        0 => EventKind::Kill { victim: other, victim_level: level, agent_level: 10, victim_is_player: who % 2 == 0 },
        1 => EventKind::Flee { from: Some(other), hp_pct: pct },
        2 => EventKind::Hurt { by: Some(other), hp: pct as i32 / 10, max_hp: 100 },
        3 => EventKind::Social { act: SocialAct::Gift, other, by_agent: false, text: "a ring".into() },
        4 => EventKind::Acquire { item: format!("item{who}"), item_level: level + 30, from: None },
        _ => EventKind::Move { from_vnum: gap as u32, from_name: "x".into(), dir: None },
    };
    ev(i, at, 100 + who as u32, kind)
}

/// Pieces that meet at the edges cl100k's pre-tokenizer cares about: newlines beside
/// spaces, tabs, Unicode whitespace, letters, digits, punctuation and a special token.
const TOKEN_PIECES: &[&str] = &[
    "a",
    "The",
    "temple",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\t",
    "\u{0b}",
    "\u{0c}",
    "\u{85}",
    "\u{a0}",
    "\u{2003}",
    "\u{3000}",
    "é",
    "日本",
    "1",
    "123",
    "4567",
    "'s",
    "'",
    "'ll",
    ".",
    "!!",
    "...",
    "[agent]",
    "<|endoftext|>",
    "-",
    "\u{1f600}",
];

#[test]
fn token_lines_cut_after_newlines_and_keep_the_count() {
    let room = "The Temple of Midgaard\n   You are in the southern end of the temple hall.\nBrenda [agent] is standing here.\n\n  A statue looms.\nExits: n s\n";
    let lines: Vec<&str> = token_lines(room).collect();
    assert_eq!(
        lines,
        [
            "The Temple of Midgaard\n   You are in the southern end of the temple hall.\n",
            "Brenda [agent] is standing here.\n\n  A statue looms.\n",
            "Exits: n s\n"
        ]
    );
    assert_eq!(lines.concat(), room);
    assert_eq!(lines.iter().map(|l| count_tokens(l)).sum::<usize>(), count_tokens(room));
    assert_eq!(token_lines("").count(), 0);
    assert_eq!(token_lines("no newline").collect::<Vec<_>>(), ["no newline"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn token_lines_add_up_to_the_whole_count(pieces in prop::collection::vec(prop::sample::select(TOKEN_PIECES), 0..80)) {
        let text = pieces.concat();
        let lines: Vec<&str> = token_lines(&text).collect();
        prop_assert_eq!(lines.concat(), text.clone());
        prop_assert!(lines.iter().all(|l| !l.is_empty()));
        prop_assert_eq!(lines.iter().map(|l| count_tokens(l)).sum::<usize>(), count_tokens(&text), "{:?}", lines);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn summaries_fit_their_budget(evs in prop::collection::vec(arb_event(), 0..120), budget in 0usize..700) {
        let p = Params::default();
        let mut g = MemoryGraph::new();
        let mut at = T0;
        let events: Vec<MemEvent> = evs.iter().enumerate().map(|(i, e)| { at += e.4 as u64 * 20_000_000; make(i as u64, *e, at) }).collect();
        for chunk in events.chunks(10) {
            g.dream(chunk, &p);
        }
        let s = build_summary(&g, &SummaryOptions { budget_tokens: budget, ..Default::default() });
        prop_assert!(s.tokens <= budget, "{} > {budget}", s.tokens);
        prop_assert_eq!(s.tokens, count_tokens(&s.text));
    }

    #[test]
    fn consolidation_only_decays_prunes_exactly_and_leaves_no_dangling_edge(
        first in prop::collection::vec(arb_event(), 1..60),
        second in prop::collection::vec(arb_event(), 1..20),
    ) {
        let p = Params::default();
        let mut g = MemoryGraph::new();
        let events: Vec<MemEvent> = first.iter().enumerate().map(|(i, e)| make(i as u64, *e, T0 + i as u64 * MIN)).collect();
        g.dream(&events, &p);
        let before = g.to_stored();
        // New events that meet nothing already known (their own beings, items and rooms).
        let fresh: Vec<MemEvent> = second.iter().enumerate().map(|(i, e)| {
            let mut m = make(1000 + i as u64, *e, T0 + (100 + i as u64) * MIN);
            m.room_vnum += 10_000;
            m.kind = match m.kind {
                EventKind::Kill { victim, victim_level, agent_level, victim_is_player } =>
                    EventKind::Kill { victim: format!("new {victim}"), victim_level, agent_level, victim_is_player },
                EventKind::Flee { from, hp_pct } => EventKind::Flee { from: from.map(|f| format!("new {f}")), hp_pct },
                EventKind::Hurt { by, hp, max_hp } => EventKind::Hurt { by: by.map(|b| format!("new {b}")), hp, max_hp },
                EventKind::Social { act, other, by_agent, text } => EventKind::Social { act, other: format!("new {other}"), by_agent, text },
                EventKind::Acquire { item, item_level, from } => EventKind::Acquire { item: format!("new {item}"), item_level, from },
                EventKind::Move { from_vnum, from_name, dir } => EventKind::Move { from_vnum: from_vnum + 20_000, from_name, dir },
                k => k,
            };
            m
        }).collect();
        g.dream(&fresh, &p);
        let after = g.to_stored();
        for old in &before.nodes {
            let decayed = (old.salience - p.decay_rate).max(0.0);
            match after.nodes.iter().find(|n| n.id == old.id) {
                Some(n) => {
                    prop_assert!(n.salience <= old.salience, "{} rose without a re-encounter", n.id);
                    prop_assert!((n.salience - decayed).abs() < 1e-6);
                }
                None => prop_assert!(decayed < p.prune_threshold, "{} pruned at {decayed}", old.id),
            }
        }
        for n in &after.nodes {
            prop_assert!(n.salience >= p.prune_threshold);
        }
        for e in &after.edges {
            prop_assert!(after.nodes.iter().any(|n| n.id == e.from) && after.nodes.iter().any(|n| n.id == e.to));
        }
    }
}

#[test]
fn an_ablation_session_remembers_with_valence_zero() {
    let p = Params::default();
    let death = |n: u64, off: bool| MemEvent {
        valence_off: off,
        ..ev(n, T0 + n * MIN, 100, EventKind::Death { killer: Some("a cave bear".into()) })
    };
    let mut on = MemoryGraph::new();
    on.dream(&[death(1, false)], &p);
    let mut off = MemoryGraph::new();
    off.dream(&[death(1, true)], &p);
    let (a, b) = (on.node("ev:1:1").unwrap(), off.node("ev:1:1").unwrap());
    assert_eq!((a.valence, b.valence), (-3.0, 0.0));
    assert!((a.salience - 0.9).abs() < 1e-6 && (b.salience - 0.3).abs() < 1e-6, "{} {}", a.salience, b.salience);
    assert_eq!(off.node("ent:a cave bear").unwrap().valence, 0.0);
    let text = |g: &MemoryGraph| build_summary(g, &SummaryOptions { budget_tokens: 500, utc_offset_secs: 0 }).text;
    assert!(text(&on).contains("Was killed by a cave bear in Room 100 ("), "{}", text(&on));
    assert!(text(&off).contains("Was killed by a cave bear in Room 100.\n"), "{}", text(&off));
    assert!(text(&on).contains("dangerous") && !text(&off).contains("dangerous"));
    // With nothing met again, the flat memory is pruned after three cycles, the felt one lasts.
    for n in 2..=4u64 {
        let walk = ev(n, T0 + n * MIN, 101, EventKind::LevelUp { level: n as u8 });
        on.dream(std::slice::from_ref(&walk), &p);
        off.dream(&[walk], &p);
    }
    assert!(off.node("ev:1:1").is_none() && on.node("ev:1:1").is_some());
}

/// Issue 55: a planner's summary spent 12 of its 20 session lines on the same three
/// pickups (its own gear, taken back from its corpse) and "Killed a cellar rat" twice,
/// while the goblin warrior that drove it to 18 %, 22 % and 13 % health was "known" and
/// the rat a "worthy foe". Repeats merge with their count and meaning, and a mob's
/// relationship follows what it did to the agent.
#[test]
fn repeats_merge_and_relationships_follow_what_the_other_did() {
    let p = Params::default();
    let mut g = MemoryGraph::new();
    let take = |n: u64, at: u64, item: &str| ev(n, at, 7, EventKind::Acquire { item: item.into(), item_level: 1, from: None });
    let mut events = vec![take(1, T0, "a canvas bag"), take(2, T0 + 1, "a jacket"), take(3, T0 + 2, "a dagger")];
    let mut n = 4;
    for death in 0..3u64 {
        let t = T0 + (death + 1) * 5 * MIN;
        events.push(ev(n, t, 7, EventKind::Death { killer: Some("a goblin warrior".into()) }));
        for (k, item) in ["a canvas bag", "a jacket", "a dagger"].iter().enumerate() {
            events.push(take(n + 1 + k as u64, t + MIN + k as u64, item));
        }
        n += 4;
    }
    let t = T0 + 25 * MIN;
    for (k, hp) in [18u8, 22].iter().enumerate() {
        events.push(ev(n + k as u64, t + k as u64 * MIN, 8, EventKind::Flee { from: Some("a goblin warrior".into()), hp_pct: *hp }));
    }
    events.push(ev(n + 2, t + 2 * MIN, 8, EventKind::Hurt { by: Some("a goblin warrior".into()), hp: 13, max_hp: 100 }));
    events.push(kill(n + 3, t + 3 * MIN, "a cellar rat", 1, 5));
    events.push(kill(n + 4, t + 4 * MIN, "a cellar rat", 1, 5));
    g.dream(&events, &p);
    let s = build_summary(&g, &SummaryOptions { budget_tokens: 2_000, ..Default::default() });
    let t = &s.text;
    assert_eq!(t.matches("Picked up a canvas bag").count(), 1, "{t}");
    assert!(t.contains("Took back its gear after dying (3 times): a canvas bag, a jacket, a dagger."), "{t}");
    assert!(t.contains("Killed a cellar rat in Room 100 (2 times)"), "{t}");
    assert!(t.contains("A goblin warrior — dangerous"), "{t}");
    assert!(t.contains("A cellar rat — easy prey"), "{t}");
    // Every memory merged into a line is still named as held.
    assert_eq!(s.memory_ids.len(), events.len(), "{:?}", s.memory_ids);
    // Felt as nothing (valence off): no feeling in the relationships.
    let mut flat = MemoryGraph::new();
    let off: Vec<MemEvent> = events
        .iter()
        .cloned()
        .map(|mut e| {
            e.valence_off = true;
            e
        })
        .collect();
    flat.dream(&off, &p);
    let s = build_summary(&flat, &SummaryOptions { budget_tokens: 2_000, ..Default::default() });
    assert!(s.text.contains("A goblin warrior — known") && s.text.contains("A cellar rat — known"), "{}", s.text);
}

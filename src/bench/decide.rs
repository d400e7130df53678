//! `pawns bench decide`: what one decision costs the client, without the network: the
//! survival FSM, the planner, the LLM prompt per tier (cl100k counting included), and
//! reading a model's answer. The state is a busy one: a room of mobs, items, players,
//! 40 things heard, 12 earlier turns, and a memory summary of the medium tier's size.

use std::collections::VecDeque;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::cli::BenchDecideArgs;
use pawns::agent::fsm::{survival, Planner};
use pawns::agent::prompt::{build, parse_reply, Turn};
use pawns::agent::state::{GameState, Heard, Item, Mob};

fn busy_state() -> GameState {
    let mut s = GameState {
        name: "brenda".into(),
        class: "Warrior".into(),
        ready: true,
        hp: 60,
        max_hp: 100,
        level: 12,
        position: "standing".into(),
        room_vnum: 8010,
        room_name: "East Street".into(),
        exits: vec!["north".into(), "east".into(), "south".into(), "west".into()],
        ..Default::default()
    };
    for i in 0..8 {
        s.mobs.push(Mob {
            name: format!("a small goblin {i}"),
            target_string: format!("{}.goblin", i + 1),
            vnum: 3001,
            ..Default::default()
        });
    }
    for i in 0..6 {
        s.items.push(Item { name: format!("a rusty dagger {i}"), target_string: format!("{}.dagger", i + 1), ..Default::default() });
    }
    s.players = vec!["Bram".into(), "Kira".into()];
    for i in 0..40 {
        s.recent.push_back(Heard {
            kind: "say".into(),
            text: format!("Bram says, 'goblins to the east, careful ({i})'"),
            from: Some("Bram".into()),
            re: None,
        });
    }
    let mut mem = String::from("## Memory\n\n### Self\nLevel 12 warrior, 60/100 HP, last seen in East Street.\n");
    for sess in 1..=6 {
        mem += &format!("\n### Session {sess} — Jan {sess} at 3:15 PM – 3:47 PM\n");
        for j in 0..5 {
            mem += &format!("Killed a small goblin {j} in the Dark Corridor (noteworthy).\n");
        }
    }
    mem += "\n### Relationships\nBram — trusted ally (met 3 times): gave you a test sword\n";
    s.memory_summary = mem;
    s
}

fn time<T>(rounds: u32, mut f: impl FnMut() -> T) -> f64 {
    let t0 = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(f());
    }
    t0.elapsed().as_secs_f64() * 1e6 / rounds as f64
}

pub fn run(args: BenchDecideArgs) -> anyhow::Result<()> {
    let rounds = args.rounds.max(1);
    let s = busy_state();
    let history: VecDeque<Turn> = (0..12)
        .map(|i| Turn { command: format!("kill {i}.goblin"), feedback: "You hit a small goblin.\nA small goblin hits you.".into() })
        .collect();
    // Warm the tokenizer (its first use loads the vocabulary).
    let _ = build(&s, &history, Some(2_000));
    println!("agent client decision path, {rounds} rounds each (µs per call):");
    let mut fighting = s.clone();
    fighting.fighting = true;
    fighting.hp = 20;
    fighting.mobs[3].fighting = true;
    println!("  survival FSM (no action)     {:>10.2}", time(rounds, || survival(&s)));
    println!("  survival FSM (flee)          {:>10.2}", time(rounds, || survival(&fighting)));
    let mut planner = Planner::new(SmallRng::seed_from_u64(1));
    println!("  planner decide               {:>10.2}", time(rounds, || planner.decide(&s)));
    for (tier, budget) in [("small", Some(1_000)), ("medium", Some(2_000)), ("large", Some(4_000)), ("unlimited", None)] {
        let p = build(&s, &history, budget);
        let us = time(rounds.min(500), || build(&s, &history, budget));
        println!("  prompt build, {tier:<9}      {us:>10.2}   ({} tokens, {} lines trimmed)", p.tokens, p.trimmed);
    }
    let answers = [
        "{\"command\": \"kill 2.goblin\", \"say\": \"For the temple!\"}",
        "Sure! Here is my move:\n```json\n{\"command\": \"north\"}\n```\nGood luck.",
        "Command: flee\nSay: run!",
    ];
    println!("  reply parse (3 shapes)       {:>10.2}", time(rounds, || answers.iter().map(|a| parse_reply(a)).collect::<Vec<_>>()));
    Ok(())
}

//! The metrics against a fixture whose every number was worked out by hand.

use super::dataset::{DecisionRow, DreamRow, SessionRow, SocialRow};
use super::*;
use crate::memory::{DreamSnapshot, SalienceRow};

fn session(session: u64, agent: &str, valence: bool) -> SessionRow {
    SessionRow { session, agent: agent.into(), valence, ..Default::default() }
}

/// A decision facing `kind`/`target` in `room`, at `at`, with or without the memory.
fn d(session: usize, at: u64, room: u32, kind: &str, memory: bool, line: &str) -> DecisionRow {
    let (verb, args) = line.split_once(' ').unwrap_or((line, ""));
    DecisionRow {
        session,
        seq: at,
        at_us: at,
        dispatched_us: at,
        room,
        verb: verb.into(),
        args: args.into(),
        status: "ok".into(),
        kind: kind.into(),
        target: Some("a bear".into()),
        memory_id: memory.then(|| "ev:1:1".into()),
        memory_valence: memory.then_some(-3.0),
        ..Default::default()
    }
}

fn with_cora(mut d: DecisionRow) -> DecisionRow {
    d.kind = "stranger".into();
    d.target = Some("cora".into());
    d.memory_id = None;
    d.players = vec!["cora".into()];
    d
}

fn mem(id: &str, salience: f32, game_valence: i8) -> SalienceRow {
    SalienceRow { id: id.into(), salience, valence: game_valence as f32, game_valence }
}

fn dream(cycle: u64, memories: Vec<SalienceRow>, pruned: &[&str], raw: u64, ms: f64) -> DreamRow {
    DreamRow {
        agent: "ann".into(),
        at_us: 1_000 * cycle,
        snap: DreamSnapshot {
            cycle,
            trigger: "logout".into(),
            raw_tokens: raw,
            summary_tokens: 100,
            elapsed_ms: ms,
            sessions: 1,
            memories,
            pruned: pruned.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        },
    }
}

fn fixture() -> Dataset {
    let tokens = |mut x: DecisionRow, p: u64, c: u64| {
        x.tokens_prompt = Some(p);
        x.tokens_completion = Some(c);
        x
    };
    let decisions = vec![
        // Ann, valence on, before any dream: the bear that killed her, no memory of it.
        d(0, 1, 1, "killer", false, "look"),
        tokens(d(0, 2, 1, "killer", false, "kill bear"), 100, 10), // trial: attack
        d(0, 3, 2, "killer", false, "north"),                      // trial: leave (avoid)
        d(0, 4, 5, "killer", false, "score"),                      // informs only: no trial
        d(0, 5, 6, "none", false, "west"),                         // nobody here: no trial
        // Ann's next session, given the memory.
        tokens(d(1, 10, 1, "killer", true, "flee"), 300, 30), // avoid
        d(1, 11, 3, "killer", true, "south"),                 // avoid
        d(1, 12, 4, "killer", true, "kill bear"),             // attack
        // Cora, a player, before and after her gift.
        with_cora(d(1, 100, 7, "", false, "kill cora")),       // −2
        with_cora(d(1, 110, 7, "", false, "look")),            // 0
        with_cora(d(1, 130, 7, "", false, "give bread cora")), // +2
        with_cora(d(1, 140, 7, "", false, "assist cora")),     // +1
        // Bob, valence off.
        d(2, 20, 1, "killer", true, "kill bear"),
        d(2, 21, 2, "killer", true, "kill bear"),
        d(2, 22, 3, "killer", false, "north"),
    ];
    Dataset {
        sessions: vec![session(1, "ann", true), session(2, "ann", true), session(3, "bob", false)],
        decisions,
        socials: vec![
            SocialRow { session: 1, seq: 120, at_us: 120, act: "gift".into(), other: "cora".into(), text: "a loaf".into() },
            SocialRow { session: 1, seq: 150, at_us: 150, act: "greet".into(), other: "cora".into(), text: "wave".into() },
        ],
        dreams: vec![
            dream(1, vec![mem("ev:a", 0.9, -3), mem("ev:b", 0.3, 0)], &[], 1_000, 10.0),
            dream(2, vec![mem("ev:a", 0.8, -3), mem("ev:b", 0.2, 0), mem("ev:c", 0.9, -3)], &[], 500, 20.0),
            dream(3, vec![mem("ev:a", 0.7, -3), mem("ev:b", 0.1, 0), mem("ev:c", 0.8, -3)], &[], 500, 30.0),
            dream(4, vec![mem("ev:a", 0.6, -3), mem("ev:c", 0.7, -3)], &["ev:b"], 500, 40.0),
        ],
    }
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

/// Saliences are f32: as close as an f32 is.
fn near(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-6)
}

#[test]
fn bps_is_the_difference_a_hand_computes() {
    let e = evaluate(&fixture(), &Filter::default(), By::Valence);
    let find = |arm: &str, agent: &str, stimulus: &str, response: &str| {
        e.bps.iter().find(|b| b.arm == arm && b.agent == agent && b.stimulus == stimulus && b.response == response).unwrap().clone()
    };
    // Ann: avoided 2 of 3 times with the memory, 1 of 2 without: |2/3 − 1/2| = 1/6.
    let ann = find("valence_on", "*", "killer", "avoid");
    assert_eq!((ann.memory.k, ann.memory.n, ann.no_memory.k, ann.no_memory.n), (2, 3, 1, 2));
    assert!(close(ann.bps, 1.0 / 6.0), "{ann:?}");
    assert_eq!(ann.band, "too_few", "no band under 10 trials a group");
    let ci = ann.ci.unwrap();
    assert!(ci[0] == 0.0 && 1.0 / 6.0 <= ci[1], "Newcombe's interval holds 0 here: {ci:?}");
    let [lo, hi] = ann.memory_ci.unwrap();
    assert!(lo < 2.0 / 3.0 && hi > 2.0 / 3.0 && hi <= 1.0);
    assert!(ann.p_value.is_some_and(|p| p > 0.5), "{ann:?}");
    assert_eq!(find("valence_on", "ann", "killer", "avoid").bps, ann.bps, "one agent: the pooled score is hers");
    let attack = find("valence_on", "*", "killer", "attack");
    assert!(close(attack.bps, (0.5f64 - 1.0 / 3.0).abs()), "{attack:?}");
    // Bob, valence off: never avoided with memory (0/2), always without (1/1).
    let bob = find("valence_off", "*", "killer", "avoid");
    assert!(close(bob.bps, 1.0) && bob.band == "too_few", "{bob:?}");
    // 0/2 against 1/1 is no point interval (the bootstrap gave [1, 1]).
    assert!(bob.ci.unwrap()[0] < 0.5, "{bob:?}");
    // The valence effect: 2/3 with felt memory against 0/2 with flat memory.
    let v = e.valence_effect.iter().find(|v| v.stimulus == "killer").unwrap();
    assert!(close(v.diff, 2.0 / 3.0), "{v:?}");
    // Trials: 2 + 3 (ann, bear) + 3 (bob) + the encounter with Cora in room 7 (attack);
    // the encounter in room 5 only looked (`score`): kept in the table, not counted.
    assert_eq!((e.sample.trials, e.sample.encounters), (9, 10));
    let looked = e.trials.iter().find(|t| t.room == 5).unwrap();
    assert_eq!((looked.counted, looked.why.as_str()), (false, "informed_only"));
    assert_eq!((e.sample.sessions, e.sample.decisions, e.sample.agents), (3, 15, 2));
}

#[test]
fn scs_is_the_stance_moved_per_unit_of_valence() {
    let e = evaluate(&fixture(), &Filter::default(), By::Valence);
    let gift = e.scs.events.iter().find(|x| x.act == "gift").unwrap();
    // Before: (−2 + 0) / 2 = −1; after: (2 + 1) / 2 = 1.5; a gift is +2: (1.5 + 1) / 2.
    assert_eq!((gift.n_before, gift.n_after, gift.valence), (2, 2, 2));
    assert!(close(gift.scs, 1.25), "{gift:?}");
    // A plain wave is worth 0 (and nothing came after it): counted, not scored.
    let greet = e.scs.events.iter().find(|x| x.act == "greet").unwrap();
    assert_eq!((greet.valence, greet.scs), (0, None));
    let all = e.scs.summary.iter().find(|s| s.arm == "valence_on" && s.act == "*").unwrap();
    assert_eq!((all.n, all.unscored), (1, 1));
    assert!(close(all.mean, 1.25));
}

#[test]
fn decay_fits_each_band_and_cost_adds_up() {
    let e = evaluate(&fixture(), &Filter::default(), By::Valence);
    let strong = e.decay.iter().find(|b| b.band == "-3..-2").unwrap();
    assert_eq!((strong.memories, strong.points, strong.pruned), (2, 7, 0));
    assert!(near(strong.slope, -0.1) && near(strong.intercept, 0.9), "{strong:?}");
    let ages: Vec<(u64, u64)> = strong.curve.iter().map(|c| (c.age, c.n)).collect();
    assert_eq!(ages, vec![(0, 2), (1, 2), (2, 2), (3, 1)]);
    assert!((strong.curve[3].mean - 0.6).abs() < 1e-6);
    let flat = e.decay.iter().find(|b| b.band == "0").unwrap();
    assert!(near(flat.slope, -0.1) && near(flat.intercept, 0.3), "{flat:?}");
    assert_eq!((flat.pruned, flat.median_prune_age), (1, Some(3.0)));

    let on = e.cost.iter().find(|c| c.arm == "valence_on").unwrap();
    assert_eq!((on.decisions, on.with_tokens, on.prompt_tokens, on.completion_tokens), (12, 2, 400, 40));
    assert_eq!((on.prompt_mean, on.completion_mean), (Some(200.0), Some(20.0)));
    assert_eq!((on.dreams, on.raw_tokens, on.summary_tokens, on.compression), (4, 2_500, 100, Some(25.0)));
    assert_eq!((on.dream_ms_mean, on.dream_ms_p50, on.dream_ms_max), (Some(25.0), Some(25.0), Some(40.0)));
    // One arm when not split.
    let all = evaluate(&fixture(), &Filter::default(), By::None);
    assert_eq!(all.arms, vec![("all".to_string(), 3)]);
    assert!(all.valence_effect.is_empty());
}

/// The model's cost beyond its tokens: its calls (failed ones too), their time per
/// decision, and tokens per hour of play (issue 53).
#[test]
fn cost_counts_model_calls_and_tokens_per_agent_hour() {
    let mut ds = fixture();
    ds.sessions[0].ended_us = Some(1_800_000_000); // half an hour
    ds.sessions[1].ended_us = Some(3_600_000_000); // an hour
    for (i, d) in ds.decisions.iter_mut().filter(|d| d.tokens_prompt.is_some()).enumerate() {
        (d.model_calls, d.model_ms) = (i as u32 + 1, 100.0 * (i as f64 + 1.0));
    }
    let e = evaluate(&ds, &Filter::default(), By::Valence);
    let on = e.cost.iter().find(|c| c.arm == "valence_on").unwrap();
    assert_eq!((on.model_calls, on.model_ms_p50), (3, Some(150.0)));
    assert!((on.agent_hours - 1.5).abs() < 1e-9, "{}", on.agent_hours);
    assert!((on.tokens_per_agent_hour.unwrap() - 440.0 / 1.5).abs() < 1e-6);
    let off = e.cost.iter().find(|c| c.arm == "valence_off").unwrap();
    assert_eq!((off.model_calls, off.agent_hours, off.tokens_per_agent_hour), (0, 0.0, None));
}

/// No value is no bar: an `n/a` score is written as "n/a", never drawn as 0; an SCS plot
/// with nothing scored draws no invented axis.
#[test]
fn plots_say_n_a_and_draw_no_axis_for_no_data() {
    let mut e = evaluate(&fixture(), &Filter::default(), By::Valence);
    for b in e.bps.iter_mut() {
        if b.arm == "valence_off" {
            b.bps = None;
        }
    }
    e.scs.summary.clear();
    e.memcheck = Some(memcheck_run::Memcheck {
        held: vec![(0, stats::Proportion::new(2, 2)), (1, stats::Proportion::new(1, 2))],
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    plots::write_all(&e, dir.path(), false).unwrap();
    let decay = std::fs::read_to_string(dir.path().join("decay.svg")).unwrap();
    assert!(decay.contains("events still held (memcheck)"), "the forgetting curve beside the decay curves");
    let bps = std::fs::read_to_string(dir.path().join("bps.svg")).unwrap();
    assert!(bps.contains("\nn/a\n"), "the missing bar says n/a: {bps}");
    let scs = std::fs::read_to_string(dir.path().join("scs.svg")).unwrap();
    assert!(scs.contains("no social act was scored") && !scs.contains("0.05"), "{scs}");
}

#[test]
fn the_report_and_its_plots_are_written() {
    let e = evaluate(&fixture(), &Filter::default(), By::Valence);
    let dir = tempfile::tempdir().unwrap();
    let plots = plots::write_all(&e, dir.path(), false).unwrap();
    assert_eq!(plots.len(), 4);
    for p in &plots {
        let svg = std::fs::read_to_string(p).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("</svg>") && svg.len() > 1_000, "{}", p.display());
    }
    let decay = std::fs::read_to_string(dir.path().join("decay.svg")).unwrap();
    assert!(decay.contains("valence_on -3..-2 (slope -0.100)"), "the legend names each band with its slope");
    // Issue 54: a band keeps its colour in every arm (two bands never share one), and the
    // legend stands beside the plot (past its 800 px), over no line.
    let colour = |band: &str| format!("{:?}", plots::band_colour(band));
    assert_ne!(colour("-3..-2"), colour("0"));
    assert!(decay.contains("width=\"1040\""), "the legend's column beside the plot");
    let bps = std::fs::read_to_string(dir.path().join("bps.svg")).unwrap();
    assert!(bps.contains("stimulus (headline response)"), "the x axis has a title");
    let cost = std::fs::read_to_string(dir.path().join("cost.svg")).unwrap();
    assert!(cost.contains("log"), "cost uses a log axis");
    let names: Vec<String> = plots.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let md = report::markdown(&e, &names);
    // Newcombe's interval as statsmodels gives it for 2/3 − 1/2: [−0.446, 0.655].
    assert!(
        md.contains("| valence_on | killer | avoid | 0.67 (2/3) [0.208, 0.939] | 0.50 (1/2) [0.095, 0.905] | 0.167 | [0.000, 0.655] | 1.000 | too_few |"),
        "{md}"
    );
    assert!(md.contains("| valence_off | killer | avoid | 0.00 (0/2) [0.000, 0.658] | 1.00 (1/1) [0.207, 1.000] | 1.000 | [0.000, 1.000] | 0.333 | too_few |"), "{md}");
    assert!(md.contains("## Data quality") && md.contains("Encounters: 9 counted of 10."), "{md}");
    assert!(md.contains("![Decay](decay.svg)") && md.contains("| valence_on | gift | 1 | 0 | 1.250 |"), "{md}");
    // The JSON round-trips (what the server sends the command line).
    let back: Evaluation = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
    assert_eq!(back, e);
}

/// Issue 54: a command the game refused ("You are too exhausted": `failed`; a flee while
/// resting: `wrong_position`) is no response — the first command it took is; an
/// encounter of refusals only is not counted, and data quality says so.
#[test]
fn a_refused_command_is_not_counted() {
    let mut ds = fixture();
    let refused = |mut x: DecisionRow, status: &str| {
        x.status = status.into();
        x
    };
    // Bob, facing the bear in room 8: two refused flees, then he attacks (taken).
    ds.decisions.push(refused(d(2, 30, 8, "killer", true, "flee"), "wrong_position"));
    ds.decisions.push(refused(d(2, 31, 8, "killer", true, "flee"), "wrong_position"));
    ds.decisions.push(d(2, 32, 8, "killer", true, "kill bear"));
    // In room 9 he only tries to walk, too tired.
    for i in 0..12 {
        ds.decisions.push(refused(d(2, 40 + i, 9, "killer", true, "north"), "failed"));
    }
    let e = evaluate(&ds, &Filter::default(), By::Valence);
    let t8 = e.trials.iter().find(|t| t.room == 8).unwrap();
    assert_eq!((t8.act, t8.response_seq, t8.counted), (Some(bps::Act::Attack), Some(32), true));
    let t9 = e.trials.iter().find(|t| t.room == 9).unwrap();
    assert_eq!((t9.counted, t9.why.as_str(), t9.decisions), (false, "refused", 12));
    // Bob avoided 0 of 3 with the memory now (room 8 was an attack, not a flee).
    let bob = e.bps.iter().find(|b| b.arm == "valence_off" && b.agent == "*" && b.stimulus == "killer" && b.response == "avoid").unwrap();
    assert_eq!((bob.memory.k, bob.memory.n), (0, 3));
    // Data quality: the statuses, the encounter not counted, Bob stuck walking.
    let q = &e.quality;
    let failed = q.statuses.iter().find(|s| s.arm == "valence_off" && s.status == "failed").unwrap();
    assert_eq!(failed.n, 12);
    assert!(q.uncounted.iter().any(|u| u.arm == "valence_off" && u.why == "refused" && u.n == 1), "{q:?}");
    let kinds: Vec<(&str, &str, &str, u64, u64)> =
        q.stuck.iter().map(|x| (x.kind.as_str(), x.verb.as_str(), x.status.as_str(), x.run, x.from_seq)).collect();
    assert_eq!(kinds, vec![("refused", "north", "failed", 12, 40), ("repeated", "north", "failed", 12, 40)]);
    // A command the game takes but that goes nowhere, again and again, is a loop too.
    let mut ds = fixture();
    for i in 0..15 {
        ds.decisions.push(d(2, 60 + i, 10, "stranger", false, "consider knight"));
    }
    let e = evaluate(&ds, &Filter::default(), By::Valence);
    let looped: Vec<(&str, &str, u64)> = e.quality.stuck.iter().map(|x| (x.kind.as_str(), x.args.as_str(), x.run)).collect();
    assert_eq!(looped, vec![("repeated", "knight", 15)]);
}

/// The per-trial table reproduces every pooled score: counting its counted rows by
/// hand gives the same k/n as the report.
#[test]
fn the_trial_table_reproduces_the_scores() {
    let e = evaluate(&fixture(), &Filter::default(), By::Valence);
    for b in e.bps.iter().filter(|b| b.agent == "*") {
        for (memory, p) in [(true, b.memory), (false, b.no_memory)] {
            let rows: Vec<_> =
                e.trials.iter().filter(|t| t.counted && t.arm == b.arm && t.stimulus == b.stimulus && t.memory == memory).collect();
            let k = rows.iter().filter(|t| bps::counts_as(t.act.unwrap(), &b.response)).count() as u64;
            assert_eq!((k, rows.len() as u64), (p.k, p.n), "{b:?}");
        }
    }
}

/// A run's arms split the sessions (`By::Arm`), and the valence effect pairs the arms
/// of one group that differ only in valence.
#[test]
fn a_runs_arms_split_the_evaluation() {
    let filter = Filter {
        arms: [("ann", "fsm/valence_on"), ("bob", "fsm/valence_off")].into_iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        ..Default::default()
    };
    let e = evaluate(&fixture(), &filter, By::Arm);
    assert_eq!(e.arms, vec![("fsm/valence_off".to_string(), 1), ("fsm/valence_on".to_string(), 2)]);
    let v = e.valence_effect.iter().find(|v| v.stimulus == "killer").unwrap();
    assert_eq!(v.group, "fsm");
    assert!(close(v.diff, 2.0 / 3.0), "{v:?}");
}

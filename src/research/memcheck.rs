//! `pawns memcheck`: an agent's memory asked questions whose answers the record knows.
//!
//! Probes are made from the agent's own recorded events (the memory extractor's reading
//! of its sessions), in LongMemEval's five abilities — information extraction (who killed
//! you in the forest; what did Bram give you), multi-session reasoning (how many times
//! have you killed a goblin), temporal reasoning (which came first), knowledge updates (a
//! fact that changed: is the goblin dangerous to you now) and abstention (a question the
//! record cannot answer: the right answer is "I don't know"). Each keeps the event ids
//! that make its answer true. They are answered from what the agent would be given at
//! its next login — its summary and the layers it keeps — by a deterministic reader of
//! the summary's lines (`read`), or by a model (the command line asks it).

use std::collections::{BTreeMap, HashMap};

use pawns_graph::{EventKind, MemEvent, SocialAct};
use serde::{Deserialize, Serialize};

use super::stats::{wilson, Proportion};

/// The answer to a question the memory cannot answer.
pub const UNKNOWN: &str = "I don't know";
/// Probes of one kind per agent, at most (the newest facts first are not preferred: the
/// record's order is kept).
const PER_KIND: usize = 8;

pub const ABILITIES: [&str; 5] = ["extraction", "multi_session", "temporal", "knowledge_update", "abstention"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    pub id: String,
    pub agent: String,
    pub ability: String,
    pub question: String,
    pub expected: String,
    /// The events (`session:seq`) that make the answer true.
    pub evidence: Vec<String>,
    /// The valence band of its strongest event (`decay::band_of`).
    pub band: String,
    /// Whether its events were felt (valence on) or not.
    pub valence_on: bool,
    pub at_us: u64,
}

/// A mob or player's name as the summary writes it.
fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn probe(agent: &str, ability: &str, question: String, expected: String, ev: &[&MemEvent]) -> Probe {
    let strongest = ev.iter().map(|e| e.valence()).max_by_key(|v| v.abs()).unwrap_or(0);
    Probe {
        id: String::new(),
        agent: agent.into(),
        ability: ability.into(),
        question,
        expected,
        evidence: ev.iter().map(|e| e.id.clone()).collect(),
        band: super::decay::band_of(strongest).into(),
        valence_on: ev.iter().all(|e| !e.valence_off),
        at_us: ev.iter().map(|e| e.at_us).max().unwrap_or(0),
    }
}

/// What happened, as a phrase for a temporal question.
fn phrase(e: &MemEvent) -> Option<String> {
    match &e.kind {
        EventKind::Kill { victim, .. } => Some(format!("killing {victim}")),
        EventKind::Death { killer: Some(k) } => Some(format!("being killed by {k}")),
        _ => None,
    }
}

/// The probes for one agent's events (in time order).
pub fn probes(agent: &str, events: &[MemEvent]) -> Vec<Probe> {
    let mut out: Vec<Probe> = Vec::new();
    let mut events: Vec<&MemEvent> = events.iter().collect();
    events.sort_by(|a, b| (a.at_us, &a.id).cmp(&(b.at_us, &b.id)));
    // Extraction: who killed you where (rooms with one killer only), what someone gave you.
    let mut killers: BTreeMap<&str, Vec<&MemEvent>> = BTreeMap::new();
    for e in &events {
        if let EventKind::Death { killer: Some(_) } = &e.kind {
            killers.entry(e.room_name.as_str()).or_default().push(e);
        }
    }
    for (room, deaths) in killers.iter().filter(|(r, _)| !r.is_empty()).take(PER_KIND) {
        let names: Vec<&str> = deaths.iter().filter_map(|e| e.other()).collect();
        if names.iter().all(|n| n.eq_ignore_ascii_case(names[0])) {
            out.push(probe(agent, "extraction", format!("Who killed you in {room}?"), capital(names[0]), deaths));
        }
    }
    let mut givers: BTreeMap<String, Vec<&MemEvent>> = BTreeMap::new();
    for e in &events {
        match &e.kind {
            EventKind::Social { act: SocialAct::Gift, other, by_agent: false, .. } => {
                givers.entry(other.to_lowercase()).or_default().push(e)
            }
            EventKind::Acquire { from: Some(f), .. } => givers.entry(f.to_lowercase()).or_default().push(e),
            _ => {}
        }
    }
    for (who, gifts) in givers.iter().filter(|(_, g)| g.len() == 1).take(PER_KIND) {
        let item = match &gifts[0].kind {
            EventKind::Social { text, .. } => text.clone(),
            EventKind::Acquire { item, .. } => item.clone(),
            _ => continue,
        };
        out.push(probe(agent, "extraction", format!("What did {} give you?", capital(who)), item, gifts));
    }
    // Multi-session: how many times, counted across sessions.
    let mut kills: BTreeMap<String, Vec<&MemEvent>> = BTreeMap::new();
    let mut killed_by: BTreeMap<String, Vec<&MemEvent>> = BTreeMap::new();
    for e in &events {
        match &e.kind {
            EventKind::Kill { victim, .. } => kills.entry(victim.to_lowercase()).or_default().push(e),
            EventKind::Death { killer: Some(k) } => killed_by.entry(k.to_lowercase()).or_default().push(e),
            _ => {}
        }
    }
    let sessions = |v: &Vec<&MemEvent>| v.iter().map(|e| e.session).collect::<std::collections::BTreeSet<_>>().len();
    for (victim, v) in kills.iter().filter(|(_, v)| sessions(v) >= 2).take(PER_KIND) {
        out.push(probe(agent, "multi_session", format!("How many times have you killed {victim}?"), v.len().to_string(), v));
    }
    for (killer, v) in killed_by.iter().filter(|(_, v)| sessions(v) >= 2).take(PER_KIND) {
        out.push(probe(agent, "multi_session", format!("How many times has {killer} killed you?"), v.len().to_string(), v));
    }
    // Temporal: which came first, of two different first times.
    let mut firsts: Vec<(&MemEvent, String)> = Vec::new();
    for e in &events {
        if let Some(p) = phrase(e) {
            if !firsts.iter().any(|(_, q)| *q == p) {
                firsts.push((e, p));
            }
        }
    }
    for pair in firsts.windows(2).filter(|w| w[0].0.at_us < w[1].0.at_us).take(PER_KIND) {
        let ((a, pa), (b, pb)) = (&pair[0], &pair[1]);
        // Asked in both orders across probes: the first named is not always the answer.
        let q = if out.len().is_multiple_of(2) {
            format!("Which came first: {pa} or {pb}?")
        } else {
            format!("Which came first: {pb} or {pa}?")
        };
        out.push(probe(agent, "temporal", q, pa.clone(), &[a, b]));
    }
    // Knowledge updates: someone the agent beat who later beat it, or the other way.
    let mut dealt: BTreeMap<String, Vec<(&MemEvent, i8)>> = BTreeMap::new();
    for e in &events {
        let sign = match &e.kind {
            EventKind::Kill { victim, .. } => Some((victim, 1)),
            EventKind::Death { killer: Some(k) } => Some((k, -1)),
            EventKind::Hurt { by: Some(b), .. } => Some((b, -1)),
            EventKind::Flee { from: Some(f), .. } => Some((f, -1)),
            _ => None,
        };
        if let Some((who, s)) = sign {
            dealt.entry(who.to_lowercase()).or_default().push((e, s));
        }
    }
    for (who, d) in dealt.iter().filter(|(_, d)| d.first().map(|x| x.1) != d.last().map(|x| x.1)).take(PER_KIND) {
        let (first, last) = (d[0].0, d[d.len() - 1]);
        let expected = if last.1 < 0 { "yes" } else { "no" };
        out.push(probe(agent, "knowledge_update", format!("Is {who} dangerous to you now?"), expected.into(), &[first, last.0]));
    }
    // Abstention: a room it was in but never died in; someone it met who gave it nothing.
    let died_in: std::collections::HashSet<&str> = killers.keys().copied().collect();
    let mut rooms: Vec<&MemEvent> =
        events.iter().copied().filter(|e| !e.room_name.is_empty() && !died_in.contains(e.room_name.as_str())).collect();
    rooms.dedup_by(|a, b| a.room_name == b.room_name);
    let mut seen_rooms = std::collections::HashSet::new();
    for e in rooms.into_iter().filter(|e| seen_rooms.insert(e.room_name.clone())).take(PER_KIND / 2) {
        out.push(probe(agent, "abstention", format!("Who killed you in {}?", e.room_name), UNKNOWN.into(), &[e]));
    }
    let mut met: Vec<&MemEvent> =
        events.iter().copied().filter(|e| e.other().is_some_and(|o| !givers.contains_key(&o.to_lowercase()))).collect();
    met.dedup_by(|a, b| a.other() == b.other());
    let mut seen_met = std::collections::HashSet::new();
    for e in met.into_iter().filter(|e| seen_met.insert(e.other().unwrap_or_default().to_lowercase())).take(PER_KIND / 2) {
        let who = capital(e.other().unwrap_or_default());
        out.push(probe(agent, "abstention", format!("What did {who} give you?"), UNKNOWN.into(), &[e]));
    }
    for (i, p) in out.iter_mut().enumerate() {
        p.id = format!("{agent}:{i}");
    }
    out
}

/// The memory's lines without their parentheticals: "Was killed by X in R (…)." → "Was killed by X in R".
fn plain(line: &str) -> String {
    let mut l = line.trim().trim_end_matches('.').to_string();
    // Drop trailing parentheticals except a count.
    while l.ends_with(')') {
        let Some(at) = l.rfind(" (") else { break };
        if l[at..].contains("times)") {
            break;
        }
        l.truncate(at);
        l = l.trim_end_matches('.').to_string();
    }
    l
}

/// "(3 times)" at a line's end, else 1.
fn times(line: &str) -> u64 {
    line.rsplit_once(" (").and_then(|(_, t)| t.strip_suffix(" times)")).and_then(|n| n.parse().ok()).unwrap_or(1)
}

fn same(a: &str, b: &str) -> bool {
    norm(a) == norm(b)
}

/// Lower case, no articles, no punctuation.
pub fn norm(s: &str) -> String {
    let s = s.to_lowercase().replace(['.', ',', '!', '?', '"', '\''], " ");
    s.split_whitespace().filter(|w| !matches!(*w, "a" | "an" | "the")).collect::<Vec<_>>().join(" ")
}

/// The deterministic reader: the answer the memory text gives, or "I don't know".
pub fn read(memory: &str, question: &str) -> String {
    let lines: Vec<String> = memory.lines().map(plain).filter(|l| !l.is_empty()).collect();
    let unknown = || UNKNOWN.to_string();
    if let Some(room) = question.strip_prefix("Who killed you in ").and_then(|q| q.strip_suffix('?')) {
        let suffix = format!(" in {room}");
        return lines
            .iter()
            .rev()
            .find_map(|l| {
                l.strip_prefix("Was killed by ")
                    .and_then(|r| r.split(" (").next())
                    .and_then(|r| r.strip_suffix(suffix.as_str()))
                    .map(capital)
            })
            .unwrap_or_else(unknown);
    }
    if let Some(who) = question.strip_prefix("What did ").and_then(|q| q.strip_suffix(" give you?")) {
        for l in lines.iter().rev() {
            if let Some(rest) = l.strip_prefix(&format!("{who} gave you ")) {
                return rest.rsplit_once(" in ").map_or(rest, |(i, _)| i).to_string();
            }
            if let Some(rest) = l.strip_prefix("Got ") {
                if let Some((item, from)) = rest.split_once(" from ") {
                    if same(from.rsplit_once(" in ").map_or(from, |(f, _)| f), who) {
                        return item.to_string();
                    }
                }
            }
        }
        return unknown();
    }
    if let Some(victim) = question.strip_prefix("How many times have you killed ").and_then(|q| q.strip_suffix('?')) {
        let n: u64 = lines
            .iter()
            .filter_map(|l| l.strip_prefix("Killed ").map(|r| (r, times(l))))
            .filter(|(r, _)| same(r.rsplit_once(" in ").map_or(r.split(" (").next().unwrap_or(r), |(v, _)| v), victim))
            .map(|(_, n)| n)
            .sum();
        return if n == 0 { unknown() } else { n.to_string() };
    }
    if let Some(killer) = question.strip_prefix("How many times has ").and_then(|q| q.strip_suffix(" killed you?")) {
        let n: u64 = lines
            .iter()
            .filter_map(|l| l.strip_prefix("Was killed by ").map(|r| (r, times(l))))
            .filter(|(r, _)| same(r.rsplit_once(" in ").map_or(*r, |(k, _)| k), killer))
            .map(|(_, n)| n)
            .sum();
        return if n == 0 { unknown() } else { n.to_string() };
    }
    if let Some(rest) = question.strip_prefix("Which came first: ").and_then(|q| q.strip_suffix('?')) {
        let Some((a, b)) = rest.split_once(" or ") else { return unknown() };
        let at = |p: &str| {
            let line = if let Some(v) = p.strip_prefix("killing ") {
                lines.iter().position(|l| {
                    l.strip_prefix("Killed ")
                        .is_some_and(|r| same(r.rsplit_once(" in ").map_or(r, |(x, _)| x).split(" (").next().unwrap_or(""), v))
                })
            } else if let Some(k) = p.strip_prefix("being killed by ") {
                lines
                    .iter()
                    .position(|l| l.strip_prefix("Was killed by ").is_some_and(|r| same(r.rsplit_once(" in ").map_or(r, |(x, _)| x), k)))
            } else {
                None
            };
            line
        };
        return match (at(a), at(b)) {
            (Some(x), Some(y)) if x < y => a.to_string(),
            (Some(x), Some(y)) if y < x => b.to_string(),
            _ => unknown(),
        };
    }
    if let Some(who) = question.strip_prefix("Is ").and_then(|q| q.strip_suffix(" dangerous to you now?")) {
        for l in &lines {
            if let Some((name, how)) = l.split_once(" — ") {
                if same(name, who) {
                    let how = how.split(" (").next().unwrap_or(how);
                    return if matches!(how, "dangerous" | "rival" | "wary") { "yes".into() } else { "no".into() };
                }
            }
        }
        return unknown();
    }
    unknown()
}

/// Whether an answer is the expected one (a model's may say more: the expected answer
/// must be in it; "I don't know" is matched by its words).
pub fn correct(expected: &str, answer: &str) -> bool {
    let (e, a) = (norm(expected), norm(answer));
    if expected == UNKNOWN {
        return a.contains("don t know") || a.contains("dont know") || a.contains("do not know");
    }
    if a.is_empty() || a.contains("don t know") {
        return false;
    }
    a == e || format!(" {a} ").contains(&format!(" {e} "))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub probe: Probe,
    /// `reader` (deterministic) or the model's name.
    pub by: String,
    pub answer: String,
    pub correct: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// `ability`, `band` or `valence`, and its value (`*`: all).
    pub by: String,
    pub group: String,
    pub reader: String,
    pub right: Proportion,
    pub ci: Option<[f64; 2]>,
}

/// Scores per ability, per valence band and per valence arm, for each reader.
pub fn scores(answers: &[Answer]) -> Vec<Score> {
    let mut cells: BTreeMap<(String, String, String), (u64, u64)> = BTreeMap::new();
    for a in answers {
        let keys = [
            ("all", "*".to_string()),
            ("ability", a.probe.ability.clone()),
            ("band", a.probe.band.clone()),
            ("valence", if a.probe.valence_on { "on".into() } else { "off".into() }),
        ];
        // Facts (every ability but abstention) by arm: abstention is right whenever a
        // memory is empty, so it would flatter the arm that forgets.
        let facts =
            (a.probe.ability != "abstention").then(|| ("facts_valence", if a.probe.valence_on { "on".to_string() } else { "off".into() }));
        for (by, group) in keys.into_iter().chain(facts) {
            let c = cells.entry((a.by.clone(), by.to_string(), group)).or_default();
            c.0 += u64::from(a.correct);
            c.1 += 1;
        }
    }
    cells
        .into_iter()
        .map(|((reader, by, group), (k, n))| {
            let right = Proportion::new(k, n);
            Score { by, group, reader, right, ci: wilson(right) }
        })
        .collect()
}

/// The share of probes whose evidence the memory still holds, by dream cycles since the
/// dream that took it in: the forgetting curve against the truth.
pub fn held_curve(probes: &[Probe], dreams: &HashMap<String, Vec<Vec<String>>>) -> Vec<(u64, Proportion)> {
    let mut at: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for p in probes.iter().filter(|p| p.ability != "abstention") {
        let Some(cycles) = dreams.get(&p.agent) else { continue };
        // Memory ids are the event's, `ev:` and its `session:seq`.
        let holds = |held: &Vec<String>| p.evidence.iter().any(|e| held.iter().any(|h| h.strip_prefix("ev:") == Some(e.as_str())));
        let Some(born) = cycles.iter().position(holds) else { continue };
        for (age, held) in cycles[born..].iter().enumerate() {
            let c = at.entry(age as u64).or_default();
            c.0 += u64::from(holds(held));
            c.1 += 1;
        }
    }
    at.into_iter().map(|(age, (k, n))| (age, Proportion::new(k, n))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawns_graph::{build_summary, MemoryGraph, Params, SummaryOptions};

    const MIN: u64 = 60_000_000;
    const T0: u64 = 1_799_766_900_000_000;

    fn ev(session: u64, n: u64, room: &str, kind: EventKind) -> MemEvent {
        MemEvent {
            id: format!("{session}:{n}"),
            at_us: T0 + n * MIN,
            session,
            room_vnum: n as u32,
            room_name: room.into(),
            kind,
            valence_off: false,
        }
    }

    /// Two sessions: a rat killed in each, killed twice by a goblin warrior in the cave
    /// (once per session) and then killing it, a loaf from Bram and a jacket from Cora.
    fn scripted() -> Vec<MemEvent> {
        let rat = || EventKind::Kill { victim: "a cellar rat".into(), victim_level: 1, agent_level: 3, victim_is_player: false };
        let death = || EventKind::Death { killer: Some("a goblin warrior".into()) };
        vec![
            ev(1, 1, "A Shaded Path", rat()),
            ev(1, 2, "A Dark Cave", death()),
            ev(
                1,
                3,
                "The Square",
                EventKind::Social { act: SocialAct::Gift, other: "bram".into(), by_agent: false, text: "a loaf of bread".into() },
            ),
            ev(
                1,
                4,
                "The Square",
                EventKind::Social { act: SocialAct::Gift, other: "cora".into(), by_agent: false, text: "a jacket".into() },
            ),
            ev(2, 40, "A Shaded Path", rat()),
            ev(2, 41, "A Dark Cave", death()),
            ev(
                2,
                42,
                "A Dark Cave",
                EventKind::Kill { victim: "a goblin warrior".into(), victim_level: 4, agent_level: 3, victim_is_player: false },
            ),
        ]
    }

    #[test]
    fn probes_have_the_answers_the_record_gives() {
        let ps = probes("ann", &scripted());
        let got: Vec<(&str, &str, &str)> = ps.iter().map(|p| (p.ability.as_str(), p.question.as_str(), p.expected.as_str())).collect();
        let want = [
            ("extraction", "Who killed you in A Dark Cave?", "A goblin warrior"),
            ("extraction", "What did Bram give you?", "a loaf of bread"),
            ("extraction", "What did Cora give you?", "a jacket"),
            ("multi_session", "How many times have you killed a cellar rat?", "2"),
            ("multi_session", "How many times has a goblin warrior killed you?", "2"),
            ("temporal", "Which came first: being killed by a goblin warrior or killing a cellar rat?", "killing a cellar rat"),
            (
                "temporal",
                "Which came first: being killed by a goblin warrior or killing a goblin warrior?",
                "being killed by a goblin warrior",
            ),
            ("knowledge_update", "Is a goblin warrior dangerous to you now?", "no"),
            ("abstention", "Who killed you in A Shaded Path?", UNKNOWN),
            ("abstention", "Who killed you in The Square?", UNKNOWN),
            ("abstention", "What did A cellar rat give you?", UNKNOWN),
            ("abstention", "What did A goblin warrior give you?", UNKNOWN),
        ];
        for w in &want {
            assert!(got.contains(w), "{w:?} not in {got:#?}");
        }
        assert_eq!(got.len(), want.len(), "{got:#?}");
        let p = ps.iter().find(|p| p.ability == "multi_session" && p.question.contains("rat")).unwrap();
        assert_eq!(p.evidence, vec!["1:1", "2:40"], "the events that make it true");
        let abilities: std::collections::BTreeSet<&str> = ps.iter().map(|p| p.ability.as_str()).collect();
        assert_eq!(abilities.len(), ABILITIES.len());
    }

    #[test]
    fn the_reader_answers_from_the_summary_the_agent_is_given() {
        let events = scripted();
        let mut g = MemoryGraph::new();
        g.dream(&events, &Params::default());
        let memory = build_summary(&g, &SummaryOptions { budget_tokens: 2_000, ..Default::default() }).text;
        for p in probes("ann", &events) {
            let a = read(&memory, &p.question);
            assert!(correct(&p.expected, &a), "{}: {a:?} (want {:?})\n{memory}", p.question, p.expected);
        }
    }

    /// A hand-made memory that remembers half the facts scores one half on them; it
    /// abstains rightly on the rest.
    #[test]
    fn half_a_memory_scores_one_half() {
        let events = scripted();
        let memory = "## Memory\n\n### Session 1\n\nWas killed by a goblin warrior in A Dark Cave (a harrowing moment).\nKilled a cellar rat in A Shaded Path (2 times).\n\n### Session 2\n\nKilled a goblin warrior in A Dark Cave.\n\n### Relationships\n\nA goblin warrior — worthy foe (met 3 times)\n";
        let answers: Vec<Answer> = probes("ann", &events)
            .into_iter()
            .map(|p| {
                let answer = read(memory, &p.question);
                Answer { correct: correct(&p.expected, &answer), probe: p, by: "reader".into(), answer }
            })
            .collect();
        let facts: Vec<&Answer> = answers.iter().filter(|a| a.probe.ability != "abstention").collect();
        let right = facts.iter().filter(|a| a.correct).count();
        assert_eq!(
            (right, facts.len()),
            (4, 8),
            "{:#?}",
            facts.iter().map(|a| (&a.probe.question, &a.answer, a.correct)).collect::<Vec<_>>()
        );
        let s = scores(&answers);
        let by = |by: &str, g: &str| s.iter().find(|x| x.by == by && x.group == g).unwrap().right;
        assert_eq!(by("ability", "abstention").p, Some(1.0));
        assert_eq!(by("ability", "multi_session").p, Some(0.5), "the rats it counted, not the deaths it forgot");
        assert!(s.iter().all(|x| x.ci.is_some()));
        assert_eq!(by("facts_valence", "on").n, 8, "abstention is left out of the facts");
    }

    #[test]
    fn answers_are_matched_as_a_reader_would() {
        assert!(correct("A goblin warrior", "a goblin warrior"));
        assert!(correct("a loaf of bread", "Bram gave me a loaf of bread."));
        assert!(correct(UNKNOWN, "I do not know."));
        assert!(!correct("2", "12"));
        assert!(!correct("yes", "I don't know"));
        assert_eq!(
            plain("Killed a cellar rat in A Shaded Path (2 times) (a good moment)."),
            "Killed a cellar rat in A Shaded Path (2 times)"
        );
        assert_eq!(times("Killed a cellar rat in A Shaded Path (2 times)"), 2);
    }

    #[test]
    fn the_held_curve_follows_the_dream_log() {
        let ps = probes("ann", &scripted());
        let all: Vec<String> = scripted().iter().map(|e| format!("ev:{}", e.id)).collect();
        // Cycle 0 holds everything; cycle 1 has lost the first session's events.
        let later: Vec<String> = all.iter().filter(|i| i.starts_with("ev:2:")).cloned().collect();
        let dreams: HashMap<String, Vec<Vec<String>>> = [("ann".to_string(), vec![all.clone(), later])].into_iter().collect();
        let curve = held_curve(&ps, &dreams);
        assert_eq!(curve[0].1.p, Some(1.0));
        assert!(curve[1].1.p.unwrap() < 1.0 && curve[1].1.p.unwrap() > 0.0, "{curve:?}");
    }
}

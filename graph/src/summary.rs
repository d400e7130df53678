//! The narrative summary in the seed's shape: `## Memory`, sessions (a 30-minute gap
//! starts a new one) in the order things happened, each event a line with its valence's
//! parenthetical, then `### Relationships`. Fitted to a token budget counted with the
//! cl100k tokenizer: the least salient lines go first.

use chrono::{DateTime, FixedOffset, TimeZone};
use serde::{Deserialize, Serialize};

use crate::event::{EventKind, MemEvent, SocialAct};
use crate::graph::{entity_id, Dealings, MemoryGraph, Node, NodeKind};
use crate::profile::Profile;
use crate::valence::parenthetical;

/// A gap this long between events starts a new session.
pub const SESSION_GAP_US: u64 = 30 * 60 * 1_000_000;
/// Token budgets by login tier.
pub const TIER_SMALL: usize = 250;
pub const TIER_MEDIUM: usize = 500;
pub const TIER_LARGE: usize = 1_000;
/// Relationships listed at most.
const MAX_RELATIONSHIPS: usize = 10;
/// The fewest tokens a memory's line takes ("Died." and its newline).
const MIN_LINE_TOKENS: usize = 3;
/// Rooms (with the exits taken from them) the world map lists at most.
const MAP_ROOMS: usize = 8;

/// The budget for a login `tier` (`small`, `medium` — the default —, `large`, `unlimited`).
pub fn tier_budget(tier: Option<&str>) -> usize {
    match tier.map(|t| t.to_ascii_lowercase()).as_deref() {
        Some("small") => TIER_SMALL,
        Some("large") => TIER_LARGE,
        Some("unlimited") => usize::MAX,
        _ => TIER_MEDIUM,
    }
}

#[derive(Debug, Clone, Copy)]
pub struct SummaryOptions {
    pub budget_tokens: usize,
    /// Local time for the session headings, as an offset from UTC.
    pub utc_offset_secs: i32,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions { budget_tokens: TIER_MEDIUM, utc_offset_secs: 0 }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Summary {
    pub text: String,
    pub tokens: usize,
    /// The memories the text holds (event node ids), oldest first.
    pub memory_ids: Vec<String>,
    /// The newest session's block (`### Session N …` and its lines), for `memory_bootstrap`.
    pub latest_block: String,
    /// How many sessions the text holds.
    pub sessions: usize,
}

/// Tokens in `text` (cl100k).
pub fn count_tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton().encode_with_special_tokens(text).len()
}

/// `text` cut into lines whose cl100k token counts add up to the text's: a cut falls
/// after a newline that an ASCII non-whitespace character follows. cl100k's
/// pre-tokenizer (tiktoken's pattern `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|
/// \p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`) never makes a
/// piece across such a point: only `[\r\n]*+` and the whitespace alternatives take a
/// newline, and neither goes on into that character. Before the point, a whitespace run
/// ends there either way (`\s*[\r\n]` in the whole text, `\s++$` in the cut line: the same
/// span), and the pattern has no look-behind; special tokens hold no newline. So
/// counting line by line is exact (property-tested against the whole count), and lines
/// repeat (a room's description, who stands there) where whole texts do not.
pub fn token_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let b = rest.as_bytes();
        let mut cut = rest.len();
        let mut i = 0;
        while let Some(n) = b[i..].iter().position(|&c| c == b'\n') {
            let at = i + n + 1;
            // A non-whitespace character after the newline (ASCII whitespace, or a
            // multi-byte character that might be Unicode whitespace: no cut there).
            if at < b.len() && b[at] < 0x80 && !b[at].is_ascii_whitespace() && b[at] != 0x0b {
                cut = at;
                break;
            }
            i = at;
        }
        let (line, after) = rest.split_at(cut);
        rest = after;
        Some(line)
    })
}

/// One event as a line of the narrative (without its parenthetical).
pub fn describe(e: &MemEvent) -> String {
    let room = if e.room_name.is_empty() { String::new() } else { format!(" in {}", e.room_name) };
    match &e.kind {
        EventKind::Kill { victim, .. } => format!("Killed {victim}{room}."),
        EventKind::Death { killer: Some(k) } => format!("Was killed by {k}{room}."),
        EventKind::Death { killer: None } => format!("Died{room}."),
        EventKind::Flee { from: Some(f), hp_pct } => format!("Fled from {f}{room} at {hp_pct}% health."),
        EventKind::Flee { from: None, hp_pct } => format!("Fled a fight{room} at {hp_pct}% health."),
        EventKind::Hurt { by: Some(b), hp, max_hp } => format!("Low HP ({hp}/{max_hp}) while fighting {b}{room}."),
        EventKind::Hurt { by: None, hp, max_hp } => format!("Low HP ({hp}/{max_hp}){room}."),
        EventKind::Social { act, other, by_agent, text } => {
            let other = capital(other);
            match (act, by_agent) {
                (SocialAct::Speech, true) if other.is_empty() => format!("Said \"{text}\"{room}."),
                (SocialAct::Speech, true) => format!("Said \"{text}\" to {other}{room}."),
                (SocialAct::Speech, false) => format!("{other} said \"{text}\"{room}."),
                (SocialAct::Greet, true) => format!("Greeted {other}{room}."),
                (SocialAct::Greet, false) => format!("{other} greeted you{room}."),
                (SocialAct::Gift, true) => format!("Gave {text} to {other}{room}."),
                (SocialAct::Gift, false) => format!("{other} gave you {text}{room}."),
                (SocialAct::Cooperation, true) => format!("Helped {other}{room}."),
                (SocialAct::Cooperation, false) => format!("{other} helped you{room}."),
                (SocialAct::Betrayal, true) => format!("Turned on {other}{room}."),
                (SocialAct::Betrayal, false) => format!("Was betrayed by {other}{room}."),
                (SocialAct::Insult, true) => format!("Insulted {other}{room}."),
                (SocialAct::Insult, false) => format!("{other} insulted you{room}."),
            }
        }
        EventKind::Acquire { item, from: Some(f), .. } => format!("Got {item} from {}{room}.", capital(f)),
        EventKind::Acquire { item, from: None, .. } => format!("Picked up {item}{room}."),
        EventKind::LevelUp { level } => format!("Reached level {level}{room}."),
        EventKind::Move { .. } => format!("Walked to {}.", e.room_name),
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// How the agent feels about an entity. A player: from the blended valence of what passed
/// between them. A mob: from what it did to the agent, as it stands now — it killed or
/// hurt it, or the agent fled from it, since the agent last beat it: `dangerous`; it
/// fought back and lost last: `worthy foe`; the agent killed it unharmed: `easy prey`;
/// nothing felt: `known`.
pub fn relationship(n: &Node, d: &Dealings) -> &'static str {
    let v = n.valence;
    if !n.is_player {
        return match (d.harmed(), d.killed > 0) {
            (true, false) => "dangerous",
            (true, true) if d.last_harm_us > d.last_kill_us => "dangerous",
            (true, true) => "worthy foe",
            (false, true) => "easy prey",
            (false, false) => "known",
        };
    }
    if n.is_player {
        match v {
            v if v >= 1.5 => "trusted ally",
            v if v >= 0.5 => "friendly",
            v if v > -0.5 => "acquaintance",
            v if v > -1.5 => "wary",
            _ => "rival",
        }
    } else {
        match v {
            v if v <= -1.0 => "dangerous",
            v if v >= 2.0 => "worthy foe",
            v if v >= 0.5 => "easy prey",
            _ => "known",
        }
    }
}

struct Line {
    text: String,
    salience: f32,
    at_us: u64,
    session: usize,
    /// The memories it tells (a merged line tells several).
    ids: Vec<String>,
    tokens: usize,
}

/// The chosen events as lines, one per thing that happened in a session: the same line
/// again is one line with how many times ("Killed a cellar rat (2 times)."), and picking
/// up again, after dying, what one had picked up before is one line saying so ("Took back
/// its gear after dying (3 times): a canvas bag, a jacket, a dagger.").
fn merged_lines(events: &[&Node], chosen: &[bool], session_of: &[usize]) -> Vec<Line> {
    struct Draft {
        base: String,
        valence: i8,
        salience: f32,
        at_us: u64,
        session: usize,
        ids: Vec<String>,
        times: u32,
        /// Gear taken back: the items, and the deaths before them in the session.
        gear: Option<(Vec<String>, u32)>,
    }
    let mut drafts: Vec<Draft> = Vec::new();
    let mut at: std::collections::HashMap<(usize, String), usize> = std::collections::HashMap::new();
    // Items picked up before (any session), and deaths so far in each session.
    let mut had: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut deaths: std::collections::HashMap<usize, u32> = std::collections::HashMap::new();
    for (i, n) in events.iter().enumerate() {
        let Some(e) = n.event.as_ref() else { continue };
        let session = session_of[i];
        let item = match &e.kind {
            EventKind::Acquire { item, from: None, .. } => Some(item.to_lowercase()),
            _ => None,
        };
        let died = deaths.get(&session).copied().unwrap_or(0);
        if matches!(e.kind, EventKind::Death { .. }) {
            *deaths.entry(session).or_default() += 1;
        }
        let retaken = item.as_ref().is_some_and(|it| died > 0 && had.contains(it));
        if let Some(it) = &item {
            had.insert(it.clone());
        }
        if !chosen[i] {
            continue;
        }
        let (key, base) = if retaken { ("took back".to_string(), String::new()) } else { (describe(e), describe(e)) };
        match at.get(&(session, key.clone())) {
            Some(&d) => {
                let d = &mut drafts[d];
                d.ids.push(n.id.clone());
                d.salience = d.salience.max(n.salience);
                if let (Some((items, n_deaths)), EventKind::Acquire { item, .. }) = (d.gear.as_mut(), &e.kind) {
                    if !items.iter().any(|x| x.eq_ignore_ascii_case(item)) {
                        items.push(item.clone());
                    }
                    *n_deaths = (*n_deaths).max(died);
                } else {
                    d.times += 1;
                }
            }
            None => {
                at.insert((session, key), drafts.len());
                let gear = match (&e.kind, retaken) {
                    (EventKind::Acquire { item, .. }, true) => Some((vec![item.clone()], died)),
                    _ => None,
                };
                drafts.push(Draft {
                    base,
                    valence: e.valence(),
                    salience: n.salience,
                    at_us: e.at_us,
                    session,
                    ids: vec![n.id.clone()],
                    times: 1,
                    gear,
                });
            }
        }
    }
    drafts
        .into_iter()
        .map(|d| {
            let mut text = match &d.gear {
                Some((items, n)) => {
                    let times = if *n > 1 { format!(" ({n} times)") } else { String::new() };
                    format!("Took back its gear after dying{times}: {}.", items.join(", "))
                }
                None if d.times > 1 => format!("{} ({} times).", d.base.trim_end_matches('.'), d.times),
                None => d.base,
            };
            if let Some(p) = parenthetical(d.valence) {
                text.pop();
                text.push_str(&format!(" ({p})."));
            }
            let tokens = count_tokens(&text) + 1;
            Line { text, salience: d.salience, at_us: d.at_us, session: d.session, ids: d.ids, tokens }
        })
        .collect()
}

/// The summary of what the graph remembers.
pub fn build_summary(g: &MemoryGraph, opts: &SummaryOptions) -> Summary {
    build_summary_with(g, None, opts)
}

/// The summary with the agent's profile: `### Self` first, the ledger's reasons on the
/// players' relationship lines, `### World map` last. Over budget, the map's lines go
/// first, then the least salient events, then relationships, then the self lines.
pub fn build_summary_with(g: &MemoryGraph, profile: Option<&Profile>, opts: &SummaryOptions) -> Summary {
    let self_lines = profile.map(|p| p.self_lines()).unwrap_or_default();
    let map_lines = profile.map(|p| p.map_lines(MAP_ROOMS)).unwrap_or_default();
    let mut keep_self = self_lines.len();
    let mut keep_map = map_lines.len();
    let mut events: Vec<&Node> = g.nodes().filter(|n| n.kind == NodeKind::Event && n.event.is_some()).collect();
    events.sort_by(|a, b| (a.first_us, &a.id).cmp(&(b.first_us, &b.id)));
    // Sessions by gap, in event time (over every event, so numbering never depends on
    // the budget).
    let mut sessions: Vec<(u64, u64)> = Vec::new();
    let mut session_of: Vec<usize> = Vec::with_capacity(events.len());
    for n in &events {
        let at = n.first_us;
        match sessions.last_mut() {
            Some((_, end)) if at.saturating_sub(*end) < SESSION_GAP_US => *end = at,
            _ => sessions.push((at, at)),
        }
        session_of.push(sessions.len() - 1);
    }
    // A line is at least MIN_LINE_TOKENS: only the most salient (then newest) lines that
    // could fit are written and counted, so a graph of a million memories costs what
    // the budget costs.
    let fit = opts.budget_tokens / MIN_LINE_TOKENS + 1;
    let mut chosen = vec![events.len() <= fit; events.len()];
    if events.len() > fit {
        let mut rank: Vec<usize> = (0..events.len()).collect();
        rank.sort_by(|a, b| events[*b].salience.total_cmp(&events[*a].salience).then(events[*b].first_us.cmp(&events[*a].first_us)));
        for i in rank.into_iter().take(fit) {
            chosen[i] = true;
        }
    }
    let lines = merged_lines(&events, &chosen, &session_of);
    let mut people: Vec<&Node> = g.nodes().filter(|n| n.kind == NodeKind::Entity).collect();
    people.sort_by(|a, b| b.salience.total_cmp(&a.salience).then(b.encounters.cmp(&a.encounters)).then(a.id.cmp(&b.id)));
    let rels: Vec<Line> = people
        .iter()
        .take(MAX_RELATIONSHIPS)
        .map(|n| {
            let times = if n.encounters == 1 { "once".to_string() } else { format!("{} times", n.encounters) };
            let mut text = format!("{} — {} (met {times})", capital(&n.label), relationship(n, &g.dealings(&entity_id(&n.label))));
            if let Some(note) = profile.filter(|_| n.is_player).and_then(|p| p.ledger_note(&n.label)) {
                text.push_str(&format!(" — {note}"));
            }
            let tokens = count_tokens(&text) + 1;
            Line { text, salience: n.salience, at_us: n.last_us, session: usize::MAX, ids: Vec::new(), tokens }
        })
        .collect();
    let tz = FixedOffset::east_opt(opts.utc_offset_secs).unwrap_or(FixedOffset::east_opt(0).expect("UTC"));
    // Drop the least salient (then oldest) lines until the text fits.
    let mut keep_ev = vec![true; lines.len()];
    let mut keep_rel = vec![true; rels.len()];
    loop {
        let prof = Extra { self_lines: &self_lines[..keep_self], map_lines: &map_lines[..keep_map] };
        let text = render(&lines, &keep_ev, &rels, &keep_rel, &sessions, &tz, &prof);
        let tokens = count_tokens(&text);
        if tokens <= opts.budget_tokens {
            let memory_ids = lines.iter().zip(&keep_ev).filter(|(_, k)| **k).flat_map(|(l, _)| l.ids.iter().cloned()).collect();
            let kept_sessions: std::collections::BTreeSet<usize> =
                lines.iter().zip(&keep_ev).filter(|(_, k)| **k).map(|(l, _)| l.session).collect();
            let latest_block = kept_sessions
                .last()
                .map(|s| {
                    let only: Vec<bool> = lines.iter().zip(&keep_ev).map(|(l, k)| *k && l.session == *s).collect();
                    block(&lines, &only, &sessions, &tz)
                })
                .unwrap_or_default();
            return Summary { text, tokens, memory_ids, latest_block, sessions: kept_sessions.len() };
        }
        if keep_map > 0 {
            keep_map -= 1;
            continue;
        }
        // Estimate how many tokens to shed, then shed at least one line.
        let mut over = tokens - opts.budget_tokens;
        let mut order: Vec<usize> = (0..lines.len()).filter(|i| keep_ev[*i]).collect();
        order.sort_by(|a, b| lines[*a].salience.total_cmp(&lines[*b].salience).then(lines[*a].at_us.cmp(&lines[*b].at_us)));
        let mut shed = false;
        for i in order {
            keep_ev[i] = false;
            shed = true;
            over = over.saturating_sub(lines[i].tokens);
            if over == 0 {
                break;
            }
        }
        if !shed {
            match keep_rel.iter().rposition(|k| *k) {
                Some(i) => keep_rel[i] = false,
                None if keep_self > 0 => keep_self -= 1,
                None => {
                    // Even the bare heading is over budget: cut the text itself.
                    let bare = "## Memory\n".to_string();
                    let cut = if count_tokens(&bare) <= opts.budget_tokens { bare } else { String::new() };
                    let tokens = count_tokens(&cut);
                    return Summary { text: cut, tokens, ..Default::default() };
                }
            }
        }
    }
}

/// The profile's sections as far as they are kept.
struct Extra<'a> {
    self_lines: &'a [String],
    map_lines: &'a [String],
}

fn render(
    lines: &[Line],
    keep: &[bool],
    rels: &[Line],
    keep_rel: &[bool],
    sessions: &[(u64, u64)],
    tz: &FixedOffset,
    extra: &Extra<'_>,
) -> String {
    let mut out = String::from("## Memory\n");
    section(&mut out, "Self", extra.self_lines);
    out.push_str(&block(lines, keep, sessions, tz));
    let rel: Vec<&Line> = rels.iter().zip(keep_rel).filter(|(_, k)| **k).map(|(l, _)| l).collect();
    if !rel.is_empty() {
        out.push_str("\n### Relationships\n\n");
        for l in rel {
            out.push_str(&l.text);
            out.push('\n');
        }
    }
    section(&mut out, "World map", extra.map_lines);
    out
}

fn section(out: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    out.push_str(&format!("\n### {title}\n\n"));
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
}

/// The session groups holding the kept lines, numbered by their place among all sessions.
fn block(lines: &[Line], keep: &[bool], sessions: &[(u64, u64)], tz: &FixedOffset) -> String {
    let mut out = String::new();
    let mut current = usize::MAX;
    for (l, _) in lines.iter().zip(keep).filter(|(_, k)| **k) {
        if l.session != current {
            current = l.session;
            let (start, end) = sessions[current];
            out.push_str(&format!("\n### Session {} — {}\n\n", current + 1, span(start, end, tz)));
        }
        out.push_str(&l.text);
        out.push('\n');
    }
    out
}

/// `Jan 12 at 3:15 PM – 3:47 PM`, or one time when they are the same minute.
pub fn span(start_us: u64, end_us: u64, tz: &FixedOffset) -> String {
    let at = |us: u64| -> DateTime<FixedOffset> {
        tz.timestamp_micros(us as i64).single().unwrap_or_else(|| tz.timestamp_micros(0).single().expect("epoch"))
    };
    let (a, b) = (at(start_us), at(end_us));
    let first = a.format("%b %-d at %-I:%M %p").to_string();
    if a.format("%Y%m%d%H%M").to_string() == b.format("%Y%m%d%H%M").to_string() {
        first
    } else if a.date_naive() == b.date_naive() {
        format!("{first} – {}", b.format("%-I:%M %p"))
    } else {
        format!("{first} – {}", b.format("%b %-d at %-I:%M %p"))
    }
}

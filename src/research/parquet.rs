//! The record as Parquet, for the analysis world (DuckDB, pandas, polars, Spark): one
//! file per table — `sessions`, `decisions`, `observations`, `transitions`, `llm_calls` (each model call behind a decision), `dreams` and
//! `memory_snapshots` — written with the `parquet` crate's column writers (no Arrow),
//! Snappy-compressed, 65,536 rows a row group. Times (`*_us`: `at_us`, `started_us`…) are
//! TIMESTAMP(µs, UTC) — a duration (`latency_us`) stays INT64 µs; text is UTF-8; lists (the
//! mobs and players present, the memories injected) are LIST<UTF-8>. `sessions` and
//! `decisions` carry the `arm` (the run's, else `valence_on`/`valence_off`); a decision's
//! rooms are `pre_room_vnum` (where it decided) and `post_room_vnum` (after it ran).

use std::path::Path;

use pawns_storage::{EventRecord, RecordBody, SessionMeta, StateSnapshot, Store, Transition};

use super::dataset::Filter;
use super::parquet_writer::{werr, Kind, Table, V};
use crate::memory::DreamSnapshot;

/// The tables, by file stem.
pub const TABLES: [&str; 8] = ["sessions", "decisions", "observations", "transitions", "llm_calls", "dreams", "memory_snapshots", "trials"];

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Store(#[from] pawns_storage::StoreError),
    #[error("writing {path}: {msg}")]
    Write { path: String, msg: String },
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    File(#[from] pawns_storage::files::FileError),
}

impl ExportError {
    pub fn code(&self) -> &'static str {
        match self {
            ExportError::Store(e) => e.code(),
            ExportError::Write { .. } => "io_error",
            ExportError::BadInput(_) => "bad_request",
            ExportError::File(e) => e.code(),
        }
    }
}

use Kind::{Bool as B, List as L, Str as S, Ts as T, F64 as F, I64 as I};

const SESSIONS: &[(&str, Kind, bool)] = &[
    ("session", I, false),
    ("agent", S, false),
    ("is_agent", B, false),
    ("valence", B, false),
    ("arm", S, false),
    ("started_us", T, false),
    ("ended_us", T, true),
    ("ended_how", S, true),
    ("harness", S, true),
    ("model", S, true),
    ("version", S, true),
    ("tier", S, true),
    ("records", I, false),
    ("memory_ids", L, false),
];

const STATE: [&str; 12] =
    ["hp", "max_hp", "mana", "max_mana", "moves", "max_moves", "position", "room_vnum", "fighting", "level", "exp", "gold"];

fn decision_schema() -> Vec<(&'static str, Kind, bool)> {
    let mut s: Vec<(&'static str, Kind, bool)> = vec![
        ("session", I, false),
        ("seq", I, false),
        ("agent", S, false),
        ("at_us", T, false),
        ("arm", S, false),
        ("turn", I, false),
        ("command", S, false),
        ("args", S, false),
        ("status", S, false),
    ];
    const PRE: [&str; 12] = [
        "pre_hp",
        "pre_max_hp",
        "pre_mana",
        "pre_max_mana",
        "pre_moves",
        "pre_max_moves",
        "pre_position",
        "pre_room_vnum",
        "pre_fighting",
        "pre_level",
        "pre_exp",
        "pre_gold",
    ];
    const POST: [&str; 12] = [
        "post_hp",
        "post_max_hp",
        "post_mana",
        "post_max_mana",
        "post_moves",
        "post_max_moves",
        "post_position",
        "post_room_vnum",
        "post_fighting",
        "post_level",
        "post_exp",
        "post_gold",
    ];
    for names in [PRE, POST] {
        for (n, field) in names.iter().zip(STATE) {
            let kind = if field == "position" || field == "fighting" { S } else { I };
            s.push((n, kind, field == "fighting"));
        }
    }
    s.extend_from_slice(&[
        ("received_us", T, false),
        ("dispatched_us", T, false),
        ("completed_us", T, false),
        ("latency_us", I, false),
        ("stimulus_kind", S, false),
        ("stimulus_target", S, true),
        ("memory_id", S, true),
        ("memory_valence", F, true),
        ("mobs_present", L, false),
        ("players_present", L, false),
        ("last_entered", S, true),
        ("last_message", S, true),
        ("memory_ids", L, false),
        ("harness", S, true),
        ("model", S, true),
        ("tokens_prompt", I, true),
        ("tokens_completion", I, true),
        ("client_latency_ms", F, true),
        ("re", S, true),
        ("reason", S, true),
    ]);
    s
}

/// Each model call behind a decision (issue 53), by the decision's session and seq.
const LLM_CALLS: &[(&str, Kind, bool)] = &[
    ("session", I, false),
    ("seq", I, false),
    ("agent", S, false),
    ("at_us", T, false),
    ("call", I, false),
    ("model", S, false),
    ("form", S, false),
    ("system", S, false),
    ("user", S, false),
    ("answer", S, true),
    ("tokens_prompt", I, true),
    ("tokens_completion", I, true),
    ("latency_ms", F, false),
    ("error", S, true),
    ("cut", B, false),
];

fn llm_rows(r: &EventRecord, t: &mut Table) -> Result<(), ExportError> {
    let RecordBody::Decision(d) = &r.body else { return Ok(()) };
    for (i, c) in d.llm.iter().enumerate() {
        t.row(&[
            V::I(u(r.session)),
            V::I(u(r.seq)),
            V::S(Some(&r.agent)),
            V::I(u(r.at_us)),
            V::I(Some(i as i64)),
            V::S(Some(&c.model)),
            V::S(Some(&c.form)),
            V::S(Some(&c.system)),
            V::S(Some(&c.user)),
            V::S(c.answer.as_deref()),
            V::I(c.tokens_prompt.and_then(u)),
            V::I(c.tokens_completion.and_then(u)),
            V::F(Some(c.latency_ms)),
            V::S(c.error.as_deref()),
            V::B(Some(c.cut)),
        ])?;
    }
    Ok(())
}

const OBSERVATIONS: &[(&str, Kind, bool)] = &[
    ("session", I, false),
    ("seq", I, false),
    ("agent", S, false),
    ("at_us", T, false),
    ("room_vnum", I, false),
    ("event_type", S, false),
    ("text", S, false),
    ("from", S, true),
];

const TRANSITIONS: &[(&str, Kind, bool)] = &[
    ("session", I, false),
    ("seq", I, false),
    ("agent", S, false),
    ("at_us", T, false),
    ("room_vnum", I, false),
    ("what", S, false),
    ("from_value", I, true),
    ("to_value", I, true),
    ("max", I, true),
    ("other", S, true),
    ("vnum", I, true),
    ("name", S, true),
    ("level", I, true),
    ("text", S, true),
    ("flag", B, true),
];

const DREAMS: &[(&str, Kind, bool)] = &[
    ("agent", S, false),
    ("at_us", T, false),
    ("cycle", I, false),
    ("trigger", S, false),
    ("records_read", I, false),
    ("events", I, false),
    ("raw_tokens", I, false),
    ("summary_tokens", I, false),
    ("elapsed_ms", F, false),
    ("sessions", I, false),
    ("sessions_valence_off", I, false),
    ("memories", I, false),
    ("pruned", I, false),
];

const SNAPSHOTS: &[(&str, Kind, bool)] = &[
    ("agent", S, false),
    ("dream_at_us", T, false),
    ("cycle", I, false),
    ("memory_id", S, false),
    ("salience", F, true),
    ("valence", F, true),
    ("game_valence", I, true),
    ("pruned", B, false),
];

fn state_values(s: &StateSnapshot) -> [V<'_>; 12] {
    [
        V::I(Some(s.hp.into())),
        V::I(Some(s.max_hp.into())),
        V::I(Some(s.mana.into())),
        V::I(Some(s.max_mana.into())),
        V::I(Some(s.moves.into())),
        V::I(Some(s.max_moves.into())),
        V::S(Some(&s.position)),
        V::I(Some(s.room_vnum.into())),
        V::S(s.fighting.as_deref()),
        V::I(Some(s.level.into())),
        V::I(Some(s.exp)),
        V::I(Some(s.gold)),
    ]
}

fn u(x: u64) -> Option<i64> {
    i64::try_from(x).ok()
}

/// What a transition puts in its row: (what, from, to, max, other, vnum, name, level, text, flag).
type TransRow<'a> = (
    &'a str,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<&'a str>,
    Option<i64>,
    Option<&'a str>,
    Option<i64>,
    Option<&'a str>,
    Option<bool>,
);

fn transition_row(t: &Transition) -> TransRow<'_> {
    match t {
        Transition::Hp { from, to, max, by } => {
            ("hp", Some((*from).into()), Some((*to).into()), Some((*max).into()), by.as_deref(), None, None, None, None, None)
        }
        Transition::Level { from, to } => ("level", Some((*from).into()), Some((*to).into()), None, None, None, None, None, None, None),
        Transition::Exp { from, to } => ("exp", Some(*from), Some(*to), None, None, None, None, None, None, None),
        Transition::Gold { from, to } => ("gold", Some(*from), Some(*to), None, None, None, None, None, None, None),
        Transition::Room { from, to, name } => {
            ("room", Some((*from).into()), Some((*to).into()), None, None, Some((*to).into()), Some(name), None, None, None)
        }
        Transition::ItemAcquired { vnum, name, level } => {
            ("item_acquired", None, None, None, None, Some((*vnum).into()), Some(name), Some((*level).into()), None, None)
        }
        Transition::ItemLost { vnum, name } => ("item_lost", None, None, None, None, Some((*vnum).into()), Some(name), None, None, None),
        Transition::Equipped { slot, vnum, name } => {
            ("equipped", None, Some((*slot).into()), None, None, Some((*vnum).into()), Some(name), None, None, None)
        }
        Transition::Unequipped { slot, vnum, name } => {
            ("unequipped", Some((*slot).into()), None, None, None, Some((*vnum).into()), Some(name), None, None, None)
        }
        Transition::Death { killer, exp_lost } => {
            ("death", None, None, None, killer.as_deref(), None, None, None, None, None).with_from(*exp_lost)
        }
        Transition::Kill { victim, victim_level, victim_is_player, level } => {
            ("kill", None, None, None, Some(victim.as_str()), None, None, Some((*victim_level).into()), None, Some(*victim_is_player))
                .with_from((*level).into())
        }
        Transition::Social { act, other, by_me, text } => {
            ("social", None, None, None, Some(other.as_str()), None, Some(act.as_str()), None, Some(text.as_str()), Some(*by_me))
        }
        Transition::Mind { layer, id, text } => {
            ("mind", None, None, None, None, u(*id), Some(layer.as_str()), None, Some(text.as_str()), None)
        }
    }
}

trait WithFrom {
    fn with_from(self, v: i64) -> Self;
}

impl WithFrom for TransRow<'_> {
    fn with_from(mut self, v: i64) -> Self {
        self.1 = Some(v);
        self
    }
}

/// What was written: each table's file and rows.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Written {
    pub files: Vec<(String, u64)>,
}

/// Writes the chosen `tables` (all of `TABLES` when empty) of the record into `dir`.
/// Each file is written new and put in place when complete (`pawns_storage::files`):
/// never over a file that is there unless `force`, never through a symlink, never the
/// data file. Every file is checked before any is written.
pub fn export(store: &Store, filter: &Filter, dir: &Path, tables: &[String], force: bool) -> Result<Written, ExportError> {
    for t in tables {
        if !TABLES.contains(&t.as_str()) {
            return Err(ExportError::BadInput(format!("no table {t:?}: the tables are {}", TABLES.join(", "))));
        }
    }
    let want = |t: &str| tables.is_empty() || tables.iter().any(|x| x == t);
    std::fs::create_dir_all(dir).map_err(|e| werr(dir, e))?;
    for t in TABLES.iter().filter(|t| want(t)) {
        pawns_storage::files::check_dest(&dir.join(format!("{t}.parquet")), force)?;
    }
    let mut sessions: Vec<SessionMeta> = store.all_sessions()?.into_iter().filter(|s| filter.selects(s)).collect();
    sessions.sort_by_key(|s| (s.started_us, s.session));
    let dschema = decision_schema();
    let mut t_sessions = want("sessions").then(|| Table::create(dir, "sessions", SESSIONS, force)).transpose()?;
    let mut t_dec = want("decisions").then(|| Table::create(dir, "decisions", &dschema, force)).transpose()?;
    let mut t_obs = want("observations").then(|| Table::create(dir, "observations", OBSERVATIONS, force)).transpose()?;
    let mut t_tr = want("transitions").then(|| Table::create(dir, "transitions", TRANSITIONS, force)).transpose()?;
    let mut t_llm = want("llm_calls").then(|| Table::create(dir, "llm_calls", LLM_CALLS, force)).transpose()?;

    // One reader for many sessions: the record's tail decompressed once per reader.
    let mut log = pawns_storage::SharedLog::default();
    for s in &sessions {
        if let Some(t) = t_sessions.as_mut() {
            let arm = arm_of(filter, s);
            t.row(&[
                V::I(u(s.session)),
                V::S(Some(&s.agent)),
                V::B(Some(s.is_agent)),
                V::B(Some(s.valence)),
                V::S(Some(&arm)),
                V::I(u(s.started_us)),
                V::I(s.ended_us.and_then(u)),
                V::S(s.ended_how.as_deref()),
                V::S(s.harness.as_deref()),
                V::S(s.model.as_deref()),
                V::S(s.version.as_deref()),
                V::S(s.tier.as_deref()),
                V::I(u(s.records)),
                V::L(s.memory_ids.iter().map(String::as_str).collect()),
            ])?;
        }
        if t_dec.is_none() && t_obs.is_none() && t_tr.is_none() && t_llm.is_none() {
            continue;
        }
        let mut failed = None;
        log.get(store)?.scan_session(s, 0, 0, &mut |_, r| {
            if failed.is_none() {
                let written = record_row(&r, &arm_of(filter, s), t_dec.as_mut(), t_obs.as_mut(), t_tr.as_mut())
                    .and_then(|()| t_llm.as_mut().map_or(Ok(()), |t| llm_rows(&r, t)));
                if let Err(e) = written {
                    failed = Some(e);
                }
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
    }
    let mut out = Written::default();
    if want("trials") {
        out.files.push(trials(store, filter, dir, force)?);
    }
    for t in [t_sessions, t_dec, t_obs, t_tr, t_llm].into_iter().flatten() {
        let (p, n) = t.finish()?;
        out.files.push((p.display().to_string(), n));
    }
    if want("dreams") || want("memory_snapshots") {
        let mut agents: Vec<String> = sessions.iter().map(|s| s.agent.clone()).collect();
        agents.sort();
        agents.dedup();
        let mut t_dr = want("dreams").then(|| Table::create(dir, "dreams", DREAMS, force)).transpose()?;
        let mut t_snap = want("memory_snapshots").then(|| Table::create(dir, "memory_snapshots", SNAPSHOTS, force)).transpose()?;
        for a in &agents {
            for (at, d) in store.dream_log::<DreamSnapshot>(a)? {
                dream_rows(a, at, &d, t_dr.as_mut(), t_snap.as_mut())?;
            }
        }
        for t in [t_dr, t_snap].into_iter().flatten() {
            let (p, n) = t.finish()?;
            out.files.push((p.display().to_string(), n));
        }
    }
    Ok(out)
}

/// A session's arm: its run's, else its valence flag's.
fn arm_of(filter: &Filter, s: &SessionMeta) -> String {
    super::By::Arm.arm(filter, &s.agent, s.valence)
}

fn record_row(
    r: &EventRecord,
    arm: &str,
    dec: Option<&mut Table>,
    obs: Option<&mut Table>,
    tr: Option<&mut Table>,
) -> Result<(), ExportError> {
    let head = [V::I(u(r.session)), V::I(u(r.seq)), V::S(Some(&r.agent)), V::I(u(r.at_us)), V::I(Some(r.room_vnum.into()))];
    match (&r.body, dec, obs, tr) {
        (RecordBody::Decision(d), Some(t), _, _) => {
            let st = &d.stimulus;
            // Its rooms are the pre- and post-state's: the record's own room is neither named.
            let mut row: Vec<V<'_>> = vec![V::I(u(r.session)), V::I(u(r.seq)), V::S(Some(&r.agent)), V::I(u(r.at_us)), V::S(Some(arm))];
            row.extend([V::I(u(d.turn)), V::S(Some(&d.command)), V::S(Some(&d.args)), V::S(Some(&d.status))]);
            row.extend(state_values(&d.pre));
            row.extend(state_values(&d.post));
            row.extend([
                V::I(u(d.received_us)),
                V::I(u(d.dispatched_us)),
                V::I(u(d.completed_us)),
                V::I(u(d.latency_us)),
                V::S(Some(&st.kind)),
                V::S(st.target.as_deref()),
                V::S(st.memory_id.as_deref()),
                V::F(st.memory_valence.map(f64::from)),
                V::L(st.mobs_present.iter().map(|m| &**m).collect()),
                V::L(st.players_present.iter().map(|m| &**m).collect()),
                V::S(st.last_entered.as_deref()),
                V::S(st.last_message.as_deref()),
                V::L(d.memory_ids.iter().map(String::as_str).collect()),
                V::S(d.client.harness.as_deref()),
                V::S(d.client.model.as_deref()),
                V::I(d.client.tokens_prompt.and_then(u)),
                V::I(d.client.tokens_completion.and_then(u)),
                V::F(d.client.latency_ms),
                V::S(d.re.as_deref()),
                V::S(d.reason.as_deref()),
            ]);
            t.row(&row)
        }
        (RecordBody::Observation { event_type, text, from }, _, Some(t), _) => {
            let mut row: Vec<V<'_>> = head.into_iter().collect();
            row.extend([V::S(Some(event_type)), V::S(Some(text)), V::S(from.as_deref())]);
            t.row(&row)
        }
        (RecordBody::Transition(x), _, _, Some(t)) => {
            let (what, from, to, max, other, vnum, name, level, text, flag) = transition_row(x);
            let mut row: Vec<V<'_>> = head.into_iter().collect();
            row.extend([
                V::S(Some(what)),
                V::I(from),
                V::I(to),
                V::I(max),
                V::S(other),
                V::I(vnum),
                V::S(name),
                V::I(level),
                V::S(text),
                V::B(flag),
            ]);
            t.row(&row)
        }
        // A kind whose table was not asked for. Every kind is named: a new one is listed
        // here by the compiler until it has a table.
        (RecordBody::Decision(_), None, _, _) | (RecordBody::Observation { .. }, _, None, _) | (RecordBody::Transition(_), _, _, None) => {
            Ok(())
        }
    }
}

fn dream_rows(agent: &str, at: u64, d: &DreamSnapshot, dr: Option<&mut Table>, snap: Option<&mut Table>) -> Result<(), ExportError> {
    if let Some(t) = dr {
        t.row(&[
            V::S(Some(agent)),
            V::I(u(at)),
            V::I(u(d.cycle)),
            V::S(Some(&d.trigger)),
            V::I(u(d.records_read)),
            V::I(u(d.events as u64)),
            V::I(u(d.raw_tokens)),
            V::I(u(d.summary_tokens as u64)),
            V::F(Some(d.elapsed_ms)),
            V::I(u(d.sessions as u64)),
            V::I(u(d.sessions_valence_off as u64)),
            V::I(u(d.memories.len() as u64)),
            V::I(u(d.pruned.len() as u64)),
        ])?;
    }
    if let Some(t) = snap {
        for m in &d.memories {
            t.row(&[
                V::S(Some(agent)),
                V::I(u(at)),
                V::I(u(d.cycle)),
                V::S(Some(&m.id)),
                V::F(Some(f64::from(m.salience))),
                V::F(Some(f64::from(m.valence))),
                V::I(Some(m.game_valence.into())),
                V::B(Some(false)),
            ])?;
        }
        for id in &d.pruned {
            t.row(&[
                V::S(Some(agent)),
                V::I(u(at)),
                V::I(u(d.cycle)),
                V::S(Some(id)),
                V::F(None),
                V::F(None),
                V::I(None),
                V::B(Some(true)),
            ])?;
        }
    }
    Ok(())
}

const TRIALS: &[(&str, Kind, bool)] = &[
    ("encounter", I, false),
    ("agent", S, false),
    ("session", I, false),
    ("arm", S, false),
    ("stimulus", S, false),
    ("target", S, true),
    ("room_vnum", I, false),
    ("seq", I, false),
    ("decisions", I, false),
    ("memory_id", S, true),
    ("memory", B, false),
    ("response", S, true),
    ("response_seq", I, true),
    ("counted", B, false),
    ("why", S, true),
];

/// `trials.parquet`: every encounter the BPS reads, counted or not and why (`bps::Trial`),
/// split by the run's arms when the selection is a run.
fn trials(store: &Store, filter: &Filter, dir: &Path, force: bool) -> Result<(String, u64), ExportError> {
    let ds = super::Dataset::read(store, filter, &mut |_, _| {})?;
    let by = super::By::Arm;
    let mut t = Table::create(dir, "trials", TRIALS, force)?;
    for x in super::bps::trials(&ds, &|a, v| by.arm(filter, a, v)) {
        let act = x.act.map(|a| serde_json::to_value(a).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default());
        t.row(&[
            V::I(u(x.encounter)),
            V::S(Some(&x.agent)),
            V::I(u(x.session)),
            V::S(Some(&x.arm)),
            V::S(Some(&x.stimulus)),
            V::S(x.target.as_deref()),
            V::I(Some(x.room.into())),
            V::I(u(x.seq)),
            V::I(Some(x.decisions.into())),
            V::S(x.memory_id.as_deref()),
            V::B(Some(x.memory)),
            V::S(act.as_deref()),
            V::I(x.response_seq.and_then(u)),
            V::B(Some(x.counted)),
            V::S(Some(&x.why).filter(|w| !w.is_empty()).map(String::as_str)),
        ])?;
    }
    let (path, rows) = t.finish()?;
    Ok((path.display().to_string(), rows))
}

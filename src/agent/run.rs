//! The decision loop of `pawns agent play` and `session`.
//!
//! Every server message updates the typed state. Then, in order: the survival FSM (it
//! preempts a model that is still thinking), and — once the last command was answered,
//! `pace` has passed and something changed — the policy: the planner (`fsm`), a random
//! walk (`random`), or the LLM (`llm`), asked in the background so the socket keeps
//! being read. A model that fails falls back to `model_fallback`, then to the planner
//! for that turn; five failures in a row open the LLM's circuit for a minute. Each turn
//! is logged when it ends. Stopping (duration, turns, Ctrl-C) flees a fight, sends
//! `quit`, waits for the server to close, and flushes the log.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use tokio::sync::{mpsc, watch};

use super::config::AgentConfig;
use super::conn::{self, Backoff, ConnEvent, Outbound, SeqStats};
use super::fsm::{self, Action, Planner};
use super::llm::{Decided, LlmClient};
use super::log::{turn_valence, SessionLog, TurnLine};
use super::prompt::{self, Turn};
use super::state::{GameState, Heard};
use super::transcript::Transcript;
use super::{AgentError, Policy};

pub struct RunOptions {
    pub policy: Policy,
    pub duration: Option<Duration>,
    pub max_turns: Option<u64>,
    pub log_dir: Option<PathBuf>,
    /// Least time between two decisions.
    pub pace: Duration,
    pub seed: Option<u64>,
    pub backoff: Backoff,
    pub llm_timeout: Duration,
    /// How the model's answer is asked for (`--structured`).
    pub structured: super::structured::Structured,
    /// Where each model decision goes as OpenTelemetry GenAI spans (a collector's URL).
    pub otlp_endpoint: Option<String>,
    /// Set to true to end the session cleanly (tests; the CLI wires Ctrl-C to it).
    pub stop: Option<watch::Receiver<bool>>,
    /// Print what others say and do, not only the agent's own feedback.
    pub chatter: bool,
    /// Model answers journaled by prompt, asked before the model (a branch's agents).
    pub model_journal: Option<super::llm::Journal>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            policy: Policy::Llm,
            duration: None,
            max_turns: None,
            log_dir: None,
            pace: Duration::from_millis(500),
            seed: None,
            backoff: Backoff::default(),
            llm_timeout: Duration::from_secs(20),
            structured: Default::default(),
            otlp_endpoint: None,
            stop: None,
            chatter: true,
            model_journal: None,
        }
    }
}

/// What a session did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Report {
    pub agent: String,
    pub turns: u64,
    pub by_fsm: u64,
    pub by_policy: u64,
    pub by_llm: u64,
    pub llm_calls: u64,
    /// Decisions the fallback model made after the fast one failed.
    pub fallback_used: u64,
    /// Turns where no model answered and the planner decided.
    pub llm_failed: u64,
    /// LLM decisions by the form their answer was asked in (`json_schema`, `tool`…).
    pub llm_forms: std::collections::BTreeMap<&'static str, u64>,
    pub deaths: u32,
    pub kills: u32,
    pub level_start: i64,
    pub level_end: i64,
    pub exp_start: i64,
    pub exp_end: i64,
    pub rooms_seen: usize,
    pub messages: u64,
    pub seq_gaps: u64,
    pub duplicates: u64,
    pub reconnects: u32,
    pub resumed: u32,
    pub resume_refused: u32,
    pub log_file: Option<PathBuf>,
    pub log_lines: u64,
    pub memory_tokens: usize,
    pub ended: String,
    pub quit_clean: bool,
    pub secs: f64,
}

impl Report {
    pub fn render(&self) -> String {
        let mut t = format!(
            "Session ended ({}):\n  Agent:        {}\n  Turns:        {} ({} survival FSM, {} policy, {} LLM)\n  Level:        {} → {} (exp {} → {})\n  Kills/deaths: {}/{}\n  Rooms seen:   {}\n  Messages:     {} (seq gaps {}, reconnects {}, resumed {})\n  Time:         {:.1} s\n",
            self.ended,
            self.agent,
            self.turns,
            self.by_fsm,
            self.by_policy,
            self.by_llm,
            self.level_start,
            self.level_end,
            self.exp_start,
            self.exp_end,
            self.kills,
            self.deaths,
            self.rooms_seen,
            self.messages,
            self.seq_gaps,
            self.reconnects,
            self.resumed,
            self.secs
        );
        if self.llm_calls > 0 {
            t += &format!(
                "  LLM:          {} calls, {} by the fallback model, {} unanswered; answers asked as {}\n",
                self.llm_calls,
                self.fallback_used,
                self.llm_failed,
                if self.llm_forms.is_empty() {
                    "-".to_string()
                } else {
                    self.llm_forms.iter().map(|(f, n)| format!("{f} {n}")).collect::<Vec<_>>().join(", ")
                }
            );
        }
        if let Some(p) = &self.log_file {
            t += &format!("  Log:          {} ({} lines)\n", p.display(), self.log_lines);
        }
        t
    }
}

/// A sent command waiting for its turn to end.
struct Pending {
    id: String,
    command: String,
    line: TurnLine,
    sent: Instant,
    hp_before: (i64, i64),
    heard: Vec<Heard>,
    replied: bool,
}

struct Thinking {
    task: tokio::task::JoinHandle<Result<Decided, Vec<(String, String)>>>,
    tokens: usize,
}

/// Answers within this are what a command caused; after it the loop decides anyway.
const REPLY_WAIT: Duration = Duration::from_secs(3);
/// With nothing new, decide again after this.
const IDLE: Duration = Duration::from_secs(5);
/// After login, wait this long for the memory messages before the first decision.
const SETTLE: Duration = Duration::from_millis(300);
const HISTORY: usize = 12;

struct Loop<'a> {
    cfg: &'a AgentConfig,
    opts: RunOptions,
    tx: mpsc::Sender<Outbound>,
    state: GameState,
    stats: Arc<Mutex<SeqStats>>,
    planner: Planner,
    rng: SmallRng,
    llm: Option<LlmClient>,
    llm_streak: (u32, String),
    llm_closed_until: Option<Instant>,
    /// The OTLP export of its model calls (`--otlp-endpoint`), and what groups this
    /// run's turns there (the agent and when it started).
    otlp: Option<Arc<crate::record::otlp::Exporter>>,
    conversation: String,
    thinking: Option<Thinking>,
    pending: Option<Pending>,
    history: VecDeque<Turn>,
    log: Option<SessionLog>,
    out: Transcript<'a>,
    report: Report,
    rooms: std::collections::HashSet<i64>,
    last_decision: Option<Instant>,
    ready_at: Option<Instant>,
    dirty: bool,
    turn: u64,
}

/// Plays until the duration, the turn count or a stop; returns what happened.
pub async fn run(cfg: &AgentConfig, opts: RunOptions, out: &mut (dyn Write + Send)) -> Result<Report, AgentError> {
    let login = cfg.login(match opts.policy {
        Policy::Llm => &cfg.model_fast,
        Policy::Fsm => "fsm",
        Policy::Random => "random",
    })?;
    let llm = match opts.policy {
        Policy::Llm if cfg.llm_endpoint.is_empty() => {
            return Err(AgentError::Config(
                "--policy llm needs an endpoint: `pawns agent config --llm-endpoint http://host:port` (or use --policy fsm)".into(),
            ))
        }
        Policy::Llm => Some(
            LlmClient::new(&cfg.llm_endpoint, &cfg.llm_key, &cfg.model_fast, &cfg.model_fallback, cfg.temperature, opts.llm_timeout)
                .with_structured(opts.structured),
        )
        .map(|c| match &opts.model_journal {
            Some(j) => c.with_journal(j.clone()),
            None => c,
        }),
        _ => None,
    };
    let stats = Arc::new(Mutex::new(SeqStats::default()));
    let (tx, mut rx) = conn::start(login, opts.backoff, stats.clone()).await?;
    let log = match &opts.log_dir {
        Some(d) => Some(SessionLog::create(d, if cfg.player_name.is_empty() { "agent" } else { &cfg.player_name })?),
        None => None,
    };
    let seed = opts.seed.unwrap_or_else(rand::random);
    let otlp = match &opts.otlp_endpoint {
        Some(e) => {
            let url = crate::record::otlp::traces_url(e).map_err(AgentError::Config)?;
            Some(Arc::new(crate::record::otlp::Exporter::new(&url, "pawns-agent").map_err(AgentError::Config)?))
        }
        None => None,
    };
    let chatter = opts.chatter;
    let mut l = Loop {
        cfg,
        tx,
        state: GameState::default(),
        stats,
        planner: Planner::new(SmallRng::seed_from_u64(seed)),
        rng: SmallRng::seed_from_u64(seed.wrapping_add(1)),
        llm,
        llm_streak: (0, String::new()),
        llm_closed_until: None,
        otlp,
        conversation: format!("{}-{}", cfg.player_name.to_ascii_lowercase(), crate::time::unix_secs()),
        thinking: None,
        pending: None,
        history: VecDeque::new(),
        log,
        out: Transcript::new(out),
        report: Report::default(),
        rooms: Default::default(),
        last_decision: None,
        ready_at: None,
        dirty: true,
        turn: 0,
        opts,
    };
    l.out.chatter = chatter;
    let started = Instant::now();
    let result = l.play(&mut rx, started).await;
    l.finish(&mut rx, result, started).await
}

/// Resolves when the stop flag turns true; never, without a flag or once its sender is gone.
async fn stopped(stop: Option<&mut watch::Receiver<bool>>) {
    if let Some(s) = stop {
        if s.wait_for(|v| *v).await.is_ok() {
            return;
        }
    }
    std::future::pending().await
}

impl Loop<'_> {
    async fn play(&mut self, rx: &mut mpsc::Receiver<ConnEvent>, started: Instant) -> Result<String, AgentError> {
        let deadline = self.opts.duration.map(|d| started + d);
        let mut stop = self.opts.stop.clone();
        let tick = Duration::from_millis(50).min(self.opts.pace.max(Duration::from_millis(5)));
        loop {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok("duration reached".into());
            }
            if self.opts.max_turns.is_some_and(|t| self.turn >= t) {
                return Ok(format!("{} turns played", self.turn));
            }
            tokio::select! {
                ev = rx.recv() => {
                    let Some(ev) = ev else { return Ok("the connection ended".into()) };
                    if let Some(end) = self.on_event(ev)? {
                        return Ok(end);
                    }
                    // Take everything already here before deciding (the memory messages
                    // follow `state` and `vars` at login).
                    while let Ok(ev) = rx.try_recv() {
                        if let Some(end) = self.on_event(ev)? {
                            return Ok(end);
                        }
                    }
                }
                done = async { (&mut self.thinking.as_mut().expect("guarded").task).await }, if self.thinking.is_some() => {
                    let tokens = self.thinking.take().map(|t| t.tokens).unwrap_or(0);
                    self.on_llm(done.unwrap_or_else(|e| Err(vec![(String::new(), e.to_string())])), tokens).await?;
                }
                _ = tokio::time::sleep(tick) => {}
                _ = stopped(stop.as_mut()) => {
                    return Ok("stopped".into());
                }
            }
            self.step().await?;
        }
    }

    fn on_event(&mut self, ev: ConnEvent) -> Result<Option<String>, AgentError> {
        match ev {
            ConnEvent::Msg(v) => {
                let ty = v["type"].as_str().unwrap_or("").to_string();
                let room_before = self.state.room_vnum;
                let died_in = self.state.room_vnum;
                let a = self.state.apply(&v);
                self.report.messages += 1;
                self.dirty = true;
                if ty == "state" {
                    if self.ready_at.is_none() {
                        self.ready_at = Some(Instant::now() + SETTLE);
                        self.report.agent = self.state.name.clone();
                        self.report.level_start = self.state.level;
                        self.report.exp_start = self.state.exp;
                    }
                    self.rooms.insert(self.state.room_vnum);
                    if room_before != self.state.room_vnum || self.state.room_vnum == 0 || v["re"].is_string() {
                        self.out.room(&self.state);
                    }
                }
                if a.memory && ty == "memory_summary" {
                    let n = pawns_graph::count_tokens(&self.state.memory_summary);
                    self.report.memory_tokens = n;
                    self.out.line(&format!("(the server sent this agent's memory: {n} tokens)"));
                    // The first decision waits for the memory, not for the timer.
                    self.ready_at = Some(Instant::now());
                }
                for h in &a.heard {
                    self.out.heard(h);
                }
                if let Some((code, m)) = &a.error {
                    self.out.line(&format!("! {code}: {m}"));
                }
                if a.died {
                    self.out.line("! died — respawning at the temple");
                }
                if a.not_resumed {
                    self.out.line("~ the server could not replay what was missed; the view was rebuilt");
                }
                if let Some(p) = self.pending.as_mut() {
                    p.heard.extend(a.heard.iter().cloned());
                    if !p.replied && v["re"].as_str() == Some(p.id.as_str()) {
                        p.replied = true;
                        p.line.reply_ms = Some(p.sent.elapsed().as_millis() as u64);
                    }
                }
                self.planner.observe(&self.state, &a.heard, a.died.then_some(died_in));
                Ok(None)
            }
            ConnEvent::Reconnecting { attempt, delay, why } => {
                self.out.line(&format!("~ connection lost ({why}); retrying in {:.1} s (attempt {attempt})", delay.as_secs_f64()));
                Ok(None)
            }
            ConnEvent::Reconnected { resumed } => {
                self.out.line(if resumed { "~ reconnected and resumed: nothing missed" } else { "~ reconnected with a new login" });
                Ok(None)
            }
            ConnEvent::Closed { why } => Ok(Some(why)),
            ConnEvent::Fatal(e) => Err(e),
        }
    }

    /// Decides, if it is time.
    async fn step(&mut self) -> Result<(), AgentError> {
        let now = Instant::now();
        if self.ready_at.is_none_or(|r| now < r) {
            return Ok(());
        }
        let answered = self.pending.as_ref().is_none_or(|p| p.replied || p.sent.elapsed() >= REPLY_WAIT);
        let paced = self.last_decision.is_none_or(|t| now.duration_since(t) >= self.opts.pace);
        if !answered || !paced {
            return Ok(());
        }
        if let Some(a) = fsm::survival(&self.state) {
            if let Some(t) = self.thinking.take() {
                t.task.abort();
            }
            self.report.by_fsm += 1;
            return self.send(a, "fsm", None).await;
        }
        if self.thinking.is_some() || (!self.dirty && self.last_decision.is_some_and(|t| now.duration_since(t) < IDLE)) {
            return Ok(());
        }
        self.dirty = false;
        let action = match self.opts.policy {
            Policy::Fsm => self.planner.decide(&self.state),
            Policy::Random => fsm::random_action(&self.state, &mut self.rng),
            Policy::Llm if self.llm_closed_until.is_some_and(|t| now < t) => self.planner.decide(&self.state),
            Policy::Llm => {
                let p = prompt::build(&self.state, &self.history, self.cfg.prompt_budget());
                let client = self.llm.clone().expect("llm policy has a client");
                let tokens = p.tokens;
                self.report.llm_calls += 1;
                self.last_decision = Some(now);
                let choices = super::structured::choices(&self.state);
                self.thinking = Some(Thinking { task: tokio::spawn(async move { client.decide(&p, &choices).await }), tokens });
                return Ok(());
            }
        };
        match action {
            Some(a) => {
                self.report.by_policy += 1;
                self.send(a, if self.opts.policy == Policy::Random { "random" } else { "planner" }, None).await
            }
            None => Ok(()),
        }
    }

    async fn on_llm(&mut self, r: Result<Decided, Vec<(String, String)>>, prompt_tokens: usize) -> Result<(), AgentError> {
        match r {
            Ok(d) => {
                self.llm_streak = (0, String::new());
                for (m, why) in &d.failed {
                    self.out.line(&format!("~ model {m} failed ({why}); {} answered", d.model));
                }
                if !d.failed.is_empty() {
                    self.report.fallback_used += 1;
                }
                self.report.by_llm += 1;
                *self.report.llm_forms.entry(d.form).or_default() += 1;
                let a = Action { command: d.reply.command.clone(), say: d.reply.say.clone(), why: d.model.clone() };
                if let Some(x) = &self.otlp {
                    let now = crate::time::unix_us();
                    x.turn(&crate::record::otlp::Turn {
                        agent: &self.state.name,
                        conversation: self.conversation.clone(),
                        command: d.reply.command.clone(),
                        status: "sent",
                        reason: d.reply.reason.as_deref(),
                        seq: None,
                        calls: &d.calls,
                        sent_us: now,
                        ended_us: now,
                    });
                }
                self.send(a, "llm", Some((&d, prompt_tokens))).await
            }
            Err(failed) => {
                self.report.llm_failed += 1;
                let why = failed.iter().map(|(m, w)| format!("{m}: {w}")).collect::<Vec<_>>().join("; ");
                self.out.line(&format!("~ no model answered ({why}); the planner decides this turn"));
                if why == self.llm_streak.1 {
                    self.llm_streak.0 += 1;
                } else {
                    self.llm_streak = (1, why.clone());
                }
                if self.llm_streak.0 >= 5 {
                    self.out.line("~ the LLM failed the same way 5 times in a row; the planner plays for the next minute");
                    self.llm_closed_until = Some(Instant::now() + Duration::from_secs(60));
                    self.llm_streak = (0, String::new());
                }
                match self.planner.decide(&self.state) {
                    Some(a) => {
                        self.report.by_policy += 1;
                        self.send(a, "planner-fallback", None).await
                    }
                    None => Ok(()),
                }
            }
        }
    }

    async fn send(&mut self, a: Action, source: &str, llm: Option<(&Decided, usize)>) -> Result<(), AgentError> {
        self.end_turn()?;
        self.turn += 1;
        let id = format!("t{}", self.turn);
        let mut line = TurnLine::at(&self.state, &a.command, a.say.as_deref(), source);
        let mut meta = None;
        if let Some((d, prompt_tokens)) = llm {
            line.latency_ms = d.latency.as_millis() as u64;
            line.tokens = d.prompt_tokens.max(prompt_tokens as u64) + d.completion_tokens;
            line.model = d.model.clone();
            let mut m = serde_json::json!({
                "tokens_prompt": d.prompt_tokens.max(prompt_tokens as u64),
                "tokens_completion": d.completion_tokens,
                "latency_ms": d.latency.as_secs_f64() * 1000.0,
            });
            // Why the model chose it (protocol §5), recorded with the decision.
            if let Some(r) = d.reply.reason.as_deref() {
                m["reason"] = serde_json::json!(r);
            }
            // Every model call behind it, its prompt fitted to the frame (issue 53).
            m["llm"] = serde_json::to_value(super::llm::fitted(&d.calls)).unwrap_or_default();
            meta = Some(m);
        }
        // Every decision says why (protocol §5): the planner's rule when no model gave one.
        if meta.as_ref().is_none_or(|m| m.get("reason").is_none()) && !a.why.is_empty() && source != "llm" {
            let why: String = a.why.chars().take(crate::protocol::MAX_REASON).collect();
            meta.get_or_insert_with(|| serde_json::json!({}))["reason"] = serde_json::json!(why);
        }
        self.out.action(&a.command, source, &a.why, &self.state);
        self.tx
            .send(Outbound::Command { command: a.command.clone(), id: id.clone(), meta })
            .await
            .map_err(|_| AgentError::Connect("the connection has stopped".into()))?;
        if let Some(say) = a.say.as_deref().filter(|s| !s.trim().is_empty()) {
            self.out.say(say);
            let why = serde_json::json!({"reason": format!("said with {}", a.command).chars().take(crate::protocol::MAX_REASON).collect::<String>()});
            let _ = self.tx.send(Outbound::Command { command: format!("say {say}"), id: format!("{id}s"), meta: Some(why) }).await;
        }
        self.pending = Some(Pending {
            id,
            command: a.command,
            line,
            sent: Instant::now(),
            hp_before: (self.state.hp, self.state.max_hp),
            heard: Vec::new(),
            replied: false,
        });
        self.last_decision = Some(Instant::now());
        self.dirty = false;
        Ok(())
    }

    /// Logs the turn in progress with what it led to.
    fn end_turn(&mut self) -> Result<(), AgentError> {
        let Some(mut p) = self.pending.take() else { return Ok(()) };
        let feedback: Vec<&str> = p.heard.iter().filter(|h| h.re.as_deref() == Some(p.id.as_str())).map(|h| h.text.trim()).collect();
        p.line.feedback = feedback.join("\n");
        if self.cfg.valence {
            let action = p.command.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            p.line.valence = turn_valence(&action, p.hp_before, (self.state.hp, self.state.max_hp), &p.heard, self.state.level);
        }
        p.line.seq = self.stats.lock().unwrap_or_else(|e| e.into_inner()).last_seq;
        self.history.push_back(Turn { command: p.command, feedback: p.line.feedback.clone() });
        while self.history.len() > HISTORY {
            self.history.pop_front();
        }
        if let Some(log) = self.log.as_mut() {
            log.write(&p.line)?;
        }
        Ok(())
    }

    /// Leaves cleanly: out of any fight, `quit`, the server's close, the log flushed.
    async fn finish(
        mut self,
        rx: &mut mpsc::Receiver<ConnEvent>,
        result: Result<String, AgentError>,
        started: Instant,
    ) -> Result<Report, AgentError> {
        if let Some(t) = self.thinking.take() {
            t.task.abort();
        }
        let mut closed = false;
        let mut error = None;
        match result {
            Ok(why) if why == "quit" || why.starts_with("closed") || why == "the connection ended" => {
                closed = true;
                self.report.ended = why;
            }
            Ok(why) => self.report.ended = why,
            Err(e) => {
                closed = true;
                self.report.ended = e.to_string();
                error = Some(e);
            }
        }
        if !closed {
            let until = Instant::now() + Duration::from_secs(8);
            let mut quit_sent = false;
            let mut last_flee: Option<Instant> = None;
            while Instant::now() < until {
                if !self.state.fighting && !quit_sent {
                    self.end_turn()?;
                    self.out.line("> quit");
                    let why = serde_json::json!({"reason": "the session's time is up"});
                    let _ = self.tx.send(Outbound::Command { command: "quit".into(), id: "quit".into(), meta: Some(why) }).await;
                    quit_sent = true;
                } else if self.state.fighting && last_flee.is_none_or(|t| t.elapsed() > Duration::from_millis(700)) {
                    self.out.line("> flee  [leaving: out of the fight first]");
                    let why = serde_json::json!({"reason": "the session's time is up: out of the fight first, to quit"});
                    let _ = self.tx.send(Outbound::Command { command: "flee".into(), id: "leave".into(), meta: Some(why) }).await;
                    last_flee = Some(Instant::now());
                }
                match tokio::time::timeout(Duration::from_millis(200), rx.recv()).await {
                    Ok(Some(ConnEvent::Closed { .. })) | Ok(None) => {
                        closed = true;
                        self.report.quit_clean = quit_sent;
                        break;
                    }
                    Ok(Some(ConnEvent::Msg(v))) => {
                        let a = self.state.apply(&v);
                        for h in &a.heard {
                            self.out.heard(h);
                        }
                        // `quit` refused (still fighting): try again after fleeing.
                        if v["re"] == "quit" && v["type"] == "event" && self.state.fighting {
                            quit_sent = false;
                        }
                    }
                    Ok(Some(ConnEvent::Fatal(_))) => break,
                    _ => {}
                }
            }
            if !closed {
                let _ = self.tx.send(Outbound::Close).await;
                self.out.line(
                    "~ the server did not end the session in time; the socket was closed (the character stays link-dead for a while)",
                );
            }
        }
        self.end_turn()?;
        if let Some(log) = self.log.take() {
            self.report.log_lines = log.lines;
            self.report.log_file = Some(log.finish()?);
        }
        let st = *self.stats.lock().unwrap_or_else(|e| e.into_inner());
        self.report.turns = self.turn;
        self.report.deaths = self.state.deaths;
        self.report.kills = self.state.kills;
        self.report.level_end = self.state.level;
        self.report.exp_end = self.state.exp;
        self.report.rooms_seen = self.rooms.len();
        self.report.seq_gaps = st.gaps;
        self.report.duplicates = st.duplicates;
        self.report.reconnects = st.reconnects;
        self.report.resumed = st.resumed;
        self.report.resume_refused = st.resume_refused;
        self.report.secs = started.elapsed().as_secs_f64();
        // What the model's spans still wait to send goes now (the exporter blocks).
        if let Some(x) = self.otlp.take().and_then(|x| Arc::try_unwrap(x).ok()) {
            let _ = tokio::task::spawn_blocking(move || x.shutdown()).await;
        }
        if let Some(e) = error {
            self.out.line(&self.report.render());
            return Err(e);
        }
        Ok(self.report)
    }
}

//! The resident manager: one task that owns the `residents` table's changes and the
//! agents' loops. It creates a resident's character (an agent with no password and no
//! key: only the server's own token logs it in), alters its persona or model (the loop
//! picks them up on its next turn), retires it (its loop stops, it leaves the game, its
//! row and its records stay), and at shutdown stops every loop before the engine goes.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use pawns_storage::ResidentRecord;
use serde_json::json;
use tokio::sync::{mpsc, watch};

use crate::agent::hud_loop::{system_prompt, HudLoop, LoopStatus, Mind};
use crate::agent::llm::LlmClient;
use crate::game::run::agents::{ResidentInfo, ResidentNote};
use crate::game::EngineMsg;
use crate::net::shared::Shared;
use crate::resident::{Entry, Refused, ResidentCmd, ResidentConfig, Residents};

/// How long shutdown waits for the loops to close their sockets.
const STOP_BUDGET: Duration = Duration::from_secs(3);

/// The class, race and sex a resident's character is made with (a human warrior).
const CLASS: u8 = 3;
const RACE: u8 = 0;
const SEX: u8 = 1;

struct Running {
    stop: watch::Sender<bool>,
    mind: Arc<RwLock<Mind>>,
    task: tokio::task::JoinHandle<()>,
}

struct Manager {
    shared: Arc<Shared>,
    addr: SocketAddr,
    residents: Residents,
    cfg: ResidentConfig,
    llm: Option<LlmClient>,
    running: HashMap<String, Running>,
}

/// Starts the manager; it ends (its loops stopped) when `stop` turns true.
pub fn spawn(
    shared: Arc<Shared>,
    addr: SocketAddr,
    residents: Residents,
    rx: mpsc::UnboundedReceiver<ResidentCmd>,
    cfg: ResidentConfig,
    stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    // Residents ask for structured answers in the first form their endpoint takes.
    let llm = cfg.llm.as_ref().map(|c| {
        LlmClient::new(&c.endpoint, c.key.as_deref().unwrap_or(""), &c.model, "", 0.7, c.timeout)
            .with_structured(crate::agent::structured::Structured::Auto)
    });
    let m = Manager { shared, addr, residents, cfg, llm, running: HashMap::new() };
    tokio::spawn(m.run(rx, stop))
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

impl Manager {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<ResidentCmd>, mut stop: watch::Receiver<bool>) {
        let store = self.shared.accounts.store().clone();
        let all = match tokio::task::spawn_blocking(move || store.residents()).await {
            Ok(Ok(all)) => all,
            Ok(Err(e)) => {
                tracing::error!(code = e.code(), "cannot read the resident agents: {e}");
                Vec::new()
            }
            Err(_) => Vec::new(),
        };
        let mut waiting = 0;
        for rec in all {
            self.table_put(&rec, None);
            if rec.retired_at_us.is_some() {
                continue;
            }
            if let Err((code, why)) = self.ensure_character(&rec).await {
                tracing::warn!(agent = %rec.name, code, "a resident agent cannot run: {why}");
                continue;
            }
            self.tell_engine(ResidentNote::Known { name: rec.name.clone(), info: info(&rec), join_room: None }).await;
            if self.llm.is_some() {
                self.start(&rec);
            } else {
                waiting += 1;
            }
        }
        if waiting > 0 {
            tracing::info!(count = waiting, "resident agents are kept but not run: serve has no --llm-endpoint");
        }
        loop {
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                _ = stop.changed() => break,
            }
        }
        for r in self.running.values() {
            let _ = r.stop.send(true);
        }
        let tasks: Vec<_> = self.running.drain().map(|(_, r)| r.task).collect();
        let _ = tokio::time::timeout(STOP_BUDGET, futures_util::future::join_all(tasks)).await;
    }

    fn table_put(&self, rec: &ResidentRecord, status: Option<Arc<Mutex<LoopStatus>>>) {
        let mut t = self.residents.table.lock().unwrap_or_else(|e| e.into_inner());
        let keep = status.or_else(|| t.get(&lower(&rec.name)).and_then(|e| e.status.clone()));
        let status = if rec.retired_at_us.is_some() { None } else { keep };
        t.insert(lower(&rec.name), Entry { record: rec.clone(), status });
    }

    fn entry(&self, name: &str) -> Option<ResidentRecord> {
        self.residents.table.lock().unwrap_or_else(|e| e.into_inner()).get(&lower(name)).map(|e| e.record.clone())
    }

    async fn tell_engine(&self, note: ResidentNote) {
        let _ = self.shared.engine.tx.send(EngineMsg::Resident(note)).await;
    }

    async fn tell(&self, to: &str, text: String) {
        if to != "admin" {
            self.tell_engine(ResidentNote::Tell { to: to.to_string(), text }).await;
        }
    }

    /// The resident's character: made if missing; granted agent management as its
    /// definition says. A human's character of the same name is never taken over.
    async fn ensure_character(&self, rec: &ResidentRecord) -> Result<(), Refused> {
        let accounts = &self.shared.accounts;
        let existing = accounts.character(&rec.name).await.map_err(|e| (e.code(), e.message()))?;
        let mut record = match existing {
            Some(r) if !r.is_agent => return Err(("name_taken", format!("{} is a human's character", rec.name))),
            Some(r) => r,
            None => accounts.create(&rec.name, None, CLASS, RACE, SEX, true).await.map_err(|e| (e.code(), e.message()))?.record,
        };
        let hud = record.hud.get_or_insert_with(Default::default);
        if hud.knowledge.is_empty() {
            hud.knowledge = "{}".into();
        }
        if hud.can_create_agents != rec.can_create_agents {
            hud.can_create_agents = rec.can_create_agents;
            let store = accounts.store().clone();
            tokio::task::spawn_blocking(move || store.save_characters(&[record]))
                .await
                .map_err(|e| ("internal", e.to_string()))?
                .map_err(|e| ("internal", e.to_string()))?;
        }
        Ok(())
    }

    async fn put(&self, rec: &ResidentRecord) -> Result<(), Refused> {
        let store = self.shared.accounts.store().clone();
        let r = rec.clone();
        tokio::task::spawn_blocking(move || store.put_resident(&r))
            .await
            .map_err(|e| ("internal", e.to_string()))?
            .map_err(|e| ("internal", e.to_string()))
    }

    async fn handle(&mut self, cmd: ResidentCmd) {
        match cmd {
            ResidentCmd::Create { rec, join_room, reply } => {
                let by = rec.created_by.clone();
                let out = self.create(rec, join_room).await;
                match (&out, reply.is_some()) {
                    (Ok(r), false) => {
                        let room = join_room.map(|n| format!("; it joins room {n}")).unwrap_or_default();
                        self.tell(
                            &by,
                            format!(
                                "{} is made and {}{room}.",
                                r.name,
                                if self.llm.is_some() { "runs" } else { "waits for an LLM endpoint" }
                            ),
                        )
                        .await;
                    }
                    (Err((code, why)), false) => self.tell(&by, format!("create_agent failed ({code}): {why}")).await,
                    _ => {}
                }
                if let Some(tx) = reply {
                    let _ = tx.send(out);
                }
            }
            ResidentCmd::Alter { name, prompt, model, by } => {
                let Some(mut rec) = self.entry(&name).filter(|r| r.retired_at_us.is_none()) else { return };
                if let Some(p) = prompt {
                    rec.prompt = p;
                }
                if model.is_some() {
                    rec.model = model;
                }
                if let Err((code, why)) = self.put(&rec).await {
                    self.tell(&by, format!("alter_agent failed ({code}): {why}")).await;
                    return;
                }
                if let Some(r) = self.running.get(&lower(&name)) {
                    *r.mind.write().unwrap_or_else(|e| e.into_inner()) = self.mind(&rec);
                }
                self.table_put(&rec, None);
                self.tell_engine(ResidentNote::Known { name: rec.name.clone(), info: info(&rec), join_room: None }).await;
                self.tell(&by, format!("{} is altered.", rec.name)).await;
            }
            ResidentCmd::Retire { name, by } => {
                let Some(mut rec) = self.entry(&name).filter(|r| r.retired_at_us.is_none()) else { return };
                rec.retired_at_us = Some(crate::time::unix_us());
                if let Err((code, why)) = self.put(&rec).await {
                    self.tell(&by, format!("retire_agent failed ({code}): {why}")).await;
                    return;
                }
                if let Some(r) = self.running.remove(&lower(&name)) {
                    let _ = r.stop.send(true);
                }
                self.table_put(&rec, None);
                self.tell_engine(ResidentNote::Retired { name: rec.name.clone() }).await;
                tracing::info!(agent = %rec.name, by = %by, "a resident agent retired");
                self.tell(&by, format!("{} is retired.", rec.name)).await;
            }
        }
    }

    async fn create(&mut self, rec: ResidentRecord, join_room: Option<u64>) -> Result<ResidentRecord, Refused> {
        crate::resident::check(&rec)?;
        if self.entry(&rec.name).is_some() {
            return Err(("name_taken", format!("{} is taken", rec.name)));
        }
        let (store, name) = (self.shared.accounts.store().clone(), rec.name.clone());
        let claimed = tokio::task::spawn_blocking(move || store.name_claimed(&name)).await.map_err(|e| ("internal", e.to_string()))?;
        if claimed.map_err(|e| ("internal", e.to_string()))? {
            return Err(("name_taken", format!("{} is taken", rec.name)));
        }
        let mut rec = rec;
        rec.name = crate::auth::names::display(&rec.name);
        self.ensure_character(&rec).await?;
        self.put(&rec).await?;
        self.table_put(&rec, None);
        self.tell_engine(ResidentNote::Known { name: rec.name.clone(), info: info(&rec), join_room }).await;
        if self.llm.is_some() {
            self.start(&rec);
        }
        tracing::info!(agent = %rec.name, by = %rec.created_by, kind = %rec.kind, "a resident agent was made");
        Ok(rec)
    }

    fn mind(&self, rec: &ResidentRecord) -> Mind {
        let model = rec.model.clone().or_else(|| self.cfg.llm.as_ref().map(|c| c.model.clone())).unwrap_or_default();
        Mind { name: rec.name.clone(), system: system_prompt(&rec.kind, &rec.prompt), model }
    }

    /// Starts a resident's loop.
    fn start(&mut self, rec: &ResidentRecord) {
        let Some(llm) = self.llm.clone() else { return };
        let mind = Arc::new(RwLock::new(self.mind(rec)));
        let status =
            Arc::new(Mutex::new(LoopStatus { state: "starting", tokens_per_hour: self.cfg.tokens_per_hour, ..Default::default() }));
        let (stop_tx, stop_rx) = watch::channel(false);
        let (key, name, m) = (self.shared.token_key.clone(), rec.name.clone(), mind.clone());
        let login = Box::new(move || {
            json!({
                "resume": {"token": key.issue(&name, crate::time::unix_secs()), "last_seq": 0},
                "is_agent": true,
                "harness": "pawns-resident",
                "model": m.read().unwrap_or_else(|e| e.into_inner()).model,
                "version": env!("CARGO_PKG_VERSION"),
            })
        });
        let lp = HudLoop {
            url: format!("ws://{}/ws", self.addr),
            login,
            llm,
            mind: mind.clone(),
            format: self.cfg.format,
            budget: self.cfg.budget,
            max_tokens: self.cfg.max_tokens,
            tokens_per_hour: self.cfg.tokens_per_hour,
            status: status.clone(),
            stop: stop_rx,
            turns: None,
        };
        let name = rec.name.clone();
        let task = tokio::spawn(async move {
            if let Err(why) = lp.run().await {
                tracing::warn!(agent = %name, %why, "a resident agent stopped");
            }
        });
        self.table_put(rec, Some(status));
        self.running.insert(lower(&rec.name), Running { stop: stop_tx, mind, task });
    }
}

fn info(rec: &ResidentRecord) -> ResidentInfo {
    ResidentInfo { kind: rec.kind.clone(), prompt: rec.prompt.clone(), model: rec.model.clone() }
}

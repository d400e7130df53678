//! The server as a library: open the data file, load the world, start the engine, the
//! save writer, the recorder, the indexer, the dreamer and the listener; and stop them
//! in order. `main` and the integration tests both call [`start`]. What the connections
//! share (`Shared`) and the login paths belong to the edge (`net/shared.rs`,
//! `net/login.rs`): the server depends on `net`, never the other way round.

mod residents;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use pawns_storage::Store;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch};

use crate::auth::limits::{ConnLimiter, ConnLimits, LoginLimiter, LoginLimits};
use crate::auth::tokens::TokenKey;
use crate::game::records::persist::{spawn_writer, SaveQueue};
use crate::game::{Engine, EngineConfig, EngineHandle, EngineMsg};
use crate::net::accounts::Accounts;
use crate::net::link::{Hub, LinkLimits};
pub use crate::net::login::LoginOutcome;
pub use crate::net::shared::{EdgeConfig, Shared};
use crate::worldfile::{self, stored};

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub db: PathBuf,
    /// A CircleMUD world directory to import on first start (or with `reimport`).
    pub world: Option<PathBuf>,
    pub reimport: bool,
    pub engine: EngineConfig,
    pub conns: ConnLimits,
    pub login: LoginLimits,
    /// Per-connection command rate (protocol §5: 10/s, burst 10).
    pub cmd_rate: f64,
    pub cmd_burst: f64,
    pub link: LinkLimits,
    /// Outbound batches (what one engine step sent a session) one WebSocket may leave
    /// unwritten, once the kernel's buffers are full, before it counts as a slow consumer.
    pub out_queue: usize,
    /// Record sessions, decisions, observations and transitions (see `record`).
    pub record: bool,
    /// Journal the engine's inputs with the record, for `pawns replay` (see `replay`).
    pub journal: bool,
    /// Retention: drop raw observations older than this many days (decisions and
    /// transitions are kept). `None`: keep everything.
    pub keep_observation_days: Option<u32>,
    /// Keep the search index (next to the data file) following the record.
    pub search: bool,
    /// Time between search index commits: the most a durable record waits to be findable.
    pub search_every: std::time::Duration,
    /// How often the record's tail is packed (`pawns serve --sweep-every`).
    pub sweep_every: std::time::Duration,
    /// Dream (consolidate agents' memory) on logout, past the size threshold and daily.
    pub dream: bool,
    /// Records since an agent's last dream that make it dream again.
    pub dream_threshold: u64,
    /// The daily dream's local time and zone (`None`: no daily dream).
    pub dream_daily: Option<(chrono::NaiveTime, chrono_tz::Tz)>,
    /// Consolidation parameters, heading zone, optional LLM.
    pub dream_opts: crate::memory::DreamOptions,
    /// Resident agents: the model endpoint they ask, the HUD they get (issue 15).
    pub residents: crate::resident::ResidentConfig,
    /// Where model calls go as OpenTelemetry GenAI spans (a traces URL), if anywhere.
    pub otlp_endpoint: Option<String>,
    /// A name for this server run in the run registry (`serve --run NAME`): registered
    /// at start (a name taken refuses the start), ended at shutdown.
    pub run: Option<String>,
    /// How long a neural link request waits for its answer (§12: 2 minutes).
    pub link_window: std::time::Duration,
    /// Deadlines and budgets of connections before login, and of HTTP.
    pub sockets: crate::net::shared::SocketLimits,
    /// Browser origins besides the server's own that may call it (`https://example.org`).
    pub allow_origins: Vec<String>,
    /// One second of the HUD heartbeat (1 s; tests shorten it rather than wait).
    pub heartbeat_second: std::time::Duration,
    /// What each agent's mind may hold, per layer (`mind::quota`).
    pub mind_quotas: crate::mind::quota::Quotas,
    /// `new_char` without a password makes a guest character (the seed's smoke test).
    pub guests: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            db: PathBuf::from("pawns.redb"),
            world: None,
            reimport: false,
            engine: EngineConfig::default(),
            conns: ConnLimits::default(),
            login: LoginLimits::default(),
            cmd_rate: 10.0,
            cmd_burst: 10.0,
            link: LinkLimits::default(),
            out_queue: crate::net::ws::OUT_QUEUE,
            record: true,
            journal: true,
            keep_observation_days: None,
            search: true,
            search_every: crate::search::indexer::COMMIT_EVERY,
            sweep_every: crate::record::recorder::SWEEP_EVERY,
            dream: true,
            dream_threshold: crate::memory::dreamer::DEFAULT_THRESHOLD,
            dream_daily: Some((chrono::NaiveTime::from_hms_opt(3, 30, 0).expect("a time"), chrono_tz::America::New_York)),
            dream_opts: crate::memory::DreamOptions { tz: chrono_tz::America::New_York, ..Default::default() },
            residents: Default::default(),
            otlp_endpoint: None,
            run: None,
            link_window: crate::mind::link::WINDOW,
            sockets: Default::default(),
            allow_origins: Vec::new(),
            heartbeat_second: std::time::Duration::from_secs(1),
            mind_quotas: Default::default(),
            guests: false,
        }
    }
}

/// How long a stop waits for open connections to close by themselves (sessions say
/// goodbye) before it ends them.
const CONNECTIONS_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// A running server.
pub struct RunningServer {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
    shutdown_tx: watch::Sender<bool>,
    accept: tokio::task::JoinHandle<()>,
    /// The connections' tasks (each holds the store: the stop ends them).
    tasks: crate::net::tasks::Tasks,
    engine_task: oneshot::Receiver<()>,
    saves: SaveQueue,
    writer: tokio::task::JoinHandle<()>,
    /// The recorder and its task (none when recording is off).
    pub recorder: Option<(crate::record::RecorderHandle, crate::record::recorder::RecorderThread)>,
    indexer: Option<crate::search::IndexerThread>,
    dreamer: Option<crate::memory::dreamer::DreamerThread>,
    daily: Option<tokio::task::JoinHandle<()>>,
    retention: Option<tokio::task::JoinHandle<()>>,
    residents: (watch::Sender<bool>, tokio::task::JoinHandle<()>),
    /// The OTLP export of model calls (none without `--otlp-endpoint`).
    otlp: Option<crate::record::otlp::Otlp>,
    /// The run this server registered (`serve --run`), ended at shutdown.
    run: Option<String>,
}

impl RunningServer {
    /// Stops accepting, saves every character, and waits for the writes to land.
    pub async fn shutdown(self) {
        // Dreams are idempotent and run again at their next trigger: the backlog (and
        // the logout dreams the sessions closed below would ask for) is dropped now.
        if let Some(t) = &self.dreamer {
            t.cancel();
        }
        // Resident agents close their sockets first: they are clients like any other.
        let _ = self.residents.0.send(true);
        let _ = self.residents.1.await;
        let _ = self.shutdown_tx.send(true);
        let _ = self.accept.await;
        let (tx, rx) = oneshot::channel();
        if self.shared.engine.tx.send(EngineMsg::Shutdown { reply: tx }).await.is_ok() {
            let _ = rx.await;
        }
        let _ = self.engine_task.await;
        self.saves.flush().await;
        drop(self.saves);
        let _ = self.writer.await;
        // The sessions were told; what is still open ends now (each connection holds the
        // store, and the file stays locked while any does).
        let open = self.tasks.close(CONNECTIONS_GRACE).await;
        tracing::debug!(open, "connections closed");
        if let Some(r) = self.retention {
            let _ = r.await;
        }
        // The engine is gone (its handle with it): the recorder commits what is left and ends.
        if let Some((handle, task)) = self.recorder {
            handle.flush().await;
            drop(handle);
            task.join().await;
        }
        // The last committed decisions' spans go out, then the exporter stops.
        if let Some(o) = self.otlp {
            let _ = tokio::task::spawn_blocking(move || o.shutdown()).await;
        }
        // Then the indexer catches up with the last batch, commits and ends.
        if let (Some(h), Some(t)) = (&self.shared.search, self.indexer) {
            h.stop();
            t.join().await;
        }
        // Last, the dreamer (told to stop at the start) is joined.
        if let Some(d) = self.daily {
            d.abort();
        }
        if let Some(t) = self.dreamer {
            let _ = tokio::task::spawn_blocking(move || t.stop()).await;
        }
        if let Some(id) = self.run {
            let store = self.shared.accounts.store().clone();
            match tokio::task::spawn_blocking(move || crate::research::runs::end(&store, &id, None)).await {
                Ok(Ok(r)) => tracing::info!(run = %r.id, "the server run ended"),
                Ok(Err(e)) => tracing::warn!(%e, "the server run could not be ended"),
                Err(_) => {}
            }
        }
    }
}

/// Opens the store and makes sure it holds a world: imports the starter world (or
/// `cfg.world`) on first start, or when `reimport` says so; otherwise reads it back.
pub fn prepare_store(cfg: &ServerConfig) -> anyhow::Result<(Store, crate::worldfile::WorldProto)> {
    let (store, report) = Store::open(&cfg.db).map_err(|e| anyhow::anyhow!("opening {}: {e} ({})", cfg.db.display(), e.code()))?;
    // Nothing the server writes (exports, backups) ever lands on its data file or index.
    pawns_storage::files::protect(&cfg.db);
    pawns_storage::files::protect(&crate::search::index::index_dir(&cfg.db));
    if report.created {
        tracing::info!(path = %cfg.db.display(), "created a new data file");
    }
    for v in &report.migrations_applied {
        tracing::info!(version = v, "applied migration");
    }
    if report.damaged_dicts > 0 {
        tracing::error!(
            code = "record_dictionary_damaged",
            count = report.damaged_dicts,
            "record dictionaries in the data file are damaged: the record packed with them cannot be read (the rest of the file can); restore them from a backup"
        );
    }
    let existing = stored::load(&store)?;
    let world = match (existing, &cfg.world, cfg.reimport) {
        (Some(w), None, _) | (Some(w), Some(_), false) => {
            let source = stored::source(&store)?.unwrap_or_default();
            // A different world is never swapped in (or ignored) silently.
            if let Some(dir) = cfg.world.as_ref().filter(|d| !same_source(d, &source)) {
                anyhow::bail!(
                    "world_mismatch: {} already holds a world (imported from {source}); \
                     pass --reimport to replace it with {}, or leave out --world",
                    cfg.db.display(),
                    dir.display()
                );
            }
            crate::worldfile::profile::with_profile(w, &source)
        }
        (_, dir, _) => {
            let (loaded, source) = match dir {
                Some(d) => (worldfile::load_dir(d).map_err(|e| anyhow::anyhow!("{}: {e}", e.code()))?, canonical(d)),
                None => (worldfile::load(&worldfile::StarterWorld)?, "starter".to_string()),
            };
            for w in &loaded.warnings {
                tracing::warn!("world: {w}");
            }
            stored::import(&store, &loaded.world, &source)?;
            tracing::info!(rooms = loaded.world.rooms.len(), source = %source, "world imported into the data file");
            // Played as stored (zone rows regroup the world): the world a replay loads.
            stored::load(&store)?.unwrap_or(loaded.world)
        }
    };
    // Sessions a crash (or kill) left open are closed now, so reads of them are direct.
    match store.close_open_sessions("server_stopped", crate::record::unix_us()) {
        Ok(0) => {}
        Ok(n) => tracing::info!(sessions = n, "closed sessions the last run left open"),
        Err(e) => tracing::warn!(code = e.code(), "could not close the last run's open sessions: {e}"),
    }
    Ok((store, world))
}

/// Drops observations older than `days` days, now and every hour, off the async threads.
/// Ends at the server's stop (a pass under way finishes first).
async fn retention(store: Arc<Store>, days: u32, search: Option<crate::search::IndexerHandle>, mut stop: watch::Receiver<bool>) {
    let mut every = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = stop.changed() => return,
        }
        let today = pawns_storage::day_of(crate::record::unix_us());
        let st = store.clone();
        let cutoff = today.saturating_sub(days);
        match tokio::task::spawn_blocking(move || {
            let n = st.drop_observations_before(cutoff)?;
            // A run's journal goes with its observations (it could no longer be compared).
            st.drop_journals_before(cutoff as u64 * 86_400_000_000)?;
            Ok::<u64, pawns_storage::StoreError>(n)
        })
        .await
        {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => {
                tracing::info!(dropped = n, keep_days = days, "retention: dropped old observations");
                if let Some(s) = &search {
                    s.forget_observations_before(today.saturating_sub(days) as u64 * 86_400_000_000);
                }
            }
            Ok(Err(e)) => tracing::warn!(code = e.code(), "retention failed: {e}"),
            Err(e) => tracing::warn!("retention task failed: {e}"),
        }
    }
}

/// How a world directory is named in the data file: its canonical path when it has one.
fn canonical(dir: &std::path::Path) -> String {
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()).display().to_string()
}

fn same_source(dir: &std::path::Path, stored: &str) -> bool {
    canonical(dir) == stored || dir.display().to_string() == stored
}

/// The data file's token key (made on first use): signs session tokens and derives the
/// observatory's admin token.
pub fn token_key(store: &Store) -> anyhow::Result<[u8; 32]> {
    let key = store.meta_get_or_init("token_key", || {
        let mut k = [0u8; 32];
        rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut k);
        k.to_vec()
    })?;
    let mut token_key = [0u8; 32];
    let n = 32.min(key.len());
    token_key[..n].copy_from_slice(&key[..n]);
    Ok(token_key)
}

pub async fn start(cfg: ServerConfig, listener: TcpListener) -> anyhow::Result<RunningServer> {
    start_with(cfg, listener, None).await
}

/// A branch's server (`pawns branch`): it plays on from `engine`, replayed to the branch
/// point into `cfg.db`, its journal going on as run `journal_run` (the parent's).
pub async fn start_branch(cfg: ServerConfig, listener: TcpListener, engine: Engine, journal_run: u64) -> anyhow::Result<RunningServer> {
    start_with(cfg, listener, Some((engine, journal_run))).await
}

async fn start_with(cfg: ServerConfig, listener: TcpListener, prebuilt: Option<(Engine, u64)>) -> anyhow::Result<RunningServer> {
    let addr = listener.local_addr()?;
    let cfg2 = cfg.clone();
    let (store, world) = tokio::task::spawn_blocking(move || prepare_store(&cfg2)).await??;
    let token_key = token_key(&store)?;
    let store = Arc::new(store);
    let run = match &cfg.run {
        Some(name) => {
            let r = crate::research::runs::Run {
                id: name.clone(),
                kind: "serve".into(),
                command_line: std::env::args().collect(),
                seed: Some(cfg.engine.seed),
                ..Default::default()
            };
            let st = store.clone();
            let r = tokio::task::spawn_blocking(move || crate::research::runs::register(&st, r))
                .await?
                .map_err(|e| anyhow::anyhow!("--run: {e} ({})", e.code()))?;
            tracing::info!(run = %r.id, "this server run is registered");
            Some(r.id)
        }
        None => None,
    };
    let unsaved = crate::game::records::persist::Unsaved::default();
    let (saves, writer) = spawn_writer(store.clone(), unsaved.clone());
    let (etx, erx) = mpsc::channel(65_536);
    let start_vnum = crate::worldfile::profile::start_room(&world, &world.profile, cfg.engine.start_room)
        .map_err(|e| anyhow::anyhow!("bad_start_room: {e}"))?;
    let kit = crate::game::model::kit::StartKit::new(&world);
    // `--start-room` is where everyone starts, a world's first room (Dark Pawns's burning
    // hut) included.
    let kit = Arc::new(if cfg.engine.start_room.is_some() { kit.starting_at_the_start_room() } else { kit });
    let start_name = world.rooms.iter().find(|r| r.vnum == start_vnum).map(|r| r.name.clone()).unwrap_or_default();
    let (mut engine, journal_run) = match prebuilt {
        Some((mut e, run)) => {
            e.set_saves(saves.clone());
            (e, Some(run))
        }
        None => (Engine::new(world, cfg.engine.clone(), saves.clone()), None),
    };
    let (residents, resident_rx) = crate::resident::Residents::new();
    engine.resident_cmds = Some(residents.tx.clone());
    let wakes = engine.wakes.clone();
    let metrics = Arc::new(crate::metrics::Metrics::over(engine.stats.counters.clone()));
    let houses = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || store.houses()).await??
    };
    // A branch's engine holds its houses, chat rooms and boards as they were at its
    // branch point.
    if journal_run.is_none() {
        engine.restore_houses(&houses);
    }
    let rooms = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || store.chat_rooms()).await??
    };
    let rooms_saved = rooms.clone();
    if journal_run.is_none() {
        engine.chat = crate::game::model::chat_rooms::ChatBook::restore(rooms);
    }
    let boards = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || store.boards()).await??
    };
    let boards_saved = boards.clone();
    if journal_run.is_none() {
        engine.boards = crate::game::rules::specials::board::BoardBook::restore(boards);
    }
    engine.registered = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || store.character_names()).await??.into_iter().collect()
    };
    // The index is derived data: if it cannot be opened the server still plays and
    // records, and says so (search answers `search_unavailable`).
    let (search, feed, indexer) = match (cfg.record && cfg.search).then(|| crate::search::spawn_indexer(store.clone(), cfg.search_every)) {
        Some(Ok((h, f, t))) => (Some(h), Some(Box::new(f) as Box<dyn crate::record::recorder::TakesRecords>), Some(t)),
        Some(Err(e)) => {
            tracing::warn!(code = e.code(), "search index unavailable: {e}");
            (None, None, None)
        }
        None => (None, None, None),
    };
    let (dreamer, dream_feed, dreamer_thread) = if cfg.record && cfg.dream {
        let (h, f, t) = crate::memory::spawn_dreamer(store.clone(), cfg.dream_opts.clone(), cfg.dream_threshold)
            .context("cannot start the dreamer thread")?;
        (Some(h), Some(Box::new(f) as Box<dyn crate::record::recorder::ReadsBatches>), Some(t))
    } else {
        (None, None, None)
    };
    let recorder = if cfg.record {
        Some(crate::record::spawn_recorder(store.clone(), feed, dream_feed, cfg.sweep_every).context("cannot start the recorder thread")?)
    } else {
        None
    };
    engine.recorder = recorder.as_ref().map(|(h, _)| Arc::new(h.clone()) as Arc<dyn crate::game::records::record_sink::RecordSink>);
    if let (Some(run), true) = (journal_run, cfg.record && cfg.journal) {
        engine.continue_journal(run);
    } else if cfg.record && cfg.journal {
        // The run's journal: with it `pawns replay` rebuilds this engine and its record.
        let st = store.clone();
        let (digest, source) = tokio::task::spawn_blocking(move || crate::replay::run::world_digest(&st)).await??;
        engine.begin_journal(crate::replay::run::boot_of(&engine, digest, source, houses, rooms_saved, boards_saved));
    }
    // The engine gets a thread of its own, so thousands of socket tasks on the shared
    // pool can never delay a pulse.
    let (engine_done_tx, engine_task) = oneshot::channel();
    let (dead_tx, engine_dead) = watch::channel(false);
    std::thread::Builder::new()
        .name("pawns-engine".into())
        .spawn(move || {
            match tokio::runtime::Builder::new_current_thread().enable_time().build() {
                Ok(rt) => {
                    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.block_on(engine.run(erx))));
                    if run.is_err() {
                        tracing::error!("the engine thread died (a panic outside a command); /health answers 503 until a restart");
                        let _ = dead_tx.send(true);
                    }
                }
                Err(e) => {
                    tracing::error!("cannot start the engine's runtime: {e}");
                    let _ = dead_tx.send(true);
                }
            }
            let _ = engine_done_tx.send(());
        })
        .context("cannot start the engine thread")?;
    let edge = EdgeConfig {
        cmd_rate: cfg.cmd_rate,
        cmd_burst: cfg.cmd_burst,
        out_queue: cfg.out_queue,
        link: cfg.link,
        record: cfg.record,
        sockets: cfg.sockets,
        allow_origins: cfg.allow_origins.clone(),
        heartbeat_second: cfg.heartbeat_second,
    };
    let (dream_daily, keep_days) = (cfg.dream_daily, cfg.keep_observation_days);
    let tasks = crate::net::tasks::Tasks::default();
    let shared = Arc::new(Shared {
        edge,
        accounts: Accounts::new(store.clone(), start_vnum, kit, unsaved).with_guests(cfg.guests),
        start_room: (start_vnum, start_name),
        engine: EngineHandle { tx: etx.clone(), wakes },
        residents: residents.clone(),
        mind: crate::mind::Mind::new(store.clone(), search.clone(), cfg.residents.llm.clone())
            .with_quotas(cfg.mind_quotas)
            .with_engine(etx.clone())
            .with_link_window(cfg.link_window),
        login: LoginLimiter::new(cfg.login.clone()),
        conns: ConnLimiter::new(crate::net::descriptors::fit(cfg.conns)),
        hub: Arc::new(Hub::default()),
        seats: Default::default(),
        token_key: TokenKey(token_key),
        admin: crate::auth::tokens::AdminToken::new(TokenKey(token_key), crate::auth::tokens::stored_generation(&store)?),
        revoked: Default::default(),
        next_link: AtomicU64::new(1),
        started: Instant::now(),
        record_stats: recorder.as_ref().map(|(h, _)| h.stats.clone()),
        metrics,
        search,
        dreamer,
        engine_dead,
        tasks: tasks.spawner(),
    });
    let daily = match (&shared.dreamer, dream_daily) {
        (Some(d), Some((at, tz))) => Some(tokio::spawn(crate::memory::schedule::daily(d.clone(), at, tz))),
        _ => None,
    };
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let retention = keep_days.map(|days| tokio::spawn(retention(store.clone(), days, shared.search.clone(), shutdown_rx.clone())));
    let accept = tokio::spawn(crate::net::listener::accept_loop(listener, shared.clone(), shutdown_rx));
    tracing::info!(%addr, "pawns is listening (telnet, WebSocket /ws, HTTP /health)");
    let (resident_stop, resident_stop_rx) = watch::channel(false);
    let manager = residents::spawn(shared.clone(), addr, residents, resident_rx, cfg.residents.clone(), resident_stop_rx);
    let otlp = match (&cfg.otlp_endpoint, &recorder) {
        (Some(e), Some((h, _))) => {
            let url = crate::record::otlp::traces_url(e).map_err(|m| anyhow::anyhow!(m))?;
            let o = crate::record::otlp::Otlp::start(&h.stats.watch, &url, "pawns").map_err(|m| anyhow::anyhow!(m))?;
            tracing::info!(%url, "model calls are exported as OpenTelemetry spans");
            Some(o)
        }
        (Some(_), None) => {
            tracing::warn!("--otlp-endpoint needs the record (recording is off): no spans are exported");
            None
        }
        _ => None,
    };
    Ok(RunningServer {
        addr,
        shared,
        shutdown_tx,
        accept,
        tasks,
        engine_task,
        saves,
        writer,
        recorder,
        indexer,
        dreamer: dreamer_thread,
        daily,
        retention,
        residents: (resident_stop, manager),
        otlp,
        run,
    })
}

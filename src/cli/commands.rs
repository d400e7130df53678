//! What each subcommand does.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use pawns_storage::{Store, StoreError};

use crate::cli::{AdminTokenArgs, BackupArgs, ExportArgs, KeygenArgs, RestoreArgs, ServeArgs, WorldCheckArgs};
use pawns::net::accounts::Accounts;
use pawns::server::{self, ServerConfig};

pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_new(&args.log).with_context(|| format!("--log '{}' is not a log filter", args.log))?;
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(crate::cli::stderr_is_terminal()).init();
    let mut cfg = ServerConfig { db: args.db.clone(), world: args.world.clone(), reimport: args.reimport, ..Default::default() };
    if let Some(seed) = args.seed {
        cfg.engine.seed = seed;
    }
    cfg.engine.start_room = args.start_room;
    cfg.engine.fault_injection = args.fault_injection;
    cfg.engine.linkdead_grace = Duration::from_secs(args.linkdead_secs);
    cfg.record = !args.no_record;
    cfg.journal = !args.no_journal;
    cfg.keep_observation_days = args.keep_observations;
    cfg.engine.record_humans = !args.no_record_humans;
    cfg.engine.scripts = !args.no_scripts;
    if args.index_every < Duration::from_millis(10) {
        bail!("--index-every must be at least 10ms");
    }
    cfg.search_every = args.index_every;
    if args.sweep_every < Duration::from_millis(10) {
        bail!("--sweep-every must be at least 10ms");
    }
    cfg.sweep_every = args.sweep_every;
    cfg.search = !args.no_search;
    cfg.dream = !args.no_dream;
    cfg.dream_threshold = args.dream_threshold;
    let zone = pawns::memory::schedule::parse_zone(&args.dream_zone).map_err(|m| anyhow::anyhow!("--dream-zone: {m}"))?;
    cfg.dream_daily = if args.dream_at.eq_ignore_ascii_case("off") {
        None
    } else {
        Some((pawns::memory::schedule::parse_time(&args.dream_at).map_err(|m| anyhow::anyhow!("--dream-at: {m}"))?, zone))
    };
    cfg.dream_opts =
        pawns::memory::DreamOptions { params: args.consolidation.params()?, tz: zone, llm: args.llm.config()?, ..Default::default() };
    cfg.residents.llm = args.llm.config()?;
    cfg.residents.format = args.resident_hud_format.parse().map_err(|e| anyhow::anyhow!("--resident-hud-format: {e}"))?;
    if !(pawns::hud::budget::MIN_BUDGET..=pawns::hud::budget::MAX_BUDGET).contains(&args.resident_hud_budget) {
        bail!("--resident-hud-budget must be {} to {} tokens", pawns::hud::budget::MIN_BUDGET, pawns::hud::budget::MAX_BUDGET);
    }
    cfg.residents.budget = args.resident_hud_budget;
    cfg.residents.tokens_per_hour = args.resident_tokens_per_hour;
    if let Some(e) = &args.otlp_endpoint {
        pawns::record::otlp::traces_url(e).map_err(|m| anyhow::anyhow!(m))?;
    }
    cfg.otlp_endpoint = args.otlp_endpoint.clone();
    if let Some(r) = &args.run {
        pawns::research::runs::check_id(r).map_err(|m| anyhow::anyhow!("--run: {m} (bad_request)"))?;
    }
    cfg.run = args.run.clone();
    cfg.conns.total = args.max_connections;
    cfg.conns.per_ip = args.max_per_ip;
    if args.login_rate.is_nan() || args.login_rate <= 0.0 || args.login_burst.is_nan() || args.login_burst < 1.0 {
        bail!("--login-rate must be above 0 and --login-burst at least 1");
    }
    for o in &args.allow_origin {
        if !(o.starts_with("http://") || o.starts_with("https://")) || o.trim_end_matches('/').matches('/').count() != 2 {
            bail!("--allow-origin must be an origin like https://example.org (scheme and host, no path); got '{o}'");
        }
    }
    cfg.allow_origins = args.allow_origin.clone();
    cfg.guests = args.guests;
    if args.login_within < Duration::from_secs(1) || args.http_header_within < Duration::from_millis(100) || args.pre_login_messages == 0 {
        bail!("--login-within must be at least 1s, --http-header-within at least 100ms, --pre-login-messages at least 1");
    }
    cfg.sockets.login_within = args.login_within;
    cfg.sockets.create_within = args.login_within * 10;
    cfg.sockets.pre_login_frames = args.pre_login_messages;
    cfg.sockets.http_header_within = args.http_header_within;
    if args.mind_quota_records == 0 || args.mind_quota_mib == 0 {
        bail!("--mind-quota-records and --mind-quota-mib must be at least 1");
    }
    cfg.mind_quotas = pawns::mind::quota::Quotas::from_keyed(args.mind_quota_records, args.mind_quota_mib.saturating_mul(1 << 20));
    cfg.login.rate = args.login_rate;
    cfg.login.burst = args.login_burst;
    let addr = format!("{}:{}", args.host, args.port);
    let listener = tokio::net::TcpListener::bind(&addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let running = server::start(cfg, listener).await?;
    say(&format!(
        "pawns: listening on {} (telnet, ws://{}/ws, http://{}/health); data file {}",
        running.addr,
        running.addr,
        running.addr,
        args.db.display()
    ));
    // Ctrl-C, or SIGTERM from a service manager: both shut down cleanly. A dead engine
    // ends the process with an error, so a supervisor restarts it.
    let mut dead = running.shared.engine_dead.clone();
    let engine_died = async move {
        let _ = dead.wait_for(|d| *d).await;
    };
    // A data file that cannot be written for a while (a full disk): redb refuses every
    // write after an I/O error until it is opened again, so the server stops cleanly,
    // saying why, for a supervisor to start it again once there is room.
    let stats = running.shared.record_stats.clone();
    let storage_failed = async move {
        let Some(stats) = stats else { return std::future::pending::<String>().await };
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if let Some((since, why)) = stats.failing_since() {
                if pawns::time::unix_us().saturating_sub(since) >= STORAGE_GRACE.as_micros() as u64 {
                    return why;
                }
            }
        }
    };
    let died;
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).context("cannot watch for SIGTERM")?;
        died = tokio::select! {
            _ = tokio::signal::ctrl_c() => false,
            _ = term.recv() => false,
            _ = engine_died => true,
            why = storage_failed => {
                say(&format!("pawns: the data file cannot be written ({why}); stopping. Start the server again once the disk has room: nothing acknowledged was lost."));
                running.shutdown().await;
                bail!("storage_failed: {why}");
            }
        };
    }
    #[cfg(not(unix))]
    {
        died = tokio::select! {
            _ = tokio::signal::ctrl_c() => false,
            _ = engine_died => true,
            why = storage_failed => {
                running.shutdown().await;
                bail!("storage_failed: {why}");
            }
        };
    }
    if died {
        say("pawns: the game engine died; saving what is queued and exiting with an error...");
        running.shutdown().await;
        bail!("engine_dead: the game engine stopped (see the log for the panic); restart the server");
    }
    say("pawns: shutting down, saving characters...");
    running.shutdown().await;
    say("pawns: stopped cleanly.");
    Ok(())
}

/// How long the data file may refuse writes before `serve` stops.
const STORAGE_GRACE: Duration = Duration::from_secs(5);

/// A line on standard output for whoever watches the server; a closed stdout (the
/// supervisor went away) is no reason to stop, let alone to panic mid-shutdown.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

pub async fn keygen(args: KeygenArgs) -> anyhow::Result<()> {
    pawns::auth::names::check(&args.name).map_err(|m| anyhow::anyhow!("invalid name '{}' (invalid_name): {m}", args.name))?;
    let server = args.server.clone().unwrap_or_else(|| crate::cli::DEFAULT_SERVER.to_string());
    // Which data file, if any: an explicit --db; else ./pawns.redb only if it exists and
    // no --server was named. An explicit --server alone never touches a file.
    let db = match (&args.db, &args.server) {
        (Some(db), _) => Some(db.clone()),
        (None, Some(_)) => None,
        (None, None) => Some(PathBuf::from("pawns.redb")).filter(|p| p.exists()),
    };
    let Some(db) = db else {
        let key = pawns::client::create_key_with(&server, &args.name, args.take_over).await.with_context(|| match &args.server {
            Some(_) => format!("asking the server at {server} for a key failed (connect_failed)"),
            None => format!(
                "no data file here (./pawns.redb) and no server answered at {server} (connect_failed); \
                 pass --server URL for a running server, or --db FILE to write the key into a data file"
            ),
        })?;
        println!("{key}");
        eprintln!("Agent key for {} from {server} (shown once; only its hash is stored).", pawns::auth::names::display(&args.name));
        return Ok(());
    };
    let (name, take_over) = (args.name.clone(), args.take_over);
    let db2 = db.clone();
    let offline = tokio::task::spawn_blocking(move || -> Result<(Result<String, pawns::net::accounts::AuthError>, bool), StoreError> {
        let (store, report) = Store::open(&db2)?;
        Ok((Accounts::create_key(&store, &name, take_over), report.created))
    })
    .await?;
    let key = match offline {
        Ok((k, created)) => {
            if created {
                eprintln!("Created a new data file {} (no server has used it yet).", db.display());
            }
            k?
        }
        Err(StoreError::Locked { .. }) => pawns::client::create_key_with(&server, &args.name, args.take_over)
            .await
            .with_context(|| format!("{} is held by a running server, and asking it at {server} failed", db.display()))?,
        Err(e) => return Err(e.into()),
    };
    println!("{key}");
    eprintln!("Agent key for {} (shown once; only its hash is stored).", pawns::auth::names::display(&args.name));
    Ok(())
}

/// `pawns world check DIR`: the report, or an error (exit 1) when nothing can be loaded.
pub fn world_check(args: WorldCheckArgs) -> anyhow::Result<()> {
    if !args.dir.is_dir() {
        bail!("{} is not a directory (world_unreadable)", args.dir.display());
    }
    let started = std::time::Instant::now();
    let loaded = pawns::worldfile::load_dir(&args.dir).map_err(|e| anyhow::anyhow!("{e} ({})", e.code()))?;
    let report = pawns::game::tools::world_check::report(args.dir.display().to_string(), &loaded);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.render(args.verbose));
        println!("\nLoaded in {:.0} ms.", started.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(())
}

/// Runs `work` on the data file opened read-only (it stays byte for byte as it was),
/// when there is a file and no server holds it. `Ok(Err(held))`: ask the server instead
/// (there is no file here, or a server holds it).
pub async fn read_offline<T: Send + 'static>(
    place: &crate::cli::Place,
    work: impl FnOnce(&Store) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<Result<T, bool>> {
    offline(place, open_for_reading, work).await
}

/// [`read_offline`] with the file opened for writing (it must exist).
pub async fn write_offline<T: Send + 'static>(
    place: &crate::cli::Place,
    work: impl FnOnce(&Store) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<Result<T, bool>> {
    offline(place, |db| Ok((Store::open_existing(db)?.0, None)), work).await
}

/// A scratch directory that lives as long as the store read from it.
type Scratch = Option<tempfile::TempDir>;

async fn offline<T: Send + 'static>(
    place: &crate::cli::Place,
    open: fn(&std::path::Path) -> anyhow::Result<(Store, Scratch)>,
    work: impl FnOnce(&Store) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<Result<T, bool>> {
    let Some(db) = place.file()? else { return Ok(Err(false)) };
    pawns_storage::files::protect(&db);
    let r = tokio::task::spawn_blocking(move || -> anyhow::Result<T> {
        let (store, _scratch) = open(&db)?;
        work(&store)
    })
    .await?;
    match r {
        Ok(t) => Ok(Ok(t)),
        Err(e) if is_locked(&e) => Ok(Err(true)),
        Err(e) => match e.downcast_ref::<StoreError>() {
            Some(s) => bail!("{s} ({})", s.code()),
            None => Err(e),
        },
    }
}

/// Opens a data file to read it and leave it byte for byte as it was. A file that must
/// be changed before it can be read (not closed cleanly after a crash, or of an older
/// schema) is read from a repaired or migrated copy in a scratch directory, and the
/// command says so; the scratch directory goes with the returned guard.
pub fn open_for_reading(db: &std::path::Path) -> anyhow::Result<(Store, Scratch)> {
    match Store::open_read_only(db) {
        Ok(store) => Ok((store, None)),
        Err(e @ (StoreError::NeedsRepair(_) | StoreError::NeedsMigration { .. })) => {
            eprintln!("pawns: {e} ({}); reading a repaired copy, the file itself is left as it was", e.code());
            let dir = tempfile::tempdir().context("making a scratch directory")?;
            let copy = dir.path().join("copy.redb");
            std::fs::copy(db, &copy).with_context(|| format!("copying {}", db.display()))?;
            let (store, _) = Store::open_existing(&copy)?;
            Ok((store, Some(dir)))
        }
        Err(e) => Err(e.into()),
    }
}

/// Whether the error is a data file held by a running server.
pub fn is_locked(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<StoreError>().is_some_and(|s| matches!(s, StoreError::Locked { .. })))
}

/// Where a command's output goes: a new file (never over another unless `--force`, never
/// through a symlink, never the data file; put in place only when complete by
/// [`Sink::finish`], and left nowhere if the command fails), or standard output.
pub enum Sink {
    File(std::io::BufWriter<pawns_storage::files::NewFile>),
    Stdout(std::io::BufWriter<std::io::Stdout>),
}

impl Sink {
    pub fn open(path: Option<&std::path::Path>, force: bool) -> anyhow::Result<Sink> {
        Ok(match path {
            Some(p) => Sink::File(std::io::BufWriter::new(pawns_storage::files::create(p, force).map_err(file_err)?)),
            None => Sink::Stdout(std::io::BufWriter::new(std::io::stdout())),
        })
    }

    pub fn finish(self) -> anyhow::Result<()> {
        use std::io::Write;
        match self {
            Sink::File(w) => w.into_inner().map_err(|e| e.into_error())?.commit().map_err(file_err),
            Sink::Stdout(mut w) => Ok(w.flush()?),
        }
    }
}

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(w) => w.write(buf),
            Sink::Stdout(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(w) => w.flush(),
            Sink::Stdout(w) => w.flush(),
        }
    }
}

/// A file that was not written, with its stable code.
pub fn file_err(e: pawns_storage::files::FileError) -> anyhow::Error {
    anyhow::anyhow!("{e} ({})", e.code())
}

/// `pawns export sessions|decisions`: from the data file, or from the running server
/// that holds it. The output is built in memory and written as one new file.
pub async fn export(args: ExportArgs, decisions: bool) -> anyhow::Result<()> {
    use pawns::record::export::{Format, What};
    let format: Format = args.format.parse().map_err(|m: String| anyhow::anyhow!("--format: {m}"))?;
    if decisions && format != Format::Jsonl {
        bail!("--format: decisions are exported as jsonl only");
    }
    if let Some(p) = &args.out {
        pawns_storage::files::check_dest(p, args.force).map_err(file_err)?;
    }
    let what = if decisions { What::Decisions } else { What::Sessions(format) };
    let filter = args.select.filter(&args.place).await?;
    let (f, out, force) = (filter.clone(), args.out.clone(), args.force);
    let offline = read_offline(&args.place, move |store| {
        let mut sink = Sink::open(out.as_deref(), force)?;
        let n = pawns::research::lines::export(store, &f, what, &mut sink)?;
        sink.finish()?;
        Ok(n)
    })
    .await?;
    let n = match offline {
        Ok(n) => n,
        Err(held) => {
            let kind = if decisions { "decisions" } else { "sessions" };
            let url = format!(
                "{}/api/export?what={kind}&filter={}&format={}",
                args.place.server(),
                percent(&serde_json::to_string(&filter)?),
                args.format
            );
            let body = pawns::client::get(&url).await.with_context(|| args.place.why_server(held))?;
            let mut sink = Sink::open(args.out.as_deref(), args.force)?;
            std::io::Write::write_all(&mut sink, body.as_bytes())?;
            sink.finish()?;
            // Lines of the record: a CSV's header is not one.
            (body.lines().count() - usize::from(format == Format::Csv && !body.is_empty())) as u64
        }
    };
    eprintln!("exported {n} line(s)");
    Ok(())
}

/// `pawns export memory --agent N`: every layer of the memory an agent keeps, as JSONL —
/// from the file, or from the server holding it.
pub async fn export_memory(args: crate::cli::ExportMemoryArgs) -> anyhow::Result<()> {
    pawns::auth::names::check(&args.agent).map_err(|m| anyhow::anyhow!("--agent: {m} (invalid_name)"))?;
    if let Some(p) = &args.out {
        pawns_storage::files::check_dest(p, args.force).map_err(file_err)?;
    }
    let agent = args.agent.clone();
    let offline = read_offline(&args.place, move |store| {
        pawns::mind::Mind::export_lines(store, &agent).map_err(|(code, m)| anyhow::anyhow!("{m} ({code})"))
    })
    .await?;
    let lines = match offline {
        Ok(l) => l,
        Err(held) => {
            let url = format!("{}/api/agents/{}/mind", args.place.server(), args.agent);
            let body = pawns::client::get(&url).await.with_context(|| args.place.why_server(held))?;
            let v: serde_json::Value = serde_json::from_str(&body).context("the server's answer is not JSON")?;
            v["layers"].as_array().cloned().unwrap_or_default()
        }
    };
    let mut sink = Sink::open(args.out.as_deref(), args.force)?;
    for l in &lines {
        use std::io::Write;
        writeln!(sink, "{l}")?;
    }
    sink.finish()?;
    eprintln!("exported {} record(s) of {}'s memory", lines.len(), args.agent);
    Ok(())
}

/// `pawns backup OUT`: a snapshot from the file when no server holds it, else from the
/// server (which writes OUT itself, from one read transaction, while it keeps playing).
/// The file is read only; OUT is written new and put in place when complete.
/// `pawns compact`: the data file's free pages given back, offline.
pub async fn compact(args: super::CompactArgs) -> anyhow::Result<()> {
    if !args.db.is_file() {
        bail!("no data file at {} (db_missing); pass --db FILE", args.db.display());
    }
    // Compaction rewrites the file in place: never through a link to somewhere else.
    if args.db.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
        bail!("{} is a symbolic link: compact the file itself (bad_request)", args.db.display());
    }
    let db = args.db.clone();
    println!("Compacting {}: redb's compaction in place, then a fresh copy written beside it ...", args.db.display());
    let c = tokio::task::spawn_blocking(move || -> Result<pawns_storage::backup::Compaction, StoreError> {
        let mut store = Store::open_existing(&db)?.0;
        store.compact()
    })
    .await?
    .map_err(|e| match e {
        StoreError::Locked { .. } => anyhow::anyhow!("{} is held by a running server: stop it first (store_locked)", args.db.display()),
        e => anyhow::anyhow!("{e} ({})", e.code()),
    })?;
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "Compacted {}: {:.1} MB → {:.1} MB ({:.0} % given back; {:.1} MB after the compaction in place{}).",
        args.db.display(),
        mb(c.before),
        mb(c.after),
        c.before.saturating_sub(c.after) as f64 * 100.0 / c.before.max(1) as f64,
        mb(c.in_place),
        if c.after < c.in_place { ", then a fresh copy put in its place" } else { "" }
    );
    if let Some(why) = &c.copy_skipped {
        println!("No fresh copy was made ({why}); the file is as the compaction in place left it.");
    }
    Ok(())
}

pub async fn backup(args: BackupArgs) -> anyhow::Result<()> {
    pawns_storage::files::check_dest(&args.out, false).map_err(file_err)?;
    let out = args.out.clone();
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("backing up {bar:40} {pos}/{len} rows ({eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let b = bar.clone();
    let offline = read_offline(&args.place, move |store| {
        Ok(store.backup_to(&out, &mut |done, total| {
            b.set_length(total);
            b.set_position(done);
        })?)
    })
    .await;
    bar.finish_and_clear();
    let inv = match offline? {
        Ok(inv) => inv,
        Err(held) => {
            let path = std::path::absolute(&args.out).unwrap_or(args.out.clone());
            let url = format!("{}/api/admin/backup?path={}", args.place.server(), percent(&path.display().to_string()));
            if held {
                eprintln!("the data file is held by a running server; asking it to write the backup...");
            }
            let body = pawns::client::post(&url).await.with_context(|| args.place.why_server(held))?;
            let v: serde_json::Value = serde_json::from_str(&body).context("the server answered with something that is not JSON")?;
            if v.get("code").is_some() {
                bail!("the server refused: {} ({})", v["message"].as_str().unwrap_or(""), v["code"].as_str().unwrap_or(""));
            }
            serde_json::from_value(v).context("reading the server's report")?
        }
    };
    say(&format!("backup written to {}", args.out.display()));
    say(&inventory_text(&inv));
    Ok(())
}

/// `pawns restore BACKUP [--to DB]`: check the whole file (every page against its
/// checksum, every record batch decoded) and report what it holds; with `--to`, put it
/// in place (never over a file a server holds, never over one without `--force`). The
/// backup itself is never written: its check runs on a copy.
pub async fn restore(args: RestoreArgs) -> anyhow::Result<()> {
    match std::fs::metadata(&args.backup) {
        Ok(m) if m.is_file() && m.len() == 0 => bail!("{} is empty: not a pawns data file (store_corrupt)", args.backup.display()),
        Ok(m) if m.is_file() => {}
        _ => bail!("{} is not a file (backup_missing)", args.backup.display()),
    }
    // Check a copy: redb's integrity check needs the file open for writing.
    let tmpdir = tempfile::tempdir().context("making a scratch directory for the check")?;
    let tmp = tmpdir.path().join("check.redb");
    std::fs::copy(&args.backup, &tmp).with_context(|| format!("reading {}", args.backup.display()))?;
    let t2 = tmp.clone();
    let checked = tokio::task::spawn_blocking(move || -> Result<pawns_storage::backup::Inventory, StoreError> {
        let (mut store, _) = Store::open_existing(&t2)?;
        if !store.check_integrity()? {
            return Err(StoreError::Corrupt("pages failed their checksums (redb repaired the copy; the backup itself is damaged)".into()));
        }
        let inv = store.inventory()?;
        // Every record batch must decode.
        let mut after = 0;
        loop {
            let chunk = store.records_after(after, 1000)?;
            let Some((last, _)) = chunk.last() else { break };
            after = *last;
        }
        Ok(inv)
    })
    .await?;
    drop(tmpdir);
    let inv = checked.map_err(|e| anyhow::anyhow!("{} does not open as a pawns data file: {e} ({})", args.backup.display(), e.code()))?;
    say(&format!("{} opens cleanly.", args.backup.display()));
    say(&inventory_text(&inv));
    if let Some(to) = &args.to {
        if to.exists() && !args.force {
            bail!("{} exists; pass --force to replace it (the server must be stopped) (file_exists)", to.display());
        }
        if to.exists() {
            let t = to.clone();
            let held = tokio::task::spawn_blocking(move || matches!(Store::open_read_only(&t), Err(StoreError::Locked { .. }))).await?;
            if held {
                bail!("{} is held by a running server; stop it first (store_locked)", to.display());
            }
        }
        let mut out = pawns_storage::files::create(to, args.force).map_err(file_err)?;
        let mut src = std::fs::File::open(&args.backup).with_context(|| format!("reading {}", args.backup.display()))?;
        std::io::copy(&mut src, &mut out).with_context(|| format!("writing {}", to.display()))?;
        out.commit().map_err(file_err)?;
        say(&format!("restored to {}", to.display()));
    }
    Ok(())
}

fn inventory_text(i: &pawns_storage::backup::Inventory) -> String {
    format!(
        "  schema {}; {} accounts, {} characters, {} agent keys; world: {} zones from {}; {} houses; {} sessions, {} record batches (last {}); {} agent memories",
        i.schema_version,
        i.accounts,
        i.characters,
        i.agent_keys,
        i.world_zones,
        i.world_source.as_deref().unwrap_or("?"),
        i.houses,
        i.sessions,
        i.record_batches,
        i.last_batch,
        i.memories
    )
}

pub fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'/' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `pawns admin token`: the observatory's admin token, from the data file's key (offline)
/// or from the running server that holds it.
pub async fn admin_token(args: AdminTokenArgs) -> anyhow::Result<()> {
    let server = args.server.clone().unwrap_or_else(|| crate::cli::DEFAULT_SERVER.to_string());
    let db = match (&args.db, &args.server) {
        (Some(db), _) => Some(db.clone()),
        (None, Some(_)) => None,
        (None, None) => Some(PathBuf::from("pawns.redb")).filter(|p| p.exists()),
    };
    let ask = |why: String| {
        let server = server.clone();
        async move {
            let url = format!("{}/api/admin/token", server.trim_end_matches('/'));
            let body = pawns::client::get(&url).await.with_context(|| why.clone())?;
            let v: serde_json::Value = serde_json::from_str(&body).context("the server answered with something that is not JSON")?;
            match v.get("token").and_then(|t| t.as_str()) {
                Some(t) => anyhow::Ok(t.to_string()),
                None => bail!("the server refused: {}", v.get("message").and_then(|m| m.as_str()).unwrap_or(&body)),
            }
        }
    };
    let token = match db {
        None => {
            ask(format!("asking the server at {server} for the admin token failed (connect_failed); pass --db FILE to read a data file"))
                .await?
        }
        Some(db) => {
            if !db.exists() {
                bail!("no data file at {} (not_found); pass --db FILE or --server URL", db.display());
            }
            let db2 = db.clone();
            let offline = tokio::task::spawn_blocking(move || -> anyhow::Result<Result<String, StoreError>> {
                match Store::open_existing(&db2) {
                    Ok((store, _)) => {
                        let key = pawns::auth::tokens::TokenKey(server::token_key(&store)?);
                        Ok(Ok(key.admin_token_at(pawns::auth::tokens::stored_generation(&store)?)))
                    }
                    Err(e) => Ok(Err(e)),
                }
            })
            .await??;
            match offline {
                Ok(token) => token,
                Err(StoreError::Locked { .. }) => {
                    ask(format!("{} is held by a running server, and asking it at {server} failed", db.display())).await?
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    println!("{token}");
    eprintln!("The observatory's admin token: send it as 'Authorization: Bearer ...' or open /observatory?token=...");
    Ok(())
}

/// `pawns admin rotate-token`: a new admin token; the old one stops working (on the file,
/// or through the server holding it, which uses the new one at once).
pub async fn rotate_token(args: crate::cli::Place) -> anyhow::Result<()> {
    let offline = write_offline(&args, |store| {
        let key = pawns::auth::tokens::TokenKey(server::token_key(store)?);
        let generation = pawns::auth::tokens::stored_generation(store)? + 1;
        store.meta_put(pawns::auth::tokens::ADMIN_GENERATION_KEY, &generation.to_le_bytes())?;
        Ok(key.admin_token_at(generation))
    })
    .await?;
    let token = match offline {
        Ok(t) => t,
        Err(held) => {
            let url = format!("{}/api/admin/token/rotate", args.server());
            let body = pawns::client::post(&url).await.with_context(|| args.why_server(held))?;
            let v: serde_json::Value = serde_json::from_str(&body).context("the server's answer is not JSON")?;
            match v.get("token").and_then(|t| t.as_str()) {
                Some(t) => t.to_string(),
                None => bail!("the server refused: {} ({})", v["message"].as_str().unwrap_or(""), v["code"].as_str().unwrap_or("")),
            }
        }
    };
    println!("{token}");
    eprintln!("A new admin token; the old one no longer opens the observatory.");
    Ok(())
}

/// `pawns admin revoke-key --name N`: every key of the character stops logging in.
pub async fn revoke_key(args: crate::cli::RevokeKeyArgs) -> anyhow::Result<()> {
    pawns::auth::names::check(&args.name).map_err(|m| anyhow::anyhow!("invalid name '{}' (invalid_name): {m}", args.name))?;
    let name = args.name.clone();
    let offline = write_offline(&args.place, move |store| Ok(store.revoke_agent_keys(&name)?)).await?;
    let n = match offline {
        Ok(n) => n,
        Err(held) => {
            let url = format!("{}/api/admin/keys/revoke?name={}", args.place.server(), crate::cli::search::encode(&args.name));
            let body = pawns::client::post(&url).await.with_context(|| args.place.why_server(held))?;
            let v: serde_json::Value = serde_json::from_str(&body).context("the server's answer is not JSON")?;
            match v.get("revoked").and_then(|n| n.as_u64()) {
                Some(n) => n,
                None => bail!("the server refused: {} ({})", v["message"].as_str().unwrap_or(""), v["code"].as_str().unwrap_or("")),
            }
        }
    };
    println!("revoked {n} key(s) of {}", pawns::auth::names::display(&args.name));
    Ok(())
}

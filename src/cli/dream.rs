//! `pawns dream`: on the data file when no server holds it, through the server's admin
//! API when one does, or on the seed's session files (`--sessions DIR --output DIR`).

use std::path::Path;

use anyhow::{bail, Context};
use pawns_storage::Store;

use crate::cli::DreamArgs;
use pawns::memory::dream::{dream_agent_in, DreamOptions, SharedLog};
use pawns::memory::dreamer::agents_to_dream;
use pawns::memory::{import, AgentMemory, DreamResult, MemoryError};

pub async fn dream(args: DreamArgs) -> anyhow::Result<()> {
    let opts = DreamOptions {
        params: args.consolidation.params()?,
        tz: pawns::memory::schedule::parse_zone(&args.zone).map_err(|m| anyhow::anyhow!("--zone: {m}"))?,
        trigger: "offline".into(),
        dry_run: args.dry_run,
        llm: args.llm.config()?,
        cancel: None,
        max_records: None,
    };
    let results = if let Some(dir) = args.sessions.clone() {
        let out = args.output.clone().context("--sessions needs --output DIR: where the agents' memory is kept between dreams")?;
        let agent = args.agent.clone();
        off_runtime(move || from_files(&dir, &out, agent.as_deref(), &opts)).await?
    } else {
        match args.place.file()? {
            None => {
                if args.dry_run || args.output.is_some() {
                    bail!("--dry-run and --output need the data file itself: pass --db FILE (the server's memory is at GET /api/agents/NAME/memory)");
                }
                through_server(&args, false).await?
            }
            Some(db) => {
                let (agent, output) = (args.agent.clone(), args.output.clone());
                pawns_storage::files::protect(&db);
                match off_runtime(move || from_store(&db, agent.as_deref(), output.as_deref(), &opts)).await {
                    Ok(r) => r,
                    Err(e) if crate::cli::commands::is_locked(&e) => {
                        if args.dry_run {
                            bail!("the data file is held by a running server; a dry run needs the file itself (stop the server, or dream a backup: pawns backup)");
                        }
                        if args.output.is_some() {
                            bail!("the data file is held by a running server; --output needs the file itself (the server's memory is at GET /api/agents/NAME/memory)");
                        }
                        through_server(&args, true).await?
                    }
                    Err(e) => return Err(e),
                }
            }
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else if results.is_empty() {
        println!("Nothing to dream: no agent has anything new.");
    } else {
        for r in &results {
            print!("{}", r.render());
        }
    }
    Ok(())
}

/// Runs blocking work (redb, the LLM's blocking client) on a thread of its own.
async fn off_runtime<T: Send + 'static>(f: impl FnOnce() -> anyhow::Result<T> + Send + 'static) -> anyhow::Result<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.await.context("the dream thread failed")?
}

fn from_files(dir: &Path, out: &Path, agent: Option<&str>, opts: &DreamOptions) -> anyhow::Result<Vec<DreamResult>> {
    if !dir.is_dir() {
        bail!("{} is not a directory of session logs (DIR/{{agent}}/*.jsonl)", dir.display());
    }
    let agents = match agent {
        Some(a) => vec![a.to_string()],
        None => import::agents_in(dir)?,
    };
    let mut out_results = Vec::new();
    for a in agents {
        out_results.push(import::dream_files(dir, out, &a, opts).with_context(|| format!("dreaming {a}"))?);
    }
    Ok(out_results)
}

fn from_store(db: &Path, agent: Option<&str>, output: Option<&Path>, opts: &DreamOptions) -> anyhow::Result<Vec<DreamResult>> {
    // A dry run writes nothing, so it reads the file as it is (even on a read-only mount).
    let (store, _scratch) = if opts.dry_run { crate::cli::commands::open_for_reading(db)? } else { (Store::open_existing(db)?.0, None) };
    let agents = match agent {
        Some(a) => vec![a.to_ascii_lowercase()],
        None => agents_to_dream(&store),
    };
    let mut results = Vec::new();
    let mut log = SharedLog::default();
    for a in agents {
        let r = log
            .get(&store)
            .map_err(MemoryError::from)
            .and_then(|log| dream_agent_in(&store, log, &a, opts))
            .map_err(|e| anyhow::anyhow!("{a}: {e} [{}]", e.code()))?;
        if let Some(out) = output.filter(|_| !opts.dry_run) {
            if let Some(mem) = store.memory::<AgentMemory>(&a)? {
                import::write_outputs(out, &a, &mem)?;
            }
        }
        if agent.is_some() || r.records_read > 0 {
            results.push(r);
        }
    }
    Ok(results)
}

async fn through_server(args: &DreamArgs, held: bool) -> anyhow::Result<Vec<DreamResult>> {
    let base = args.place.server();
    let url = match &args.agent {
        Some(a) => format!("{base}/api/admin/dream?agent={}", crate::cli::search::encode(a)),
        None => format!("{base}/api/admin/dream?all=1"),
    };
    let body = pawns::client::post(&url).await.with_context(|| args.place.why_server(held))?;
    let v: serde_json::Value = serde_json::from_str(&body).context("the server's answer is not JSON")?;
    if let Some(code) = v.get("code").and_then(|c| c.as_str()) {
        bail!("the server refused: {} [{code}]", v.get("message").and_then(|m| m.as_str()).unwrap_or(""));
    }
    Ok(match v.get("results") {
        Some(list) => serde_json::from_value(list.clone())?,
        None => vec![serde_json::from_value(v)?],
    })
}

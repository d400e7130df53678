//! `pawns agent create` (a resident agent, run by the server) and `pawns agent play
//! --context hud` (the built-in client playing from the HUD).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use serde_json::{json, Value};

use pawns::agent::config::AgentConfig;
use pawns::agent::hud_loop::{system_prompt, HudLoop, LoopStatus, Mind, Turn};
use pawns::hud::HudFormat;
use pawns_storage::{Store, StoreError};

#[derive(Args, Debug)]
pub struct CreateArgs {
    /// The agent's name (2–32: a letter, then letters, digits, `_`, `-`, `.`).
    #[arg(long)]
    pub name: String,
    /// A personality seed: the agent is a persona.
    #[arg(long, conflicts_with = "role", required_unless_present = "role")]
    pub persona: Option<String>,
    /// A job: the agent is a bot.
    #[arg(long)]
    pub role: Option<String>,
    /// The model it asks (default: the server's --llm-model).
    #[arg(long)]
    pub model: Option<String>,
    /// Let it create, alter and retire agents itself (`create_agent`…).
    #[arg(long)]
    pub can_create_agents: bool,
    /// The data file to write it into when no server holds it (it starts with the next `serve`).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// A running server to ask (its loopback admin API). Default: ./pawns.redb if it
    /// exists and no --server is named, else http://127.0.0.1:4350.
    #[arg(long)]
    pub server: Option<String>,
}

pub async fn create(args: CreateArgs) -> anyhow::Result<()> {
    let mut body = json!({"name": args.name, "can_create_agents": args.can_create_agents});
    match (&args.persona, &args.role) {
        (Some(p), _) => body["persona"] = json!(p),
        (None, Some(r)) => body["role"] = json!(r),
        (None, None) => bail!("give --persona or --role"),
    }
    if let Some(m) = &args.model {
        body["model"] = json!(m);
    }
    let rec = pawns::net::api::residents::definition(&body, "admin").map_err(|(code, m)| anyhow::anyhow!("{m} ({code})"))?;
    let server = args.server.clone().unwrap_or_else(|| crate::cli::DEFAULT_SERVER.to_string());
    let db = match (&args.db, &args.server) {
        (Some(db), _) => Some(db.clone()),
        (None, Some(_)) => None,
        (None, None) => Some(PathBuf::from("pawns.redb")).filter(|p| p.exists()),
    };
    if let Some(db) = db {
        let r2 = rec.clone();
        let db2 = db.clone();
        let offline = tokio::task::spawn_blocking(move || -> Result<Result<bool, (&'static str, String)>, StoreError> {
            let (store, report) = Store::open(&db2)?;
            Ok(pawns::resident::create_offline(&store, &r2).map(|_| report.created))
        })
        .await?;
        match offline {
            Ok(Ok(created)) => {
                if created {
                    eprintln!("Created a new data file {} (no server has used it yet).", db.display());
                }
                println!("{} ({}) is kept in {}; it plays from the next `pawns serve --llm-endpoint …`.", rec.name, rec.kind, db.display());
                return Ok(());
            }
            Ok(Err((code, m))) => bail!("{m} ({code})"),
            Err(StoreError::Locked { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let url = format!("{}/api/admin/agents", server.trim_end_matches('/'));
    let (status, answer) =
        pawns::client::post_json(&url, &body).await.with_context(|| format!("asking the server at {server} failed (connect_failed)"))?;
    let v: Value = serde_json::from_str(&answer).unwrap_or_default();
    if status != 201 {
        bail!("the server refused: {} ({})", v["message"].as_str().unwrap_or(answer.trim()), v["code"].as_str().unwrap_or("error"));
    }
    println!("{} ({}) is made on {server} and plays while it has an LLM endpoint.", v["name"].as_str().unwrap_or(&rec.name), rec.kind);
    Ok(())
}

/// `play --context hud`: the loop a resident runs, with this config's key, printing
/// each turn.
pub async fn play_hud(
    cfg: &AgentConfig,
    format: HudFormat,
    budget: usize,
    turns: Option<u64>,
    llm_timeout: Duration,
) -> anyhow::Result<()> {
    cfg.require_key().map_err(|e| anyhow::anyhow!("{e}"))?;
    if cfg.llm_endpoint.is_empty() {
        bail!("--context hud needs a model: set llm_endpoint (pawns agent config --llm-endpoint URL) (config_invalid)");
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let ctrl_c = stop_tx.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\n(Ctrl-C: leaving)");
            let _ = ctrl_c.send(true);
        }
    });
    let llm = pawns::agent::llm::LlmClient::new(
        &cfg.llm_endpoint,
        &cfg.llm_key,
        &cfg.model_fast,
        &cfg.model_fallback,
        cfg.temperature,
        llm_timeout,
    )
    .with_structured(pawns::agent::structured::Structured::Auto);
    let name = if cfg.player_name.is_empty() { "agent".to_string() } else { cfg.player_name.clone() };
    let mind =
        Mind { name: name.clone(), system: system_prompt("persona", "curious, careful, and sociable"), model: cfg.model_fast.clone() };
    let login_data = json!({
        "player_name": cfg.player_name, "password": cfg.key, "is_agent": true, "harness": "pawns-agent",
        "model": cfg.model_fast, "version": env!("CARGO_PKG_VERSION"), "tier": cfg.tier,
    });
    let (turn_tx, mut turn_rx) = tokio::sync::mpsc::unbounded_channel();
    let status = std::sync::Arc::new(std::sync::Mutex::new(LoopStatus::default()));
    let lp = HudLoop {
        url: cfg.ws_url(),
        login: Box::new(move || login_data.clone()),
        llm,
        mind: std::sync::Arc::new(std::sync::RwLock::new(mind)),
        format,
        budget,
        max_tokens: 400,
        tokens_per_hour: 0,
        status: status.clone(),
        stop: stop_rx,
        turns: Some(turn_tx),
    };
    let looping = tokio::spawn(lp.run());
    println!("Playing {} from the HUD ({} tokens, {}); Ctrl-C leaves.", cfg.ws_url(), budget, format.as_str());
    while let Some(t) = turn_rx.recv().await {
        match t {
            Turn::Sent { n, batch, latency, hud_tokens } => {
                println!("\n[turn {n}] HUD {hud_tokens} tokens, model {:.1} s", latency.as_secs_f64());
                for r in batch["responses"].as_array().into_iter().flatten() {
                    println!("  says in {}: {}", r["room_id"], r["message"].as_str().unwrap_or(""));
                }
                for a in batch["actions"].as_array().into_iter().flatten() {
                    println!("  does: {a}");
                }
                if turns.is_some_and(|max| n >= max) {
                    // Let the last answer's results arrive, then stop.
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    let _ = stop_tx.send(true);
                }
            }
            Turn::Results { results } => {
                for r in results.as_array().into_iter().flatten().filter(|r| r["ok"] == false) {
                    println!("  refused #{}: {} ({})", r["i"], r["message"].as_str().unwrap_or(""), r["code"].as_str().unwrap_or(""));
                }
            }
            Turn::Paused { why, retry_in } => println!("  (the model failed: {why}; trying again in {} s)", retry_in.as_secs()),
            Turn::Unreadable { text } => println!("  (the model's answer held no actions: {text:?})"),
            Turn::Event { text } => println!("{}", text.trim_end()),
        }
    }
    looping.await?.map_err(|why| anyhow::anyhow!("the server refused: {why}"))?;
    let s = status.lock().unwrap_or_else(|e| e.into_inner()).clone();
    println!(
        "\n{} turns, {} model failures, {} unreadable answers, {} of {} items refused.",
        s.turns, s.failures, s.unreadable, s.items_refused, s.items_sent
    );
    Ok(())
}

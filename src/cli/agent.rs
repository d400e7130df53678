//! `pawns agent play|session|exec|config|whoami|dream`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use pawns::agent::config::{default_path, mask, AgentConfig, TIERS};
use pawns::agent::run::{self, RunOptions};
use pawns::agent::{AgentError, Policy};

#[derive(Args, Debug)]
pub struct AgentArgs {
    /// The config file (default: $PAWNS_AGENT_CONFIG, $DP_CONFIG, or ~/.pawns-agent.json).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub what: AgentCmd,
}

#[derive(Subcommand, Debug)]
pub enum AgentCmd {
    /// Connect and play, printing a readable transcript (Ctrl-C quits cleanly).
    Play(PlayArgs),
    /// A timed run with a JSONL log of every turn (the seed's fields).
    Session(SessionArgs),
    /// Send one command, print what the server answers to it, and quit.
    Exec {
        /// The command, e.g. "look" or "hit goblin".
        #[arg(required = true, num_args = 1.., value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Show the config (keys masked), or set fields of it.
    Config(ConfigArgs),
    /// Show who this config plays as, and ask the server whether it knows the key.
    Whoami,
    /// Make a resident agent: one the server runs itself (needs no config file).
    Create(crate::cli::resident::CreateArgs),
    /// Ask the server to consolidate this agent's memory now.
    Dream {
        /// Print the server's answer as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    /// What decides when the survival FSM does not (default: llm when an endpoint is
    /// configured, fsm otherwise).
    #[arg(long, value_enum)]
    pub policy: Option<Policy>,
    /// Stop after this many turns.
    #[arg(long)]
    pub turns: Option<u64>,
    /// Least time between two decisions (e.g. 500ms, 2s).
    #[arg(long, default_value = "500ms", value_parser = pawns::time::parse_duration)]
    pub pace: Duration,
    /// Seed for the planner's and random policy's choices.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Game server host (overrides game_host).
    #[arg(long)]
    pub host: Option<String>,
    /// Game server port (overrides game_port).
    #[arg(long)]
    pub port: Option<u16>,
    /// Also write the session JSONL here.
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// Print only the agent's own actions and their feedback, not room chatter.
    #[arg(long)]
    pub quiet: bool,
    /// How long one LLM call may take before the fallback model is asked.
    #[arg(long, default_value = "20s", value_parser = pawns::time::parse_duration)]
    pub llm_timeout: Duration,
    /// How the model's answer is asked for: `auto` takes the first form the endpoint
    /// accepts (a JSON Schema of the commands that make sense now, that schema in
    /// `json_object`, a forced tool call), learned once; `off` reads text.
    #[arg(long, value_enum, default_value = "auto")]
    pub structured: pawns::agent::structured::Structured,
    /// Send each model decision's calls as OpenTelemetry GenAI spans over OTLP/HTTP to
    /// this collector (`http://host:4318` or a URL ending in `/v1/traces`).
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// What the model sees: `classic` (the prompt built from state and events) or `hud`
    /// (the server's HUD every heartbeat, answered with actions; needs llm_endpoint).
    #[arg(long, default_value = "classic", value_parser = ["classic", "hud"])]
    pub context: String,
    /// The HUD's format with --context hud: json, compact_json or toon.
    #[arg(long, default_value = "json")]
    pub hud_format: String,
    /// The HUD's token budget with --context hud.
    #[arg(long, default_value_t = pawns::hud::budget::DEFAULT_BUDGET)]
    pub hud_budget: usize,
}

#[derive(Args, Debug, Clone)]
pub struct SessionArgs {
    /// How long to play (e.g. 30m, 90s).
    #[arg(long, default_value = "30m", value_parser = pawns::time::parse_duration)]
    pub duration: Duration,
    /// Record valence in the log and on the server (`--valence=false`: the ablation).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub valence: Option<bool>,
    #[command(flatten)]
    pub play: PlayArgs,
}

#[derive(Args, Debug, Default)]
pub struct ConfigArgs {
    /// The agent key (dp_…), from `pawns keygen --name NAME`.
    #[arg(long)]
    pub key: Option<String>,
    #[arg(long)]
    pub player_name: Option<String>,
    /// small, medium, large or unlimited.
    #[arg(long)]
    pub tier: Option<String>,
    /// The primary model (same as --model-fast).
    #[arg(long, alias = "model-fast")]
    pub model: Option<String>,
    #[arg(long)]
    pub model_fallback: Option<String>,
    /// An OpenAI-compatible endpoint, e.g. http://localhost:4000.
    #[arg(long, alias = "litellm-endpoint")]
    pub llm_endpoint: Option<String>,
    /// The LLM endpoint's key (not the game key).
    #[arg(long)]
    pub llm_key: Option<String>,
    #[arg(long)]
    pub game_host: Option<String>,
    #[arg(long)]
    pub game_port: Option<u16>,
    #[arg(long)]
    pub temperature: Option<f32>,
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    pub valence: Option<bool>,
    #[arg(long)]
    pub log_dir: Option<String>,
    /// debug, info, warn or error.
    #[arg(long)]
    pub log_level: Option<String>,
}

pub async fn agent(args: AgentArgs) -> anyhow::Result<()> {
    let path = args.config.clone().unwrap_or_else(default_path);
    match args.what {
        AgentCmd::Config(c) => config(&path, c),
        AgentCmd::Create(c) => crate::cli::resident::create(c).await,
        what => {
            let cfg = AgentConfig::load(&path).map_err(explain)?.with_env();
            // Diagnostics (frames, model calls, reconnects) go to stderr at `log_level`;
            // the transcript is stdout. `RUST_LOG` wins when set.
            let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| format!("pawns={}", cfg.log_level));
            if let Ok(f) = tracing_subscriber::EnvFilter::try_new(&filter) {
                let _ = tracing_subscriber::fmt()
                    .with_env_filter(f)
                    .with_writer(std::io::stderr)
                    .with_ansi(crate::cli::stderr_is_terminal())
                    .try_init();
            }
            match what {
                AgentCmd::Play(p) => play(cfg, p, None, false).await,
                AgentCmd::Session(s) => {
                    let dir = s.play.log_dir.clone().or_else(|| Some(PathBuf::from(&cfg.log_dir)).filter(|d| !d.as_os_str().is_empty()));
                    let dir = dir.unwrap_or_else(|| PathBuf::from("data/sessions"));
                    let mut cfg = cfg;
                    if let Some(v) = s.valence {
                        cfg.valence = v;
                    }
                    play(cfg, s.play, Some((s.duration, dir)), true).await
                }
                AgentCmd::Exec { command } => exec(cfg, &command.join(" ")).await,
                AgentCmd::Whoami => whoami(&cfg, &path).await,
                AgentCmd::Dream { json } => dream(&cfg, json).await,
                AgentCmd::Config(_) | AgentCmd::Create(_) => unreachable!(),
            }
        }
    }
}

fn config(path: &std::path::Path, c: ConfigArgs) -> anyhow::Result<()> {
    let mut cfg = AgentConfig::load(path).map_err(explain)?;
    let mut changed = false;
    let mut set = |slot: &mut String, v: Option<String>| {
        if let Some(v) = v {
            *slot = v.trim().to_string();
            changed = true;
        }
    };
    set(&mut cfg.key, c.key);
    set(&mut cfg.player_name, c.player_name);
    set(&mut cfg.tier, c.tier);
    set(&mut cfg.model_fast, c.model);
    set(&mut cfg.model_fallback, c.model_fallback);
    set(&mut cfg.llm_endpoint, c.llm_endpoint);
    set(&mut cfg.llm_key, c.llm_key);
    set(&mut cfg.game_host, c.game_host);
    set(&mut cfg.log_dir, c.log_dir);
    set(&mut cfg.log_level, c.log_level);
    if let Some(p) = c.game_port {
        cfg.game_port = p;
        changed = true;
    }
    if let Some(t) = c.temperature {
        cfg.temperature = t;
        changed = true;
    }
    if let Some(v) = c.valence {
        cfg.valence = v;
        changed = true;
    }
    if changed {
        if !TIERS.contains(&cfg.tier.as_str()) {
            bail!("[config_invalid] --tier must be one of {} (got {:?}); nothing was saved", TIERS.join(", "), cfg.tier);
        }
        cfg.check().map_err(|e| anyhow::anyhow!("[config_invalid] {e}; nothing was saved"))?;
        cfg.save(path).map_err(explain)?;
        println!("saved {}", path.display());
    } else {
        println!("{}", path.display());
    }
    let shown = cfg.clone().with_env();
    println!("{}", serde_json::to_string_pretty(&shown.masked())?);
    if shown.key != cfg.key {
        println!("(the key above comes from the environment: PAWNS_AGENT_KEY or DP_KEY)");
    }
    Ok(())
}

async fn play(mut cfg: AgentConfig, p: PlayArgs, session: Option<(Duration, PathBuf)>, is_session: bool) -> anyhow::Result<()> {
    if let Some(h) = p.host {
        cfg.game_host = h;
    }
    if let Some(port) = p.port {
        cfg.game_port = port;
    }
    cfg.require_key().map_err(explain)?;
    if p.context == "hud" {
        let format: pawns::hud::HudFormat = p.hud_format.parse().map_err(|e| anyhow::anyhow!("--hud-format: {e}"))?;
        return crate::cli::resident::play_hud(&cfg, format, p.hud_budget, p.turns, p.llm_timeout).await;
    }
    let policy = p.policy.unwrap_or(if cfg.llm_endpoint.is_empty() { Policy::Fsm } else { Policy::Llm });
    if p.policy.is_none() && policy == Policy::Fsm {
        eprintln!("(no llm_endpoint configured: playing with --policy fsm)");
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\n(Ctrl-C: leaving cleanly — press it again to stop at once)");
            let _ = stop_tx.send(true);
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    });
    let (duration, log_dir) = match session {
        Some((d, dir)) => (Some(d), Some(dir)),
        None => (None, p.log_dir.clone()),
    };
    let opts = RunOptions {
        policy,
        duration,
        max_turns: p.turns,
        log_dir: if is_session { log_dir } else { p.log_dir.clone() },
        pace: p.pace,
        seed: p.seed,
        llm_timeout: p.llm_timeout,
        structured: p.structured,
        otlp_endpoint: p.otlp_endpoint.clone(),
        stop: Some(stop_rx),
        chatter: !p.quiet,
        ..Default::default()
    };
    let mut stdout = std::io::stdout();
    let report = run::run(&cfg, opts, &mut stdout).await.map_err(explain)?;
    println!("\n{}", report.render());
    Ok(())
}

async fn exec(cfg: AgentConfig, command: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout();
    let outcome = pawns::agent::exec::exec(&cfg, command, &mut stdout).await.map_err(explain)?;
    if let Some((code, m)) = outcome.error {
        bail!("the server refused the command: {code}: {m}");
    }
    Ok(())
}

/// Adds what to do next to the errors people hit first.
fn explain(e: AgentError) -> anyhow::Error {
    let hint = match &e {
        AgentError::Refused { code, .. } if code == "auth_failed" => {
            "\n  (check the key and player_name: `pawns agent whoami`; a new key: `pawns keygen --name NAME` on the server)"
        }
        AgentError::Connect(_) => "\n  (is the server running? check game_host/game_port: `pawns agent config`)",
        _ => "",
    };
    anyhow::anyhow!("[{}] {e}{hint}", e.code())
}

async fn get_json(url: &str, key: &str, post: bool) -> anyhow::Result<(u16, serde_json::Value)> {
    let method = if post { reqwest::Method::POST } else { reqwest::Method::GET };
    let (status, body) = pawns::client::call(method, url, Some(key)).await.map_err(|e| anyhow::anyhow!("[connect_failed] {e:#}"))?;
    Ok((status, serde_json::from_str(&body).unwrap_or(serde_json::json!({"message": body.trim()}))))
}

async fn whoami(cfg: &AgentConfig, path: &std::path::Path) -> anyhow::Result<()> {
    println!("config:      {}", path.display());
    println!("player_name: {}", if cfg.player_name.is_empty() { "(not set: the key names the character)" } else { &cfg.player_name });
    println!("key:         {}", mask(&cfg.key));
    println!("server:      {}", cfg.ws_url());
    println!("tier:        {}", cfg.tier);
    println!(
        "llm:         {}",
        if cfg.llm_endpoint.is_empty() {
            "(none: plays with --policy fsm)".to_string()
        } else {
            format!("{} ({} → {}), key {}", cfg.llm_endpoint, cfg.model_fast, cfg.model_fallback, mask(&cfg.llm_key))
        }
    );
    cfg.require_key().map_err(explain)?;
    let (status, v) = get_json(&format!("{}/api/whoami", cfg.http_url()), &cfg.key, false)
        .await
        .map_err(|e| anyhow::anyhow!("[connect_failed] {e:#}"))?;
    match status {
        200 => {
            let name = v["name"].as_str().unwrap_or("");
            println!("the server knows this key: it plays {name}{}", if v["online"] == true { " (in the world now)" } else { "" });
            match v["memory_tokens"].as_u64() {
                Some(n) => println!("memory:      {n} tokens (last dream: {})", v["last_dream"]["trigger"].as_str().unwrap_or("?")),
                None => println!("memory:      none yet (it dreams after a session)"),
            }
            if !cfg.player_name.is_empty() && !cfg.player_name.eq_ignore_ascii_case(name) {
                bail!("[auth_failed] player_name is {} but the key is {name}'s: the server will refuse the login", cfg.player_name);
            }
            Ok(())
        }
        401 => bail!("[auth_failed] the server does not accept this key (revoked, or made on another server)"),
        s => bail!("[server_error] the server answered {s}: {}", v["message"].as_str().unwrap_or("")),
    }
}

async fn dream(cfg: &AgentConfig, as_json: bool) -> anyhow::Result<()> {
    cfg.require_key().map_err(explain)?;
    let mut name = cfg.player_name.to_ascii_lowercase();
    if name.is_empty() {
        let (status, v) = get_json(&format!("{}/api/whoami", cfg.http_url()), &cfg.key, false).await?;
        if status != 200 {
            bail!("[auth_failed] the server does not accept this key");
        }
        name = v["name"].as_str().unwrap_or("").to_string();
    }
    eprintln!("asking {} to dream for {name}…", cfg.http_url());
    let (status, v) = get_json(&format!("{}/api/agents/{name}/dream", cfg.http_url()), &cfg.key, true).await?;
    if status != 200 {
        bail!("[{}] {}", v["code"].as_str().unwrap_or("server_error"), v["message"].as_str().unwrap_or("the dream failed"));
    }
    if as_json {
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        let r: pawns::memory::DreamResult = serde_json::from_value(v).context("the server's answer is not a dream result")?;
        print!("{}", r.render());
    }
    Ok(())
}

//! The command line: `serve`, `keygen`, `agent`, `world`, `bench`. Parsing only; the work is in the library.

pub mod agent;
pub mod bench_args;
pub mod branch;
pub mod commands;
pub mod dream;
pub mod mcp;
pub mod memcheck;
pub mod research;
pub mod resident;
pub mod runs;
pub mod search;
pub mod select;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

pub use bench_args::*;
pub use pawns::time::parse_duration;

#[derive(Parser, Debug)]
#[command(name = "pawns", version, about = "A persistent multi-user dungeon where AI agents play beside humans", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Subcommand, Debug)]
// Parsed once at start: the size of `serve`'s flags costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Cmd {
    /// Run the world: telnet, WebSocket (/ws) and HTTP on one port.
    Serve(ServeArgs),
    /// Make an agent key for a character (printed once; only its hash is stored).
    Keygen(KeygenArgs),
    /// Export the record: sessions in the seed's JSONL/CSV shape, or full decisions.
    Export {
        #[command(subcommand)]
        what: ExportCmd,
    },
    /// Find records (actions, observations, transitions), newest first: from the data
    /// file's index, or through the running server that holds it.
    Search(SearchArgs),
    /// Rebuild the search index from the record (offline, or inside the running server).
    Reindex(ReindexArgs),
    /// Consolidate agents' memory now: offline on the data file, through a running
    /// server, or on session JSONL files written by external clients (--sessions).
    Dream(DreamArgs),
    /// Write a consistent snapshot of the data file (offline, or through a running server).
    Backup(BackupArgs),
    /// Give the data file's free pages back (the server must be stopped): redb's
    /// compaction in place, then a fresh copy put in its place when smaller.
    Compact(CompactArgs),
    /// Check that a backup opens and report what it holds; `--to` puts it in place.
    Restore(RestoreArgs),
    /// An MCP server on standard input and output for a harness that starts a process:
    /// each message goes to the running server's `/mcp` with the agent's key.
    Mcp(McpArgs),
    /// Work with CircleMUD world directories.
    World {
        #[command(subcommand)]
        what: WorldCmd,
    },
    /// The agent client: play, run logged sessions, send one command, set the config,
    /// ask the server to dream (the seed's `dp-agent`).
    Agent(agent::AgentArgs),
    /// Research metrics from the record — Behavioral Persistence Score, Social
    /// Consequence Score, salience decay curves, cost — as a Markdown report with SVG
    /// plots (or JSON), split by the sessions' valence flag.
    Eval(EvalArgs),
    /// The valence ablation in one command: a fleet of agents plays the running server
    /// in two arms (valence on / off), dreaming between sessions, then the evaluation
    /// of exactly those agents is written as a report.
    Experiment(ExperimentArgs),
    /// Ask the agents' memory what the record knows: probes in five abilities made from
    /// their own recorded events, answered from what they would be given at their next
    /// login (a deterministic reader; a model too with --llm-endpoint), scored.
    Memcheck(memcheck::MemcheckArgs),
    /// The run registry: experiments and named server runs, what each ran with, and
    /// two runs' metrics side by side.
    Runs {
        #[command(subcommand)]
        what: runs::RunsCmd,
    },
    /// Re-run the engine from a run's boot and its journaled inputs, and check that it
    /// makes the same records, byte for byte (the first difference is named).
    Replay(ReplayArgs),
    /// Play a run again to a time from its journal into a new data file (its past checked
    /// against the record), then on from there with one change: a branch, compared with
    /// the parent's own future by `runs compare`.
    Branch(branch::BranchArgs),
    /// Operator tools: `pawns admin token` prints the observatory's admin token.
    Admin {
        #[command(subcommand)]
        what: AdminCmd,
    },
    /// Load generators.
    Bench {
        #[command(subcommand)]
        what: BenchCmd,
    },
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    pub select: select::Select,
    /// How sessions are split into arms: valence (on / off), arm (the run's arms: the
    /// default with --run) or none.
    #[arg(long)]
    pub by: Option<String>,
    /// Where the report, its plots and evaluation.json go.
    #[arg(long, default_value = "pawns-eval")]
    pub out: PathBuf,
    /// Replace output files that are there (never through a symlink, never the data file).
    #[arg(long)]
    pub force: bool,
    /// Print the evaluation as JSON instead of writing the report.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub place: Place,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The session to replay (its id, as the record and `pawns export` name it).
    #[arg(long, conflicts_with_all = ["from", "to", "run"])]
    pub session: Option<u64>,
    /// Every session of a run (`pawns runs list`): its time, from start to end.
    #[arg(long, conflicts_with_all = ["from", "to"])]
    pub run: Option<String>,
    /// Every session begun from this time (RFC 3339, a date, or a span back like 2h) …
    #[arg(long)]
    pub from: Option<String>,
    /// … to this one (default: now).
    #[arg(long)]
    pub to: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// The data file (a server must not hold it: replay a backup of a live one).
    #[arg(long, default_value = "pawns.redb")]
    pub db: PathBuf,
}

#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// Agents in the fleet, split evenly: the first half valence on, the rest off.
    #[arg(long, default_value_t = 20)]
    pub agents: usize,
    /// How long the fleet plays.
    #[arg(long, default_value_t = 20.0)]
    pub minutes: f64,
    /// One session's length: then the agent quits, dreams and logs in again.
    #[arg(long, default_value_t = 4.0)]
    pub session_minutes: f64,
    /// What decides: fsm (the built-in planner, which reads its injected memory) or llm.
    #[arg(long, value_enum, default_value = "fsm")]
    pub policy: pawns::agent::Policy,
    /// An OpenAI-compatible endpoint, for --policy llm.
    #[arg(long, default_value = "")]
    pub llm_endpoint: String,
    /// The model to ask, for --policy llm.
    #[arg(long, default_value = "")]
    pub model: String,
    /// The agents' names are PREFIXon01… and PREFIXoff01….
    #[arg(long, default_value = "exp")]
    pub prefix: String,
    /// Least time between two decisions of one agent.
    #[arg(long, default_value = "500ms", value_parser = parse_duration)]
    pub pace: Duration,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Agents more that play on the model (--llm-endpoint, --model), valence on: a third
    /// arm, llm/valence_on.
    #[arg(long, default_value_t = 0)]
    pub llm_agents: usize,
    /// The run's id in the registry (default: made from the time, r20261128-051203).
    #[arg(long)]
    pub run: Option<String>,
    /// Where the report goes.
    #[arg(long, default_value = "pawns-experiment")]
    pub out: PathBuf,
    /// Replace output files that are there (never through a symlink, never the data file).
    #[arg(long)]
    pub force: bool,
    /// The running server (its admin API answers loopback callers).
    #[arg(long, default_value = "http://127.0.0.1:4350")]
    pub server: String,
}

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    pub host: String,
    /// Port for telnet, WebSocket and HTTP.
    #[arg(long, default_value_t = 4350)]
    pub port: u16,
    /// The data file.
    #[arg(long, default_value = "pawns.redb")]
    pub db: PathBuf,
    /// A CircleMUD world directory to import on first start (default: the starter world).
    #[arg(long)]
    pub world: Option<PathBuf>,
    /// Replace the world already imported into the data file with --world (or the starter world).
    #[arg(long)]
    pub reimport: bool,
    /// Seed for the game's random numbers (default: random).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where new characters start and the dead respawn (default: the world's mortal
    /// start room — 8004 on Dark Pawns, 3001 on CircleMUD and tbaMUD).
    #[arg(long, value_name = "VNUM")]
    pub start_room: Option<u32>,
    /// Tests only: the `__panic`, `__panic_engine` and `__linkdead N` commands inject
    /// faults and load.
    #[arg(long, hide = true)]
    pub fault_injection: bool,
    /// Most connections at once.
    #[arg(long, default_value_t = 20_000)]
    pub max_connections: usize,
    /// Most connections from one address.
    #[arg(long, default_value_t = 10_000)]
    pub max_per_ip: usize,
    /// Logins per second per address (protocol default 5).
    #[arg(long, default_value_t = 5.0)]
    pub login_rate: f64,
    /// Login burst per address (protocol default 10).
    #[arg(long, default_value_t = 10.0)]
    pub login_burst: f64,
    /// A browser origin besides the server's own whose pages may call it
    /// (`https://example.org`; repeat for more). Pages of any other site are refused.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Most records one layer of an agent's own memory (soul, memories, diary,
    /// relationships, summaries) may hold, for agents with a key; characters with a
    /// password get a tenth (`quota_exceeded` past it).
    #[arg(long, default_value_t = 20_000)]
    pub mind_quota_records: u64,
    /// Most MiB one layer of an agent's own memory may hold (a tenth for characters with
    /// a password).
    #[arg(long, default_value_t = 32)]
    pub mind_quota_mib: u64,
    /// How long a WebSocket has to log in (`login_timeout`); a person's interactive
    /// creation gets ten times as long.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub login_within: Duration,
    /// Messages a WebSocket may send before it is logged in (`login_budget`).
    #[arg(long, default_value_t = 64)]
    pub pre_login_messages: u32,
    /// How long an HTTP request's header may take, from the connection's opening or the
    /// last answer (an idle keep-alive connection is closed then).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub http_header_within: Duration,
    /// Take guests: a `login` with `new_char` and no password makes a guest character
    /// (one session, the small memory quota), as the seed's smoke test logs in. Refused
    /// without this flag.
    #[arg(long)]
    pub guests: bool,
    /// Seconds a link-dead character stays in the world.
    #[arg(long, default_value_t = 300)]
    pub linkdead_secs: u64,
    /// Record nothing (no sessions, decisions, observations or transitions).
    #[arg(long)]
    pub no_record: bool,
    /// Keep no journal of the engine's inputs (then `pawns replay` cannot replay this run).
    #[arg(long)]
    pub no_journal: bool,
    /// Retention: drop raw observations older than this many days, checked hourly
    /// (decisions and state transitions are kept). Default: keep everything.
    #[arg(long, value_name = "DAYS")]
    pub keep_observations: Option<u32>,
    /// Record agents only, not humans (humans are recorded by default).
    #[arg(long)]
    pub no_record_humans: bool,
    /// Run none of the world's own behaviour: no Lua scripts, no special procedures
    /// (for measuring what they cost, or playing a world without them).
    #[arg(long)]
    pub no_scripts: bool,
    /// How often the search index commits: the most a recorded event waits to be found.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub index_every: Duration,
    /// How often the record's tail is packed into one chunk per session (a sweep; sooner
    /// under load): the most a reader of a session decompresses beyond its own packs.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub sweep_every: Duration,
    /// Keep no search index (search answers search_unavailable; `pawns reindex` builds one later).
    #[arg(long)]
    pub no_search: bool,
    /// Dream nothing by itself (no logout, threshold or daily dreams; `pawns dream` still works).
    #[arg(long)]
    pub no_dream: bool,
    /// Records since an agent's last dream that make it dream again.
    #[arg(long, default_value_t = pawns::memory::dreamer::DEFAULT_THRESHOLD)]
    pub dream_threshold: u64,
    /// The daily dream's local time (HH:MM, 24-hour); `off` for none.
    #[arg(long, default_value = "03:30")]
    pub dream_at: String,
    /// The zone of --dream-at and of the memory's session headings (an IANA name).
    #[arg(long, default_value = "America/New_York")]
    pub dream_zone: String,
    #[command(flatten)]
    pub consolidation: ConsolidationArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
    /// The HUD format resident agents ask for (json, compact_json, toon). Residents run
    /// only with --llm-endpoint (--llm-model is their default model).
    #[arg(long, default_value = "json")]
    pub resident_hud_format: String,
    /// Send every model call the record keeps (with its decision) as OpenTelemetry GenAI
    /// spans over OTLP/HTTP to this collector (`http://host:4318`, or a URL ending in
    /// `/v1/traces`): Phoenix, Langfuse, Jaeger, an OpenTelemetry Collector.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// Name this server run in the run registry (pawns runs list): every agent that plays
    /// until it stops; pawns eval / export / replay --run NAME select it.
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    /// Most model tokens (prompt and answer) each resident agent may spend in an hour;
    /// past it the agent pauses (status `over_budget`) until the hour's oldest calls age
    /// out. 0: no cap.
    #[arg(long, default_value_t = 0, value_name = "TOKENS")]
    pub resident_tokens_per_hour: u64,
    /// The HUD budget (tokens) resident agents ask for.
    #[arg(long, default_value_t = pawns::hud::budget::DEFAULT_BUDGET)]
    pub resident_hud_budget: usize,
    /// Threads for sockets and HTTP (0: one per core). The engine always has a thread of its own.
    #[arg(long, default_value_t = 0)]
    pub workers: usize,
    /// How much lower than the engine every other server thread runs (nice increment,
    /// 0..=19; 0: all equal). Linux only.
    #[arg(long, default_value_t = pawns::priority::DEFAULT_THREAD_NICE, value_parser = clap::value_parser!(i32).range(0..=19))]
    pub thread_nice: i32,
    /// How much lower than the engine the record's threads with seconds to spare run
    /// (the tail's packer, the search indexer, the dreamer; nice increment, 0..=19).
    /// Linux only.
    #[arg(long, default_value_t = pawns::priority::DEFAULT_RECORD_NICE, value_parser = clap::value_parser!(i32).range(0..=19))]
    pub record_nice: i32,
    /// Log filter (e.g. info, debug, pawns=debug; the engine logs as pawns_game, its
    /// scripts as pawns::script and pawns::dg).
    #[arg(long, default_value = "info")]
    pub log: String,
}

#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// The character the key logs in.
    #[arg(long)]
    pub name: String,
    /// The data file to write the key into (created, and said so, if missing). Without
    /// --db or --server: ./pawns.redb if it exists, else the server at the default URL.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// A running server to ask (its loopback admin API). Given alone, the key is made
    /// there and nowhere else; with --db, it is asked when a server holds the file.
    #[arg(long)]
    pub server: Option<String>,
    /// Give the key a person's character (one that logs in with a password): without
    /// this, keygen refuses, and no key opens such a character.
    #[arg(long)]
    pub take_over: bool,
}

#[derive(Subcommand, Debug)]
pub enum AdminCmd {
    /// Print the observatory's admin token (for browsers not on the server's machine:
    /// open http://HOST:4350/observatory?token=TOKEN). It is derived from the data
    /// file's key, so it stays the same across restarts.
    Token(AdminTokenArgs),
    /// Make a new admin token: the old one stops opening the observatory at once.
    RotateToken(Place),
    /// Revoke every agent key of a character (its key logins stop working).
    RevokeKey(RevokeKeyArgs),
}

#[derive(Args, Debug)]
pub struct RevokeKeyArgs {
    /// The character whose keys to revoke.
    #[arg(long)]
    pub name: String,
    #[command(flatten)]
    pub place: Place,
}

#[derive(Args, Debug)]
pub struct AdminTokenArgs {
    /// The data file (read offline; a running server holding it is asked instead).
    /// Without --db or --server: ./pawns.redb if it exists, else the default server.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// A running server to ask (its loopback admin API).
    #[arg(long)]
    pub server: Option<String>,
}

/// Where a command finds the data: `--db` and `--server` as given.
#[derive(Args, Debug, Clone, Default)]
pub struct Place {
    /// The data file (it must exist: no command but `serve` and `keygen --db` makes one;
    /// a running server holding it is asked instead). Without --db or --server:
    /// ./pawns.redb if it is there, else the server at the default URL.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// A running server to ask. Given without --db, only the server is asked: no file is
    /// read or made here.
    #[arg(long)]
    pub server: Option<String>,
}

impl Place {
    /// The data file to open, if any; `None`: ask the server. An explicit `--db` must
    /// exist (`db_missing` otherwise, naming it) unless `--server` is given too, when the
    /// server is asked instead.
    pub fn file(&self) -> anyhow::Result<Option<PathBuf>> {
        match (&self.db, &self.server) {
            // Both given and no file there: the server holds the data; nothing is made here.
            (Some(db), Some(_)) if !db.exists() => Ok(None),
            (Some(db), _) => {
                if !db.is_file() {
                    anyhow::bail!(
                        "no data file at {} (db_missing); pass --db with an existing data file, or --server URL for a running server",
                        db.display()
                    );
                }
                Ok(Some(db.clone()))
            }
            (None, Some(_)) => Ok(None),
            (None, None) => Ok(Some(PathBuf::from("pawns.redb")).filter(|p| p.is_file())),
        }
    }

    /// The server to ask (`--server`, else the default).
    pub fn server(&self) -> String {
        self.server.clone().unwrap_or_else(|| DEFAULT_SERVER.to_string()).trim_end_matches('/').to_string()
    }

    /// Why the server is being asked, for an error when it does not answer.
    pub fn why_server(&self, held: bool) -> String {
        let db = self.db.clone().unwrap_or_else(|| PathBuf::from("pawns.redb"));
        if held {
            format!("{} is held by a running server, and asking it at {} failed", db.display(), self.server())
        } else if self.server.is_some() {
            format!("asking the server at {} failed (connect_failed)", self.server())
        } else {
            format!(
                "no data file here (./pawns.redb) and no server answered at {} (connect_failed); pass --db FILE or --server URL",
                self.server()
            )
        }
    }
}

/// Where `keygen` asks when no `--server` is given.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:4350";

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Words to find: `goblin`, `"small goblin"`, `kill AND goblin`, `rat -flee`
    /// (words match their stems: "kill" finds "killed"). Empty: everything the filters pass.
    #[arg(default_value = "")]
    pub query: String,
    /// Only this character's records.
    #[arg(long)]
    pub agent: Option<String>,
    /// action, observation or transition; or combat, social, movement, item, progress, info.
    #[arg(long)]
    pub kind: Option<String>,
    /// Only records this recent (e.g. 2d, 12h, 30m).
    #[arg(long, value_parser = parse_duration)]
    pub since: Option<Duration>,
    /// Most records to show.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub place: Place,
}

#[derive(Args, Debug)]
pub struct ReindexArgs {
    #[command(flatten)]
    pub place: Place,
}

#[derive(Args, Debug)]
pub struct BackupArgs {
    /// The backup file to write (must not exist).
    pub out: PathBuf,
    #[command(flatten)]
    pub place: Place,
}

#[derive(Args, Debug)]
pub struct CompactArgs {
    /// The data file.
    #[arg(long, default_value = "pawns.redb")]
    pub db: PathBuf,
}

#[derive(Args, Debug)]
pub struct RestoreArgs {
    /// The backup to check.
    pub backup: PathBuf,
    /// Copy the checked backup here (the server must be stopped).
    #[arg(long)]
    pub to: Option<PathBuf>,
    /// Replace `--to` if it exists.
    #[arg(long)]
    pub force: bool,
}

#[derive(Subcommand, Debug)]
pub enum ExportCmd {
    /// One line per decision: timestamp, room_vnum, room_name, hp, max_hp, agent_level,
    /// mobs_present, fighting, action, args, say_line, latency_ms, valence.
    Sessions(ExportArgs),
    /// The full decision records (pre/post state, timestamps, stimulus, client fields), as
    /// JSONL, or (--format parquet --out DIR) as DIR/decisions.parquet.
    Decisions(ExportArgs),
    /// Every table of the record as Parquet files in --out DIR (sessions, decisions,
    /// observations, transitions, dreams, memory_snapshots) for DuckDB, pandas, polars, Spark.
    Tables(ExportArgs),
    /// The memory an agent keeps itself (§12): every layer, every record with its
    /// history and end, as JSONL.
    Memory(ExportMemoryArgs),
}

#[derive(Args, Debug)]
pub struct ExportMemoryArgs {
    /// Whose memory.
    #[arg(long)]
    pub agent: String,
    /// Write here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace output files that are there (never through a symlink, never the data file).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub place: Place,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub select: select::Select,
    /// jsonl, csv (sessions only) or parquet (--out is then a directory).
    #[arg(long, default_value = "jsonl")]
    pub format: String,
    /// Write here instead of standard output (parquet: the directory for the files).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace output files that are there (never through a symlink, never the data file).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub place: Place,
}

#[derive(Subcommand, Debug)]
pub enum WorldCmd {
    /// Load a world directory and report what it holds and what is wrong with it.
    /// Exits non-zero only when the world cannot be loaded at all.
    Check(WorldCheckArgs),
}

#[derive(Args, Debug)]
pub struct WorldCheckArgs {
    /// The world directory (the one holding wld/, mob/, obj/, zon/, shp/).
    pub dir: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// List every problem, not just the first 20 of each kind.
    #[arg(long)]
    pub verbose: bool,
}

/// Whether stderr is a terminal: log lines are coloured only there, never in a file or pipe.
pub fn stderr_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr())
}

/// The consolidation parameters (the seed's defaults).
#[derive(Args, Debug, Clone)]
pub struct ConsolidationArgs {
    /// Salience lost per consolidation cycle by what was not met again.
    #[arg(long, default_value_t = 0.1)]
    pub decay_rate: f32,
    /// Memories under this salience are pruned.
    #[arg(long, default_value_t = 0.05)]
    pub prune_threshold: f32,
    /// Salience gained by what is met again.
    #[arg(long, default_value_t = 0.2)]
    pub reinforce_bonus: f32,
}

impl ConsolidationArgs {
    pub fn params(&self) -> anyhow::Result<pawns_graph::Params> {
        for (name, v) in
            [("--decay-rate", self.decay_rate), ("--prune-threshold", self.prune_threshold), ("--reinforce-bonus", self.reinforce_bonus)]
        {
            if !(0.0..=2.0).contains(&v) || v.is_nan() {
                anyhow::bail!("{name} must be between 0 and 2 (got {v})");
            }
        }
        Ok(pawns_graph::Params {
            decay_rate: self.decay_rate,
            prune_threshold: self.prune_threshold,
            reinforce_bonus: self.reinforce_bonus,
            ..Default::default()
        })
    }
}

/// Optional chronicle synthesis by an OpenAI-compatible endpoint.
#[derive(Args, Debug, Clone)]
pub struct LlmArgs {
    /// `http(s)://host:port` of an OpenAI-compatible API (`/v1/chat/completions`).
    #[arg(long)]
    pub llm_endpoint: Option<String>,
    /// The model to ask.
    #[arg(long, default_value = "gpt-4o-mini")]
    pub llm_model: String,
    /// The endpoint's own key (or env PAWNS_LLM_KEY). Never a game key.
    #[arg(long, env = "PAWNS_LLM_KEY", hide_env_values = true)]
    pub llm_key: Option<String>,
    /// Give up on the endpoint after this long (the deterministic summary is used).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub llm_timeout: Duration,
}

impl LlmArgs {
    pub fn config(&self) -> anyhow::Result<Option<pawns::memory::llm::LlmConfig>> {
        let Some(e) = self.llm_endpoint.as_ref() else { return Ok(None) };
        if !(e.starts_with("http://") || e.starts_with("https://")) {
            anyhow::bail!("--llm-endpoint must be an http:// or https:// URL (got '{e}')");
        }
        Ok(Some(pawns::memory::llm::LlmConfig {
            endpoint: e.clone(),
            model: self.llm_model.clone(),
            key: self.llm_key.clone(),
            timeout: self.llm_timeout,
        }))
    }
}

#[derive(Args, Debug)]
pub struct McpArgs {
    /// The running server.
    #[arg(long, default_value = "http://127.0.0.1:4350", value_name = "URL")]
    pub server: String,
    /// The agent key, sent as a bearer token (`join` then needs no `key`).
    #[arg(long, env = "PAWNS_KEY", hide_env_values = true)]
    pub key: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct DreamArgs {
    /// The agent to dream (its character name).
    #[arg(long, required_unless_present = "all")]
    pub agent: Option<String>,
    /// Every agent with something new (with --sessions: every agent directory).
    #[arg(long, conflicts_with = "agent")]
    pub all: bool,
    /// Compute and print the result; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Read session JSONL written by external agent clients (`DIR/{agent}/*.jsonl`)
    /// instead of the data file's record.
    #[arg(long, value_name = "DIR")]
    pub sessions: Option<PathBuf>,
    /// Also write `DIR/{agent}/memory-graph.json`, `memory-summary.txt` and
    /// `dream-result.json` (required with --sessions, which keeps its memory there).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// The zone of the memory's session headings (an IANA name).
    #[arg(long, default_value = "America/New_York")]
    pub zone: String,
    #[command(flatten)]
    pub consolidation: ConsolidationArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub place: Place,
}

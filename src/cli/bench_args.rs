//! `pawns bench`'s command line: the load generators and their arguments (parsing only;
//! the work is in `src/bench/`).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::parse_duration;

#[derive(Args, Debug, Clone)]
pub struct BenchMudArgs {
    /// The running server's telnet address.
    #[arg(long, default_value = "127.0.0.1:4350")]
    pub server: String,
    /// Players in the room.
    #[arg(long, default_value_t = 20)]
    pub players: usize,
    /// Seconds of talk per arm (plain, then MCCP2).
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
}

#[derive(Args, Debug, Clone)]
pub struct BenchTelnetArgs {
    /// The server's telnet address (this server or any CircleMUD-family one).
    #[arg(long, default_value = "127.0.0.1:4350")]
    pub server: String,
    /// Players, each made through the creation prompts.
    #[arg(long, default_value_t = 40)]
    pub players: usize,
    /// Commands per second per player.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// How long to measure (e.g. 30s, 2m).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub duration: Duration,
    /// The commands typed, picked at random: say, look, score, inventory, move.
    #[arg(long, default_value = "say,look,score,inventory,move")]
    pub mix: String,
    /// The server's process id, for its CPU per command (or PAWNS_BENCH_SERVER_PID).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Players' names: this prefix and letters.
    #[arg(long, default_value = "tbench")]
    pub prefix: String,
    #[arg(long, default_value = "bench-pass-99")]
    pub password: String,
    /// Another server's creation dialogue: lines of `text to wait for<TAB>answer`
    /// (`{name}` and `{password}` are filled in). Default: this server's.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// The text a prompt ends with.
    #[arg(long, default_value = "> ")]
    pub prompt: String,
    /// First measure the server's CPU with everyone in and nobody typing, as long.
    #[arg(long)]
    pub idle: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct BenchObservatoryArgs {
    /// The running server.
    #[arg(long, default_value = "http://127.0.0.1:4350")]
    pub server: String,
    /// The agent whose timeline is loaded and followed live.
    #[arg(long)]
    pub follow: String,
    /// Page loads to time.
    #[arg(long, default_value_t = 20)]
    pub loads: usize,
    /// Seconds of live follow.
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
}

#[derive(Subcommand, Debug)]
pub enum BenchCmd {
    /// Connect N real WebSocket agents that walk, look and fight.
    Agents(BenchAgentsArgs),
    /// Time and peak memory to read a world directory, import it into a data file, and
    /// load it back from there (what `serve` does at every start).
    World(BenchWorldArgs),
    /// Write a record of N events shaped like real play, index it, and time searches
    /// over it (p50/p99 per query).
    Search(BenchSearchArgs),
    /// Write one agent's record of N events shaped like real play, then time its first
    /// dream, an incremental one, the summary, and the raw-stream-to-summary compression.
    Dream(BenchDreamArgs),
    /// The agent client's decision path: the survival FSM, the planner, building the
    /// LLM prompt per tier (token counting included) and reading a model's answer.
    Decide(BenchDecideArgs),
    /// The HUD: build time (p50/p99) for an agent in busy conversation contexts, and its
    /// tokens in json, compact_json and toon.
    Hud(BenchHudArgs),
    /// Resident agents: N run by a server in this process against a stand-in model with a
    /// fixed latency; the turns they sustain, CPU and memory.
    Residents(BenchResidentsArgs),
    /// The memory an agent keeps itself: `recall` over N memories, `remember`, self-care.
    Mind(BenchMindArgs),
    /// The world's own behaviour (Lua scripts, special procedures): N players walking a
    /// world in-process, every pulse timed with them on and off, and the cost of one
    /// script call.
    Scripts(BenchScriptsArgs),
    /// MUD clients: N telnet players talking in one room, plain then with MCCP2 (and
    /// GMCP); the bytes per second a player receives on the wire in each.
    Mud(BenchMudArgs),
    /// Telnet players made through the creation prompts, typing say/look/score/
    /// inventory/moves at a rate against this or another MUD server: command → reply
    /// (found by what only the reply carries) and → prompt, and the server's CPU per command.
    Telnet(BenchTelnetArgs),
    /// The observatory against a running server: page load (page, files, who, a
    /// timeline) and how late the live follow shows an agent's records.
    Observatory(BenchObservatoryArgs),
    /// `pawns eval` over a record of N decisions shaped like play (stimuli, social acts,
    /// a dream per session): the time to read it and to compute the metrics.
    Eval(BenchEvalArgs),
    /// This machine's memory and disk as a server meets them: the time to read a page
    /// again after it sat idle (some virtual machines' hosts reclaim idle memory, and
    /// every figure that touches idle state is slowed by it), and the CPU and time of one
    /// durable commit (a recording server makes at least 20 a second).
    Machine(BenchMachineArgs),
}

#[derive(Args, Debug, Clone)]
pub struct BenchMachineArgs {
    /// Memory written, then read back after each idle time.
    #[arg(long, default_value_t = 256)]
    pub mb: usize,
    /// Idle times, comma-separated (e.g. 0s,1s,5s).
    #[arg(long, value_delimiter = ',', default_value = "0s,1s,2s,5s,10s", value_parser = parse_duration)]
    pub idle: Vec<Duration>,
    /// Distinct pages read after each idle time.
    #[arg(long, default_value_t = 10_000)]
    pub reads: usize,
    /// Where to time durable commits (a scratch file, removed after): the directory of
    /// the data file, to know its disk.
    #[arg(long, default_value = ".")]
    pub sync_dir: std::path::PathBuf,
    /// Commits timed per size (each: its pages written, then `fdatasync`); 0: no disk probe.
    #[arg(long, default_value_t = 300)]
    pub syncs: usize,
    /// Pages (4 KiB, scattered) a commit writes, comma-separated: one probe per size.
    #[arg(long, value_delimiter = ',', default_value = "1,8")]
    pub sync_pages: Vec<usize>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct BenchEvalArgs {
    /// Decisions in the record (each with an observation after it).
    #[arg(long, default_value_t = 1_000_000)]
    pub decisions: u64,
    /// Agents they are spread over (half valence on, half off).
    #[arg(long, default_value_t = 200)]
    pub agents: u64,
    /// Decisions per session (a dream is logged after each).
    #[arg(long, default_value_t = 500)]
    pub per_session: u64,
    /// Evaluations timed.
    #[arg(long, default_value_t = 2)]
    pub rounds: u32,
    /// Keep the data file here (an existing one is evaluated as it is).
    #[arg(long)]
    pub db: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct BenchScriptsArgs {
    /// The world directory (its `scripts/` and `specials.tsv` are read with it).
    pub dir: PathBuf,
    /// Players walking the world, one command a second each.
    #[arg(long, default_value_t = 1000)]
    pub agents: usize,
    /// Seconds of game time (ten pulses a second), each run.
    #[arg(long, default_value_t = 60)]
    pub seconds: u32,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Runs of each (on, off, on, off…).
    #[arg(long, default_value_t = 2)]
    pub rounds: u32,
    /// Start the players in the rooms that carry scripts (a load of script calls),
    /// instead of spread over the whole world.
    #[arg(long)]
    pub in_scripted_rooms: bool,
}

#[derive(Args, Debug, Clone)]
pub struct BenchMindArgs {
    /// Memories the agent holds.
    #[arg(long, default_value_t = 100_000)]
    pub memories: usize,
    /// Recalls timed.
    #[arg(long, default_value_t = 50)]
    pub rounds: usize,
    /// Memories another agent takes to self-care.
    #[arg(long, default_value_t = 5_000)]
    pub self_care: usize,
}

#[derive(Args, Debug, Clone)]
pub struct BenchResidentsArgs {
    /// Resident agents.
    #[arg(long, default_value_t = 100)]
    pub count: usize,
    /// How long the stand-in model takes to answer.
    #[arg(long, default_value = "500ms", value_parser = parse_duration)]
    pub llm_latency: Duration,
    /// How long to measure.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Time to log in and settle before measuring.
    #[arg(long, default_value = "15s", value_parser = parse_duration)]
    pub warmup: Duration,
    /// The HUD format the residents ask for.
    #[arg(long, default_value = "json")]
    pub format: String,
    /// The HUD budget.
    #[arg(long, default_value_t = 10_000)]
    pub budget: usize,
    /// A world directory (default: the starter world).
    #[arg(long)]
    pub world: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct BenchHudArgs {
    /// Conversation contexts the agent is in.
    #[arg(long, default_value_t = 5)]
    pub contexts: usize,
    /// Messages each context holds.
    #[arg(long, default_value_t = 1_000)]
    pub messages: usize,
    /// The HUD's budget in tokens.
    #[arg(long, default_value_t = 10_000)]
    pub budget: usize,
    /// HUDs built per format.
    #[arg(long, default_value_t = 200)]
    pub rounds: u32,
}

#[derive(Args, Debug, Clone)]
pub struct BenchDecideArgs {
    /// Decisions timed per measurement.
    #[arg(long, default_value_t = 2_000)]
    pub rounds: u32,
}

#[derive(Args, Debug, Clone)]
pub struct BenchDreamArgs {
    /// Events in the agent's record.
    #[arg(long, default_value_t = 1_000_000)]
    pub events: u64,
    /// Events per session (sessions are 45 minutes apart in event time).
    #[arg(long, default_value_t = 10_000)]
    pub per_session: u64,
    /// Events added before the incremental dream.
    #[arg(long, default_value_t = 10_000)]
    pub increment: u64,
    /// Log growth: the other sessions recording beside a probe agent (0: skip the
    /// growth section).
    #[arg(long, default_value_t = 1_000)]
    pub crowd: u64,
    /// Log growth: commits of the crowd alone before the first probe (the log then
    /// grows to 10× this before the second).
    #[arg(long, default_value_t = 200)]
    pub crowd_batches: u64,
    /// Keep the data file here instead of a scratch file (it must not exist).
    #[arg(long)]
    pub db: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct BenchSearchArgs {
    /// Events to write into the scratch record.
    #[arg(long, default_value_t = 1_000_000)]
    pub events: u64,
    /// Times each query runs.
    #[arg(long, default_value_t = 200)]
    pub rounds: usize,
    /// Keep the data file (and its index) here instead of a scratch file.
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Search an existing --db as it is (writing events only if it holds none).
    #[arg(long)]
    pub reuse: bool,
}

#[derive(Args, Debug, Clone)]
pub struct BenchWorldArgs {
    /// The world directory.
    pub dir: PathBuf,
    /// Where to write the scratch data file (default: a temporary directory).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Loads from the data file to time (the figure is the median).
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
}

#[derive(Args, Debug, Clone)]
pub struct BenchAgentsArgs {
    #[arg(long, default_value_t = 100)]
    pub count: usize,
    /// Commands per second per agent.
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// How long to run (e.g. 30s, 2m).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub duration: Duration,
    #[arg(long, default_value = "ws://127.0.0.1:4350/ws")]
    pub url: String,
    /// A file of agent keys, one per line (default: create keys through the server's admin API).
    #[arg(long)]
    pub keys: Option<PathBuf>,
    /// Name prefix for created agents.
    #[arg(long, default_value = "bench")]
    pub prefix: String,
    /// Connections opened at once while ramping up.
    #[arg(long, default_value_t = 200)]
    pub ramp: usize,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Threads the load generator uses.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// At the end, leave without logging out (the characters go link-dead) instead of
    /// `quit`ting (fleeing first when fighting).
    #[arg(long)]
    pub no_logout: bool,
    /// After everyone logged out, wait until the server has dreamed every logout and
    /// report how long that took (needs the server's /api/record on loopback).
    #[arg(long)]
    pub wait_dreams: bool,
    /// Also ask for a HUD this often (e.g. 2s), in --hud-format.
    #[arg(long, value_parser = parse_duration)]
    pub hud_every: Option<Duration>,
    #[arg(long, default_value = "compact_json")]
    pub hud_format: String,
    /// Start a server for the run (this program's `pawns serve` on a scratch data file and
    /// a free port, logins unthrottled) instead of using --url; its CPU, memory and pulses
    /// are measured.
    #[arg(long)]
    pub spawn: bool,
    /// The world that server imports (implies --spawn; default: the starter world).
    #[arg(long)]
    pub world: Option<PathBuf>,
    /// More `pawns serve` flags for that server, e.g. --serve-args="--no-record --no-search".
    #[arg(long, allow_hyphen_values = true)]
    pub serve_args: Option<String>,
    /// Keep the spawned server's data file (its directory is printed).
    #[arg(long)]
    pub keep: bool,
    /// With --spawn: after the run, compact a copy of the server's data file and report
    /// the record's bytes per decision in it (data file and search index; slow on a big
    /// record: every batch is read to count the decisions).
    #[arg(long)]
    pub compact: bool,
    /// Let the agents play this long once all are in before measuring: they start at the
    /// world's temple and spread out. They never eat: on a world with food they starve
    /// 24 mud hours (25 minutes) after login and regain at a quarter pace, and what they
    /// do and hear changes then (a soak's steady state starts past that).
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub warmup: Duration,
    /// While measuring, sample the server's memory and the replies' p50/p99 this often (a
    /// soak's RSS growth and latency over time).
    #[arg(long, value_parser = parse_duration)]
    pub sample_every: Option<Duration>,
}

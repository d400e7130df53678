//! `pawns agent`: the agent client, built into the binary (the seed's `dp-agent`).
//!
//! | file | job |
//! |---|---|
//! | `config.rs` | `~/.pawns-agent.json`: load, check, save (0600), mask, env overrides |
//! | `conn.rs` | the socket task: login, `seq` checks, reconnect + resume, circuit breaker |
//! | `state.rs` | the typed game state from `state`, `vars`, `event`, memory messages |
//! | `fsm.rs` | the survival FSM, the no-LLM planner (`--policy fsm`), random play |
//! | `prompt.rs` | the LLM prompt within the tier's token budget; reading the reply |
//! | `llm.rs` | the OpenAI-compatible client: `model_fast`, then `model_fallback`; the calls kept for the record |
//! | `structured.rs` | structured answers: the schema of what makes sense now, the forms an endpoint takes |
//! | `hud_loop.rs` | playing from the HUD: heartbeat HUDs to the model, its answers as `actions` |
//! | `run.rs` | the decision loop of `play` and `session`; the session report |
//! | `log.rs` | the session JSONL (the seed's fields) and a turn's valence |
//! | `exec.rs` | one command, its feedback printed |
//! | `transcript.rs` | what `play` prints |
//! | `cli.rs` | the subcommands |
//! | `bench.rs` | `pawns bench decide`: the decision path's cost |

pub mod config;
pub mod conn;
pub mod exec;
pub mod fsm;
pub mod hud_loop;
pub mod llm;
pub mod log;
pub mod prompt;
pub mod run;
pub mod state;
pub mod structured;
pub mod transcript;

use thiserror::Error;

/// What decides, when the survival FSM does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Policy {
    /// The planner: explores, fights what `consider` calls even or easier, loots, rests.
    Fsm,
    /// The configured OpenAI-compatible model (`model_fast`, then `model_fallback`).
    Llm,
    /// Random exits and looks, now and then an attack.
    Random,
}

impl Policy {
    pub fn name(&self) -> &'static str {
        match self {
            Policy::Fsm => "fsm",
            Policy::Llm => "llm",
            Policy::Random => "random",
        }
    }
}

#[derive(Debug, Error)]
pub enum AgentError {
    #[error("{0}")]
    Config(String),
    #[error("{0}")]
    Connect(String),
    #[error("the server refused: {code}: {message}")]
    Refused { code: String, message: String },
    #[error("giving up: the same failure {times} times in a row: {why}")]
    CircuitOpen { times: u32, why: String },
    #[error("session log: {0}")]
    Log(String),
    #[error("{0}")]
    Server(String),
}

impl AgentError {
    /// Stable codes for scripts.
    pub fn code(&self) -> &str {
        match self {
            AgentError::Config(_) => "config_invalid",
            AgentError::Connect(_) => "connect_failed",
            AgentError::Refused { code, .. } => code,
            AgentError::CircuitOpen { .. } => "circuit_open",
            AgentError::Log(_) => "log_failed",
            AgentError::Server(_) => "server_error",
        }
    }
}

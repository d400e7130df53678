//! The engine remembers for the agent: extraction of memorable events from the record,
//! dreaming (graph consolidation, profile, summary, optional LLM chronicle), the dreamer
//! thread and its triggers, and what an agent is given at login. The graph itself is the
//! pure `pawns-graph` crate; this module is everything around it that reads and writes.

pub mod chat;
pub mod dream;
pub mod dreamer;
pub mod encounters;
pub mod extract;
pub mod forget;
pub mod import;
pub mod llm;
pub mod login;
pub mod schedule;

use pawns_graph::{Params, Profile, StoredGraph, Summary};
use serde::{Deserialize, Serialize};

pub use dream::{dream_agent, DreamOptions};
pub use dreamer::{spawn_dreamer, DreamError, DreamFeed, DreamerHandle};

/// How far into its record an agent has dreamed: every record of a session before
/// `session`, and of `session` those up to `seq`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Watermark {
    pub session: u64,
    pub seq: u64,
    /// The batch holding that record: the next dream reads the session from there on
    /// (0 in memories older than session chunks: read from the session's start).
    #[serde(default)]
    pub batch: u64,
}

/// What one dream did: the seed's result block, and a little more.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DreamResult {
    pub agent: String,
    /// logout, threshold, daily, admin, offline.
    pub trigger: String,
    pub sessions_read: usize,
    pub records_read: u64,
    pub events_extracted: usize,
    pub nodes_before: usize,
    pub nodes_after: usize,
    pub pruned: usize,
    pub reinforced: usize,
    pub summary_tokens: usize,
    /// Whether an LLM wrote the chronicle in the summary.
    pub chronicle: bool,
    /// Unix µs when it ended, and how long it took.
    pub at_us: u64,
    pub elapsed_ms: f64,
    /// `--dry-run`: nothing was written.
    #[serde(default)]
    pub dry_run: bool,
}

impl DreamResult {
    /// The seed's block, as `pawns dream` prints it.
    pub fn render(&self) -> String {
        format!(
            "Dream complete{}:\n  Agent:            {}\n  Sessions read:    {}\n  Events extracted: {}\n  Nodes before:     {}\n  Nodes after:      {}\n  Pruned:           {}\n  Summary tokens:   {}\n",
            if self.dry_run { " (dry run, nothing written)" } else { "" },
            self.agent,
            self.sessions_read,
            self.events_extracted,
            self.nodes_before,
            self.nodes_after,
            self.pruned,
            self.summary_tokens
        )
    }
}

/// One memory as a dream left it (the dream log).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SalienceRow {
    /// `ev:{session}:{seq}`.
    pub id: String,
    pub salience: f32,
    /// As the memory holds it (0 when dreamed from a `valence: false` session).
    pub valence: f32,
    /// What the game makes of the event, whatever the session: the band a decay curve
    /// puts it in, the same in both arms of an ablation.
    pub game_valence: i8,
}

/// What one dream did, kept for research (table `dream_log`, one row per dream that
/// folded something in): every memory's salience after it, what it pruned, its cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DreamSnapshot {
    /// The graph's consolidation cycle this dream ran (1 for the first).
    pub cycle: u64,
    pub trigger: String,
    pub records_read: u64,
    pub events: usize,
    /// cl100k tokens of the records read, each as its search line: what carrying the raw
    /// stream would cost, against `summary_tokens`.
    pub raw_tokens: u64,
    pub summary_tokens: usize,
    pub elapsed_ms: f64,
    /// Sessions read, and how many of them were `valence: false`.
    pub sessions: usize,
    pub sessions_valence_off: usize,
    /// Every memory (event node) after the dream.
    pub memories: Vec<SalienceRow>,
    /// Memories this dream pruned, by id.
    pub pruned: Vec<String>,
}

/// An agent's memory as the data file keeps it (table `memories`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AgentMemory {
    pub graph: StoredGraph,
    pub profile: Profile,
    /// The summary at the default (medium) budget, as injected at login.
    pub summary: Summary,
    /// The LLM's chronicle of the last dream, when one was asked for and answered.
    pub chronicle: Option<String>,
    pub watermark: Watermark,
    pub last: Option<DreamResult>,
    /// The parameters it was consolidated with.
    pub params: Params,
    /// The UTC offset the session headings were written in.
    #[serde(default)]
    pub utc_offset_secs: i32,
    /// Everyone met and what happened between them, never pruned (the research
    /// metrics' stimuli). Empty in memories older than it.
    #[serde(default)]
    pub history: encounters::Encounters,
}

/// Why a memory operation failed, with a stable code.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("{0}")]
    Store(#[from] pawns_storage::StoreError),
    #[error("no such agent: {0}")]
    NoAgent(String),
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    Io(String),
    /// The server is stopping: the dream was abandoned before it wrote anything (dreams
    /// are idempotent; the next trigger runs it again).
    #[error("the dream was cancelled: the server is stopping")]
    Cancelled,
}

impl MemoryError {
    pub fn code(&self) -> &'static str {
        match self {
            MemoryError::Store(e) => e.code(),
            MemoryError::NoAgent(_) => "no_such_agent",
            MemoryError::BadInput(_) => "bad_request",
            MemoryError::Io(_) => "io_error",
            MemoryError::Cancelled => "dream_cancelled",
        }
    }
}

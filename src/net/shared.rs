//! What every connection shares: the accounts, the engine's inbox, the limits, the
//! link hub, the token key, and the handles of the recorder, the index and the dreamer.
//! The server builds it at start (`server::start`); the edge only reads it.

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{oneshot, watch};

use super::link::{Hub, LinkLimits};
use crate::auth::limits::{ConnLimiter, LoginDenied, LoginLimiter};
use crate::auth::tokens::TokenKey;
use crate::game::{EngineHandle, EngineMsg};
use crate::net::accounts::Accounts;

/// What the sessions need of the server's configuration.
#[derive(Debug, Clone)]
pub struct EdgeConfig {
    /// Per-connection command rate (protocol §5: 10/s, burst 10).
    pub cmd_rate: f64,
    pub cmd_burst: f64,
    /// Outbound batches (what one engine step sent a session) one WebSocket may leave
    /// unwritten, once the kernel's buffers are full, before it counts as a slow consumer.
    pub out_queue: usize,
    pub link: LinkLimits,
    /// The record is kept (an agent's memory is read at login only then).
    pub record: bool,
    /// Deadlines and budgets of connections that have not logged in, and of HTTP.
    pub sockets: SocketLimits,
    /// Browser origins besides the server's own that may call it (`serve --allow-origin`).
    pub allow_origins: Vec<String>,
    /// How long one second of the HUD heartbeat lasts here: a second, but a test's
    /// server may run its heartbeats faster (the protocol's numbers stay the same).
    pub heartbeat_second: std::time::Duration,
}

/// What a connection may cost before it has proven anything (SECURITY.md lists each
/// with its default).
#[derive(Debug, Clone, Copy)]
pub struct SocketLimits {
    /// A WebSocket must be logged in this long after its upgrade (`login_timeout`) ...
    pub login_within: std::time::Duration,
    /// ... or, once a person's interactive creation has begun, have finished it.
    pub create_within: std::time::Duration,
    /// Frames a WebSocket may send before it is logged in (`login_budget`).
    pub pre_login_frames: u32,
    /// An HTTP request's header must have arrived this long after the connection opened
    /// or the last answer went out: half a header, or an idle keep-alive connection, is
    /// closed then.
    pub http_header_within: std::time::Duration,
}

impl Default for SocketLimits {
    fn default() -> Self {
        SocketLimits {
            login_within: std::time::Duration::from_secs(60),
            create_within: std::time::Duration::from_secs(600),
            pre_login_frames: 64,
            http_header_within: std::time::Duration::from_secs(10),
        }
    }
}

/// What every connection shares.
pub struct Shared {
    /// What the sessions need of the server's configuration.
    pub edge: EdgeConfig,
    pub accounts: Accounts,
    /// The mortal start room (vnum, name): where new characters begin and the dead respawn.
    pub start_room: (u32, String),
    pub engine: EngineHandle,
    /// The agents the server runs itself (their commands and their loops' status).
    pub residents: crate::resident::Residents,
    /// The memory agents keep themselves (§12).
    pub mind: crate::mind::Mind,
    pub login: LoginLimiter,
    pub conns: Arc<ConnLimiter>,
    pub hub: Arc<Hub>,
    /// Characters played through MCP (their links end in seats, not sockets).
    pub seats: crate::net::mcp::seat::Seats,
    pub token_key: TokenKey,
    /// The observatory's admin token (the key's, at its generation).
    pub admin: crate::auth::tokens::AdminToken,
    /// Session tokens a quit voided.
    pub revoked: Arc<crate::auth::tokens::Revoked>,
    pub next_link: AtomicU64,
    pub started: Instant,
    /// The recorder's counters (not its handle: the recorder ends when the engine does).
    pub record_stats: Option<Arc<crate::record::RecorderStats>>,
    /// The engine's and the edge's measurements (`/metrics`, `/health`).
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The search index and its indexer (none when recording or search is off, or the
    /// index could not be opened).
    pub search: Option<crate::search::IndexerHandle>,
    /// The dreamer (none when recording or dreaming is off).
    pub dreamer: Option<crate::memory::DreamerHandle>,
    /// Becomes `true` if the engine thread dies (a panic outside a command's boundary):
    /// `/health` answers 503 and `serve` exits non-zero for its supervisor.
    pub engine_dead: watch::Receiver<bool>,
    /// Where connections spawn their tasks: the server's set, which its stop ends.
    pub tasks: crate::net::tasks::TaskSpawner,
}

impl Shared {
    pub fn next_link_id(&self) -> u64 {
        self.next_link.fetch_add(1, Ordering::Relaxed)
    }

    /// A session token's claims, if it is signed, unexpired and not voided by a quit.
    pub fn verify_token(&self, token: &str, now: u64) -> Result<crate::auth::tokens::Claims, &'static str> {
        let c = self.token_key.verify(token, now)?;
        if self.revoked.is_void(&c) {
            return Err("token revoked (its character quit)");
        }
        Ok(c)
    }

    /// Before a login against `target` (the character named; "" when a key names it).
    pub fn login_gate(&self, ip: IpAddr, target: &str) -> Result<(), LoginDenied> {
        self.login.check(ip, target, Instant::now())
    }
    pub fn login_ok(&self, ip: IpAddr, target: &str) {
        self.login.success(ip, target)
    }
    pub fn login_failed(&self, ip: IpAddr, target: &str) -> Option<LoginDenied> {
        self.login.failure(ip, target, Instant::now())
    }

    pub async fn who(&self) -> Vec<(String, bool)> {
        let (tx, rx) = oneshot::channel();
        if self.engine.tx.send(EngineMsg::Who { reply: tx }).await.is_err() {
            return Vec::new();
        }
        rx.await.unwrap_or_default()
    }
}

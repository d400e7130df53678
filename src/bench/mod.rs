//! `pawns bench`: the measurements the closing notes quote, each a subcommand: `agents`
//! (a load generator of real WebSocket agents against a running server), `world`
//! (reading, importing and loading a world), `search` (writing, indexing and querying
//! a record), `dream` (one agent's dreams, and its dream as the log grows), `decide`
//! (the agent client's decision path), `hud` (a HUD's build time and tokens),
//! `residents` (resident agents against a stand-in model), `mud` (telnet players' bytes
//! per second, plain and MCCP2), `telnet` (telnet players' command → reply and → prompt
//! against this or another server, and its CPU per command), `observatory` (its page load and live-follow lateness), `machine`
//! (what this machine does to memory that sits idle, and what one durable commit costs
//! its disk: `sync_probe`).

pub mod agent_play;
pub mod agents;
pub mod compacted;
pub mod decide;
pub mod dream;
pub mod eval;
pub mod hud;
pub mod machine;
pub mod mind;
pub mod mud;
pub mod observe;
pub mod residents;
pub mod scripts;
pub mod search;
pub mod serve;
pub mod soak;
pub mod sync_probe;
pub mod telnet;
pub mod threads;
pub mod world;

//! The HUD (protocol §11, seed `003_*`): the whole context an agent needs for one
//! decision, built by the server, cut to a token budget and written as JSON, compact
//! JSON or TOON.
//!
//! - `budget.rs` — the seed's arithmetic: static content at most half, the knowledge
//!   cap, attention shares (`"30%"`, `"%*"`), filling messages backward, word budgets;
//! - `format.rs` — the three written forms and their decoders (the compact key table);
//! - `assemble.rs` — a HUD from its parts, cut to the budget (`total ≤ budget`, always);
//! - `answer.rs` — a model's answer read back into the response format (JSON or TOON);
//! - `pool.rs` — the threads HUDs are assembled on (warm tokenizer caches);
//! - `schemas.rs` — each action's JSON Schema, published and checked against;
//! - `heartbeat.rs` — the heartbeat interval and how reactions move it.

pub mod answer;
pub mod assemble;
pub mod budget;
pub mod format;
pub mod heartbeat;
pub mod knowledge;
pub mod pool;
pub mod schemas;

pub use assemble::{assemble, Hud, HudMessage, HudParts, RecentAction, RoomParts, Tokens};
pub use budget::Attention;
pub use format::HudFormat;

//! The network edge: one TCP port; the first bytes decide HTTP (health, APIs, the
//! WebSocket upgrade) or telnet.

pub mod accounts;
pub mod actions;
pub mod api;
pub mod descriptors;
pub mod display;
pub mod http;
pub mod hud;
pub mod link;
pub mod listener;
pub mod login;
pub mod mcp;
pub mod outlet;
pub mod replay_ring;
pub mod shared;
pub mod shared_events;
pub mod tasks;
pub mod telnet;
pub mod telnet_login;
pub mod telnet_mind;
pub mod web;
pub mod wrap;
pub mod ws;
pub mod ws_wire;

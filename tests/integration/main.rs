//! Black-box tests: each starts a real server on port 0 and speaks its protocols.

mod agent_client;
mod agents;
mod chat_rooms;
mod combat;
mod common;
mod darkpawns;
mod dg_scripts;
mod errors;
mod gameplay;
mod http_edge;
mod hud;
mod lua_scripts;
mod memory;
mod mind;
mod mud_clients;
mod observatory;
mod persistence;
mod real_clients;
mod real_worlds;
mod recording;
mod residents;
mod search;
mod shutdown;
mod specials;
mod telnet;
mod world;

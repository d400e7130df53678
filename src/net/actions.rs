//! An `actions` message (protocol §11.1, §12) handed to the game, from any edge (a
//! WebSocket session, an MCP tool): the memory layers' items (§12) live outside the
//! engine, so they are applied first (where the agent stands as the message arrives)
//! and their results handed to the engine, which applies the rest and answers the
//! whole message in order. A message the engine will refuse whole (too many items)
//! applies nothing here.

use std::sync::Arc;

use serde_json::Value;

use crate::game::model::world::CharId;
use crate::game::EngineMsg;
use crate::net::shared::Shared;

pub async fn submit(shared: &Shared, char_id: CharId, link_id: u64, name: &str, batch: Value, re: Option<Arc<str>>) {
    let mut premade = Vec::new();
    let ours: Vec<(usize, Value)> = batch
        .get("actions")
        .and_then(|a| a.as_array())
        .map(|a| a.iter().enumerate().filter(|(_, x)| crate::mind::serves(x)).map(|(i, x)| (i, x.clone())).collect())
        .unwrap_or_default();
    let items = ["responses", "actions"].iter().map(|k| batch.get(*k).and_then(|a| a.as_array()).map_or(0, Vec::len)).sum::<usize>();
    if !ours.is_empty() && items <= crate::game::run::actions::MAX_ITEMS {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let _ = shared.engine.tx.send(EngineMsg::Whereabouts { char_id, reply: tx }).await;
        let at = rx.await.unwrap_or_default();
        for (i, item) in ours {
            premade.push((i, shared.mind.apply(name, &item, &at).await));
        }
    }
    let _ = shared.engine.tx.send(EngineMsg::Actions { char_id, link_id, batch, re, premade }).await;
}

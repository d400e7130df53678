//! Serving the HUD to a JSON session (protocol §11): on request, and every heartbeat
//! while the agent asked for that. The engine gathers the parts (cheap); cutting them
//! to the budget and counting tokens happens here, on the HUD threads (`hud::pool`), never on the
//! engine's thread. Replies go through the link, so they carry `seq` like everything else.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::oneshot;

use super::link::{LinkCtl, LinkHandle};
use super::shared::Shared;
use crate::game::EngineMsg;
use crate::protocol::HudRequest;

/// Builds one HUD and sends it (or the refusal) to the session. Returns the heartbeat
/// interval the engine reported, or `None` when the session is gone.
pub async fn serve(shared: &Shared, link: &LinkHandle, req: &HudRequest, re: Option<Arc<str>>, beat: bool) -> Option<f64> {
    let (tx, rx) = oneshot::channel();
    let msg = EngineMsg::Hud { char_id: link.char_id, link_id: link.link_id, beat, reply: tx };
    shared.engine.tx.send(msg).await.ok()?;
    let snap = rx.await.ok()??;
    let (mut parts, heartbeat_s) = (snap.parts, snap.heartbeat_s);
    if beat && snap.asleep {
        return Some(heartbeat_s);
    }
    parts.mind = Some(shared.mind.hud_view(&snap.name).await).filter(|v| !v.is_null());
    let (format, budget) = (req.format, req.budget);
    let built = crate::hud::pool::run(move || crate::hud::assemble(&parts, budget, format)).await?;
    let ctl = match built {
        Ok(hud) => LinkCtl::Reply {
            kind: "hud",
            data: json!({
                "format": format.as_str(),
                "budget": budget,
                "content": hud.content,
                "tokens": hud.tokens,
                "heartbeat_s": heartbeat_s,
            }),
            re,
            from: link.sock.clone(),
        },
        Err(e) => LinkCtl::Error { code: e.code(), message: e.to_string(), retry_after_ms: None, re, from: link.sock.clone() },
    };
    link.ctl.send(ctl).await.ok()?;
    Some(heartbeat_s)
}

/// Pushes a HUD every heartbeat until aborted (or the session is gone). The interval is
/// the agent's own (reactions move it), read back with every HUD.
pub fn spawn_heartbeat(shared: Arc<Shared>, link: LinkHandle, req: HudRequest) -> tokio::task::AbortHandle {
    let tasks = shared.tasks.clone();
    tasks.spawn(async move {
        // `wake_agent` ends a wait early; the registration goes when this task does.
        struct Registered(Arc<Shared>, crate::game::model::world::CharId, Arc<tokio::sync::Notify>);
        impl Drop for Registered {
            fn drop(&mut self) {
                self.0.engine.wakes.unregister(self.1, &self.2);
            }
        }
        let wake = Registered(shared.clone(), link.char_id, shared.engine.wakes.register(link.char_id));
        let mut every = 10.0;
        let second = shared.edge.heartbeat_second;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(second.mul_f64(every)) => {}
                _ = wake.2.notified() => {}
            }
            match serve(&shared, &link, &req, None, true).await {
                Some(s) => every = s.clamp(1.0, 10.0),
                None => return,
            }
        }
    })
}

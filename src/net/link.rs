//! The link: a JSON session's life beyond any one socket.
//!
//! One task per logged-in JSON session stamps `seq` on every outbound message, keeps
//! the replay buffer, and writes frames to whichever socket is attached (its
//! [`Outlet`]: on a socket that keeps up, straight out, no other task woken). When the
//! socket drops, the link stays (the character is link-dead) and keeps buffering; a
//! `resume` attaches a new socket and replays what was missed. A socket that stops
//! reading fills its outlet and is cut off with `slow_consumer`; nothing is dropped
//! silently.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::display::Screen;
use super::outlet::{Outlet, Sent};
use super::replay_ring::{Kept, ReplayRing};
use super::shared_events::{self, Render};
use crate::auth::tokens::TokenKey;
use crate::game::model::world::CharId;
use crate::game::{EngineHandle, EngineMsg, Out, Outs};
use crate::protocol;

/// Messages the session itself produces (errors), stamped by the link. Each names the
/// socket it comes from (`from`): one the link no longer has (a resume took the
/// character over from it) reaches neither the character nor the socket attached now.
pub enum LinkCtl {
    /// A reply of the session's own (`hud`), stamped like everything else.
    Reply {
        kind: &'static str,
        data: serde_json::Value,
        re: Option<Arc<str>>,
        from: Arc<Outlet>,
    },
    Error {
        code: &'static str,
        message: String,
        retry_after_ms: Option<u64>,
        re: Option<Arc<str>>,
        from: Arc<Outlet>,
    },
    /// Close the socket after everything sent before it (an error always precedes its close).
    Close {
        code: u16,
        reason: String,
        from: Arc<Outlet>,
    },
    /// A resume: `sock` takes the link over; one still attached is told
    /// `session_taken_over` and closed (protocol §9, as a second login's).
    Attach {
        sock: Arc<Outlet>,
        last_seq: u64,
        reply: oneshot::Sender<bool>,
    },
    /// The socket's reader ended: the link closes it after what it queued before (an
    /// error and its close), and lets it go; the character goes link-dead. Another socket
    /// attached since (a resume while this one was still open) is not touched.
    Detach(Arc<Outlet>),
    /// The page's window changed, or a resuming page said what it shows (`display`).
    Display {
        display: protocol::DisplayData,
        from: Arc<Outlet>,
    },
}

#[derive(Clone)]
pub struct LinkHandle {
    pub link_id: u64,
    pub char_id: CharId,
    pub ctl: mpsc::Sender<LinkCtl>,
    /// The character's name.
    pub name: Arc<str>,
    /// The socket of the session holding this handle (the one it was attached with).
    pub sock: Arc<Outlet>,
}

/// Live links by lower-case character name (for `resume`).
#[derive(Default)]
pub struct Hub {
    links: Mutex<HashMap<String, LinkHandle>>,
}

impl Hub {
    pub fn get(&self, name: &str) -> Option<LinkHandle> {
        self.links.lock().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
    }
    pub fn insert(&self, name: &str, h: LinkHandle) {
        self.links.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_string(), h);
    }
    fn remove_if(&self, name: &str, link_id: u64) {
        let mut m = self.links.lock().unwrap_or_else(|e| e.into_inner());
        if m.get(name).is_some_and(|h| h.link_id == link_id) {
            m.remove(name);
        }
    }
    pub fn len(&self) -> usize {
        self.links.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Clone, Copy)]
pub struct LinkLimits {
    pub replay_messages: usize,
    pub replay_bytes: usize,
    pub token_refresh_after: Duration,
}

impl Default for LinkLimits {
    fn default() -> Self {
        LinkLimits { replay_messages: 1024, replay_bytes: 1 << 20, token_refresh_after: Duration::from_secs(45 * 60) }
    }
}

pub struct LinkTask {
    pub name: String,
    pub link_id: u64,
    pub char_id: CharId,
    seq: u64,
    ring: ReplayRing,
    /// The socket attached (kept once closed or failed, until its reader's `Detach`, so
    /// that the detach is recognised as this socket's).
    sock: Option<Arc<Outlet>>,
    /// The engine was told this socket is gone (a slow consumer's cut): its `Detach`
    /// does not tell it again.
    engine_told: bool,
    token_key: TokenKey,
    revoked: Arc<crate::auth::tokens::Revoked>,
    /// The last token signed, and when (unix s).
    token_cache: Option<(u64, String)>,
    limits: LinkLimits,
    engine: EngineHandle,
    hub: Arc<Hub>,
    metrics: Arc<crate::metrics::Metrics>,
    /// A person's screen (the web client): events wrapped, with their colours as data.
    screen: Option<Screen>,
}

/// How long a signed session token is handed out again before a new one is signed.
const TOKEN_REUSE_SECS: u64 = 60;

pub struct NewLink {
    pub name: String,
    pub link_id: u64,
    /// Messages already sent on this socket before login (their seq numbers are used).
    pub seq_start: u64,
    pub sock: Arc<Outlet>,
    pub token_key: TokenKey,
    /// Tokens voided by a quit.
    pub revoked: Arc<crate::auth::tokens::Revoked>,
    pub limits: LinkLimits,
    pub engine: EngineHandle,
    pub hub: Arc<Hub>,
    pub metrics: Arc<crate::metrics::Metrics>,
    /// What the login's `display` said (none: a program reads this link).
    pub display: Option<protocol::DisplayData>,
}

impl LinkTask {
    /// Spawns the link; returns its control channel and the engine's output sender.
    /// `char_id` is filled in by `bind` once the engine has placed the character.
    pub fn spawn(n: NewLink) -> (mpsc::Sender<LinkCtl>, mpsc::Sender<Outs>, oneshot::Sender<CharId>) {
        let (ctl_tx, ctl_rx) = mpsc::channel(256);
        let (out_tx, out_rx) = mpsc::channel(4096);
        let (bind_tx, bind_rx) = oneshot::channel();
        let task = LinkTask {
            name: n.name,
            link_id: n.link_id,
            char_id: 0,
            seq: n.seq_start,
            ring: ReplayRing::new(n.limits.replay_messages, n.limits.replay_bytes),
            sock: Some(n.sock),
            engine_told: false,
            token_key: n.token_key,
            revoked: n.revoked,
            token_cache: None,
            limits: n.limits,
            engine: n.engine,
            hub: n.hub,
            metrics: n.metrics,
            screen: n.display.as_ref().map(Screen::new),
        };
        tokio::spawn(task.run(out_rx, ctl_rx, bind_rx));
        (ctl_tx, out_tx, bind_tx)
    }

    /// The session token a `state` carries: one signed at most `TOKEN_REUSE_SECS` ago
    /// (a walk sends a `state` per step; signing each was a measurable share of a
    /// busy server's socket threads). It lives 24 h either way.
    fn token(&mut self) -> String {
        let now = crate::time::unix_secs();
        match &self.token_cache {
            Some((at, t)) if now.saturating_sub(*at) < TOKEN_REUSE_SECS => t.clone(),
            _ => {
                let t = self.token_key.issue(&self.name, self.revoked.issue_at(&self.name, now));
                self.token_cache = Some((now, t.clone()));
                t
            }
        }
    }

    /// Stamps, buffers and forwards one frame.
    fn emit(&mut self, make: impl FnOnce(u64) -> Option<String>) {
        if let Some(frame) = self.stamp(make) {
            self.deliver(vec![frame], None);
        }
    }

    /// Stamps and buffers one frame, for the caller to forward.
    fn stamp(&mut self, make: impl FnOnce(u64) -> Option<String>) -> Option<Utf8Bytes> {
        let text = make(self.seq + 1)?;
        self.seq += 1;
        let frame: Utf8Bytes = text.into();
        self.keep(frame.clone());
        Some(frame)
    }

    /// One batch from the engine: every message stamped and kept, then forwarded as one
    /// write. `false` once the batch closed the session.
    fn on_batch(&mut self, batch: Outs) -> bool {
        let mut frames = Vec::with_capacity(batch.len());
        let mut open = true;
        let mut asked = None;
        for o in batch {
            match o {
                Out::Answered(at) => asked = Some(at),
                Out::Close { code, message } => {
                    let token = self.token();
                    frames.extend(self.stamp(|seq| protocol::render(seq, &Out::Close { code, message }, &token)));
                    let (close_code, reason) = if code == "quit" || code == "shutdown" { (1000, code) } else { (1008, code) };
                    if code == "quit" {
                        // A quit ends what the session's tokens could do: no resume from them.
                        self.revoked.void(&self.name, crate::time::unix_secs());
                        self.token_cache = None;
                    }
                    self.deliver(std::mem::take(&mut frames), asked);
                    self.close(close_code, reason);
                    open = false;
                    break;
                }
                Out::Colour(level) => {
                    if let Some(s) = self.screen.as_mut() {
                        s.colour = level.unwrap_or(2);
                    }
                }
                Out::Event { kind, text, from, re } if self.screen.is_some() => {
                    let screen = self.screen.unwrap_or(Screen { cols: 0, colour: 2 });
                    frames.extend(self.stamp(|seq| Some(screen.event_frame(seq, kind, &text, from.as_deref(), re.as_ref()))));
                }
                Out::Event { kind, text, from, re: None } => frames.push(self.stamp_event(kind, &text, from.as_ref())),
                o => {
                    let token = if matches!(o, Out::State { .. }) { self.token() } else { String::new() };
                    frames.extend(self.stamp(|seq| protocol::render(seq, &o, &token)));
                }
            }
        }
        self.deliver(frames, asked);
        open
    }

    /// Stamps and buffers an `event` without `re`: a broadcast's is made from the tail
    /// its first recipient on this thread rendered, and the ring keeps that tail
    /// (`shared_events`).
    fn stamp_event(&mut self, kind: crate::game::EventKind, text: &Arc<str>, from: Option<&Arc<str>>) -> Utf8Bytes {
        let seq = self.seq + 1;
        let (frame, kept) = match shared_events::tail_for(kind, text, from) {
            Render::Whole => {
                let f: Utf8Bytes = protocol::event_frame(seq, kind, text, from.map(|f| &**f), None).into();
                (f.clone(), Kept::Whole(f))
            }
            Render::First(tail) => {
                let f: Utf8Bytes = protocol::event_frame_from_tail(seq, &tail).into();
                (f.clone(), Kept::Whole(f))
            }
            Render::Again(tail) => (protocol::event_frame_from_tail(seq, &tail).into(), Kept::Event(tail)),
        };
        self.seq = seq;
        self.keep(kept);
        frame
    }

    /// Sends a frame whose content is stale once missed (a HUD): the socket gets it
    /// whole, the replay ring keeps `stub` under the same `seq`, so a resume has no gap
    /// and the ring holds no stale HUDs.
    fn emit_ephemeral(&mut self, make: impl FnOnce(u64) -> String, stub: impl FnOnce(u64) -> String) {
        self.seq += 1;
        let frame: Utf8Bytes = make(self.seq).into();
        self.keep(Utf8Bytes::from(stub(self.seq)));
        self.deliver(vec![frame], None);
    }

    /// Keeps a frame for replay, within the ring's limits.
    fn keep(&mut self, frame: impl Into<Kept>) {
        let c = self.ring.push(self.seq, frame);
        self.count(c.held_delta, c.frames_delta);
        if c.evicted > 0 {
            self.metrics.replay_evicted.fetch_add(c.evicted as u64, Relaxed);
        }
    }

    /// Every ring's memory and frames, in the server's gauges.
    fn count(&self, held: isize, frames: isize) {
        let add = |a: &std::sync::atomic::AtomicU64, d: isize| {
            if d >= 0 {
                a.fetch_add(d as u64, Relaxed);
            } else {
                a.fetch_sub(d.unsigned_abs() as u64, Relaxed);
            }
        };
        add(&self.metrics.replay_bytes, held);
        add(&self.metrics.replay_frames, frames);
    }

    /// Writes a step's frames to the socket as one batch; `asked`, when they answer a
    /// command (the reply's time through the server is observed once they are out).
    fn deliver(&mut self, frames: Vec<Utf8Bytes>, asked: Option<std::time::Instant>) {
        if frames.is_empty() {
            return;
        }
        let Some(sock) = &self.sock else { return };
        match sock.send(frames, asked) {
            Sent::Out => {}
            // Closed or failed: its reader's `Detach` follows.
            Sent::Gone => {}
            Sent::Full => self.slow_consumer(),
        }
    }

    /// Closes the socket after what was sent before it.
    fn close(&mut self, code: u16, reason: &str) {
        if let Some(sock) = &self.sock {
            sock.close(Some(code), reason);
        }
    }

    /// Whether `sock` is the socket attached.
    fn attached(&self, sock: &Arc<Outlet>) -> bool {
        self.sock.as_ref().is_some_and(|s| Arc::ptr_eq(s, sock))
    }

    /// A resume took the link over from `old` while it was still attached: it is told
    /// so and closed, as a second login's old connection is (protocol §9). The notice
    /// is numbered after the last message `old` could have had; it is not kept for
    /// replay, since the socket resuming has the link's numbering from there on.
    fn take_over(&mut self, old: &Arc<Outlet>) {
        let text =
            protocol::error_frame(self.seq + 1, "session_taken_over", "this session was resumed from another connection", None, None);
        let _ = old.send([Utf8Bytes::from(text)], None);
        old.close(Some(1008), "session_taken_over");
    }

    /// The socket stopped reading: cut it off with `slow_consumer`; the link lives on.
    fn slow_consumer(&mut self) {
        let Some(sock) = self.sock.clone() else {
            return;
        };
        self.seq += 1;
        let text = protocol::error_frame(self.seq, "slow_consumer", "you stopped reading; resume to catch up", None, None);
        let frame: Utf8Bytes = text.into();
        self.keep(frame.clone());
        sock.cut_off(frame);
        self.metrics.slow_consumer_link.fetch_add(1, Relaxed);
        // At once if the engine's inbox has room; else when the socket's reader ends.
        self.engine_told = self.engine.tx.try_send(EngineMsg::Detach { char_id: self.char_id, link_id: self.link_id }).is_ok();
        tracing::info!(name = %self.name, "slow consumer disconnected");
    }

    async fn run(mut self, mut out_rx: mpsc::Receiver<Outs>, mut ctl_rx: mpsc::Receiver<LinkCtl>, bind: oneshot::Receiver<CharId>) {
        match bind.await {
            Ok(id) => self.char_id = id,
            Err(_) => return,
        }
        let refresh = tokio::time::sleep(self.limits.token_refresh_after);
        tokio::pin!(refresh);
        let mut refreshed = false;
        loop {
            tokio::select! {
                out = out_rx.recv() => match out {
                    None => break,
                    Some(batch) => {
                        if !self.on_batch(batch) {
                            break;
                        }
                    }
                },
                ctl = ctl_rx.recv() => match ctl {
                    None => {}
                    // Said on a socket taken over since: for nobody.
                    Some(LinkCtl::Reply { from, .. } | LinkCtl::Error { from, .. }) if !self.attached(&from) => {}
                    Some(LinkCtl::Reply { kind: "hud", data, re, .. }) => {
                        let stub = serde_json::json!({"stale": true, "format": data["format"], "budget": data["budget"]});
                        self.emit_ephemeral(|seq| protocol::reply_frame(seq, "hud", data, re.as_ref()), |seq| protocol::reply_frame(seq, "hud", stub, re.as_ref()));
                    }
                    Some(LinkCtl::Reply { kind, data, re, .. }) => {
                        self.emit(|seq| Some(protocol::reply_frame(seq, kind, data, re.as_ref())));
                    }
                    Some(LinkCtl::Error { code, message, retry_after_ms, re, .. }) => {
                        self.emit(|seq| Some(protocol::error_frame(seq, code, &message, retry_after_ms, re.as_ref())));
                    }
                    Some(LinkCtl::Close { code, reason, from }) => {
                        if self.attached(&from) {
                            self.close(code, &reason);
                        } else {
                            from.close(Some(code), &reason);
                        }
                    }
                    Some(LinkCtl::Detach(gone)) => {
                        if self.attached(&gone) {
                            self.sock = None;
                            if !std::mem::take(&mut self.engine_told) {
                                let _ = self.engine.tx.send(EngineMsg::Detach { char_id: self.char_id, link_id: self.link_id }).await;
                            }
                        }
                        gone.close(None, "");
                    }
                    Some(LinkCtl::Display { display, from }) if self.attached(&from) => {
                        let colour = self.screen.map_or(2, |s| s.colour);
                        self.screen = Some(Screen { colour, ..Screen::new(&display) });
                    }
                    Some(LinkCtl::Display { .. }) => {}
                    Some(LinkCtl::Attach { sock, last_seq, reply }) => {
                        // A `last_seq` past this link's own was never sent by it (a
                        // takeover started the link afresh since): not filled.
                        let filled = last_seq == self.seq || (last_seq < self.seq && self.ring.first_seq().is_some_and(|s| s <= last_seq + 1));
                        if let Some(old) = self.sock.take().filter(|old| !Arc::ptr_eq(old, &sock)) {
                            self.take_over(&old);
                        }
                        self.sock = Some(sock);
                        self.engine_told = false;
                        if filled {
                            let frames = self.ring.since(last_seq);
                            self.deliver(frames, None);
                        }
                        let _ = reply.send(filled);
                        let _ = self.engine.tx.send(EngineMsg::Reattach { char_id: self.char_id, link_id: self.link_id, resync: !filled }).await;
                    }
                },
                _ = &mut refresh, if !refreshed => {
                    refreshed = true;
                    self.token_cache = None;
                    let token = self.token();
                    self.emit(|seq| Some(protocol::token_refresh_frame(seq, &token)));
                }
            }
        }
        self.hub.remove_if(&self.name, self.link_id);
        self.count(-(self.ring.held() as isize), -(self.ring.frames() as isize));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::EventKind;
    use crate::metrics::Metrics;

    /// A link on a real loopback socket, bound to character 42, and the engine's inbox.
    async fn link() -> (Arc<Outlet>, mpsc::Sender<LinkCtl>, mpsc::Sender<Outs>, mpsc::Receiver<EngineMsg>, tokio::net::TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (client, accepted) = tokio::join!(tokio::net::TcpStream::connect(listener.local_addr().unwrap()), listener.accept());
        let (read, write) = accepted.unwrap().0.into_split();
        let (_tap, wire) = super::super::ws_wire::pair(read);
        let metrics = Arc::new(Metrics::default());
        let sock = Outlet::new(write, wire, 16, metrics.clone());
        let (engine_tx, engine_rx) = mpsc::channel(16);
        let engine = EngineHandle { tx: engine_tx, wakes: Default::default() };
        let (ctl, out, bind) = LinkTask::spawn(NewLink {
            name: "brenda".into(),
            link_id: 7,
            seq_start: 0,
            sock: sock.clone(),
            token_key: TokenKey([1; 32]),
            revoked: Default::default(),
            limits: LinkLimits::default(),
            engine,
            hub: Arc::new(Hub::default()),
            metrics,
            display: None,
        });
        bind.send(42).unwrap();
        (sock, ctl, out, engine_rx, client.unwrap())
    }

    fn chatter() -> Outs {
        vec![Out::Event { kind: EventKind::Say, text: "Bannor says, 'busy here'".into(), from: Some("Bannor".into()), re: None }]
    }

    /// The client's close was echoed (the socket is closed) and the room's chatter found
    /// it gone before its reader's `Detach` arrived: the engine is still told, so the
    /// character goes link-dead. (The link used to let go of a socket it found gone, and
    /// then took the `Detach` for another socket's: the character stayed in the world.)
    #[tokio::test]
    async fn a_socket_found_gone_is_still_detached_in_the_engine() {
        let (sock, ctl, out, mut engine_rx, _client) = link().await;
        sock.close(Some(1000), "bye");
        out.send(chatter()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctl.send(LinkCtl::Detach(sock.clone())).await.unwrap();
        let msg = tokio::time::timeout(Duration::from_secs(5), engine_rx.recv()).await.expect("the engine hears of it").unwrap();
        assert!(matches!(msg, EngineMsg::Detach { char_id: 42, link_id: 7 }), "expected the detach");
    }

    /// A socket the link no longer has (a resume replaced it) detaches nothing.
    #[tokio::test]
    async fn a_replaced_sockets_detach_is_not_the_links() {
        let (old, ctl, _out, mut engine_rx, _client) = link().await;
        let (new, _ctl2, _out2, _engine_rx2, _client2) = link().await;
        let (tx, rx) = oneshot::channel();
        ctl.send(LinkCtl::Attach { sock: new.clone(), last_seq: 0, reply: tx }).await.unwrap();
        assert!(rx.await.unwrap(), "nothing was missed");
        assert!(matches!(engine_rx.recv().await, Some(EngineMsg::Reattach { .. })));
        ctl.send(LinkCtl::Detach(old.clone())).await.unwrap();
        assert!(
            tokio::time::timeout(Duration::from_millis(300), engine_rx.recv()).await.is_err(),
            "no detach for a socket the link let go"
        );
        assert_eq!(new.send(vec!["still attached".into()], None), Sent::Out);
    }

    /// A resume takes the link over from a socket still open: that socket is closed, and
    /// what its session still says (an error, a close) goes nowhere near the new one.
    #[tokio::test]
    async fn a_taken_over_socket_s_close_and_errors_are_not_the_new_one_s() {
        let (old, ctl, _out, mut engine_rx, _client) = link().await;
        let (new, _ctl2, _out2, _engine_rx2, _client2) = link().await;
        let (tx, rx) = oneshot::channel();
        ctl.send(LinkCtl::Attach { sock: new.clone(), last_seq: 0, reply: tx }).await.unwrap();
        assert!(rx.await.unwrap());
        assert!(matches!(engine_rx.recv().await, Some(EngineMsg::Reattach { .. })));
        assert!(old.closing(), "the old socket is closed at the takeover");
        let error = LinkCtl::Error { code: "frame_too_large", message: "big".into(), retry_after_ms: None, re: None, from: old.clone() };
        ctl.send(error).await.unwrap();
        ctl.send(LinkCtl::Close { code: 1009, reason: "frame_too_large".into(), from: old.clone() }).await.unwrap();
        // The link has handled both once it answers a later request.
        let (tx, rx) = oneshot::channel();
        ctl.send(LinkCtl::Attach { sock: new.clone(), last_seq: 1, reply: tx }).await.unwrap();
        rx.await.unwrap();
        assert!(!new.closing(), "the resumed socket is still open");
        assert_eq!(new.send(vec!["still attached".into()], None), Sent::Out);
    }
}

//! One WebSocket connection: reads frames, enforces the protocol's limits, logs the
//! agent in (or resumes it), and forwards commands to the engine. Outbound frames are
//! written by whoever speaks (the link, once logged in) through the connection's
//! [`Outlet`], which never waits on the socket: a client that stops reading never
//! stalls anything but itself.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::link::{LinkCtl, LinkHandle};
use super::outlet::{Outlet, Sent};
use super::telnet::MAX_LINE;
use super::ws_wire::{self, Tap};
use crate::auth::limits::{ConnPermit, LoginDenied, TokenBucket};
use crate::game::EngineMsg;
use crate::net::{login::LoginOutcome, shared::Shared};
use crate::protocol::{self, ClientMsg, Inbound, LoginData, MAX_FRAME};

/// What the client sent before the upgrade was answered, then the socket.
type WsRead = tokio::io::Chain<std::io::Cursor<bytes::Bytes>, tokio::net::tcp::OwnedReadHalf>;
/// The read side: tungstenite parses the client's frames over a tap (`ws_wire`).
type Ws = WebSocketStream<Tap<WsRead>>;

/// Batches a socket may leave unwritten before it is cut off as a slow consumer.
pub const OUT_QUEUE: usize = 1024;
const PING_EVERY: Duration = Duration::from_secs(30);
const SILENT_LIMIT: Duration = Duration::from_secs(90);

/// The connection's state machine.
struct Session {
    peer: SocketAddr,
    shared: Arc<Shared>,
    /// The socket's write side (the link's too, once logged in: it cuts off a slow consumer).
    outlet: Arc<Outlet>,
    /// seq counter before login (after it, the link stamps).
    pre_seq: u64,
    link: Option<LinkHandle>,
    bucket: TokenBucket,
    creating: Option<super::telnet_login::Creation>,
    pending_login: Option<Box<LoginData>>,
    /// The heartbeat HUD pushes, while the agent asked for them.
    heartbeat: Option<tokio::task::AbortHandle>,
    /// The HUD's budget when a request names none (the login `tier`'s).
    hud_budget: usize,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(h) = self.heartbeat.take() {
            h.abort();
        }
    }
}

impl Session {
    /// A command's token from the rate limiter, or how long until one is there. While
    /// the engine holds input back, bursts are the server's own doing (its sockets went
    /// unread): nobody is refused for them.
    fn take_token(&mut self) -> Result<(), u64> {
        let held = self.shared.metrics.input_held.load(std::sync::atomic::Ordering::Relaxed);
        self.bucket.take(Instant::now()).or_else(|ms| if held { Ok(()) } else { Err(ms) })
    }

    async fn send_error(&mut self, code: &'static str, message: impl Into<String>, retry: Option<u64>, re: Option<Arc<str>>) {
        let message = message.into();
        if let Some(l) = &self.link {
            let _ = l.ctl.send(LinkCtl::Error { code, message, retry_after_ms: retry, re, from: self.outlet.clone() }).await;
        } else {
            self.pre_seq += 1;
            let f = protocol::error_frame(self.pre_seq, code, &message, retry, re.as_ref());
            self.send_pre_frame(f);
        }
    }

    fn send_pre(&mut self, text: String) {
        self.pre_seq += 1;
        self.send_pre_frame(text);
    }

    /// A frame before login (its `seq` already counted): a socket too far behind even for
    /// these is closed.
    fn send_pre_frame(&mut self, text: String) {
        if self.outlet.send([text.into()], None) == Sent::Full {
            self.outlet.close(Some(u16::from(CloseCode::Policy)), "slow_consumer");
        }
    }

    /// Closes the socket after what was sent before: once logged in, errors travel
    /// through the link, so the close must too or it overtakes them.
    async fn close(&mut self, code: u16, reason: &str) {
        if let Some(l) = &self.link {
            if l.ctl.send(LinkCtl::Close { code, reason: reason.to_string(), from: self.outlet.clone() }).await.is_ok() {
                return;
            }
        }
        self.outlet.close(Some(code), reason);
    }

    /// Handles one text frame; `false` ends the connection.
    async fn on_text(&mut self, text: &str) -> bool {
        // Closed by the link (taken over by a resume, cut off, quit): what the client
        // still sends is for nobody.
        if self.link.is_some() && self.outlet.closing() {
            return false;
        }
        if text.len() > MAX_FRAME {
            self.send_error("frame_too_large", format!("frames are limited to {MAX_FRAME} bytes"), None, None).await;
            self.close(1009, "frame_too_large").await;
            return false;
        }
        let Inbound { msg, id } = match protocol::parse_client(text) {
            Ok(m) => m,
            Err((e, id)) => {
                self.send_error(e.code, e.message, None, id).await;
                return true;
            }
        };
        let add = matches!(msg, ClientMsg::Subscribe(_));
        match msg {
            ClientMsg::Login(data) => return self.on_login(data, id).await,
            ClientMsg::CharInput(choice) => {
                if self.creating.is_none() {
                    self.send_error("bad_request", "char_input outside character creation", None, id).await;
                    return true;
                }
                return self.on_char_input(choice, id).await;
            }
            _ if self.link.is_none() => {
                self.send_error("not_authenticated", "log in first", None, id).await;
            }
            ClientMsg::Command(c) => {
                let link = self.link.clone().unwrap();
                if let Err(ms) = self.take_token() {
                    self.send_error("rate_limited", "rate limit exceeded — slow down", Some(ms), id).await;
                    let _ = self
                        .shared
                        .engine
                        .tx
                        .send(EngineMsg::RateLimited { char_id: link.char_id, link_id: link.link_id, command: c.verb })
                        .await;
                    return true;
                }
                // A line is as long as a telnet line may be; what is cut is said, as
                // telnet says it (a `say` of 2,000 characters was clipped unsaid).
                let mut line = c.line;
                if line.len() > MAX_LINE {
                    line.truncate(line.floor_char_boundary(MAX_LINE));
                    let text = format!("Line too long (over {MAX_LINE} bytes); the rest was dropped.");
                    let _ = self.shared.engine.tx.send(EngineMsg::Say { char_id: link.char_id, text }).await;
                }
                let sent = Instant::now();
                let _ = self
                    .shared
                    .engine
                    .tx
                    .send(EngineMsg::Command { char_id: link.char_id, link_id: link.link_id, line, id, received: sent, client: c.client })
                    .await;
                // A full inbox (the engine holding input back) kept this socket unread.
                self.bucket.credit(sent.elapsed());
            }
            ClientMsg::Display(display) => {
                let link = self.link.clone().unwrap();
                let _ = link.ctl.send(super::link::LinkCtl::Display { display, from: self.outlet.clone() }).await;
            }
            ClientMsg::Subscribe(names) | ClientMsg::Unsubscribe(names) if names.len() > 64 => {
                self.send_error("bad_request", "too many variable names", None, id).await;
            }
            ClientMsg::Subscribe(names) | ClientMsg::Unsubscribe(names) => {
                let link = self.link.clone().unwrap();
                let _ = self
                    .shared
                    .engine
                    .tx
                    .send(EngineMsg::Subscribe { char_id: link.char_id, link_id: link.link_id, names, add, re: id })
                    .await;
            }
            ClientMsg::Actions(batch) => {
                let link = self.link.clone().unwrap();
                if let Err(ms) = self.take_token() {
                    self.send_error("rate_limited", "rate limit exceeded — slow down", Some(ms), id).await;
                    return true;
                }
                super::actions::submit(&self.shared, link.char_id, link.link_id, &link.name, batch, id).await;
            }
            ClientMsg::Hud(data) => {
                // A HUD is built off the engine but asks it for the agent's view: it
                // counts against the same rate as commands (60,000 stalled a player).
                if let Err(ms) = self.take_token() {
                    self.send_error("rate_limited", "rate limit exceeded — slow down", Some(ms), id).await;
                    return true;
                }
                let req = match protocol::hud_request(data, self.hud_budget) {
                    Ok(r) => r,
                    Err(e) => {
                        self.send_error(e.code, e.message, None, id).await;
                        return true;
                    }
                };
                let link = self.link.clone().unwrap();
                match req.heartbeat {
                    Some(true) => {
                        if let Some(h) = self.heartbeat.take() {
                            h.abort();
                        }
                        self.heartbeat = Some(super::hud::spawn_heartbeat(self.shared.clone(), link.clone(), req.clone()));
                    }
                    Some(false) => {
                        if let Some(h) = self.heartbeat.take() {
                            h.abort();
                        }
                    }
                    None => {}
                }
                // Answered now (a heartbeat request too), without holding up this socket.
                let shared = self.shared.clone();
                let tasks = shared.tasks.clone();
                tasks.spawn(async move {
                    super::hud::serve(&shared, &link, &req, id, false).await;
                });
            }
        }
        true
    }

    async fn on_login(&mut self, data: Box<LoginData>, id: Option<Arc<str>>) -> bool {
        if self.link.is_some() || self.creating.is_some() {
            self.send_error("bad_request", "already logged in", None, id).await;
            return true;
        }
        // The gate is against guessing: a valid session token is proof of an earlier login
        // (resumes after a network blip, resident agents starting together on loopback).
        let proven = data.resume.as_ref().is_some_and(|r| self.shared.verify_token(&r.token, crate::time::unix_secs()).is_ok());
        let target = super::login::login_target(&data);
        match if proven { Ok(()) } else { self.shared.login_gate(self.peer.ip(), &target) } {
            Ok(()) => {}
            Err(LoginDenied::RateLimited { retry_after_ms }) => {
                self.send_error("rate_limited", "too many logins from your address — slow down", Some(retry_after_ms), id).await;
                return true;
            }
            Err(LoginDenied::LockedOut { retry_after_ms }) => {
                self.send_error(
                    "locked_out",
                    "too many failed logins (from your address, or for this character)",
                    Some(retry_after_ms),
                    id,
                )
                .await;
                self.close(1008, "locked_out").await;
                return false;
            }
        }
        // Interactive creation for people: new_char with neither class nor race.
        if data.new_char == Some(true)
            && data.class.is_none()
            && data.race.is_none()
            && !data.wants_agent()
            && !data.secret().is_some_and(|s| s.starts_with("dp_"))
        {
            return self.begin_creation(data, id).await;
        }
        let outcome = self.shared.login_json(&data, self.peer.ip(), self.outlet.clone(), self.pre_seq).await;
        self.hud_budget = crate::hud::budget::for_tier(data.tier.as_deref());
        self.finish_login(outcome, id).await
    }

    async fn finish_login(&mut self, outcome: LoginOutcome, id: Option<Arc<str>>) -> bool {
        match outcome {
            LoginOutcome::In(link) => {
                self.link = Some(link);
                true
            }
            LoginOutcome::Refused { code, message, close, retry_after_ms } => {
                self.send_error(code, message, retry_after_ms, id).await;
                if close {
                    self.close(1008, code).await;
                    return false;
                }
                true
            }
        }
    }

    async fn begin_creation(&mut self, data: Box<LoginData>, id: Option<Arc<str>>) -> bool {
        let name = data.player_name.clone().unwrap_or_default();
        if let Err(m) = crate::auth::names::check(&name) {
            self.send_error("invalid_name", m, None, id).await;
            return true;
        }
        if data.secret().is_none() {
            self.send_error("bad_request", "password is required", None, id).await;
            return true;
        }
        match self.shared.accounts.exists(&name).await {
            Ok(true) => {
                self.send_error("name_taken", "that name is taken", None, id).await;
                return true;
            }
            Ok(false) => {}
            Err(e) => {
                self.send_error(e.code(), e.message(), None, id).await;
                return true;
            }
        }
        let c = super::telnet_login::Creation::new();
        let (stage, prompt, options, stats) = c.prompt_json();
        self.creating = Some(c);
        self.pending_login = Some(data);
        let f = protocol::char_create_frame(self.pre_seq + 1, stage, &prompt, options, stats, id.as_ref());
        self.send_pre(f);
        true
    }

    async fn on_char_input(&mut self, choice: serde_json::Value, id: Option<Arc<str>>) -> bool {
        let choice = match choice {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        let c = self.creating.as_mut().unwrap();
        let explain = c.answer(&choice);
        if !c.done() {
            let (stage, prompt, options, stats) = c.prompt_json();
            let prompt = match explain {
                Some(e) => format!("{e} {prompt}"),
                None => prompt,
            };
            let f = protocol::char_create_frame(self.pre_seq + 1, stage, &prompt, options, stats, id.as_ref());
            self.send_pre(f);
            return true;
        }
        let c = self.creating.take().unwrap();
        let data = self.pending_login.take().unwrap();
        let outcome = self.shared.create_and_enter_json(&data, &c, self.outlet.clone(), self.pre_seq).await;
        self.finish_login(outcome, id).await
    }
}

pub async fn run(io: TokioIo<Upgraded>, cfg: WebSocketConfig, peer: SocketAddr, shared: Arc<Shared>, permit: Arc<Option<ConnPermit>>) {
    // The upgraded connection is the listener's TCP stream (`http::serve`): taken back
    // and split into owned halves, the reader and the writer never share a lock.
    let parts = match io.into_inner().downcast::<TokioIo<tokio::net::TcpStream>>() {
        Ok(parts) => parts,
        Err(_) => {
            tracing::error!(%peer, "websocket upgrade is not over a TCP stream; closing");
            return;
        }
    };
    let (read, write) = parts.io.into_inner().into_split();
    let read = tokio::io::AsyncReadExt::chain(std::io::Cursor::new(parts.read_buf), read);
    let (tap, wire) = ws_wire::pair(read);
    let mut stream: Ws = WebSocketStream::from_raw_socket(tap, Role::Server, Some(cfg)).await;
    let outlet = Outlet::new(write, wire, shared.edge.out_queue, shared.metrics.clone());
    let mut flusher = tokio::spawn(outlet.clone().flusher());
    let mut s = Session {
        peer,
        shared: shared.clone(),
        outlet: outlet.clone(),
        pre_seq: 0,
        link: None,
        bucket: TokenBucket::new(shared.edge.cmd_rate, shared.edge.cmd_burst, Instant::now()),
        creating: None,
        pending_login: None,
        heartbeat: None,
        hud_budget: crate::hud::budget::DEFAULT_BUDGET,
    };
    if permit.is_none() {
        s.send_error("too_many_connections", "the server is at its connection limit; try later", None, None).await;
        s.close(1013, "too_many_connections").await;
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut flusher).await;
        return;
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    let mut last_heard = Instant::now();
    let mut flushed = false;
    // Before login a socket has a deadline and a budget of frames: it has proven
    // nothing, and what it costs must stay small (SECURITY.md).
    let limits = shared.edge.sockets;
    let opened = tokio::time::Instant::now();
    let login_by = tokio::time::sleep(limits.login_within);
    tokio::pin!(login_by);
    let mut pre_login_frames = 0u32;
    loop {
        tokio::select! {
            // The socket was closed (by the link, a cut-off, or the client's close) or failed.
            _ = &mut flusher => { flushed = true; break }
            _ = &mut login_by, if s.link.is_none() => {
                // A person walking through creation has longer.
                let creating_until = opened + limits.create_within;
                if s.creating.is_some() && tokio::time::Instant::now() < creating_until {
                    login_by.as_mut().reset(creating_until);
                    continue;
                }
                let msg = format!("log in within {} s of connecting", limits.login_within.as_secs());
                s.send_error("login_timeout", msg, None, None).await;
                s.close(1008, "login_timeout").await;
                break;
            }
            _ = ping.tick() => {
                if last_heard.elapsed() > SILENT_LIMIT {
                    break;
                }
                outlet.ping();
            }
            msg = stream.next() => {
                last_heard = Instant::now();
                if s.link.is_none() && matches!(msg, Some(Ok(Message::Text(_) | Message::Binary(_)))) {
                    pre_login_frames += 1;
                    if pre_login_frames > limits.pre_login_frames {
                        let m = format!("at most {} messages before a login", limits.pre_login_frames);
                        s.send_error("login_budget", m, None, None).await;
                        s.close(1008, "login_budget").await;
                        break;
                    }
                }
                let keep = match msg {
                    Some(Ok(Message::Text(t))) => s.on_text(t.as_str()).await,
                    Some(Ok(Message::Binary(b))) => {
                        if b.len() > MAX_FRAME {
                            s.send_error("frame_too_large", format!("frames are limited to {MAX_FRAME} bytes"), None, None).await;
                            s.close(1009, "frame_too_large").await;
                            false
                        } else {
                            s.send_error("bad_request", "frames must be text (JSON)", None, None).await;
                            true
                        }
                    }
                    Some(Ok(Message::Close(_))) => {
                        // tungstenite's echo of the close goes out through the tap;
                        // the flusher sends it after what is already queued, and nothing after.
                        let _ = futures_util::SinkExt::flush(&mut stream).await;
                        false
                    }
                    None => false,
                    Some(Ok(_)) => true,
                    Some(Err(tokio_tungstenite::tungstenite::Error::Capacity(_))) => {
                        s.send_error("frame_too_large", format!("frames are limited to {MAX_FRAME} bytes"), None, None).await;
                        s.close(1009, "frame_too_large").await;
                        false
                    }
                    Some(Err(_)) => false,
                };
                if !keep {
                    break;
                }
            }
        }
    }
    // Close after what is queued (a closing error frame): once logged in, that is the
    // link's to do, since errors travel through it and the close must not overtake them.
    match s.link.take() {
        Some(l) => {
            if l.ctl.send(LinkCtl::Detach(outlet.clone())).await.is_err() {
                outlet.close(None, "");
                let _ = shared.engine.tx.send(EngineMsg::Detach { char_id: l.char_id, link_id: l.link_id }).await;
            }
        }
        None => outlet.close(None, ""),
    }
    drop(s);
    // Give the socket a moment to take it.
    if !flushed {
        let _ = tokio::time::timeout(Duration::from_secs(2), flusher).await;
    }
}

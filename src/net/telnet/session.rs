//! The human's telnet session: the login and creation dialogue, then play — the engine's
//! output as text (and, for MUD clients, GMCP/MSDP data), the player's lines as commands.
//! The MUD options are offered on connect and never waited for.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::conn::Conn;
use super::negotiate::{self, Answer, Feature};
use super::{TelnetEvent, TelnetParser, MAX_LINE};
use crate::auth::limits::{ConnPermit, LoginDenied, TokenBucket};
use crate::game::model::character::Link;
use crate::game::model::world::CharId;
use crate::game::{EngineMsg, Out, Outs};
use crate::net::shared::Shared;
use crate::net::telnet_login::Creation;
use crate::protocol::LoginData;

const BANNER: &str = include_str!("../../../data/banner.txt");
const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

enum Phase {
    Name,
    Password { name: String, tries: u32 },
    ConfirmName { name: String },
    NewPassword { name: String },
    ConfirmPassword { name: String, password: String },
    Creating { name: String, password: String, c: Creation },
    Playing { char_id: CharId, link_id: u64 },
}

pub async fn run(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>, permit: Option<ConnPermit>) {
    let (mut r, w) = stream.into_split();
    let mut conn = Conn::new(w, shared.clone(), peer);
    if permit.is_none() {
        conn.say("Sorry, the game is full right now. Try again later.\n").await;
        return;
    }
    // The MUD options are offered, never waited for.
    if !conn.write(&negotiate::offers()).await || !conn.say(BANNER).await || !conn.say("By what name do you wish to be known? ").await {
        return;
    }
    let mut parser = TelnetParser::default();
    let mut phase = Phase::Name;
    let (out_tx, mut out_rx) = mpsc::channel::<Outs>(1024);
    let mut buf = vec![0u8; 4096];
    let mut events = Vec::new();
    let login_deadline = tokio::time::Instant::now() + LOGIN_TIMEOUT;
    let mut bucket = TokenBucket::new(shared.edge.cmd_rate, shared.edge.cmd_burst * 2.0, Instant::now());
    // The engine computes variables for this session once GMCP or MSDP is on.
    let mut subscribed = false;
    'conn: loop {
        let playing = matches!(phase, Phase::Playing { .. });
        if let Phase::Playing { char_id, link_id } = phase {
            if conn.data.wants_vars() && !subscribed {
                subscribed = true;
                let names =
                    crate::game::send::vars::VAR_NAMES[..crate::game::send::vars::EVENTS_VAR].iter().map(|n| n.to_string()).collect();
                let _ = shared.engine.tx.send(EngineMsg::Subscribe { char_id, link_id, names, add: true, re: None }).await;
            }
        }
        tokio::select! {
            _ = tokio::time::sleep_until(login_deadline), if !playing => {
                conn.say("\nTimed out waiting for a login.\n").await;
                break;
            }
            out = out_rx.recv(), if playing => {
                let Some(batch) = out else { break };
                // What one engine step sent: one write.
                conn.hold();
                let mut open = true;
                let mut asked = None;
                for out in batch {
                    if let Out::Answered(at) = out {
                        asked = Some(at);
                    } else if !play_out(&mut conn, out).await {
                        open = false;
                        break;
                    }
                }
                if !conn.release().await || !open { break }
                if let Some(at) = asked {
                    shared.metrics.command_reply.observe_duration(at.elapsed());
                }
            }
            n = r.read(&mut buf) => {
                let n = match n { Ok(0) | Err(_) => break, Ok(n) => n };
                parser.feed(&buf[..n], &mut events);
                for ev in std::mem::take(&mut events) {
                    match ev {
                        TelnetEvent::Negotiate { verb, opt } if negotiate::handles(opt) => {
                            conn.mud.caps.telnet = true;
                            let answer = conn.mud.on_negotiate(verb, opt);
                            if !answer_mud(&mut conn, answer).await { break 'conn; }
                        }
                        TelnetEvent::Negotiate { verb, opt } => {
                            conn.mud.caps.telnet = true;
                            if let Some(reply) = conn.opts.reply(verb, opt) {
                                if !conn.write(&reply).await { break 'conn; }
                            }
                        }
                        TelnetEvent::Sub { opt, data } => {
                            conn.mud.caps.telnet = true;
                            let answer = conn.mud.on_sub(opt, &data);
                            if !answer_mud(&mut conn, answer).await { break 'conn; }
                        }
                        TelnetEvent::Line { bytes, truncated } => {
                            let line = match String::from_utf8(bytes) {
                                Ok(s) => s,
                                Err(_) => {
                                    let why = "That line was not valid UTF-8 text; it was ignored.";
                                    if let Phase::Playing { char_id, .. } = phase {
                                        // Through the engine, so the prompt follows as after any command.
                                        let _ = conn.shared.engine.tx.send(EngineMsg::Say { char_id, text: why.into() }).await;
                                    } else if !conn.say(&format!("{why}\n")).await {
                                        break 'conn;
                                    }
                                    continue;
                                }
                            };
                            if truncated && !conn.say(&format!("Line too long (over {MAX_LINE} bytes); the rest was dropped.\n")).await {
                                break 'conn;
                            }
                            let current = std::mem::replace(&mut phase, Phase::Name);
                            match step(&mut conn, current, line.trim(), &out_tx, &mut bucket).await {
                                Some(p) => phase = p,
                                None => break 'conn,
                            }
                        }
                    }
                }
            }
        }
    }
    if let Phase::Playing { char_id, link_id } = phase {
        let _ = shared.engine.tx.send(EngineMsg::Detach { char_id, link_id }).await;
    }
    conn.close().await;
}

/// One output of the engine while playing; false when the connection should end.
async fn play_out(conn: &mut Conn, out: Out) -> bool {
    match out {
        Out::Event { kind, text, from, .. } => {
            let plain = crate::game::send::colour::strip(&text);
            let data = conn.data.on_event(kind, &plain, from.as_deref());
            // A tell, a shout, a blow: coloured whole, as CircleMUD colours them.
            let line = match crate::game::send::colour::of_kind(kind) {
                Some((level, code)) => format!("{}\n", crate::game::send::colour::paint(level, code, &text)),
                None => format!("{text}\n"),
            };
            conn.write(&data).await && conn.say_fitted(&line).await
        }
        Out::Colour(choice) => {
            conn.colour_choice = choice;
            true
        }
        Out::Prompt(p) => conn.prompt(&format!("\n{p}")).await,
        Out::Vars { values, .. } => {
            let data = conn.data.on_vars(&values);
            conn.write(&data).await
        }
        Out::Error { message, .. } => conn.say(&format!("{message}\n")).await,
        Out::Close { message, .. } => {
            conn.say(&format!("{message}\n")).await;
            false
        }
        Out::State { .. } | Out::MemoryBootstrap { .. } | Out::MemorySummary(_) | Out::Reply { .. } | Out::Answered(_) => true,
    }
}

/// Carries out what a MUD-option negotiation asked; false when the socket is gone.
async fn answer_mud(conn: &mut Conn, answer: Answer) -> bool {
    match answer {
        Answer::Nothing => true,
        Answer::Bytes(b) => conn.write(&b).await,
        Answer::On(f) => switch(conn, f, true).await,
        Answer::Off(f) => switch(conn, f, false).await,
        Answer::Gmcp(data) => {
            let reply = conn.data.on_gmcp(&data);
            conn.write(&reply.bytes).await
        }
        Answer::Msdp(data) => {
            let reply = conn.data.on_msdp(&data);
            conn.write(&reply.bytes).await
        }
        Answer::Mssp => {
            let shared = conn.shared.clone();
            let players = shared.who().await.len();
            let port = conn.local_port();
            let vars = [
                ("NAME", "pawns".to_string()),
                ("PLAYERS", players.to_string()),
                ("UPTIME", (crate::time::unix_secs().saturating_sub(shared.started.elapsed().as_secs())).to_string()),
                ("CODEBASE", format!("pawns {}", env!("CARGO_PKG_VERSION"))),
                ("CRAWL DELAY", "-1".to_string()),
                ("PORT", port.to_string()),
                ("FAMILY", "DikuMUD".to_string()),
                ("GENRE", "Fantasy".to_string()),
                ("GAMEPLAY", "Hack and Slash".to_string()),
                ("STATUS", "Alpha".to_string()),
                ("ANSI", "1".to_string()),
                ("UTF-8", "1".to_string()),
                ("GMCP", "1".to_string()),
                ("MSDP", "1".to_string()),
                ("MSSP", "1".to_string()),
                ("MCCP", "1".to_string()),
                ("EOR", "1".to_string()),
                ("WEBSITE", format!("http://localhost:{port}/")),
            ];
            conn.write(&negotiate::mssp(&vars)).await
        }
    }
}

/// The client turned one of our options on or off.
async fn switch(conn: &mut Conn, f: Feature, on: bool) -> bool {
    match (f, on) {
        (Feature::Mccp2, true) => conn.start_compression().await,
        (Feature::Mccp2, false) => conn.end_compression().await,
        (Feature::Gmcp, _) => {
            conn.data.gmcp = on;
            true
        }
        (Feature::Msdp, _) => {
            conn.data.msdp = on;
            true
        }
    }
}

/// Advances the login dialogue (or plays a command); `None` closes the connection.
async fn step(conn: &mut Conn, phase: Phase, line: &str, out_tx: &mpsc::Sender<Outs>, bucket: &mut TokenBucket) -> Option<Phase> {
    let shared = conn.shared.clone();
    match phase {
        Phase::Playing { char_id, link_id } => {
            // While the engine holds input back, bursts are the server's own doing (its
            // sockets went unread): nobody is refused for them.
            let held = shared.metrics.input_held.load(std::sync::atomic::Ordering::Relaxed);
            if bucket.take(Instant::now()).is_err() && !held {
                conn.say("You are sending commands too fast (rate_limited); that one was dropped.\n").await;
                return Some(Phase::Playing { char_id, link_id });
            }
            if let Some(said) = crate::net::telnet_mind::handle(&shared, char_id, line).await {
                let _ = shared.engine.tx.send(EngineMsg::Say { char_id, text: said }).await;
                return Some(Phase::Playing { char_id, link_id });
            }
            let sent = Instant::now();
            let _ = shared
                .engine
                .tx
                .send(EngineMsg::Command { char_id, link_id, line: line.to_string(), id: None, received: sent, client: None })
                .await;
            // A full inbox (the engine holding input back) kept this socket unread.
            bucket.credit(sent.elapsed());
            Some(Phase::Playing { char_id, link_id })
        }
        Phase::Name => {
            if line.is_empty() {
                conn.say("By what name do you wish to be known? ").await;
                return Some(Phase::Name);
            }
            if let Err(m) = crate::auth::names::check(line) {
                conn.say(&format!("Invalid name (invalid_name): {m}.\nBy what name do you wish to be known? ")).await;
                return Some(Phase::Name);
            }
            let name = crate::auth::names::display(line);
            match shared.accounts.exists(&name).await {
                Ok(true) => {
                    conn.echo(false).await;
                    conn.say("Password: ").await;
                    Some(Phase::Password { name, tries: 0 })
                }
                Ok(false) => {
                    // New characters made at the prompt keep the classic letters-only rule.
                    if let Err(m) = crate::auth::names::check_classic(line) {
                        conn.say(&format!("Invalid name (invalid_name): {m}.\nBy what name do you wish to be known? ")).await;
                        return Some(Phase::Name);
                    }
                    conn.say(&format!("Did I get that right, {name} (Y/N)? ")).await;
                    Some(Phase::ConfirmName { name })
                }
                Err(_) => {
                    conn.say("The game cannot reach its records right now (internal). Try again later.\n").await;
                    None
                }
            }
        }
        Phase::ConfirmName { name } => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" => {
                conn.echo(false).await;
                conn.say(&format!("New character.\nGive me a password for {name}: ")).await;
                Some(Phase::NewPassword { name })
            }
            "n" | "no" => {
                conn.say("Okay, what IS it, then? ").await;
                Some(Phase::Name)
            }
            _ => {
                conn.say("Please type Yes or No: ").await;
                Some(Phase::ConfirmName { name })
            }
        },
        Phase::NewPassword { name } => {
            let chars = line.chars().count();
            if !(crate::auth::passwords::MIN_LEN..=64).contains(&chars) || line.eq_ignore_ascii_case(&name) {
                let msg = format!("\nIllegal password ({} to 64 characters, not your name).\nPassword: ", crate::auth::passwords::MIN_LEN);
                conn.say(&msg).await;
                return Some(Phase::NewPassword { name });
            }
            conn.say("\nPlease retype password: ").await;
            Some(Phase::ConfirmPassword { name, password: line.to_string() })
        }
        Phase::ConfirmPassword { name, password } => {
            if line != password {
                conn.say("\nPasswords don't match... start over.\nPassword: ").await;
                return Some(Phase::NewPassword { name });
            }
            conn.echo(true).await;
            let c = Creation::asking_hometown(shared.asks_hometown());
            conn.say(&format!("\n{}", c.prompt_text())).await;
            Some(Phase::Creating { name, password, c })
        }
        Phase::Creating { name, password, mut c } => {
            if let Some(why) = c.answer(line) {
                conn.say(&format!("{why}\n{}", c.prompt_text())).await;
                return Some(Phase::Creating { name, password, c });
            }
            if !c.done() {
                conn.say(&c.prompt_text()).await;
                return Some(Phase::Creating { name, password, c });
            }
            match shared.create_character(&name, Some(password), &c).await {
                Ok(authed) => {
                    // pawns's own world says where; a classic world says its own welcome.
                    if shared.family() == crate::worldfile::profile::Family::Circle {
                        conn.say(&format!("\nWelcome! Your adventure begins at {}.\n\n", shared.start_room.1)).await;
                    }
                    enter(conn, authed.record, out_tx).await
                }
                Err(e) => {
                    // Words for a person; the code is the JSON protocol's.
                    conn.say(&format!("Could not create that character: {}.\nBy what name do you wish to be known? ", e.message())).await;
                    Some(Phase::Name)
                }
            }
        }
        Phase::Password { name, tries } => {
            match shared.login_gate(conn.peer.ip(), &name.to_ascii_lowercase()) {
                Ok(()) => {}
                Err(LoginDenied::RateLimited { .. }) => {
                    conn.say("\nToo many attempts (rate_limited); wait a moment.\nPassword: ").await;
                    return Some(Phase::Password { name, tries });
                }
                Err(LoginDenied::LockedOut { retry_after_ms }) => {
                    conn.say(&format!(
                        "\nToo many failed logins, from your address or for this character. Try again in {} minutes.\n",
                        retry_after_ms.div_ceil(60_000)
                    ))
                    .await;
                    return None;
                }
            }
            let data = LoginData { player_name: Some(name.clone()), password: Some(line.to_string()), ..Default::default() };
            match shared.authenticate(&data, conn.peer.ip()).await {
                Ok(authed) => {
                    conn.echo(true).await;
                    conn.say("\n").await;
                    enter(conn, authed.record, out_tx).await
                }
                Err(r) => {
                    if r.locked_out {
                        conn.say("\nToo many failed logins from your address.\n").await;
                        return None;
                    }
                    if tries + 1 >= 3 {
                        conn.say("\nWrong password.\n").await;
                        return None;
                    }
                    conn.say("\nWrong password.\nPassword: ").await;
                    Some(Phase::Password { name, tries: tries + 1 })
                }
            }
        }
    }
}

async fn enter(conn: &mut Conn, record: pawns_storage::CharacterRecord, out_tx: &mpsc::Sender<Outs>) -> Option<Phase> {
    let link_id = conn.shared.next_link_id();
    let link = Link {
        id: link_id,
        tx: out_tx.clone(),
        json: false,
        client: std::sync::Arc::new(crate::game::model::character::ClientInfo {
            notice: None,
            harness: Some("telnet".into()),
            valence: true,
            ..Default::default()
        }),
    };
    let char_id = conn.shared.enter(record, link, None).await?;
    Some(Phase::Playing { char_id, link_id })
}

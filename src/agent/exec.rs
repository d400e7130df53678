//! `pawns agent exec "look"`: log in, send one command, print everything the server
//! answers to it (its feedback events, its errors, the room when it moved or looked),
//! then `quit`. The answer ends when the command's replies stop for a moment.

use std::io::Write;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::config::AgentConfig;
use super::conn::{self, Backoff, ConnEvent, Outbound};
use super::state::GameState;
use super::transcript::Transcript;
use super::AgentError;

/// How the command went.
#[derive(Debug, Default)]
pub struct ExecOutcome {
    pub lines: Vec<String>,
    /// The server answered with `error` (code, message).
    pub error: Option<(String, String)>,
    /// The character was still fighting, so it could not quit and stays link-dead.
    pub left_fighting: bool,
}

const QUIET: Duration = Duration::from_millis(400);
const ANSWER: Duration = Duration::from_secs(10);

pub async fn exec(cfg: &AgentConfig, command: &str, out: &mut (dyn Write + Send)) -> Result<ExecOutcome, AgentError> {
    let command = command.trim();
    if command.is_empty() {
        return Err(AgentError::Config("no command given (try: pawns agent exec \"look\")".into()));
    }
    if command.len() > 1000 || command.chars().any(|c| c.is_control()) {
        return Err(AgentError::Config("a command is one line of at most 1,000 characters".into()));
    }
    let login = cfg.login("exec")?;
    let stats = Default::default();
    let backoff = Backoff { breaker: 1, ..Backoff::default() };
    let (tx, mut rx) = conn::start(login, backoff, stats).await?;
    let mut t = Transcript::new(out);
    let mut state = GameState::default();
    let mut outcome = ExecOutcome::default();
    // The login's own messages come first; the command goes once they have settled.
    settle(&mut rx, &mut state).await?;
    let id = "exec";
    tx.send(Outbound::Command { command: command.to_string(), id: id.into(), meta: None })
        .await
        .map_err(|_| AgentError::Connect("the connection has stopped".into()))?;
    let sent = Instant::now();
    let mut last_reply: Option<Instant> = None;
    let mut printed_text = false;
    loop {
        let wait = match last_reply {
            Some(l) => QUIET.saturating_sub(l.elapsed()),
            None => ANSWER.saturating_sub(sent.elapsed()),
        };
        if wait.is_zero() {
            break;
        }
        let ev = match tokio::time::timeout(wait, rx.recv()).await {
            Err(_) => break,
            Ok(None) => break,
            Ok(Some(ev)) => ev,
        };
        match ev {
            ConnEvent::Msg(v) => {
                let a = state.apply(&v);
                if v["re"].as_str() != Some(id) {
                    continue;
                }
                last_reply = Some(Instant::now());
                for h in a.heard.iter().filter(|h| !h.text.trim().is_empty()) {
                    t.heard(h);
                    outcome.lines.push(h.text.clone());
                    printed_text = true;
                }
                if v["type"] == "state" && !printed_text {
                    t.room(&state);
                    outcome.lines.push(state.room_name.clone());
                }
                if let Some(e) = a.error {
                    t.line(&format!("error: {}: {}", e.0, e.1));
                    outcome.error = Some(e);
                }
            }
            ConnEvent::Closed { .. } => return Ok(outcome),
            ConnEvent::Fatal(e) => return Err(e),
            _ => {}
        }
    }
    if last_reply.is_none() {
        t.line("(no answer from the server within 10 s)");
    }
    // Leave: `quit` unless the command started a fight (then the game says no).
    if state.fighting {
        outcome.left_fighting = true;
        t.line("(still fighting: the character cannot quit and stays in the world, link-dead, until the fight ends)");
        let _ = tx.send(Outbound::Close).await;
        return Ok(outcome);
    }
    let _ = tx.send(Outbound::Command { command: "quit".into(), id: "quit".into(), meta: None }).await;
    let until = Instant::now() + Duration::from_secs(5);
    while let Ok(Some(ev)) = tokio::time::timeout(until.saturating_duration_since(Instant::now()), rx.recv()).await {
        match ev {
            ConnEvent::Closed { .. } | ConnEvent::Fatal(_) => return Ok(outcome),
            ConnEvent::Msg(v) => {
                state.apply(&v);
            }
            _ => {}
        }
    }
    let _ = tx.send(Outbound::Close).await;
    Ok(outcome)
}

/// Reads until the login's burst of messages has stopped for a moment.
async fn settle(rx: &mut mpsc::Receiver<ConnEvent>, state: &mut GameState) -> Result<(), AgentError> {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let wait = if state.ready { Duration::from_millis(150) } else { until.saturating_duration_since(Instant::now()) };
        match tokio::time::timeout(wait, rx.recv()).await {
            Err(_) => return Ok(()),
            Ok(None) => return Err(AgentError::Connect("the connection ended during login".into())),
            Ok(Some(ConnEvent::Msg(v))) => {
                state.apply(&v);
            }
            Ok(Some(ConnEvent::Fatal(e))) => return Err(e),
            Ok(Some(ConnEvent::Closed { why })) => return Err(AgentError::Connect(format!("the session ended during login: {why}"))),
            Ok(Some(_)) => {}
        }
    }
}

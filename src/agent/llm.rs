//! The decision model: an OpenAI-compatible `POST {endpoint}/v1/chat/completions`, with
//! the LLM's own key (the game key never leaves for the LLM), `model_fast` first and
//! `model_fallback` when it fails, times out, or answers something that is not a command.

use std::time::{Duration, Instant};

use std::sync::Arc;

use super::prompt::{parse_reply, Prompt, Reply};
use super::structured::{self, Form, Learned, Structured};
use crate::memory::chat::ChatClient;
pub use crate::memory::chat::Completion;

/// Why a model gave no decision, the form it was asked in, and what it said if anything.
type Failed = (String, &'static str, Option<String>);

#[derive(Debug, Clone)]
pub struct LlmClient {
    chat: ChatClient,
    models: Vec<String>,
    /// How the answer is asked for, and what `auto` learned of the endpoint.
    structured: Structured,
    learned: Arc<Learned>,
    /// The model-call journal to ask before the model (`with_journal`).
    journal: Option<Journal>,
}

/// Answers journaled by prompt (model, system, user), if any (`record::model_journal`).
#[derive(Clone)]
pub struct Journal(pub Arc<JournalFn>);

/// Model, system prompt, user message → the journaled call.
pub type JournalFn = dyn Fn(&str, &str, &str) -> Option<LlmCall> + Send + Sync;

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journal")
    }
}

/// A decision the model made.
#[derive(Debug, Clone)]
pub struct Decided {
    pub reply: Reply,
    pub model: String,
    pub latency: Duration,
    /// Prompt tokens (the endpoint's `usage` when it sends one; our own count otherwise).
    pub prompt_tokens: u64,
    /// Completion tokens (the endpoint's `usage`; 0 when it sends none).
    pub completion_tokens: u64,
    /// Models that failed before this one answered: (model, why).
    pub failed: Vec<(String, String)>,
    /// The form the answer was asked in (`json_schema`, `json_object`, `tool`, `text`).
    pub form: &'static str,
    /// Every call behind it — the failed ones, then the one that answered — for the
    /// record (sent with the command as `llm`).
    pub calls: Vec<LlmCall>,
}

/// A call as the record keeps it.
pub use pawns_storage::LlmCall;

/// The most prompt text (bytes) sent with a command: the protocol's frame is 16 KiB,
/// and the rest of the command, the answer and escapes must fit beside it.
pub const PROMPT_SENT: usize = 10_000;

/// `calls` fitted to a command's frame: the prompt of the call that answered, cut to
/// `PROMPT_SENT` (the system prompt's start, the user message's end — the state); the
/// failed ones asked the same and keep none.
pub fn fitted(calls: &[LlmCall]) -> Vec<LlmCall> {
    fitted_to(calls, PROMPT_SENT)
}

/// `fitted`, the answering call's prompt cut to `prompt_sent` bytes.
pub fn fitted_to(calls: &[LlmCall], prompt_sent: usize) -> Vec<LlmCall> {
    let last = calls.len().saturating_sub(1);
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut c = c.clone();
            if i != last {
                c.cut |= !c.system.is_empty() || !c.user.is_empty();
                c.system.clear();
                c.user.clear();
            } else if c.system.len() + c.user.len() > prompt_sent {
                let sys = c.system.len().min(prompt_sent * 2 / 5);
                let user = prompt_sent - sys;
                c.system.truncate(c.system.floor_char_boundary(sys));
                if c.user.len() > user {
                    let from = c.user.ceil_char_boundary(c.user.len() - user);
                    c.user = format!("…{}", &c.user[from..]);
                }
                c.cut = true;
            }
            c
        })
        .collect()
}

impl LlmClient {
    pub fn new(endpoint: &str, key: &str, fast: &str, fallback: &str, temperature: f32, timeout: Duration) -> LlmClient {
        let mut models = vec![fast.to_string()];
        if !fallback.is_empty() && fallback != fast {
            models.push(fallback.to_string());
        }
        models.retain(|m| !m.is_empty());
        LlmClient {
            chat: ChatClient::new(endpoint, key, temperature, timeout),
            models,
            structured: Structured::Off,
            learned: Arc::default(),
            journal: None,
        }
    }

    /// Asks for structured answers (`--structured`): the schema of `decide`'s choices.
    pub fn with_structured(mut self, mode: Structured) -> LlmClient {
        self.structured = mode;
        self
    }

    /// Asks `journal` first: a prompt it holds is answered from it (form `journal`, no
    /// tokens spent), as a branch of a run does with the parent's calls.
    pub fn with_journal(mut self, journal: Journal) -> LlmClient {
        self.journal = Some(journal);
        self
    }

    pub fn url(&self) -> &str {
        self.chat.url()
    }

    /// The endpoint, for a completion that is not a decision.
    pub fn chat(&self) -> &ChatClient {
        &self.chat
    }

    /// Asks each model in turn; the first usable answer wins. `choices` are the commands
    /// that make sense now (a structured answer picks one of them).
    pub async fn decide(&self, p: &Prompt, choices: &[String]) -> Result<Decided, Vec<(String, String)>> {
        let mut failed = Vec::new();
        let mut calls = Vec::new();
        for model in &self.models {
            let t0 = Instant::now();
            if let Some(d) = self.journaled(model, p, t0) {
                return Ok(d);
            }
            tracing::debug!(%model, prompt_tokens = p.tokens, url = %self.chat.url(), "asking the model");
            let asked = self.ask(model, p, choices).await;
            let mut call = LlmCall {
                model: model.clone(),
                system: p.system.clone(),
                user: p.user.clone(),
                latency_ms: t0.elapsed().as_secs_f64() * 1000.0,
                ..Default::default()
            };
            match asked {
                Ok((reply, prompt_tokens, completion_tokens, form, text)) => {
                    tracing::debug!(%model, ?reply, prompt_tokens, completion_tokens, form, elapsed = ?t0.elapsed(), "the model answered");
                    call.form = form.into();
                    call.answer = Some(text);
                    call.tokens_prompt = Some(prompt_tokens);
                    call.tokens_completion = Some(completion_tokens);
                    calls.push(call);
                    let d = Decided {
                        reply,
                        model: model.clone(),
                        latency: t0.elapsed(),
                        prompt_tokens,
                        completion_tokens,
                        failed,
                        form,
                        calls,
                    };
                    return Ok(d);
                }
                Err((why, form, text)) => {
                    tracing::warn!(%model, %why, "the model failed");
                    call.form = form.into();
                    call.answer = text;
                    call.error = Some(why.clone());
                    calls.push(call);
                    failed.push((model.clone(), why))
                }
            }
        }
        if self.models.is_empty() {
            failed.push((String::new(), "no model configured (set model_fast)".into()));
        }
        Err(failed)
    }

    /// The journal's answer to this prompt, when it holds one with a command in it.
    fn journaled(&self, model: &str, p: &Prompt, t0: Instant) -> Option<Decided> {
        let found = (self.journal.as_ref()?.0)(model, &p.system, &p.user)?;
        let text = found.answer?;
        let reply = parse_reply(&text)?;
        let call = LlmCall {
            model: model.to_string(),
            form: "journal".into(),
            system: p.system.clone(),
            user: p.user.clone(),
            answer: Some(text),
            latency_ms: t0.elapsed().as_secs_f64() * 1000.0,
            ..Default::default()
        };
        Some(Decided {
            reply,
            model: model.to_string(),
            latency: t0.elapsed(),
            prompt_tokens: 0,
            completion_tokens: 0,
            failed: Vec::new(),
            form: "journal",
            calls: vec![call],
        })
    }

    /// An answer to a HUD (the response format: `responses` and `actions`), asked in the
    /// structured form the endpoint takes (learned as for decisions), else as text; with
    /// the call as it is recorded (its answer and tokens, or its error).
    pub async fn answer_hud(
        &self,
        model: &str,
        system: &str,
        hud: &str,
        max_tokens: u32,
    ) -> (Result<crate::memory::chat::Completion, String>, LlmCall) {
        let schema = structured::hud_schema();
        let mut form = self.learned.form(self.structured);
        let t0 = Instant::now();
        let asked = loop {
            match self.chat.complete_with(model, system, hud, max_tokens, &structured::request_fields(form, &schema)).await {
                Ok(c) => break Ok(c),
                Err(e) if e.refused => match self.learned.refused(self.structured, form) {
                    Some(next) => form = next,
                    None => break Err(e.message),
                },
                Err(e) => break Err(e.message),
            }
        };
        let mut call = LlmCall {
            model: model.to_string(),
            form: form.name().into(),
            system: system.to_string(),
            user: hud.to_string(),
            latency_ms: t0.elapsed().as_secs_f64() * 1000.0,
            ..Default::default()
        };
        match &asked {
            Ok(c) => {
                call.answer = Some(c.text.clone());
                call.tokens_prompt = c.prompt_tokens;
                call.tokens_completion = Some(c.completion_tokens);
            }
            Err(why) => call.error = Some(why.clone()),
        }
        (asked, call)
    }

    /// One model, in the form learned so far; a form the endpoint refuses gives way to
    /// the next (`auto`), once for the client's life.
    /// The answer's reply, tokens, form and text; or why not, the form and any text.
    async fn ask(&self, model: &str, p: &Prompt, choices: &[String]) -> Result<(Reply, u64, u64, &'static str, String), Failed> {
        let schema = structured::schema(choices);
        let mut form = if choices.is_empty() { Form::Text } else { self.learned.form(self.structured) };
        let c = loop {
            match self.chat.complete_with(model, &p.system, &p.user, 150, &structured::request_fields(form, &schema)).await {
                Ok(c) => break c,
                Err(e) if e.refused => match self.learned.refused(self.structured, form) {
                    Some(next) => {
                        tracing::info!(%model, refused = form.name(), next = next.name(), why = %e.message, "the endpoint does not take this answer form");
                        form = next;
                    }
                    None => return Err((e.message, form.name(), None)),
                },
                Err(e) => return Err((e.message, form.name(), None)),
            }
        };
        let Some(reply) = parse_reply(&c.text) else {
            let why = format!("no command in the answer: {:?}", c.text.chars().take(80).collect::<String>());
            return Err((why, form.name(), Some(c.text)));
        };
        Ok((reply, c.prompt_tokens.unwrap_or(p.tokens as u64), c.completion_tokens, form.name(), c.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calls fit a command's frame: the failed ones keep no prompt, the answering
    /// one its system prompt's start and its user message's end, at character bounds.
    #[test]
    fn calls_are_fitted_to_the_frame() {
        let long = LlmCall {
            model: "b".into(),
            system: "règle ".repeat(2000),
            user: format!("{}STATE NOW", "é".repeat(9000)),
            ..Default::default()
        };
        let failed =
            LlmCall { model: "a".into(), system: "s".into(), user: "u".into(), error: Some("timed out".into()), ..Default::default() };
        let f = fitted(&[failed, long]);
        assert!(f[0].system.is_empty() && f[0].user.is_empty() && f[0].cut && f[0].error.is_some());
        assert!(f[1].cut && f[1].system.starts_with("règle") && f[1].user.ends_with("STATE NOW"));
        assert!(f[1].system.len() + f[1].user.len() <= PROMPT_SENT + 3, "{}", f[1].system.len() + f[1].user.len());
        let short = LlmCall { system: "a".into(), user: "b".into(), ..Default::default() };
        assert_eq!(fitted(std::slice::from_ref(&short)), vec![short]);
    }
}

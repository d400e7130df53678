//! The decision model: an OpenAI-compatible `POST {endpoint}/v1/chat/completions`, with
//! the LLM's own key (the game key never leaves for the LLM), `model_fast` first and
//! `model_fallback` when it fails, times out, or answers something that is not a command.

use std::time::{Duration, Instant};

use std::sync::Arc;

use super::prompt::{parse_reply, Prompt, Reply};
use super::structured::{self, Form, Learned, Structured};
use crate::memory::chat::ChatClient;
pub use crate::memory::chat::Completion;

#[derive(Debug, Clone)]
pub struct LlmClient {
    chat: ChatClient,
    models: Vec<String>,
    /// How the answer is asked for, and what `auto` learned of the endpoint.
    structured: Structured,
    learned: Arc<Learned>,
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
        }
    }

    /// Asks for structured answers (`--structured`): the schema of `decide`'s choices.
    pub fn with_structured(mut self, mode: Structured) -> LlmClient {
        self.structured = mode;
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
        for model in &self.models {
            let t0 = Instant::now();
            tracing::debug!(%model, prompt_tokens = p.tokens, url = %self.chat.url(), "asking the model");
            match self.ask(model, p, choices).await {
                Ok((reply, prompt_tokens, completion_tokens, form)) => {
                    tracing::debug!(%model, ?reply, prompt_tokens, completion_tokens, form, elapsed = ?t0.elapsed(), "the model answered");
                    let d = Decided { reply, model: model.clone(), latency: t0.elapsed(), prompt_tokens, completion_tokens, failed, form };
                    return Ok(d);
                }
                Err(why) => {
                    tracing::warn!(%model, %why, "the model failed");
                    failed.push((model.clone(), why))
                }
            }
        }
        if self.models.is_empty() {
            failed.push((String::new(), "no model configured (set model_fast)".into()));
        }
        Err(failed)
    }

    /// One model, in the form learned so far; a form the endpoint refuses gives way to
    /// the next (`auto`), once for the client's life.
    async fn ask(&self, model: &str, p: &Prompt, choices: &[String]) -> Result<(Reply, u64, u64, &'static str), String> {
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
                    None => return Err(e.message),
                },
                Err(e) => return Err(e.message),
            }
        };
        let reply =
            parse_reply(&c.text).ok_or_else(|| format!("no command in the answer: {:?}", c.text.chars().take(80).collect::<String>()))?;
        Ok((reply, c.prompt_tokens.unwrap_or(p.tokens as u64), c.completion_tokens, form.name()))
    }
}

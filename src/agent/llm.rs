//! The decision model: an OpenAI-compatible `POST {endpoint}/v1/chat/completions`, with
//! the LLM's own key (the game key never leaves for the LLM), `model_fast` first and
//! `model_fallback` when it fails, times out, or answers something that is not a command.

use std::time::{Duration, Instant};

use super::prompt::{parse_reply, Prompt, Reply};
use crate::memory::chat::ChatClient;
pub use crate::memory::chat::Completion;

#[derive(Debug, Clone)]
pub struct LlmClient {
    chat: ChatClient,
    models: Vec<String>,
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
}

impl LlmClient {
    pub fn new(endpoint: &str, key: &str, fast: &str, fallback: &str, temperature: f32, timeout: Duration) -> LlmClient {
        let mut models = vec![fast.to_string()];
        if !fallback.is_empty() && fallback != fast {
            models.push(fallback.to_string());
        }
        models.retain(|m| !m.is_empty());
        LlmClient { chat: ChatClient::new(endpoint, key, temperature, timeout), models }
    }

    pub fn url(&self) -> &str {
        self.chat.url()
    }

    /// The endpoint, for a completion that is not a decision.
    pub fn chat(&self) -> &ChatClient {
        &self.chat
    }

    /// Asks each model in turn; the first usable answer wins.
    pub async fn decide(&self, p: &Prompt) -> Result<Decided, Vec<(String, String)>> {
        let mut failed = Vec::new();
        for model in &self.models {
            let t0 = Instant::now();
            tracing::debug!(%model, prompt_tokens = p.tokens, url = %self.chat.url(), "asking the model");
            match self.ask(model, p).await {
                Ok((reply, prompt_tokens, completion_tokens)) => {
                    tracing::debug!(%model, ?reply, prompt_tokens, completion_tokens, elapsed = ?t0.elapsed(), "the model answered");
                    return Ok(Decided { reply, model: model.clone(), latency: t0.elapsed(), prompt_tokens, completion_tokens, failed });
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

    async fn ask(&self, model: &str, p: &Prompt) -> Result<(Reply, u64, u64), String> {
        let c = self.chat.complete(model, &p.system, &p.user, 150).await?;
        let reply =
            parse_reply(&c.text).ok_or_else(|| format!("no command in the answer: {:?}", c.text.chars().take(80).collect::<String>()))?;
        Ok((reply, c.prompt_tokens.unwrap_or(p.tokens as u64), c.completion_tokens))
    }
}

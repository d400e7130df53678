//! The decision model: an OpenAI-compatible `POST {endpoint}/v1/chat/completions`, with
//! the LLM's own key (the game key never leaves for the LLM), `model_fast` first and
//! `model_fallback` when it fails, times out, or answers something that is not a command.

use std::time::{Duration, Instant};

use serde_json::json;

use super::prompt::{parse_reply, Prompt, Reply};

#[derive(Debug, Clone)]
pub struct LlmClient {
    http: reqwest::Client,
    url: String,
    key: Option<String>,
    models: Vec<String>,
    temperature: f32,
    timeout: Duration,
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
        let cfg = crate::memory::llm::LlmConfig { endpoint: endpoint.into(), model: String::new(), key: None, timeout };
        let mut models = vec![fast.to_string()];
        if !fallback.is_empty() && fallback != fast {
            models.push(fallback.to_string());
        }
        models.retain(|m| !m.is_empty());
        LlmClient {
            http: reqwest::Client::builder().timeout(timeout).build().unwrap_or_default(),
            url: cfg.url(),
            key: Some(key.to_string()).filter(|k| !k.is_empty()),
            models,
            temperature,
            timeout,
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Asks each model in turn; the first usable answer wins.
    pub async fn decide(&self, p: &Prompt) -> Result<Decided, Vec<(String, String)>> {
        let mut failed = Vec::new();
        for model in &self.models {
            let t0 = Instant::now();
            tracing::debug!(%model, prompt_tokens = p.tokens, url = %self.url, "asking the model");
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
        let c = self.complete(model, &p.system, &p.user, 150).await?;
        let reply =
            parse_reply(&c.text).ok_or_else(|| format!("no command in the answer: {:?}", c.text.chars().take(80).collect::<String>()))?;
        Ok((reply, c.prompt_tokens.unwrap_or(p.tokens as u64), c.completion_tokens))
    }

    /// One chat completion: the answer's text and the endpoint's token counts.
    pub async fn complete(&self, model: &str, system: &str, user: &str, max_tokens: u32) -> Result<Completion, String> {
        let body = json!({
            "model": model,
            "temperature": self.temperature,
            "max_tokens": max_tokens,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        });
        let mut req = self.http.post(&self.url).json(&body);
        if let Some(k) = &self.key {
            req = req.bearer_auth(k);
        }
        let resp = tokio::time::timeout(self.timeout, req.send())
            .await
            .map_err(|_| format!("timed out after {:?}", self.timeout))?
            .map_err(|e| if e.is_timeout() { format!("timed out after {:?}", self.timeout) } else { e.to_string() })?;
        let status = resp.status();
        if !status.is_success() {
            return Err(format!("the endpoint answered {status}"));
        }
        let v: serde_json::Value = resp.json().await.map_err(|e| format!("not a chat completion: {e}"))?;
        let text = v["choices"][0]["message"]["content"].as_str().ok_or("no choices[0].message.content in the answer")?;
        Ok(Completion {
            text: text.to_string(),
            prompt_tokens: v["usage"]["prompt_tokens"].as_u64(),
            completion_tokens: v["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        })
    }
}

/// What one chat completion answered.
#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    /// The endpoint's `usage.prompt_tokens`, when it sends one.
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: u64,
}

//! One chat completion from an OpenAI-compatible endpoint (`POST
//! {endpoint}/v1/chat/completions`), asynchronously, with the model's own key (never a
//! game key): what the agent client's decisions and the mind's self-care both ask.

use std::time::Duration;

use serde_json::json;

#[derive(Debug, Clone)]
pub struct ChatClient {
    http: reqwest::Client,
    url: String,
    key: Option<String>,
    temperature: f32,
    timeout: Duration,
}

impl ChatClient {
    /// `endpoint` as `LlmConfig` takes it (`http://host:port`, or a URL ending in
    /// `/v1` or `/v1/chat/completions`); an empty `key` sends none.
    pub fn new(endpoint: &str, key: &str, temperature: f32, timeout: Duration) -> ChatClient {
        let cfg = super::llm::LlmConfig { endpoint: endpoint.into(), model: String::new(), key: None, timeout };
        ChatClient {
            http: reqwest::Client::builder().timeout(timeout).build().unwrap_or_default(),
            url: cfg.url(),
            key: Some(key.to_string()).filter(|k| !k.is_empty()),
            temperature,
            timeout,
        }
    }

    pub fn url(&self) -> &str {
        &self.url
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

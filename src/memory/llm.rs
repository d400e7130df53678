//! Optional synthesis: an OpenAI-compatible endpoint (`POST {endpoint}/v1/chat/completions`)
//! turns the deterministic summary into a short third-person chronicle. Blocking (it runs
//! on the dreamer thread or offline); any failure or timeout leaves the deterministic
//! summary in place.

use std::time::Duration;

use serde_json::json;

#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// `http://host:port` (or a URL already ending in `/v1/chat/completions`).
    pub endpoint: String,
    pub model: String,
    /// The LLM's own key (`Authorization: Bearer`), never a game key.
    pub key: Option<String>,
    pub timeout: Duration,
}

impl LlmConfig {
    pub fn url(&self) -> String {
        let e = self.endpoint.trim_end_matches('/');
        if e.ends_with("/chat/completions") {
            e.to_string()
        } else if e.ends_with("/v1") {
            format!("{e}/chat/completions")
        } else {
            format!("{e}/v1/chat/completions")
        }
    }
}

const SYSTEM: &str = "You are the chronicler of a text adventure game. Given a character's memory notes, write a short \
chronicle of what happened to them, in the third person, past tense, plain prose, at most 120 words. Keep names, \
places and feelings; invent nothing.";

/// Asks the endpoint for a chronicle of `notes`.
pub fn chronicle(cfg: &LlmConfig, agent: &str, notes: &str) -> Result<String, String> {
    let client = reqwest::blocking::Client::builder().timeout(cfg.timeout).build().map_err(|e| e.to_string())?;
    let body = json!({
        "model": cfg.model,
        "temperature": 0.3,
        "max_tokens": 300,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": format!("Character: {agent}\n\n{notes}")},
        ],
    });
    let mut req = client.post(cfg.url()).json(&body);
    if let Some(k) = &cfg.key {
        req = req.bearer_auth(k);
    }
    let resp = req.send().map_err(|e| e.to_string())?;
    let status = resp.status();
    if !status.is_success() {
        return Err(format!("the endpoint answered {status}"));
    }
    let v: serde_json::Value = resp.json().map_err(|e| format!("not a chat completion: {e}"))?;
    let text = v["choices"][0]["message"]["content"].as_str().ok_or("no choices[0].message.content in the answer")?;
    let text = strip_fences(text);
    if text.is_empty() {
        return Err("the chronicle was empty".into());
    }
    Ok(text)
}

/// The text inside a code fence, if it was wrapped in one, trimmed.
pub fn strip_fences(text: &str) -> String {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let rest = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
        return rest.trim_end().trim_end_matches("```").trim().to_string();
    }
    t.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_fences() {
        let c = |e: &str| LlmConfig { endpoint: e.into(), model: "m".into(), key: None, timeout: Duration::from_secs(1) };
        assert_eq!(c("http://h:1").url(), "http://h:1/v1/chat/completions");
        assert_eq!(c("http://h:1/v1/").url(), "http://h:1/v1/chat/completions");
        assert_eq!(c("http://h:1/v1/chat/completions").url(), "http://h:1/v1/chat/completions");
        assert_eq!(strip_fences("```text\nBrenda fought.\n```"), "Brenda fought.");
        assert_eq!(strip_fences("  plain  "), "plain");
    }
}

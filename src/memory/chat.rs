//! One chat completion from an OpenAI-compatible endpoint (`POST
//! {endpoint}/v1/chat/completions`), asynchronously, with the model's own key (never a
//! game key): what the agent client's decisions and the mind's self-care both ask.

use std::time::Duration;

use serde_json::{json, Value};

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
        self.complete_with(model, system, user, max_tokens, &json!({})).await.map_err(|e| e.message)
    }

    /// A chat completion with `extra` fields in its request (a `response_format`, tools):
    /// the answer's text (a tool call's arguments, else the content); a refusal (the
    /// endpoint answered 4xx: it does not take what was asked) says its status.
    pub async fn complete_with(
        &self,
        model: &str,
        system: &str,
        user: &str,
        max_tokens: u32,
        extra: &serde_json::Value,
    ) -> Result<Completion, ChatFailure> {
        let mut body = json!({
            "model": model,
            "temperature": self.temperature,
            "max_tokens": max_tokens,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        });
        if let (Some(b), Some(x)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(x.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let fail = |message: String| ChatFailure { refused: false, message };
        let mut req = self.http.post(&self.url).json(&body);
        if let Some(k) = &self.key {
            req = req.bearer_auth(k);
        }
        let resp = tokio::time::timeout(self.timeout, req.send())
            .await
            .map_err(|_| fail(format!("timed out after {:?}", self.timeout)))?
            .map_err(|e| fail(if e.is_timeout() { format!("timed out after {:?}", self.timeout) } else { e.to_string() }))?;
        let status = resp.status();
        if !status.is_success() {
            let said = resp.text().await.unwrap_or_default();
            let said: String = said.chars().take(200).collect();
            return Err(ChatFailure {
                refused: refuses_form(status.as_u16(), &said),
                message: format!("the endpoint answered {status}{}", if said.is_empty() { String::new() } else { format!(": {said}") }),
            });
        }
        let v: serde_json::Value = resp.json().await.map_err(|e| fail(format!("not a chat completion: {e}")))?;
        let text = answer_text(&v).ok_or_else(|| fail("no choices[0].message in the answer".into()))?;
        Ok(Completion {
            text,
            prompt_tokens: v["usage"]["prompt_tokens"].as_u64(),
            completion_tokens: v["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        })
    }
}

/// The answer's text: a tool call's arguments, else the message's content.
pub fn answer_text(v: &Value) -> Option<String> {
    let msg = &v["choices"][0]["message"];
    if let Some(args) = msg["tool_calls"][0]["function"]["arguments"].as_str() {
        return Some(args.to_string());
    }
    if let Some(args) = msg["tool_calls"][0]["function"]["arguments"].as_object() {
        return Some(Value::Object(args.clone()).to_string());
    }
    msg["content"].as_str().map(str::to_string)
}

/// Whether an error answer says the endpoint does not take the request's form: a 4xx
/// other than auth and rate, or — llama-cpp-python's way — a 500 whose text is a
/// validation error naming the form's field.
pub fn refuses_form(status: u16, said: &str) -> bool {
    if matches!(status, 401 | 403 | 429) || !(400..600).contains(&status) {
        return false;
    }
    let s = said.to_ascii_lowercase();
    // A prompt over the model's context is refused whatever the form: asking in another
    // form would not help, and must not be learned as the endpoint's way.
    if s.contains("context length") || s.contains("context window") || s.contains("too many tokens") {
        return false;
    }
    let names_form = ["response_format", "tool_choice", "\"tools\"", "tools", "json_schema", "schema"].iter().any(|f| s.contains(f));
    let says_no =
        ["validation", "should be", "not supported", "unsupported", "invalid", "unknown", "not allowed"].iter().any(|w| s.contains(w));
    // A 4xx that names no field is taken as the form's refusal too (the endpoint gave no reason).
    (names_form && says_no) || ((400..500).contains(&status) && !names_form && s.trim().is_empty())
}

/// Why a completion did not come: `refused` when the endpoint said it does not take
/// the request's form (a 4xx other than auth and rate), which another form may pass.
#[derive(Debug, Clone)]
pub struct ChatFailure {
    pub refused: bool,
    pub message: String,
}

/// What one chat completion answered.
#[derive(Debug, Clone)]
pub struct Completion {
    pub text: String,
    /// The endpoint's `usage.prompt_tokens`, when it sends one.
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_the_form_is_told_from_a_failure() {
        // llama-cpp-python answers 500 to `json_schema`, in a validation error.
        let llama =
            r#"{"error":{"message":"1 validation error: ('body', 'response_format', 'type') Input should be 'text' or 'json_object'"}}"#;
        assert!(refuses_form(500, llama));
        assert!(refuses_form(400, r#"{"error":"response_format: json_schema is not supported"}"#));
        assert!(refuses_form(400, ""), "a bare 4xx");
        assert!(!refuses_form(400, "This model's maximum context length is 4096 tokens. However, you requested 5010 tokens"));
        assert!(!refuses_form(500, r#"{"error":"down"}"#));
        assert!(!refuses_form(429, "slow down"));
        assert!(!refuses_form(401, "response_format invalid"));
    }

    #[test]
    fn a_tool_call_or_content_is_the_answer() {
        let t = json!({"choices": [{"message": {"tool_calls": [{"function": {"name": "act", "arguments": "{\"command\":\"south\"}"}}]}}]});
        assert_eq!(answer_text(&t).as_deref(), Some("{\"command\":\"south\"}"));
        let c = json!({"choices": [{"message": {"content": "{\"command\":\"look\"}"}}]});
        assert_eq!(answer_text(&c).as_deref(), Some("{\"command\":\"look\"}"));
        assert_eq!(answer_text(&json!({})), None);
    }
}

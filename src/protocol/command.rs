//! A `command` message's data (protocol §5): the line (`command` and `args`), and what
//! the client tells of how it decided — tokens, latency, its `reason`, and the model
//! calls behind it (`llm`, an extension) — checked and read into the engine's types.

use serde::Deserialize;
use serde_json::Value;

use super::{field, CommandClient, CommandData, ProtoError, MAX_REASON};

/// Model calls a command may carry (`llm`): the failed ones before the one that answered.
pub const MAX_LLM_CALLS: usize = 8;

/// One model call as a client reports it with its command (`llm`, extension): our
/// fields, or OpenAI's `messages` for the prompt.
#[derive(Deserialize)]
struct LlmCallIn {
    #[serde(default)]
    model: String,
    #[serde(default)]
    form: Option<String>,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    messages: Option<Vec<LlmMessageIn>>,
    #[serde(default)]
    answer: Option<String>,
    #[serde(default)]
    tokens_prompt: Option<u64>,
    #[serde(default)]
    tokens_completion: Option<u64>,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    cut: bool,
}

#[derive(Deserialize)]
struct LlmMessageIn {
    role: String,
    content: String,
}

impl LlmCallIn {
    fn into_call(self) -> pawns_storage::LlmCall {
        let (mut system, mut user) = (self.system.unwrap_or_default(), self.user.unwrap_or_default());
        for m in self.messages.unwrap_or_default() {
            let to = if m.role == "system" { &mut system } else { &mut user };
            if !to.is_empty() {
                to.push('\n');
            }
            to.push_str(&m.content);
        }
        pawns_storage::LlmCall {
            model: self.model,
            form: self.form.unwrap_or_else(|| "text".into()),
            system,
            user,
            answer: self.answer,
            tokens_prompt: self.tokens_prompt,
            tokens_completion: self.tokens_completion,
            latency_ms: self.latency_ms.filter(|l| l.is_finite() && *l >= 0.0).unwrap_or(0.0),
            error: self.error,
            cut: self.cut,
        }
    }
}

/// A message's `reason` (trimmed, none when blank) and `llm` calls, checked.
fn how_chosen(
    what: &str,
    reason: Option<String>,
    llm: Option<Vec<LlmCallIn>>,
) -> Result<(Option<String>, Vec<pawns_storage::LlmCall>), ProtoError> {
    let llm: Vec<pawns_storage::LlmCall> = llm.unwrap_or_default().into_iter().map(LlmCallIn::into_call).collect();
    if llm.len() > MAX_LLM_CALLS {
        return Err(ProtoError::new("bad_request", format!("{what}: llm holds at most {MAX_LLM_CALLS} calls")));
    }
    let reason = reason.map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
    if reason.as_ref().is_some_and(|r| r.chars().count() > MAX_REASON) {
        return Err(ProtoError::new("bad_request", format!("{what}: reason is limited to {MAX_REASON} characters")));
    }
    Ok((reason, llm))
}

/// An `actions` message's `reason` and `llm` (protocol §11.1, extension): checked, and
/// put back in the batch in the engine's form (it records them with the decision the
/// message makes).
pub(super) fn check_batch_client(batch: &mut serde_json::Map<String, Value>) -> Result<(), ProtoError> {
    let reason = match batch.remove("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(r)) => Some(r),
        Some(_) => return Err(ProtoError::new("bad_request", "actions: reason must be a string")),
    };
    let llm = match batch.remove("llm") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value::<Vec<LlmCallIn>>(v)
                .map_err(|e| ProtoError::new("bad_request", format!("actions: llm must be a list of model calls ({e})")))?,
        ),
    };
    let (reason, llm) = how_chosen("actions", reason, llm)?;
    if let Some(r) = reason {
        batch.insert("reason".into(), Value::String(r));
    }
    if !llm.is_empty() {
        batch.insert("llm".into(), serde_json::to_value(llm).map_err(|e| ProtoError::new("internal", e.to_string()))?);
    }
    Ok(())
}

pub(super) fn parse_command(data: Value) -> Result<CommandData, ProtoError> {
    #[derive(Deserialize)]
    struct Cmd {
        command: String,
        #[serde(default)]
        args: Option<Vec<Value>>,
        #[serde(default)]
        tokens_prompt: Option<u64>,
        #[serde(default)]
        tokens_completion: Option<u64>,
        #[serde(default)]
        latency_ms: Option<f64>,
        #[serde(default)]
        reason: Option<String>,
        #[serde(default)]
        llm: Option<Vec<LlmCallIn>>,
    }
    let c: Cmd = field(data, "command")?;
    let (reason, llm) = how_chosen("command", c.reason, c.llm)?;
    let mut line = c.command.trim().to_string();
    if line.is_empty() {
        return Err(ProtoError::new("bad_request", "command: command must not be empty"));
    }
    if line.contains(['\n', '\r']) {
        return Err(ProtoError::new("bad_request", "command: one command per message (no newlines)"));
    }
    for a in c.args.unwrap_or_default() {
        let s = match a {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            _ => return Err(ProtoError::new("bad_request", "command: args must be strings")),
        };
        if s.contains(['\n', '\r']) {
            return Err(ProtoError::new("bad_request", "command: args must not contain newlines"));
        }
        line.push(' ');
        line.push_str(&s);
    }
    let verb = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    let given = c.tokens_prompt.is_some() || c.tokens_completion.is_some() || c.latency_ms.is_some() || reason.is_some() || !llm.is_empty();
    let client = given.then(|| {
        Box::new(CommandClient {
            tokens_prompt: c.tokens_prompt,
            tokens_completion: c.tokens_completion,
            latency_ms: c.latency_ms,
            reason,
            llm,
        })
    });
    Ok(CommandData { line, verb, client })
}

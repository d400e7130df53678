//! Model calls as OpenTelemetry GenAI spans, exported live over OTLP/HTTP
//! (`serve --otlp-endpoint URL`): each committed decision that carries model calls
//! (`llm`) becomes an `invoke_agent {agent}` span with a `chat {model}` span per call,
//! named and attributed by the GenAI semantic conventions (`gen_ai.operation.name`,
//! `gen_ai.agent.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`/`output_tokens`,
//! `gen_ai.input.messages`/`gen_ai.output.messages`, `error.type`), timed as they
//! happened: the calls end as the command reaches the server, one after another, and the
//! decision ends with its pulse. Spans are made from what the recorder committed (the
//! live follow's feed), so the engine never waits for them; the SDK's batch processor
//! sends them from its own thread. A watcher that falls behind misses batches, as the
//! observatory's does, and says so in the log.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{Span, SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use opentelemetry_sdk::Resource;
use pawns_storage::{DecisionRecord, EventRecord, RecordBody};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::watch::Watch;

/// The traces URL for what an operator gives: a collector's base (`http://host:4318`)
/// gets `/v1/traces`; a URL ending in it is taken as it is.
pub fn traces_url(endpoint: &str) -> Result<String, String> {
    let e = endpoint.trim().trim_end_matches('/');
    if !(e.starts_with("http://") || e.starts_with("https://")) || e.len() < "http://x".len() {
        return Err(format!("--otlp-endpoint must be an http(s) URL (http://collector:4318); got '{endpoint}'"));
    }
    Ok(if e.ends_with("/v1/traces") { e.to_string() } else { format!("{e}/v1/traces") })
}

/// A span exporter to one collector, for whoever has turns to trace (the server's
/// record, the agent client).
pub struct Exporter {
    provider: SdkTracerProvider,
    tracer: opentelemetry_sdk::trace::SdkTracer,
}

impl Exporter {
    /// An exporter to `url` (a traces URL, `traces_url`) naming itself `service`.
    pub fn new(url: &str, service: &str) -> Result<Exporter, String> {
        let exporter = SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url)
            .with_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("the OTLP exporter: {e}"))?;
        let batch = BatchConfigBuilder::default().with_scheduled_delay(Duration::from_millis(500)).build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(BatchSpanProcessor::builder(exporter).with_batch_config(batch).build())
            .with_resource(
                Resource::builder()
                    .with_service_name(service.to_string())
                    // Phoenix files spans by this project name.
                    .with_attribute(KeyValue::new("openinference.project.name", service.to_string()))
                    .build(),
            )
            .build();
        let tracer = provider.tracer("pawns");
        Ok(Exporter { provider, tracer })
    }

    /// One turn's spans.
    pub fn turn(&self, t: &Turn<'_>) {
        turn_spans(&self.tracer, t);
    }

    /// Sends what is waiting and stops (blocking: call it off the runtime's threads).
    pub fn shutdown(self) {
        if let Err(e) = self.provider.force_flush() {
            tracing::warn!("the last OTLP export failed: {e}");
        }
        let _ = self.provider.shutdown();
    }
}

/// The exporter fed by the record: spans from committed decisions, until the feed ends.
pub struct Otlp {
    exporter: std::sync::Arc<Exporter>,
    task: tokio::task::JoinHandle<()>,
}

impl Otlp {
    /// Starts exporting what `watch` commits to `url` (a traces URL, `traces_url`).
    pub fn start(watch: &Watch, url: &str, service: &str) -> Result<Otlp, String> {
        let exporter = std::sync::Arc::new(Exporter::new(url, service)?);
        let ex = exporter.clone();
        let mut rx = watch.subscribe();
        let task = tokio::spawn(async move {
            loop {
                match rx.recv().await {
                    Ok(batch) => {
                        for r in batch.iter() {
                            if let RecordBody::Decision(d) = &r.body {
                                if !d.llm.is_empty() {
                                    ex.turn(&Turn::of_decision(r, d));
                                }
                            }
                        }
                    }
                    Err(RecvError::Lagged(n)) => tracing::warn!(missed_batches = n, "the OTLP export fell behind; spans were missed"),
                    Err(RecvError::Closed) => break,
                }
            }
        });
        Ok(Otlp { exporter, task })
    }

    /// Sends what is waiting and stops (blocking: call it off the runtime's threads).
    pub fn shutdown(self) {
        self.task.abort();
        match std::sync::Arc::try_unwrap(self.exporter) {
            Ok(e) => e.shutdown(),
            Err(e) => {
                let _ = e.provider.force_flush();
            }
        }
    }
}

/// One agent turn as traces show it: the model calls behind a command, and the command.
pub struct Turn<'a> {
    pub agent: &'a str,
    /// What groups its turns (the recorded session).
    pub conversation: String,
    pub command: String,
    pub status: &'a str,
    pub reason: Option<&'a str>,
    pub seq: Option<u64>,
    pub calls: &'a [pawns_storage::LlmCall],
    /// When the command reached the server (the calls end then), and when its turn ended.
    pub sent_us: u64,
    pub ended_us: u64,
}

impl<'a> Turn<'a> {
    pub fn of_decision(r: &'a EventRecord, d: &'a DecisionRecord) -> Turn<'a> {
        Turn {
            agent: &r.agent,
            conversation: r.session.to_string(),
            command: if d.args.is_empty() { d.command.clone() } else { format!("{} {}", d.command, d.args) },
            status: &d.status,
            reason: d.reason.as_deref(),
            seq: Some(r.seq),
            calls: &d.llm,
            sent_us: d.received_us,
            ended_us: d.completed_us,
        }
    }
}

fn at(us: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_micros(us)
}

/// One turn's spans: the agent's turn, and its model calls inside it.
fn turn_spans<T: Tracer>(tracer: &T, t: &Turn<'_>)
where
    T::Span: Send + Sync + 'static,
{
    // The calls ran back to back and ended as the command reached the server.
    let total_us: u64 = t.calls.iter().map(|c| (c.latency_ms.max(0.0) * 1000.0) as u64).sum();
    let first = t.sent_us.saturating_sub(total_us);
    let mut attrs = vec![
        KeyValue::new("gen_ai.operation.name", "invoke_agent"),
        KeyValue::new("gen_ai.agent.name", t.agent.to_string()),
        KeyValue::new("gen_ai.conversation.id", t.conversation.clone()),
        KeyValue::new("pawns.command", t.command.clone()),
        KeyValue::new("pawns.status", t.status.to_string()),
    ];
    if let Some(seq) = t.seq {
        attrs.push(KeyValue::new("pawns.seq", seq as i64));
    }
    if let Some(why) = t.reason {
        attrs.push(KeyValue::new("pawns.reason", why.to_string()));
    }
    let parent = tracer
        .span_builder(format!("invoke_agent {}", t.agent))
        .with_kind(SpanKind::Internal)
        .with_start_time(at(first))
        .with_attributes(attrs)
        .start(tracer);
    let cx = Context::current_with_span(parent);
    let mut start = first;
    for c in t.calls {
        let end = start + (c.latency_ms.max(0.0) * 1000.0) as u64;
        let input = json!([
            {"role": "system", "parts": [{"type": "text", "content": c.system}]},
            {"role": "user", "parts": [{"type": "text", "content": c.user}]}
        ]);
        let mut a = vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.request.model", c.model.clone()),
            KeyValue::new("gen_ai.response.model", c.model.clone()),
            KeyValue::new("gen_ai.output.type", if c.form == "text" { "text" } else { "json" }),
            KeyValue::new("gen_ai.input.messages", input.to_string()),
            KeyValue::new("pawns.answer_form", c.form.clone()),
        ];
        if let Some(t) = c.tokens_prompt {
            a.push(KeyValue::new("gen_ai.usage.input_tokens", t as i64));
        }
        if let Some(t) = c.tokens_completion {
            a.push(KeyValue::new("gen_ai.usage.output_tokens", t as i64));
        }
        if let Some(ans) = &c.answer {
            let out = json!([{"role": "assistant", "parts": [{"type": "text", "content": ans}]}]);
            a.push(KeyValue::new("gen_ai.output.messages", out.to_string()));
        }
        let mut span = tracer
            .span_builder(format!("chat {}", c.model))
            .with_kind(SpanKind::Client)
            .with_start_time(at(start))
            .with_attributes(a)
            .start_with_context(tracer, &cx);
        if let Some(e) = &c.error {
            span.set_attribute(KeyValue::new("error.type", "model_error"));
            span.set_status(Status::error(e.clone()));
        }
        span.end_with_timestamp(at(end));
        start = end;
    }
    let span = cx.span();
    if t.status != "ok" && t.status != "sent" {
        span.set_status(Status::error(t.status.to_string()));
    }
    span.end_with_timestamp(at(t.ended_us.max(first)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traces_url_is_the_collectors_path() {
        assert_eq!(traces_url("http://c:4318").unwrap(), "http://c:4318/v1/traces");
        assert_eq!(traces_url("https://c/x/v1/traces/").unwrap(), "https://c/x/v1/traces");
        assert!(traces_url("c:4318").is_err());
        assert!(traces_url("ftp://c").is_err());
    }
}

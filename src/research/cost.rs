//! Cost: the model's tokens per decision (when the client reports them), what the
//! injected summary costs against carrying the raw stream, and the time dreams take.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::dataset::Dataset;
use super::stats::median;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub arm: String,
    pub decisions: u64,
    /// Decisions whose client reported its tokens.
    pub with_tokens: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Per decision that reported them.
    pub prompt_mean: Option<f64>,
    pub completion_mean: Option<f64>,
    /// Command latency (received → its pulse ended), median, ms.
    pub latency_p50_ms: Option<f64>,
    /// Model calls behind the decisions (failed ones too), and the time they took per
    /// decision that had any, median, ms.
    #[serde(default)]
    pub model_calls: u64,
    #[serde(default)]
    pub model_ms_p50: Option<f64>,
    /// Hours the arm's agents played (ended sessions), and the tokens per such hour.
    #[serde(default)]
    pub agent_hours: f64,
    #[serde(default)]
    pub tokens_per_agent_hour: Option<f64>,
    pub dreams: u64,
    /// cl100k tokens of every record dreamed (the raw stream).
    pub raw_tokens: u64,
    /// The summary each agent is injected now (its last dream), summed over agents.
    pub summary_tokens: u64,
    /// raw / summary: how many times smaller the injected memory is.
    pub compression: Option<f64>,
    pub dream_ms_mean: Option<f64>,
    pub dream_ms_p50: Option<f64>,
    pub dream_ms_max: Option<f64>,
}

pub fn cost(ds: &Dataset, arm_of: &dyn Fn(&str, bool) -> String) -> Vec<Cost> {
    let mut arms: BTreeMap<String, (Cost, Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let mut model_ms: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for s in &ds.sessions {
        let arm = arm_of(&s.agent, s.valence);
        let (c, _, _) = arms.entry(arm.clone()).or_insert_with(|| (Cost { arm, ..Default::default() }, Vec::new(), Vec::new()));
        c.agent_hours += s.ended_us.map_or(0.0, |e| e.saturating_sub(s.started_us) as f64 / 3.6e9);
    }
    for d in &ds.decisions {
        let arm = arm_of(&ds.sessions[d.session].agent, ds.sessions[d.session].valence);
        if d.model_calls > 0 {
            model_ms.entry(arm.clone()).or_default().push(d.model_ms);
        }
        let (c, lat, _) = arms.entry(arm.clone()).or_insert_with(|| (Cost { arm, ..Default::default() }, Vec::new(), Vec::new()));
        c.decisions += 1;
        c.model_calls += u64::from(d.model_calls);
        lat.push(d.latency_us as f64 / 1e3);
        if let Some(p) = d.tokens_prompt {
            c.with_tokens += 1;
            c.prompt_tokens += p;
            c.completion_tokens += d.tokens_completion.unwrap_or(0);
        }
    }
    // The last dream per agent holds the summary injected now.
    let mut last: BTreeMap<&str, (u64, String, u64)> = BTreeMap::new();
    for d in &ds.dreams {
        let s = &d.snap;
        let arm = arm_of(&d.agent, s.sessions_valence_off * 2 <= s.sessions);
        let (c, _, ms) =
            arms.entry(arm.clone()).or_insert_with(|| (Cost { arm: arm.clone(), ..Default::default() }, Vec::new(), Vec::new()));
        c.dreams += 1;
        c.raw_tokens += s.raw_tokens;
        ms.push(s.elapsed_ms);
        let l = last.entry(d.agent.as_str()).or_insert((0, arm.clone(), 0));
        if d.at_us >= l.0 {
            *l = (d.at_us, arm, s.summary_tokens as u64);
        }
    }
    for (_, arm, tokens) in last.into_values() {
        if let Some((c, _, _)) = arms.get_mut(&arm) {
            c.summary_tokens += tokens;
        }
    }
    arms.into_values()
        .map(|(mut c, lat, ms)| {
            c.prompt_mean = (c.with_tokens > 0).then(|| c.prompt_tokens as f64 / c.with_tokens as f64);
            c.completion_mean = (c.with_tokens > 0).then(|| c.completion_tokens as f64 / c.with_tokens as f64);
            c.latency_p50_ms = median(lat);
            c.model_ms_p50 = model_ms.remove(&c.arm).and_then(median);
            let tokens = c.prompt_tokens + c.completion_tokens;
            c.tokens_per_agent_hour = (c.agent_hours > 0.0 && tokens > 0).then(|| tokens as f64 / c.agent_hours);
            c.compression = (c.summary_tokens > 0).then(|| c.raw_tokens as f64 / c.summary_tokens as f64);
            c.dream_ms_mean = (!ms.is_empty()).then(|| ms.iter().sum::<f64>() / ms.len() as f64);
            c.dream_ms_max = ms.iter().copied().reduce(f64::max);
            c.dream_ms_p50 = median(ms);
            c
        })
        .collect()
}

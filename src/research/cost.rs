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

pub fn cost(ds: &Dataset, arm_of: &dyn Fn(bool) -> String) -> Vec<Cost> {
    let mut arms: BTreeMap<String, (Cost, Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for d in &ds.decisions {
        let arm = arm_of(ds.sessions[d.session].valence);
        let (c, lat, _) = arms.entry(arm.clone()).or_insert_with(|| (Cost { arm, ..Default::default() }, Vec::new(), Vec::new()));
        c.decisions += 1;
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
        let arm = arm_of(s.sessions_valence_off * 2 <= s.sessions);
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
            c.compression = (c.summary_tokens > 0).then(|| c.raw_tokens as f64 / c.summary_tokens as f64);
            c.dream_ms_mean = (!ms.is_empty()).then(|| ms.iter().sum::<f64>() / ms.len() as f64);
            c.dream_ms_max = ms.iter().copied().reduce(f64::max);
            c.dream_ms_p50 = median(ms);
            c
        })
        .collect()
}

//! The selection every research command takes — `--agents`, `--since`, `--until`, or
//! `--run` — the same flags and forms in `eval`, `export` and `runs`, so one can export
//! exactly what an experiment evaluated.

use anyhow::Context;
use clap::Args;
use pawns::research::runs::Run;
use pawns::research::Filter;

use super::Place;

#[derive(Args, Debug, Clone, Default)]
pub struct Select {
    /// Only these agents (comma-separated or repeated; default: every agent).
    #[arg(long, alias = "agent")]
    pub agents: Vec<String>,
    /// Only sessions begun since: a span back from now (2h, 7d), a date (2026-11-23) or a
    /// time (2026-11-23T10:00:00Z).
    #[arg(long)]
    pub since: Option<String>,
    /// Only sessions begun before this (the same forms).
    #[arg(long)]
    pub until: Option<String>,
    /// A run's agents, time and arms (`pawns runs list` shows them).
    #[arg(long, conflicts_with_all = ["agents", "since", "until"])]
    pub run: Option<String>,
}

impl Select {
    /// The filter: the run's (read from the file, or asked of the server holding it), or
    /// the flags'.
    pub async fn filter(&self, place: &Place) -> anyhow::Result<Filter> {
        match &self.run {
            Some(id) => Ok(run(place, id).await?.filter()),
            None => {
                let mut f = super::research::filter(&self.agents, None)?;
                let when = |flag: &str, v: &Option<String>| {
                    v.as_deref().map(super::research::parse_since).transpose().map_err(|m| anyhow::anyhow!("--{flag}: {m} (bad_request)"))
                };
                f.since_us = when("since", &self.since)?.unwrap_or(0);
                f.until_us = when("until", &self.until)?;
                Ok(f)
            }
        }
    }
}

/// One run, from the data file or the server holding it.
pub async fn run(place: &Place, id: &str) -> anyhow::Result<Run> {
    pawns::research::runs::check_id(id).map_err(|m| anyhow::anyhow!("--run: {m} (bad_request)"))?;
    let want = id.to_string();
    let offline = super::commands::read_offline(place, move |store| {
        pawns::research::runs::get(store, &want).map_err(|e| anyhow::anyhow!("{e} ({})", e.code()))
    })
    .await?;
    match offline {
        Ok(r) => Ok(r),
        Err(held) => {
            let url = format!("{}/api/admin/runs/{}", place.server(), id);
            let (status, body) = pawns::client::call(reqwest::Method::GET, &url, None).await.with_context(|| place.why_server(held))?;
            if status == 404 {
                anyhow::bail!("no run {id:?} (no_such_run): pawns runs list shows them");
            }
            if status != 200 {
                anyhow::bail!("the server answered {status}: {}", body.trim());
            }
            serde_json::from_str(&body).context("the server's answer is not what this build reads")
        }
    }
}

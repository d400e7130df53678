//! `pawns memcheck`: the agents' memory asked what the record knows — the deterministic
//! reader's answers, and a model's when an endpoint is given — written as a report,
//! JSON and a per-probe Parquet table.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use pawns::research::memcheck_run::{model_prompt, Memcheck};

use super::select::Select;
use super::Place;

#[derive(Args, Debug)]
pub struct MemcheckArgs {
    #[command(flatten)]
    pub select: Select,
    /// An OpenAI-compatible endpoint to answer the probes too (the reader always does).
    #[arg(long)]
    pub llm_endpoint: Option<String>,
    /// The model to ask.
    #[arg(long, default_value = "default")]
    pub model: String,
    /// The endpoint's key (or PAWNS_LLM_KEY).
    #[arg(long, env = "PAWNS_LLM_KEY", hide_env_values = true, default_value = "")]
    pub llm_key: String,
    #[arg(long, default_value = "60s", value_parser = pawns::time::parse_duration)]
    pub llm_timeout: Duration,
    /// Where memcheck.md, memcheck.json and probes.parquet go.
    #[arg(long, default_value = "pawns-memcheck")]
    pub out: PathBuf,
    #[arg(long)]
    pub force: bool,
    /// Print the result as JSON instead of writing files.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub place: Place,
}

pub async fn memcheck(args: MemcheckArgs) -> anyhow::Result<()> {
    let filter = args.select.filter(&args.place).await?;
    let f = filter.clone();
    let offline =
        super::commands::read_offline(&args.place, move |store| Ok(pawns::research::memcheck_run::memcheck_store(store, &f)?)).await?;
    let mut m: Memcheck = match offline {
        Ok(m) => m,
        Err(held) => {
            let url =
                format!("{}/api/admin/memcheck?filter={}", args.place.server(), super::commands::percent(&serde_json::to_string(&filter)?));
            let body = pawns::client::get(&url).await.with_context(|| args.place.why_server(held))?;
            serde_json::from_str(&body).context("the server's answer is not what this build reads")?
        }
    };
    if m.probes == 0 {
        bail!("no probe could be made: the selection holds no agent event to ask about (no_probes)");
    }
    if let Some(endpoint) = &args.llm_endpoint {
        let chat = pawns::memory::chat::ChatClient::new(endpoint, &args.llm_key, 0.0, args.llm_timeout);
        let probes: Vec<_> = m.answers.iter().filter(|a| a.by == "reader").map(|a| a.probe.clone()).collect();
        let mut answered = Vec::with_capacity(probes.len());
        let (mut failed, total) = (0, probes.len());
        for (i, p) in probes.into_iter().enumerate() {
            let (system, user) = model_prompt(&p.agent, m.memory_of(&p.agent), &p.question);
            let answer = match chat.complete(&args.model, &system, &user, 40).await {
                Ok(c) => c.text.trim().to_string(),
                Err(e) => {
                    failed += 1;
                    format!("(no answer: {e})")
                }
            };
            answered.push((p, answer));
            if !args.json && (i + 1) % 10 == 0 {
                eprintln!("  asked {} of {total}", i + 1);
            }
        }
        if failed == total {
            bail!("the model answered none of the {total} probes (llm_failed)");
        }
        m.add(&args.model, answered);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&m)?);
        return Ok(());
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let mut md = String::from("# pawns memcheck\n\n");
    pawns::research::report::memcheck(&mut md, &m);
    let write = |name: &str, bytes: &[u8]| {
        pawns_storage::files::write_new(&args.out.join(name), bytes, args.force).map_err(super::commands::file_err)
    };
    write("memcheck.md", md.as_bytes())?;
    write("memcheck.json", &serde_json::to_vec_pretty(&m)?)?;
    let rows =
        pawns::research::memcheck_run::write_parquet(&m, &args.out, args.force).map_err(|e| anyhow::anyhow!("{e} ({})", e.code()))?;
    for s in m.scores.iter().filter(|s| s.by == "all" || s.by == "ability") {
        let p = s.right.p.map(|p| format!("{:.2}", p)).unwrap_or_else(|| "—".into());
        println!("{:<8} {:<8} {:<18} {p} ({}/{})", s.reader, s.by, s.group, s.right.k, s.right.n);
    }
    println!("Wrote {}: memcheck.md, memcheck.json, probes.parquet ({rows} answers).", args.out.display());
    Ok(())
}

//! The report as Markdown: the sample, then each metric as a table with its sample
//! sizes and intervals, the plots beside it, and the definitions' short form.

use std::fmt::Write;

use super::bps::headline;
use super::stats::Proportion;
use super::Evaluation;

fn f(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "—".into())
}

fn ci(c: Option<[f64; 2]>) -> String {
    c.map(|c| format!("[{:.3}, {:.3}]", c[0], c[1])).unwrap_or_else(|| "—".into())
}

fn prop(p: &Proportion) -> String {
    match p.p {
        Some(v) => format!("{v:.2} ({}/{})", p.k, p.n),
        None => "— (0)".into(),
    }
}

fn when(us: u64) -> String {
    chrono::DateTime::from_timestamp_micros(us as i64).map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string()).unwrap_or_default()
}

/// The Markdown report; `plots` are the SVG files' names beside it.
pub fn markdown(e: &Evaluation, plots: &[String]) -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "# pawns evaluation\n");
    let who = if e.filter.agents.is_empty() { "every agent".to_string() } else { e.filter.agents.join(", ") };
    let since = if e.filter.since_us == 0 { "the whole record".to_string() } else { format!("sessions since {}", when(e.filter.since_us)) };
    let _ = writeln!(
        w,
        "Agents: {who}; {since}; split by {}.\n",
        if e.by == super::By::Valence { "the sessions' valence flag" } else { "nothing" }
    );
    let x = &e.sample;
    let _ = writeln!(
        w,
        "| agents | sessions | decisions | trials | social acts | dreams | computed in |\n|---:|---:|---:|---:|---:|---:|---:|\n| {} | {} | {} | {} | {} | {} | {:.0} ms |\n",
        x.agents, x.sessions, x.decisions, x.trials, x.social_events, x.dreams, e.elapsed_ms
    );
    let arms: Vec<String> = e.arms.iter().map(|(a, n)| format!("{a}: {n} sessions")).collect();
    let _ = writeln!(w, "Arms — {}.\n", arms.join("; "));

    let _ = writeln!(w, "## Behavioral Persistence Score\n");
    let _ = writeln!(
        w,
        "|P(response \\| stimulus, memory) − P(response \\| stimulus, no memory)| over encounters (≥ 0.3 strong, < 0.1 none); all agents, the stimulus's headline response.\n"
    );
    let _ =
        writeln!(w, "| arm | stimulus | response | with memory | without | BPS | 95 % CI | band |\n|---|---|---|---:|---:|---:|---|---|");
    for b in e.bps.iter().filter(|b| b.agent == "*" && b.response == headline(&b.stimulus)) {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            b.arm,
            b.stimulus,
            b.response,
            prop(&b.memory),
            prop(&b.no_memory),
            f(b.bps),
            ci(b.ci),
            b.band
        );
    }
    if plots.iter().any(|p| p == "bps.svg") {
        let _ = writeln!(w, "\n![BPS](bps.svg)\n");
    }
    let per_agent: Vec<_> = e.bps.iter().filter(|b| b.agent != "*" && b.bps.is_some()).collect();
    if !per_agent.is_empty() {
        let _ = writeln!(w, "Per agent (scored only):\n\n| arm | agent | stimulus | with memory | without | BPS | 95 % CI |\n|---|---|---|---:|---:|---:|---|");
        for b in per_agent {
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} | {} |",
                b.arm,
                b.agent,
                b.stimulus,
                prop(&b.memory),
                prop(&b.no_memory),
                f(b.bps),
                ci(b.ci)
            );
        }
        let _ = writeln!(w);
    }
    if !e.valence_effect.is_empty() {
        let _ = writeln!(w, "### Valence effect\n\nP(response | stimulus, memory): valence on − valence off.\n");
        let _ = writeln!(w, "| stimulus | response | valence on | valence off | difference | 95 % CI |\n|---|---|---:|---:|---:|---|");
        for v in &e.valence_effect {
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} |",
                v.stimulus,
                v.response,
                prop(&v.valence_on),
                prop(&v.valence_off),
                f(v.diff),
                ci(v.ci)
            );
        }
        let _ = writeln!(w);
    }

    let _ = writeln!(w, "## Social Consequence Score\n\nStance change toward a player after their act, divided by the act's valence.\n");
    let _ = writeln!(w, "| arm | act | scored | unscored | mean SCS | 95 % CI |\n|---|---|---:|---:|---:|---|");
    for x in &e.scs.summary {
        let _ = writeln!(w, "| {} | {} | {} | {} | {} | {} |", x.arm, x.act, x.n, x.unscored, f(x.mean), ci(x.ci));
    }
    if plots.iter().any(|p| p == "scs.svg") {
        let _ = writeln!(w, "\n![SCS](scs.svg)\n");
    }

    let _ = writeln!(
        w,
        "## Salience decay\n\nEach memory's salience across the dream cycles after it was made, by the valence the game gives its event.\n"
    );
    let _ = writeln!(w, "| arm | band | memories | points | slope / cycle | fitted at 0 | pruned | median age pruned |\n|---|---|---:|---:|---:|---:|---:|---:|");
    for b in &e.decay {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            b.arm,
            b.band,
            b.memories,
            b.points,
            f(b.slope),
            f(b.intercept),
            b.pruned,
            f(b.median_prune_age)
        );
    }
    if plots.iter().any(|p| p == "decay.svg") {
        let _ = writeln!(w, "\n![Decay](decay.svg)\n");
    }

    let _ = writeln!(w, "## Cost\n");
    let _ = writeln!(
        w,
        "| arm | decisions | with tokens | prompt / decision | completion / decision | latency p50 | model calls | model time p50 | agent-hours | tokens / agent-hour | dreams | raw tokens | summary tokens | raw ÷ summary | dream mean | dream p50 | dream max |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for c in &e.cost {
        let ms = |x: Option<f64>| x.map(|v| format!("{v:.1} ms")).unwrap_or_else(|| "—".into());
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.arm,
            c.decisions,
            c.with_tokens,
            f(c.prompt_mean),
            f(c.completion_mean),
            ms(c.latency_p50_ms),
            c.model_calls,
            ms(c.model_ms_p50),
            c.agent_hours,
            f(c.tokens_per_agent_hour),
            c.dreams,
            c.raw_tokens,
            c.summary_tokens,
            f(c.compression),
            ms(c.dream_ms_mean),
            ms(c.dream_ms_p50),
            ms(c.dream_ms_max)
        );
    }
    if plots.iter().any(|p| p == "cost.svg") {
        let _ = writeln!(w, "\n![Cost](cost.svg)\n");
    }
    let _ = writeln!(w, "\nDefinitions: `docs/research.md`. Intervals are seeded percentile bootstraps (1,000 resamples).");
    s
}

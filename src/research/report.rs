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

/// A proportion and its Wilson interval.
fn prop_ci(p: &Proportion, c: Option<[f64; 2]>) -> String {
    match c {
        Some(_) => format!("{} {}", prop(p), ci(c)),
        None => prop(p),
    }
}

/// Memory against the record: the probes' scores by ability, band and valence arm, for
/// each reader, and the share of probes whose events the graph still held by dream age.
pub fn memcheck(w: &mut String, m: &super::memcheck_run::Memcheck) {
    let _ = writeln!(
        w,
        "## Memory against the record\n\n{} probes made from the agents' own recorded events (LongMemEval's five abilities; abstention's right answer is \"I don't know\"), answered from what each agent would be given at its next login. Share right, Wilson interval:\n",
        m.probes
    );
    let _ = writeln!(w, "| reader | by | group | right | 95 % CI |\n|---|---|---|---:|---|");
    for s in &m.scores {
        let _ = writeln!(w, "| {} | {} | {} | {} | {} |", s.reader, s.by, s.group, prop(&s.right), ci(s.ci));
    }
    if !m.held.is_empty() {
        let _ = writeln!(w, "\nThe forgetting curve against the truth — probes whose events the memory graph still holds, by dream cycles since it took them in:\n\n| cycles | held |\n|---:|---:|");
        for (age, p) in &m.held {
            let _ = writeln!(w, "| {age} | {} |", prop(p));
        }
    }
    let _ = writeln!(w);
}

/// What the metrics could not use: decisions by status, encounters not counted, agents
/// stuck, sessions with no decision.
fn quality(w: &mut String, e: &Evaluation) {
    let q = &e.quality;
    let _ = writeln!(w, "## Data quality\n");
    let _ = writeln!(
        w,
        "Only commands the game took (status `ok`) are responses: a move refused for exhaustion (`failed`), a flee while resting (`wrong_position`), a missing target, an unknown or rate-limited command is passed over. Decisions by status:\n"
    );
    let _ = writeln!(w, "| arm | status | decisions | share |\n|---|---|---:|---:|");
    for x in &q.statuses {
        let _ = writeln!(w, "| {} | {} | {} | {:.1} % |", x.arm, x.status, x.n, x.share * 100.0);
    }
    let _ = writeln!(w, "\nEncounters: {} counted of {}.", e.sample.trials, e.sample.encounters);
    if !q.uncounted.is_empty() {
        let _ = writeln!(w, "\n| arm | not counted because | encounters |\n|---|---|---:|");
        for u in &q.uncounted {
            let why = match u.why.as_str() {
                "refused" => "the game refused every act (refused)",
                "informed_only" => "it only looked (informed_only)",
                other => other,
            };
            let _ = writeln!(w, "| {} | {why} | {} |", u.arm, u.n);
        }
    }
    if q.stuck.is_empty() {
        let _ = writeln!(w, "\nNo session repeated a command {} times in a row.", super::quality::STUCK_RUN);
    } else {
        let _ = writeln!(
            w,
            "\nSessions stuck: one command refused (`refused`), or one command line said again whatever the answer (`repeated`), {} times or more in a row ({} runs; the longest 20):\n\n| agent | session | stuck | command | last status | in a row | from seq |\n|---|---:|---|---|---|---:|---:|",
            super::quality::STUCK_RUN,
            q.stuck.len()
        );
        for x in q.stuck.iter().take(20) {
            let line = format!("{} {}", x.verb, x.args);
            let _ =
                writeln!(w, "| {} | {} | {} | {} | {} | {} | {} |", x.agent, x.session, x.kind, line.trim(), x.status, x.run, x.from_seq);
        }
    }
    let _ = writeln!(w, "\nSessions with no decision: {}.\n", q.silent_sessions.len());
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
        "{}Agents: {who}; {since}; split by {}.\n",
        e.filter.run.as_deref().map(|r| format!("Run `{r}`. ")).unwrap_or_default(),
        match e.by {
            super::By::Valence => "the sessions' valence flag",
            super::By::Arm => "the run's arms",
            super::By::None => "nothing",
        }
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
        "|P(response \\| stimulus, memory) − P(response \\| stimulus, no memory)| over the encounters counted — only commands the game took are responses (see Data quality) — with Wilson intervals per group, Newcombe's interval of the difference and Fisher's exact p; bands (≥ 0.3 strong, < 0.1 none) only with at least {} trials in each group, else `too_few`. All agents, the stimulus's headline response.\n",
        super::bps::MIN_N
    );
    let _ = writeln!(
        w,
        "| arm | stimulus | response | with memory | without | BPS | 95 % CI | p | band |\n|---|---|---|---:|---:|---:|---|---:|---|"
    );
    for b in e.bps.iter().filter(|b| b.agent == "*" && b.response == headline(&b.stimulus)) {
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            b.arm,
            b.stimulus,
            b.response,
            prop_ci(&b.memory, b.memory_ci),
            prop_ci(&b.no_memory, b.no_memory_ci),
            f(b.bps),
            ci(b.ci),
            f(b.p_value),
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
        let _ = writeln!(
            w,
            "### Valence effect\n\nP(response | stimulus, memory): valence on − valence off, between arms of one group (policy) that differ only in valence; Newcombe's interval, Fisher's exact p.\n"
        );
        let _ = writeln!(
            w,
            "| group | stimulus | response | valence on | valence off | difference | 95 % CI | p |\n|---|---|---|---:|---:|---:|---|---:|"
        );
        for v in &e.valence_effect {
            let _ = writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                if v.group.is_empty() { "—" } else { &v.group },
                v.stimulus,
                v.response,
                prop_ci(&v.valence_on, v.on_ci),
                prop_ci(&v.valence_off, v.off_ci),
                f(v.diff),
                ci(v.ci),
                f(v.p_value)
            );
        }
        let _ = writeln!(w);
    }

    quality(w, e);
    if let Some(m) = &e.memcheck {
        memcheck(w, m);
    }
    if !e.drift.arms.is_empty() {
        let _ = writeln!(
            w,
            "## Drift across dreams\n\nBetween an agent's consecutive sessions: the Jensen–Shannon divergence of its decisions over acts (0 the same, 1 nothing shared), mean per arm with a bootstrap interval; {} steps in all (`evaluation.json` `drift` has each, with the words' Jaccard distance and the change of stance toward players met in both).\n\n| arm | steps | JS, a dream between | 95 % CI | JS, no dream between |\n|---|---:|---:|---|---:|",
            e.drift.steps.len()
        );
        for a in &e.drift.arms {
            let _ = writeln!(w, "| {} | {} | {} | {} | {} |", a.arm, a.steps, f(a.acts_js_dreamed), ci(a.ci), f(a.acts_js_undreamed));
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
    let _ = writeln!(
        w,
        "\nDefinitions: `docs/research.md`. Proportions: Wilson intervals; differences: Newcombe's hybrid score interval, Fisher's exact p; means (SCS): seeded percentile bootstraps (1,000 resamples); decay: normal intervals of each mean."
    );
    s
}

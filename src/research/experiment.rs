//! `pawns experiment`: the paper's ablation in one command. A fleet of agents plays the
//! running server in two arms — valence on and valence off (protocol §4) — through the
//! real agent client (`agent::run`) over the public WebSocket protocol, session after
//! session, each session ended by `quit` and dreamed before the next login (the logout
//! dream, then `POST /api/admin/dream` so the next session is given the new memory).
//! Then the record of exactly those agents, since the experiment began, is evaluated.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::agent::config::AgentConfig;
use crate::agent::run::{self, RunOptions};
use crate::agent::{AgentError, Policy};

#[derive(Debug, Clone)]
pub struct ExperimentOptions {
    /// `http://host:port` of the running server (its admin API must be reachable:
    /// loopback).
    pub server: String,
    pub agents: usize,
    /// How long the whole experiment plays.
    pub duration: Duration,
    /// One session's length (the agent quits, dreams, logs in again).
    pub session: Duration,
    pub policy: Policy,
    pub llm_endpoint: String,
    pub model: String,
    /// Names are `{prefix}on01…` and `{prefix}off01…`.
    pub prefix: String,
    /// Least time between two decisions of one agent.
    pub pace: Duration,
    pub seed: u64,
    /// Agents beside the two arms that play on the model (`--policy llm` at
    /// `llm_endpoint`), valence on: a third arm, `llm/valence_on`, named `{prefix}llm01…`.
    pub llm_agents: usize,
}

/// One agent of the fleet.
#[derive(Debug, Clone)]
pub struct Member {
    pub name: String,
    pub valence: bool,
    pub policy: Policy,
}

impl Member {
    /// Its arm: the policy and the valence (`fsm/valence_on`).
    pub fn arm(&self) -> String {
        format!("{}/{}", self.policy.name(), if self.valence { "valence_on" } else { "valence_off" })
    }
}

/// What the fleet did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct FleetReport {
    pub agents: usize,
    pub sessions: u64,
    pub turns: u64,
    pub deaths: u64,
    pub kills: u64,
    /// Sessions that ended in an error (after retries), with why.
    pub failures: Vec<String>,
    pub started_us: u64,
    pub secs: f64,
}

/// The fleet's names and arms: of the `n` playing `policy` the first half (rounded up)
/// valence on; then `llm` more on the model, valence on.
pub fn members(prefix: &str, n: usize, policy: Policy, llm: usize) -> Vec<Member> {
    let on = n.div_ceil(2);
    let mut out: Vec<Member> = (0..n)
        .map(|i| {
            let valence = i < on;
            let k = if valence { i + 1 } else { i + 1 - on };
            Member { name: format!("{prefix}{}{k:02}", if valence { "on" } else { "off" }), valence, policy }
        })
        .collect();
    out.extend((0..llm).map(|i| Member { name: format!("{prefix}llm{:02}", i + 1), valence: true, policy: Policy::Llm }));
    out
}

/// The run's arms for a fleet.
pub fn arms(fleet: &[Member], model: &str) -> Vec<super::runs::Arm> {
    let mut out: Vec<super::runs::Arm> = Vec::new();
    for m in fleet {
        let name = m.arm();
        match out.iter_mut().find(|a| a.name == name) {
            Some(a) => a.agents.push(m.name.clone()),
            None => out.push(super::runs::Arm {
                name,
                policy: m.policy.name().into(),
                model: if m.policy == Policy::Llm { model.to_string() } else { String::new() },
                valence: m.valence,
                agents: vec![m.name.clone()],
            }),
        }
    }
    out
}

/// A branch's change made to the fleet that plays on (`pawns branch`), and to the model
/// its agents on the model ask; changes to memory leave it as it is.
pub fn change_fleet(change: &crate::replay::change::Change, fleet: &mut Vec<Member>, model: &mut String) {
    use crate::replay::change::Change;
    let is = |m: &Member, a: &Option<String>| a.as_deref().is_none_or(|a| m.name.eq_ignore_ascii_case(a));
    match change {
        Change::ValenceOff { agent } => fleet.iter_mut().filter(|m| is(m, agent)).for_each(|m| m.valence = false),
        Change::Policy { agent, policy } => fleet.iter_mut().filter(|m| is(m, agent)).for_each(|m| m.policy = *policy),
        Change::Model { model: m } => *model = m.clone(),
        Change::Remove { agent } => fleet.retain(|m| !m.name.eq_ignore_ascii_case(agent)),
        _ => {}
    }
}

/// When the agent's last dream ended (0: it has not dreamed).
async fn last_dream_us(base: &str, agent: &str) -> u64 {
    match crate::client::get(&format!("{base}/api/agents/{agent}/memory")).await {
        Ok(body) => serde_json::from_str::<serde_json::Value>(&body).unwrap_or_default()["last_dream"]["at_us"].as_u64().unwrap_or(0),
        Err(_) => 0,
    }
}

/// Waits (at most a minute) for the dream that follows a session's logout: a dream newer
/// than `before` (the last one before the session). Without one, asks for a dream.
async fn logout_dreamed(server: &str, agent: &str, before: u64) -> Result<(), String> {
    let base = server.trim_end_matches('/');
    let give_up = Instant::now() + Duration::from_secs(60);
    while Instant::now() < give_up {
        if last_dream_us(base, agent).await > before {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    crate::client::post(&format!("{base}/api/admin/dream?agent={agent}")).await.map(|_| ()).map_err(|e| format!("dream: {e:#}"))
}

fn host_port(server: &str) -> Result<(String, u16), String> {
    let rest =
        server.trim_end_matches('/').strip_prefix("http://").ok_or_else(|| format!("{server:?}: give the server as http://host:port"))?;
    let (host, port) = rest.rsplit_once(':').ok_or_else(|| format!("{server:?}: give the server as http://host:port"))?;
    let port = port.parse().map_err(|_| format!("{server:?}: {port:?} is not a port"))?;
    Ok((host.to_string(), port))
}

/// Runs the fleet; `progress` is told each session that ends.
/// Told of each session that ends: the fleet so far, and a line about the session.
pub type Progress = Arc<dyn Fn(&FleetReport, &str) + Send + Sync>;

pub async fn run_fleet(opts: &ExperimentOptions, progress: Progress) -> Result<FleetReport, String> {
    if opts.agents == 0 {
        return Err("--agents must be at least 1".into());
    }
    play(opts, members(&opts.prefix, opts.agents, opts.policy, opts.llm_agents), None, progress).await
}

/// Plays `fleet` (a branch's: the parent's, changed) as `opts` says (its agent counts and
/// policy unread); the agents on the model ask `journal` first, if given.
pub async fn play(
    opts: &ExperimentOptions,
    fleet: Vec<Member>,
    journal: Option<crate::agent::llm::Journal>,
    progress: Progress,
) -> Result<FleetReport, String> {
    let (host, port) = host_port(&opts.server)?;
    if fleet.is_empty() {
        return Err("no agent is left to play".into());
    }
    if fleet.iter().any(|m| m.policy == Policy::Llm) && opts.llm_endpoint.is_empty() {
        return Err("agents on the model need --llm-endpoint".into());
    }
    let mut configs = Vec::new();
    for m in &fleet {
        let key = crate::client::create_key(&opts.server, &m.name).await.map_err(|e| format!("making a key for {}: {e:#}", m.name))?;
        configs.push(AgentConfig {
            key,
            player_name: m.name.clone(),
            game_host: host.clone(),
            game_port: port,
            valence: m.valence,
            llm_endpoint: opts.llm_endpoint.clone(),
            model_fast: if opts.model.is_empty() { AgentConfig::default().model_fast } else { opts.model.clone() },
            ..AgentConfig::default()
        });
    }
    let started = Instant::now();
    let report = Arc::new(Mutex::new(FleetReport { agents: fleet.len(), started_us: crate::record::unix_us(), ..Default::default() }));
    let mut tasks = Vec::new();
    for (i, cfg) in configs.into_iter().enumerate() {
        let (opts, report, progress, journal) = (opts.clone(), report.clone(), progress.clone(), journal.clone());
        let policy = fleet[i].policy;
        tasks.push(tokio::spawn(async move {
            // Logins are spread out: the server limits how fast one address logs in.
            tokio::time::sleep(Duration::from_millis(250 * i as u64)).await;
            let deadline = started + opts.duration;
            let mut n = 0u64;
            while Instant::now() + Duration::from_secs(5) < deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                let run_opts = RunOptions {
                    policy,
                    duration: Some(opts.session.min(left)),
                    pace: opts.pace,
                    seed: Some(opts.seed.wrapping_add(i as u64 * 1_000 + n)),
                    chatter: false,
                    model_journal: journal.clone(),
                    ..RunOptions::default()
                };
                n += 1;
                let before = last_dream_us(opts.server.trim_end_matches('/'), &cfg.player_name).await;
                let outcome = run::run(&cfg, run_opts, &mut std::io::sink()).await;
                let line = {
                    let mut r = report.lock().await;
                    match &outcome {
                        Ok(s) => {
                            r.sessions += 1;
                            r.turns += s.turns;
                            r.deaths += u64::from(s.deaths);
                            r.kills += u64::from(s.kills);
                            format!("{}: session {n}: {} turns, {} deaths, {} kills", cfg.player_name, s.turns, s.deaths, s.kills)
                        }
                        Err(e) => {
                            r.failures.push(format!("{}: {e}", cfg.player_name));
                            format!("{}: session {n} failed: {e}", cfg.player_name)
                        }
                    }
                };
                progress(&*report.lock().await, &line);
                if let Err(AgentError::Refused { code, .. }) = &outcome {
                    if code != "rate_limited" {
                        return;
                    }
                }
                if outcome.is_err() {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
                // Dreamed before the next login: the logout's dream, which runs once the
                // session's last records are durable.
                if let Err(e) = logout_dreamed(&opts.server, &cfg.player_name, before).await {
                    report.lock().await.failures.push(format!("{}: {e}", cfg.player_name));
                }
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let mut r = report.lock().await.clone();
    r.secs = started.elapsed().as_secs_f64();
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fleet_is_split_in_two_arms_with_valid_names() {
        let m = members("exp", 5, Policy::Fsm, 2);
        let names: Vec<(&str, bool)> = m.iter().map(|m| (m.name.as_str(), m.valence)).collect();
        assert_eq!(
            names,
            vec![
                ("expon01", true),
                ("expon02", true),
                ("expon03", true),
                ("expoff01", false),
                ("expoff02", false),
                ("expllm01", true),
                ("expllm02", true)
            ]
        );
        let a = arms(&m, "smollm2");
        let a: Vec<(&str, usize, &str)> = a.iter().map(|a| (a.name.as_str(), a.agents.len(), a.model.as_str())).collect();
        assert_eq!(a, vec![("fsm/valence_on", 3, ""), ("fsm/valence_off", 2, ""), ("llm/valence_on", 2, "smollm2")]);
        assert!(m.iter().all(|m| crate::auth::names::check(&m.name).is_ok()));
        assert_eq!(host_port("http://127.0.0.1:4350/").unwrap(), ("127.0.0.1".to_string(), 4350));
    }

    #[test]
    fn a_branch_changes_the_fleet_it_names() {
        use crate::replay::change::Change;
        let mut fleet = members("b", 4, Policy::Fsm, 0);
        let mut model = String::new();
        change_fleet(&Change::parse("valence-off:bon01").unwrap(), &mut fleet, &mut model);
        assert!(!fleet[0].valence && fleet[1].valence);
        change_fleet(&Change::parse("remove:boff02").unwrap(), &mut fleet, &mut model);
        assert_eq!(fleet.len(), 3);
        change_fleet(&Change::parse("policy:llm").unwrap(), &mut fleet, &mut model);
        assert!(fleet.iter().all(|m| m.policy == Policy::Llm));
        change_fleet(&Change::parse("model:smollm2").unwrap(), &mut fleet, &mut model);
        assert_eq!(model, "smollm2");
        change_fleet(&Change::parse("forget:bon01").unwrap(), &mut fleet, &mut model);
        assert_eq!(fleet.len(), 3);
        assert!(host_port("127.0.0.1:4350").is_err());
    }
}

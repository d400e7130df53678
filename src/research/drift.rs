//! Drift across dreams: what consolidation changed in how an agent acts. Each session
//! gets a behavioural fingerprint — its decisions' distribution over acts (flee, leave,
//! attack, help, talk, other, and commands that only inform), the words it said, and its
//! stance toward each other player it met — and each pair of an agent's consecutive
//! sessions (a dream between them, in an experiment) its distance: the Jensen–Shannon
//! divergence of the act distributions (base 2: 0 the same, 1 nothing shared), the
//! Jaccard distance of the words, and the mean change of stance toward those met in both.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::bps::{act_of, Act};
use super::dataset::Dataset;
use super::scs::stance;
use super::stats::mean_interval;

const ACTS: usize = 7;

fn slot(a: Option<Act>) -> usize {
    match a {
        Some(Act::Flee) => 0,
        Some(Act::Leave) => 1,
        Some(Act::Attack) => 2,
        Some(Act::Help) => 3,
        Some(Act::Talk) => 4,
        Some(Act::Other) => 5,
        None => 6,
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Print {
    acts: [f64; ACTS],
    words: BTreeSet<String>,
    stance: BTreeMap<String, (f64, u32)>,
}

/// Jensen–Shannon divergence (base 2) of two distributions.
pub fn js(p: &[f64], q: &[f64]) -> f64 {
    let kl = |a: &[f64], m: &[f64]| a.iter().zip(m).filter(|(x, _)| **x > 0.0).map(|(x, y)| x * (x / y).log2()).sum::<f64>();
    let m: Vec<f64> = p.iter().zip(q).map(|(a, b)| (a + b) / 2.0).collect();
    ((kl(p, &m) + kl(q, &m)) / 2.0).clamp(0.0, 1.0)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub agent: String,
    pub arm: String,
    pub from_session: u64,
    pub to_session: u64,
    /// Dreams the agent had between the two sessions.
    pub dreams: u64,
    pub acts_js: f64,
    /// None when neither session said anything.
    pub words_jaccard: Option<f64>,
    /// None when no player was met in both.
    pub stance_change: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DriftArm {
    pub arm: String,
    pub steps: usize,
    /// The mean act divergence between consecutive sessions with a dream between them,
    /// and its bootstrap interval; the same without a dream between (none in an experiment).
    pub acts_js_dreamed: Option<f64>,
    pub ci: Option<[f64; 2]>,
    pub acts_js_undreamed: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    pub steps: Vec<Step>,
    pub arms: Vec<DriftArm>,
}

pub fn drift(ds: &Dataset, arm_of: &dyn Fn(&str, bool) -> String) -> Drift {
    let mut prints: Vec<Print> = vec![Print::default(); ds.sessions.len()];
    let mut counts = vec![0f64; ds.sessions.len()];
    for d in &ds.decisions {
        let p = &mut prints[d.session];
        p.acts[slot(act_of(&d.verb))] += 1.0;
        counts[d.session] += 1.0;
        if act_of(&d.verb) == Some(Act::Talk) {
            p.words.extend(
                d.args.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).filter(|w| w.len() > 2),
            );
        }
        for x in &d.players {
            let e = p.stance.entry(x.clone()).or_default();
            e.0 += f64::from(stance(d, x));
            e.1 += 1;
        }
    }
    for (p, n) in prints.iter_mut().zip(&counts) {
        if *n > 0.0 {
            p.acts.iter_mut().for_each(|x| *x /= n);
        }
    }
    let mut by_agent: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, s) in ds.sessions.iter().enumerate().filter(|(i, _)| counts[*i] > 0.0) {
        by_agent.entry(s.agent.as_str()).or_default().push(i);
    }
    let mut steps = Vec::new();
    for (agent, mut idx) in by_agent {
        idx.sort_by_key(|i| ds.sessions[*i].started_us);
        for w in idx.windows(2) {
            let (a, b) = (&ds.sessions[w[0]], &ds.sessions[w[1]]);
            let (pa, pb) = (&prints[w[0]], &prints[w[1]]);
            let dreams = ds.dreams.iter().filter(|d| d.agent == agent && d.at_us >= a.started_us && d.at_us < b.started_us).count() as u64;
            let union = pa.words.union(&pb.words).count();
            let words_jaccard = (union > 0).then(|| 1.0 - pa.words.intersection(&pb.words).count() as f64 / union as f64);
            let changes: Vec<f64> = pa
                .stance
                .iter()
                .filter_map(|(x, (s, n))| pb.stance.get(x).map(|(t, m)| (t / f64::from(*m) - s / f64::from(*n)).abs()))
                .collect();
            steps.push(Step {
                agent: agent.into(),
                arm: arm_of(agent, b.valence),
                from_session: a.session,
                to_session: b.session,
                dreams,
                acts_js: js(&pa.acts, &pb.acts),
                words_jaccard,
                stance_change: (!changes.is_empty()).then(|| changes.iter().sum::<f64>() / changes.len() as f64),
            });
        }
    }
    let mut arms: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for s in &steps {
        let a = arms.entry(s.arm.as_str()).or_default();
        if s.dreams > 0 {
            a.0.push(s.acts_js)
        } else {
            a.1.push(s.acts_js)
        }
    }
    let arms = arms
        .into_iter()
        .map(|(arm, (dreamed, undreamed))| {
            let (mean, ci) = mean_interval(&dreamed);
            DriftArm {
                arm: arm.into(),
                steps: dreamed.len() + undreamed.len(),
                acts_js_dreamed: mean,
                ci,
                acts_js_undreamed: mean_interval(&undreamed).0,
            }
        })
        .collect();
    Drift { steps, arms }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::research::dataset::{DecisionRow, DreamRow, SessionRow};

    /// Ann attacks in her first session, dreams, flees in her second, and flees again in
    /// a third with no dream between: all the drift is across the dream.
    #[test]
    fn drift_is_measured_across_each_dream() {
        let session = |i: u64| SessionRow { session: i, agent: "ann".into(), valence: true, started_us: i * 100, ..Default::default() };
        let d = |s: usize, verb: &str, args: &str, players: &[&str]| DecisionRow {
            session: s,
            verb: verb.into(),
            args: args.into(),
            status: "ok".into(),
            players: players.iter().map(|p| p.to_string()).collect(),
            ..Default::default()
        };
        let ds = Dataset {
            sessions: vec![session(0), session(1), session(2)],
            decisions: vec![
                d(0, "kill", "bram", &["bram"]),
                d(0, "say", "hello there bram", &["bram"]),
                d(1, "flee", "", &["bram"]),
                d(1, "say", "goodbye bram", &["bram"]),
                d(2, "flee", "", &[]),
                d(2, "say", "goodbye bram", &[]),
            ],
            dreams: vec![DreamRow { agent: "ann".into(), at_us: 50, ..Default::default() }],
            ..Default::default()
        };
        let out = drift(&ds, &|_, _| "valence_on".into());
        assert_eq!(out.steps.len(), 2);
        let (a, b) = (&out.steps[0], &out.steps[1]);
        assert_eq!((a.dreams, b.dreams), (1, 0));
        // Half attack, half talk → half flee, half talk: JS = ½ (the halves that differ).
        assert!((a.acts_js - 0.5).abs() < 1e-12, "{a:?}");
        assert_eq!(b.acts_js, 0.0);
        // Words: {hello, there, bram} against {goodbye, bram}: 1 of 4 shared.
        assert_eq!(a.words_jaccard, Some(0.75));
        assert_eq!(b.words_jaccard, Some(0.0));
        // Toward Bram: attack (−2) and talk (0) → −1; flee (−1) and talk → −½: ½ change.
        assert_eq!(a.stance_change, Some(0.5));
        assert_eq!(b.stance_change, None, "Bram was not met in the third");
        assert_eq!(out.arms[0].acts_js_dreamed, Some(0.5));
        assert_eq!(out.arms[0].acts_js_undreamed, Some(0.0));
    }

    #[test]
    fn js_is_zero_for_the_same_and_one_for_nothing_shared() {
        assert_eq!(js(&[0.5, 0.5, 0.0], &[0.5, 0.5, 0.0]), 0.0);
        assert!((js(&[1.0, 0.0], &[0.0, 1.0]) - 1.0).abs() < 1e-12);
        // Worked by hand: p = (1, 0), q = (½, ½): m = (¾, ¼); KL(p‖m) = log2(4/3),
        // KL(q‖m) = ½·log2(2/3) + ½·log2(2); JS = their mean.
        let want = ((4.0f64 / 3.0).log2() + 0.5 * (2.0f64 / 3.0).log2() + 0.5) / 2.0;
        assert!((js(&[1.0, 0.0], &[0.5, 0.5]) - want).abs() < 1e-12);
    }
}

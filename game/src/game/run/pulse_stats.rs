//! How long pulses and their phases take, and how long commands wait for the engine;
//! logged every 600 pulses so an overloaded engine shows in the log.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use crate::game::run::histogram::LateWindow;
use crate::game::run::stats::{EngineStats, PULSE_WINDOW};

/// How long pulses take; logged every 600 pulses so an overloaded engine is visible, and
/// counted into the engine's counters (`/metrics`, `/health`) as they happen.
pub struct PulseStats {
    total: Duration,
    max: Duration,
    count: u32,
    overruns: u32,
    /// Command received by its session → handled by the engine, in microseconds.
    pub command_us: Vec<u32>,
    /// Longest time in each phase: commands, combat, mobs, zones, regen, housekeeping, flush.
    pub phase_max: [Duration; 7],
    /// The engine's counters (the server reads them for `/metrics` and `/health`).
    pub counters: Arc<EngineStats>,
    overrun_window: LateWindow,
}

impl Default for PulseStats {
    fn default() -> Self {
        PulseStats {
            total: Duration::ZERO,
            max: Duration::ZERO,
            count: 0,
            overruns: 0,
            command_us: Vec::new(),
            phase_max: [Duration::ZERO; 7],
            counters: Arc::default(),
            overrun_window: LateWindow::new(PULSE_WINDOW),
        }
    }
}

pub struct PhaseClock(std::time::Instant);

impl PhaseClock {
    pub fn start() -> Self {
        PhaseClock(std::time::Instant::now())
    }
    pub fn lap(&mut self, max: &mut Duration) {
        let now = std::time::Instant::now();
        *max = (*max).max(now - self.0);
        self.0 = now;
    }
}

impl PulseStats {
    /// A command ran; it had waited `waited` since its session read it.
    pub fn command_ran(&mut self, waited: Duration) {
        self.command_us.push(waited.as_micros().min(u32::MAX as u128) as u32);
        self.counters.commands.fetch_add(1, Relaxed);
        self.counters.command_wait.observe_duration(waited);
    }

    /// A pulse ended after `took`.
    pub fn record(&mut self, took: Duration, pulse_len: Duration, pulse: u64) {
        self.total += took;
        self.max = self.max.max(took);
        self.count += 1;
        let over = took > pulse_len;
        if over {
            self.overruns += 1;
            self.counters.pulse_overruns.fetch_add(1, Relaxed);
        }
        self.counters.pulse.observe_duration(took);
        self.counters.pulse_ended();
        if let Some(n) = self.overrun_window.add(over) {
            self.counters.pulse_overruns_recent.store(n as u64, Relaxed);
        }
        if pulse.is_multiple_of(600) && self.count > 0 {
            let avg = self.total / self.count;
            self.command_us.sort_unstable();
            let pct = |p: f64| self.command_us.get(((self.command_us.len() as f64 - 1.0).max(0.0) * p) as usize).copied().unwrap_or(0);
            let (c50, c99, cmax) = (pct(0.5), pct(0.99), self.command_us.last().copied().unwrap_or(0));
            if self.overruns > 0 {
                tracing::warn!(
                    avg_us = avg.as_micros() as u64,
                    max_us = self.max.as_micros() as u64,
                    overruns = self.overruns,
                    cmd_p50_us = c50,
                    cmd_p99_us = c99,
                    cmd_max_us = cmax,
                    phase_max_us = ?self.phase_max.map(|d| d.as_micros() as u64),
                    "pulses overran their length"
                );
            } else {
                tracing::debug!(avg_us = avg.as_micros() as u64, max_us = self.max.as_micros() as u64, cmd_p50_us = c50, cmd_p99_us = c99, cmd_max_us = cmax, phase_max_us = ?self.phase_max.map(|d| d.as_micros() as u64), "pulse timing");
            }
            self.total = Duration::ZERO;
            self.max = Duration::ZERO;
            self.count = 0;
            self.overruns = 0;
            self.command_us.clear();
            self.phase_max = [Duration::ZERO; 7];
        }
    }
}

impl crate::game::Engine {
    /// Counts the sessions in the world by protocol and role, and the world's objects
    /// and characters, for `/metrics`.
    pub(crate) fn count_sessions(&self) {
        let mut n = [0u64; 5];
        for id in self.world.players.values() {
            let Some(pc) = self.world.ch(*id).and_then(|c| c.pc.as_ref()) else { continue };
            match &pc.link {
                Some(l) => n[(l.json as usize) * 2 + pc.is_agent as usize] += 1,
                None => n[4] += 1,
            }
        }
        let s = &self.stats.counters.sessions;
        for (a, v) in [&s.telnet_human, &s.telnet_agent, &s.websocket_human, &s.websocket_agent, &s.linkdead].into_iter().zip(n) {
            a.store(v, Relaxed);
        }
        // The world's size: what a long run accumulating objects or mobs would show.
        let m = &self.stats.counters;
        m.world_objects.store(self.world.objs.len() as u64, Relaxed);
        m.world_characters.store(self.world.chars.len() as u64, Relaxed);
    }
}

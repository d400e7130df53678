//! How long pulses and their phases take, and how long commands wait for the engine;
//! logged every 600 pulses so an overloaded engine shows in the log.

use std::time::Duration;

/// How long pulses take; logged every 600 pulses so an overloaded engine is visible.
#[derive(Default)]
pub struct PulseStats {
    total: Duration,
    max: Duration,
    count: u32,
    overruns: u32,
    /// Command received by its session → handled by the engine, in microseconds.
    pub command_us: Vec<u32>,
    /// Longest time in each phase: commands, combat, mobs, zones, regen, housekeeping, flush.
    pub phase_max: [Duration; 7],
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
    pub fn record(&mut self, took: Duration, pulse_len: Duration, pulse: u64) {
        self.total += took;
        self.max = self.max.max(took);
        self.count += 1;
        if took > pulse_len {
            self.overruns += 1;
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
            *self = PulseStats::default();
        }
    }
}

//! What the engine counts about itself as it runs: pulses and their overruns, commands
//! and their wait, the sessions in the world, its slow-consumer cuts, admission. Atomics
//! any thread may read without a lock; the server's `/metrics` and `/health` read them
//! (beside the links' counters, which the server keeps around these).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crate::game::run::histogram::Histogram;

/// Pulses in one overrun window (10 s at the usual 100 ms).
pub const PULSE_WINDOW: u32 = 100;
/// Overruns in one window that make the server degraded.
pub const PULSE_OVERRUNS_DEGRADED: u64 = 10;
/// A pulse should end at least this often (µs); longer and the engine is stalled.
pub const STALL_US: u64 = 2_000_000;

/// Sessions by protocol and role.
#[derive(Default)]
pub struct Sessions {
    pub telnet_human: AtomicU64,
    pub telnet_agent: AtomicU64,
    pub websocket_human: AtomicU64,
    pub websocket_agent: AtomicU64,
    /// Characters in the world without a link (link-dead, waiting for a resume).
    pub linkdead: AtomicU64,
}

/// The engine's counters.
pub struct EngineStats {
    /// Pulse durations.
    pub pulse: Histogram,
    pub pulse_overruns: AtomicU64,
    /// Overruns in the last full window of `PULSE_WINDOW` pulses.
    pub pulse_overruns_recent: AtomicU64,
    /// When the last pulse ended, µs after `epoch` (a monotonic clock: the engine reads
    /// no wall clock but its journal's).
    pub last_pulse_us: AtomicU64,
    pub epoch: std::time::Instant,
    /// Commands run (typed or from `command` messages).
    pub commands: AtomicU64,
    /// A command's wait: received by its session → run by the engine.
    pub command_wait: Histogram,
    pub sessions: Sessions,
    /// Sessions cut off because the engine's queue to them was full.
    pub slow_consumer_engine: AtomicU64,
    /// Pulses that began with the engine's input held back, the record being far
    /// behind (`admission.rs`).
    pub input_held_pulses: AtomicU64,
    /// Whether input is held back now.
    pub input_held: AtomicBool,
    /// Ticks whose pulse was put off, the record being further behind still.
    pub pulses_deferred: AtomicU64,
    /// Objects and characters (players and mobs) in the world, once a second.
    pub world_objects: AtomicU64,
    pub world_characters: AtomicU64,
}

impl Default for EngineStats {
    fn default() -> Self {
        EngineStats {
            pulse: Histogram::seconds(),
            pulse_overruns: AtomicU64::new(0),
            pulse_overruns_recent: AtomicU64::new(0),
            last_pulse_us: AtomicU64::new(0),
            epoch: std::time::Instant::now(),
            commands: AtomicU64::new(0),
            command_wait: Histogram::seconds(),
            sessions: Sessions::default(),
            slow_consumer_engine: AtomicU64::new(0),
            input_held_pulses: AtomicU64::new(0),
            input_held: AtomicBool::new(false),
            pulses_deferred: AtomicU64::new(0),
            world_objects: AtomicU64::new(0),
            world_characters: AtomicU64::new(0),
        }
    }
}

impl EngineStats {
    /// µs since `epoch`.
    pub fn since_epoch_us(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    pub fn pulse_ended(&self) {
        self.last_pulse_us.store(self.since_epoch_us().max(1), Relaxed);
    }
}

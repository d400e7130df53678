//! What the world's own behaviour costs the engine: N players walking a world (one
//! command a second each, spread from the start room), every pulse timed, with the
//! world's scripts and special procedures on or off. In-process (no sockets), so the
//! figure is the engine's own; `pawns bench scripts` prints it.

use std::time::Instant;

use crate::game::model::character::{new_record, Char};
use crate::game::records::persist::SaveQueue;
use crate::game::run::engine::{Engine, EngineConfig};
use crate::worldfile::WorldProto;

#[derive(Debug, Default, Clone)]
pub struct ScriptBenchReport {
    pub scripts: bool,
    pub agents: usize,
    pub pulses: u32,
    /// Every pulse (its commands and its tick), microseconds, sorted.
    pub pulse_us: Vec<u32>,
    pub script_calls: u64,
    pub script_errors: u64,
    /// One top-level script call, microseconds (p50, p99).
    pub script_us: (u32, u32),
    pub scripts_disabled: usize,
    /// DG Scripts: runs (a resumed `wait` counts again), errors, one run (p50, p99).
    pub dg_runs: u64,
    pub dg_errors: u64,
    pub dg_us: (u32, u32),
    /// The triggers (and scripts) turned off, with why.
    pub turned_off: Vec<String>,
    /// DG triggers that met an error (each keeps running, as in tbaMUD): the last one.
    pub dg_failing: Vec<String>,
    /// Special procedures assigned and run natively (prototypes).
    pub specials: usize,
}

impl ScriptBenchReport {
    pub fn pulse_pct(&self, q: f64) -> u32 {
        if self.pulse_us.is_empty() {
            return 0;
        }
        self.pulse_us[((self.pulse_us.len() - 1) as f64 * q).round() as usize]
    }
}

const WALK: [&str; 7] = ["north", "east", "south", "west", "up", "down", "look"];

/// Runs `world` for `pulses` pulses with `agents` players, spread over its rooms
/// (every room in turn, so the scripted ones get their share) and walking from there.
/// With `scripted_rooms`, the players start in the rooms that carry scripts instead.
pub fn measure(world: WorldProto, agents: usize, pulses: u32, scripts: bool, seed: u64, scripted_rooms: bool) -> ScriptBenchReport {
    let cfg = EngineConfig { seed, scripts, ..EngineConfig::default() };
    let mut e = Engine::new(world, cfg, SaveQueue::discard());
    let rooms = e.world.rooms.len().max(1);
    let mut scripted: Vec<usize> = (0..e.world.rooms.len())
        .filter(|r| e.scripts.attached.contains_key(&(crate::script::ScriptKind::Room, e.world.rooms[*r].proto.vnum)))
        .collect();
    if !scripted_rooms {
        scripted.clear();
    }
    let mut ids = Vec::with_capacity(agents);
    for i in 0..agents {
        let room = if scripted.is_empty() { (i * 7919 + e.start_room) % rooms } else { scripted[i % scripted.len()] };
        let id = e.world.new_id();
        let name = format!("Bencher{i}");
        let mut record = new_record(&name, 3, 0, 1, true, [18; 6], 0);
        // Sturdy walkers: the figure is the world's behaviour, not their funerals.
        record.max_hit = 5000;
        record.hit = 5000;
        let ch = Char::from_record(id, &record, room, None);
        e.world.chars.insert(id, ch);
        e.world.players.insert(name.to_ascii_lowercase(), id);
        e.world.char_to_room(id, room);
        ids.push(id);
    }
    e.warm_scripts();
    let mut r = ScriptBenchReport { scripts, agents, pulses, ..Default::default() };
    r.specials = e.world.mob_specials.len() + e.world.obj_specials.len() + e.world.room_specials.len();
    for p in 0..pulses {
        let t = Instant::now();
        // A tenth of the players act each pulse: one command a second each.
        for (i, id) in ids.iter().enumerate() {
            if i % 10 == p as usize % 10 && e.world.ch(*id).is_some() {
                let w = WALK[(i + p as usize / 10) % WALK.len()];
                e.dispatch(*id, w);
            }
        }
        e.tick();
        r.pulse_us.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
    }
    r.pulse_us.sort_unstable();
    r.script_calls = e.scripts.stats.calls;
    r.script_errors = e.scripts.stats.errors;
    r.script_us = e.scripts.stats.percentiles();
    r.scripts_disabled = e.scripts.disabled.len();
    r.dg_runs = e.dg.stats.calls;
    r.dg_errors = e.dg.stats.errors;
    r.dg_us = e.dg.stats.percentiles();
    r.turned_off = e.scripts.disabled.values().cloned().collect();
    r.dg_failing = e.dg.last_errors.iter().map(|(v, why)| format!("trigger {v}: {why}")).collect();
    r.dg_failing.sort();
    r.turned_off.sort();
    crate::script::host::drop_host(e.scripts.uid);
    r
}

//! The panic boundary around a command, and the fault injection that tests it and the
//! shutdown (`serve --fault-injection`, hidden).
//!
//! A command that panics must not take the world down: `run_command` catches the unwind,
//! this answers the player with `internal` and a correlation id (the same id is in the
//! log with the command and the panic), and the pulse goes on. A panic anywhere else
//! ends the engine thread; `server` then marks the engine dead (`/health` answers 503)
//! and `serve` exits non-zero so a supervisor restarts it.

use std::sync::Arc;

use pawns_storage::CharacterRecord;

use crate::game::commands::CmdStatus;
use crate::game::model::character::{Char, ClientInfo};
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::output::Out;

/// Commands that exist only when `EngineConfig::fault_injection` is on (tests).
pub const PANIC_COMMAND: &str = "__panic";
pub const PANIC_ENGINE_COMMAND: &str = "__panic_engine";
/// `__linkdead N`: N agents copied from the caller (named `ghost1`, `ghost2`...) enter
/// the caller's room with a recorded session, are saved, and lose their link at once — the load a
/// shutdown must handle within its time.
pub const LINKDEAD_COMMAND: &str = "__linkdead";
/// `__slow_pulses N MS`: the next N pulses each take at least MS ms (the engine thread
/// sleeps), so overruns and a stalled engine can be seen from outside.
pub const SLOW_PULSES_COMMAND: &str = "__slow_pulses";
/// Most link-dead characters one `__linkdead` makes.
const MAX_LINKDEAD: usize = 20_000;

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

impl Engine {
    /// Fault injection: `__panic` panics inside the boundary, `__panic_engine` makes the
    /// next pulse panic outside it. `true` when the line was one of them.
    pub(crate) fn injected_fault(&mut self, caller: CharId, line: &str) -> bool {
        if !self.cfg.fault_injection {
            return false;
        }
        if let Some(n) = line.strip_prefix(LINKDEAD_COMMAND).and_then(|r| r.trim().parse::<usize>().ok()) {
            let made = self.spawn_linkdead(caller, n.min(MAX_LINKDEAD));
            self.send_text(caller, &format!("{made} link-dead characters made."));
            return true;
        }
        if let Some(rest) = line.strip_prefix(SLOW_PULSES_COMMAND) {
            let mut it = rest.split_whitespace().map(|w| w.parse::<u64>().ok());
            if let (Some(Some(n)), Some(Some(ms))) = (it.next(), it.next()) {
                self.fault_slow = (n.min(10_000) as u32, ms.min(60_000));
                self.send_text(caller, &format!("The next {n} pulses take {ms} ms each."));
                return true;
            }
        }
        match line {
            PANIC_COMMAND => panic!("fault injection: a command panicked"),
            PANIC_ENGINE_COMMAND => {
                self.fault_next_pulse = true;
                true
            }
            _ => false,
        }
    }

    /// Sleeps through one of the pulses `__slow_pulses` asked to be slow.
    pub(crate) fn injected_slow_pulse(&mut self) {
        if self.fault_slow.0 > 0 {
            self.fault_slow.0 -= 1;
            std::thread::sleep(std::time::Duration::from_millis(self.fault_slow.1));
        }
    }

    fn spawn_linkdead(&mut self, caller: CharId, n: usize) -> usize {
        let Some(template) = self.to_record(caller) else { return 0 };
        let Some(room) = self.world.ch(caller).map(|c| c.room) else { return 0 };
        let client = ClientInfo { valence: true, ..Default::default() };
        let mut made = 0;
        for i in 1..=n {
            let name = format!("ghost{i}");
            if self.world.players.contains_key(&name) {
                continue;
            }
            let record = CharacterRecord { name: name.clone(), is_agent: true, ..template.clone() };
            let id = self.world.new_id();
            let mut ch = Char::from_record(id, &record, room, None);
            if let Some(pc) = ch.pc.as_mut() {
                pc.linkdead_since = Some(self.pulse);
                pc.last_save_pulse = self.pulse;
            }
            self.world.chars.insert(id, ch);
            self.world.players.insert(name, id);
            self.world.char_to_room(id, room);
            self.begin_session(id, &client);
            self.save_char(id);
            made += 1;
        }
        made
    }

    pub(crate) fn command_panicked(&mut self, id: CharId, line: &str, panic: Box<dyn std::any::Any + Send>) -> CmdStatus {
        let correlation = format!("{:016x}", rand::Rng::gen::<u64>(&mut self.rng));
        let who = self.world.ch(id).map(|c| c.name.clone()).unwrap_or_default();
        tracing::error!(%correlation, player = %who, command = %line, "a command panicked: {}", panic_text(panic.as_ref()));
        let re = self.cur.as_ref().and_then(|(_, re)| re.clone());
        if let Some(json) = self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).map(|l| l.json) {
            let message = format!("the server failed on that command (correlation id {correlation}); the world goes on");
            let out = if json {
                Out::Error { code: "internal", message, re, extra: None }
            } else {
                Out::Event {
                    kind: crate::game::send::output::EventKind::Text,
                    text: Arc::from(format!("Something went wrong (internal): {message}.")),
                    from: None,
                    re,
                }
            };
            self.deliver(id, out);
        }
        CmdStatus::Internal
    }
}

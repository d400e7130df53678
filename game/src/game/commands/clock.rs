//! `time`: the hour and day of the mud (its clock is `clock.rs`).

use crate::game::run::engine::Engine;

impl Engine {
    pub fn do_time(&mut self, ch: crate::game::model::world::CharId, _args: &str) -> crate::game::commands::CmdStatus {
        let h = self.hour();
        let (h12, pm) = (if h.is_multiple_of(12) { 12 } else { h % 12 }, if h >= 12 { "pm" } else { "am" });
        self.send_text(ch, &format!("It is {h12} o'clock {pm}."));
        crate::game::commands::CmdStatus::Ok
    }
}

//! A branch point (`pawns branch`): where a replayed run stops being its parent and
//! plays on live. Journaled as `Input::Branch`, so a replay of the branch does the same.

use crate::game::model::world::CharId;
use crate::game::records::persist::SaveQueue;
use crate::game::run::engine::Engine;

impl Engine {
    /// A branch point (`pawns branch`, journaled as `Input::Branch`): every player, in id
    /// order, is saved where it stands (its gear with it) and leaves the world, its session
    /// ended `branched`; it logs in again to what was saved. The world (mobs, things,
    /// zones' clocks) goes on as it was. The scripts' Lua state starts afresh (the live
    /// branch runs on another thread; a replay of it does the same here).
    pub fn branch_point(&mut self) {
        let mut ids: Vec<CharId> = self.world.players.values().copied().collect();
        ids.sort_unstable();
        for id in ids {
            self.save_char(id);
            self.close_link(id, "branched", "This run branches here.");
            self.end_session(id, "branched");
            self.world.extract_char(id);
        }
        self.save_houses(false);
        self.save_chat_rooms(false);
        self.save_boards();
        self.send_outboxes();
        crate::script::host::drop_host(self.scripts.uid);
        self.warm_scripts();
    }

    /// Where the engine's saves go from now on (a branch's engine, replayed with its saves
    /// caught, is handed the server's writer).
    pub fn set_saves(&mut self, saves: SaveQueue) {
        self.saves = saves;
    }
}

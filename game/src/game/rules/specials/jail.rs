//! Dark Pawns's law (issue 51): its city and church guards (`take_to_jail`, and the
//! wall guard `wall_guard_ns`) do not kill a player they fight — the first blow that
//! would land instead beats it into submission and carts it off to the holding cell
//! 8118 with 1 hit point and everything it carried (C's `damage()`), for half its level
//! in mud hours (at least 2). The cell's procedure (`jail`) throws it out to 8117 when
//! the time is up; the jail guard 8088 keeps it from leaving north meanwhile, and the
//! guard outside (8089) keeps others from going south into it. On its own turn a guard
//! (with MOB_SPEC) fights like a `fighter`, and turns on the most evil character here
//! who is fighting someone good.

use crate::game::commands::CmdStatus;
use crate::game::model::tables::Position;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

/// The holding cell and the jail outside it (Kir Drax'in).
pub const CELL: u32 = 8118;
pub const OUTSIDE: u32 = 8117;

/// The procedures whose blows jail rather than hurt.
const JAILERS: &[&str] = &["take_to_jail", "wall_guard_ns"];

impl Engine {
    /// Whether `guard`'s blow on `victim` jails it instead (and does so).
    pub(crate) fn jails(&mut self, guard: CharId, victim: CharId) -> bool {
        if self.world.profile.family != crate::worldfile::profile::Family::DarkPawns {
            return false;
        }
        let (Some(g), Some(v)) = (self.world.ch(guard), self.world.ch(victim)) else { return false };
        if !g.is_npc() || v.pc.is_none() || g.hit <= g.max_hit / 2 || v.level >= crate::game::model::tables::MAX_LEVEL {
            return false;
        }
        if !self.mob_special(guard).is_some_and(|s| JAILERS.contains(&s)) {
            return false;
        }
        let Some(cell) = self.world.room_of_vnum(CELL) else { return false };
        let level = v.level as u32;
        for f in self.world.attackers_of(victim) {
            self.stop_fighting(f);
        }
        self.stop_fighting(victim);
        if let Some(g) = self.world.chars.get_mut(&guard) {
            g.memory.retain(|m| *m != victim);
        }
        self.act(
            "$n grabs $N by the collar, and quickly beats $M into submission.\nJerking $M to $S feet, $n carts $N off to jail.",
            guard,
            Some(victim),
            None,
            To::NotVictim,
            EventKind::Combat,
        );
        self.act(
            "$n grabs you by the collar and quickly beats you into submission.",
            guard,
            Some(victim),
            None,
            To::Victim,
            EventKind::Combat,
        );
        self.send_text(victim, "Jerking you to your feet, he carts you off to jail...");
        if let Some(v) = self.world.chars.get_mut(&victim) {
            v.hit = 1;
            v.position = Position::Standing;
            if let Some(pc) = v.pc.as_mut() {
                pc.jail_timer = (level / 2).max(2);
                pc.dirty = true;
            }
        }
        self.world.move_char(victim, cell);
        let look = self.room_text(victim, false);
        self.send_text(victim, &look);
        self.send_state(victim);
        true
    }

    /// A mud hour passes for everyone in jail.
    pub(crate) fn jail_tick(&mut self) {
        let players: Vec<CharId> = self.world.players.values().copied().collect();
        for id in players {
            if let Some(pc) = self.world.chars.get_mut(&id).and_then(|c| c.pc.as_mut()).filter(|pc| pc.jail_timer > 0) {
                pc.jail_timer -= 1;
                pc.dirty = true;
            }
        }
    }

    /// The cell's procedure: whoever's time is up is thrown out.
    pub(crate) fn jail_release(&mut self) {
        let cells: Vec<u32> = self.world.room_specials.iter().filter(|(_, s)| s.as_str() == "jail").map(|(v, _)| *v).collect();
        for vnum in cells {
            let (Some(cell), Some(out)) = (self.world.room_of_vnum(vnum), self.world.room_of_vnum(OUTSIDE)) else { continue };
            let free: Vec<CharId> = self.world.rooms[cell]
                .people
                .iter()
                .copied()
                .filter(|p| self.world.ch(*p).and_then(|c| c.pc.as_ref()).is_some_and(|pc| pc.jail_timer == 0))
                .collect();
            for p in free {
                if let Some(c) = self.world.chars.get_mut(&p).filter(|c| c.position < Position::Resting) {
                    c.position = Position::Sitting;
                }
                self.act("The guard says, 'Time's up, scum!'", p, None, None, To::Room, EventKind::Say);
                self.send_text(p, "The guard says, 'Time's up, scum!'");
                self.act("$n gets thrown out of the cell!", p, None, None, To::Room, EventKind::System);
                self.send_text(p, "The guard throws you out of the cell!");
                self.world.move_char(p, out);
                let look = self.room_text(p, false);
                self.send_text(p, &look);
                self.send_state(p);
            }
        }
    }

    /// `take_to_jail` on its own turn.
    pub(super) fn spec_take_to_jail(&mut self, id: CharId) -> bool {
        let Some(g) = self.world.ch(id) else { return false };
        if !g.awake() {
            return false;
        }
        if g.fighting.is_some() {
            return self.spec_fighter(id);
        }
        let room = g.room;
        let mut evil: Option<(i32, CharId)> = None;
        for &p in &self.world.rooms[room].people {
            let Some(t) = self.world.ch(p) else { continue };
            let Some(f) = t.fighting.and_then(|f| self.world.ch(f)) else { continue };
            if p != id && t.alignment < evil.map_or(1000, |(a, _)| a) && (t.pc.is_some() || f.is_npc()) {
                evil = Some((t.alignment, p));
            }
        }
        let Some((_, e)) = evil else { return false };
        if self.world.ch(e).and_then(|t| t.fighting).and_then(|f| self.world.ch(f)).is_none_or(|f| f.alignment < 0) {
            return false;
        }
        self.act("$n says, 'You just pissed me off, $N!'", id, Some(e), None, To::Room, EventKind::Say);
        self.hit(id, e);
        true
    }

    /// The jail's door guards: nobody leaves the cell north, nobody enters it south.
    pub(super) fn spec_jail_guard(&mut self, ch: CharId, special: &str, cmd: &str) -> Option<CmdStatus> {
        let c = self.world.ch(ch)?;
        if c.level >= crate::game::model::tables::MAX_LEVEL || c.is_npc() {
            return None;
        }
        let here = self.world.rooms[c.room].proto.vnum;
        let (room, way, to_room, to_ch) = match special {
            "jailguard" => (
                CELL,
                "north",
                "The guard grabs $n with one hand and throws $m back in the room.",
                "The guard stops you from leaving with one flabby hand.",
            ),
            _ => (
                OUTSIDE,
                "south",
                "The guard grabs $n by the collar and blocks $s way.",
                "The guard stops you from entering with one quick jerk of your collar.",
            ),
        };
        if here != room || cmd != way {
            return None;
        }
        self.act(to_room, ch, None, None, To::Room, EventKind::System);
        self.send_text(ch, to_ch);
        Some(CmdStatus::Failed)
    }
}

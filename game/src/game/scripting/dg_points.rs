//! More of tbaMUD's trigger points: the mud hour's timer (`f`, things) and time (`t`)
//! triggers, consuming (`s`: eat, drink, quaff), a mob's own entry (`i`), hit
//! percentage (`l`), and doors (`r`, mobs and rooms).

use crate::dg::bit;
use crate::game::model::world::{CharId, ObjId};
use crate::game::rules::spells::AffectKind;
use crate::game::run::engine::Engine;
use crate::game::scripting::dg_run::{DgCtx, Owner};

impl Engine {
    fn dg_live(&self) -> bool {
        !self.dg.off && !self.dg.triggers.is_empty()
    }

    /// Each mud hour: things' `otimer`s count down (at 0 every timer trigger of the
    /// thing runs), then the time triggers whose narg is the new hour (first of each
    /// entity; a mob's or a room's only where a player is in its zone, unless global).
    pub(crate) fn dg_hour(&mut self) {
        if !self.dg_live() {
            return;
        }
        let mut due = Vec::new();
        self.dg_timers.retain(|o, left| {
            *left = left.saturating_sub(1);
            if *left == 0 {
                due.push(*o);
            }
            *left > 0
        });
        for o in due {
            if self.world.obj(o).is_some() {
                self.dg_fire(Owner::Obj(o), 'f', DgCtx::default());
            }
        }
        let hour = self.hour() as i32;
        let zones: std::collections::HashSet<u32> =
            self.world.players.values().filter_map(|p| self.world.ch(*p)).map(|c| self.world.rooms[c.room].proto.zone).collect();
        let mut owners: Vec<(Owner, bool)> = Vec::new();
        let mut mobs: Vec<CharId> = self.world.chars.values().filter(|c| c.behaves).map(|c| c.id).collect();
        mobs.sort_unstable();
        owners.extend(mobs.into_iter().map(|m| (Owner::Mob(m), zones.contains(&self.world.rooms[self.world.chars[&m].room].proto.zone))));
        owners.extend(
            (0..self.world.rooms.len())
                .filter(|r| !self.world.rooms[*r].proto.triggers.is_empty())
                .map(|r| (Owner::Room(r), zones.contains(&self.world.rooms[r].proto.zone))),
        );
        owners.extend(self.dg_scripted_things().into_iter().map(|o| (Owner::Obj(o), true)));
        for (owner, populated) in owners {
            let triggers = self.dg_triggers_of(owner);
            let global = triggers.iter().any(|t| self.dg.triggers.get(t).is_some_and(|p| p.flags & bit('a') != 0));
            if !populated && !global {
                continue;
            }
            let ctx = DgCtx { vars: vec![("time", hour.to_string())], ..Default::default() };
            self.dg_fire_first(owner, 't', ctx, |narg, _| narg == hour);
        }
    }

    /// Eating, drinking or quaffing `obj` (`command`): its first consume trigger may
    /// answer 0 to stop it (nothing is eaten); a purged thing is not eaten either.
    pub(crate) fn dg_consume(&mut self, ch: CharId, obj: ObjId, command: &str) -> bool {
        if !self.dg_live() || self.dg_triggers_of(Owner::Obj(obj)).is_empty() {
            return true;
        }
        let ctx = DgCtx { actor: Some(ch), object: Some(obj), vars: vec![("command", command.to_string())], ..Default::default() };
        let answer = self.dg_fire_first(Owner::Obj(obj), 's', ctx, |_, _| true);
        answer != Some(0) && self.world.obj(obj).is_some() && self.world.ch(ch).is_some()
    }

    /// A mob walked into a room: its own entry triggers (`i`, narg a chance; not while
    /// charmed); one answering 0 sends it back where it came from, silently.
    pub(crate) fn dg_entry(&mut self, mob: CharId, from: usize) {
        if !self.dg_live() || !self.world.ch(mob).is_some_and(|c| c.behaves && c.is_npc()) || self.affected(mob, AffectKind::Charm) {
            return;
        }
        let roll = self.roll(1, 100);
        if self.dg_fire_first(Owner::Mob(mob), 'i', DgCtx::default(), |narg, _| roll <= narg.max(1)) == Some(0)
            && self.world.ch(mob).is_some()
        {
            self.world.char_from_room(mob);
            self.world.char_to_room(mob, from);
        }
    }

    /// After a blow at `victim`: a fighting mob's hit-percent triggers (`l`) whose narg
    /// its hit points have fallen to, the first of them, with its foe as the actor.
    pub(crate) fn dg_hit_percent(&mut self, victim: CharId) {
        if !self.dg_live() {
            return;
        }
        let Some(v) = self.world.ch(victim) else { return };
        if !v.is_npc() || !v.behaves || v.fighting.is_none() || v.max_hit <= 0 || self.affected(victim, AffectKind::Charm) {
            return;
        }
        let percent = v.hit * 100 / v.max_hit;
        let ctx = DgCtx { actor: v.fighting, ..Default::default() };
        self.dg_fire_first(Owner::Mob(victim), 'l', ctx, |narg, _| percent <= narg);
    }

    /// A door command that passed its checks (`cmd` open/close/unlock/lock/pick, toward
    /// `dir`): the door triggers (`r`) of the mobs here that see it, then the room's;
    /// one answering 0 stops it without a word.
    pub(crate) fn dg_door(&mut self, ch: CharId, cmd: &str, dir: usize) -> bool {
        if !self.dg_live() {
            return true;
        }
        let Some(room) = self.world.ch(ch).map(|c| c.room) else { return true };
        let ctx = DgCtx {
            actor: Some(ch),
            vars: vec![("cmd", cmd.to_string()), ("direction", crate::worldfile::DIR_NAMES[dir].to_string())],
            ..Default::default()
        };
        for m in self.world.behaving_in(room, ch) {
            let awake = self.world.ch(m).is_some_and(|c| c.awake() && c.fighting.is_none());
            if !awake || self.affected(m, AffectKind::Charm) {
                continue;
            }
            let roll = self.roll(1, 100);
            if let Some(answer) = self.dg_fire_first(Owner::Mob(m), 'r', ctx.clone(), |narg, _| roll <= narg.max(1)) {
                return answer != 0;
            }
        }
        if !self.world.rooms[room].proto.triggers.is_empty() || self.dg_attached.contains_key(&Owner::Room(room)) {
            let roll = self.roll(1, 100);
            if self.dg_fire_first(Owner::Room(room), 'r', ctx, |narg, _| roll <= narg.max(1)) == Some(0) {
                return false;
            }
        }
        true
    }
}

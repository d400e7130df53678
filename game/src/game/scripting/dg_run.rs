//! Where DG Scripts run (see `dg/`): firing a trigger of an entity, the runs waiting on
//! `wait` (resumed by the pulse, never blocking it), the random triggers every 13
//! seconds, and the trigger points in play.

use crate::dg::program::{execute, Outcome, Run};
use crate::dg::{bit, Attach};
use crate::game::model::world::{CharId, ObjId, RoomId};
use crate::game::run::engine::Engine;
use crate::game::scripting::dg_host::DgHostCtx;

/// Whose trigger runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    Mob(CharId),
    Obj(ObjId),
    Room(RoomId),
}

/// What a trigger passes its script besides `self`.
#[derive(Debug, Clone, Default)]
pub struct DgCtx {
    pub actor: Option<CharId>,
    pub object: Option<ObjId>,
    pub victim: Option<CharId>,
    /// `arg`, `cmd`, `speech`, `direction`.
    pub vars: Vec<(&'static str, String)>,
}

/// A run waiting on `wait`.
pub struct Waiting {
    pub at: u64,
    pub owner: Owner,
    pub trig: u32,
    pub run: Run,
    pub ctx: DgCtx,
}

/// Random triggers are looked at every 13 s, as tbaMUD's `PULSE_DG_SCRIPT`.
pub const PULSES_PER_DG_RANDOM: u64 = 130;

impl Engine {
    /// The triggers an entity carries (its prototype's `T` lines).
    pub(crate) fn dg_triggers_of(&self, owner: Owner) -> Vec<u32> {
        if let Some(list) = self.dg_attached.get(&owner) {
            return list.clone();
        }
        match owner {
            Owner::Mob(c) => self
                .world
                .ch(c)
                .and_then(|c| c.npc_vnum)
                .and_then(|v| self.world.mob_protos.get(&v))
                .map(|p| p.triggers.clone())
                .unwrap_or_default(),
            Owner::Obj(o) => {
                self.world.obj(o).and_then(|o| self.world.obj_protos.get(&o.vnum)).map(|p| p.triggers.clone()).unwrap_or_default()
            }
            Owner::Room(r) => self.world.rooms.get(r).map(|r| r.proto.triggers.clone()).unwrap_or_default(),
        }
    }

    pub(crate) fn attach_of(owner: Owner) -> Attach {
        match owner {
            Owner::Mob(_) => Attach::Mob,
            Owner::Obj(_) => Attach::Obj,
            Owner::Room(_) => Attach::Room,
        }
    }

    /// Fires every trigger of type `letter` the entity carries; the last answer of
    /// those that ran (`None`: none did).
    pub fn dg_fire(&mut self, owner: Owner, letter: char, ctx: DgCtx) -> Option<i64> {
        self.dg_fire_if(owner, letter, ctx, |_, _| true)
    }

    /// As `dg_fire`, for the triggers `accept` takes (narg, arglist).
    pub fn dg_fire_if(&mut self, owner: Owner, letter: char, ctx: DgCtx, accept: impl Fn(i32, &str) -> bool) -> Option<i64> {
        self.dg_fire_some(owner, letter, ctx, accept, false)
    }

    /// As `dg_fire_if`, but only the first trigger `accept` takes runs (speech and act
    /// triggers: tbaMUD stops at the first that hears).
    pub fn dg_fire_first(&mut self, owner: Owner, letter: char, ctx: DgCtx, accept: impl Fn(i32, &str) -> bool) -> Option<i64> {
        self.dg_fire_some(owner, letter, ctx, accept, true)
    }

    fn dg_fire_some(&mut self, owner: Owner, letter: char, ctx: DgCtx, accept: impl Fn(i32, &str) -> bool, first: bool) -> Option<i64> {
        if self.dg.off || self.dg.triggers.is_empty() {
            return None;
        }
        let attach = Self::attach_of(owner);
        let mut answer = None;
        for trig in self.dg_triggers_of(owner) {
            let Some((t, _)) = self.dg.runnable(trig, attach, letter) else { continue };
            if !accept(t.narg, &t.arglist) {
                continue;
            }
            // As tbaMUD: a trigger still running (waiting) on this entity does not fire
            // again until it ends (a random trigger with a long `wait` would pile up).
            if self.dg_waiting.iter().any(|w| w.owner == owner && w.trig == trig) {
                continue;
            }
            answer = Some(self.dg_run(owner, trig, Run::default(), ctx.clone()));
            if first {
                break;
            }
        }
        answer
    }

    /// Whether `ch` may go on with what it does to `obj` (tbaMUD's object triggers: get
    /// `g`, drop `h`, give `i`, wear `j`, remove `l`): the first of the object's triggers
    /// of that type that fires (get, drop and give roll their narg as a chance) may
    /// answer 0 to refuse — the script says why. A purged object, or a character gone,
    /// refuses too.
    pub fn dg_obj_allows(&mut self, obj: ObjId, letter: char, ch: CharId) -> bool {
        if self.dg.off || self.dg.triggers.is_empty() || self.dg_triggers_of(Owner::Obj(obj)).is_empty() {
            return true;
        }
        let chance = matches!(letter, 'g' | 'h' | 'i');
        let roll = self.roll(1, 100);
        let ctx = DgCtx { actor: Some(ch), object: Some(obj), ..Default::default() };
        let answer = self.dg_fire_first(Owner::Obj(obj), letter, ctx, |narg, _| !chance || roll <= narg);
        answer != Some(0) && self.world.obj(obj).is_some() && self.world.ch(ch).is_some()
    }

    /// Whether the room lets `ch` drop `obj` (a room's drop trigger `h`, narg a chance;
    /// 0 refuses).
    pub fn dg_room_allows_drop(&mut self, room: RoomId, ch: CharId, obj: ObjId) -> bool {
        if self.dg.off || self.dg.triggers.is_empty() || self.world.rooms[room].proto.triggers.is_empty() {
            return true;
        }
        let roll = self.roll(1, 100);
        let ctx = DgCtx { actor: Some(ch), object: Some(obj), ..Default::default() };
        let answer = self.dg_fire_first(Owner::Room(room), 'h', ctx, |narg, _| roll <= narg);
        answer != Some(0) && self.world.obj(obj).is_some()
    }

    /// A line `act` shows in `room` (tbaMUD's act triggers, `e`): each awake, uncharmed
    /// mob with triggers that reads it hears it as a speech trigger would (narg 0 a
    /// phrase, else any of the words); the first that hears runs, with `%arg%` the line.
    pub fn dg_act(
        &mut self,
        room: RoomId,
        text: &str,
        actor: CharId,
        victim: Option<CharId>,
        obj: Option<ObjId>,
        to: crate::game::send::messaging::To,
    ) {
        use crate::game::send::messaging::To;
        let readers: Vec<CharId> = match to {
            To::Actor => vec![actor],
            To::Victim => victim.into_iter().collect(),
            To::Room => self.world.behaving_in(room, actor),
            To::NotVictim => self.world.behaving_in(room, actor).into_iter().filter(|m| Some(*m) != victim).collect(),
        };
        for m in readers {
            let listening = self.world.ch(m).is_some_and(|c| {
                c.is_npc() && c.behaves && c.awake() && !c.affects.iter().any(|a| a.kind == crate::game::rules::spells::AffectKind::Charm)
            });
            if !listening {
                continue;
            }
            let ctx = DgCtx { actor: Some(actor), victim, object: obj, vars: vec![("arg", text.to_string())] };
            self.dg_fire_first(Owner::Mob(m), 'e', ctx, |narg, arg| crate::dg::speech::hears(narg, arg, text, false));
        }
    }

    /// A player came into the game in `room`: its login triggers (`s`, narg a chance).
    pub fn dg_login(&mut self, room: RoomId, ch: CharId) {
        if self.dg.off || self.dg.triggers.is_empty() || self.world.rooms[room].proto.triggers.is_empty() {
            return;
        }
        let roll = self.roll(1, 100);
        let ctx = DgCtx { actor: Some(ch), ..Default::default() };
        self.dg_fire_first(Owner::Room(room), 's', ctx, |narg, _| roll <= narg);
    }

    /// Runs (or resumes) one trigger; its answer (by a `wait`, what it had answered so far). Triggers that
    /// fire triggers (two mobs answering each other's speech) stop four deep.
    pub(crate) fn dg_run(&mut self, owner: Owner, trig: u32, mut run: Run, ctx: DgCtx) -> i64 {
        let attach = Self::attach_of(owner);
        if self.dg.depth >= crate::script::host::MAX_DEPTH {
            tracing::debug!(target: "pawns::dg", trigger = trig, "not run: triggers {} deep", self.dg.depth);
            return 0;
        }
        let Some(p) = self.dg.programs.get(&trig).and_then(|p| p.as_ref().ok()).cloned() else { return 0 };
        let started = std::time::Instant::now();
        self.dg.depth += 1;
        let outcome = {
            let mut host = DgHostCtx { e: self, owner, attach, ctx: &ctx, trig, at: None };
            execute(&p, &mut run, &mut host, crate::game::rules::clock::PULSES_PER_MUD_HOUR)
        };
        self.dg.depth -= 1;
        self.dg.stats.note(started.elapsed());
        match outcome {
            Outcome::Done(n) => n,
            // The caller hears what the run had answered by its first `wait` (tbaMUD: the
            // bell's `return 0` before it waits refuses the get).
            Outcome::Wait(pulses) => {
                let answer = crate::dg::program::ret_of(&run);
                self.dg_waiting.push(Waiting { at: self.pulse + pulses, owner, trig, run, ctx });
                answer
            }
            // As tbaMUD: the error is logged, this run ends, and the trigger keeps
            // working for everyone (one player's `return` must not switch it off).
            Outcome::Error(e) => {
                self.dg.stats.errors += 1;
                tracing::warn!(target: "pawns::dg", trigger = trig, "SCRIPT ERROR: trigger {trig}: {e}");
                self.dg.last_errors.insert(trig, e);
                0
            }
        }
    }

    fn dg_alive(&self, owner: Owner) -> bool {
        match owner {
            Owner::Mob(c) => self.world.ch(c).is_some(),
            Owner::Obj(o) => self.world.obj(o).is_some(),
            Owner::Room(_) => true,
        }
    }

    /// Every pulse: the runs whose `wait` is over go on; every 13 s, random triggers.
    pub fn dg_pulse(&mut self) {
        if self.dg.off || self.dg.triggers.is_empty() {
            return;
        }
        if !self.dg_waiting.is_empty() {
            let now = self.pulse;
            let (due, later): (Vec<Waiting>, Vec<Waiting>) = std::mem::take(&mut self.dg_waiting).into_iter().partition(|w| w.at <= now);
            self.dg_waiting = later;
            for w in due {
                if self.dg_alive(w.owner) {
                    self.dg_run(w.owner, w.trig, w.run, w.ctx);
                }
            }
        }
        if self.pulse.is_multiple_of(PULSES_PER_DG_RANDOM) {
            self.dg_random();
        }
    }

    /// The things that carry triggers (their prototype's, or `attach`ed ones), in id
    /// order, each once.
    pub(crate) fn dg_scripted_things(&self) -> Vec<ObjId> {
        let mut things: Vec<ObjId> = self
            .world
            .objs
            .iter()
            .filter(|(_, o)| self.world.obj_protos.get(&o.vnum).is_some_and(|p| !p.triggers.is_empty()))
            .map(|(id, _)| *id)
            .chain(self.dg_attached.keys().filter_map(|o| match o {
                Owner::Obj(id) if self.world.obj(*id).is_some() => Some(*id),
                _ => None,
            }))
            .collect();
        things.sort_unstable();
        things.dedup();
        things
    }

    /// Random triggers (`b`): each rolls its percentage; a mob's or a room's run only
    /// where a player is in the zone unless they are global (`a`); a thing's run
    /// wherever it is (tbaMUD's `random_otrigger`, players or not).
    pub(crate) fn dg_random(&mut self) {
        let zones: std::collections::HashSet<u32> =
            self.world.players.values().filter_map(|p| self.world.ch(*p)).map(|c| self.world.rooms[c.room].proto.zone).collect();
        let mut owners: Vec<Owner> =
            self.world.chars.values().filter(|c| c.behaves && c.fighting.is_none()).map(|c| Owner::Mob(c.id)).collect();
        owners.extend((0..self.world.rooms.len()).filter(|r| !self.world.rooms[*r].proto.triggers.is_empty()).map(Owner::Room));
        owners.extend(self.dg_scripted_things().into_iter().map(Owner::Obj));
        for owner in owners {
            let live = match owner {
                Owner::Mob(c) => self.world.ch(c).map(|c| zones.contains(&self.world.rooms[c.room].proto.zone)),
                Owner::Room(r) => Some(zones.contains(&self.world.rooms[r].proto.zone)),
                Owner::Obj(o) => self.world.obj(o).map(|_| true),
            };
            let Some(live) = live else { continue };
            for trig in self.dg_triggers_of(owner) {
                let Some((t, _)) = self.dg.runnable(trig, Self::attach_of(owner), 'b') else { continue };
                if !live && t.flags & bit('a') == 0 {
                    continue;
                }
                let narg = t.narg;
                if self.dg_waiting.iter().any(|w| w.owner == owner && w.trig == trig) {
                    continue;
                }
                if self.roll(1, 100) <= narg {
                    self.dg_run(owner, trig, Run::default(), DgCtx::default());
                }
            }
        }
    }

    /// A walk into `to` from direction `dir`: the mobs there greet (`g` those who can
    /// see, `h` all), then the room's enter (`g`).
    pub fn dg_arrival(&mut self, ch: CharId, to: RoomId, dir: usize) {
        if self.dg.off || self.dg.triggers.is_empty() {
            return;
        }
        let from = crate::worldfile::DIR_NAMES[crate::game::rules::doors::REV_DIR[dir]].to_string();
        let ctx = DgCtx { actor: Some(ch), vars: vec![("direction", from)], ..Default::default() };
        for m in self.world.behaving_in(to, ch) {
            for letter in ['g', 'h'] {
                if self.world.ch(ch).is_some_and(|c| c.room == to) {
                    let roll = self.roll(1, 100);
                    self.dg_fire_if(Owner::Mob(m), letter, ctx.clone(), |narg, _| roll <= narg.max(1));
                }
            }
        }
        if self.world.ch(ch).is_some_and(|c| c.room == to) && !self.world.rooms[to].proto.triggers.is_empty() {
            let roll = self.roll(1, 100);
            self.dg_fire_if(Owner::Room(to), 'g', ctx, |narg, _| roll <= narg.max(1));
        }
    }

    /// Who in `room` may carry triggers for what `ch` does there: its mobs with
    /// behaviour, then the room itself.
    fn dg_owners_here(&self, room: RoomId, ch: CharId) -> Vec<Owner> {
        let mut owners: Vec<Owner> = self.world.behaving_in(room, ch).into_iter().map(Owner::Mob).collect();
        if !self.world.rooms[room].proto.triggers.is_empty() {
            owners.push(Owner::Room(room));
        }
        owners
    }

    /// Leaving `from` toward `dir`: the mobs' and the room's leave triggers (`q`); any
    /// that answers 0 keeps the character here (the script says why).
    pub fn dg_leave(&mut self, ch: CharId, from: RoomId, dir: usize) -> bool {
        if self.dg.off || self.dg.triggers.is_empty() {
            return true;
        }
        let ctx = DgCtx { actor: Some(ch), vars: vec![("direction", crate::worldfile::DIR_NAMES[dir].to_string())], ..Default::default() };
        let mut owners = self.dg_owners_here(from, ch);
        // Then the things lying here (tbaMUD's `leave_otrigger`).
        owners.extend(
            self.world.rooms[from]
                .contents
                .iter()
                .filter(|o| self.world.obj(**o).is_some_and(|x| self.world.obj_protos.get(&x.vnum).is_some_and(|p| !p.triggers.is_empty())))
                .map(|o| Owner::Obj(*o))
                .collect::<Vec<_>>(),
        );
        for o in owners {
            let roll = self.roll(1, 100);
            if self.dg_fire_if(o, 'q', ctx.clone(), |narg, _| roll <= narg.max(1)) == Some(0) {
                return false;
            }
        }
        true
    }

    /// Someone said `speech` here: speech triggers (`d`) of the awake, uncharmed mobs
    /// and of the room, matched as tbaMUD matches (`dg::speech`: narg 0 a phrase, else
    /// any of a list of words); on each, only the first trigger that hears runs.
    pub fn dg_speech(&mut self, ch: CharId, speech: &str) {
        if self.dg.off || self.dg.triggers.is_empty() {
            return;
        }
        let Some(room) = self.world.ch(ch).map(|c| c.room) else { return };
        let ctx = DgCtx { actor: Some(ch), vars: vec![("speech", speech.to_string())], ..Default::default() };
        let owners = self.dg_owners_here(room, ch);
        for o in owners {
            let listening = match o {
                Owner::Mob(m) => self
                    .world
                    .ch(m)
                    .is_some_and(|c| c.awake() && !c.affects.iter().any(|a| a.kind == crate::game::rules::spells::AffectKind::Charm)),
                _ => true,
            };
            if !listening {
                continue;
            }
            let room_trigger = matches!(o, Owner::Room(_));
            self.dg_fire_first(o, 'd', ctx.clone(), |narg, arg| crate::dg::speech::hears(narg, arg, speech, room_trigger));
        }
    }

    /// A typed command, before the command table is looked at: the command triggers
    /// (`c`) of the room, its mobs, and the things worn, carried or on the floor (an
    /// object's narg says where: 1 worn, 2 carried, 4 on the floor), whose arglist
    /// begins the typed word (`re` hears `recall` and `return`), or `*`. True when one
    /// took it (answered non-zero).
    pub fn dg_command(&mut self, ch: CharId, word: &str, arg: &str) -> bool {
        if self.dg.off || self.dg.triggers.is_empty() || word.is_empty() {
            return false;
        }
        let Some(c) = self.world.ch(ch) else { return false };
        let room = c.room;
        // The room's triggers hear a command first (tbaMUD's order), then its mobs'.
        let mut owners: Vec<Owner> = Vec::new();
        if !self.world.rooms[room].proto.triggers.is_empty() {
            owners.push(Owner::Room(room));
        }
        owners.extend(self.world.behaving_in(room, ch).into_iter().map(Owner::Mob));
        let scripted =
            |e: &Engine, o: &u64| e.world.obj(*o).is_some_and(|o| e.world.obj_protos.get(&o.vnum).is_some_and(|p| !p.triggers.is_empty()));
        let mut things: Vec<(Owner, i32)> = Vec::new();
        things.extend(c.equipment.iter().flatten().filter(|o| scripted(self, o)).map(|o| (Owner::Obj(*o), 1)));
        things.extend(c.inventory.iter().filter(|o| scripted(self, o)).map(|o| (Owner::Obj(*o), 2)));
        things.extend(self.world.rooms[room].contents.iter().filter(|o| scripted(self, o)).map(|o| (Owner::Obj(*o), 4)));
        let mut all: Vec<(Owner, i32)> = owners.into_iter().map(|o| (o, 7)).collect();
        all.extend(things);
        let w = word.to_ascii_lowercase();
        let ctx = DgCtx { actor: Some(ch), vars: vec![("cmd", word.to_string()), ("arg", arg.to_string())], ..Default::default() };
        for (o, place) in all {
            let is_obj = matches!(o, Owner::Obj(_));
            let answer = self.dg_fire_if(o, 'c', ctx.clone(), |narg, args| {
                let a = args.trim().to_ascii_lowercase();
                let here = !is_obj || narg & place != 0;
                here && (a == "*" || a.split_whitespace().any(|x| w.starts_with(x)))
            });
            if answer.is_some_and(|n| n != 0) {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::run::engine::EngineConfig;

    /// Two mobs whose speech triggers answer anything said: one word must not become
    /// an endless exchange inside one command.
    #[tokio::test]
    async fn mobs_answering_each_other_stop_four_deep() {
        let mut src = crate::worldfile::MemSource::default();
        let files = [
            ("wld/index", "1.wld\n$\n"),
            ("wld/1.wld", "#100\nHall~\nA hall.\n~\n1 0 0\nS\n$\n"),
            ("mob/index", "1.mob\n$\n"),
            ("mob/1.mob", "#200\nparrot~\na parrot~\nA parrot.\n~\nA parrot.\n~\nb 0 0 S\n5 10 5 5d5+50 1d2+0\n10 0\n8 8 1\nT 1\n#201\nmynah~\na mynah~\nA mynah.\n~\nA mynah.\n~\nb 0 0 S\n5 10 5 5d5+50 1d2+0\n10 0\n8 8 1\nT 1\n$\n"),
            ("trg/index", "1.trg\n$\n"),
            ("trg/1.trg", "#1\nEcho~\n0 d 100\n*~\nsay %speech%!\n~\n$\n"),
            ("zon/index", "1.zon\n$\n"),
            ("zon/1.zon", "#1\nTest~\n199 30 2\nM 0 200 1 100\nM 0 201 1 100\nS\n$\n"),
        ];
        for (k, v) in files {
            src.0.insert(k.into(), v.into());
        }
        let world = crate::worldfile::load(&src).unwrap().world;
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = pawns_storage::Store::open(dir.path().join("t.redb")).unwrap();
        let (saves, _w) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
        let mut e = Engine::new(world, EngineConfig { seed: 5, ..EngineConfig::default() }, saves);
        let (link, _rx) = crate::game::tests::link(1, 4096);
        let pc = e.enter(crate::game::model::character::new_record("Talker", 3, 0, 1, true, [13; 6], 100), link, None).char_id;
        e.dispatch(pc, "say hello");
        // Each answer is heard by the other bird: the chain stops at the depth limit.
        assert!(e.dg.stats.calls >= 2 && e.dg.stats.calls <= 8, "{} runs", e.dg.stats.calls);
        assert_eq!(e.dg.depth, 0);
    }
}

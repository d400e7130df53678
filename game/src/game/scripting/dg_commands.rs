//! The DG Scripts commands that reach past the line they are on, as tbaMUD's driver
//! runs them: `attach` and `detach` (one entity's triggers, never its prototype's),
//! `dg_cast` (a spell without words or mana), `dg_affect` (an effect for some mud hours),
//! `otimer` (a thing's timer trigger), `mtransform`/`otransform` and `mfollow`.

use crate::dg::program::Host;
use crate::game::model::tables::Position;
use crate::game::model::world::{CharId, RoomId};
use crate::game::rules::clock::PULSES_PER_MUD_HOUR;
use crate::game::rules::spells::{Affect, AffectKind};
use crate::game::scripting::dg_host::{DgHostCtx, Ent};
use crate::game::scripting::dg_run::{DgCtx, Owner};

impl DgHostCtx<'_> {
    /// `attach`, `detach`, `dg_cast`, `dg_affect`: `None` when `word` is none of them.
    pub(super) fn driver_command(&mut self, word: &str, rest: &str) -> Option<Result<(), String>> {
        Some(match word {
            "attach" => self.attach(rest),
            "detach" => self.detach(rest),
            "dg_cast" => self.dg_cast(rest),
            "dg_affect" => self.dg_affect(rest),
            _ => return None,
        })
    }

    /// An entity named by uid (`%self.id%`) or by tbaMUD's bare number.
    fn owner_named(&self, id: &str) -> Option<Owner> {
        match self.ent(id) {
            Some(Ent::Char(c)) => return Some(Owner::Mob(c)),
            Some(Ent::Obj(o)) => return Some(Owner::Obj(o)),
            Some(Ent::Room(r)) => return Some(Owner::Room(r)),
            None => {}
        }
        let n: u64 = id.trim().parse().ok()?;
        if self.e.world.ch(n).is_some() {
            Some(Owner::Mob(n))
        } else if self.e.world.obj(n).is_some() {
            Some(Owner::Obj(n))
        } else {
            self.e.world.room_of_vnum(n as u32).map(Owner::Room)
        }
    }

    /// `attach <trigger> <id>`: one more trigger for that mob, thing or room (players
    /// take none, as tbaMUD's `script_players` is off).
    fn attach(&mut self, rest: &str) -> Result<(), String> {
        let mut w = rest.split_whitespace();
        let (Some(trig), Some(id)) = (w.next().and_then(|t| t.parse::<u32>().ok()), w.next()) else {
            return Err("attach: needs a trigger and an id".into());
        };
        let target = self.owner_named(id).ok_or_else(|| format!("attach: no target {id}"))?;
        if let Owner::Mob(c) = target {
            if self.e.world.ch(c).is_some_and(|c| c.pc.is_some()) {
                return Err("attach invalid target".into());
            }
        }
        let t = self.e.dg.triggers.get(&trig).ok_or_else(|| format!("attach: no trigger {trig}"))?;
        if crate::dg::Attach::of(t) != Some(crate::game::run::engine::Engine::attach_of(target)) {
            return Err(format!("attach: trigger {trig} is not for that kind of thing"));
        }
        let mut list = self.e.dg_triggers_of(target);
        list.push(trig);
        self.e.dg_attached.insert(target, list);
        Ok(())
    }

    /// `detach <trigger|all> <id>`: `all` (or the last one) takes its variables too; a
    /// number is the trigger at that place in its list or of that vnum, whichever
    /// comes first.
    fn detach(&mut self, rest: &str) -> Result<(), String> {
        let mut w = rest.split_whitespace();
        let (Some(which), Some(id)) = (w.next(), w.next()) else {
            return Err("detach: needs a trigger and an id".into());
        };
        let target = self.owner_named(id).ok_or_else(|| format!("detach: no target {id}"))?;
        let mut list = self.e.dg_triggers_of(target);
        if which.eq_ignore_ascii_case("all") {
            list.clear();
        } else {
            let found = match which.parse::<u32>() {
                Ok(n) => list.iter().enumerate().position(|(i, t)| i + 1 == n as usize || *t == n),
                Err(_) => list.iter().position(|t| {
                    self.e.dg.triggers.get(t).is_some_and(|p| crate::game::model::targeting::is_name(which, &p.name.to_ascii_lowercase()))
                }),
            };
            match found {
                Some(i) => {
                    list.remove(i);
                }
                None => return Err(format!("detach: no trigger {which} there")),
            }
        }
        if list.is_empty() {
            let uid = match target {
                Owner::Mob(c) => crate::game::scripting::dg_host::char_uid(c),
                Owner::Obj(o) => crate::game::scripting::dg_host::obj_uid(o),
                Owner::Room(r) => format!("\u{1f}r{}", self.e.world.rooms[r].proto.vnum),
            };
            self.e.dg.globals.remove(&uid);
        }
        self.e.dg_attached.insert(target, list);
        Ok(())
    }

    /// `dg_cast '<spell>' [target]`: a mob casts as itself at its level; a thing or a
    /// room through a stand-in at level 25 named for it ("The gods" for a room). No
    /// words, no mana.
    fn dg_cast(&mut self, rest: &str) -> Result<(), String> {
        let mut parts = rest.splitn(3, '\'');
        let (Some(_), Some(spell), Some(after)) = (parts.next(), parts.next(), parts.next()) else {
            return Err("dg_cast needs spell name in `'s.".into());
        };
        let spell = crate::game::rules::spells::find_spell(spell)
            .map(|s| s.name)
            .or_else(|| crate::game::rules::spells::spell_named(spell))
            .filter(|s| *s != "earthquake" || matches!(self.owner, Owner::Mob(_)))
            .ok_or_else(|| format!("dg_cast: invalid spell name ({spell})"))?;
        let target = after.split_whitespace().next().unwrap_or("");
        let victim = if target.is_empty() {
            None
        } else {
            Some(self.world_char(target).ok_or_else(|| format!("dg_cast: target not found ({target})"))?)
        };
        let room = self.here().ok_or("dg_cast: nowhere")?;
        let (caster, level, proxy) = match self.owner {
            Owner::Mob(m) => (m, self.e.world.ch(m).map(|c| c.level as i32).unwrap_or(1), false),
            _ => {
                let name = match self.owner {
                    Owner::Obj(o) => self.e.world.obj(o).map(|o| o.short_descr.to_string()).unwrap_or_default(),
                    _ => "The gods".to_string(),
                };
                (self.e.stand_in(room, &name).ok_or("dg_cast: no mob to cast through")?, 25, true)
            }
        };
        let victim = victim.unwrap_or(caster);
        if self.e.dg_cast_allowed(caster, victim, spell) {
            self.e.spell_effect_at(spell, caster, victim, level);
        }
        if proxy {
            for f in self.e.world.attackers_of(caster) {
                self.e.stop_fighting(f);
            }
            self.e.world.extract_char(caster);
        }
        Ok(())
    }

    /// A character anywhere: a uid, else the first whose keywords answer (tbaMUD's
    /// `get_char`), here first.
    fn world_char(&self, name: &str) -> Option<CharId> {
        if let Some(c) = self.target_char(name) {
            return Some(c);
        }
        let kw = name.to_ascii_lowercase();
        let mut ids: Vec<CharId> =
            self.e.world.chars.values().filter(|c| crate::game::model::targeting::is_name(&kw, &c.keywords)).map(|c| c.id).collect();
        ids.sort_unstable();
        ids.first().copied()
    }

    /// `dg_affect <target> <property> <value> <duration>`: an effect for `duration − 1`
    /// mud hours (ending at the next hour's turn), without a word when it ends; `off`
    /// takes it away. The effects pawns has: BLIND, CURSE, POISON, SNEAK, SLEEP (the
    /// target falls asleep), ARMOR, HITROLL.
    fn dg_affect(&mut self, rest: &str) -> Result<(), String> {
        let w: Vec<&str> = rest.split_whitespace().collect();
        let [target, property, value, duration, ..] = w[..] else {
            return Err("dg_affect usage: <target> <property> <value> <duration>".into());
        };
        let duration: i64 = duration.parse().unwrap_or(0);
        if duration <= 0 {
            return Err("dg_affect: need positive duration!".into());
        }
        let victim = self.world_char(target).ok_or_else(|| format!("dg_affect: cannot locate target ({target})"))?;
        let amount: i32 = value.parse().unwrap_or(0);
        let kind = match property.to_ascii_uppercase().as_str() {
            "BLIND" => AffectKind::Blind,
            "CURSE" => AffectKind::Curse,
            "POISON" => AffectKind::Poison,
            "SNEAK" => AffectKind::Sneak,
            "ARMOR" => AffectKind::Armor,
            "HITROLL" => AffectKind::Bless,
            "SLEEP" => {
                if !value.eq_ignore_ascii_case("off") {
                    if let Some(c) = self.e.world.chars.get_mut(&victim) {
                        if c.position > Position::Sleeping && c.fighting.is_none() {
                            c.position = Position::Sleeping;
                        }
                    }
                }
                return Ok(());
            }
            other => return Err(format!("dg_affect: {other} is not an effect pawns has")),
        };
        if value.eq_ignore_ascii_case("off") {
            if let Some(c) = self.e.world.chars.get_mut(&victim) {
                c.affects.retain(|a| a.kind != kind);
            }
            self.e.recompute_armour(victim);
            return Ok(());
        }
        let modifier = match kind {
            AffectKind::Armor | AffectKind::Bless => amount,
            AffectKind::Blind => -4,
            AffectKind::Curse => -1,
            AffectKind::Poison => -2,
            _ => 0,
        };
        let to_turn = PULSES_PER_MUD_HOUR - self.e.pulse % PULSES_PER_MUD_HOUR;
        let pulses = (duration as u64 - 1) * PULSES_PER_MUD_HOUR + to_turn;
        self.e.add_affect(victim, Affect { kind, pulses, modifier });
        Ok(())
    }

    /// `%at% <room> <command>`: the command as if the script were there (a room by
    /// vnum, or the room of a character named). A mob goes there for it and comes back,
    /// as tbaMUD's `mat`, and does only what a player could.
    pub(super) fn at(&mut self, place: &str, command: &str) -> Result<(), String> {
        let to = match place.parse::<u32>() {
            Ok(v) => self.e.world.room_of_vnum(v),
            Err(_) => match self.ent(place) {
                Some(Ent::Room(r)) => Some(r),
                _ => self.target_char(place).and_then(|c| self.e.world.ch(c)).map(|c| c.room),
            },
        }
        .ok_or_else(|| format!("at: no room {place}"))?;
        if command.trim().is_empty() {
            return Err("at: what command?".into());
        }
        let (saved, back) = (self.at.replace(to), self.here_of_owner());
        let moved = match (self.owner, back) {
            (Owner::Mob(m), Some(b)) if b != to => {
                self.e.world.char_from_room(m);
                self.e.world.char_to_room(m, to);
                Some(b)
            }
            _ => None,
        };
        // tbaMUD's `mat` hands the line to the ordinary command interpreter: a mob's
        // `%at% 1118 %echo% …` is "Huh!?!" to the mob and shows nothing (its `say`,
        // `drop`… work); an object's `oat` and a room's `wat` run script commands there.
        let done = match self.owner {
            Owner::Mob(m) => {
                let saved_cur = self.e.cur.take();
                self.e.dispatch(m, command);
                self.e.cur = saved_cur;
                Ok(())
            }
            _ => self.command(command),
        };
        if let (Owner::Mob(m), Some(b)) = (self.owner, moved) {
            if self.e.world.ch(m).is_some_and(|c| c.room == to) {
                self.e.world.char_from_room(m);
                self.e.world.char_to_room(m, b);
            }
        }
        self.at = saved;
        done
    }

    fn here_of_owner(&self) -> Option<RoomId> {
        match self.owner {
            Owner::Mob(c) => self.e.world.ch(c).map(|c| c.room),
            Owner::Obj(o) => crate::game::scripting::lua::tables::obj_room(self.e, o),
            Owner::Room(r) => Some(r),
        }
    }

    /// `%actor.pos%`, `.hunger`, `.thirst`, `.drunk`, and with an argument their setting
    /// (`%actor.pos(sitting)%`, `%actor.thirst(12)%`; -1 is never hungry).
    pub(super) fn char_state(&mut self, c: CharId, field: &str, arg: Option<&str>) -> Option<String> {
        let arg = arg.map(str::trim).filter(|a| !a.is_empty());
        if field == "pos" {
            if let Some(a) = arg {
                let pos = match a.to_ascii_lowercase().as_str() {
                    "sleeping" => Some(Position::Sleeping),
                    "resting" => Some(Position::Resting),
                    "sitting" => Some(Position::Sitting),
                    "fighting" | "standing" => Some(Position::Standing),
                    _ => None,
                };
                if let (Some(p), Some(ch)) = (pos, self.e.world.chars.get_mut(&c)) {
                    if ch.position > Position::Dead && ch.fighting.is_none() {
                        ch.position = p;
                    }
                }
            }
            return self.e.world.ch(c).map(|ch| format!("{:?}", ch.position).to_lowercase());
        }
        let i = match field {
            "drunk" => 0,
            "hunger" => 1,
            _ => 2,
        };
        let pc = self.e.world.chars.get_mut(&c)?.pc.as_mut();
        let Some(pc) = pc else { return Some("-1".into()) };
        if let Some(v) = arg.and_then(|a| a.parse::<i64>().ok()) {
            pc.conditions[i] = v.clamp(-1, 24) as i8;
        }
        Some(pc.conditions[i].to_string())
    }

    /// `otimer <hours>`: the thing's timer triggers fire when that many mud hours have
    /// passed (0: never).
    pub(super) fn otimer(&mut self, n: &str) -> Result<(), String> {
        let Owner::Obj(o) = self.owner else { return Err("otimer: only a thing has a timer".into()) };
        let hours: u32 = n.parse().map_err(|_| "otimer: bad argument")?;
        if hours == 0 {
            self.e.dg_timers.remove(&o);
        } else {
            self.e.dg_timers.insert(o, hours);
        }
        Ok(())
    }

    /// `mfollow <name|id>`: the mob follows, without a word (no charm).
    pub(super) fn mfollow(&mut self, who: &str) -> Result<(), String> {
        let Owner::Mob(m) = self.owner else { return Err("mfollow: only a mob follows".into()) };
        let leader = self.target_char(who).ok_or_else(|| format!("mfollow: no {who} here"))?;
        if self.e.world.ch(m).and_then(|c| c.master) == Some(leader) {
            return Ok(());
        }
        if let Some(old) = self.e.world.ch(m).and_then(|c| c.master) {
            if let Some(c) = self.e.world.chars.get_mut(&m) {
                c.master = None;
            }
            if let Some(l) = self.e.world.chars.get_mut(&old) {
                l.followers.retain(|f| *f != m);
            }
        }
        if leader == m {
            return Ok(());
        }
        if let Some(c) = self.e.world.chars.get_mut(&m) {
            c.master = Some(leader);
        }
        if let Some(l) = self.e.world.chars.get_mut(&leader) {
            l.followers.push(m);
        }
        Ok(())
    }

    /// `mtransform [-]<vnum>` / `otransform <vnum>`: the entity takes another
    /// prototype's looks and numbers, keeping its triggers, place and belongings (a
    /// mob its hit points and experience too unless `-`; its vnum stays).
    pub(super) fn transform(&mut self, arg: &str) -> Result<(), String> {
        let keep_hp = !arg.starts_with('-');
        let vnum: u32 = arg.trim_start_matches('-').parse().map_err(|_| format!("transform: bad argument {arg}"))?;
        let owner = self.owner;
        let triggers = self.e.dg_triggers_of(owner);
        match owner {
            Owner::Mob(m) => {
                let p = self.e.world.mob_protos.get(&vnum).cloned().ok_or_else(|| format!("transform: no mob {vnum}"))?;
                let Some(c) = self.e.world.chars.get_mut(&m) else { return Ok(()) };
                c.name = p.short_descr.as_str().into();
                c.keywords = p.keywords.clone();
                c.long_descr = p.long_descr.clone();
                c.description = p.description.clone();
                c.level = p.level.clamp(0, 100) as u8;
                c.alignment = p.alignment;
                c.sex = p.sex.clamp(0, 2) as u8;
                c.npc_damage = p.damage_dice;
                c.damroll = p.damage_dice.plus;
                c.hitroll = 20 - p.thac0;
                c.base_ac = p.ac * 10;
                c.mob_flags = p.action_flags[0];
                if !keep_hp {
                    let hp = p.hit_dice.num.max(0) * (p.hit_dice.size.max(1) + 1) / 2 + p.hit_dice.plus;
                    (c.hit, c.max_hit, c.exp) = (hp.max(1), hp.max(1), p.exp);
                }
            }
            Owner::Obj(o) => {
                let p = self.e.world.obj_protos.get(&vnum).cloned().ok_or_else(|| format!("transform: no object {vnum}"))?;
                let Some(ob) = self.e.world.objs.get_mut(&o) else { return Ok(()) };
                ob.vnum = vnum;
                ob.keywords = p.keywords.clone();
                ob.short_descr = p.short_descr.as_str().into();
                ob.long_descr = p.long_descr.clone();
                ob.item_type = p.item_type;
                ob.values = p.values;
                ob.weight = p.weight;
                ob.cost = p.cost;
            }
            Owner::Room(_) => return Err("a room has no transform".into()),
        }
        self.e.dg_attached.insert(owner, triggers);
        Ok(())
    }
}

impl crate::game::run::engine::Engine {
    /// A stand-in caster for a thing's or a room's `dg_cast`: the world's mob 1 if it
    /// has one (tbaMUD's `DG_CASTER_PROXY`), else a bare one, named `name`.
    fn stand_in(&mut self, room: crate::game::model::world::RoomId, name: &str) -> Option<CharId> {
        let mut vnums: Vec<u32> = self.world.mob_protos.keys().copied().collect();
        vnums.sort_unstable();
        let vnum = if self.world.mob_protos.contains_key(&1) { 1 } else { *vnums.first()? };
        let mut rng = std::mem::replace(&mut self.rng, rand::SeedableRng::seed_from_u64(0));
        let id = self.world.create_mob(vnum, room, &mut |lo, hi| rand::Rng::gen_range(&mut rng, lo..=hi.max(lo)));
        self.rng = rng;
        let id = id?;
        if let Some(c) = self.world.chars.get_mut(&id) {
            c.name = name.into();
            c.level = 25;
        }
        Some(id)
    }

    /// The cast triggers (`p`) a spell meets first — the room's, then its target's —
    /// any answering 0 stops it.
    pub(crate) fn dg_cast_allowed(&mut self, caster: CharId, victim: CharId, spell: &str) -> bool {
        let Some(room) = self.world.ch(caster).map(|c| c.room) else { return false };
        let number = crate::game::rules::spells::spell_number(spell).unwrap_or(0);
        let ctx = DgCtx {
            actor: Some(caster),
            victim: Some(victim),
            vars: vec![("spell", number.to_string()), ("spellname", spell.to_string())],
            ..Default::default()
        };
        let roll = self.roll(1, 100);
        if self.dg_fire_first(Owner::Room(room), 'p', ctx.clone(), |narg, _| roll <= narg.max(1)) == Some(0) {
            return false;
        }
        let charmed = self.affected(victim, AffectKind::Charm);
        if victim != caster && !charmed && self.world.ch(victim).is_some_and(|v| v.behaves) {
            let roll = self.roll(1, 100);
            if self.dg_fire_first(Owner::Mob(victim), 'p', ctx, |narg, _| roll <= narg.max(1)) == Some(0) {
                return false;
            }
        }
        self.world.ch(caster).is_some() && self.world.ch(victim).is_some()
    }
}

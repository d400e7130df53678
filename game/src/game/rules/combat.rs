//! Combat: the 2-second round, to-hit and damage, death, experience and levels.

use crate::game::model::character::EventEntry;
use crate::game::model::tables::{self, item_type, Position, MAX_LEVEL};
use crate::game::model::world::{CharId, Obj, ObjLoc};
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

const ATTACKS: [(&str, &str); 15] = [
    ("hit", "hits"),
    ("sting", "stings"),
    ("whip", "whips"),
    ("slash", "slashes"),
    ("bite", "bites"),
    ("bludgeon", "bludgeons"),
    ("crush", "crushes"),
    ("pound", "pounds"),
    ("claw", "claws"),
    ("maul", "mauls"),
    ("thrash", "thrashes"),
    ("pierce", "pierces"),
    ("blast", "blasts"),
    ("punch", "punches"),
    ("stab", "stabs"),
];

/// The attack type spells use in damage messages ("blast").
pub const TYPE_SPELL: usize = 12;
/// Damage with no attacker's message (poison): the sufferer is told by its cause.
pub const TYPE_SUFFERING: usize = usize::MAX;

/// Corpses crumble after this many pulses (5 minutes).
pub const CORPSE_PULSES: u32 = 3000;

/// Experience lost on death: exp / 37, as the seed says.
pub fn death_exp_loss(exp: i64) -> i64 {
    exp.max(0) / 37
}

/// Experience for killing a mob with `victim_exp` worth at `victim_level`, by a killer at `level`.
pub fn kill_exp(victim_exp: i64, victim_level: u8, level: u8) -> i64 {
    let base = (victim_exp / 3).max(1);
    let diff = victim_level as i64 - level as i64;
    let scaled = if diff >= 0 { base + base * diff.min(10) / 10 } else { base * (10 + diff.max(-9)) / 10 };
    scaled.max(1)
}

/// CircleMUD's to-hit rule for one swing with a d20 `roll`: a victim that is not awake
/// (sleeping, stunned, incapacitated, mortally wounded) is always hit; otherwise a
/// natural 20 hits, a natural 1 misses, and the rest hit when `thaco - roll` reaches
/// the victim's armour class.
pub fn misses(roll: i32, thaco: i32, victim_ac: i32, victim_pos: Position) -> bool {
    let awake = victim_pos > Position::Sleeping;
    awake && roll != 20 && (roll == 1 || thaco - roll > victim_ac)
}

impl Engine {
    /// AC, hitroll and damroll from worn gear.
    pub fn recompute_armour(&mut self, id: CharId) {
        let Some(c) = self.world.ch(id) else { return };
        if c.is_npc() {
            return;
        }
        let mut ac = 100;
        let mut hitroll = 0;
        let mut damroll = 0;
        for (slot, o) in c.equipment.iter().enumerate() {
            let Some(o) = o.and_then(|o| self.world.obj(o)) else {
                continue;
            };
            if o.item_type == item_type::ARMOR {
                let factor = match slot {
                    5 => 3,
                    6 | 7 => 2,
                    _ => 1,
                };
                ac -= o.values[0] * factor;
            }
            for (loc, m) in &o.affects {
                match loc {
                    17 => ac += m,
                    18 => hitroll += m,
                    19 => damroll += m,
                    _ => {}
                }
            }
        }
        for a in &c.affects {
            match a.kind {
                crate::game::rules::spells::AffectKind::Armor => ac += a.modifier,
                crate::game::rules::spells::AffectKind::Bless => {
                    hitroll += a.modifier;
                    ac -= 5;
                }
                crate::game::rules::spells::AffectKind::Blind => {
                    hitroll -= 4;
                    ac += 40;
                }
                crate::game::rules::spells::AffectKind::Curse => hitroll += a.modifier,
                _ => {}
            }
        }
        // Dark Pawns's dragon tattoo hits harder.
        if c.pc.as_ref().is_some_and(|p| p.prefs.tattoo == 1) {
            damroll += 2;
        }
        if let Some(c) = self.world.chars.get_mut(&id) {
            c.base_ac = ac.clamp(-100, 100);
            c.hitroll = hitroll;
            c.damroll = damroll;
        }
    }

    /// Begins a fight (both sides engage if they are not already fighting).
    pub fn start_fight(&mut self, ch: CharId, victim: CharId) {
        if ch == victim {
            return;
        }
        for (a, b) in [(ch, victim), (victim, ch)] {
            if let Some(c) = self.world.chars.get_mut(&a) {
                if c.fighting.is_none() && c.position > Position::Stunned {
                    if c.position >= Position::Sitting {
                        c.position = Position::Fighting;
                    }
                    self.world.set_fighting(a, b);
                }
            }
        }
        // A mob remembers who attacked it — in the classic worlds only one with
        // MOB_MEMORY (CircleMUD's `remember`), and only a player.
        let classic = self.world.profile.family != crate::worldfile::profile::Family::Circle;
        let attacker_pc = self.world.ch(ch).is_some_and(|c| c.pc.is_some());
        if let Some(v) = self.world.chars.get_mut(&victim) {
            let remembers = !classic || (v.mob_flags & crate::game::model::tables::mob_flag::MEMORY != 0 && attacker_pc);
            if v.is_npc() && remembers && !v.memory.contains(&ch) {
                v.memory.push(ch);
            }
        }
    }

    pub fn combat_round(&mut self) {
        // Debug builds (every test) check the index of who fights whom against the
        // characters once a round.
        #[cfg(debug_assertions)]
        assert!(self.world.attackers_consistent(), "World::attackers says what Char::fighting says");
        let fighters = self.world.fighters();
        for (n, id) in fighters.into_iter().enumerate() {
            if n % 256 == 255 {
                self.drain_inbox();
            }
            let Some(c) = self.world.ch(id) else { continue };
            let Some(v) = c.fighting else { continue };
            let same_room = self.world.ch(v).is_some_and(|vc| vc.room == c.room);
            if !same_room {
                self.stop_fighting(id);
                continue;
            }
            if c.position < Position::Sitting {
                continue;
            }
            if c.is_npc() && c.mob_flags & tables::mob_flag::WIMPY != 0 && c.hit < c.max_hit / 5 {
                self.flee(id);
                continue;
            }
            self.hit(id, v);
            // A mob's DG fight triggers roll their chance each round.
            if self.world.ch(id).is_some_and(|c| c.behaves && c.fighting.is_some()) {
                let roll = self.roll(1, 100);
                let ctx = crate::game::scripting::dg_run::DgCtx { actor: Some(v), ..Default::default() };
                self.dg_fire_if(crate::game::scripting::dg_run::Owner::Mob(id), 'k', ctx, |narg, _| roll <= narg.max(1));
            }
            // A fighting mob's procedure acts after its blow (magic users cast…), with
            // MOB_SPEC only (perform_violence).
            if let Some(special) = self
                .mob_special(id)
                .filter(|_| self.world.ch(id).is_some_and(|c| c.mob_flags & tables::mob_flag::SPEC != 0))
                .map(str::to_string)
            {
                if self.world.ch(id).is_some_and(|c| c.fighting.is_some()) {
                    self.fight_special(id, &special);
                }
            }
        }
    }

    pub fn armour_class(&self, id: CharId) -> i32 {
        self.world.ch(id).map(|c| c.base_ac).unwrap_or(100)
    }

    /// One attack (see [`misses`] for the to-hit rule).
    pub fn hit(&mut self, ch: CharId, victim: CharId) {
        let (Some(c), Some(v)) = (self.world.ch(ch), self.world.ch(victim)) else {
            return;
        };
        if c.room != v.room || v.position == Position::Dead {
            return;
        }
        let (str_hit, str_dam) = tables::str_bonus(c.str_());
        // A mob's gear is not recomputed (`recompute_armour`); its spell effects count here.
        let npc_affects: i32 = if c.is_npc() { c.affects.iter().map(crate::game::rules::magic::hitroll_of).sum() } else { 0 };
        let thaco = if c.is_npc() { 20 } else { tables::thac0(c.class, c.level) } - str_hit - c.hitroll - npc_affects;
        let victim_ac = (self.armour_class(victim) / 10).clamp(-10, 10);
        let weapon = c.equipment[16].and_then(|o| self.world.obj(o)).filter(|o| o.item_type == item_type::WEAPON);
        let (dnum, dsize, wtype) = match weapon {
            Some(w) => (w.values[1], w.values[2], w.values[3].clamp(0, 14) as usize),
            None if c.is_npc() => (c.npc_damage.num, c.npc_damage.size, c.npc_attack as usize),
            None => (1, 2, 13),
        };
        let damroll = c.damroll;
        let npc = c.is_npc();
        let victim_pos = v.position;
        let roll = self.roll(1, 20);
        let miss = misses(roll, thaco, victim_ac, victim_pos);
        // A shopkeeper or an official is not fought at all: no fight begins, nothing is
        // remembered (the originals refuse before `hit` does anything).
        if self.protected_from(ch, victim) {
            return;
        }
        let mut dam = 0;
        if !miss {
            dam = str_dam + damroll.max(if npc { 0 } else { i32::MIN }) + self.dice(dnum, dsize);
            if victim_pos < Position::Fighting {
                dam *= 1 + (Position::Fighting as i32 - victim_pos as i32) / 3;
            }
            dam = dam.max(1);
        }
        self.start_fight(ch, victim);
        self.damage(ch, victim, dam, wtype);
        self.dg_hit_percent(victim);
        // A mob's `fight` script runs after each of its blows (while it stands).
        if npc && self.world.ch(ch).is_some_and(|c| c.position > Position::Stunned) {
            self.mob_script(ch, crate::script::Trigger::Fight, Some(victim), None, None);
        }
    }

    fn damage_messages(&mut self, ch: CharId, victim: CharId, dam: i32, wtype: usize) {
        let (sing, plur) = ATTACKS[wtype.min(ATTACKS.len() - 1)];
        let (to_char, to_vict, to_room) = match dam {
            0 => (
                format!("You miss $N with your {sing}."),
                format!("$n misses you with $s {sing}."),
                format!("$n misses $N with $s {sing}."),
            ),
            1..=2 => (
                format!("You tickle $N as you {sing} $M."),
                format!("$n tickles you as $e {plur} you."),
                format!("$n tickles $N as $e {plur} $M."),
            ),
            3..=4 => (format!("You barely {sing} $N."), format!("$n barely {plur} you."), format!("$n barely {plur} $N.")),
            5..=6 => (format!("You {sing} $N."), format!("$n {plur} you."), format!("$n {plur} $N.")),
            7..=10 => (format!("You {sing} $N hard."), format!("$n {plur} you hard."), format!("$n {plur} $N hard.")),
            11..=14 => (format!("You {sing} $N very hard."), format!("$n {plur} you very hard."), format!("$n {plur} $N very hard.")),
            15..=19 => (
                format!("You {sing} $N extremely hard."),
                format!("$n {plur} you extremely hard."),
                format!("$n {plur} $N extremely hard."),
            ),
            20..=23 => (
                format!("You massacre $N to small fragments with your {sing}."),
                format!("$n massacres you to small fragments with $s {sing}."),
                format!("$n massacres $N to small fragments with $s {sing}."),
            ),
            _ => (
                format!("You OBLITERATE $N with your deadly {sing}!"),
                format!("$n OBLITERATES you with $s deadly {sing}!"),
                format!("$n OBLITERATES $N with $s deadly {sing}!"),
            ),
        };
        self.act(&to_char, ch, Some(victim), None, To::Actor, EventKind::Combat);
        self.act(&to_vict, ch, Some(victim), None, To::Victim, EventKind::Combat);
        // Bystanders in a crowd hear the fights summed up once a second instead of every blow.
        if !self.note_crowd_fight(ch, victim) {
            self.act(&to_room, ch, Some(victim), None, To::NotVictim, EventKind::Combat);
        }
    }

    /// After healing: back on one's feet once hit points are above zero.
    pub fn update_pos(&mut self, id: CharId) {
        if let Some(v) = self.world.chars.get_mut(&id) {
            if v.hit > 0 && v.position < Position::Sleeping {
                v.position = Position::Standing;
            }
        }
    }

    /// Applies damage, updates position, and handles death.
    pub fn damage(&mut self, ch: CharId, victim: CharId, dam: i32, wtype: usize) {
        // Shopkeepers and (in Dark Pawns) the town's officials are not to be hurt.
        if wtype != TYPE_SUFFERING && self.protected_from(ch, victim) {
            return;
        }
        // Dark Pawns's guards jail a player rather than hurt it.
        if wtype != TYPE_SUFFERING && self.jails(ch, victim) {
            return;
        }
        if wtype != TYPE_SUFFERING {
            self.damage_messages(ch, victim, dam, wtype);
        }
        let Some(v) = self.world.chars.get_mut(&victim) else {
            return;
        };
        v.hit -= dam;
        v.mark_dirty();
        self.blow_exp(ch, victim, dam);
        let Some(v) = self.world.chars.get_mut(&victim) else { return };
        v.position = match v.hit {
            h if h > 0 => {
                if v.position < Position::Sleeping {
                    Position::Standing
                } else {
                    v.position
                }
            }
            h if h <= -11 => Position::Dead,
            h if h <= -6 => Position::MortallyWounded,
            h if h <= -3 => Position::Incapacitated,
            _ => Position::Stunned,
        };
        let pos = v.position;
        match pos {
            Position::Dead => self.die(victim, Some(ch)),
            Position::MortallyWounded => {
                self.act("$n is mortally wounded, and will die soon, if not aided.", victim, None, None, To::Room, EventKind::Combat)
            }
            Position::Incapacitated => {
                self.act("$n is incapacitated and will slowly die, if not aided.", victim, None, None, To::Room, EventKind::Combat)
            }
            Position::Stunned => {
                self.act("$n is stunned, but will probably regain consciousness again.", victim, None, None, To::Room, EventKind::Combat)
            }
            _ => {}
        }
        if matches!(pos, Position::MortallyWounded | Position::Incapacitated | Position::Stunned) {
            self.send_text(victim, "You are in a bad way, and will die soon if not aided.");
        }
        if pos <= Position::Stunned {
            self.spare_the_newcomer(ch, victim);
        }
        // Below its wimp level a fighting player flees by itself.
        let wimp = self.world.ch(victim).and_then(|v| {
            let pc = v.pc.as_ref()?;
            (ch != victim && pc.wimp_level > 0 && v.position == Position::Fighting && v.hit < pc.wimp_level as i32).then_some(())
        });
        if wimp.is_some() {
            self.send_text(victim, "You wimp out, and attempt to flee!");
            self.flee(victim);
        }
    }

    /// Dark Pawns's newbie protection: a mob stops fighting a player of level 5 or less
    /// once it is stunned or worse (`damage()`; no word of it but the usual ones).
    fn spare_the_newcomer(&mut self, ch: CharId, victim: CharId) {
        if self.world.profile.family != crate::worldfile::profile::Family::DarkPawns {
            return;
        }
        let (Some(c), Some(v)) = (self.world.ch(ch), self.world.ch(victim)) else { return };
        if c.is_npc() && v.pc.is_some() && v.level <= 5 && v.position > Position::Dead && c.fighting == Some(victim) {
            self.stop_fighting(ch);
        }
    }

    /// Death: a corpse with the gear, experience for the killer, respawn for players.
    pub fn die(&mut self, victim: CharId, killer: Option<CharId>) {
        let Some(v) = self.world.ch(victim) else {
            return;
        };
        let room = v.room;
        let v_level = v.level;
        let v_exp = v.exp;
        let v_name = v.name.to_string();
        let v_npc = v.is_npc();
        let v_align = v.alignment;
        for f in self.world.attackers_of(victim) {
            self.stop_fighting(f);
        }
        self.stop_fighting(victim);
        self.act("$n is dead!  R.I.P.", victim, None, None, To::Room, EventKind::Death);
        self.room_event_agents(room, victim, "death", &format!("{v_name} is dead."));
        self.send_event(victim, EventKind::Death, "You are dead!  Sorry...".into(), None);
        // The killer's experience comes before the death cry (both servers give it in
        // `damage`, before `die`).
        if let Some(k) = killer.filter(|k| *k != victim) {
            if self.world.ch(k).is_some_and(|c| c.pc.is_some()) {
                let k_level = self.world.ch(k).map(|c| c.level).unwrap_or(1);
                if let Some(kc) = self.world.chars.get_mut(&k) {
                    kc.kills += 1;
                }
                self.record_transition(
                    k,
                    pawns_storage::Transition::Kill {
                        victim: v_name.clone(),
                        victim_level: v_level,
                        victim_is_player: !v_npc,
                        level: k_level,
                    },
                );
                self.push_event(
                    k,
                    EventEntry {
                        kind: "kill",
                        text: Some(format!("You killed {v_name} (level {v_level}).").into()),
                        from: None,
                        command: None,
                        count: None,
                    },
                );
                // A group shares the kill among the members who were there (the world's
                // family's rule: `experience.rs`).
                let gains = if v_npc { self.kill_gains(k, v_level, v_exp) } else { Vec::new() };
                for (member, share, line) in gains.into_iter().filter(|(_, s, _)| *s > 0) {
                    self.send_text(member, &line);
                    self.gain_exp(member, share);
                    self.change_alignment(member, v_align);
                }
            }
        }
        let mut cried = false;
        // A mob killed by another runs its `death` script before its corpse is made.
        if let Some(k) = killer.filter(|k| *k != victim && v_npc) {
            self.mob_script(victim, crate::script::Trigger::Death, Some(k), None, None);
        }
        if v_npc && self.world.ch(victim).is_some_and(|c| c.behaves) {
            // Its last words are spoken standing (as tbaMUD's raw_kill stood it up).
            let ctx = crate::game::scripting::dg_run::DgCtx { actor: killer.filter(|k| *k != victim), ..Default::default() };
            if let Some(c) = self.world.chars.get_mut(&victim) {
                c.position = Position::Standing;
            }
            if self.dg_fire(crate::game::scripting::dg_run::Owner::Mob(victim), 'f', ctx) == Some(0) {
                // tbaMUD: a death trigger that answers 0 keeps the death cry back.
                cried = true;
            }
            if let Some(c) = self.world.chars.get_mut(&victim) {
                c.position = Position::Dead;
            }
        }
        if !cried {
            self.death_cry(victim);
        }
        self.make_corpse(victim);
        if v_npc {
            self.world.extract_char(victim);
            return;
        }
        // A player: lose exp/37 and wake at the temple.
        let start = self.start_room;
        let classic =
            matches!(self.world.profile.family, crate::worldfile::profile::Family::DarkPawns | crate::worldfile::profile::Family::TbaMud);
        let mut lost = 0;
        let tba_rules = self.world.profile.family == crate::worldfile::profile::Family::TbaMud;
        // Death takes a Dark Pawns tattoo and what it gave (`raw_kill`).
        let tattoo = self.world.ch(victim).and_then(|c| c.pc.as_ref()).map_or(0, |p| p.prefs.tattoo);
        if tattoo != 0 {
            self.tattoo_gifts(victim, tattoo, false);
            if let Some(pc) = self.world.chars.get_mut(&victim).and_then(|c| c.pc.as_mut()) {
                pc.prefs.tattoo = 0;
            }
            self.recompute_armour(victim);
        }
        if let Some(c) = self.world.chars.get_mut(&victim) {
            // tbaMUD takes half (its `die`); Dark Pawns and pawns a thirty-seventh.
            let loss = if tba_rules { c.exp.max(0) / 2 } else { death_exp_loss(c.exp) };
            lost = loss;
            c.exp -= loss;
            c.deaths += 1;
            // The classic worlds' servers bring the dead back with 1 hit point (Dark Pawns,
            // tbaMUD: back at the temple, "1(20) hit"); pawns's own world at full.
            c.hit = if classic { 1 } else { c.max_hit.max(1) };
            c.position = Position::Standing;
            c.wait = 0;
        }
        self.push_event(
            victim,
            EventEntry {
                kind: "death",
                text: Some(format!("You were killed{}.", killer.map(|k| format!(" by {}", self.pers(k))).unwrap_or_default()).into()),
                from: None,
                command: None,
                count: None,
            },
        );
        let killer_name = killer.filter(|k| *k != victim).map(|k| self.pers(k));
        self.record_transition(victim, pawns_storage::Transition::Death { killer: killer_name, exp_lost: lost });
        self.world.move_char(victim, start);
        let (to_room, to_victim) = (self.world.profile.respawn_room.clone(), self.world.profile.respawn.clone());
        if !self.note_crowd_arrival(victim) {
            self.act(&to_room, victim, None, None, To::Room, EventKind::System);
        }
        self.send_text(victim, &to_victim);
        let look = self.room_text(victim, false);
        self.send_text(victim, &look);
        self.send_state(victim);
        self.save_char(victim);
    }

    /// CircleMUD's `death_cry`: the room hears it by name, each room an open exit leads
    /// to hears someone's.
    fn death_cry(&mut self, victim: CharId) {
        let Some(here) = self.world.ch(victim).map(|c| c.room) else { return };
        self.act("Your blood freezes as you hear $n's death cry.", victim, None, None, To::Room, EventKind::Death);
        let mut heard = vec![here];
        for d in 0..crate::worldfile::DIR_NAMES.len() {
            if let Some(t) = self.world.passable(here, d).filter(|t| !heard.contains(t)) {
                heard.push(t);
                self.send_room(t, &[], EventKind::Death, "Your blood freezes as you hear someone's death cry.", None);
            }
        }
    }

    /// A killer's alignment moves a sixteenth of the way toward the opposite of its
    /// victim's (`change_alignment`; Dark Pawns leaves it alone for a neutral victim).
    fn change_alignment(&mut self, ch: CharId, victim_align: i32) {
        let dp = self.world.profile.family == crate::worldfile::profile::Family::DarkPawns;
        if dp && victim_align.abs() < 350 {
            return;
        }
        let Some(c) = self.world.chars.get_mut(&ch) else { return };
        if c.is_npc() {
            return;
        }
        let pull = -victim_align - c.alignment;
        // C: `>> 4` in Dark Pawns (rounds down), `/ 16` in CircleMUD and tbaMUD.
        c.alignment = (c.alignment + if dp { pull >> 4 } else { pull / 16 }).clamp(-1000, 1000);
        c.mark_dirty();
    }

    fn room_event_agents(&mut self, room: usize, except: CharId, kind: &'static str, text: &str) {
        let text: std::sync::Arc<str> = text.into();
        let people: Vec<CharId> = self.world.rooms[room].people.iter().copied().filter(|p| *p != except).collect();
        for p in people {
            if self.world.ch(p).is_some_and(|c| c.is_agent()) {
                self.push_event(p, EventEntry { kind, text: Some(text.clone()), from: None, command: None, count: None });
            }
        }
    }

    fn make_corpse(&mut self, victim: CharId) {
        let Some(v) = self.world.ch(victim) else {
            return;
        };
        let room = v.room;
        let name = v.name.to_string();
        let level = v.level;
        let gold = v.gold;
        let items: Vec<_> = v.inventory.iter().copied().chain(v.equipment.iter().flatten().copied()).collect();
        let corpse = Obj {
            id: 0,
            vnum: 0,
            keywords: "corpse".into(),
            short_descr: format!("the corpse of {name}").into(),
            long_descr: format!("The corpse of {name} is lying here."),
            item_type: item_type::CONTAINER,
            wear_flags: 0,
            extra_flags: 0,
            values: [0; 4],
            weight: 100,
            cost: 0,
            affects: Vec::new(),
            loc: ObjLoc::Nowhere,
            contains: Vec::new(),
            timer: Some(CORPSE_PULSES),
            level,
        };
        let cid = self.world.insert_obj(corpse);
        for o in items {
            self.world.obj_to_obj(o, cid);
        }
        if gold > 0 {
            let coins = self.money_obj(gold);
            self.world.obj_to_obj(coins, cid);
            if let Some(v) = self.world.chars.get_mut(&victim) {
                v.gold = 0;
            }
        }
        self.world.obj_to_room(cid, room);
        self.recompute_armour(victim);
    }

    /// A pile of coins as an object (goes into corpses; `get` turns it back into gold).
    pub fn money_obj(&mut self, amount: i64) -> u64 {
        let (short, long) = if amount == 1 {
            ("a gold coin".to_string(), "One miserable gold coin is lying here.".to_string())
        } else {
            (format!("{amount} gold coins"), format!("A pile of {amount} gold coins is lying here."))
        };
        let o = Obj {
            id: 0,
            vnum: 0,
            keywords: "coins gold money".into(),
            short_descr: short.into(),
            long_descr: long,
            item_type: item_type::MONEY,
            wear_flags: tables::wear_flag::TAKE,
            extra_flags: 0,
            values: [amount.clamp(0, i32::MAX as i64) as i32, 0, 0, 0],
            weight: 0,
            cost: amount as i32,
            affects: Vec::new(),
            loc: ObjLoc::Nowhere,
            contains: Vec::new(),
            timer: None,
            level: 0,
        };
        self.world.insert_obj(o)
    }

    pub fn gain_exp(&mut self, id: CharId, amount: i64) {
        let Some(c) = self.world.chars.get_mut(&id) else {
            return;
        };
        if c.is_npc() {
            return;
        }
        let amount = self.capped_gain(id, amount);
        let Some(c) = self.world.chars.get_mut(&id) else { return };
        c.exp = (c.exp + amount).max(0);
        c.mark_dirty();
        loop {
            let Some(c) = self.world.ch(id) else { return };
            if c.level >= MAX_LEVEL || c.exp < self.exp_to_reach(c.class, c.level + 1) {
                break;
            }
            self.advance_level(id);
        }
    }

    fn advance_level(&mut self, id: CharId) {
        let Some(c) = self.world.ch(id) else { return };
        let (hp_die, mana_die) = tables::level_gain_dice(c.class);
        let con_bonus = (c.con() as i32 - 12) / 2;
        let hp = self.roll(hp_die / 2, hp_die) + con_bonus.max(0);
        let mana = self.roll(1, mana_die);
        let mv = self.roll(1, 3);
        // Dark Pawns and tbaMUD give a level's sessions by wisdom (their advance_level).
        let sessions = if matches!(
            self.world.profile.family,
            crate::worldfile::profile::Family::DarkPawns | crate::worldfile::profile::Family::TbaMud
        ) {
            self.world.ch(id).map_or(1, |c| crate::game::rules::practice::sessions_per_level(c.class, c.abilities[2]))
        } else {
            crate::game::rules::spells::PRACTICES_PER_LEVEL
        };
        let Some(c) = self.world.chars.get_mut(&id) else {
            return;
        };
        c.level += 1;
        if let Some(pc) = c.pc.as_mut() {
            pc.practices += sessions;
        }
        c.max_hit += hp.max(1);
        c.max_mana += mana;
        c.max_moves += mv;
        let level = c.level;
        self.send_event(id, EventKind::LevelUp, format!("You rise a level! You are now level {level}."), None);
        self.push_event(
            id,
            EventEntry { kind: "level_up", text: Some(format!("Level {level}.").into()), from: None, command: None, count: None },
        );
        self.save_char(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn death_costs_exp_over_37() {
        assert_eq!(death_exp_loss(3700), 100);
        assert_eq!(death_exp_loss(36), 0);
        assert_eq!(death_exp_loss(-5), 0);
    }

    #[test]
    fn a_victim_that_is_not_awake_is_always_hit() {
        // A hopeless attacker (THAC0 20) against the best armour: only a natural 20 hits
        // someone awake...
        for pos in [Position::Resting, Position::Sitting, Position::Fighting, Position::Standing] {
            assert!((1..20).all(|roll| misses(roll, 20, -10, pos)), "{pos:?}");
            assert!(!misses(20, 20, -10, pos));
        }
        // ...and every roll, a natural 1 included, hits the sleeping and the helpless.
        for pos in [Position::Sleeping, Position::Stunned, Position::Incapacitated, Position::MortallyWounded] {
            assert!((1..=20).all(|roll| !misses(roll, 20, -10, pos)), "{pos:?}");
        }
        // An ordinary swing: thaco - roll must reach the armour class.
        assert!(!misses(10, 20, 10, Position::Standing));
        assert!(misses(5, 20, 10, Position::Standing));
        assert!(misses(1, 0, 10, Position::Standing), "a natural 1 misses the awake");
    }

    #[test]
    fn kill_exp_scales_with_level_gap() {
        assert_eq!(kill_exp(300, 3, 3), 100);
        assert!(kill_exp(300, 8, 3) > kill_exp(300, 3, 3));
        assert!(kill_exp(300, 1, 10) < kill_exp(300, 3, 3));
        assert!(kill_exp(0, 1, 30) >= 1);
    }
}

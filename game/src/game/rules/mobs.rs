//! Mob activity every 4 seconds: aggression, memory of attackers, helpers, scavenging,
//! noises (the Dark Pawns `Noise` spec), wandering inside their own zone. Charmed mobs
//! do none of it: they follow their master. Each mob keeps its 4-second beat, but the
//! mobs' turns are spread over the beat's 40 pulses by id (as room and object scripts
//! are), so no one pulse carries a whole world's mobs: on Dark Pawns that was 3–4 ms of
//! one pulse in forty.

use crate::game::model::tables::{mob_flag, room_flag, Position};
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::messaging::To;
use crate::game::send::output::EventKind;

impl Engine {
    /// Every mob's turn at once.
    pub fn mob_activity(&mut self) {
        let mobs: Vec<CharId> = self.world.mob_ids().collect();
        self.mob_turns(mobs);
    }

    /// This pulse's share of the mobs: those whose id falls in its slot of the beat.
    pub fn mob_activity_share(&mut self) {
        let mobs = self.world.mobs_due(self.pulse).to_vec();
        self.mob_turns(mobs);
    }

    fn mob_turns(&mut self, mobs: Vec<CharId>) {
        for id in mobs {
            let Some(m) = self.world.ch(id) else { continue };
            if m.fighting.is_some() || m.position < Position::Standing {
                continue;
            }
            if m.master.is_some() {
                continue;
            }
            let room = m.room;
            let flags = m.mob_flags;
            let vnum = m.npc_vnum;
            // A special procedure goes first — only with MOB_SPEC, as the original's
            // mobile_activity — and when it acts, that is the mob's turn.
            if let Some(special) = vnum.filter(|_| flags & mob_flag::SPEC != 0).and_then(|v| self.world.mob_specials.get(&v)).cloned() {
                if self.run_special(id, &special) {
                    continue;
                }
            }
            // Then its script: sound, onpulse_all (which may end the turn), onpulse_pc.
            if self.mob_turn_scripts(id) {
                continue;
            }
            let Some(m) = self.world.ch(id) else { continue };
            let peaceful = self.world.rooms[room].proto.flags[0] & room_flag::PEACEFUL != 0;
            // Aggressive mobs and mobs that remember an attacker strike first.
            if !peaceful {
                let remembered = m.memory.clone();
                let target = self.world.rooms[room].people.iter().copied().find(|p| {
                    self.world.ch(*p).is_some_and(|c| {
                        c.pc.is_some() && c.position > Position::Dead && (flags & mob_flag::AGGRESSIVE != 0 || remembered.contains(p))
                    })
                });
                if let Some(t) = target {
                    if remembered.contains(&t) {
                        self.act("$n screams, 'Hey!  You're the fiend that attacked me!!!'", id, None, None, To::Room, EventKind::Say);
                    }
                    self.hit(id, t);
                    continue;
                }
                // Helpers jump in when a player is fighting one of their kind (any mob).
                if flags & mob_flag::HELPER != 0 {
                    let attacker = self.world.rooms[room].people.iter().copied().find(|p| {
                        self.world.ch(*p).is_some_and(|c| {
                            c.pc.is_some() && c.fighting.is_some_and(|f| self.world.ch(f).is_some_and(|v| v.is_npc() && v.master.is_none()))
                        })
                    });
                    if let Some(a) = attacker {
                        let victim = self.world.ch(a).and_then(|c| c.fighting);
                        self.act("$n jumps to the aid of $N!", id, victim, None, To::Room, EventKind::Combat);
                        self.hit(id, a);
                        continue;
                    }
                }
            }
            let dark_pawns = self.world.profile.family == crate::worldfile::profile::Family::DarkPawns;
            // Dark Pawns's people make their sounds (`mp_sound`) one turn in sixteen; its
            // C never reads a mob's `Noise` line, which other worlds' mobs make.
            if dark_pawns {
                if self.roll(0, 15) == 0 {
                    self.dp_sound(id);
                }
            } else if self.roll(0, 19) == 0 {
                let noise = vnum
                    .and_then(|v| self.world.mob_protos.get(&v))
                    .and_then(|p| p.specs.iter().find(|(k, _)| k.eq_ignore_ascii_case("noise")).map(|(_, n)| n.clone()));
                if let Some(n) = noise.filter(|n| !n.is_empty()) {
                    // Noise lines are whole sentences ("You hear a mad scream.").
                    self.send_room(room, &[id], EventKind::Text, n.trim_end_matches('~').trim(), None);
                }
            }
            if flags & mob_flag::SCAVENGER != 0 && self.roll(0, 9) == 0 {
                let best = self.world.rooms[room]
                    .contents
                    .iter()
                    .filter_map(|o| self.world.obj(*o))
                    .filter(|o| o.wear_flags & crate::game::model::tables::wear_flag::TAKE != 0)
                    .max_by_key(|o| o.cost)
                    .map(|o| o.id);
                if let Some(o) = best {
                    self.act("$n gets $p.", id, None, Some(o), To::Room, EventKind::System);
                    self.world.obj_to_char(o, id);
                    continue;
                }
            }
            if flags & mob_flag::SENTINEL == 0 && self.roll(0, 2) == 0 {
                let dir = self.roll(0, 5) as usize;
                let Some(to) = self.world.passable(room, dir) else {
                    continue;
                };
                let tflags = self.world.rooms[to].proto.flags[0];
                if self.world.rooms[to].proto.zone != self.world.rooms[room].proto.zone
                    || tflags & (room_flag::NOMOB | room_flag::DEATH) != 0
                {
                    continue;
                }
                self.move_char_dir(id, dir, to);
            }
        }
    }
}

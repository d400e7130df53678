//! Text and `state` renderings of what a character sees.

use std::sync::Arc;

use crate::game::model::character::Char;
use crate::game::model::tables::{class_name, race_name, Position};
use crate::game::model::targeting::NPC_SIG;
use crate::game::model::world::CharId;
use crate::game::run::engine::Engine;
use crate::game::send::output::{DoorView, Out, PlayerState, RoomState, StateData};
use crate::game::send::vars::{position_of, visible_exits};
use crate::worldfile::DIR_NAMES;

/// Players listed by name in `state.room.players`; the rest are counted in `players_more`.
pub const STATE_PLAYERS: usize = 50;
/// Players described one by one in a room's text before the rest are summed up.
pub const TEXT_PLAYERS: usize = 20;

pub fn prompt(ch: &Char, family: crate::worldfile::profile::Family) -> String {
    let bits = ch.pc.as_ref().map_or(crate::game::model::character::PROMPT_ALL, |p| p.prefs.prompt);
    if family == crate::worldfile::profile::Family::Circle {
        if bits == crate::game::model::character::PROMPT_ALL {
            return format!("< {}hp {}m {}mv > ", ch.hit, ch.mana, ch.moves);
        }
        let mut s = String::from("< ");
        for (bit, v, unit) in [(1, ch.hit, "hp"), (2, ch.mana, "m"), (4, ch.moves, "mv")] {
            if bits & bit != 0 {
                s.push_str(&format!("{v}{unit} "));
            }
        }
        s.push_str("> ");
        return s;
    }
    // Dark Pawns and tbaMUD: `20H 100M 82V > `.
    let mut s = String::new();
    for (bit, v, unit) in [(1, ch.hit, 'H'), (2, ch.mana, 'M'), (4, ch.moves, 'V')] {
        if bits & bit != 0 {
            s.push_str(&format!("{v}{unit} "));
        }
    }
    s.push_str("> ");
    s
}

impl Engine {
    pub fn room_state(&self, viewer: CharId) -> Option<RoomState> {
        let ch = self.world.ch(viewer)?;
        let room = &self.world.rooms[ch.room];
        // A crowd costs the players listed, not everyone: the mobs have a list of their
        // own, the players are read until enough are named, the rest are counted.
        // Sized before they are filled (a filtered list grown by doubling reallocated a
        // crowd's list four times per `state`).
        let mut mobs: Vec<Arc<str>> = Vec::with_capacity(room.npcs.len());
        mobs.extend(room.npcs.iter().filter(|p| **p != viewer).filter_map(|p| self.world.ch(*p)).map(|c| c.name.clone()));
        let mut players: Vec<Arc<str>> = Vec::with_capacity(room.pcs.min(STATE_PLAYERS));
        players.extend(
            room.people
                .iter()
                .zip(&room.sigs)
                .filter(|(p, s)| **s & NPC_SIG == 0 && **p != viewer)
                .filter_map(|(p, _)| self.world.ch(*p))
                .take(STATE_PLAYERS)
                .map(|c| c.name.clone()),
        );
        let others = room.pcs - usize::from(ch.pc.is_some());
        let players_more = others.saturating_sub(players.len());
        let items = room.contents.iter().filter_map(|o| self.world.obj(*o)).map(|o| o.short_descr.clone()).collect();
        let exits = visible_exits(&self.world, ch.room);
        let doors = (0..6)
            .filter_map(|d| {
                let e = room.proto.exits[d].as_ref()?;
                if e.door_flags & 1 == 0 {
                    return None;
                }
                let st = room.doors[d];
                if crate::game::rules::doors::hidden(e, &st) {
                    return None;
                }
                Some(DoorView {
                    direction: DIR_NAMES[d],
                    state: if st.locked {
                        "locked"
                    } else if st.closed {
                        "closed"
                    } else {
                        "open"
                    },
                    keyword: e.keywords.split_whitespace().next().unwrap_or("door").to_string(),
                })
            })
            .collect();
        Some(RoomState {
            vnum: room.proto.vnum,
            name: room.state_name.clone(),
            description: room.state_description.clone(),
            exits,
            doors,
            players,
            players_more,
            mobs,
            items,
        })
    }

    pub fn player_state(&self, id: CharId) -> Option<PlayerState> {
        let c = self.world.ch(id)?;
        Some(PlayerState {
            name: c.name.to_string(),
            health: c.hit,
            max_health: c.max_hit,
            mana: c.mana,
            max_mana: c.max_mana,
            moves: c.moves,
            max_move: c.max_moves,
            level: c.level,
            exp: c.exp,
            gold: c.gold,
            position: position_of(c),
            class: class_name(c.class),
            race: race_name(c.race),
            str: c.abilities[0],
            int: c.abilities[1],
            wis: c.abilities[2],
            dex: c.abilities[3],
            con: c.abilities[4],
            cha: c.abilities[5],
            is_agent: c.is_agent(),
        })
    }

    /// Sends `state` to a JSON session (telnet sessions get the room as text instead).
    pub fn send_state(&mut self, id: CharId) {
        let json = self.world.ch(id).and_then(|c| c.pc.as_ref()).and_then(|p| p.link.as_ref()).is_some_and(|l| l.json);
        if !json {
            return;
        }
        let (Some(player), Some(room)) = (self.player_state(id), self.room_state(id)) else {
            return;
        };
        let re = self.re_for(id);
        self.deliver(id, Out::State { data: Box::new(StateData { player, room }), re });
    }

    /// The room as text: name, description, exits, things, and who is here.
    pub fn room_text(&self, viewer: CharId, brief: bool) -> String {
        match self.world.ch(viewer) {
            Some(ch) => self.room_text_at(viewer, ch.room, brief),
            None => String::new(),
        }
    }

    /// Room `at` as `viewer` would see it standing there (Dark Pawns's `look north`
    /// shows the next room so).
    pub fn room_text_at(&self, viewer: CharId, at: crate::game::model::world::RoomId, brief: bool) -> String {
        use std::fmt::Write;
        if self.world.is_dark(at) && !self.world.sees_in_dark(viewer) {
            return "It is pitch black...".to_string();
        }
        let room = &self.world.rooms[at];
        // One string, written in place: a look is made often, by everyone.
        let mut s = String::with_capacity(512);
        // CircleMUD's colours at `normal`: the title and exits cyan, things green,
        // people yellow (marks; a telnet session renders them, everyone else strips).
        let mark = |s: &mut String, code: char| {
            s.push(crate::game::send::colour::MARK);
            s.push('2');
            s.push(code);
        };
        let (name, description) = match room.coloured.as_deref() {
            Some((n, d)) => (n.as_str(), d.as_str()),
            None => (room.proto.name.as_str(), room.proto.description.as_str()),
        };
        mark(&mut s, 'c');
        s.push_str(name);
        mark(&mut s, 'n');
        s.push('\n');
        if !brief {
            s.push_str(description.trim_end());
            s.push('\n');
        }
        mark(&mut s, 'c');
        s.push_str("[ Exits: ");
        let family = self.world.profile.family;
        let exits = visible_exits(&self.world, at);
        if exits.is_empty() {
            // The classic servers' `do_auto_exits` says "None!".
            s.push_str(if family == crate::worldfile::profile::Family::Circle { "none" } else { "None!" });
        }
        for (i, e) in exits.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            if family == crate::worldfile::profile::Family::TbaMud {
                // tbaMUD's autoexits: a letter each, a closed door's in brackets.
                let d = crate::worldfile::DIR_NAMES.iter().position(|n| n == e).unwrap_or(0);
                let letter = &e[..1];
                if room.doors[d].closed {
                    let _ = write!(s, "({letter})");
                } else {
                    s.push_str(letter);
                }
            } else {
                s.push_str(e);
            }
        }
        s.push_str(" ]");
        mark(&mut s, 'n');
        s.push('\n');
        for o in room.contents.iter().filter_map(|o| self.world.obj(*o)) {
            if !o.long_descr.is_empty() {
                mark(&mut s, 'g');
                s.push_str(&o.long_descr);
                mark(&mut s, 'n');
                s.push('\n');
            }
        }
        let mut shown = 0;
        let mut unseen = 0;
        for (p, sig) in room.people.iter().zip(&room.sigs) {
            if *p == viewer {
                continue;
            }
            // A crowd is summed up after the first few (mobs are always shown), without
            // reading the players it only counts.
            let npc = sig & NPC_SIG != 0;
            if !npc && shown >= TEXT_PLAYERS {
                unseen += 1;
                continue;
            }
            let Some(c) = self.world.ch(*p) else { continue };
            if !npc {
                shown += 1;
            }
            mark(&mut s, 'y');
            self.describe_in_room(c, &mut s);
            mark(&mut s, 'n');
            s.push('\n');
        }
        if unseen > 0 {
            let _ = writeln!(s, "...and {unseen} more {} here.", if unseen == 1 { "person is" } else { "people are" });
        }
        s.truncate(s.trim_end().len());
        s
    }

    /// One line of a room's text for someone in it, written onto `s`.
    fn describe_in_room(&self, c: &Char, s: &mut String) {
        if c.is_npc() && c.position == c.default_position && c.fighting.is_none() {
            s.push_str(&c.long_descr);
            return;
        }
        push_capitalized(s, &c.name);
        if c.is_agent() {
            s.push_str(" [agent]");
        }
        if c.pc.as_ref().is_some_and(|p| p.link.is_none()) {
            s.push_str(" (linkless)");
        }
        s.push_str(match c.position {
            Position::Sleeping => " is sleeping here",
            Position::Resting => " is resting here",
            Position::Sitting => " is sitting here",
            Position::Fighting => " is here",
            Position::Standing => " is standing here",
            _ => " is lying here, badly hurt",
        });
        if let Some(f) = c.fighting.and_then(|f| self.world.ch(f)) {
            s.push_str(", fighting ");
            s.push_str(&f.name);
        }
        s.push('.');
    }
}

/// `text` onto `s` with its first letter in upper case (`messaging::capitalize` in place).
fn push_capitalized(s: &mut String, text: &str) {
    let mut c = text.chars();
    if let Some(f) = c.next() {
        s.extend(f.to_uppercase());
        s.push_str(c.as_str());
    }
}

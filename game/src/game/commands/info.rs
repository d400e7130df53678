//! Looking around and at oneself: look, exits, score, inventory, equipment, who, help.

use super::CmdStatus;
use crate::game::model::tables::{class_name, item_type, race_name, WEAR_LABELS};
use crate::game::model::targeting::is_name;
use crate::game::model::world::CharId;
use crate::game::rules::doors::parse_dir;
use crate::game::run::engine::Engine;
use crate::game::send::vars::{position_of, visible_exits};
use crate::worldfile::DIR_NAMES;

pub const HELP_TEXT: &str = include_str!("../../../../data/help.txt");

impl Engine {
    /// Dark Pawns's `look <dir>`: "You look northwards.", then the exit's own words,
    /// its door, or — through an open way with nothing written — the room beyond.
    fn dp_look_toward(&mut self, ch: CharId, room: usize, d: usize) -> CmdStatus {
        if self.world.ch(ch).is_some_and(|c| c.fighting.is_some()) {
            self.send_text(ch, "You're a little busy right now!");
            return CmdStatus::Failed;
        }
        let mut t = format!("You look {}wards.", crate::worldfile::DIR_NAMES[d]);
        match self.world.rooms[room].proto.exits[d].as_ref() {
            Some(e) if crate::game::rules::doors::hidden(e, &self.world.rooms[room].doors[d]) => t.push_str("\nYou see nothing special."),
            Some(e) if !e.description.trim().is_empty() => {
                t.push('\n');
                t.push_str(e.description.trim_end());
            }
            Some(e) if e.door_flags & 1 != 0 && self.world.rooms[room].doors[d].closed => {
                let kw = e.keywords.split_whitespace().next().unwrap_or("door");
                t.push_str(&format!("\nThe {kw} is closed."));
            }
            Some(e) => {
                if e.door_flags & 1 != 0 {
                    let kw = e.keywords.split_whitespace().next().unwrap_or("door");
                    t.push_str(&format!("\nThe {kw} is open."));
                }
                match self.world.passable(room, d) {
                    Some(to) => {
                        t.push('\n');
                        t.push_str(&self.room_text_at(ch, to, false));
                    }
                    None => t.push_str("\nYou see nothing special."),
                }
            }
            None => {}
        }
        self.send_text(ch, &t);
        CmdStatus::Ok
    }

    pub fn do_look(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let mut words = args.split_whitespace();
        let Some(first) = words.next() else {
            self.show_room(ch);
            return CmdStatus::Ok;
        };
        let Some(room) = self.world.ch(ch).map(|c| c.room) else {
            return CmdStatus::Failed;
        };
        if first.eq_ignore_ascii_case("in") {
            let target = words.next().unwrap_or("");
            return self.look_in(ch, target);
        }
        let target = if first.eq_ignore_ascii_case("at") { words.next().unwrap_or("") } else { first };
        if first.len() <= 5 && !first.eq_ignore_ascii_case("at") {
            if let Some(d) = parse_dir(first) {
                if self.world.profile.family == crate::worldfile::profile::Family::DarkPawns {
                    return self.dp_look_toward(ch, room, d);
                }
                let text = match self.world.rooms[room].proto.exits[d].as_ref() {
                    Some(e) if crate::game::rules::doors::hidden(e, &self.world.rooms[room].doors[d]) => {
                        "You see nothing special.".to_string()
                    }
                    Some(e) => {
                        let mut t = if e.description.trim().is_empty() {
                            "You see nothing special.".to_string()
                        } else {
                            e.description.trim_end().to_string()
                        };
                        if e.door_flags & 1 != 0 && !e.keywords.is_empty() {
                            let st = self.world.rooms[room].doors[d];
                            let kw = e.keywords.split_whitespace().next().unwrap_or("door");
                            t.push_str(&format!("\nThe {kw} is {}.", if st.closed { "closed" } else { "open" }));
                        }
                        t
                    }
                    None => "You see nothing special.".to_string(),
                };
                self.send_text(ch, &text);
                return CmdStatus::Ok;
            }
        }
        if target.is_empty() {
            self.send_text(ch, "Look at what?");
            return CmdStatus::InvalidTarget;
        }
        if let Some(v) = self.find_char_room(ch, target) {
            let vc = self.world.ch(v).unwrap();
            let mut t = if vc.description.trim().is_empty() {
                format!("You see nothing special about {}.", vc.name)
            } else {
                vc.description.trim_end().to_string()
            };
            let pct = if vc.max_hit > 0 { vc.hit * 100 / vc.max_hit } else { 0 };
            let cond = match pct {
                100.. => "is in excellent condition.",
                90..=99 => "has a few scratches.",
                75..=89 => "has some small wounds and bruises.",
                50..=74 => "has quite a few wounds.",
                30..=49 => "has some big nasty wounds and scratches.",
                15..=29 => "looks pretty hurt.",
                0..=14 => "is in awful condition.",
                _ => "is bleeding awfully from big wounds.",
            };
            t.push_str(&format!("\n{} {}", crate::game::send::messaging::capitalize(&vc.name), cond));
            let worn: Vec<String> = vc
                .equipment
                .iter()
                .enumerate()
                .filter_map(|(s, o)| Some(format!("{}{}", WEAR_LABELS[s], self.world.obj((*o)?)?.short_descr)))
                .collect();
            if !worn.is_empty() {
                t.push_str(&format!("\n\n{} is using:\n{}", crate::game::send::messaging::capitalize(&vc.name), worn.join("\n")));
            }
            self.send_text(ch, &t);
            return CmdStatus::Ok;
        }
        if let Some(o) = self.find_obj_here(ch, target) {
            let obj = self.world.obj(o).unwrap();
            let extra =
                self.world.obj_protos.get(&obj.vnum).and_then(|p| {
                    p.extra_descs.iter().find(|e| is_name(target, &e.keywords)).map(|e| e.description.trim_end().to_string())
                });
            let text = extra.unwrap_or_else(|| {
                if obj.item_type == item_type::CONTAINER {
                    String::new()
                } else {
                    format!("You see nothing special about {}.", obj.short_descr)
                }
            });
            if obj.item_type == item_type::CONTAINER {
                return self.look_in(ch, target);
            }
            self.send_text(ch, &text);
            return CmdStatus::Ok;
        }
        let extra = self.world.rooms[room]
            .proto
            .extra_descs
            .iter()
            .find(|e| is_name(target, &e.keywords))
            .map(|e| e.description.trim_end().to_string());
        match extra {
            Some(t) => {
                self.send_text(ch, &t);
                CmdStatus::Ok
            }
            None => {
                self.send_text(ch, "You do not see that here.");
                CmdStatus::InvalidTarget
            }
        }
    }

    fn look_in(&mut self, ch: CharId, target: &str) -> CmdStatus {
        let Some(o) = self.find_obj_here(ch, target) else {
            self.send_text(ch, "You do not see that here.");
            return CmdStatus::InvalidTarget;
        };
        let obj = self.world.obj(o).unwrap();
        if obj.item_type != item_type::CONTAINER {
            self.send_text(ch, "That is not a container.");
            return CmdStatus::Failed;
        }
        if obj.values[1] & crate::game::model::tables::cont::CLOSED != 0 {
            self.send_text(ch, "It is closed.");
            return CmdStatus::Failed;
        }
        let mut t = format!("{} (here):", crate::game::send::messaging::capitalize(&obj.short_descr));
        if obj.contains.is_empty() {
            t.push_str("\n  Nothing.");
        }
        for c in &obj.contains {
            if let Some(c) = self.world.obj(*c) {
                t.push_str(&format!("\n  {}", c.short_descr));
            }
        }
        self.send_text(ch, &t);
        CmdStatus::Ok
    }

    pub fn do_exits(&mut self, ch: CharId, _: &str) -> CmdStatus {
        let Some(room) = self.world.ch(ch).map(|c| c.room) else {
            return CmdStatus::Failed;
        };
        let mut t = String::from("Obvious exits:");
        let exits = visible_exits(&self.world, room);
        if exits.is_empty() {
            t.push_str("\n None.");
        }
        for (d, dir) in DIR_NAMES.iter().enumerate() {
            if !exits.contains(dir) {
                continue;
            }
            let Some(e) = self.world.rooms[room].proto.exits[d].as_ref() else { continue };
            let st = self.world.rooms[room].doors[d];
            let dest = self.world.room_of_vnum(e.to_room as u32).map(|r| self.world.rooms[r].proto.name.to_string()).unwrap_or_default();
            let shown = if st.closed { format!("A closed {}", e.keywords.split_whitespace().next().unwrap_or("door")) } else { dest };
            t.push_str(&format!("\n{:<5} - {}", crate::game::send::messaging::capitalize(dir), shown));
        }
        self.send_text(ch, &t);
        CmdStatus::Ok
    }

    pub fn do_score(&mut self, ch: CharId, _: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        // Dark Pawns shows what is left to its table's mark (1,499 for a new character).
        let next = if self.world.profile.family == crate::worldfile::profile::Family::DarkPawns {
            crate::game::rules::experience::dp_find_exp(c.class, c.level) - c.exp
        } else {
            self.exp_to_reach(c.class, c.level + 1) - c.exp
        };
        let t = format!(
            "You are {}, a level {} {} {}{}.\nYou have {}({}) hit, {}({}) mana and {}({}) movement points.\nYour abilities: Str {} Int {} Wis {} Dex {} Con {} Cha {}.\nYour armor class is {}/10, and your alignment is {}.\nYou have scored {} exp, and have {}.\nYou need {} exp to reach your next level.\nYou have killed {} and died {} times.\nYou are {}.",
            c.name, c.level, race_name(c.race), class_name(c.class), if c.is_agent() { " (agent)" } else { "" },
            c.hit, c.max_hit, c.mana, c.max_mana, c.moves, c.max_moves,
            c.abilities[0], c.abilities[1], c.abilities[2], c.abilities[3], c.abilities[4], c.abilities[5],
            c.base_ac, c.alignment, c.exp, crate::game::send::messaging::gold_coins(c.gold), next.max(0), c.kills, c.deaths, position_of(c)
        );
        // Dark Pawns names the player's city ("You are a citizen of Kir Drax'in.").
        let t = if self.world.profile.family == crate::worldfile::profile::Family::DarkPawns {
            let town = ["Kir Drax'in", "Kir Drax'in", "Kir-Oshi", "Alaozar"][self.hometown(ch).min(3) as usize];
            format!("{t}\nYou are a citizen of {town}.")
        } else {
            t
        };
        self.send_text(ch, &t);
        CmdStatus::Ok
    }

    pub fn do_inventory(&mut self, ch: CharId, _: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        let mut t = String::from("You are carrying:");
        if c.inventory.is_empty() {
            t.push_str("\n Nothing.");
        }
        for o in c.inventory.iter().filter_map(|o| self.world.obj(*o)) {
            t.push_str(&format!("\n{}", o.short_descr));
        }
        self.send_text(ch, &t);
        CmdStatus::Ok
    }

    pub fn do_equipment(&mut self, ch: CharId, _: &str) -> CmdStatus {
        let Some(c) = self.world.ch(ch) else {
            return CmdStatus::Failed;
        };
        let mut t = String::from("You are using:");
        let mut any = false;
        for (s, o) in c.equipment.iter().enumerate() {
            if let Some(o) = o.and_then(|o| self.world.obj(o)) {
                t.push_str(&format!("\n{}{}", WEAR_LABELS[s], o.short_descr));
                any = true;
            }
        }
        if !any {
            t.push_str("\n Nothing.");
        }
        self.send_text(ch, &t);
        CmdStatus::Ok
    }

    pub fn do_who(&mut self, ch: CharId, _: &str) -> CmdStatus {
        let mut list: Vec<(u8, String, String, bool)> = self
            .world
            .players
            .values()
            .filter_map(|id| self.world.ch(*id))
            .map(|c| {
                let title = c.pc.as_ref().map(|p| p.prefs.title.as_str()).filter(|t| !t.is_empty());
                let name = match title {
                    Some(t) => format!("{} {t}", c.name),
                    None => c.name.to_string(),
                };
                (c.level, name, class_name(c.class).to_string(), c.is_agent())
            })
            .collect();
        list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut t = String::from("Players\n-------");
        for (lvl, name, class, agent) in &list {
            t.push_str(&format!("\n[{lvl:>2} {:<10}] {name}{}", class, if *agent { " [agent]" } else { "" }));
        }
        t.push_str(&format!("\n\n{} character{} displayed.", list.len(), if list.len() == 1 { "" } else { "s" }));
        self.send_text(ch, &t);
        CmdStatus::Ok
    }

    pub fn do_help(&mut self, ch: CharId, args: &str) -> CmdStatus {
        let topic = args.trim();
        let topic = if topic.is_empty() { "help" } else { topic };
        let found =
            HELP_TEXT.split("\n#\n").find(|entry| entry.lines().next().is_some_and(|kws| is_name(topic, &kws.to_ascii_lowercase())));
        match found {
            Some(entry) => {
                let body: Vec<&str> = entry.lines().skip(1).collect();
                self.send_text(ch, body.join("\n").trim());
                CmdStatus::Ok
            }
            None => {
                self.send_text(ch, "There is no help on that word.");
                CmdStatus::InvalidTarget
            }
        }
    }

    pub fn do_commands(&mut self, ch: CharId, _: &str) -> CmdStatus {
        let names: Vec<&str> = super::COMMANDS.iter().map(|c| c.name).collect();
        let mut t = String::from("The following commands are available:\n");
        for chunk in names.chunks(6) {
            t.push_str(&chunk.iter().map(|n| format!("{n:<13}")).collect::<String>());
            t.push('\n');
        }
        self.send_text(ch, t.trim_end());
        CmdStatus::Ok
    }
}

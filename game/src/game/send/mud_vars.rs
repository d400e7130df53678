//! What MUD clients (GMCP, MSDP) are told beyond the 19 protocol variables: the room as
//! a mapper reads it (`ROOM_INFO`) and who the character is and fights (`CHAR_INFO`).
//! Sent only to telnet sessions that turned GMCP or MSDP on, beside their variable deltas;
//! the session compares them with what it sent before, so repeating them costs no bytes.

use serde_json::{json, Map, Value};

use crate::game::model::character::Char;
use crate::game::model::tables::{class_name, race_name};
use crate::game::model::world::World;

pub const ROOM_INFO: &str = "ROOM_INFO";
pub const CHAR_INFO: &str = "CHAR_INFO";

/// Exit keys as mappers write them (Mudlet's IRE mapper, Aardwolf, MSDP's `EXITS`).
pub const DIR_SHORT: [&str; 6] = ["n", "e", "s", "w", "u", "d"];

/// CircleMUD's sector types (Dark Pawns and tbaMUD share the first ten).
const SECTORS: [&str; 10] =
    ["inside", "city", "field", "forest", "hills", "mountain", "water_swim", "water_noswim", "flying", "underwater"];

pub fn sector_name(sector: u32) -> &'static str {
    SECTORS.get(sector as usize).copied().unwrap_or("unknown")
}

/// `{num, name, area, environment, exits: {n: vnum}}` for the room (Mudlet's mapper
/// fields). A secret door not yet found is not an exit; coordinates are not known.
pub fn room_info(world: &World, room: usize) -> Value {
    let r = &world.rooms[room];
    let mut exits = Map::new();
    for (d, e) in r.proto.exits.iter().enumerate() {
        if let Some(e) = e.as_ref().filter(|e| !crate::game::rules::doors::hidden(e, &r.doors[d])) {
            exits.insert(DIR_SHORT[d].to_string(), json!(e.to_room));
        }
    }
    let area = world.zones.iter().find(|z| z.proto.vnum == r.proto.zone).map(|z| z.proto.name.as_str()).unwrap_or("");
    json!({
        "num": r.proto.vnum,
        "name": r.proto.name,
        "area": area,
        "environment": sector_name(r.proto.sector),
        "exits": exits,
    })
}

/// `{name, class, race, opponent, opponent_health}`: the opponent's health in percent.
pub fn char_info(world: &World, ch: &Char) -> Value {
    let foe = ch.fighting.and_then(|f| world.ch(f));
    json!({
        "name": ch.name,
        "class": class_name(ch.class),
        "race": race_name(ch.race),
        "opponent": foe.map(|f| &*f.name).unwrap_or(""),
        "opponent_health": foe.map(|f| if f.max_hit > 0 { (f.hit.max(0) as i64 * 100 / f.max_hit as i64) as i32 } else { 0 }).unwrap_or(0),
    })
}

/// The extras for one delta: `CHAR_INFO` always (cheap, and the opponent's health moves
/// without any variable of ours changing), `ROOM_INFO` when the room or its exits did.
pub fn extras(world: &World, ch: &Char, values: &[(&'static str, Value)]) -> Vec<(&'static str, Value)> {
    let mut out = vec![(CHAR_INFO, char_info(world, ch))];
    if values.iter().any(|(n, _)| matches!(*n, "ROOM_VNUM" | "ROOM_NAME" | "ROOM_EXITS")) {
        out.push((ROOM_INFO, room_info(world, ch.room)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_are_named_and_unknown_ones_say_so() {
        assert_eq!(sector_name(0), "inside");
        assert_eq!(sector_name(3), "forest");
        assert_eq!(sector_name(99), "unknown");
    }
}

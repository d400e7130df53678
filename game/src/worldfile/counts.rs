//! How much a world holds: zones, rooms, exits, mobs, objects, shops, resets, triggers,
//! quests and special procedures (`pawns world check` and the world benchmark say them).

use serde::Serialize;

use super::WorldProto;

#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct Counts {
    pub zones: usize,
    pub rooms: usize,
    pub exits: usize,
    pub mobs: usize,
    pub objects: usize,
    pub shops: usize,
    pub reset_commands: usize,
    /// DG Scripts triggers defined (`trg/`) and attached (`T` lines on rooms, mobs, objects).
    pub triggers: usize,
    pub trigger_attachments: usize,
    /// tbaMUD quests (`qst/`).
    pub quests: usize,
    /// Special procedure assignments (`specials.tsv`).
    #[serde(default)]
    pub specials: usize,
}

pub fn counts(w: &WorldProto) -> Counts {
    Counts {
        zones: w.zones.len(),
        rooms: w.rooms.len(),
        exits: w.rooms.iter().map(|r| r.exits.iter().flatten().count()).sum(),
        mobs: w.mobs.len(),
        objects: w.objs.len(),
        shops: w.shops.len(),
        reset_commands: w.zones.iter().map(|z| z.commands.len()).sum(),
        triggers: w.triggers.len(),
        trigger_attachments: w.rooms.iter().map(|r| r.triggers.len()).sum::<usize>()
            + w.mobs.iter().map(|m| m.triggers.len()).sum::<usize>()
            + w.objs.iter().map(|o| o.triggers.len()).sum::<usize>(),
        quests: w.quests.len(),
        specials: w.specials.len(),
    }
}

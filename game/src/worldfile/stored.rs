//! The world inside the redb file: encoded one zone per row, so a later import
//! replaces it whole and the server starts from the file alone.

use std::collections::BTreeMap;

use pawns_storage::{codec, Store, StoreError};

use super::types::*;

/// Splits a world into zone rows. A vnum belongs to the zone with the smallest `top`
/// at or above it (CircleMUD's rule); anything past every zone goes to row `u32::MAX`.
pub fn encode(world: &WorldProto) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
    let mut tops: Vec<(u32, u32)> = world.zones.iter().map(|z| (z.top, z.vnum)).collect();
    tops.sort_unstable();
    let zone_of = |vnum: u32| tops.iter().find(|(top, _)| vnum <= *top).map(|(_, z)| *z).unwrap_or(u32::MAX);
    let mut rows: BTreeMap<u32, WorldProto> = BTreeMap::new();
    for z in &world.zones {
        rows.entry(z.vnum).or_default().zones.push(z.clone());
    }
    for r in &world.rooms {
        rows.entry(zone_of(r.vnum)).or_default().rooms.push(r.clone());
    }
    for m in &world.mobs {
        rows.entry(zone_of(m.vnum)).or_default().mobs.push(m.clone());
    }
    for o in &world.objs {
        rows.entry(zone_of(o.vnum)).or_default().objs.push(o.clone());
    }
    for s in &world.shops {
        rows.entry(zone_of(s.vnum)).or_default().shops.push(s.clone());
    }
    for t in &world.triggers {
        rows.entry(zone_of(t.vnum)).or_default().triggers.push(t.clone());
    }
    for q in &world.quests {
        rows.entry(zone_of(q.vnum)).or_default().quests.push(q.clone());
    }
    // Socials and the profile belong to no zone: they ride in the last row.
    let last = rows.entry(u32::MAX).or_default();
    last.socials = world.socials.clone();
    last.specials = world.specials.clone();
    last.lua_scripts = world.lua_scripts.clone();
    last.profile = world.profile.clone();
    rows.into_iter().map(|(k, w)| Ok((k, codec::encode(&w)?))).collect()
}

/// Joins zone rows back into one world (rows come in vnum order).
pub fn decode(rows: &[(u32, Vec<u8>)]) -> Result<WorldProto, StoreError> {
    let mut w = WorldProto::default();
    for (k, bytes) in rows {
        let part: WorldProto = codec::decode(bytes)?;
        w.rooms.extend(part.rooms);
        w.mobs.extend(part.mobs);
        w.objs.extend(part.objs);
        w.zones.extend(part.zones);
        w.shops.extend(part.shops);
        w.socials.extend(part.socials);
        w.specials.extend(part.specials);
        w.lua_scripts.extend(part.lua_scripts);
        w.triggers.extend(part.triggers);
        w.quests.extend(part.quests);
        if *k == u32::MAX {
            w.profile = part.profile;
        }
    }
    w.zones.sort_by_key(|z| z.vnum);
    Ok(w)
}

pub fn import(store: &Store, world: &WorldProto, source: &str) -> Result<(), StoreError> {
    store.replace_world(&encode(world)?, source)
}

/// The stored world, or `None` if none was imported yet.
pub fn load(store: &Store) -> Result<Option<WorldProto>, StoreError> {
    let rows = store.world_zones()?;
    if rows.is_empty() {
        return Ok(None);
    }
    decode(&rows).map(Some)
}

pub fn source(store: &Store) -> Result<Option<String>, StoreError> {
    Ok(store.meta_get("world_source")?.map(|b| String::from_utf8_lossy(&b).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starter_world_round_trips_through_zone_rows() {
        let w = crate::worldfile::load(&crate::worldfile::StarterWorld).unwrap().world;
        let rows = encode(&w).unwrap();
        assert_eq!(rows.len(), 4, "one row per zone, and the last for socials and the profile");
        let back = decode(&rows).unwrap();
        assert_eq!(back.rooms.len(), w.rooms.len());
        assert_eq!(back.mobs, w.mobs);
        assert_eq!(back.zones, w.zones);
        assert_eq!(back.shops, w.shops);
        assert_eq!(back.profile, w.profile);
        assert_eq!(back.profile.start_room, Some(8004));
    }
}

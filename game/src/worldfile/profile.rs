//! What a world says about itself beyond its rooms, mobs and objects: where mortals
//! start and respawn, what a character is told on entering, and the kit a new character
//! carries.
//!
//! CircleMUD keeps these in its C source (`config.c`'s `mortal_start_room` and
//! `WELC_MESSG`, `class.c`'s `do_start`), not in the area files, so a world directory
//! does not carry them. The reader therefore starts from the defaults of the world's
//! family — told apart by the dialect of its object files — and a world may override any
//! field with a `pawns-world.json` beside its `wld/` directory (the starter world ships
//! one). `serve --start-room` overrides the start room last.

use serde::{Deserialize, Serialize};

use super::{WorldProto, WorldSource};

/// The file in a world directory that overrides the family's defaults.
pub const PROFILE_FILE: &str = "pawns-world.json";

/// Which kind of CircleMUD world the area files are written for.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Stock CircleMUD 3 (three-field object type lines).
    #[default]
    Circle,
    /// Dark Pawns (nine-field object type lines: four extra and four wear words).
    DarkPawns,
    /// tbaMUD (thirteen-field object type lines: extra, wear and affect words).
    TbaMud,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Circle => "circle",
            Family::DarkPawns => "darkpawns",
            Family::TbaMud => "tbamud",
        }
    }
}

/// One item of the starting kit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KitItem {
    pub vnum: u32,
    /// Only for these class numbers (empty: every class).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<u8>,
    /// Worn or wielded where its wear flags allow (a light is held as a light); `false`,
    /// or an item that cannot be worn, goes in the inventory.
    #[serde(default = "yes")]
    pub equip: bool,
    /// Put inside this item (a container).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<KitItem>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct WorldProfile {
    pub family: Family,
    /// The world's name, for messages ("Dark Pawns").
    pub name: String,
    /// The mortal start room: where new characters start and the dead respawn.
    pub start_room: Option<u32>,
    /// Told to a character entering the game.
    pub welcome: String,
    /// Told to a character who respawns after death.
    pub respawn: String,
    /// Told to the room a character respawns in (`$n` is the character).
    pub respawn_room: String,
    pub kit: Vec<KitItem>,
    /// Where a new character's very first login begins, when not the start room (Dark
    /// Pawns: the burning hut 8099, whose `start_room` procedure shows the vision and
    /// carries it on). Absent in older stored worlds.
    #[serde(default)]
    pub first_room: Option<u32>,
}

/// A `pawns-world.json`: any field set replaces the family's default.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    name: Option<String>,
    start_room: Option<u32>,
    welcome: Option<String>,
    respawn: Option<String>,
    respawn_room: Option<String>,
    kit: Option<Vec<KitItem>>,
    first_room: Option<u32>,
}

const GENERIC_RESPAWN: &str = "You wake, alive again, with the memory of your death still sharp.";
const GENERIC_RESPAWN_ROOM: &str = "$n appears, shaken but alive.";

use super::class::{CLERIC, MAGE, NINJA, PSIONIC, THIEF, WARRIOR};

fn item(vnum: u32, classes: &[u8]) -> KitItem {
    KitItem { vnum, classes: classes.to_vec(), equip: true, contains: Vec::new() }
}

fn carried(i: KitItem) -> KitItem {
    KitItem { equip: false, ..i }
}

fn pack(vnum: u32, contains: Vec<KitItem>) -> KitItem {
    KitItem { vnum, classes: Vec::new(), equip: false, contains }
}

impl WorldProfile {
    /// The defaults of a family (what its original server's source says).
    pub fn defaults(family: Family) -> WorldProfile {
        match family {
            // Dark Pawns' do_start: a class weapon, a frayed tunic, and a backpack with a
            // loaf of bread and a water skin (and lockpicks for thieves); mages also get
            // two obsidian shards — all carried, nothing worn, as the original gives them.
            // The first login begins in the burning hut (8099).
            Family::DarkPawns => WorldProfile {
                family,
                name: "Dark Pawns".into(),
                start_room: Some(8004),
                welcome: "Welcome to Dark Pawns! May your visit here be... Interesting.".into(),
                respawn: GENERIC_RESPAWN.into(),
                respawn_room: GENERIC_RESPAWN_ROOM.into(),
                kit: vec![
                    carried(item(8036, &[MAGE, THIEF, NINJA])),
                    carried(item(8037, &[WARRIOR, PSIONIC])),
                    carried(item(8023, &[CLERIC])),
                    carried(item(8019, &[])),
                    pack(8038, vec![item(8010, &[]), item(8063, &[]), item(8027, &[THIEF])]),
                    KitItem { vnum: 1239, classes: vec![MAGE], equip: false, contains: Vec::new() },
                    KitItem { vnum: 1239, classes: vec![MAGE], equip: false, contains: Vec::new() },
                ],
                first_room: Some(8099),
            },
            // tbaMUD's do_start gives nothing, and so does a tbaMUD world here; a stock
            // CircleMUD world gets a kit of ours, from Midgaard's shops: a weapon the
            // class may use (the dagger is anti-cleric), a leather jacket, and a bag with
            // bread and a canteen of water.
            Family::TbaMud | Family::Circle => WorldProfile {
                family,
                name: if family == Family::TbaMud { "tbaMUD".into() } else { "CircleMUD".into() },
                start_room: Some(3001),
                welcome: if family == Family::TbaMud {
                    "Welcome to tbaMUD!  May your visit here be... Enlightening".into()
                } else {
                    "Welcome to the land of CircleMUD!  May your visit here be... Interesting.".into()
                },
                respawn: GENERIC_RESPAWN.into(),
                respawn_room: GENERIC_RESPAWN_ROOM.into(),
                kit: if family == Family::TbaMud {
                    Vec::new()
                } else {
                    vec![
                        item(3020, &[MAGE, THIEF, NINJA]),
                        item(3021, &[WARRIOR, PSIONIC]),
                        item(3023, &[CLERIC]),
                        item(3043, &[]),
                        pack(3032, vec![item(3010, &[]), item(3104, &[])]),
                    ]
                },
                first_room: None,
            },
        }
    }

    /// The family's defaults with the world's own `pawns-world.json` applied.
    pub fn read(src: &dyn WorldSource, family: Family) -> Result<WorldProfile, String> {
        let mut p = WorldProfile::defaults(family);
        let Some(text) = src.read(PROFILE_FILE)? else {
            return Ok(p);
        };
        let f: ProfileFile = serde_json::from_str(&text).map_err(|e| format!("{PROFILE_FILE}: {e}"))?;
        if let Some(v) = f.name {
            p.name = v;
        }
        if f.start_room.is_some() {
            p.start_room = f.start_room;
        }
        if let Some(v) = f.welcome {
            p.welcome = v;
        }
        if let Some(v) = f.respawn {
            p.respawn = v;
        }
        if let Some(v) = f.respawn_room {
            p.respawn_room = v;
        }
        if let Some(v) = f.kit {
            p.kit = v;
        }
        if f.first_room.is_some() {
            p.first_room = f.first_room;
        }
        Ok(p)
    }

    /// The kit items (at any depth) whose vnum is no object of `world`.
    pub fn missing_kit_objects(&self, world: &WorldProto) -> Vec<u32> {
        let objs: std::collections::HashSet<u32> = world.objs.iter().map(|o| o.vnum).collect();
        let mut out = Vec::new();
        fn walk(items: &[KitItem], objs: &std::collections::HashSet<u32>, out: &mut Vec<u32>) {
            for i in items {
                if !objs.contains(&i.vnum) && !out.contains(&i.vnum) {
                    out.push(i.vnum);
                }
                walk(&i.contains, objs, out);
            }
        }
        walk(&self.kit, &objs, &mut out);
        out
    }
}

/// Tells the family from the object files' type lines (the one line whose shape differs).
pub fn family_of(world: &WorldProto) -> Family {
    let (mut dp, mut tba) = (0usize, 0usize);
    for o in &world.objs {
        match o.dialect {
            super::ObjDialect::DarkPawns => dp += 1,
            super::ObjDialect::TbaMud => tba += 1,
            super::ObjDialect::Circle => {}
        }
    }
    let n = world.objs.len();
    if n > 0 && dp * 2 > n {
        Family::DarkPawns
    } else if n > 0 && tba * 2 > n {
        Family::TbaMud
    } else {
        Family::Circle
    }
}

/// The room where mortals start: `--start-room` if given (it must exist), else the
/// world's own if it exists, else the first room that is not CircleMUD's void (0) or
/// limbo (1), else the first room.
pub fn start_room(world: &WorldProto, profile: &WorldProfile, asked: Option<u32>) -> Result<u32, String> {
    let exists = |v: u32| world.rooms.iter().any(|r| r.vnum == v);
    if let Some(v) = asked {
        return if exists(v) { Ok(v) } else { Err(format!("start room {v} is not a room of this world")) };
    }
    if let Some(v) = profile.start_room.filter(|v| exists(*v)) {
        return Ok(v);
    }
    world
        .rooms
        .iter()
        .map(|r| r.vnum)
        .filter(|v| *v > 1)
        .min()
        .or_else(|| world.rooms.iter().map(|r| r.vnum).min())
        .ok_or_else(|| "the world has no rooms".to_string())
}

/// A world imported before worlds had profiles gets one now: from its directory when it
/// is still there, else the defaults of its family (the starter world has its own).
pub fn with_profile(mut w: WorldProto, source: &str) -> WorldProto {
    if !w.profile.name.is_empty() {
        return w;
    }
    let family = family_of(&w);
    let read = if source == "starter" {
        WorldProfile::read(&super::StarterWorld, family)
    } else {
        WorldProfile::read(&super::DirSource(source.into()), family)
    };
    w.profile = read.unwrap_or_else(|e| {
        tracing::warn!("world profile: {e}; using the {} defaults", family.as_str());
        WorldProfile::defaults(family)
    });
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_file_overrides_only_what_it_sets() {
        let mut src = super::super::MemSource::default();
        src.0
            .insert(PROFILE_FILE.into(), r#"{"start_room": 1234, "kit": [{"vnum": 5, "contains": [{"vnum": 6, "classes": [2]}]}]}"#.into());
        let p = WorldProfile::read(&src, Family::DarkPawns).unwrap();
        assert_eq!(p.start_room, Some(1234));
        assert_eq!(p.welcome, WorldProfile::defaults(Family::DarkPawns).welcome);
        assert_eq!(p.kit.len(), 1);
        assert!(p.kit[0].equip, "equip defaults to true");
        assert_eq!(p.kit[0].contains[0].classes, vec![2]);
        src.0.insert(PROFILE_FILE.into(), r#"{"start_room": "north"}"#.into());
        assert!(WorldProfile::read(&src, Family::Circle).unwrap_err().contains(PROFILE_FILE));
        src.0.insert(PROFILE_FILE.into(), r#"{"start_rom": 3}"#.into());
        assert!(WorldProfile::read(&src, Family::Circle).is_err(), "a misspelt field is an error, not ignored");
    }

    #[test]
    fn the_start_room_is_asked_then_the_worlds_then_the_first_real_room() {
        let mut w = WorldProto::default();
        for v in [0u32, 1, 50, 3001] {
            w.rooms.push(super::super::RoomProto {
                vnum: v,
                zone: 0,
                name: String::new(),
                description: String::new(),
                flags: [0; 4],
                sector: 0,
                exits: Default::default(),
                extra_descs: Vec::new(),
                scripts: Vec::new(),
                triggers: Vec::new(),
            });
        }
        let circle = WorldProfile::defaults(Family::Circle);
        assert_eq!(start_room(&w, &circle, None), Ok(3001));
        assert_eq!(start_room(&w, &circle, Some(50)), Ok(50));
        assert!(start_room(&w, &circle, Some(8004)).unwrap_err().contains("8004"));
        let dp = WorldProfile::defaults(Family::DarkPawns);
        assert_eq!(start_room(&w, &dp, None), Ok(50), "8004 is not here: not the void, not limbo");
    }
}

//! The world as the area files describe it: prototypes, not live things.
//!
//! These are what gets imported into the redb file and what the engine instantiates.
//! Fields that the engine does not use yet are still kept (a world's data is not ours
//! to drop).

use serde::{Deserialize, Serialize};

pub const DIR_NAMES: [&str; 6] = ["north", "east", "south", "west", "up", "down"];

/// Class numbers (protocol §4), as the area files and the original's tables number them.
pub mod class {
    pub const MAGE: u8 = 0;
    pub const CLERIC: u8 = 1;
    pub const THIEF: u8 = 2;
    pub const WARRIOR: u8 = 3;
    pub const NINJA: u8 = 8;
    pub const PSIONIC: u8 = 9;
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ExtraDesc {
    pub keywords: String,
    pub description: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ExitProto {
    pub description: String,
    /// Door keywords ("door", "gate iron"); empty when there is no door.
    pub keywords: String,
    /// 0 no door, 1 door, 2 pick-proof door; Dark Pawns adds higher bits (secret...).
    pub door_flags: u32,
    /// Key object vnum, or -1.
    pub key: i32,
    /// Target room vnum, or -1 for none.
    pub to_room: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RoomProto {
    pub vnum: u32,
    pub zone: u32,
    pub name: String,
    pub description: String,
    /// Room flag words (one in stock CircleMUD, four in Dark Pawns).
    pub flags: [u64; 4],
    pub sector: u32,
    pub exits: [Option<ExitProto>; 6],
    pub extra_descs: Vec<ExtraDesc>,
    /// Script lines (`R` in Dark Pawns), kept as data.
    pub scripts: Vec<String>,
    /// DG Scripts triggers attached with `T vnum` (tbaMUD).
    #[serde(default)]
    pub triggers: Vec<u32>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct Dice {
    pub num: i32,
    pub size: i32,
    pub plus: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MobProto {
    pub vnum: u32,
    pub keywords: String,
    pub short_descr: String,
    pub long_descr: String,
    pub description: String,
    pub action_flags: [u64; 4],
    pub affect_flags: [u64; 4],
    pub alignment: i32,
    pub level: i32,
    pub thac0: i32,
    pub ac: i32,
    pub hit_dice: Dice,
    pub damage_dice: Dice,
    pub gold: i64,
    pub exp: i64,
    pub load_position: i32,
    pub default_position: i32,
    pub sex: i32,
    /// Enhanced (`E`) mob specs as written (`Race`, `Noise`, `Script`, `BareHandAttack`, ...).
    pub specs: Vec<(String, String)>,
    /// DG Scripts triggers attached with `T vnum` (tbaMUD).
    #[serde(default)]
    pub triggers: Vec<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ObjProto {
    pub vnum: u32,
    pub keywords: String,
    pub short_descr: String,
    pub long_descr: String,
    pub action_descr: String,
    pub item_type: u32,
    pub extra_flags: [u64; 4],
    pub wear_flags: [u64; 4],
    pub values: [i32; 4],
    pub weight: i32,
    pub cost: i32,
    /// Rent per day in stock CircleMUD; the load percentage in Dark Pawns.
    pub rent_or_load: f32,
    pub extra_descs: Vec<ExtraDesc>,
    /// (apply location, modifier).
    pub affects: Vec<(i32, i32)>,
    pub scripts: Vec<String>,
    /// The chance (percent) that a zone reset loads this object: set for Dark Pawns
    /// objects (nine-field type line), whose third weight-line field is a load
    /// percentage rather than rent. `None`: always loads.
    #[serde(default)]
    pub load_percent: Option<f32>,
    /// Which shape its type line had (tells the world's family).
    #[serde(default)]
    pub dialect: ObjDialect,
    /// Affect flag words (tbaMUD's type line carries them).
    #[serde(default)]
    pub affect_flags: [u64; 4],
    /// Minimum level to use it (tbaMUD), and its timer.
    #[serde(default)]
    pub level: i32,
    #[serde(default)]
    pub timer: i32,
    /// DG Scripts triggers attached with `T vnum` (tbaMUD).
    #[serde(default)]
    pub triggers: Vec<u32>,
}

/// The shape of an object's type line.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
pub enum ObjDialect {
    /// `type extra wear` (stock CircleMUD), or `type extra wear affect`.
    #[default]
    Circle,
    /// `type extra×4 wear×4` (Dark Pawns).
    DarkPawns,
    /// `type extra×4 wear×4 affect×4` (tbaMUD).
    TbaMud,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ResetCmd {
    pub command: char,
    pub if_flag: bool,
    pub args: [i32; 4],
    /// Line in the zone file, for messages.
    pub line: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ZoneProto {
    pub vnum: u32,
    pub name: String,
    pub top: u32,
    /// Minutes between resets.
    pub lifespan: u32,
    /// 0 never, 1 when no player is in the zone, 2 always.
    pub reset_mode: u32,
    pub commands: Vec<ResetCmd>,
    /// tbaMUD's header extras: who built it, its first room, zone flag words and the
    /// level range it is meant for.
    #[serde(default)]
    pub builders: String,
    #[serde(default)]
    pub bottom: Option<u32>,
    #[serde(default)]
    pub flags: [u64; 4],
    #[serde(default)]
    pub levels: Option<(i32, i32)>,
}

/// A DG Scripts trigger (`trg/`), kept as written for the scripts to come.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TriggerProto {
    pub vnum: u32,
    pub name: String,
    /// 0 mob, 1 object, 2 room.
    pub attach_type: u32,
    /// Trigger type bits (the letters of the file).
    pub flags: u64,
    pub narg: i32,
    pub arglist: String,
    /// The script's lines.
    pub commands: String,
}

/// A tbaMUD quest (`qst/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct QuestProto {
    pub vnum: u32,
    pub name: String,
    pub keywords: String,
    pub description: String,
    pub completion: String,
    pub quit: String,
    /// Quest type (object, room, find a mob, kill a mob, save a mob, return an object...).
    pub kind: i32,
    /// The questmaster mob's vnum.
    pub master: i32,
    pub flags: u64,
    /// What the quest is about (an object, a mob or a room vnum, by type).
    pub target: i32,
    pub prev: i32,
    pub next: i32,
    pub prereq: i32,
    /// Points, penalty, minimum and maximum level, time limit, return mob, quantity.
    pub values: Vec<i32>,
    pub gold: i32,
    pub exp: i32,
    pub obj_reward: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ShopProto {
    pub vnum: u32,
    pub producing: Vec<i32>,
    pub profit_buy: f32,
    pub profit_sell: f32,
    pub buy_types: Vec<String>,
    pub messages: Vec<String>,
    pub temper: i32,
    pub bitvector: u64,
    pub keeper: i32,
    pub with_who: u64,
    pub rooms: Vec<i32>,
    pub open1: i32,
    pub close1: i32,
    pub open2: i32,
    pub close2: i32,
}

/// Everything one load produced.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct WorldProto {
    pub rooms: Vec<RoomProto>,
    pub mobs: Vec<MobProto>,
    pub objs: Vec<ObjProto>,
    pub zones: Vec<ZoneProto>,
    pub shops: Vec<ShopProto>,
    /// The world directory's own socials (`misc/socials`), if it has any.
    #[serde(default)]
    pub socials: Vec<super::social::SocialProto>,
    /// DG Scripts triggers (`trg/`), for the scripts to come.
    #[serde(default)]
    pub triggers: Vec<TriggerProto>,
    /// Quests (`qst/`).
    #[serde(default)]
    pub quests: Vec<QuestProto>,
    /// Which prototypes run which special procedure (`specials.tsv`).
    #[serde(default)]
    pub specials: Vec<super::specials::SpecialAssignment>,
    /// The world's Lua scripts (Dark Pawns's `scripts/`), path relative to that folder
    /// (`mob/122/healer.lua`, `globals.lua`) → source, in path order.
    #[serde(default)]
    pub lua_scripts: Vec<LuaScript>,
    /// Start room, welcome, starting kit (see `profile`).
    #[serde(default)]
    pub profile: super::profile::WorldProfile,
}

/// One Lua script file of the world.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LuaScript {
    pub path: String,
    pub source: String,
}

/// A problem the loader worked around, with where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub file: String,
    pub line: u32,
    pub vnum: Option<u32>,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.vnum {
            Some(v) => write!(f, "{}:{}: #{}: {}", self.file, self.line, v, self.message),
            None => write!(f, "{}:{}: {}", self.file, self.line, self.message),
        }
    }
}

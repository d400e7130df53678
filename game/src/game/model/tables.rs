//! Fixed game tables: classes, races, wear slots, positions, experience per level.

/// Class numbers (protocol §4), as the world files write them.
pub use crate::worldfile::class;

pub const CLASSES: &[(u8, &str)] = &[(0, "Magic-user"), (1, "Cleric"), (2, "Thief"), (3, "Warrior"), (8, "Ninja"), (9, "Psionic")];
pub const RACES: &[(u8, &str)] = &[(0, "Human"), (1, "Elf"), (2, "Dwarf"), (3, "Kender"), (4, "Minotaur"), (5, "Rakshasa"), (6, "Ssaur")];

pub fn class_name(c: u8) -> &'static str {
    CLASSES.iter().find(|(n, _)| *n == c).map(|(_, s)| *s).unwrap_or("Warrior")
}
pub fn race_name(r: u8) -> &'static str {
    RACES.iter().find(|(n, _)| *n == r).map(|(_, s)| *s).unwrap_or("Human")
}
pub fn valid_class(c: i64) -> bool {
    CLASSES.iter().any(|(n, _)| *n as i64 == c)
}
pub fn valid_race(r: i64) -> bool {
    RACES.iter().any(|(n, _)| *n as i64 == r)
}

pub const MAX_LEVEL: u8 = 30;

/// Experience needed to reach `level` (level 1 needs 0). Grows steeply like CircleMUD's.
pub fn exp_for_level(level: u8) -> i64 {
    if level <= 1 {
        return 0;
    }
    let l = level as i64 - 1;
    // 2000, 5000, 9000, 14000, ... then the tail doubles its pace.
    let base = 1000 * l * (l + 3) / 2;
    if level > 15 {
        base + 20_000 * (level as i64 - 15).pow(2)
    } else {
        base
    }
}

/// Hit points, mana and moves gained per level: (hp die, mana die) by class.
pub fn level_gain_dice(class: u8) -> (i32, i32) {
    match class {
        0 | 9 => (6, 10),
        1 => (8, 8),
        2 | 8 => (8, 4),
        _ => (11, 2),
    }
}

/// Class to-hit: lower is better.
pub fn thac0(class: u8, level: u8) -> i32 {
    let l = level as i32;
    let v = match class {
        3 | 8 => 20 - l,
        2 | 1 => 20 - l * 2 / 3,
        _ => 20 - l / 2,
    };
    v.max(1)
}

pub const WEAR_SLOTS: [&str; 18] = [
    "light", "finger_r", "finger_l", "neck_1", "neck_2", "body", "head", "legs", "feet", "hands", "arms", "shield", "about", "waist",
    "wrist_r", "wrist_l", "wield", "hold",
];
/// The slot an object of this type and these wear flags is worn in, given which slots
/// are free: a light is held as a light; otherwise the first wear flag (rings, necks and
/// wrists have two slots), then wield, then hold.
pub fn wear_slot_for(item: u32, wear_flags: u64, free: impl Fn(usize) -> bool) -> Result<usize, &'static str> {
    let pairs: [(u64, &[usize]); 12] = [
        (wear_flag::FINGER, &[1, 2]),
        (wear_flag::NECK, &[3, 4]),
        (wear_flag::BODY, &[5]),
        (wear_flag::HEAD, &[6]),
        (wear_flag::LEGS, &[7]),
        (wear_flag::FEET, &[8]),
        (wear_flag::HANDS, &[9]),
        (wear_flag::ARMS, &[10]),
        (wear_flag::SHIELD, &[11]),
        (wear_flag::ABOUT, &[12]),
        (wear_flag::WAIST, &[13]),
        (wear_flag::WRIST, &[14, 15]),
    ];
    if item == item_type::LIGHT {
        return if free(0) { Ok(0) } else { Err("You are already holding a light source.") };
    }
    for (flag, slots) in pairs {
        if wear_flags & flag != 0 {
            return slots.iter().copied().find(|s| free(*s)).ok_or("You're already wearing something there.");
        }
    }
    if wear_flags & wear_flag::WIELD != 0 {
        return if free(16) { Ok(16) } else { Err("You're already wielding a weapon.") };
    }
    if wear_flags & wear_flag::HOLD != 0 {
        return if free(17) { Ok(17) } else { Err("You're already holding something.") };
    }
    Err("You can't wear that.")
}

/// A wear slot as a DG script names it (tbaMUD's `find_eq_pos_script`): its number, or
/// `light`, `rfinger`, `lfinger`, `neck1`, `neck2`, `body`, `head`, `legs`, `feet`,
/// `hands`, `arms`, `shield`, `about`, `waist`, `rwrist`, `lwrist`, `wield`, `hold`
/// (`held`), whole words, any case.
pub fn script_slot(name: &str) -> Option<usize> {
    const NAMES: [&str; 18] = [
        "light", "rfinger", "lfinger", "neck1", "neck2", "body", "head", "legs", "feet", "hands", "arms", "shield", "about", "waist",
        "rwrist", "lwrist", "wield", "hold",
    ];
    let name = name.trim();
    if let Ok(n) = name.parse::<usize>() {
        return (n < NUM_WEARS).then_some(n);
    }
    if name.eq_ignore_ascii_case("held") {
        return Some(17);
    }
    NAMES.iter().position(|n| n.eq_ignore_ascii_case(name))
}

/// The wear flag a slot needs (`can_wear_on_pos`: a light is held).
pub fn slot_wear_flag(slot: usize) -> u64 {
    use wear_flag::*;
    [HOLD, FINGER, FINGER, NECK, NECK, BODY, HEAD, LEGS, FEET, HANDS, ARMS, SHIELD, ABOUT, WAIST, WRIST, WRIST, WIELD, HOLD][slot.min(17)]
}

/// What `equipment` prints before each slot.
pub const WEAR_LABELS: [&str; 18] = [
    "<used as light>      ",
    "<worn on finger>     ",
    "<worn on finger>     ",
    "<worn around neck>   ",
    "<worn around neck>   ",
    "<worn on body>       ",
    "<worn on head>       ",
    "<worn on legs>       ",
    "<worn on feet>       ",
    "<worn on hands>      ",
    "<worn on arms>       ",
    "<worn as shield>     ",
    "<worn about body>    ",
    "<worn about waist>   ",
    "<worn around wrist>  ",
    "<worn around wrist>  ",
    "<wielded>            ",
    "<held>               ",
];
pub const NUM_WEARS: usize = 18;

pub mod wear_flag {
    pub const TAKE: u64 = 1 << 0;
    pub const FINGER: u64 = 1 << 1;
    pub const NECK: u64 = 1 << 2;
    pub const BODY: u64 = 1 << 3;
    pub const HEAD: u64 = 1 << 4;
    pub const LEGS: u64 = 1 << 5;
    pub const FEET: u64 = 1 << 6;
    pub const HANDS: u64 = 1 << 7;
    pub const ARMS: u64 = 1 << 8;
    pub const SHIELD: u64 = 1 << 9;
    pub const ABOUT: u64 = 1 << 10;
    pub const WAIST: u64 = 1 << 11;
    pub const WRIST: u64 = 1 << 12;
    pub const WIELD: u64 = 1 << 13;
    pub const HOLD: u64 = 1 << 14;
}

pub mod item_type {
    pub const LIGHT: u32 = 1;
    pub const SCROLL: u32 = 2;
    pub const WAND: u32 = 3;
    pub const STAFF: u32 = 4;
    pub const WEAPON: u32 = 5;
    pub const TREASURE: u32 = 8;
    pub const ARMOR: u32 = 9;
    pub const POTION: u32 = 10;
    pub const WORN: u32 = 11;
    pub const CONTAINER: u32 = 15;
    pub const DRINKCON: u32 = 17;
    pub const KEY: u32 = 18;
    pub const FOOD: u32 = 19;
    pub const MONEY: u32 = 20;
    pub const FOUNTAIN: u32 = 23;
}

/// Container value[1] bits.
pub mod cont {
    pub const CLOSEABLE: i32 = 1;
    pub const PICKPROOF: i32 = 2;
    pub const CLOSED: i32 = 4;
    pub const LOCKED: i32 = 8;
}

pub mod mob_flag {
    /// CircleMUD's `MOB_SPEC` (bit 0, letter `a`): the mob's special procedure runs on
    /// its own (each mob turn, each combat round). Without it a procedure is dormant
    /// but for the commands typed beside the mob, as in the original (the flag comes
    /// only from the mob file; no code sets it).
    pub const SPEC: u64 = 1 << 0;
    /// Dark Pawns's `MOB_OKGIVE` (bit 24, letter `y`): the mob takes things given to it
    /// (and so hears its `ongive` script); others are not interested.
    pub const OKGIVE: u64 = 1 << 24;
    /// Dark Pawns's `MOB_MOUNTABLE` (bit 21): it can be ridden.
    pub const MOUNTABLE: u64 = 1 << 21;
    pub const SENTINEL: u64 = 1 << 1;
    pub const SCAVENGER: u64 = 1 << 2;
    pub const AGGRESSIVE: u64 = 1 << 5;
    pub const STAY_ZONE: u64 = 1 << 6;
    pub const WIMPY: u64 = 1 << 7;
    pub const HELPER: u64 = 1 << 12;
    /// CircleMUD's `MOB_MEMORY` (bit 11, `l`): it remembers its attackers.
    pub const MEMORY: u64 = 1 << 11;
}

pub mod room_flag {
    pub const DARK: u64 = 1 << 0;
    pub const DEATH: u64 = 1 << 1;
    pub const NOMOB: u64 = 1 << 2;
    pub const INDOORS: u64 = 1 << 3;
    pub const PEACEFUL: u64 = 1 << 4;
    /// `track` finds no way through it.
    pub const NOTRACK: u64 = 1 << 6;
    /// CircleMUD's `ROOM_HOUSE` (bit 11, letter `l`; bit 7 is `NOMAGIC`).
    pub const HOUSE: u64 = 1 << 11;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Position {
    Dead = 0,
    MortallyWounded = 1,
    Incapacitated = 2,
    Stunned = 3,
    Sleeping = 4,
    Resting = 5,
    Sitting = 6,
    Fighting = 7,
    Standing = 8,
}

impl Position {
    pub fn from_file(v: i32) -> Position {
        match v {
            4 => Position::Sleeping,
            5 => Position::Resting,
            6 => Position::Sitting,
            _ => Position::Standing,
        }
    }
    /// The protocol's `POSITION` strings.
    pub fn as_str(self) -> &'static str {
        match self {
            Position::Dead => "dead",
            Position::MortallyWounded => "mortally wounded",
            Position::Incapacitated => "incapacitated",
            Position::Stunned => "stunned",
            Position::Sleeping => "sleeping",
            Position::Resting => "resting",
            Position::Sitting => "sitting",
            Position::Fighting => "fighting",
            Position::Standing => "standing",
        }
    }
}

/// Strength bonuses (to-hit, damage), CircleMUD's str_app reduced to the common range.
pub fn str_bonus(str_: u8) -> (i32, i32) {
    match str_ {
        0..=5 => (-2, -1),
        6..=7 => (-1, 0),
        8..=15 => (0, 0),
        16 => (0, 1),
        17 => (1, 1),
        18 => (1, 2),
        _ => (2, 3),
    }
}

/// The item types by number, as tbaMUD names them (`%obj.type%`).
pub const ITEM_TYPE_NAMES: [&str; 24] = [
    "UNDEFINED",
    "LIGHT",
    "SCROLL",
    "WAND",
    "STAFF",
    "WEAPON",
    "FURNITURE",
    "FREE",
    "TREASURE",
    "ARMOR",
    "POTION",
    "WORN",
    "OTHER",
    "TRASH",
    "FREE2",
    "CONTAINER",
    "NOTE",
    "LIQ CONTAINER",
    "KEY",
    "FOOD",
    "MONEY",
    "PEN",
    "BOAT",
    "FOUNTAIN",
];

/// Movement cost by sector.
pub fn move_cost(sector: u32, family: crate::worldfile::profile::Family) -> i32 {
    use crate::worldfile::profile::Family;
    // `movement_loss[]` of each server, by sector (Dark Pawns has six more sectors and
    // walks dearer: 2 a step in town).
    const CIRCLE: [i32; 10] = [1, 1, 2, 3, 4, 6, 4, 1, 1, 5];
    const DARK_PAWNS: [i32; 16] = [2, 2, 3, 4, 5, 7, 5, 6, 2, 6, 8, 6, 6, 6, 6, 4];
    let table: &[i32] = if family == Family::DarkPawns { &DARK_PAWNS } else { &CIRCLE };
    table.get(sector as usize).copied().unwrap_or(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_table_is_increasing_and_pinned() {
        assert_eq!(exp_for_level(1), 0);
        assert_eq!(exp_for_level(2), 2000);
        assert_eq!(exp_for_level(3), 5000);
        for l in 2..=MAX_LEVEL {
            assert!(exp_for_level(l) > exp_for_level(l - 1));
        }
    }

    #[test]
    fn thac0_never_below_one() {
        assert_eq!(thac0(3, 1), 19);
        assert_eq!(thac0(3, 30), 1);
        assert_eq!(thac0(0, 10), 15);
    }
}

//! The world's special procedures (`specials.tsv` in the world directory): which mob,
//! object or room runs which of the classic CircleMUD/Dark Pawns procedures
//! (`magic_user`, `cityguard`, `fido`…). The original servers assigned them in C; the
//! table lets any world ship its own. Tab-separated `kind vnum special` rows under a
//! header; `#` starts a comment. Rows that cannot be read are warnings, never errors.

use serde::{Deserialize, Serialize};

use super::Warning;

/// Where the table lives in a world directory.
pub const FILE: &str = "specials.tsv";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SpecialKind {
    Mob,
    Obj,
    Room,
}

impl SpecialKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SpecialKind::Mob => "mob",
            SpecialKind::Obj => "obj",
            SpecialKind::Room => "room",
        }
    }
}

/// One row: this prototype runs this procedure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecialAssignment {
    pub kind: SpecialKind,
    pub vnum: u32,
    pub special: String,
}

/// The procedures this server runs natively. Every other name a world assigns is
/// listed by `pawns world check` as not supported (`game/rules/specials.rs` runs these).
pub const SUPPORTED: &[&str] = &[
    "bank",
    "butler",
    "chosen_guard",
    "citizen",
    "cityguard",
    "cleric",
    "dump",
    "fido",
    "fighter",
    "gen_board",
    "guild",
    "guild_guard",
    "identifier",
    "jail",
    "jailguard",
    "janitor",
    "magic_user",
    "moon_gate",
    "mortician",
    "outofjailguard",
    "postmaster",
    "prostitute",
    "snake",
    "stableboy",
    "start_room",
    "take_to_jail",
    "tattoo1",
    "thief",
];

/// What tbaMUD's C assigns (`spec_assign.c`), for a tbaMUD world that ships no table
/// of its own: the guild masters, the banks (ATMs, cash cards), the boards and the
/// postmasters. (Its receptionists, cryogenicist, mayor and pet shops are not run here.)
pub fn tbamud_builtin() -> Vec<SpecialAssignment> {
    const GUILDS: &[u32] = &[
        120, 121, 122, 123, 2556, 2559, 2562, 2564, 2800, 3020, 3021, 3022, 3023, 5400, 5401, 5402, 5403, 11518, 25720, 25721, 25722,
        25723, 25726, 25732, 27572, 27573, 27574, 27575, 27721, 29204, 29227, 31601, 31603, 31605, 31607, 31609, 31611, 31639, 31641,
    ];
    const BANKS: &[u32] = &[115, 334, 336, 3034, 3036, 3907, 10640, 10751, 25758];
    const BOARDS: &[u32] = &[1226, 1227, 1228, 3096, 3097, 3098, 3099];
    const POSTMASTERS: &[u32] = &[110, 1201, 3010, 10412, 10719, 25710, 27164, 30128, 31510];
    let mut out: Vec<SpecialAssignment> =
        GUILDS.iter().map(|v| SpecialAssignment { kind: SpecialKind::Mob, vnum: *v, special: "guild".into() }).collect();
    out.extend(POSTMASTERS.iter().map(|v| SpecialAssignment { kind: SpecialKind::Mob, vnum: *v, special: "postmaster".into() }));
    out.extend(BANKS.iter().map(|v| SpecialAssignment { kind: SpecialKind::Obj, vnum: *v, special: "bank".into() }));
    out.extend(BOARDS.iter().map(|v| SpecialAssignment { kind: SpecialKind::Obj, vnum: *v, special: "gen_board".into() }));
    out
}

/// Reads the table; bad rows become warnings.
pub fn parse(text: &str, warnings: &mut Vec<Warning>) -> Vec<SpecialAssignment> {
    let mut out = Vec::new();
    let mut warn = |line: usize, vnum: Option<u32>, message: String| {
        warnings.push(Warning { file: FILE.into(), line: line as u32, vnum, message });
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
        if n == 1 && cols.first().is_some_and(|c| c.eq_ignore_ascii_case("kind")) {
            continue;
        }
        if cols.len() != 3 {
            warn(n, None, format!("expected 3 tab-separated columns (kind, vnum, special), found {}", cols.len()));
            continue;
        }
        let kind = match cols[0].to_ascii_lowercase().as_str() {
            "mob" => SpecialKind::Mob,
            "obj" | "object" => SpecialKind::Obj,
            "room" => SpecialKind::Room,
            other => {
                warn(n, None, format!("unknown kind '{}' (mob, obj or room)", other.chars().take(20).collect::<String>()));
                continue;
            }
        };
        let Ok(vnum) = cols[1].parse::<u32>() else {
            warn(n, None, format!("'{}' is not a vnum", cols[1].chars().take(20).collect::<String>()));
            continue;
        };
        let special = cols[2];
        if special.is_empty() || special.len() > 40 || !special.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            warn(n, Some(vnum), "a special's name is 1 to 40 letters, digits or _".into());
            continue;
        }
        let special = special.to_ascii_lowercase();
        // Assigned again: the later row stands, as the original servers' later
        // assignment replaced the earlier; the same procedure twice is no news.
        if let Some(a) = out.iter_mut().find(|a: &&mut SpecialAssignment| a.kind == kind && a.vnum == vnum) {
            if a.special != special {
                warn(n, Some(vnum), format!("{} {vnum} is assigned {} and then {special}; {special} stands", kind.as_str(), a.special));
                a.special = special;
            }
            continue;
        }
        out.push(SpecialAssignment { kind, vnum, special });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rows_are_read_and_bad_ones_warned() {
        let mut w = Vec::new();
        let t = "kind\tvnum\tspecial\nmob\t3001\tmagic_user\nobj\t3034\tgen_board # a board\nroom\t3030\tdump\n\
                 mob\tx\tfido\nbeast\t1\tfido\nmob\t3001\tcleric\nmob\t5\n\n# just a comment\nmob\t6\tbad name!\nroom\t3030\tdump\n";
        let a = parse(t, &mut w);
        assert_eq!(
            a,
            vec![
                SpecialAssignment { kind: SpecialKind::Mob, vnum: 3001, special: "cleric".into() },
                SpecialAssignment { kind: SpecialKind::Obj, vnum: 3034, special: "gen_board".into() },
                SpecialAssignment { kind: SpecialKind::Room, vnum: 3030, special: "dump".into() },
            ]
        );
        let lines: Vec<u32> = w.iter().map(|w| w.line).collect();
        assert_eq!(lines, vec![5, 6, 7, 8, 11], "the same procedure twice is no warning: {w:?}");
        assert!(w[2].message.contains("magic_user and then cleric; cleric stands"), "{}", w[2].message);
    }

    proptest! {
        /// Any text reads without a panic; every row kept is well formed.
        #[test]
        fn any_table_reads(text in "[a-z0-9\\t\\n #_!]{0,300}") {
            let mut w = Vec::new();
            for a in parse(&text, &mut w) {
                prop_assert!(!a.special.is_empty() && a.special.len() <= 40);
            }
        }
    }
}

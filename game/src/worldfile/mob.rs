//! Mobile files (`.mob`): simple (`S`) and enhanced (`E`) mobs, with the ten-field flags
//! line of Dark Pawns and tbaMUD (four action words, four affect words, alignment,
//! type), and tbaMUD's `T` trigger lines after the mob.

use super::lexer::{dice, flag_field, int, int_or, LexResult, Lexer};
use super::types::{Dice, MobProto};
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, MobProto>) {
    let mut lx = Lexer::new(text);
    super::each_record(&mut lx, sink, "mob", mob);
}

/// Bounds on a mob's numbers that keep every rule's arithmetic inside `i32` (hit points
/// from dice, a damage roll times the position multiplier). The largest in Dark Pawns
/// and tbaMUD are far inside them (60d12+17904 hit points, 40d40 damage, level 60).
pub const MAX_DICE_NUM: i32 = 1_000;
pub const MAX_DICE_SIZE: i32 = 10_000;
pub const MAX_DICE_PLUS: i32 = 1_000_000;
pub const MAX_LEVEL: i32 = 100;
pub const MAX_GOLD_OR_EXP: i64 = 2_000_000_000;

fn clamp_warn<T: PartialOrd + Copy + std::fmt::Display>(v: T, lo: T, hi: T, what: &str, line: u32, warnings: &mut Vec<(u32, String)>) -> T {
    if v < lo || v > hi {
        let to = if v < lo { lo } else { hi };
        warnings.push((line, format!("{what} {v} is out of range ({lo}..={hi}); clamped to {to}")));
        to
    } else {
        v
    }
}

fn clamp_dice(d: Dice, what: &str, line: u32, warnings: &mut Vec<(u32, String)>) -> Dice {
    Dice {
        num: clamp_warn(d.num, 0, MAX_DICE_NUM, &format!("{what} dice count"), line, warnings),
        size: clamp_warn(d.size, 0, MAX_DICE_SIZE, &format!("{what} dice size"), line, warnings),
        plus: clamp_warn(d.plus, -MAX_DICE_PLUS, MAX_DICE_PLUS, &format!("{what} bonus"), line, warnings),
    }
}

fn dice_field(tok: Option<&&str>, what: &str, lx: &Lexer<'_>) -> LexResult<Dice> {
    match tok.and_then(|t| dice(t)) {
        Some(d) => Ok(d),
        None => lx.err(format!("{what}: expected NdS+P")),
    }
}

fn mob(lx: &mut Lexer<'_>, vnum: u32, warnings: &mut Vec<(u32, String)>) -> LexResult<MobProto> {
    let keywords = lx.string()?;
    let short_descr = lx.string()?;
    let long_descr = lx.string()?;
    let description = lx.string()?;
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let mut action_flags = [0u64; 4];
    let mut affect_flags = [0u64; 4];
    let (alignment, kind) = match f.len() {
        4 => {
            action_flags[0] = flag_field(f.first(), "action flags", line)?;
            affect_flags[0] = flag_field(f.get(1), "affect flags", line)?;
            (int(f.get(2), "alignment", line)?, f[3])
        }
        10 => {
            for i in 0..4 {
                action_flags[i] = flag_field(f.get(i), "action flags", line)?;
                affect_flags[i] = flag_field(f.get(4 + i), "affect flags", line)?;
            }
            (int(f.get(8), "alignment", line)?, f[9])
        }
        n => return lx.err(format!("mob flags line has {n} fields (want 4 or 10)")),
    };
    let kind = kind.to_ascii_uppercase();
    if kind != "S" && kind != "E" {
        return lx.err(format!("unknown mob type '{kind}' (want S or E)"));
    }
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let level = clamp_warn(int(f.first(), "level", line)?, 0, MAX_LEVEL as i64, "level", line, warnings) as i32;
    let thac0 = clamp_warn(int(f.get(1), "thac0", line)?, -100, 100, "thac0", line, warnings) as i32;
    let ac = clamp_warn(int(f.get(2), "armour class", line)?, -1000, 1000, "armour class", line, warnings) as i32;
    let hit_dice = clamp_dice(dice_field(f.get(3), "hit points", lx)?, "hit point", line, warnings);
    let damage_dice = clamp_dice(dice_field(f.get(4), "damage", lx)?, "damage", line, warnings);
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let gold = clamp_warn(int(f.first(), "gold", line)?, 0, MAX_GOLD_OR_EXP, "gold", line, warnings);
    let exp = clamp_warn(int(f.get(1), "experience", line)?, 0, MAX_GOLD_OR_EXP, "experience", line, warnings);
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let load_position = int(f.first(), "load position", line)? as i32;
    let default_position = int_or(f.get(1), load_position as i64) as i32;
    let sex = int_or(f.get(2), 0) as i32;
    let mut specs = Vec::new();
    if kind == "E" {
        loop {
            let l = lx.content_line()?;
            if l.eq_ignore_ascii_case("E") {
                break;
            }
            if l.starts_with('#') || l.starts_with('$') {
                return lx.err("enhanced mob not closed with 'E'");
            }
            match l.split_once(':') {
                Some((k, v)) => specs.push((k.trim().to_string(), v.trim().to_string())),
                None => specs.push((l.to_string(), String::new())),
            }
        }
    }
    let triggers = lx.trailing_triggers()?;
    Ok(MobProto {
        triggers,
        vnum,
        keywords,
        short_descr,
        long_descr: long_descr.trim_end().to_string(),
        description,
        action_flags,
        affect_flags,
        alignment: alignment as i32,
        level,
        thac0,
        ac,
        hit_dice,
        damage_dice,
        gold,
        exp,
        load_position,
        default_position,
        sex,
        specs,
    })
}

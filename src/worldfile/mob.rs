//! Mobile files (`.mob`): simple (`S`) and enhanced (`E`) mobs, with the ten-field flags
//! line of Dark Pawns and tbaMUD (four action words, four affect words, alignment,
//! type), and tbaMUD's `T` trigger lines after the mob.

use super::lexer::{dice, flag_field, int, int_or, LexResult, Lexer};
use super::types::{Dice, MobProto};
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, MobProto>) {
    let mut lx = Lexer::new(text);
    super::each_record(&mut lx, sink, "mob", |lx, vnum, _| mob(lx, vnum));
}

fn dice_field(tok: Option<&&str>, what: &str, lx: &Lexer<'_>) -> LexResult<Dice> {
    match tok.and_then(|t| dice(t)) {
        Some(d) => Ok(d),
        None => lx.err(format!("{what}: expected NdS+P")),
    }
}

fn mob(lx: &mut Lexer<'_>, vnum: u32) -> LexResult<MobProto> {
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
    let level = int(f.first(), "level", line)? as i32;
    let thac0 = int(f.get(1), "thac0", line)? as i32;
    let ac = int(f.get(2), "armour class", line)? as i32;
    let hit_dice = dice_field(f.get(3), "hit points", lx)?;
    let damage_dice = dice_field(f.get(4), "damage", lx)?;
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let gold = int(f.first(), "gold", line)?;
    let exp = int(f.get(1), "experience", line)?;
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

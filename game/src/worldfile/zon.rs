//! Zone files (`.zon`): the header and the reset commands (`M O G E P D R`, the Dark
//! Pawns `L`, tbaMUD's `T` and `V` for triggers), each kept with its line for messages.
//! tbaMUD headers start with a builders line and end with zone flags and a level range.

use super::lexer::{int, LexResult, Lexer};
use super::types::{ResetCmd, ZoneProto};
use super::wld::clip;
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, ZoneProto>) {
    let mut lx = Lexer::new(text);
    super::each_record(&mut lx, sink, "zone", zone);
}

fn zone(lx: &mut Lexer<'_>, vnum: u32, warnings: &mut Vec<(u32, String)>) -> LexResult<ZoneProto> {
    let first = lx.string()?;
    // tbaMUD writes `builders~` before `name~`; the numbers line never holds a `~`.
    let (builders, name) = if lx.peek_content().is_some_and(|l| l.contains('~')) { (first, lx.string()?) } else { (String::new(), first) };
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    // `top lifespan mode`, or `bottom top lifespan mode` in later CircleMUD, then (tbaMUD)
    // four zone flag words and the minimum and maximum level.
    let off = if f.len() >= 4 { 1 } else { 0 };
    let bottom = if off == 1 { Some(int(f.first(), "bottom room", line)? as u32) } else { None };
    let top = int(f.get(off), "top room", line)? as u32;
    let lifespan = int(f.get(off + 1), "lifespan", line)? as u32;
    let reset_mode = int(f.get(off + 2), "reset mode", line)? as u32;
    let mut flags = [0u64; 4];
    let mut levels = None;
    if f.len() >= 10 {
        for (i, fl) in flags.iter_mut().enumerate() {
            *fl = super::lexer::flag_field(f.get(4 + i), "zone flags", line)?;
        }
        levels = Some((int(f.get(8), "minimum level", line)? as i32, int(f.get(9), "maximum level", line)? as i32));
    }
    let mut commands = Vec::new();
    loop {
        let line_no = lx.line_no();
        let Some(peek) = lx.peek_content() else {
            return lx.err("zone not closed with 'S'");
        };
        let l = peek.trim();
        if l.starts_with('#') || l.starts_with('$') {
            warnings.push((line_no, "zone not closed with 'S'".into()));
            break;
        }
        let line_no = lx.line_no();
        lx.content_line()?;
        let command = l.chars().next().unwrap_or('?').to_ascii_uppercase();
        if command == 'S' {
            break;
        }
        if !"MOGEPDRLTV".contains(command) {
            warnings.push((line_no, format!("unknown reset command '{}' skipped", clip(l))));
            continue;
        }
        let toks: Vec<&str> = l[command.len_utf8()..].split_whitespace().collect();
        let mut nums = Vec::new();
        for t in &toks {
            match t.parse::<i32>() {
                Ok(n) if nums.len() < 5 => nums.push(n),
                _ => break, // the rest of the line is a comment
            }
        }
        if nums.len() < 3 && command != 'L' {
            warnings.push((line_no, format!("reset command '{}' has too few numbers; skipped", clip(l))));
            continue;
        }
        let mut args = [-1i32; 4];
        for (i, n) in nums.iter().skip(1).take(4).enumerate() {
            args[i] = *n;
        }
        commands.push(ResetCmd { command, if_flag: nums.first().copied().unwrap_or(0) != 0, args, line: line_no });
    }
    Ok(ZoneProto { vnum, name, top, lifespan, reset_mode, commands, builders, bottom, flags, levels })
}

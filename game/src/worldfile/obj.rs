//! Object files (`.obj`): stock three-field type lines (four with an affect word), the
//! Dark Pawns nine-field ones (type, four extra-flag words, four wear-flag words) and
//! the tbaMUD thirteen-field ones (plus four affect words); `weight cost rent|load%`
//! (tbaMUD adds `level timer`), and the `E` (extra description), `A` (apply), `S`
//! (script) and `T` (DG Scripts trigger) trailers.

use super::lexer::{flag_field, int, LexResult, Lexer};
use super::types::{ExtraDesc, ObjDialect, ObjProto};
use super::wld::clip;
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, ObjProto>) {
    let mut lx = Lexer::new(text);
    super::each_record(&mut lx, sink, "object", |lx, vnum, _| obj(lx, vnum));
}

fn obj(lx: &mut Lexer<'_>, vnum: u32) -> LexResult<ObjProto> {
    let keywords = lx.string()?;
    let short_descr = lx.string()?;
    let long_descr = lx.string()?;
    let action_descr = lx.string()?;
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let item_type = int(f.first(), "item type", line)? as u32;
    let mut extra_flags = [0u64; 4];
    let mut wear_flags = [0u64; 4];
    let mut affect_flags = [0u64; 4];
    let dialect = match f.len() {
        3 | 4 => {
            extra_flags[0] = flag_field(f.get(1), "extra flags", line)?;
            wear_flags[0] = flag_field(f.get(2), "wear flags", line)?;
            if f.len() == 4 {
                affect_flags[0] = flag_field(f.get(3), "affect flags", line)?;
            }
            ObjDialect::Circle
        }
        9 | 13 => {
            for i in 0..4 {
                extra_flags[i] = flag_field(f.get(1 + i), "extra flags", line)?;
                wear_flags[i] = flag_field(f.get(5 + i), "wear flags", line)?;
                if f.len() == 13 {
                    affect_flags[i] = flag_field(f.get(9 + i), "affect flags", line)?;
                }
            }
            if f.len() == 9 {
                ObjDialect::DarkPawns
            } else {
                ObjDialect::TbaMud
            }
        }
        n => return lx.err(format!("object type line has {n} fields (want 3, 4, 9 or 13)")),
    };
    let dark_pawns = dialect == ObjDialect::DarkPawns;
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let mut values = [0i32; 4];
    for (i, v) in values.iter_mut().enumerate() {
        *v = int(f.get(i), "object value", line)? as i32;
    }
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let weight = int(f.first(), "weight", line)? as i32;
    let cost = int(f.get(1), "cost", line)? as i32;
    let rent_or_load = match f.get(2) {
        Some(t) => t.parse::<f32>().map_err(|_| super::lexer::LexError { line, message: format!("rent/load '{t}' is not a number") })?,
        None => 0.0,
    };
    let level = super::lexer::int_or(f.get(3), 0) as i32;
    let timer = super::lexer::int_or(f.get(4), 0) as i32;
    let mut o = ObjProto {
        vnum,
        keywords,
        short_descr,
        long_descr,
        action_descr,
        item_type,
        extra_flags,
        wear_flags,
        values,
        weight,
        cost,
        rent_or_load,
        extra_descs: Vec::new(),
        affects: Vec::new(),
        scripts: Vec::new(),
        load_percent: dark_pawns.then_some(rent_or_load),
        dialect,
        affect_flags,
        level,
        timer,
        triggers: Vec::new(),
    };
    loop {
        let Some(l) = lx.peek_content() else {
            return Ok(o);
        };
        let l = l.trim();
        if l.starts_with('#') || l.starts_with('$') {
            return Ok(o);
        }
        lx.content_line()?;
        match l.as_bytes()[0] {
            b'E' if l == "E" => {
                let keywords = lx.string()?;
                let description = lx.string()?;
                o.extra_descs.push(ExtraDesc { keywords, description });
            }
            b'A' if l == "A" => {
                let f = lx.fields()?;
                let line = lx.line_no() - 1;
                o.affects.push((int(f.first(), "apply location", line)? as i32, int(f.get(1), "apply modifier", line)? as i32));
            }
            b'S' => o.scripts.push(l[1..].trim().to_string()),
            b'T' => o.triggers.push(super::lexer::trigger_vnum(l, lx.line_no() - 1)?),
            _ => return lx.err(format!("unexpected line '{}' in object", clip(l))),
        }
    }
}

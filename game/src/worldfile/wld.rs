//! Room files (`.wld`): stock CircleMUD rooms, the Dark Pawns extensions (four
//! room-flag words, `R` script lines) and tbaMUD's `T` trigger lines after the `S`.

use super::lexer::{flag_field, int, LexResult, Lexer};
use super::types::{ExitProto, ExtraDesc, RoomProto};
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, RoomProto>) {
    let mut lx = Lexer::new(text);
    super::each_record(&mut lx, sink, "room", |lx, vnum, _| room(lx, vnum));
}

pub(crate) fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

fn room(lx: &mut Lexer<'_>, vnum: u32) -> LexResult<RoomProto> {
    let name = lx.string()?;
    let description = lx.string()?;
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    // Stock: `zone flags sector`; Dark Pawns: `zone f0 f1 f2 f3 sector`.
    let zone = int(f.first(), "zone number", line)? as u32;
    let mut flags = [0u64; 4];
    let sector;
    match f.len() {
        3 => {
            flags[0] = flag_field(f.get(1), "room flags", line)?;
            sector = int(f.get(2), "sector", line)? as u32;
        }
        n if n >= 6 => {
            for (i, fl) in flags.iter_mut().enumerate() {
                *fl = flag_field(f.get(1 + i), "room flags", line)?;
            }
            sector = int(f.get(5), "sector", line)? as u32;
        }
        _ => return lx.err(format!("room flags line has {} fields (want 3 or 6)", f.len())),
    }
    let mut room = RoomProto {
        vnum,
        zone,
        name,
        description,
        flags,
        sector,
        exits: Default::default(),
        extra_descs: Vec::new(),
        scripts: Vec::new(),
        triggers: Vec::new(),
    };
    loop {
        let l = lx.content_line()?;
        match l.as_bytes().first() {
            Some(b'S') if l == "S" => {
                room.triggers = lx.trailing_triggers()?;
                return Ok(room);
            }
            Some(b'D') => {
                let dir: usize = match l[1..].trim().parse() {
                    Ok(d) if d < 6 => d,
                    _ => return lx.err(format!("bad exit direction '{}'", clip(l))),
                };
                let description = lx.string()?;
                let keywords = lx.string()?;
                let f = lx.fields()?;
                let line = lx.line_no() - 1;
                // The files write a door's kind as a number (CircleMUD and its family's
                // `exit_info`): 1 a door, 2 a pickproof one, tbaMUD's 3 and 4 the same
                // hidden; pawns keeps bits (1 door, 2 pickproof, 16 hidden).
                let door_flags = match flag_field(f.first(), "door flags", line)? as u32 {
                    2 => 1 | 2,
                    3 => 1 | 16,
                    4 => 1 | 2 | 16,
                    other => other,
                };
                let key = int(f.get(1), "key vnum", line)? as i32;
                let to_room = int(f.get(2), "exit target", line)? as i32;
                room.exits[dir] = Some(ExitProto { description, keywords, door_flags, key, to_room });
            }
            Some(b'E') if l == "E" => {
                let keywords = lx.string()?;
                let description = lx.string()?;
                room.extra_descs.push(ExtraDesc { keywords, description });
            }
            Some(b'R') => room.scripts.push(l[1..].trim().to_string()),
            Some(b'#') | Some(b'$') => return lx.err("room not closed with 'S'"),
            _ => return lx.err(format!("unexpected line '{}' in room", clip(l))),
        }
    }
}

//! Quest files (`qst/`, tbaMUD): name, keywords, the three texts (description,
//! completion, quit), then `type questmaster flags target prev next prereq`, seven
//! values, `gold exp object`, closed by `S`.

use super::lexer::{flag_field, int, int_or, LexResult, Lexer};
use super::types::QuestProto;
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, QuestProto>) {
    let mut lx = Lexer::new(text);
    super::each_record(&mut lx, sink, "quest", |lx, vnum, _| quest(lx, vnum));
}

fn quest(lx: &mut Lexer<'_>, vnum: u32) -> LexResult<QuestProto> {
    let name = lx.string()?;
    let keywords = lx.string()?;
    let description = lx.string()?;
    let completion = lx.string()?;
    let quit = lx.string()?;
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let kind = int(f.first(), "quest type", line)? as i32;
    let master = int(f.get(1), "questmaster", line)? as i32;
    let flags = flag_field(f.get(2), "quest flags", line)?;
    let target = int(f.get(3), "target", line)? as i32;
    let (prev, next, prereq) = (int_or(f.get(4), -1) as i32, int_or(f.get(5), -1) as i32, int_or(f.get(6), -1) as i32);
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let mut values = Vec::with_capacity(7);
    for i in 0..7 {
        values.push(int(f.get(i), "quest value", line)? as i32);
    }
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let gold = int(f.first(), "gold reward", line)? as i32;
    let exp = int(f.get(1), "experience reward", line)? as i32;
    let obj_reward = int(f.get(2), "object reward", line)? as i32;
    match lx.content_line()? {
        "S" => {}
        other => return lx.err(format!("quest not closed with 'S' (found '{}')", super::wld::clip(other))),
    }
    Ok(QuestProto {
        vnum,
        name,
        keywords,
        description,
        completion,
        quit,
        kind,
        master,
        flags,
        target,
        prev,
        next,
        prereq,
        values,
        gold,
        exp,
        obj_reward,
    })
}

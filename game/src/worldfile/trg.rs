//! DG Scripts trigger files (`trg/`, tbaMUD): name, `attach_type flags narg`, the
//! argument list and the script, kept as written for the scripts to come. Their strings
//! follow tbaMUD's rule (a line ending in `~` ends them), since scripts use `~` as text.

use super::lexer::{flag_field, int, LexResult, Lexer};
use super::types::TriggerProto;
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, TriggerProto>) {
    let mut lx = Lexer::new(text);
    super::each_record(&mut lx, sink, "trigger", |lx, vnum, _| trigger(lx, vnum));
}

fn trigger(lx: &mut Lexer<'_>, vnum: u32) -> LexResult<TriggerProto> {
    let name = lx.string_to_trailing_tilde()?;
    let f = lx.fields()?;
    let line = lx.line_no() - 1;
    let attach_type = int(f.first(), "attach type", line)?;
    if !(0..=2).contains(&attach_type) {
        return lx.err(format!("attach type {attach_type} (want 0 mob, 1 object or 2 room)"));
    }
    let flags = flag_field(f.get(1), "trigger type", line)?;
    let narg = int(f.get(2), "numeric argument", line)? as i32;
    let arglist = lx.string_to_trailing_tilde()?;
    let commands = lx.string_to_trailing_tilde()?;
    Ok(TriggerProto { vnum, name, attach_type: attach_type as u32, flags, narg, arglist, commands })
}

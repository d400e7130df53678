//! Shop files (`.shp`), format "CircleMUD v3.0 Shop File".

use super::lexer::{flags, int, LexResult, Lexer};
use super::types::ShopProto;
use super::wld::clip;
use super::Sink;

pub fn parse(text: &str, sink: &mut Sink<'_, ShopProto>) {
    let mut lx = Lexer::new(text);
    if let Some(first) = lx.peek_content() {
        if !first.starts_with('#') && !first.starts_with('$') {
            let version_line = lx.string().unwrap_or_default();
            if !version_line.contains("v3.0") {
                sink.warn(1, None, format!("shop file header '{}' is not v3.0; reading as v3.0", clip(&version_line)));
            }
        }
    }
    super::each_record(&mut lx, sink, "shop", |lx, vnum, _| shop(lx, vnum));
}

fn one_int(lx: &mut Lexer<'_>, what: &str) -> LexResult<i64> {
    let f = lx.fields()?;
    int(f.first(), what, lx.line_no() - 1)
}

fn one_float(lx: &mut Lexer<'_>, what: &str) -> LexResult<f32> {
    let l = lx.content_line()?;
    match l.split_whitespace().next().and_then(|t| t.parse().ok()) {
        Some(v) => Ok(v),
        None => lx.err(format!("{what}: '{}' is not a number", clip(l))),
    }
}

fn int_list(lx: &mut Lexer<'_>, what: &str) -> LexResult<Vec<i32>> {
    let mut out = Vec::new();
    loop {
        let v = one_int(lx, what)?;
        if v == -1 {
            return Ok(out);
        }
        out.push(v as i32);
        if out.len() > 10_000 {
            return lx.err(format!("{what} list never ends with -1"));
        }
    }
}

fn shop(lx: &mut Lexer<'_>, vnum: u32) -> LexResult<ShopProto> {
    let producing = int_list(lx, "produced item")?;
    let profit_buy = one_float(lx, "buy profit")?;
    let profit_sell = one_float(lx, "sell profit")?;
    let mut buy_types = Vec::new();
    loop {
        let l = lx.content_line()?;
        let first = l.split_whitespace().next().unwrap_or("");
        if first == "-1" {
            break;
        }
        buy_types.push(l.to_string());
        if buy_types.len() > 1000 {
            return lx.err("buy type list never ends with -1");
        }
    }
    let mut messages = Vec::with_capacity(7);
    for _ in 0..7 {
        messages.push(lx.string()?.trim().to_string());
    }
    let temper = one_int(lx, "temper")? as i32;
    let l = lx.content_line()?;
    let bitvector = flags(l.split_whitespace().next().unwrap_or("0")).unwrap_or(0);
    let keeper = one_int(lx, "keeper")? as i32;
    let l = lx.content_line()?;
    let with_who = flags(l.split_whitespace().next().unwrap_or("0")).unwrap_or(0);
    let rooms = int_list(lx, "shop room")?;
    let open1 = one_int(lx, "open hour")? as i32;
    let close1 = one_int(lx, "close hour")? as i32;
    let open2 = one_int(lx, "open hour")? as i32;
    let close2 = one_int(lx, "close hour")? as i32;
    Ok(ShopProto {
        vnum,
        producing,
        profit_buy,
        profit_sell,
        buy_types,
        messages,
        temper,
        bitvector,
        keeper,
        with_who,
        rooms,
        open1,
        close1,
        open2,
        close2,
    })
}

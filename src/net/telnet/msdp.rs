//! MSDP (telnet option 69): variables as `VAR name VAL value`, with arrays and tables,
//! and the protocol's commands `LIST`, `REPORT`, `UNREPORT`, `SEND` and `RESET`.
//! This file is the wire format (both ways); `mud.rs` decides what to send.

use serde_json::Value;

use super::{IAC, SB, SE};

pub const OPT_MSDP: u8 = 69;
pub const VAR: u8 = 1;
pub const VAL: u8 = 2;
pub const TABLE_OPEN: u8 = 3;
pub const TABLE_CLOSE: u8 = 4;
pub const ARRAY_OPEN: u8 = 5;
pub const ARRAY_CLOSE: u8 = 6;
/// Deepest nesting read from a client (theirs is never deeper than an array of names).
const MAX_DEPTH: usize = 4;
/// Most values read from one sub-negotiation.
const MAX_ITEMS: usize = 256;

/// A value as MSDP carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum MsdpVal {
    Str(String),
    Array(Vec<MsdpVal>),
    Table(Vec<(String, MsdpVal)>),
}

impl MsdpVal {
    /// Our JSON values in MSDP's shape: objects are tables, lists arrays, the rest text
    /// (true/false as 1/0, null as empty).
    pub fn from_json(v: &Value) -> MsdpVal {
        match v {
            Value::Object(m) => MsdpVal::Table(m.iter().map(|(k, v)| (k.to_ascii_uppercase(), MsdpVal::from_json(v))).collect()),
            Value::Array(a) => MsdpVal::Array(a.iter().map(MsdpVal::from_json).collect()),
            Value::String(s) => MsdpVal::Str(s.clone()),
            Value::Bool(b) => MsdpVal::Str(if *b { "1" } else { "0" }.into()),
            Value::Null => MsdpVal::Str(String::new()),
            Value::Number(n) => MsdpVal::Str(n.to_string()),
        }
    }

    /// The strings of a value: a string's own, or an array's strings.
    pub fn strings(&self) -> Vec<&str> {
        match self {
            MsdpVal::Str(s) => vec![s.as_str()],
            MsdpVal::Array(a) => a.iter().flat_map(|v| v.strings()).collect(),
            MsdpVal::Table(_) => Vec::new(),
        }
    }
}

/// Text in an MSDP frame loses the bytes that are MSDP's or telnet's markers.
fn put_text(out: &mut Vec<u8>, s: &str) {
    out.extend(s.bytes().filter(|b| !matches!(*b, 0 | VAR | VAL | TABLE_OPEN | TABLE_CLOSE | ARRAY_OPEN | ARRAY_CLOSE | IAC)));
}

fn put_val(out: &mut Vec<u8>, v: &MsdpVal) {
    match v {
        MsdpVal::Str(s) => put_text(out, s),
        MsdpVal::Array(items) => {
            out.push(ARRAY_OPEN);
            for i in items {
                out.push(VAL);
                put_val(out, i);
            }
            out.push(ARRAY_CLOSE);
        }
        MsdpVal::Table(fields) => {
            out.push(TABLE_OPEN);
            for (k, v) in fields {
                out.push(VAR);
                put_text(out, k);
                out.push(VAL);
                put_val(out, v);
            }
            out.push(TABLE_CLOSE);
        }
    }
}

/// One sub-negotiation carrying variables.
pub fn frame(vars: &[(String, MsdpVal)]) -> Vec<u8> {
    let mut out = vec![IAC, SB, OPT_MSDP];
    for (name, v) in vars {
        out.push(VAR);
        put_text(&mut out, name);
        out.push(VAL);
        put_val(&mut out, v);
    }
    out.extend([IAC, SE]);
    out
}

/// What a client sent: each `VAR name` with its values (`REPORT` may carry several
/// `VAL`s, or one array). `None` for bytes that are not MSDP.
pub fn parse(data: &[u8]) -> Option<Vec<(String, Vec<MsdpVal>)>> {
    let mut r = Reader { data, at: 0, items: 0 };
    let mut out: Vec<(String, Vec<MsdpVal>)> = Vec::new();
    while r.at < data.len() {
        if r.next()? != VAR {
            return None;
        }
        let name = r.text();
        let mut vals = Vec::new();
        while r.peek() == Some(VAL) {
            r.at += 1;
            vals.push(r.value(0)?);
        }
        out.push((name, vals));
    }
    Some(out)
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    items: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.data.get(self.at).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }
    fn text(&mut self) -> String {
        let start = self.at;
        while self.peek().is_some_and(|b| b > ARRAY_CLOSE) {
            self.at += 1;
        }
        String::from_utf8_lossy(&self.data[start..self.at]).into_owned()
    }
    fn value(&mut self, depth: usize) -> Option<MsdpVal> {
        self.items += 1;
        if depth > MAX_DEPTH || self.items > MAX_ITEMS {
            return None;
        }
        match self.peek() {
            Some(ARRAY_OPEN) => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    match self.next()? {
                        VAL => items.push(self.value(depth + 1)?),
                        ARRAY_CLOSE => return Some(MsdpVal::Array(items)),
                        _ => return None,
                    }
                }
            }
            Some(TABLE_OPEN) => {
                self.at += 1;
                let mut fields = Vec::new();
                loop {
                    match self.next()? {
                        VAR => {
                            let k = self.text();
                            if self.next()? != VAL {
                                return None;
                            }
                            fields.push((k, self.value(depth + 1)?));
                        }
                        TABLE_CLOSE => return Some(MsdpVal::Table(fields)),
                        _ => return None,
                    }
                }
            }
            _ => Some(MsdpVal::Str(self.text())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn the_spec_examples_read() {
        // IAC SB MSDP VAR "LIST" VAL "COMMANDS" IAC SE (the frame's inside).
        assert_eq!(parse(b"\x01LIST\x02COMMANDS"), Some(vec![("LIST".into(), vec![MsdpVal::Str("COMMANDS".into())])]));
        // REPORT with several VALs, and with an array.
        let several = parse(b"\x01REPORT\x02HEALTH\x02MANA").unwrap();
        assert_eq!(several[0].1.iter().flat_map(|v| v.strings()).collect::<Vec<_>>(), ["HEALTH", "MANA"]);
        let array = parse(b"\x01REPORT\x02\x05\x02HEALTH\x02MANA\x06").unwrap();
        assert_eq!(array[0].1[0].strings(), ["HEALTH", "MANA"]);
        assert_eq!(parse(b"\x02oops"), None);
        assert_eq!(parse(b"\x01X\x02\x05\x02a"), None, "an array never closed");
    }

    #[test]
    fn tables_and_arrays_frame_as_the_spec_shows() {
        let v = MsdpVal::from_json(&json!({"vnum": 3001, "exits": {"n": 3002}}));
        let f = frame(&[("ROOM".into(), v)]);
        assert_eq!(&f[..3], &[IAC, SB, OPT_MSDP]);
        assert_eq!(&f[3..f.len() - 2], b"\x01ROOM\x02\x03\x01VNUM\x023001\x01EXITS\x02\x03\x01N\x023002\x04\x04");
        let a = frame(&[("INVENTORY".into(), MsdpVal::from_json(&json!(["a\u{1}b", "c"])))]);
        assert_eq!(&a[3..a.len() - 2], b"\x01INVENTORY\x02\x05\x02ab\x02c\x06");
    }

    proptest! {
        #[test]
        fn any_bytes_parse_or_refuse_without_panic(data in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = parse(&data);
        }

        #[test]
        fn what_we_frame_reads_back(names in proptest::collection::vec("[A-Z_]{1,12}", 1..5), text in "[a-z 0-9]{0,20}") {
            let vars: Vec<(String, MsdpVal)> = names.iter().map(|n| (n.clone(), MsdpVal::Array(vec![MsdpVal::Str(text.clone())]))).collect();
            let f = frame(&vars);
            let back = parse(&f[3..f.len() - 2]).unwrap();
            prop_assert_eq!(back.len(), vars.len());
            for ((n, v), (bn, bv)) in vars.iter().zip(back.iter()) {
                prop_assert_eq!(n, bn);
                prop_assert_eq!(&vec![v.clone()], bv);
            }
        }
    }
}

//! GMCP (telnet option 201): `IAC SB GMCP "Package.Message <json>" IAC SE` — its framing,
//! the client's messages, and the set of packages the client said it supports
//! (`Core.Supports.Set/Add/Remove`), which decides what is pushed to it.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{IAC, SB, SE};

pub const OPT_GMCP: u8 = 201;
/// Longest package name read from a client.
const MAX_PACKAGE: usize = 64;
/// Most packages a client may list as supported.
const MAX_SUPPORTS: usize = 64;

/// One message for the client, framed (IAC in the payload doubled).
pub fn frame(package: &str, data: &Value) -> Vec<u8> {
    let body = format!("{package} {data}");
    let mut out = Vec::with_capacity(body.len() + 6);
    out.extend([IAC, SB, OPT_GMCP]);
    for b in body.bytes() {
        out.push(b);
        if b == IAC {
            out.push(IAC);
        }
    }
    out.extend([IAC, SE]);
    out
}

/// A message from the client: its package and its data (`Null` when it has none).
#[derive(Debug, PartialEq)]
pub struct Incoming {
    pub package: String,
    pub data: Value,
}

/// Why a client's GMCP message was not read.
#[derive(Debug, PartialEq)]
pub enum BadGmcp {
    /// The package name is missing, too long or not `Word.Word…`.
    Package,
    /// The data after the name is not JSON.
    Json,
}

pub fn parse(data: &[u8]) -> Result<Incoming, BadGmcp> {
    let text = std::str::from_utf8(data).map_err(|_| BadGmcp::Package)?;
    let (package, rest) = match text.split_once(|c: char| c.is_ascii_whitespace()) {
        Some((p, r)) => (p, r.trim()),
        None => (text, ""),
    };
    let name_ok = !package.is_empty()
        && package.len() <= MAX_PACKAGE
        && package.split('.').all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    if !name_ok {
        return Err(BadGmcp::Package);
    }
    let data = if rest.is_empty() { Value::Null } else { serde_json::from_str(rest).map_err(|_| BadGmcp::Json)? };
    Ok(Incoming { package: package.to_string(), data })
}

/// The packages the client supports, lower-cased, with their versions.
#[derive(Debug, Default, Clone)]
pub struct Supports {
    packages: BTreeMap<String, u32>,
}

impl Supports {
    /// `Core.Supports.Set/Add/Remove`: a list of `"Package version"` strings.
    /// Returns false (and changes nothing) when the data is not such a list.
    pub fn apply(&mut self, verb: &str, data: &Value) -> bool {
        let Some(list) = data.as_array() else { return false };
        let mut entries = Vec::new();
        for item in list.iter().take(MAX_SUPPORTS) {
            let Some(s) = item.as_str() else { return false };
            let mut words = s.split_whitespace();
            let Some(name) = words.next().filter(|n| n.len() <= MAX_PACKAGE) else { continue };
            let version = words.next().and_then(|v| v.parse().ok()).unwrap_or(1);
            entries.push((name.to_ascii_lowercase(), version));
        }
        match verb {
            "set" => {
                self.packages = entries.into_iter().collect();
            }
            "add" => self.packages.extend(entries),
            "remove" => {
                for (name, _) in entries {
                    self.packages.remove(&name);
                }
            }
            _ => return false,
        }
        true
    }

    /// A message's package is pushed when it, or a package above it, is supported:
    /// `Char 1` covers `Char.Vitals` and `Char.Items.List`.
    pub fn covers(&self, package: &str) -> bool {
        let p = package.to_ascii_lowercase();
        let mut prefix = p.as_str();
        loop {
            if self.packages.contains_key(prefix) {
                return true;
            }
            match prefix.rfind('.') {
                Some(i) => prefix = &prefix[..i],
                None => return false,
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.packages.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_double_iac_in_the_payload() {
        let f = frame("Char.Name", &json!({"name": "Ann"}));
        assert_eq!(f, b"\xff\xfa\xc9Char.Name {\"name\":\"Ann\"}\xff\xf0");
        let f = frame("X", &json!("\u{ff}"));
        // U+00FF is C3 BF in UTF-8: no 0xFF byte, nothing to double.
        assert!(!f[3..f.len() - 2].contains(&IAC));
    }

    #[test]
    fn client_messages_parse_or_say_why_not() {
        assert_eq!(
            parse(br#"Core.Hello {"client":"Mudlet","version":"4.17"}"#),
            Ok(Incoming { package: "Core.Hello".into(), data: json!({"client":"Mudlet","version":"4.17"}) })
        );
        assert_eq!(parse(b"Core.Ping"), Ok(Incoming { package: "Core.Ping".into(), data: Value::Null }));
        assert_eq!(parse(b"Core.Ping  "), Ok(Incoming { package: "Core.Ping".into(), data: Value::Null }));
        assert_eq!(parse(b"Core.Hello {nope"), Err(BadGmcp::Json));
        assert_eq!(parse(b""), Err(BadGmcp::Package));
        assert_eq!(parse(b"Core..Hello 1"), Err(BadGmcp::Package));
        assert_eq!(parse(b"\xff\xfe 1"), Err(BadGmcp::Package));
    }

    #[test]
    fn supports_cover_their_sub_packages() {
        let mut s = Supports::default();
        assert!(s.apply("set", &json!(["Char 1", "Room 1", "Comm.Channel 1"])));
        assert!(s.covers("Char.Vitals") && s.covers("char.items.list") && s.covers("Room.Info"));
        assert!(s.covers("Comm.Channel.Text") && !s.covers("Comm.Other"));
        assert!(s.apply("remove", &json!(["Room"])));
        assert!(!s.covers("Room.Info"));
        assert!(s.apply("add", &json!(["Room 1"])));
        assert!(s.covers("Room.Info"));
        assert!(!s.apply("set", &json!("Char 1")), "not a list");
        assert!(!s.apply("set", &json!([1, 2])), "not strings");
        assert!(s.covers("Room.Info"), "a bad message changes nothing");
    }
}

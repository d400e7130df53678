//! A person's screen over JSON (the web client's `display`, protocol extension): the
//! link wraps an event's text to the window, as a telnet session does for NAWS, and
//! hands its colours over as data (`runs`) for the page to style — once, on the
//! server, so the page does not wrap the server's lines again.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::game::send::colour;
use crate::game::EventKind;
use crate::net::wrap;
use crate::protocol::{self, DisplayData};

/// What the page said about its window, and the player's `color` level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Screen {
    /// Columns to wrap to (0, or under `wrap::MIN_WIDTH`: as written).
    pub cols: u16,
    /// `color off|brief|normal|complete` as 0–3; a page shows `normal` unless told.
    pub colour: u8,
}

impl Screen {
    pub fn new(d: &DisplayData) -> Screen {
        Screen { cols: d.cols.unwrap_or(0), colour: 2 }
    }

    /// The event's `data` for this screen: the text wrapped, without marks, and its
    /// `runs` when any words are coloured.
    pub fn event_data(&self, kind: EventKind, text: &str, from: Option<&str>) -> Value {
        let cols = self.cols as usize;
        let fitted =
            if cols >= wrap::MIN_WIDTH { std::borrow::Cow::Owned(wrap::wrap(text, cols)) } else { std::borrow::Cow::Borrowed(text) };
        let runs = colour::runs(&fitted, self.colour);
        let plain: String = runs.iter().map(|(w, _)| w.as_str()).collect();
        let mut data = json!({ "type": kind.as_str(), "text": plain });
        if let Some(f) = from {
            data["from"] = json!(f);
        }
        if runs.iter().any(|(_, c)| !c.is_empty()) {
            data["runs"] = Value::Array(runs.into_iter().map(|(w, c)| json!([w, c])).collect());
        }
        data
    }

    pub fn event_frame(&self, seq: u64, kind: EventKind, text: &str, from: Option<&str>, re: Option<&Arc<str>>) -> String {
        protocol::reply_frame(seq, "event", self.event_data(kind, text, from), re)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_gets_the_text_wrapped_and_its_colours_as_runs() {
        let s = Screen { cols: 24, colour: 2 };
        let text =
            format!("{}\nA long line of prose that the author wrapped at about seventy columns.", colour::paint(2, 'c', "The Temple"));
        let d = s.event_data(EventKind::Text, &text, None);
        let plain = d["text"].as_str().unwrap();
        assert!(plain.lines().all(|l| l.chars().count() <= 24), "{plain}");
        assert!(plain.starts_with("The Temple\nA long line"), "{plain}");
        assert_eq!(d["runs"][0], json!(["The Temple", "cyan"]));
        let joined: String = d["runs"].as_array().unwrap().iter().map(|r| r[0].as_str().unwrap()).collect();
        assert_eq!(joined, plain);
        // `color off`: the words alone, no runs; no window: as written.
        let off = Screen { cols: 0, colour: 0 }.event_data(EventKind::Say, &text, Some("Ann"));
        assert_eq!(off["text"], colour::strip(&text).as_ref());
        assert_eq!((off.get("runs"), &off["from"]), (None, &json!("Ann")));
    }
}

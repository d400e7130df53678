//! The `state` frame (protocol §5), written directly: one for nearly every command an
//! agent sends, most of it the room's description. Through serde_json's derive every
//! string was escaped a byte at a time; here it goes through `push_json_str`, a block
//! at a time, into a buffer sized exactly (the frame is kept in the replay ring).
//!
//! The bytes are serde_json's for the same `StateData` (field names and order from the
//! derive in `game::send::output`), but for two control characters: serde_json writes
//! U+0008 and U+000C as `\b` and `\f`, this `\u0008` and `\u000c`, as every other
//! frame of ours does. The property tests pin both.

use super::{json_str_len, push_json_str};
use crate::game::send::output::{DoorView, PlayerState, RoomState, StateData};

/// `{"type":"state","seq":N,"data":{"player":{…},"room":{…},"token":"…"}[,"re":"…"]}`.
pub fn state_frame(seq: u64, data: &StateData, token: &str, re: Option<&str>) -> String {
    let len = HEAD.len()
        + 20
        + r#","data":{"player":"#.len()
        + player_len(&data.player)
        + r#","room":"#.len()
        + room_len(&data.room)
        + r#","token":"#.len()
        + json_str_len(token)
        + 1
        + re.map_or(0, |r| r#","re":"#.len() + json_str_len(r))
        + 1;
    let mut o = String::with_capacity(len);
    o.push_str(HEAD);
    push_int(&mut o, seq);
    o.push_str(r#","data":{"player":"#);
    push_player(&mut o, &data.player);
    o.push_str(r#","room":"#);
    push_room(&mut o, &data.room);
    o.push_str(r#","token":"#);
    push_json_str(&mut o, token);
    o.push('}');
    if let Some(r) = re {
        o.push_str(r#","re":"#);
        push_json_str(&mut o, r);
    }
    o.push('}');
    o
}

const HEAD: &str = r#"{"type":"state","seq":"#;

fn push_int(o: &mut String, n: impl itoa::Integer) {
    o.push_str(itoa::Buffer::new().format(n));
}

/// The player's fields in `PlayerState`'s order: `name`, these numbers, these words,
/// these numbers, then `is_agent`; each with its key as written (`,"health":`).
fn points(p: &PlayerState) -> [(&'static str, i64); 9] {
    [
        (r#","health":"#, p.health.into()),
        (r#","max_health":"#, p.max_health.into()),
        (r#","mana":"#, p.mana.into()),
        (r#","max_mana":"#, p.max_mana.into()),
        (r#","move":"#, p.moves.into()),
        (r#","max_move":"#, p.max_move.into()),
        (r#","level":"#, p.level.into()),
        (r#","exp":"#, p.exp),
        (r#","gold":"#, p.gold),
    ]
}

fn words(p: &PlayerState) -> [(&'static str, &'static str); 3] {
    [(r#","position":"#, p.position), (r#","class":"#, p.class), (r#","race":"#, p.race)]
}

fn abilities(p: &PlayerState) -> [(&'static str, i64); 6] {
    [
        (r#","str":"#, p.str.into()),
        (r#","int":"#, p.int.into()),
        (r#","wis":"#, p.wis.into()),
        (r#","dex":"#, p.dex.into()),
        (r#","con":"#, p.con.into()),
        (r#","cha":"#, p.cha.into()),
    ]
}

fn push_player(o: &mut String, p: &PlayerState) {
    o.push_str(r#"{"name":"#);
    push_json_str(o, &p.name);
    for (k, v) in points(p) {
        o.push_str(k);
        push_int(o, v);
    }
    for (k, v) in words(p) {
        o.push_str(k);
        push_json_str(o, v);
    }
    for (k, v) in abilities(p) {
        o.push_str(k);
        push_int(o, v);
    }
    o.push_str(if p.is_agent { r#","is_agent":true}"# } else { r#","is_agent":false}"# });
}

/// At most `push_player`'s length (numbers counted at their widest).
fn player_len(p: &PlayerState) -> usize {
    r#"{"name":,"is_agent":false}"#.len()
        + json_str_len(&p.name)
        + points(p).iter().chain(abilities(p).iter()).map(|(k, _)| k.len() + 20).sum::<usize>()
        + words(p).iter().map(|(k, v)| k.len() + json_str_len(v)).sum::<usize>()
}

fn push_strs<S: AsRef<str>>(o: &mut String, items: &[S]) {
    o.push('[');
    for (n, s) in items.iter().enumerate() {
        if n > 0 {
            o.push(',');
        }
        push_json_str(o, s.as_ref());
    }
    o.push(']');
}

fn strs_len<S: AsRef<str>>(items: &[S]) -> usize {
    2 + items.iter().map(|s| json_str_len(s.as_ref()) + 1).sum::<usize>()
}

fn push_door(o: &mut String, d: &DoorView) {
    o.push_str(r#"{"direction":"#);
    push_json_str(o, d.direction);
    o.push_str(r#","state":"#);
    push_json_str(o, d.state);
    o.push_str(r#","keyword":"#);
    push_json_str(o, &d.keyword);
    o.push('}');
}

fn push_room(o: &mut String, r: &RoomState) {
    o.push_str(r#"{"vnum":"#);
    push_int(o, r.vnum);
    o.push_str(r#","name":"#);
    push_json_str(o, &r.name);
    o.push_str(r#","description":"#);
    push_json_str(o, &r.description);
    o.push_str(r#","exits":"#);
    push_strs(o, &r.exits);
    o.push_str(r#","doors":["#);
    for (n, d) in r.doors.iter().enumerate() {
        if n > 0 {
            o.push(',');
        }
        push_door(o, d);
    }
    o.push_str(r#"],"players":"#);
    push_strs(o, &r.players);
    if r.players_more != 0 {
        o.push_str(r#","players_more":"#);
        push_int(o, r.players_more);
    }
    o.push_str(r#","mobs":"#);
    push_strs(o, &r.mobs);
    o.push_str(r#","items":"#);
    push_strs(o, &r.items);
    o.push('}');
}

fn room_len(r: &RoomState) -> usize {
    r#"{"vnum":,"name":,"description":,"exits":,"doors":[],"players":,"players_more":,"mobs":,"items":}"#.len()
        + 2 * 20
        + json_str_len(&r.name)
        + json_str_len(&r.description)
        + strs_len(&r.exits)
        + r.doors
            .iter()
            .map(|d| {
                r#"{"direction":,"state":,"keyword":},"#.len()
                    + json_str_len(d.direction)
                    + json_str_len(d.state)
                    + json_str_len(&d.keyword)
            })
            .sum::<usize>()
        + strs_len(&r.players)
        + strs_len(&r.mobs)
        + strs_len(&r.items)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    /// How serde_json wrote a `state` frame from the derive before: the reference.
    fn by_serde(seq: u64, data: &StateData, token: &str, re: Option<&str>) -> String {
        #[derive(serde::Serialize)]
        struct StateBody<'a> {
            #[serde(flatten)]
            state: &'a StateData,
            token: &'a str,
        }
        serde_json::to_string(&crate::protocol::Envelope { ty: "state", seq, data: StateBody { state: data, token }, re }).unwrap()
    }

    /// Words the engine's `&'static str` fields can hold, a quote and a backslash among them.
    const WORDS: [&str; 5] = ["standing", "fighting", "Magic User", "a \"q\"", "back\\slash"];

    fn text() -> impl Strategy<Value = String> {
        prop_oneof!["\\PC{0,60}", "[\\x00-\\x1f\"\\\\ a-z]{0,30}", "[ -~\\n]{100,900}"]
    }

    fn arcs() -> impl Strategy<Value = Vec<Arc<str>>> {
        proptest::collection::vec(text().prop_map(Arc::from), 0..6)
    }

    prop_compose! {
        fn player()(name in text(), points in any::<[i32; 6]>(), level in any::<u8>(), exp in any::<i64>(), gold in any::<i64>(),
                    w in proptest::array::uniform3(0..WORDS.len()), ab in any::<[u8; 6]>(), is_agent in any::<bool>()) -> PlayerState {
            PlayerState {
                name, health: points[0], max_health: points[1], mana: points[2], max_mana: points[3], moves: points[4], max_move: points[5],
                level, exp, gold, position: WORDS[w[0]], class: WORDS[w[1]], race: WORDS[w[2]],
                str: ab[0], int: ab[1], wis: ab[2], dex: ab[3], con: ab[4], cha: ab[5], is_agent,
            }
        }
    }

    prop_compose! {
        fn room()(vnum in any::<u32>(), name in text(), description in text(),
                  exits in proptest::collection::vec(0..WORDS.len(), 0..6),
                  doors in proptest::collection::vec((0..WORDS.len(), 0..WORDS.len(), text()), 0..3),
                  players in arcs(), players_more in prop_oneof![Just(0usize), any::<usize>()], mobs in arcs(), items in arcs()) -> RoomState {
            RoomState {
                vnum, name: name.into(), description: description.into(),
                exits: exits.into_iter().map(|i| WORDS[i]).collect(),
                doors: doors.into_iter().map(|(d, s, keyword)| DoorView { direction: WORDS[d], state: WORDS[s], keyword }).collect(),
                players, players_more, mobs, items,
            }
        }
    }

    fn strings(data: &StateData, token: &str, re: Option<&str>) -> Vec<String> {
        let (p, r) = (&data.player, &data.room);
        let mut all = vec![p.name.clone(), r.name.to_string(), r.description.to_string(), token.to_string()];
        all.extend(r.doors.iter().map(|d| d.keyword.clone()));
        all.extend(r.players.iter().chain(&r.mobs).chain(&r.items).map(|s| s.to_string()));
        all.extend(re.map(str::to_string));
        all
    }

    proptest! {
        /// The frame says what serde_json said: the same JSON always, the same bytes
        /// unless a string holds U+0008 or U+000C (serde_json's `\b` and `\f`, our
        /// `\u0008` and `\u000c`). It is sized before it is written: never grown.
        #[test]
        fn a_state_frame_is_what_serde_json_wrote(seq in any::<u64>(), player in player(), room in room(), token in text(), re in proptest::option::of(text())) {
            let data = StateData { player, room };
            let ours = state_frame(seq, &data, &token, re.as_deref());
            let theirs = by_serde(seq, &data, &token, re.as_deref());
            prop_assert_eq!(serde_json::from_str::<Value>(&ours).unwrap(), serde_json::from_str::<Value>(&theirs).unwrap());
            if !strings(&data, &token, re.as_deref()).iter().any(|s| s.contains(['\u{8}', '\u{c}'])) {
                prop_assert_eq!(&ours, &theirs);
            }
            prop_assert!(ours.capacity() >= ours.len());
            prop_assert!(ours.capacity() - ours.len() <= 20 * 18, "len {} capacity {}", ours.len(), ours.capacity());
        }
    }

    #[test]
    fn a_backspace_is_escaped_as_in_every_other_frame() {
        let mut data = StateData {
            player: PlayerState {
                name: "Ann\u{8}".into(),
                health: 1,
                max_health: 2,
                mana: 3,
                max_mana: 4,
                moves: 5,
                max_move: 6,
                level: 7,
                exp: -8,
                gold: 9,
                position: "standing",
                class: "Warrior",
                race: "Human",
                str: 10,
                int: 11,
                wis: 12,
                dex: 13,
                con: 14,
                cha: 15,
                is_agent: true,
            },
            room: RoomState {
                vnum: 3001,
                name: "The Temple".into(),
                description: "Quiet.\n".into(),
                exits: vec!["north"],
                doors: vec![],
                players: vec![],
                players_more: 0,
                mobs: vec!["a rat".into()],
                items: vec![],
            },
        };
        let f = state_frame(7, &data, "tok", None);
        assert!(f.contains(r#""name":"Ann\u0008""#), "{f}");
        assert!(f.starts_with(r#"{"type":"state","seq":7,"data":{"player":{"name":"#), "{f}");
        data.room.players_more = 3;
        assert!(state_frame(7, &data, "tok", Some("r1"))
            .ends_with(r#""players_more":3,"mobs":["a rat"],"items":[]},"token":"tok"},"re":"r1"}"#));
    }
}

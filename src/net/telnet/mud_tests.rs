use super::*;
use serde_json::json;

fn gmcp_messages(bytes: &[u8]) -> Vec<(String, Value)> {
    let mut p = crate::net::telnet::TelnetParser::default();
    let mut ev = Vec::new();
    p.feed(bytes, &mut ev);
    ev.into_iter()
        .filter_map(|e| match e {
            crate::net::telnet::TelnetEvent::Sub { opt: gmcp::OPT_GMCP, data } => {
                let m = gmcp::parse(&data).unwrap();
                Some((m.package, m.data))
            }
            _ => None,
        })
        .collect()
}

fn start() -> Vec<(&'static str, Value)> {
    vec![
        ("HEALTH", json!(20)),
        ("MAX_HEALTH", json!(20)),
        ("MANA", json!(100)),
        ("MAX_MANA", json!(100)),
        ("MOVE", json!(80)),
        ("MAX_MOVE", json!(80)),
        ("GOLD", json!(5)),
        ("POSITION", json!("standing")),
        ("LEVEL", json!(1)),
        ("EXP", json!(0)),
        ("FIGHTING", json!(false)),
        ("INVENTORY", json!([{"name": "a bread", "vnum": 10, "instance_id": "obj_10_1", "target_string": "bread"}])),
        ("ROOM_ITEMS", json!([])),
        (ROOM_INFO, json!({"num": 3001, "name": "Temple", "area": "Midgaard", "environment": "inside", "exits": {"n": 3002}})),
        (CHAR_INFO, json!({"name": "Ann", "class": "warrior", "race": "human", "opponent": "", "opponent_health": 0})),
    ]
}

#[test]
fn nothing_is_pushed_before_the_client_says_what_it_supports() {
    let mut m = MudClient { gmcp: true, ..Default::default() };
    assert!(m.on_vars(&start()).is_empty());
    let r = m.on_gmcp(br#"Core.Supports.Set ["Char 1", "Room 1", "Comm.Channel 1"]"#);
    let got = gmcp_messages(&r.bytes);
    let names: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names, ["Char.Vitals", "Char.Name", "Char.Status", "Room.Info", "Char.Items.List", "Char.Items.List", "Comm.Channel.List"]);
    assert_eq!(got[0].1, json!({"hp": 20, "maxhp": 20, "mp": 100, "maxmp": 100, "mv": 80, "maxmv": 80}));
    assert_eq!(got[3].1["exits"], json!({"n": 3002}));
    assert_eq!(got[4].1, json!({"location": "inv", "items": [{"id": "obj_10_1", "name": "a bread", "vnum": 10}]}));
}

#[test]
fn only_what_changed_is_pushed_and_items_move_as_add_and_remove() {
    let mut m = MudClient { gmcp: true, ..Default::default() };
    m.on_gmcp(br#"Core.Supports.Set ["Char 1", "Room 1"]"#);
    m.on_vars(&start());
    let hit = m.on_vars(&[("HEALTH", json!(14))]);
    let got = gmcp_messages(&hit);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "Char.Vitals");
    assert_eq!(got[0].1["hp"], 14);
    // The same values again push nothing.
    assert!(m.on_vars(&[("HEALTH", json!(14)), (CHAR_INFO, start()[14].1.clone())]).is_empty());
    // Dropping the bread and picking up a sword: one Remove, one Add.
    let inv = json!([{"name": "a sword", "vnum": 11, "instance_id": "obj_11_2"}]);
    let got = gmcp_messages(&m.on_vars(&[("INVENTORY", inv)]));
    assert_eq!(got.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["Char.Items.Remove", "Char.Items.Add"]);
    assert_eq!(got[0].1["item"]["id"], "obj_10_1");
    assert_eq!(got[1].1, json!({"location": "inv", "item": {"id": "obj_11_2", "name": "a sword", "vnum": 11}}));
    // Asking for the room's items lists them.
    let got = gmcp_messages(&m.on_gmcp(b"Char.Items.Room").bytes);
    assert_eq!(got, vec![("Char.Items.List".into(), json!({"location": "room", "items": []}))]);
}

#[test]
fn channels_go_out_only_to_subscribers() {
    let mut m = MudClient { gmcp: true, ..Default::default() };
    assert!(m.on_event(EventKind::Say, "hi", Some("Bob")).is_empty());
    m.on_gmcp(br#"Core.Supports.Set ["Comm 1"]"#);
    let got = gmcp_messages(&m.on_event(EventKind::Tell, "psst", Some("Bob")));
    assert_eq!(got, vec![("Comm.Channel.Text".into(), json!({"channel": "tell", "talker": "Bob", "text": "psst"}))]);
    assert!(m.on_event(EventKind::Combat, "You hit", None).is_empty());
}

#[test]
fn core_messages_are_understood_and_garbage_ignored() {
    let mut m = MudClient { gmcp: true, ..Default::default() };
    m.on_gmcp(br#"Core.Hello {"client": "Mudlet", "version": "4.17.2"}"#);
    assert_eq!(m.hello, Some(("Mudlet".into(), "4.17.2".into())));
    assert_eq!(gmcp_messages(&m.on_gmcp(b"Core.Ping").bytes), vec![("Core.Ping".into(), Value::Null)]);
    for junk in [&b"Core.Supports.Set not json"[..], b"", b"\xff\xff", b"Core.Supports.Set {\"a\":1}", b"No.Such.Thing 1"] {
        assert!(m.on_gmcp(junk).bytes.is_empty());
    }
}

fn msdp_vars(bytes: &[u8]) -> Vec<(String, Vec<MsdpVal>)> {
    let mut p = crate::net::telnet::TelnetParser::default();
    let mut ev = Vec::new();
    p.feed(bytes, &mut ev);
    ev.into_iter()
        .flat_map(|e| match e {
            crate::net::telnet::TelnetEvent::Sub { opt: msdp::OPT_MSDP, data } => msdp::parse(&data).unwrap(),
            _ => Vec::new(),
        })
        .collect()
}

#[test]
fn msdp_lists_reports_and_unreports() {
    let mut m = MudClient { msdp: true, ..Default::default() };
    m.on_vars(&start());
    let got = msdp_vars(&m.on_msdp(b"\x01LIST\x02COMMANDS").bytes);
    assert_eq!(got[0].0, "COMMANDS");
    assert_eq!(got[0].1[0].strings(), MSDP_COMMANDS);
    // REPORT sends the value at once, then each change.
    let got = msdp_vars(&m.on_msdp(b"\x01REPORT\x02HEALTH\x02ROOM\x02NOT_A_VARIABLE").bytes);
    assert_eq!(got[0], ("HEALTH".into(), vec![MsdpVal::Str("20".into())]));
    assert_eq!(got[1].0, "ROOM");
    let MsdpVal::Table(room) = &got[1].1[0] else { panic!("ROOM is a table") };
    assert!(room.iter().any(|(k, v)| k == "VNUM" && *v == MsdpVal::Str("3001".into())));
    assert!(room.iter().any(|(k, v)| k == "TERRAIN" && *v == MsdpVal::Str("inside".into())));
    let got = msdp_vars(&m.on_vars(&[("HEALTH", json!(9)), ("MANA", json!(50))]));
    assert_eq!(got, vec![("HEALTH".into(), vec![MsdpVal::Str("9".into())])], "MANA is not reported");
    let got = msdp_vars(&m.on_msdp(b"\x01LIST\x02REPORTED_VARIABLES").bytes);
    assert_eq!(got[0].1[0].strings(), ["HEALTH", "ROOM"]);
    m.on_msdp(b"\x01UNREPORT\x02HEALTH");
    assert!(m.on_vars(&[("HEALTH", json!(3))]).is_empty());
    // SEND answers once; garbage is ignored.
    let got = msdp_vars(&m.on_msdp(b"\x01SEND\x02MANA").bytes);
    assert_eq!(got, vec![("MANA".into(), vec![MsdpVal::Str("50".into())])]);
    assert!(m.on_msdp(b"\x02\x02\x05").bytes.is_empty());
    m.on_msdp(b"\x01CLIENT_NAME\x02TinTin++");
    assert_eq!(m.hello.as_ref().map(|h| h.0.as_str()), Some("TinTin++"));
}

proptest::proptest! {
    /// Whatever a client sends, through the real parser, negotiator and MUD handler:
    /// no panic, and a sub-negotiation's answer is always framed.
    #[test]
    fn any_client_bytes_are_survived(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
        use crate::net::telnet::negotiate::{Answer, Negotiator};
        let mut p = crate::net::telnet::TelnetParser::default();
        let mut ev = Vec::new();
        // Bias toward GMCP/MSDP frames: wrap the bytes as both too.
        let mut input = data.clone();
        for opt in [gmcp::OPT_GMCP, msdp::OPT_MSDP] {
            input.extend([255, 250, opt]);
            input.extend(data.iter().copied().filter(|b| *b != 255));
            input.extend([255, 240]);
        }
        p.feed(&input, &mut ev);
        let mut n = Negotiator::default();
        let mut m = MudClient { gmcp: true, msdp: true, ..Default::default() };
        m.on_vars(&start());
        for e in ev {
            let answer = match e {
                crate::net::telnet::TelnetEvent::Negotiate { verb, opt } => n.on_negotiate(verb, opt),
                crate::net::telnet::TelnetEvent::Sub { opt, data } => n.on_sub(opt, &data),
                _ => continue,
            };
            let bytes = match answer {
                Answer::Gmcp(d) => m.on_gmcp(&d).bytes,
                Answer::Msdp(d) => m.on_msdp(&d).bytes,
                Answer::Bytes(b) => {
                    proptest::prop_assert_eq!(b[0], 255);
                    continue;
                }
                _ => continue,
            };
            if !bytes.is_empty() {
                proptest::prop_assert_eq!(&bytes[..2], &[255, 250]);
                proptest::prop_assert_eq!(&bytes[bytes.len() - 2..], &[255, 240]);
            }
        }
    }
}

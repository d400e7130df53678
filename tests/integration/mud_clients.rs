//! MUD clients over telnet, byte for byte: the negotiations Mudlet and TinTin++ make
//! (their answers as their sources give them: Mudlet 4.18, TinTin++ 2.02), GMCP and
//! MSDP data on combat rounds, MCCP2 compression ended cleanly, GA for telnet clients
//! without EOR, window-fitted text, and clients that refuse or send garbage.

use serde_json::Value;

use crate::common::*;
use serde_json::json;

const OFFERS: [u8; 24] = [
    255, 251, 70, // WILL MSSP
    255, 251, 201, // WILL GMCP
    255, 251, 69, // WILL MSDP
    255, 251, 86, // WILL MCCP2
    255, 251, 25, // WILL EOR
    255, 253, 31, // DO NAWS
    255, 253, 24, // DO TTYPE
    255, 251, 42, // WILL CHARSET
];
const TTYPE_SEND: [u8; 6] = [255, 250, 24, 1, 255, 240];
const CHARSET_REQUEST: &[u8] = b"\xff\xfa\x2a\x01;UTF-8\xff\xf0";

/// Every whole GMCP message in `bytes`, in order: (package, data, end offset).
fn gmcp_at(bytes: &[u8]) -> Vec<(String, Value, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = find(&bytes[at..], &[255, 250, 201]) {
        let start = at + i + 3;
        let Some(len) = find(&bytes[start..], &[255, 240]) else { break };
        let end = start + len;
        let body = String::from_utf8(bytes[start..end].to_vec()).unwrap();
        let (package, data) = body.split_once(' ').unwrap_or((&body, "null"));
        out.push((package.to_string(), serde_json::from_str(data).unwrap(), end + 2));
        at = end + 2;
    }
    out
}

fn gmcp(bytes: &[u8]) -> Vec<(String, Value)> {
    gmcp_at(bytes).into_iter().map(|(p, v, _)| (p, v)).collect()
}

/// Reads until a GMCP message of `package` arrives whose data passes `pred`; what
/// follows that message stays unread.
async fn until_gmcp(t: &mut Telnet, package: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    let mut seen = Vec::new();
    loop {
        let frames = gmcp_at(&t.buf);
        if let Some((_, v, end)) = frames.iter().find(|(p, v, _)| p == package && pred(v)) {
            let rest = t.buf.split_off(*end);
            seen.extend(std::mem::replace(&mut t.buf, rest));
            return v.clone();
        }
        if let Some((_, _, end)) = frames.last() {
            let rest = t.buf.split_off(*end);
            seen.extend(std::mem::replace(&mut t.buf, rest));
        }
        assert!(tokio::time::Instant::now() < deadline, "no {package} came; saw {:?}", gmcp(&seen));
        assert!(t.read_some(deadline).await > 0, "closed waiting for {package}");
    }
}

/// A command's output without the prompt it ends with (prompts differ between players).
fn body(out: &str) -> &str {
    out.rsplit_once("\n<").map(|(a, _)| a).unwrap_or(out)
}

/// Mudlet, as its source answers each offer: DO MSSP; DO GMCP with Core.Hello and
/// Core.Supports.Set; DO MSDP with LIST COMMANDS; DO MCCP2; DO EOR; WILL NAWS and its
/// size; WILL TTYPE (MUDLET, ANSI-TRUECOLOR, MTTS); DO CHARSET (ACCEPTED UTF-8).
#[tokio::test]
async fn a_mudlet_shaped_client_gets_gmcp_msdp_mssp_and_compression() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    let first = t.until_bytes("known? ").await;
    assert_eq!(&first[..24], &OFFERS, "the offers come first, in this order");
    let mut reply = vec![255, 253, 70, 255, 253, 201];
    reply.extend(b"\xff\xfa\xc9Core.Hello { \"client\": \"Mudlet\", \"version\": \"4.18.5\"}\xff\xf0");
    reply.extend(b"\xff\xfa\xc9Core.Supports.Set [ \"Char 1\", \"Char.Skills 1\", \"Char.Items 1\", \"Room 1\", \"IRE.Rift 1\", \"IRE.Composer 1\", \"External.Discord 1\", \"Client.Media 1\", \"Char.Login 1\"]\xff\xf0");
    reply.extend([255, 253, 69]);
    reply.extend(b"\xff\xfa\x45\x01LIST\x02COMMANDS\xff\xf0");
    reply.extend([255, 253, 86, 255, 253, 25, 255, 251, 31, 255, 250, 31, 0, 100, 0, 40, 255, 240, 255, 251, 24, 255, 253, 42]);
    t.send_bytes(&reply).await;
    // MSSP for the crawler, MSDP's command list, then compression starts.
    let got = t.until_raw(&[255, 250, 86, 255, 240]).await;
    let body = String::from_utf8_lossy(&got).into_owned();
    for var in ["\u{1}NAME\u{2}pawns", "\u{1}PLAYERS\u{2}0", "\u{1}UPTIME\u{2}", "\u{1}GMCP\u{2}1", "\u{1}MCCP\u{2}1", "\u{1}ANSI\u{2}1"] {
        assert!(body.contains(var), "MSSP {var:?} in {body:?}");
    }
    assert!(
        find(&got, b"\xff\xfa\x45\x01COMMANDS\x02\x05\x02LIST\x02REPORT\x02RESET\x02SEND\x02UNREPORT\x06\xff\xf0").is_some(),
        "{body:?}"
    );
    // From here the test reads through zlib: TTYPE's cycle and CHARSET's request.
    t.until_raw(&TTYPE_SEND).await;
    t.until_raw(CHARSET_REQUEST).await;
    t.send_bytes(b"\xff\xfa\x18\x00MUDLET\xff\xf0").await;
    t.until_raw(&TTYPE_SEND).await;
    t.send_bytes(b"\xff\xfa\x2a\x02UTF-8\xff\xf0\xff\xfa\x18\x00ANSI-TRUECOLOR\xff\xf0").await;
    t.until_raw(&TTYPE_SEND).await;
    t.send_bytes(b"\xff\xfa\x18\x00MTTS 2349\xff\xf0").await;
    t.answer_creation("Mudlet", "pass99").await;
    // In the game: the whole picture for the packages it supports.
    let vitals = until_gmcp(&mut t, "Char.Vitals", |_| true).await;
    assert_eq!(vitals["hp"], vitals["maxhp"]);
    let status = until_gmcp(&mut t, "Char.Status", |_| true).await;
    assert_eq!((status["name"].as_str(), status["class"].as_str(), status["level"].as_u64()), (Some("Mudlet"), Some("Warrior"), Some(1)));
    let room = until_gmcp(&mut t, "Room.Info", |_| true).await;
    assert_eq!(room["name"], "The Test Temple");
    assert!(room["exits"]["s"].is_u64() && room["num"].is_u64(), "{room}");
    let inv = until_gmcp(&mut t, "Char.Items.List", |_| true).await;
    assert_eq!(inv["location"], "inv");
    // MSDP too: REPORT sends the value now and on each change.
    t.send_bytes(b"\xff\xfa\x45\x01REPORT\x02HEALTH\x02ROOM_VNUM\xff\xf0").await;
    let got = t.until_raw(b"\x01ROOM_VNUM\x02").await;
    assert!(find(&got, b"\x01HEALTH\x02").is_some());
    // A fight: Char.Vitals arrives on the partner's rounds, no command needed.
    t.line("south").await;
    until_gmcp(&mut t, "Room.Info", |r| r["name"] != "The Test Temple").await;
    t.line("kill partner").await;
    let fighting = until_gmcp(&mut t, "Char.Status", |s| s["fighting"] == true).await;
    assert!(fighting["opponent"].as_str().unwrap().contains("partner"), "{fighting}");
    let full = vitals["maxhp"].as_i64().unwrap();
    let hurt = until_gmcp(&mut t, "Char.Vitals", |v| v["hp"].as_i64() < Some(full)).await;
    // ... and MSDP reports the same change, right after it (the same write).
    let hp = hurt["hp"].as_i64().unwrap();
    assert!(hp < full);
    let frame = [&[255, 250, 69, 1][..], format!("HEALTH\u{2}{hp}").as_bytes(), &[255, 240]].concat();
    let between = t.until_raw(&frame).await;
    assert!(gmcp(&between).iter().all(|(p, _)| p != "Char.Vitals"), "MSDP HEALTH {hp} comes with those vitals");
    // Quitting ends the zlib stream cleanly before the socket closes.
    t.line("flee").await;
    t.line("quit").await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while t.read_some(deadline).await > 0 {}
    assert!(t.stream_ended, "the compressed stream was finished, not cut");
    assert!(String::from_utf8_lossy(&t.buf).contains("Goodbye") || t.stream_ended);
    srv.shutdown().await;
}

/// TinTin++, as its source answers: nothing to MSSP, DONT GMCP, DONT MSDP, DO MCCP2,
/// DO EOR, NAWS, TTYPE (TINTIN++, $TERM, MTTS), DO CHARSET. No GMCP ever reaches it, and
/// every prompt ends with IAC EOR.
#[tokio::test]
async fn a_tintin_shaped_client_gets_compression_and_eor_but_no_gmcp() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    let first = t.until_bytes("known? ").await;
    assert_eq!(&first[..24], &OFFERS);
    t.send_bytes(&[
        255, 254, 201, 255, 254, 69, 255, 253, 86, 255, 253, 25, 255, 251, 31, 255, 250, 31, 0, 80, 0, 24, 255, 240, 255, 251, 24, 255,
        253, 42,
    ])
    .await;
    t.until_raw(&[255, 250, 86, 255, 240]).await;
    t.until_raw(&TTYPE_SEND).await;
    t.until_raw(CHARSET_REQUEST).await;
    for name in ["TINTIN++", "XTERM-256COLOR"] {
        t.send_bytes(&[&[255, 250, 24, 0][..], name.as_bytes(), &[255, 240]].concat()).await;
        t.until_raw(&TTYPE_SEND).await;
    }
    t.send_bytes(b"\xff\xfa\x18\x00MTTS 2831\xff\xf0\xff\xfa\x2a\x02UTF-8\xff\xf0").await;
    t.answer_creation("Tintin", "pass99").await;
    t.until_raw(&[255, 239]).await;
    t.line("look").await;
    let got = t.until_raw(&[255, 239]).await;
    assert!(String::from_utf8_lossy(&got).contains("The Test Temple"));
    assert!(got.ends_with(b"mv > \xff\xef"), "IAC EOR right after the prompt: {got:?}");
    // Everything from here on, read as it comes: the move, the fight's first blow (its
    // vitals change at once), the score.
    t.line("south").await;
    let mut later = t.until_bytes("mv > ").await;
    t.line("kill partner").await;
    later.extend(t.until_bytes("mv > ").await);
    t.line("score").await;
    later.extend(t.until_bytes("level 1").await);
    assert!(find(&later, &[255, 250, 201]).is_none(), "no GMCP for a client that refused it");
    assert!(find(&later, &[255, 250, 69]).is_none(), "no MSDP either");
    srv.shutdown().await;
}

/// MCCP2 output decompresses to the same text a plain client reads, in fewer bytes.
#[tokio::test]
async fn compressed_output_is_the_same_text_in_fewer_bytes() {
    let srv = TestServer::start().await;
    let mut plain = Telnet::connect(srv.addr).await;
    plain.create("Plainy", "pass99").await;
    let mut z = Telnet::connect(srv.addr).await;
    z.until_bytes("known? ").await;
    // DO MCCP2, and DO SGA (so no GA follows its prompts, as none follows plain's).
    z.send_bytes(&[255, 253, 86, 255, 253, 3]).await;
    z.until_raw(&[255, 250, 86, 255, 240]).await;
    z.answer_creation("Zippy", "pass99").await;
    z.until("mv > ").await;
    plain.until("Zippy has entered the game.").await;
    plain.until("mv > ").await;
    let (w0, p0) = (z.wire, plain.wire);
    let a = plain.cmd("commands").await;
    let b = z.cmd("commands").await;
    assert!(a.len() > 500, "{a}");
    assert_eq!(body(&a), body(&b), "the same text through zlib");
    let (zw, pw) = (z.wire - w0, plain.wire - p0);
    assert!(zw * 2 < pw, "compressed {zw} bytes vs plain {pw}");
    srv.shutdown().await;
}

/// A telnet client that agreed to nothing still learns where a prompt ends: IAC GA
/// (it did not suppress go-ahead); one that asked to suppress it gets none. `nc`, which
/// never speaks telnet, gets neither.
#[tokio::test]
async fn ga_ends_prompts_for_telnet_clients_without_eor() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.send_bytes(&[255, 254, 25]).await; // DONT EOR
    t.create("Gaston", "pass99").await;
    t.line("look").await;
    let got = t.until_raw(b"mv > ").await;
    assert!(String::from_utf8_lossy(&got).contains("The Test Temple"));
    assert_eq!(t.until_raw(&[255, 249]).await, [255, 249], "IAC GA right after the prompt");
    t.send_bytes(&[255, 253, 3]).await; // DO SGA
    t.until_raw(&[255, 251, 3]).await;
    t.line("look").await;
    t.until_raw(b"mv > ").await;
    t.line("score").await;
    let got = t.until_raw(b"mv > ").await;
    assert!(find(&got, &[255, 249]).is_none(), "no GA once go-ahead is suppressed: {got:?}");
    let mut nc = Telnet::connect(srv.addr).await;
    nc.create("Netcat", "pass99").await;
    nc.line("look").await;
    let got = nc.until_raw(b"mv > ").await;
    nc.line("score").await;
    let more = nc.until_raw(b"mv > ").await;
    let play = [&got[..], &more[..]].concat();
    assert!(!play.contains(&255), "no telnet bytes in play for nc: {play:?}");
    srv.shutdown().await;
}

/// NAWS: a 40-column window gets the room reflowed to 40 columns, no word lost.
#[tokio::test]
async fn text_is_fitted_to_a_narrow_window() {
    let srv = TestServer::start().await;
    let mut wide = Telnet::connect(srv.addr).await;
    wide.create("Widey", "pass99").await;
    let mut t = Telnet::connect(srv.addr).await;
    t.send_bytes(&[255, 251, 31, 255, 250, 31, 0, 40, 0, 20, 255, 240, 255, 253, 3]).await;
    t.create("Narrow", "pass99").await;
    wide.until("Narrow has entered the game.").await;
    wide.until("mv > ").await;
    let narrow = t.cmd("help death").await;
    let narrow = body(&narrow);
    let full = wide.cmd("help death").await;
    let full = body(&full);
    let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert!(full.lines().any(|l| l.chars().count() > 40), "the room has long lines to fit: {full}");
    for l in narrow.lines() {
        let longest = l.split(' ').map(|w| w.chars().count()).max().unwrap_or(0);
        assert!(l.chars().count() <= 40 || longest > 40, "{l:?}");
    }
    assert_eq!(words(narrow), words(full), "no word lost or reordered");
    srv.shutdown().await;
}

/// Garbage sub-negotiations (GMCP that is not JSON, MSDP out of order, NAWS of the
/// wrong size, CHARSET nonsense, a 5 KiB GMCP message) are ignored; play goes on.
#[tokio::test]
async fn garbage_sub_negotiations_are_ignored() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.until_bytes("known? ").await;
    t.send_bytes(&[255, 253, 201, 255, 253, 69]).await;
    let mut junk = Vec::new();
    for body in [&b"Core.Supports.Set [not json"[..], b"", b"..", b"Core.Hello {\"client\": 5}", b"\x00\x01\x02"] {
        junk.extend([255, 250, 201]);
        junk.extend(body);
        junk.extend([255, 240]);
    }
    junk.extend(b"\xff\xfa\x45\x02\x02\x05\x05\x05\xff\xf0\xff\xfa\x45\x01REPORT\x02\x03\x01\xff\xf0");
    junk.extend(b"\xff\xfa\x1f\x01\x02\x03\xff\xf0\xff\xfa\x2a\x09\xff\xf0\xff\xfa\x2a\x01\xff\xf0");
    junk.extend([255, 250, 201]);
    junk.extend(vec![b'x'; 5000]);
    junk.extend([255, 240]);
    t.send_bytes(&junk).await;
    t.send_bytes(b"\xff\xfa\xc9Core.Supports.Set [\"Char 1\"]\xff\xf0").await;
    t.answer_creation("Junky", "pass99").await;
    let vitals = until_gmcp(&mut t, "Char.Vitals", |_| true).await;
    assert!(vitals["hp"].as_i64().unwrap() > 0);
    // Read past everything entering the world sent (its prompt may come after the
    // vitals): a line only this `say` answers, then its own prompt. `look` used to be
    // sent straight away and its answer taken at the entry's prompt, a flake.
    t.line("say after the junk").await;
    t.until("after the junk").await;
    t.until("mv > ").await;
    assert!(t.cmd("look").await.contains("The Test Temple"));
    srv.shutdown().await;
}

/// Colour the CircleMUD way (issue 52): a client whose MTTS says ANSI gets the room's
/// title in colour; plain `nc` gets none; `color off` and `color complete` change it and
/// are kept with the character (MSSP says ANSI 1: the Mudlet test reads it).
#[tokio::test]
async fn colour_follows_the_client_and_the_players_choice() {
    let srv = TestServer::start().await;
    // A MUD client: WILL TTYPE, then its name and MTTS 2831 (ANSI among the bits).
    let mut t = Telnet::connect(srv.addr).await;
    t.until_bytes("known? ").await;
    t.send_bytes(&[255, 251, 24]).await;
    t.until_raw(&TTYPE_SEND).await;
    for name in ["TINTIN++", "XTERM-256COLOR"] {
        t.send_bytes(&[&[255, 250, 24, 0][..], name.as_bytes(), &[255, 240]].concat()).await;
        t.until_raw(&TTYPE_SEND).await;
    }
    t.send_bytes(b"\xff\xfa\x18\x00MTTS 2831\xff\xf0").await;
    t.answer_creation("Painter", "pass99").await;
    t.until("mv > ").await;
    let look = t.cmd("look").await;
    assert!(look.contains("\x1b[0;36mThe Test Temple\x1b[0m"), "{look:?}");
    let off = t.cmd("color off").await;
    assert!(off.contains("Your color is now off."), "{off:?}");
    let look = t.cmd("look").await;
    assert!(look.contains("The Test Temple") && !look.contains('\x1b'), "{look:?}");
    t.cmd("color complete").await;
    assert!(t.cmd("look").await.contains("\x1b[0;36m"));
    // Plain `nc`: no telnet at all, no colour.
    let mut plain = Telnet::connect(srv.addr).await;
    plain.create("Plainer", "pass99").await;
    let look = plain.cmd("look").await;
    assert!(look.contains("The Test Temple") && !look.contains('\x1b'), "{look:?}");
    // An agent reads the words only: no mark, no escape.
    let mut agent = WsClient::newcomer(srv.addr, "Reader").await;
    agent.cmd("look", "l1").await;
    let seen = agent.reply_text("l1").await;
    assert!(seen.contains("The Test Temple") && !seen.contains('\u{e}') && !seen.contains('\x1b'), "{seen:?}");
    // The choice is the character's: a new session of Painter, plain, has complete.
    t.line("quit").await;
    let mut again = Telnet::connect(srv.addr).await;
    again.login("Painter", "pass99").await;
    assert!(again.cmd("look").await.contains("\x1b[0;36m"), "kept with the character");
    srv.shutdown().await;
}

/// A player cannot forge colour: the mark byte (and an ANSI escape) typed into `say`
/// reach no one, coloured or not.
#[tokio::test]
async fn typed_marks_and_escapes_do_not_colour_anyone() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.until_bytes("known? ").await;
    t.send_bytes(&[255, 251, 24]).await;
    t.until_raw(&TTYPE_SEND).await;
    t.send_bytes(b"\xff\xfa\x18\x00MUDLET\xff\xf0").await;
    t.until_raw(&TTYPE_SEND).await;
    t.send_bytes(b"\xff\xfa\x18\x00MTTS 2831\xff\xf0").await;
    t.answer_creation("Forger", "pass99").await;
    t.until("mv > ").await;
    t.send_bytes(b"say a\x0e1Rred\x1b[31mesc\r\n").await;
    let said = t.until("mv > ").await;
    assert!(said.contains("You say, 'a1Rred[31mesc'"), "{said:?}");
    assert!(!said.contains("\x1b[1;31m") && !said.contains("\x1b[31m") && !said.contains('\u{e}'), "{said:?}");
    srv.shutdown().await;
}

/// A JSON client that shows the game to a person (`display`, the web client's login):
/// the room on entering, its colours as `runs`, lines wrapped to its width (and to a
/// new width when it says so), its opponent's health; an agent beside it gets none of
/// that (issue 52).
#[tokio::test]
async fn a_screen_over_json_gets_the_room_its_width_and_colours_as_data() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Viewer", "pass99").await;
    t.line("quit").await;
    let mut p = WsClient::connect(srv.addr).await;
    p.send(json!({"type": "login", "data": {"player_name": "Viewer", "password": "pass99", "display": {"cols": 30}}})).await;
    p.expect("state").await;
    let room = p.until(|v| v["type"] == "event" && v["data"]["text"].as_str().is_some_and(|t| t.starts_with("The Test Temple"))).await;
    assert_eq!(room["data"]["runs"][0], json!(["The Test Temple", "cyan"]), "{room}");
    let joined: String = room["data"]["runs"].as_array().unwrap().iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(joined, room["data"]["text"].as_str().unwrap());
    p.cmd("say one two three four five six seven eight nine ten eleven twelve", "w").await;
    let said = p.reply_text("w").await;
    assert!(said.lines().count() > 1 && said.lines().all(|l| l.chars().count() <= 30), "{said}");
    // A wider window: the next line comes whole.
    p.send(json!({"type": "display", "data": {"cols": 200}})).await;
    p.cmd("say one two three four five six seven eight nine ten eleven twelve", "w2").await;
    assert_eq!(p.reply_text("w2").await.lines().count(), 1);
    // Bad widths are refused with the protocol's code.
    p.send(json!({"type": "display", "data": {"cols": 5000}, "id": "bad"})).await;
    assert_eq!(p.error_code().await, "bad_request");
    // The opponent's health, for the page's bar (with the variables it subscribed to).
    p.send(json!({"type": "subscribe", "data": {"variables": ["HEALTH"]}})).await;
    p.cmd("south", "s").await;
    p.until(|v| v["re"] == "s" && v["type"] == "state").await;
    p.cmd("kill partner", "k").await;
    let info = p.until(|v| v["type"] == "vars" && v["data"]["CHAR_INFO"]["opponent"] == "a sparring partner").await;
    assert!(info["data"]["CHAR_INFO"]["opponent_health"].as_i64().is_some_and(|h| (0..=100).contains(&h)), "{info}");

    // An agent: the words only, no room text at entry, no extras.
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    a.cmd("look", "l").await;
    a.reply_text("l").await;
    assert!(a
        .seen
        .iter()
        .all(|v| v["data"].get("runs").is_none() && v["data"].get("CHAR_INFO").is_none() && v["data"].get("ROOM_INFO").is_none()));
    let texts: Vec<&str> = a.seen.iter().filter_map(|v| v["data"]["text"].as_str()).collect();
    assert_eq!(texts.iter().filter(|t| t.starts_with("The Test Temple")).count(), 1, "only the look shows the room: {texts:?}");
    srv.shutdown().await;
}

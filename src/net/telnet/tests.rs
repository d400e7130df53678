use super::*;
use proptest::prelude::*;

fn lines(input: &[u8]) -> (Vec<Vec<u8>>, Vec<(u8, u8)>) {
    let mut p = TelnetParser::default();
    let mut out = Vec::new();
    p.feed(input, &mut out);
    let mut l = Vec::new();
    let mut n = Vec::new();
    for e in out {
        match e {
            TelnetEvent::Line { bytes, .. } => l.push(bytes),
            TelnetEvent::Negotiate { verb, opt } => n.push((verb, opt)),
            TelnetEvent::Sub { .. } => {}
        }
    }
    (l, n)
}

#[test]
fn iac_sequences_never_reach_the_text() {
    let (l, n) = lines(&[b'h', IAC, DO, 24, b'i', IAC, SB, 24, 1, 2, IAC, SE, b'\r', b'\n']);
    assert_eq!(l, vec![b"hi".to_vec()]);
    assert_eq!(n, vec![(DO, 24)]);
}

#[test]
fn sub_negotiations_come_out_whole_and_unescaped() {
    let mut p = TelnetParser::default();
    let mut out = Vec::new();
    // NAWS 255x40 (the 255 doubled), split across two reads, then TTYPE IS MUDLET.
    p.feed(&[IAC, SB, 31, 0, IAC], &mut out);
    p.feed(&[IAC, 0, 40, IAC, SE, IAC, SB, 24, 0], &mut out);
    p.feed(b"MUDLET", &mut out);
    p.feed(&[IAC, SE, b'o', b'k', b'\n'], &mut out);
    assert_eq!(out[0], TelnetEvent::Sub { opt: 31, data: vec![0, 255, 0, 40] });
    assert_eq!(out[1], TelnetEvent::Sub { opt: 24, data: b"\0MUDLET".to_vec() });
    assert_eq!(out[2], TelnetEvent::Line { bytes: b"ok".to_vec(), truncated: false });
    // One past the bound is dropped whole, and the text after it still reads.
    let mut out = Vec::new();
    let mut big = vec![IAC, SB, 24];
    big.extend(vec![b'x'; MAX_SB + 10]);
    big.extend([IAC, SE, b'h', b'i', b'\n']);
    p.feed(&big, &mut out);
    assert!(!out.iter().any(|e| matches!(e, TelnetEvent::Sub { .. })), "{out:?}");
    assert!(out.iter().any(|e| matches!(e, TelnetEvent::Line { bytes, .. } if bytes == b"hi")), "{out:?}");
}

#[test]
fn line_endings_cr_lf_crnul_and_backspace() {
    let (l, _) = lines(b"one\r\ntwo\r\0three\nfour\x08r\r\n");
    assert_eq!(l, vec![b"one".to_vec(), b"two".to_vec(), b"three".to_vec(), b"four".to_vec()]);
}

/// A line over the limit of multi-byte text is cut at a character's boundary, not
/// inside one (it was then refused whole as invalid UTF-8).
#[test]
fn a_long_line_of_multibyte_text_is_cut_between_characters() {
    let mut p = TelnetParser::default();
    let mut out = Vec::new();
    // 'é' is two bytes and '€' three: neither 512 / 2 ... lines up for both.
    let text = format!("x{}", "é€".repeat(200));
    p.feed(text.as_bytes(), &mut out);
    p.feed(b"\n", &mut out);
    match &out[0] {
        TelnetEvent::Line { bytes, truncated } => {
            assert!(truncated);
            let line = std::str::from_utf8(bytes).expect("the cut line is still UTF-8");
            assert!(text.starts_with(line));
            assert!(line.len() > MAX_LINE - 4 && line.len() <= MAX_LINE, "cut at {}", line.len());
        }
        _ => panic!(),
    }
}

#[test]
fn escaped_iac_is_data_and_long_lines_are_cut() {
    let (l, _) = lines(&[b'a', IAC, IAC, b'\n']);
    assert_eq!(l, vec![vec![b'a', IAC]]);
    let mut p = TelnetParser::default();
    let mut out = Vec::new();
    p.feed(&vec![b'x'; MAX_LINE + 100], &mut out);
    p.feed(b"\n", &mut out);
    match &out[0] {
        TelnetEvent::Line { bytes, truncated } => {
            assert_eq!(bytes.len(), MAX_LINE);
            assert!(truncated);
        }
        _ => panic!(),
    }
}

#[test]
fn unknown_options_are_refused_once() {
    let mut o = Options::default();
    assert_eq!(o.reply(DO, 24), Some([IAC, WONT, 24]));
    assert_eq!(o.reply(DO, 24), None);
    assert_eq!(o.reply(WILL, 31), Some([IAC, DONT, 31]));
    assert_eq!(o.reply(DO, OPT_SGA), Some([IAC, WILL, OPT_SGA]));
    assert_eq!(o.reply(WONT, 5), None);
    o.echo_off_requested = true;
    assert_eq!(o.reply(DO, OPT_ECHO), None);
}

#[test]
fn outgoing_text_doubles_iac_and_uses_crlf() {
    assert_eq!(encode_text("a\nb"), b"a\r\nb".to_vec());
}

proptest! {
    /// Any byte stream: no panic, no line longer than the limit, no IAC command bytes
    /// left in a line unless they were escaped.
    #[test]
    fn parser_survives_any_bytes(chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..16)) {
        let mut p = TelnetParser::default();
        let mut out = Vec::new();
        for c in &chunks {
            p.feed(c, &mut out);
        }
        for e in out {
            if let TelnetEvent::Line { bytes, .. } = e {
                prop_assert!(bytes.len() <= MAX_LINE);
                prop_assert!(!bytes.iter().any(|b| *b < 32));
            }
        }
    }
}

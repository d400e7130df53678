use super::*;
use proptest::prelude::*;

fn code(text: &str) -> &'static str {
    parse_client(text).err().map(|(e, _)| e.code).unwrap_or("ok")
}

#[test]
fn both_login_dialects_parse() {
    let a = parse_client(r#"{"type":"login","data":{"player_name":"brenda","password":"dp_x","is_agent":true}}"#).unwrap();
    let ClientMsg::Login(l) = a.msg else { panic!() };
    assert!(l.wants_agent());
    assert_eq!(l.secret(), Some("dp_x"));
    let b = parse_client(r#"{"type":"login","data":{"api_key":"dp_y","mode":"agent"},"id":"l1"}"#).unwrap();
    let ClientMsg::Login(l) = b.msg else { panic!() };
    assert!(l.wants_agent());
    assert_eq!(l.secret(), Some("dp_y"));
    assert_eq!(b.id.as_deref(), Some("l1"));
}

#[test]
fn command_forms_are_the_same_command() {
    let a = parse_client(r#"{"type":"command","data":{"command":"hit","args":["2.goblin"]}}"#).unwrap();
    let b = parse_client(r#"{"type":"command","data":{"command":"hit 2.goblin"}}"#).unwrap();
    assert_eq!(a.msg, b.msg);
}

/// A command's `reason` (protocol §5): kept trimmed, empty is none, over 500
/// characters is refused with `bad_request` (counted in characters, not bytes).
#[test]
fn a_reason_goes_with_its_command() {
    let c = |text: &str| match parse_client(text).unwrap().msg {
        ClientMsg::Command(c) => c,
        _ => panic!("not a command"),
    };
    let r = c(r#"{"type":"command","data":{"command":"flee","reason":"  hp is low "}}"#);
    assert_eq!(r.client.and_then(|c| c.reason).as_deref(), Some("hp is low"));
    assert!(c(r#"{"type":"command","data":{"command":"flee","reason":"   "}}"#).client.is_none());
    let long = "é".repeat(500);
    assert_eq!(code(&format!(r#"{{"type":"command","data":{{"command":"flee","reason":"{long}"}}}}"#)), "ok");
    assert_eq!(code(&format!(r#"{{"type":"command","data":{{"command":"flee","reason":"{long}x"}}}}"#)), "bad_request");
    assert_eq!(code(r#"{"type":"command","data":{"command":"flee","reason":7}}"#), "bad_request");
}

/// The model calls behind a command (`llm`, extension): our fields or OpenAI's
/// `messages`; at most `MAX_LLM_CALLS`; a bad latency reads as 0, not a refusal.
#[test]
fn a_command_carries_its_model_calls() {
    let c = |text: &str| match parse_client(text).unwrap().msg {
        ClientMsg::Command(c) => c,
        _ => panic!("not a command"),
    };
    let one = c(
        r#"{"type":"command","data":{"command":"look","llm":[{"model":"m","messages":[{"role":"system","content":"rules"},{"role":"user","content":"a room"}],"answer":"look","latency_ms":-4}]}}"#,
    );
    let calls = one.client.unwrap().llm;
    assert_eq!(
        (calls[0].system.as_str(), calls[0].user.as_str(), calls[0].form.as_str(), calls[0].latency_ms),
        ("rules", "a room", "text", 0.0)
    );
    let many = format!(r#"{{"type":"command","data":{{"command":"look","llm":[{}]}}}}"#, [r#"{"model":"m"}"#; MAX_LLM_CALLS + 1].join(","));
    assert_eq!(code(&many), "bad_request");
    assert_eq!(code(r#"{"type":"command","data":{"command":"look","llm":[{"model":7}]}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"command","data":{"command":"look","llm":{"model":"m"}}}"#), "bad_request");
}

/// An `actions` message may say how it was chosen (`reason`, `llm`), as a command
/// does: checked the same way and handed on in the engine's form; other keys are refused.
#[test]
fn an_actions_message_carries_its_model_calls_and_reason() {
    let batch = |text: &str| match parse_client(text).unwrap().msg {
        ClientMsg::Actions(b) => b,
        _ => panic!("not actions"),
    };
    let b = batch(
        r#"{"type":"actions","data":{"actions":[{"type":"remember","text":"x"}],"reason":" keep it ","llm":[{"model":"m","messages":[{"role":"user","content":"hud"}],"answer":"{}","tokens_prompt":9}]}}"#,
    );
    assert_eq!(b["reason"], "keep it");
    let calls: Vec<pawns_storage::LlmCall> = serde_json::from_value(b["llm"].clone()).unwrap();
    assert_eq!((calls[0].user.as_str(), calls[0].tokens_prompt, calls[0].form.as_str()), ("hud", Some(9), "text"));
    assert!(batch(r#"{"type":"actions","data":{"actions":[],"reason":"  "}}"#).get("reason").is_none());
    let many = format!(r#"{{"type":"actions","data":{{"actions":[],"llm":[{}]}}}}"#, [r#"{"model":"m"}"#; MAX_LLM_CALLS + 1].join(","));
    assert_eq!(code(&many), "bad_request");
    assert_eq!(code(&format!(r#"{{"type":"actions","data":{{"actions":[],"reason":"{}"}}}}"#, "r".repeat(501))), "bad_request");
    assert_eq!(code(r#"{"type":"actions","data":{"actions":[],"llm":"m"}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"actions","data":{"actions":[],"reason":3}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"actions","data":{"actions":[],"mood":"x"}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"actions","data":{"llm":null,"responses":null}}"#), "ok");
}

/// `display` (extension): at login or alone; a width past 1,000 or not a number is
/// `bad_request`, and so is a login carrying one.
#[test]
fn a_display_says_the_width() {
    let d = parse_client(r#"{"type":"display","data":{"cols":52}}"#).unwrap();
    assert_eq!(d.msg, ClientMsg::Display(DisplayData { cols: Some(52) }));
    assert_eq!(code(r#"{"type":"display","data":{}}"#), "ok");
    assert_eq!(code(r#"{"type":"display","data":{"cols":1001}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"display","data":{"cols":-3}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"display","data":{"cols":"wide"}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"login","data":{"player_name":"a","password":"b","display":{"cols":99999}}}"#), "bad_request");
    let ClientMsg::Login(l) =
        parse_client(r#"{"type":"login","data":{"player_name":"a","password":"b","display":{"cols":80}}}"#).unwrap().msg
    else {
        panic!("a login")
    };
    assert_eq!(l.display, Some(DisplayData { cols: Some(80) }));
}

#[test]
fn errors_have_stable_codes() {
    assert_eq!(code("{nope"), "bad_request");
    assert_eq!(code("[1,2]"), "bad_request");
    assert_eq!(code(r#"{"data":{}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"dance"}"#), "unknown_type");
    assert_eq!(code(r#"{"type":"command","data":{"command":5}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"command","data":{"command":"look","args":[{}]}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"login","data":{"class":"warrior"}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"subscribe","data":{"variables":"HEALTH"}}"#), "bad_request");
    assert_eq!(code(r#"{"type":"command","data":{"command":"look\nquit"}}"#), "bad_request");
    // The id survives an error so it can be echoed in `re`.
    let (_, id) = parse_client(r#"{"type":"dance","id":"x9"}"#).unwrap_err();
    assert_eq!(id.as_deref(), Some("x9"));
}

#[test]
fn unknown_fields_are_ignored() {
    assert_eq!(code(r#"{"type":"command","data":{"command":"look","tokens_prompt":12},"extra":true}"#), "ok");
}

#[test]
fn rendered_frames_carry_seq_and_re() {
    let re: Arc<str> = "c-1".into();
    let f = render(7, &Out::Event { kind: crate::game::EventKind::Text, text: "hi".into(), from: None, re: Some(re) }, "t").unwrap();
    let v: Value = serde_json::from_str(&f).unwrap();
    assert_eq!(v["seq"], 7);
    assert_eq!(v["re"], "c-1");
    assert_eq!(v["data"]["type"], "text");
    let e: Value = serde_json::from_str(&error_frame(3, "rate_limited", "slow", Some(80), None)).unwrap();
    assert_eq!(e["data"]["retry_after_ms"], 80);
    assert!(e.get("re").is_none());
}

proptest! {
    /// The hand-built event frame is exactly what a JSON library would produce.
    #[test]
    fn event_frames_match_serde(text in "\\PC{0,80}|[\\x00-\\x1f\"\\\\ a-z]{0,40}", from in proptest::option::of("[a-zA-Z\"\\\\ ]{0,10}"), re in proptest::option::of("[ -~]{0,10}"), seq in any::<u64>()) {
        let f = event_frame(seq, crate::game::EventKind::Say, &text, from.as_deref(), re.as_deref());
        // Sized before it was written (it is kept in a replay ring): never grown, never
        // more than the seq's unused digits over.
        prop_assert!(f.capacity() >= f.len() && f.capacity() - f.len() <= 20, "len {} capacity {}", f.len(), f.capacity());
        let mut lit = String::new();
        push_json_str(&mut lit, &text);
        prop_assert_eq!(json_str_len(&text), lit.len());
        let v: Value = serde_json::from_str(&f).unwrap();
        let mut want = json!({"type": "event", "seq": seq, "data": {"type": "say", "text": text}});
        if let Some(fr) = &from { want["data"]["from"] = json!(fr); }
        if let Some(r) = &re { want["re"] = json!(r); }
        prop_assert_eq!(v, want);
    }

    /// A broadcast's frame made from its shared tail is the frame made whole, byte for
    /// byte, and its length is known without making it.
    #[test]
    fn frames_from_a_tail_are_the_whole_frames(text in "\\PC{0,40}|[\\x00-\\x1f\"\\\\]{0,8}", from in proptest::option::of("[a-zA-Z\"\\\\ ]{0,10}"), seq in any::<u64>()) {
        let tail = event_tail(crate::game::EventKind::Combat, &text, from.as_deref());
        prop_assert_eq!(tail.capacity(), tail.len(), "a tail is sized exactly");
        let whole = event_frame(seq, crate::game::EventKind::Combat, &text, from.as_deref(), None);
        prop_assert_eq!(event_frame_from_tail(seq, &tail), whole.clone());
        prop_assert_eq!(event_frame_len(seq, &tail), whole.len());
    }

    /// A `vars` frame is byte for byte the envelope of a JSON map of its values (the
    /// way it was made before): keys in the map's order, a repeated name's last value.
    #[test]
    fn vars_frames_are_the_envelope_of_a_map(
        picks in proptest::collection::vec((0usize..crate::game::send::vars::VAR_NAMES.len(), 0u8..5, "[ -~]{0,12}"), 0..12),
        resumed in proptest::option::of(any::<bool>()),
        re in proptest::option::of("[ -~]{0,10}"),
        seq in any::<u64>(),
    ) {
        let value = |kind: u8, s: &str| match kind {
            0 => json!(s),
            1 => json!(s.len() as i64 - 5),
            2 => json!([s, {"name": s, "target_string": s}]),
            3 => Value::Null,
            _ => json!({"n": s.len(), "on": s.is_empty()}),
        };
        let values: Vec<(&'static str, Value)> = picks.iter().map(|(i, k, s)| (crate::game::send::vars::VAR_NAMES[*i], value(*k, s))).collect();
        let mut m = Map::new();
        for (k, v) in &values {
            m.insert((*k).to_string(), v.clone());
        }
        if let Some(r) = resumed {
            m.insert("resumed".into(), json!(r));
        }
        let re: Option<Arc<str>> = re.map(Into::into);
        let want = envelope("vars", seq, Value::Object(m), re.as_ref());
        prop_assert_eq!(vars_frame(seq, &values, resumed, re.as_deref()), want);
    }

    /// No input frame panics the parser, and every rejection has a known code.
    #[test]
    fn parser_never_panics(s in ".{0,300}") {
        if let Err((e, _)) = parse_client(&s) {
            prop_assert!(["bad_request", "unknown_type"].contains(&e.code));
        }
    }

    #[test]
    fn structured_garbage_never_panics(ty in "(login|command|subscribe|unsubscribe|char_input|hud|x)", data in "[{}\\[\\]\":,a-z0-9 ]{0,80}") {
        let _ = parse_client(&format!(r#"{{"type":"{ty}","data":{data}}}"#));
    }
}

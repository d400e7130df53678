use crate::common::*;

#[tokio::test]
async fn create_walk_fight_and_quit_over_telnet() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Alice", "wonder1").await;
    let look = t.cmd("look").await;
    assert!(look.contains("The Test Temple") && look.contains("[ Exits: north east south west ]"), "{look}");
    let yard = t.cmd("e").await;
    assert!(yard.contains("The Training Yard") && yard.contains("A straw dummy stands here."), "{yard}");
    assert!(t.cmd("get sword").await.contains("You get a test sword."));
    assert!(t.cmd("wield sword").await.contains("You wield a test sword."));
    let eq = t.cmd("equipment").await;
    assert!(eq.contains("<wielded>") && eq.contains("a test sword"), "{eq}");
    let score = t.cmd("score").await;
    assert!(score.contains("level 1 Human Warrior"), "{score}");
    t.line("quit").await;
    let bye = t.until("Come back soon!").await;
    // One farewell: "Goodbye, friend.. Come back soon!" was followed by "Goodbye.".
    // Everything up to the close:
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    while t.read_some(deadline).await > 0 {}
    let rest = String::from_utf8_lossy(&t.buf).into_owned();
    assert_eq!(format!("{bye}{rest}").matches("Goodbye").count(), 1, "{bye}{rest}");
    srv.shutdown().await;
}

#[tokio::test]
async fn passwords_are_not_echoed_and_wrong_ones_refused() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.create("Bert", "secret9").await;
    t.line("quit").await;
    t.until("Goodbye").await;
    let mut t = Telnet::connect(srv.addr).await;
    t.until("known? ").await;
    t.line("bert").await;
    let before = t.until_bytes("Password: ").await;
    assert!(before.windows(3).any(|w| w == [255, 251, 1]), "IAC WILL ECHO before the password prompt");
    t.line("nope").await;
    // Words, not the protocol's code (`auth_failed` is for JSON clients).
    let said = t.until("Password: ").await;
    assert!(said.contains("Wrong password.") && !said.contains("auth_failed"), "{said}");
    t.line("secret9").await;
    let after = t.until_bytes("mv > ").await;
    assert!(after.windows(3).any(|w| w == [255, 252, 1]), "echo back on after login");
    srv.shutdown().await;
}

#[tokio::test]
async fn telnet_negotiation_and_bad_bytes_never_show_as_text() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    // The client asks for terminal type and offers NAWS; the server refuses both.
    t.send_bytes(&[255, 253, 24, 255, 251, 31]).await;
    t.create("Cleo", "pass99").await;
    let seen = String::from_utf8_lossy(&t.buf).into_owned();
    let _ = seen;
    // IAC NOP inside a line is dropped; the rest is the command.
    t.send_bytes(b"lo\xff\xf1ok\r\n").await;
    let out = t.until("mv > ").await;
    assert!(out.contains("The Test Temple"), "{out}");
    // Invalid UTF-8: said in words (no code), and the session goes on.
    t.send_bytes(b"say \xc3\x28 hi\r\n").await;
    let out = t.until("ignored").await;
    assert!(out.contains("not valid UTF-8") && !out.contains("bad_input"), "{out}");
    // The prompt follows it, as after any command.
    t.until("mv > ").await;
    assert!(t.cmd("score").await.contains("Cleo"));
    srv.shutdown().await;
}

#[tokio::test]
async fn unknown_telnet_options_are_answered_with_refusals() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.send_bytes(&[255, 253, 24]).await;
    let mut got = Vec::new();
    for _ in 0..2 {
        got.extend(t.until_bytes("known? ").await);
        if find(&got, &[255, 252, 24]).is_some() {
            break;
        }
        t.line("").await;
    }
    assert!(find(&got, &[255, 252, 24]).is_some(), "expected IAC WONT TTYPE");
    srv.shutdown().await;
}

#[tokio::test]
async fn invalid_names_are_refused_with_a_reason() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.until("known? ").await;
    t.line("r2d2").await;
    let out = t.until("known? ").await;
    assert!(out.contains("invalid_name"), "{out}");
    srv.shutdown().await;
}

/// A client that refuses every offer (or, like `nc`, ignores them) plays as before:
/// no EOR after prompts, no sub-negotiation, nothing answered twice.
#[tokio::test]
async fn a_client_refusing_every_option_plays_as_before() {
    let srv = TestServer::start().await;
    let mut t = Telnet::connect(srv.addr).await;
    t.send_bytes(&[255, 254, 70, 255, 254, 201, 255, 254, 69, 255, 254, 86, 255, 254, 25, 255, 252, 31, 255, 252, 24, 255, 254, 42]).await;
    t.send_bytes(&[255, 253, 24, 255, 253, 24]).await;
    t.create("Refuser", "pass99").await;
    let out = t.cmd("look").await;
    assert!(out.contains("The Test Temple"));
    t.line("score").await;
    let got = t.until_bytes("mv > ").await;
    // A telnet client that refused EOR (and did not suppress go-ahead) learns a prompt's
    // end by IAC GA, which telnet clients never show; nothing else is telnet in play.
    let mut rest = Vec::new();
    let mut i = 0;
    while i < got.len() {
        if got[i..].starts_with(&[255, 249]) {
            i += 2;
            continue;
        }
        rest.push(got[i]);
        i += 1;
    }
    assert!(!rest.contains(&255), "no telnet bytes in play but GA: {got:?}");
    let all = [t.buf.clone()].concat();
    assert!(find(&all, &[255, 250]).is_none());
    srv.shutdown().await;
}

/// The prompt after a typed command comes with its reply, not at the end of the pulse:
/// MUD clients take the prompt (and its GA/EOR) as the end of the reply. Pulses are 3 s
/// here, so a prompt that waited for the pulse would come seconds after the reply.
#[tokio::test]
async fn the_prompt_comes_with_the_reply_not_at_the_pulse_end() {
    let srv = TestServer::start_with(|c| c.engine.pulse = std::time::Duration::from_secs(3)).await;
    let mut t = Telnet::connect(srv.addr).await;
    // The first prompt in the game ends a pulse: the next is about 3 s away.
    t.create("Ophelia", "rosemary-and-rue").await;
    t.line("score").await;
    let got = tokio::time::timeout(std::time::Duration::from_millis(1500), t.until("mv > ")).await;
    assert!(got.is_ok_and(|text| text.contains("You are")), "no prompt with the reply");
    srv.shutdown().await;
}

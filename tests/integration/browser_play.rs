//! The play page under real hands, in a real headless Chromium (issue 52): a reload
//! resumes the same session, a server restart is reconnected to without losing what
//! was typed meanwhile, a phone shows the text first and the server wraps it once, and
//! the server's colours arrive as data the page styles.

use serde_json::{json, Value};

use crate::browser::{browser, click, command, screenshot, typed, until_js};
use crate::common::*;

/// Logs `name` in through the page (the character made over telnet first) and waits
/// for the room the server shows on entering.
async fn log_in(c: &fantoccini::Client, base: &str, name: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    typed(c, "#name", name).await;
    typed(c, "#password", "pass99").await;
    click(c, "#enter").await;
    until_js(c, "the first room, shown by the server", "return document.getElementById('output').textContent.includes('The Test Temple')")
        .await;
    until_js(c, "playing", &format!("return document.getElementById('status').textContent === 'playing as {name}'")).await;
}

async fn make_character(srv: &TestServer, name: &str) {
    let mut t = Telnet::connect(srv.addr).await;
    t.create(name, "pass99").await;
    t.line("quit").await;
}

async fn kept_seq(c: &fantoccini::Client) -> u64 {
    let v: Value = c.execute("return JSON.parse(sessionStorage.getItem('pawns-session') || '{}').seq || 0", vec![]).await.unwrap();
    v.as_u64().unwrap_or(0)
}

#[tokio::test]
async fn a_reload_resumes_the_same_session_and_seq() {
    let srv = TestServer::start().await;
    make_character(&srv, "Reloader").await;
    let key = srv.key("brenda").await;
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &key).await;
    let profile = tempfile::tempdir().unwrap();
    let Some((_driver, c)) = browser(profile.path()).await else { return };
    let base = format!("http://{}", srv.addr);
    log_in(&c, &base, "Reloader").await;
    a.hear("Reloader has entered the game.").await;
    // The server's colours are data the page styles: the room's title is cyan.
    until_js(
        &c,
        "a coloured title",
        "return [...document.querySelectorAll('#output span.c-cyan')].some(s => s.textContent === 'The Test Temple')",
    )
    .await;
    command(&c, "say before the reload").await;
    until_js(&c, "the answer", "return document.getElementById('output').textContent.includes(\"You say, 'before the reload'\")").await;
    until_js(&c, "the seq kept", "return (JSON.parse(sessionStorage.getItem('pawns-session') || '{}').seq || 0) > 3").await;
    let before = kept_seq(&c).await;

    c.refresh().await.unwrap();
    // The same screen, and the same session: no login form, the character came back.
    until_js(&c, "playing again", "return document.getElementById('status').textContent === 'playing as Reloader'").await;
    let form_hidden: Value = c.execute("return document.getElementById('login').classList.contains('hidden')", vec![]).await.unwrap();
    assert_eq!(form_hidden, json!(true));
    until_js(&c, "the screen kept", "return document.getElementById('output').textContent.includes(\"You say, 'before the reload'\")")
        .await;
    until_js(&c, "the gauges rebuilt", "return document.getElementById('hp-text').textContent.startsWith('hp ')").await;
    command(&c, "say after the reload").await;
    until_js(&c, "the answer after", "return document.getElementById('output').textContent.includes(\"You say, 'after the reload'\")")
        .await;
    let heard = a.hear("after the reload").await;
    assert!(heard.contains("Reloader says"), "{heard}");
    // The link went on: the frames since are numbered after those before the reload
    // (a new session would start again at 1), and nobody saw a second entry.
    until_js(
        &c,
        "the seq moved on",
        &format!("return (JSON.parse(sessionStorage.getItem('pawns-session') || '{{}}').seq || 0) > {before}"),
    )
    .await;
    let entries = a.seen.iter().filter(|v| v["data"]["text"].as_str().is_some_and(|t| t.contains("Reloader has entered the game"))).count();
    assert_eq!(entries, 1, "a resume, not a new login");
    assert!(a.seen.iter().any(|v| v["data"]["text"] == "Reloader has reconnected."), "the link came back");
    c.close().await.unwrap();
    srv.shutdown().await;
}

#[tokio::test]
async fn a_server_restart_is_reconnected_and_a_command_typed_meanwhile_is_answered() {
    let mut srv = TestServer::start().await;
    make_character(&srv, "Stayer").await;
    let profile = tempfile::tempdir().unwrap();
    let Some((_driver, c)) = browser(profile.path()).await else { return };
    let base = format!("http://{}", srv.addr);
    log_in(&c, &base, "Stayer").await;
    let port = srv.addr.port();
    srv.stop().await;
    until_js(&c, "the page knows", "return document.getElementById('status').textContent.includes('reconnecting')").await;
    // Typed while the server is away: kept, not dropped.
    command(&c, "say still here").await;
    until_js(&c, "the line kept", "return document.getElementById('output').textContent.includes('[kept: \"say still here\"')").await;
    srv.start_again().await;
    assert_eq!(srv.addr.port(), port, "the server came back where it was");
    until_js(&c, "the kept line answered", "return document.getElementById('output').textContent.includes(\"You say, 'still here'\")")
        .await;
    until_js(&c, "playing again", "return document.getElementById('status').textContent === 'playing as Stayer'").await;
    screenshot(&c, "play-reconnected.png").await;
    c.close().await.unwrap();
    srv.shutdown().await;
}

#[tokio::test]
async fn on_a_phone_the_text_comes_first_and_is_wrapped_once_by_the_server() {
    let srv = TestServer::start().await;
    make_character(&srv, "Thumbs").await;
    let profile = tempfile::tempdir().unwrap();
    let Some((_driver, c)) = browser(profile.path()).await else { return };
    c.set_window_size(390, 844).await.unwrap();
    log_in(&c, &format!("http://{}", srv.addr), "Thumbs").await;
    // Output on top and tallest, the command line under it, the gauges below that.
    until_js(
        &c,
        "the phone layout",
        "const o = document.getElementById('output').getBoundingClientRect(), l = document.getElementById('cmd').getBoundingClientRect(), s = document.getElementById('side').getBoundingClientRect(); return o.top < l.top && l.bottom <= s.top + 1 && o.height > window.innerHeight * 0.5 && s.bottom <= window.innerHeight + 1",
    )
    .await;
    // The page told the server its width; a long line comes wrapped to it, and the
    // browser breaks none of its lines again.
    command(&c, "say a sentence long enough to need more than one line on a phone, which the server breaks at spaces for this page").await;
    until_js(
        &c,
        "the answer",
        "return [...document.querySelectorAll('#output div')].some(d => d.textContent.startsWith(\"You say, 'a sentence\"))",
    )
    .await;
    let fit: Value = c
        .execute(
            "const n = cols(); const d = [...document.querySelectorAll('#output div')].filter(d => d.textContent.startsWith(\"You say, 'a sentence\")).pop();
             const longest = Math.max(...d.textContent.split('\\n').map(l => l.length));
             const lh = parseFloat(getComputedStyle(d).lineHeight); const rows = Math.round(d.getBoundingClientRect().height / lh);
             return [n, longest, rows, d.textContent.split('\\n').length];",
            vec![],
        )
        .await
        .unwrap();
    let [n, longest, rows, lines] = [0, 1, 2, 3].map(|i| fit[i].as_u64().unwrap());
    assert!(n < 60 && longest <= n, "wrapped by the server to the page's {n} columns: {fit}");
    assert!(lines >= 3, "wrapped: {fit}");
    assert_eq!(rows, lines, "no line wrapped again by the browser: {fit}");
    screenshot(&c, "play-phone.png").await;
    // The other panels fold away behind "more".
    let shown: Value = c.execute("return getComputedStyle(document.getElementById('panels')).display", vec![]).await.unwrap();
    assert_eq!(shown, json!("none"));
    click(&c, "#panels-toggle").await;
    until_js(&c, "the panels", "return getComputedStyle(document.getElementById('panels')).display !== 'none'").await;
    c.close().await.unwrap();
    srv.shutdown().await;
}

//! The observatory as a researcher follows one decision, in a real headless Chromium
//! (issue 52): the timeline lists a command before what it caused, with its time and
//! the reason the agent gave; a decision opens to its state before and after; a search
//! hit leads to its place in the timeline; switching agents clears every panel.

use serde_json::{json, Value};

use crate::browser::{browser, click, screenshot, typed, until_js};
use crate::common::*;

/// The rows of the timeline, as (kind, text), top to bottom.
async fn rows(c: &fantoccini::Client) -> Vec<(String, String)> {
    let v: Value = c
        .execute(
            "return [...document.querySelectorAll('#timeline tr[data-seq]')].map(tr => [tr.dataset.kind, tr.children[2].textContent])",
            vec![],
        )
        .await
        .unwrap();
    v.as_array().unwrap().iter().map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_str().unwrap().to_string())).collect()
}

#[tokio::test]
async fn the_timeline_lists_a_command_before_what_it_caused_with_its_reason() {
    let srv = TestServer::start().await;
    let (kb, kc) = (srv.key("brenda").await, srv.key("bannor").await);
    let mut a = WsClient::connect(srv.addr).await;
    a.login_key("brenda", &kb).await;
    // With the model call behind it, as `pawns agent` reports it (issue 53).
    let llm = json!([{"model": "smol", "form": "json_object", "system": "You play a MUD.", "user": "Room 8004. Exits: south.",
        "answer": "{\"command\": \"south\"}", "tokens_prompt": 40, "tokens_completion": 9, "latency_ms": 120.5}]);
    a.send(json!({"type": "command", "id": "s1", "data": {"command": "south", "reason": "to find someone to spar with", "llm": llm}}))
        .await;
    a.until(|v| v["re"] == "s1" && v["type"] == "state").await;
    let mut b = WsClient::connect(srv.addr).await;
    b.login_key("bannor", &kc).await;
    b.cmd("say hello", "b1").await;
    b.reply_text("b1").await;
    // Brenda dreams, so her memory panel has something to leave behind.
    eventually("the records durable", || async { http_get(srv.addr, "/api/record").await.1.contains("\"backlog\":0,").then_some(()) })
        .await;
    assert_eq!(http_post(srv.addr, "/api/agents/brenda/dream").await.0, 200);

    let profile = tempfile::tempdir().unwrap();
    let Some((_driver, c)) = browser(profile.path()).await else { return };
    c.goto(&format!("http://{}/observatory", srv.addr)).await.unwrap();
    until_js(&c, "Brenda online", "return [...document.querySelectorAll('#who-list li')].some(li => li.textContent === 'Brenda')").await;
    c.execute("[...document.querySelectorAll('#who-list li')].find(li => li.textContent === 'Brenda').click()", vec![]).await.unwrap();
    until_js(&c, "the timeline", "return document.getElementById('timeline').textContent.includes('> south')").await;

    // Cause, then effects: the move, the room it showed, the change it made.
    let r = rows(&c).await;
    let at = |pred: &dyn Fn(&(String, String)) -> bool| r.iter().position(pred).unwrap_or_else(|| panic!("no such row in {r:?}"));
    let south = at(&|(k, t)| k == "decision" && t.starts_with("> south"));
    let shown = at(&|(k, t)| k == "observation" && t.contains("The Sparring Ring"));
    let moved = at(&|(k, t)| k == "transition" && t.starts_with("room ") && t.contains("The Sparring Ring"));
    assert!(south < shown && south < moved, "the command first: {r:?}");
    assert!(r[south].1.contains("why: to find someone to spar with"), "the reason shown: {:?}", r[south]);
    assert!(r.iter().all(|(_, t)| !t.trim().is_empty() && !t.contains('{')), "no empty or raw rows: {r:?}");
    // Each row has its time of day.
    let time: Value =
        c.execute("return document.querySelector('#timeline tr[data-seq] td:nth-child(2)').textContent", vec![]).await.unwrap();
    assert!(time.as_str().is_some_and(|t| t.len() == 12 && t.chars().nth(2) == Some(':')), "{time}");
    // The header in words, its count the session's own.
    let head: Value = c.execute("return document.getElementById('sessions').textContent", vec![]).await.unwrap();
    let head = head.as_str().unwrap();
    assert!(head.starts_with("Session started") && head.contains("running") && head.contains("(1 with a reason)"), "{head}");
    assert!(!head.contains(" 0 records"), "{head}");

    // A decision opens to its state before and after.
    c.execute(
        "[...document.querySelectorAll('#timeline tr[data-kind=decision]')].find(tr => tr.textContent.includes('> south')).click()",
        vec![],
    )
    .await
    .unwrap();
    until_js(&c, "the detail", "const d = document.querySelector('#timeline tr.detail-row'); return !!d && d.textContent.includes('room 8004 →') && d.textContent.includes('to find someone to spar with')").await;
    // The model call beside it: the model, its cost, its answer, the prompt behind a fold.
    let call: Value = c.execute("return document.querySelector('#timeline tr.detail-row').textContent", vec![]).await.unwrap();
    let call = call.as_str().unwrap_or("");
    assert!(call.contains("smol (json_object) — 40 tokens in, 9 out, 121 ms") && call.contains("{\"command\": \"south\"}"), "{call}");
    c.execute("document.querySelector('#timeline tr.detail-row details').open = true", vec![]).await.unwrap();
    screenshot(&c, "observatory-trace.png").await;

    // A search hit is a place in the timeline: the results come into view, a click goes there.
    eventually("the room indexed", || async {
        http_get(srv.addr, "/api/search?q=Sparring&agent=brenda").await.1.contains("\"seq\"").then_some(())
    })
    .await;
    typed(&c, "#q", "Sparring\n").await;
    until_js(&c, "the hits, in view", "const s = document.getElementById('search-results'); const b = s.getBoundingClientRect(); return !s.classList.contains('hidden') && document.querySelectorAll('#hits tr.expandable').length > 0 && b.top >= 0 && b.top < window.innerHeight").await;
    click(&c, "#hits tr.expandable").await;
    until_js(
        &c,
        "the hit's row",
        "const m = document.querySelector('#timeline tr.marked'); return !!m && m.textContent.includes('Sparring')",
    )
    .await;

    // Another agent: nothing of Brenda's stays beside Bannor.
    click(&c, ".tabs button[data-tab='memory']").await;
    until_js(
        &c,
        "Brenda's memory",
        "return document.querySelectorAll('#graph .memory-node').length > 0 && document.getElementById('dream').textContent.length > 0",
    )
    .await;
    c.execute("[...document.querySelectorAll('#who-list li')].find(li => li.textContent === 'Bannor').click()", vec![]).await.unwrap();
    until_js(&c, "Bannor's memory", "return document.getElementById('summary').textContent === 'This agent has not dreamed yet.'").await;
    let left: Value = c
        .execute(
            "return [document.querySelectorAll('#graph .memory-node').length, document.getElementById('dream').textContent, document.getElementById('graph-legend').textContent, document.getElementById('agent-name').textContent]",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(left, json!([0, "", "", "bannor"]));
    click(&c, ".tabs button[data-tab='timeline']").await;
    until_js(&c, "Bannor's timeline", "return document.getElementById('timeline').textContent.includes('> say hello')").await;
    assert!(rows(&c).await.iter().all(|(_, t)| !t.contains("> south")), "Brenda's rows are gone");
    c.set_window_size(390, 844).await.unwrap();
    until_js(&c, "the phone layout", "const w = document.getElementById('who').getBoundingClientRect(), a = document.getElementById('agent').getBoundingClientRect(); return w.bottom <= a.top + 1 && a.width > 300").await;
    screenshot(&c, "observatory-phone.png").await;
    c.close().await.unwrap();
    srv.shutdown().await;
}

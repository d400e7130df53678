//! The record of play: sessions, decisions with their state before and after, the
//! stream of observations and transitions, as committed to the data file.

use std::sync::Arc;
use std::time::Duration;

use pawns_storage::{DecisionRecord, EventRecord, RecordBody, SessionMeta, Store, Transition};
use serde_json::json;

use crate::common::{eventually, TestServer, WsClient};

fn store(s: &TestServer) -> Arc<Store> {
    s.running.as_ref().unwrap().shared.accounts.store().clone()
}

/// Waits until the agent's latest session has ended and everything is committed.
async fn ended_session(s: &TestServer, agent: &str) -> (SessionMeta, Vec<EventRecord>) {
    let recorder = s.running.as_ref().unwrap().recorder.as_ref().unwrap().0.clone();
    let st = store(s);
    eventually(&format!("{agent}'s session ended in the record"), || async {
        recorder.flush().await;
        let last = st.agent_sessions(agent, 0).unwrap().pop().filter(|m| m.ended_us.is_some())?;
        let records = st.session_records(last.session).unwrap();
        Some((last, records))
    })
    .await
}

fn transitions(records: &[EventRecord]) -> Vec<&Transition> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Transition(t) => Some(t),
            _ => None,
        })
        .collect()
}

fn decisions(records: &[EventRecord]) -> Vec<&DecisionRecord> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::Decision(d) => Some(d.as_ref()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_agent_session_is_recorded_whole() {
    let s = TestServer::start().await;
    let key = s.key("brenda").await;
    let mut a = WsClient::connect(s.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "brenda", "password": key, "is_agent": true,
        "harness": "test-harness", "model": "test-model", "version": "1.2", "tier": "small"}}))
        .await;
    a.expect("state").await;
    a.cmd("look", "c1").await;
    a.reply_text("c1").await;
    a.cmd("east", "c2").await;
    a.until(|v| v["re"] == "c2" && v["type"] == "state").await;
    a.send(json!({"type": "command", "data": {"command": "kill", "args": ["dummy"], "tokens_prompt": 812, "tokens_completion": 9, "latency_ms": 431.5,
        "reason": "  It is made of straw and cannot hit back.  "}, "id": "c3"}))
        .await;
    a.until(|v| v["data"]["text"].as_str().is_some_and(|t| t.contains("experience points"))).await;
    a.cmd("xyzzy", "c4").await;
    assert_eq!(a.reply_text("c4").await, "Huh?!?");
    a.cmd("quit", "c5").await;
    a.closed().await;

    let (meta, records) = ended_session(&s, "brenda").await;
    assert!(meta.is_agent);
    assert_eq!(meta.harness.as_deref(), Some("test-harness"));
    assert_eq!(meta.model.as_deref(), Some("test-model"));
    assert_eq!(meta.version.as_deref(), Some("1.2"));
    assert_eq!(meta.tier.as_deref(), Some("small"));
    assert!(meta.valence, "valence is on unless the login turns it off");
    assert_eq!(meta.ended_how.as_deref(), Some("quit"));
    assert!(meta.ended_us.unwrap() >= meta.started_us);
    assert_eq!(meta.records, records.len() as u64);
    // The stream is complete and in order: seq 1..=n with no gap.
    let seqs: Vec<u64> = records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=records.len() as u64).collect::<Vec<_>>());
    assert!(records.windows(2).all(|w| w[0].at_us <= w[1].at_us));

    let d = decisions(&records);
    let cmds: Vec<(&str, &str, &str)> = d.iter().map(|d| (d.command.as_str(), d.args.as_str(), d.status.as_str())).collect();
    assert_eq!(
        cmds,
        [("look", "", "ok"), ("east", "", "ok"), ("kill", "dummy", "ok"), ("xyzzy", "", "unknown_command"), ("quit", "", "ok")]
    );
    assert_eq!(d.iter().map(|d| d.turn).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    let east = d[1];
    assert_eq!((east.pre.room_vnum, east.post.room_vnum), (8004, 8005));
    assert_eq!(&*east.post.room_name, "The Training Yard");
    assert_eq!(east.re.as_deref(), Some("c2"));
    let kill = d[2];
    // After the command's pulse the agent is fighting the dummy, or has already killed it.
    assert!(
        kill.post.fighting.as_deref() == Some("a straw dummy") || kill.post.exp > kill.pre.exp,
        "the kill's post-state shows the fight: {kill:?}"
    );
    assert_eq!(kill.pre.fighting, None);
    assert_eq!(kill.stimulus.mobs_present.iter().map(|m| &**m).collect::<Vec<_>>(), ["a straw dummy"]);
    assert_eq!((kill.client.tokens_prompt, kill.client.tokens_completion, kill.client.latency_ms), (Some(812), Some(9), Some(431.5)));
    assert_eq!(kill.client.harness.as_deref(), Some("test-harness"));
    // Why it was chosen (protocol §5), kept with the decision; the others gave none.
    assert_eq!(kill.reason.as_deref(), Some("It is made of straw and cannot hit back."));
    assert_eq!(d.iter().filter(|d| d.reason.is_some()).count(), 1);
    // Causes before effects: each command is numbered before what it made happen
    // ("Huh?!?" after `xyzzy`; the next room after `east`) — issue 52.
    let seq_of =
        |cmd: &str| records.iter().find(|r| matches!(&r.body, RecordBody::Decision(d) if d.command == cmd)).map(|r| r.seq).unwrap();
    let huh = records.iter().find(|r| matches!(&r.body, RecordBody::Observation { text, .. } if &**text == "Huh?!?")).unwrap();
    assert!(seq_of("xyzzy") < huh.seq, "the command before its answer");
    let yard =
        records.iter().find(|r| matches!(&r.body, RecordBody::Observation { text, .. } if text.contains("The Training Yard"))).unwrap();
    assert!(seq_of("east") < yard.seq, "the move before the room it shows");
    let moved = records.iter().find(|r| matches!(&r.body, RecordBody::Transition(Transition::Room { to: 8005, .. }))).unwrap();
    assert!(seq_of("east") < moved.seq, "the move before the change it made");
    for d in &d {
        assert!(d.received_us <= d.dispatched_us && d.dispatched_us <= d.completed_us, "{d:?}");
        assert_eq!(d.latency_us, d.completed_us - d.received_us);
        assert_eq!(d.pre.max_hp, d.post.max_hp);
    }
    // Observations: what the agent was sent.
    assert!(records.iter().any(|r| matches!(&r.body, RecordBody::Observation { text, .. } if &**text == "Huh?!?")));
    // Transitions: the room change, the kill with the victim's level, the experience.
    let ts = transitions(&records);
    assert!(ts.iter().any(|t| matches!(t, Transition::Room { from: 8004, to: 8005, .. })), "{ts:?}");
    assert!(ts
        .iter()
        .any(|t| matches!(t, Transition::Kill { victim, victim_level: 1, victim_is_player: false, .. } if victim == "a straw dummy")));
    assert!(ts.iter().any(|t| matches!(t, Transition::Exp { from: 0, .. })));
    s.shutdown().await;
}

#[tokio::test]
async fn valence_off_is_stored_and_deaths_and_items_are_transitions() {
    let s = TestServer::start().await;
    let key = s.key("vera").await;
    let mut a = WsClient::connect(s.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "vera", "password": key, "is_agent": true, "valence": false}})).await;
    a.expect("state").await;
    a.cmd("east", "c1").await;
    a.until(|v| v["re"] == "c1" && v["type"] == "state").await;
    a.cmd("get sword", "c2").await;
    a.reply_text("c2").await;
    a.cmd("wield sword", "c3").await;
    a.reply_text("c3").await;
    a.cmd("west", "c4").await;
    a.until(|v| v["re"] == "c4" && v["type"] == "state").await;
    a.cmd("west", "c5").await;
    // The pit fiend kills in a round.
    a.until(|v| v["type"] == "state" && v["data"]["room"]["vnum"] == 8004 && v["re"].is_null()).await;
    a.cmd("quit", "c6").await;
    a.closed().await;
    let (meta, records) = ended_session(&s, "vera").await;
    assert!(!meta.valence);
    let ts = transitions(&records);
    assert!(ts.iter().any(|t| matches!(t, Transition::ItemAcquired { vnum: 9051, .. })), "{ts:?}");
    assert!(ts.iter().any(|t| matches!(t, Transition::Equipped { vnum: 9051, .. })), "{ts:?}");
    assert!(!ts.iter().any(|t| matches!(t, Transition::ItemLost { vnum: 9051, .. })), "wielding is not losing: {ts:?}");
    assert!(ts.iter().any(|t| matches!(t, Transition::Death { killer: Some(k), .. } if k == "a pit fiend")), "{ts:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn sessions_export_in_the_seed_shape_from_the_server_and_the_file() {
    use pawns::record::export::{Format, SessionLine, What, SESSION_FIELDS};
    let s = TestServer::start().await;
    let key = s.key("sage").await;
    let mut a = WsClient::connect(s.addr).await;
    a.send(json!({"type": "login", "data": {"player_name": "sage", "password": key, "is_agent": true, "valence": false}})).await;
    a.expect("state").await;
    a.cmd("say hello, world", "c1").await;
    a.reply_text("c1").await;
    a.cmd("east", "c2").await;
    a.until(|v| v["re"] == "c2" && v["type"] == "state").await;
    a.cmd("quit", "c3").await;
    a.closed().await;
    let (_, records) = ended_session(&s, "sage").await;
    let d = decisions(&records);
    assert_eq!(d.len(), 3);

    // Through the server's API (the file is held).
    let (status, body) = crate::common::http_get(s.addr, "/api/export?what=sessions&agent=sage&format=jsonl").await;
    assert_eq!(status, 200, "{body}");
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 3, "{body}");
    for (line, d) in lines.iter().zip(&d) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut want = SESSION_FIELDS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want, "exactly the seed's fields");
        let l: SessionLine = serde_json::from_str(line).unwrap();
        assert_eq!(l.action, d.command);
        assert_eq!(l.room_vnum, d.pre.room_vnum);
        assert_eq!(l.hp, d.pre.hp);
        assert_eq!(l.agent_level, d.pre.level);
        // What the game made of it: a cheerful "hello, world" is +1 (its words'
        // sentiment), the rest led to nothing valenced — in a valence:false session too.
        assert_eq!(l.valence, Some(i8::from(l.action == "say")), "{line}");
        assert_eq!((l.agent.as_str(), l.valence_on), ("sage", false), "whose the line is, and its arm");
        assert!(l.seq > 0 && l.at_us > 0 && l.session > 0);
        assert!(l.timestamp.ends_with('Z') && l.timestamp.len() == 24, "{}", l.timestamp);
    }
    let first: SessionLine = serde_json::from_str(lines[0]).unwrap();
    assert_eq!((first.action.as_str(), first.say_line.as_deref()), ("say", Some("hello, world")));
    let (status, csv) = crate::common::http_get(s.addr, "/api/export?what=sessions&agent=sage&format=csv").await;
    assert_eq!(status, 200);
    assert_eq!(csv.lines().next().unwrap(), SESSION_FIELDS.join(","));
    assert_eq!(csv.lines().count(), 4);
    assert!(csv.contains("\"hello, world\""), "{csv}");
    let (status, _) = crate::common::http_get(s.addr, "/api/export?what=sessions&format=xml").await;
    assert_eq!(status, 400);

    // From the file itself once the server is gone: the same lines.
    let db = s.cfg.db.clone();
    let dir = s.shutdown_keep_dir().await;
    let (store, _) = pawns_storage::Store::open(&db).unwrap();
    let mut out = Vec::new();
    assert_eq!(
        pawns::research::lines::export(
            &store,
            &pawns::research::Filter { agents: vec!["sage".into()], ..Default::default() },
            What::Sessions(Format::Jsonl),
            &mut out
        )
        .unwrap(),
        3
    );
    assert_eq!(String::from_utf8(out).unwrap(), body);
    let mut full = Vec::new();
    pawns::research::lines::export(&store, &pawns::research::Filter::default(), What::Decisions, &mut full).unwrap();
    let first: serde_json::Value = serde_json::from_str(String::from_utf8(full).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["agent"], "sage");
    assert_eq!(first["decision"]["command"], "say");
    assert!(first["seq"].as_u64() > Some(0) && first["at_us"].as_u64() > Some(0), "joinable to observations: {first}");
    drop(dir);
}

#[tokio::test]
async fn a_backup_taken_under_load_holds_everything_committed_before_it() {
    let s = TestServer::start_with(|cfg| {
        cfg.cmd_rate = 1000.0;
        cfg.cmd_burst = 1000.0;
    })
    .await;
    let mut players = Vec::new();
    for name in ["bria", "bodo", "bela"] {
        let key = s.key(name).await;
        let mut a = WsClient::connect(s.addr).await;
        a.login_key(name, &key).await;
        players.push(tokio::spawn(async move {
            for n in 0..400 {
                let cmd = ["look", "east", "west", "score"][n % 4];
                a.cmd(cmd, &format!("x{n}")).await;
                // (Paced: play at a player's rate while the sweeps run, not a burst.)
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            a
        }));
    }
    // Some of it is durable.
    eventually("a first batch durable", || async {
        (!crate::common::http_get(s.addr, "/api/record").await.1.contains("\"last_batch\":0,")).then_some(())
    })
    .await;
    // And the three sessions' rows: the first durable batch may hold only the first
    // login's (the recorder committed before the other two came); the backup below is
    // asked for what was durable, not what was in flight.
    eventually("three sessions durable", || async {
        let (_, sessions) = crate::common::http_get(s.addr, "/api/export?what=sessions&format=jsonl").await;
        (sessions.lines().count() >= 3).then_some(())
    })
    .await;
    let progress = crate::common::http_get(s.addr, "/api/record").await.1;
    let durable = serde_json::from_str::<serde_json::Value>(&progress).unwrap()["last_batch"].as_u64().unwrap();
    assert!(durable > 0, "{progress}");
    let out = s._dir.path().join("snap.redb");
    let (code, body) = crate::common::http_post(s.addr, &format!("/api/admin/backup?path={}", out.display())).await;
    assert_eq!(code, 200, "{body}");
    let report: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(report["last_batch"].as_u64().unwrap() >= durable, "{report}");
    // The snapshot is a data file of its own: it opens and holds what was committed.
    let (snap, _) = Store::open(&out).unwrap();
    assert!(snap.last_record_id().unwrap() >= durable);
    assert!(snap.records_after(0, usize::MAX).unwrap().len() as u64 >= report["batches"].as_u64().unwrap_or(0));
    assert_eq!(snap.inventory().unwrap().accounts, 3);
    assert!(snap.character("bria").unwrap().is_some());
    assert!(snap.all_sessions().unwrap().len() >= 3);
    // Never over an existing file.
    let (code, body) = crate::common::http_post(s.addr, &format!("/api/admin/backup?path={}", out.display())).await;
    assert_eq!(code, 400);
    assert!(body.contains("backup_exists"), "{body}");
    // `restore --to` checks the backup and puts it in place.
    let to = s._dir.path().join("restored.redb");
    let restored = std::process::Command::new(env!("CARGO_BIN_EXE_pawns")).arg("restore").arg(&out).arg("--to").arg(&to).output().unwrap();
    assert!(restored.status.success(), "{}", String::from_utf8_lossy(&restored.stderr));
    drop(snap);
    assert!(Store::open(&to).unwrap().0.character("bodo").unwrap().is_some());
    for p in players {
        p.abort();
    }
    s.shutdown().await;
}

/// Two commands in a row (the first run on arrival, the second queued for the next
/// pulse) each get their own post-state and their own move; before the fix both
/// decisions ended in the second room and one transition jumped over the first.
#[tokio::test]
async fn back_to_back_commands_each_get_their_own_post_state() {
    let s = TestServer::start_with(|cfg| {
        cfg.cmd_rate = 1000.0;
        cfg.cmd_burst = 1000.0;
    })
    .await;
    let key = s.key("quin").await;
    let mut a = WsClient::connect(s.addr).await;
    a.login_key("quin", &key).await;
    a.cmd("east", "c1").await;
    a.cmd("east", "c2").await;
    a.until(|v| v["re"] == "c2" && v["type"] == "state").await;
    a.cmd("quit", "c3").await;
    a.closed().await;
    let (_, records) = ended_session(&s, "quin").await;
    let ds = decisions(&records);
    assert_eq!((ds[0].pre.room_vnum, ds[0].post.room_vnum), (8004, 8005));
    assert_eq!((ds[1].pre.room_vnum, ds[1].post.room_vnum), (8005, 8011));
    let moves: Vec<(u32, u32)> = transitions(&records)
        .iter()
        .filter_map(|t| match t {
            Transition::Room { from, to, .. } => Some((*from, *to)),
            _ => None,
        })
        .collect();
    assert_eq!(moves, vec![(8004, 8005), (8005, 8011)]);
    s.shutdown().await;
}

/// Social acts between players are engine facts in both players' records.
#[tokio::test]
async fn gifts_and_greetings_are_recorded_for_both_players() {
    let s = TestServer::start().await;
    let (ka, kb) = (s.key("ana").await, s.key("ben").await);
    let mut a = WsClient::connect(s.addr).await;
    a.login_key("ana", &ka).await;
    let mut b = WsClient::connect(s.addr).await;
    b.login_key("ben", &kb).await;
    b.cmd("east", "b1").await;
    b.until(|v| v["re"] == "b1" && v["type"] == "state").await;
    b.cmd("get sword", "b2").await;
    b.reply_text("b2").await;
    b.cmd("west", "b3").await;
    b.until(|v| v["re"] == "b3" && v["type"] == "state").await;
    b.cmd("give sword ana", "b4").await;
    a.until(|v| v["data"]["text"].as_str().is_some_and(|t| t.contains("gives you"))).await;
    a.cmd("smile ben", "a1").await;
    b.until(|v| v["data"]["type"] == "emote").await;
    for (c, id) in [(&mut a, "a9"), (&mut b, "b9")] {
        c.cmd("quit", id).await;
        c.closed().await;
    }
    let social = |records: &[EventRecord]| -> Vec<(String, String, bool, String)> {
        transitions(records)
            .iter()
            .filter_map(|t| match t {
                Transition::Social { act, other, by_me, text } => Some((act.clone(), other.clone(), *by_me, text.clone())),
                _ => None,
            })
            .collect()
    };
    let (_, ra) = ended_session(&s, "ana").await;
    let (_, rb) = ended_session(&s, "ben").await;
    let s_ = |a: &str, o: &str, m: bool, t: &str| (a.to_string(), o.to_string(), m, t.to_string());
    assert_eq!(social(&ra), vec![s_("gift", "Ben", false, "a test sword"), s_("greet", "Ben", true, "smile")]);
    assert_eq!(social(&rb), vec![s_("gift", "Ana", true, "a test sword"), s_("greet", "Ana", false, "smile")]);
    s.shutdown().await;
}

/// With the tail packed every 30 ms, sweeps build packs off the recorder and later
/// commits apply them while agents play: every session reads back whole and in order
/// (seq 1, 2, 3... without a gap or a repeat), and the packs are counted.
#[tokio::test]
async fn sessions_read_back_whole_while_sweeps_pack_the_tail() {
    let s = TestServer::start_with(|cfg| {
        cfg.cmd_rate = 1000.0;
        cfg.cmd_burst = 1000.0;
        cfg.sweep_every = Duration::from_millis(30);
    })
    .await;
    let mut players = Vec::new();
    for name in ["pia", "pax", "pim"] {
        let key = s.key(name).await;
        let mut a = WsClient::connect(s.addr).await;
        a.login_key(name, &key).await;
        players.push(tokio::spawn(async move {
            for n in 0..60 {
                let cmd = ["look", "east", "west", "say hi"][n % 4];
                a.cmd(cmd, &format!("p{n}")).await;
                a.until(|v| v["re"] == format!("p{n}")).await;
                // (Paced: play at a player's rate, not a burst.)
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            a.cmd("quit", "q").await;
            a.closed().await;
        }));
    }
    for p in players {
        p.await.unwrap();
    }
    for name in ["pia", "pax", "pim"] {
        let (meta, records) = ended_session(&s, name).await;
        let seqs: Vec<u64> = records.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "{name}: every record once, in order");
        assert_eq!(meta.records, records.len() as u64, "{name}");
        assert_eq!(decisions(&records).len(), 61, "{name}: sixty commands and the quit");
    }
    let (_, page) = crate::common::http_get(s.addr, "/metrics").await;
    let packs = page.lines().find_map(|l| l.strip_prefix("pawns_record_packs_total ")).and_then(|v| v.trim().parse::<f64>().ok()).unwrap();
    assert!(packs > 0.0, "sweeps packed the tail: {packs}");
    s.shutdown().await;
}

/// An `actions` message's model calls and reason (protocol §11.1) go with the first game
/// command it runs — the others keep the reason — and a message that runs none (memory
/// only, or refused whole) is a decision of its own, `actions`, holding them.
#[tokio::test]
async fn an_actions_message_keeps_its_model_calls_with_what_it_ran() {
    let s = TestServer::start().await;
    let key = s.key("hana").await;
    let mut a = WsClient::connect(s.addr).await;
    a.login_key("hana", &key).await;
    let call = |answer: &str| json!([{"model": "m", "error": "503"}, {"model": "m", "form": "json_object", "user": "the HUD", "answer": answer, "tokens_prompt": 120, "tokens_completion": 9, "latency_ms": 40.5}]);
    a.send(json!({"type": "actions", "id": "t1", "data": {
        "responses": [{"room_id": "here", "message": "Hello there."}],
        "actions": [{"type": "command", "command": "east"}],
        "reason": "greet, then explore", "llm": call("{\"responses\":[…]}")}}))
        .await;
    let r = a.until(|v| v["re"] == "t1" && v["type"] == "actions_result").await;
    assert!(r["data"]["results"].as_array().unwrap().iter().all(|x| x["ok"] == true), "{r}");
    a.send(json!({"type": "actions", "id": "t2", "data": {"actions": [{"type": "set", "path": "self.mood", "value": "calm"}], "llm": call("{\"actions\":[…]}")}})).await;
    a.until(|v| v["re"] == "t2" && v["type"] == "actions_result").await;
    let too_many: Vec<_> = (0..40).map(|_| json!({"type": "command", "command": "look"})).collect();
    a.send(json!({"type": "actions", "id": "t3", "data": {"actions": too_many, "llm": call("lots")}})).await;
    let r = a.until(|v| v["re"] == "t3" && v["type"] == "actions_result").await;
    assert_eq!(r["data"]["results"][0]["code"], "too_many", "{r}");
    a.cmd("quit", "q").await;
    let (_, records) = ended_session(&s, "hana").await;
    let d = decisions(&records);
    let lines: Vec<String> = d.iter().map(|d| format!("{} {}", d.command, d.args)).collect();
    let say = d.iter().find(|d| d.command == "say").unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(say.reason.as_deref(), Some("greet, then explore"));
    assert_eq!(say.llm.len(), 2);
    assert_eq!((say.llm[0].error.as_deref(), say.llm[1].answer.as_deref()), (Some("503"), Some("{\"responses\":[…]}")));
    assert_eq!((say.llm[1].tokens_prompt, say.llm[1].form.as_str(), say.llm[1].user.as_str()), (Some(120), "json_object", "the HUD"));
    let east = d.iter().find(|d| d.command == "east").unwrap();
    assert_eq!((east.reason.as_deref(), east.llm.len()), (Some("greet, then explore"), 0), "the calls are told once");
    let only: Vec<_> = d.iter().filter(|d| d.command == "actions").collect();
    assert_eq!(only.len(), 2, "{lines:?}");
    assert_eq!((only[0].args.as_str(), only[0].status.as_str(), only[0].llm.len()), ("set self.mood", "ok", 2), "{lines:?}");
    assert_eq!(only[0].pre.room_vnum, only[0].post.room_vnum);
    assert_eq!((only[1].status.as_str(), only[1].llm[1].answer.as_deref()), ("too_many", Some("lots")));
    // In the order they ran (`east` waited for the next pulse: one command per pulse).
    let at = |c: &str| d.iter().position(|d| d.command == c).unwrap();
    assert!(at("say") < at("actions") && at("say") < at("east"), "{lines:?}");
    s.shutdown().await;
}

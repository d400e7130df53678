//! The Lua host on a tiny in-memory world: the Lua-4 layer, the globals and the
//! return-value rule, the write-back, and the budget a script cannot escape.

use tokio::sync::mpsc;

use crate::game::run::engine::{Engine, EngineConfig};
use crate::game::send::output::{Out, Outs};
use crate::script::ScriptKind;

/// Two rooms (100 north to 101); room 100 runs `room/test.lua` on commands (mask 32),
/// room 101 runs `room/pulse.lua` on its pulse (mask 4); mob 200 runs `mob/m.lua`.
fn world(test_lua: &str) -> crate::worldfile::WorldProto {
    let mut src = crate::worldfile::MemSource::default();
    let files = [
        ("wld/index", "1.wld\n$\n".to_string()),
        (
            "wld/1.wld",
            "#100\nHall~\nA hall.\n~\n1 0 0\nD0\n~\n~\n0 -1 101\nR test.lua 32\nS\n#101\nYard~\nA yard.\n~\n1 0 0\nD2\n~\n~\n0 -1 100\nR pulse.lua 4\nS\n$\n"
                .into(),
        ),
        ("mob/index", "1.mob\n$\n".into()),
        ("mob/1.mob", "#200\nimp~\nan imp~\nAn imp is here.\n~\nAn imp.\n~\nb 0 0 E\n5 10 5 5d5+50 1d2+0\n10 0\n8 8 1\nScript: m.lua 4\nE\n$\n".into()),
        ("zon/index", "1.zon\n$\n".into()),
        ("zon/1.zon", "#1\nTest~\n199 30 2\nS\n$\n".into()),
        ("scripts/globals.lua", "function default()\n  TRUE = 1\n  FALSE = 0\n  TO_ROOM = 1\n  TO_CHAR = 4\nend\n".into()),
        ("scripts/room/test.lua", test_lua.into()),
        ("scripts/room/pulse.lua", "function onpulse()\n  ch.hp = ch.hp - 3\nend\n".into()),
        ("scripts/mob/m.lua", "function greet()\n  say('Welcome, '..ch.name..'!')\nend\n".into()),
    ];
    for (k, v) in files {
        src.0.insert(k.into(), v);
    }
    crate::worldfile::load(&src).unwrap().world
}

fn engine(test_lua: &str) -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = pawns_storage::Store::open(dir.path().join("t.redb")).unwrap();
    let (saves, _writer) = crate::game::records::persist::spawn_writer(std::sync::Arc::new(store), Default::default());
    (Engine::new(world(test_lua), EngineConfig { seed: 3, ..EngineConfig::default() }, saves), dir)
}

fn player(e: &mut Engine, name: &str) -> (u64, mpsc::Receiver<Outs>) {
    let (link, rx) = crate::game::tests::link(name.len() as u64, 4096);
    let record = crate::game::model::character::new_record(name, 3, 0, 1, true, [13; 6], 100);
    (e.enter(record, link, None).char_id, rx)
}

/// Four seconds of room and object pulses (each player has its own pulse of the 40).
fn pulse_4s(e: &mut Engine) {
    for _ in 0..crate::game::run::engine::PULSES_PER_MOB_AI {
        e.pulse += 1;
        e.script_activity();
    }
}

fn heard(e: &mut Engine, rx: &mut mpsc::Receiver<Outs>) -> String {
    // What the engine sent so far goes out (as at a step's end).
    e.send_outboxes();
    let mut s = String::new();
    while let Ok(batch) = rx.try_recv() {
        for o in batch {
            if let Out::Event { text, .. } = o {
                s.push_str(&text);
                s.push('\n');
            }
        }
    }
    s
}

#[tokio::test]
async fn the_lua_4_layer_runs_the_original_idioms() {
    let lua = r#"
function oncmd()
  if strfind(argument, "^say probe") then
    local t = { 10, 20, 30 }
    tinsert(t, 40)
    local found, _, word = strfind(argument, "(%a+)$")
    local sum = 0
    for k, v in t do sum = sum + v end
    act(format("getn %d tremove %d sum %d word %s fmt %d", getn(t), tremove(t), sum, word, 7 / 2), TRUE, ch, NIL, NIL, TO_CHAR)
    act("call "..call(function(a, b) return a + b end, { 2, 3 }, "x"), TRUE, ch, NIL, NIL, TO_CHAR)
    act("bad call "..tostring(call(function() error("boom") end, {}, "x")), TRUE, ch, NIL, NIL, TO_CHAR)
    act("mod "..mod(7, 3).." strsub "..strsub("abcdef", 2.0, 3).." lower "..strlower("ABC"), TRUE, ch, NIL, NIL, TO_CHAR)
    return TRUE
  end
  return FALSE
end
"#;
    let (mut e, _dir) = engine(lua);
    let (pc, mut rx) = player(&mut e, "Tester");
    heard(&mut e, &mut rx);
    assert_eq!(e.dispatch(pc, "say probe").as_str(), "ok");
    let h = heard(&mut e, &mut rx);
    // (`act` capitalises the first letter, as the original's did.)
    assert!(h.contains("Getn 4 tremove 40 sum 100 word probe fmt 3"), "{h}");
    assert!(h.contains("Call 5") && h.contains("Bad call nil"), "{h}");
    assert!(h.contains("Mod 1") && h.contains("strsub bc") && h.contains("lower abc"), "{h}");
    assert!(!h.contains("You say"), "the script took the command:\n{h}");
    // FALSE (0) lets the command through.
    e.dispatch(pc, "say hello");
    assert!(heard(&mut e, &mut rx).contains("You say, 'hello'"));
    assert!(e.scripts.disabled.is_empty(), "{:?}", e.scripts.disabled);
}

#[tokio::test]
async fn greet_enter_and_pulse_fire_and_ch_is_written_back() {
    let (mut e, _dir) = engine("function oncmd() return FALSE end");
    let imp = {
        let r = e.world.room_of_vnum(101).unwrap();
        let mut roll = |lo: i32, _hi: i32| lo;
        e.world.create_mob(200, r, &mut roll).unwrap()
    };
    let (pc, mut rx) = player(&mut e, "Walker");
    e.dispatch(pc, "north");
    let h = heard(&mut e, &mut rx);
    assert!(h.contains("An imp says, 'Welcome, Walker!'") || h.contains("says, 'Welcome, Walker!'"), "{h}");
    let _ = imp;
    let hp = e.world.ch(pc).unwrap().hit;
    pulse_4s(&mut e);
    assert_eq!(e.world.ch(pc).unwrap().hit, hp - 3, "the room's pulse took 3 hit points through ch's write-back");
}

#[tokio::test]
async fn a_runaway_script_is_stopped_and_turned_off_and_cannot_catch_it() {
    let lua = r#"
function oncmd()
  if strfind(argument, "loop") then
    pcall(function() while 1 do end end)
    act("escaped the budget", TRUE, ch, NIL, NIL, TO_CHAR)
    return TRUE
  end
  if strfind(argument, "memory") then
    local t = {}
    local ok = pcall(function() for i = 1, 100000000 do t[i] = strrep("x", 1048576) .. i end end)
    act("escaped the memory limit", TRUE, ch, NIL, NIL, TO_CHAR)
    return TRUE
  end
  return FALSE
end
"#;
    let (mut e, _dir) = engine(lua);
    let (pc, mut rx) = player(&mut e, "Tester");
    heard(&mut e, &mut rx);
    let started = std::time::Instant::now();
    e.dispatch(pc, "say loop");
    let h = heard(&mut e, &mut rx);
    assert!(!h.contains("escaped"), "{h}");
    assert!(h.contains("You say, 'loop'"), "a stopped script answers 0: the command goes on:\n{h}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let why = e.scripts.disabled.get(&(ScriptKind::Room, 100)).cloned().unwrap_or_default();
    assert!(why.contains("room/test.lua") && why.contains("budget"), "{why}");
    // Off until reload: the next command is not offered to it.
    e.dispatch(pc, "say memory");
    assert!(heard(&mut e, &mut rx).contains("You say, 'memory'"));
    // A fresh engine: the memory bomb is stopped too, and the state is usable after.
    let (mut e, _dir2) = engine(lua);
    let (pc, mut rx) = player(&mut e, "Tester");
    heard(&mut e, &mut rx);
    e.dispatch(pc, "say memory");
    let h = heard(&mut e, &mut rx);
    assert!(!h.contains("escaped"), "{h}");
    let why = e.scripts.disabled.get(&(ScriptKind::Room, 100)).cloned().unwrap_or_default();
    assert!(why.contains("memory"), "{why}");
    e.dispatch(pc, "north");
    let hp = e.world.ch(pc).unwrap().hit;
    pulse_4s(&mut e);
    assert_eq!(e.world.ch(pc).unwrap().hit, hp - 3, "other scripts still run");
}

#[tokio::test]
async fn a_script_error_names_its_file_and_line() {
    let (mut e, _dir) = engine("function oncmd()\n  local x = nil\n  return x.field\nend\n");
    let (pc, _rx) = player(&mut e, "Tester");
    e.dispatch(pc, "look");
    let why = e.scripts.disabled.get(&(ScriptKind::Room, 100)).cloned().unwrap_or_default();
    assert!(why.contains("room/test.lua:3:"), "{why}");
}

// pawns play client: the JSON protocol on /ws (protocol.md §4-§9), no dependencies.
// It stays: a reload resumes the same session (token and last seq kept in this tab), a
// lost connection is tried again with backoff and resumed, and nothing typed meanwhile
// is dropped. It asks for a screen's `display`: the server wraps to the window once
// and sends colours as data (`runs`).
"use strict";
const $ = (id) => document.getElementById(id);
const MAX_FRAME = 16 * 1024; // the server's frame limit (protocol.md §3)
const SHORT = { n: "north", e: "east", s: "south", w: "west", u: "up", d: "down" };
const SLOT = { light: "light", finger_r: "right finger", finger_l: "left finger", neck_1: "neck", neck_2: "neck", wrist_r: "right wrist", wrist_l: "left wrist", wield: "wielded", hold: "held" };

let ws = null, vars = {}, history = [], histAt = 0;
let playing = false, resuming = false, ended = false, retries = 0, retryTimer = null;
const pending = []; // commands typed while not connected: sent once back
const walking = [];
const map = new RoomMap($("map"), (steps) => { walking.push(...steps); walkOn(); });

// This tab's session: the character, its token and the last message seen (for resume).
const session = JSON.parse(sessionStorage.getItem("pawns-session") || "null") || { name: null, token: null, seq: 0 };
let saveTimer = null;
function keep() {
  if (saveTimer) return;
  saveTimer = setTimeout(() => {
    saveTimer = null;
    sessionStorage.setItem("pawns-session", JSON.stringify(session));
    sessionStorage.setItem("pawns-output", JSON.stringify(lines.slice(-400)));
  }, 200);
}
function keepNow() {
  clearTimeout(saveTimer);
  saveTimer = null;
  if (session.token) { sessionStorage.setItem("pawns-session", JSON.stringify(session)); sessionStorage.setItem("pawns-output", JSON.stringify(lines.slice(-400))); }
}
window.addEventListener("pagehide", keepNow);
function forget() { session.name = session.token = null; session.seq = 0; sessionStorage.removeItem("pawns-session"); sessionStorage.removeItem("pawns-output"); }

function status(t) { $("status").textContent = t; }

// The output: each line as the server sent it, its colours as spans.
const lines = [];
function out(text, cls, runs, restoring) {
  const o = $("output");
  const div = document.createElement("div");
  if (cls) div.className = cls;
  if (Array.isArray(runs) && runs.length) {
    for (const [words, colour] of runs) {
      const span = document.createElement("span");
      if (colour) span.className = `c-${colour}`;
      span.textContent = words;
      div.appendChild(span);
    }
  } else div.textContent = text;
  o.appendChild(div);
  while (o.childNodes.length > 2000) o.removeChild(o.firstChild);
  o.scrollTop = o.scrollHeight;
  if (!restoring) { lines.push([text, cls || "", runs || null]); if (lines.length > 800) lines.splice(0, 400); keep(); }
}

// Columns of the output pane, in its own font: the server wraps to them (as NAWS).
function cols() {
  const o = $("output"), probe = document.createElement("span");
  probe.textContent = "M".repeat(20);
  probe.style.visibility = "hidden";
  o.appendChild(probe);
  const w = probe.getBoundingClientRect().width / 20;
  o.removeChild(probe);
  const style = getComputedStyle(o);
  const inner = o.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return w > 0 && inner > 0 ? Math.max(20, Math.min(1000, Math.floor(inner / w) - 1)) : 80;
}

function send(type, data, id) {
  const text = JSON.stringify(id ? { type, data, id } : { type, data });
  if (new TextEncoder().encode(text).length > MAX_FRAME) return "too_large";
  if (!ws || ws.readyState !== WebSocket.OPEN) return "closed";
  ws.send(text);
  return "sent";
}

function connect(login) {
  clearTimeout(retryTimer);
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws`);
  const sock = ws;
  status(retries ? "reconnecting…" : "connecting…");
  sock.onopen = () => {
    status(login.resume ? "resuming…" : "logging in…");
    sock.send(JSON.stringify({ type: "login", data: login }));
    if (login.resume) {
      // A page that lost its view (a reload) asks for every variable again.
      sock.send(JSON.stringify({ type: "unsubscribe", data: { variables: ["*"] } }));
      sock.send(JSON.stringify({ type: "subscribe", data: { variables: ["*"] } }));
    }
  };
  sock.onmessage = (m) => { if (sock === ws) onMessage(JSON.parse(m.data)); };
  sock.onclose = (ev) => { if (sock === ws) onClose(ev); };
}

function resume() {
  resuming = true;
  connect({ resume: { token: session.token, last_seq: session.seq }, display: { cols: cols() } });
}

function onClose(ev) {
  const wasPlaying = playing;
  playing = false;
  if (ev.reason === "quit" || ev.reason === "session_taken_over" || ended) {
    ended = true;
    forget();
    status(ev.reason === "session_taken_over" ? "taken over from elsewhere" : "not connected");
    out(ev.reason === "session_taken_over" ? "[This character is playing from another window now.]" : "[You have left the game.]", "dim");
    return;
  }
  if (!(wasPlaying || resuming) || !session.token) { status("disconnected"); return; }
  // Gone for another reason (a restart, the network): try again, a little later each time.
  const wait = Math.min(10000, 500 * 2 ** retries);
  retries++;
  status(`connection lost — reconnecting in ${Math.ceil(wait / 1000)} s…`);
  if (retries === 1) out("[connection lost — reconnecting; what you type is kept and sent once back]", "dim");
  retryTimer = setTimeout(resume, wait);
}

$("login").addEventListener("submit", (e) => {
  e.preventDefault();
  $("login-error").textContent = "";
  ended = false;
  retries = 0;
  const data = { player_name: $("name").value.trim(), password: $("password").value, display: { cols: 80 } };
  if ($("newchar").checked) data.new_char = true;
  connect(data);
});

function onMessage(m) {
  if (m.seq > session.seq) { session.seq = m.seq; keep(); }
  const d = m.data || {};
  switch (m.type) {
    case "char_create": return showCreate(d);
    case "state": return onState(d);
    case "vars": return onVars(d);
    case "event": return out(d.text || "", d.type, d.runs);
    case "text": return out(d.text || "");
    case "error": return onError(d);
    case "token_refresh": session.token = d.token; keep(); return;
    default: return;
  }
}

function onError(d) {
  if (playing) return out(`${d.message}`, "death");
  // While resuming: the requests behind the login are refused with it; the login's
  // own refusal says the session cannot come back (its token is void or too old).
  if (resuming) {
    if (d.code === "not_authenticated") return;
    resuming = false;
    forget();
    $("game").classList.add("hidden");
    $("login").classList.remove("hidden");
    $("login-error").textContent = "Your session could not be resumed; please log in again.";
    status("not logged in");
    return;
  }
  // Words for a person (the code is for programs), and the status says where things stand.
  $("login").classList.remove("hidden");
  $("create").classList.add("hidden");
  $("login-error").textContent = d.message || "That did not work.";
  status("not logged in");
}

function showCreate(d) {
  $("login").classList.add("hidden");
  $("create").classList.remove("hidden");
  let p = d.prompt || "";
  if (d.stats) p += " " + Object.entries(d.stats).map(([k, v]) => `${k} ${v}`).join(", ");
  $("create-prompt").textContent = p;
  const box = $("create-options");
  box.textContent = "";
  for (const o of d.options || []) {
    const b = document.createElement("button");
    const value = typeof o === "object" ? String(o.value) : o;
    b.textContent = typeof o === "object" ? o.name : o;
    b.dataset.choice = value;
    b.onclick = () => send("char_input", { choice: value });
    box.appendChild(b);
  }
}

// In the game (a login, a resume, a reconnect): the view shows, what waited is sent.
function inGame(name) {
  const fresh = !playing;
  playing = true;
  resuming = false;
  retries = 0;
  if (name && session.name !== name) { session.name = name; keep(); }
  if (session.name && map.owner !== session.name.toLowerCase()) map.load(session.name);
  $("login").classList.add("hidden");
  $("create").classList.add("hidden");
  $("game").classList.remove("hidden");
  status(`playing as ${session.name}`);
  if (fresh) {
    send("display", { cols: cols() });
    while (pending.length) command(pending.shift(), true);
    $("cmd").focus();
  }
}

function onState(d) {
  if (d.token) { session.token = d.token; keep(); }
  const first = !playing;
  inGame(d.player.name);
  if (first) send("subscribe", { variables: ["*"] });
}

function bar(name, cur, max, label) {
  const pct = max > 0 ? Math.max(0, Math.min(100, (100 * cur) / max)) : 0;
  $(`${name}-bar`).style.width = `${pct}%`;
  $(`${name}-text`).textContent = label || `${name} ${cur}/${max}`;
}
function list(id, items, label) {
  const ul = $(id);
  ul.textContent = "";
  for (const it of items || []) {
    const li = document.createElement("li");
    li.textContent = label(it);
    ul.appendChild(li);
  }
}
// Identical things side by side are one line: "(2) a cellar rat".
function grouped(items, label) {
  const counts = new Map();
  for (const it of items || []) { const k = label(it); counts.set(k, (counts.get(k) || 0) + 1); }
  return [...counts].map(([k, n]) => (n > 1 ? `(${n}) ${k}` : k));
}

function onVars(d) {
  Object.assign(vars, d);
  if (!playing && "HEALTH" in d) inGame(session.name);
  if ("HEALTH" in d || "MAX_HEALTH" in d) bar("hp", vars.HEALTH, vars.MAX_HEALTH);
  if ("MANA" in d || "MAX_MANA" in d) bar("mana", vars.MANA, vars.MAX_MANA);
  if ("MOVE" in d || "MAX_MOVE" in d) bar("move", vars.MOVE, vars.MAX_MOVE);
  if ("ROOM_NAME" in d) $("room-name").textContent = vars.ROOM_NAME;
  if ("ROOM_EXITS" in d) {
    const box = $("exits");
    box.textContent = "";
    for (const x of vars.ROOM_EXITS) {
      const b = document.createElement("button");
      b.textContent = x;
      b.onclick = () => command(x);
      box.appendChild(b);
    }
  }
  if ("ROOM_MOBS" in d) list("mobs", grouped(vars.ROOM_MOBS, (m) => m.name + (m.fighting ? " (fighting)" : "")), (s) => s);
  if ("ROOM_ITEMS" in d) list("items", grouped(vars.ROOM_ITEMS, (i) => i.name), (s) => s);
  if ("INVENTORY" in d) list("inventory", grouped(vars.INVENTORY, (i) => i.name), (s) => s);
  if ("EQUIPMENT" in d) {
    const eq = Object.entries(vars.EQUIPMENT || {});
    list("equipment", eq.length ? eq : [["", { name: "nothing" }]], ([slot, o]) => (slot ? `${SLOT[slot] || slot}: ${o.name}` : o.name));
  }
  if ("CHAR_INFO" in d) {
    const c = d.CHAR_INFO || {};
    $("foe").classList.toggle("hidden", !c.opponent);
    if (c.opponent) bar("foe", c.opponent_health, 100, `${c.opponent} ${c.opponent_health}%`);
  }
  if ("ROOM_INFO" in d && d.ROOM_INFO) map.visit(d.ROOM_INFO);
}

// A typed line: sent now, or kept until the connection is back. Too long for one
// message, it is refused here, with the reason, rather than closing the connection.
function command(line, queued) {
  line = line.trim();
  if (!line) return;
  if (!queued) {
    out(`> ${line}`, "cmd");
    history.push(line);
    histAt = history.length;
  }
  if (!playing) {
    pending.push(line);
    out(`[kept: "${line.length > 40 ? line.slice(0, 40) + "…" : line}" goes when the connection is back]`, "dim");
    return;
  }
  const sent = send("command", { command: line });
  if (sent === "too_large") out(`That line is too long to send (the limit is ${MAX_FRAME} bytes); nothing was sent.`, "death");
  else if (sent === "closed") pending.push(line);
}
function walkOn() {
  if (!walking.length || walking.busy) return;
  walking.busy = true;
  command(walking.shift());
  setTimeout(() => { walking.busy = false; walkOn(); }, 250);
}

$("cmdline").addEventListener("submit", (e) => { e.preventDefault(); command($("cmd").value); $("cmd").value = ""; });
$("cmd").addEventListener("keydown", (e) => {
  if (e.key === "ArrowUp" && histAt > 0) { histAt--; $("cmd").value = history[histAt]; e.preventDefault(); }
  if (e.key === "ArrowDown") { histAt = Math.min(history.length, histAt + 1); $("cmd").value = history[histAt] || ""; e.preventDefault(); }
});
$("panels-toggle").addEventListener("click", () => {
  const open = $("side").classList.toggle("open");
  $("panels-toggle").setAttribute("aria-expanded", String(open));
  $("panels-toggle").textContent = open ? "less ▴" : "more ▾";
});
let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { if (playing) send("display", { cols: cols() }); }, 300);
});

// A reload: the screen as it was, and the same session resumed.
if (session.token) {
  $("login").classList.add("hidden");
  $("game").classList.remove("hidden");
  for (const [text, cls, runs] of JSON.parse(sessionStorage.getItem("pawns-output") || "[]")) { lines.push([text, cls, runs]); out(text, cls, runs, true); }
  if (session.name) map.load(session.name);
  resume();
}

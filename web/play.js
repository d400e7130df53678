// pawns play client: the JSON protocol on /ws (protocol.md §4-§8), no dependencies.
"use strict";
const $ = (id) => document.getElementById(id);
const DIRS = { north: [0, -1], east: [1, 0], south: [0, 1], west: [-1, 0], up: [0.5, -0.5], down: [-0.5, 0.5] };
const SHORT = { n: "north", e: "east", s: "south", w: "west", u: "up", d: "down" };
let ws = null, vars = {}, history = [], histAt = 0, lastDir = null, playing = false, shownFirstRoom = false;
const map = { rooms: new Map(), links: [], here: null };

function status(t) { $("status").textContent = t; }
function out(text, cls) {
  const o = $("output");
  const div = document.createElement("div");
  if (cls) div.className = cls;
  div.textContent = text;
  o.appendChild(div);
  while (o.childNodes.length > 2000) o.removeChild(o.firstChild);
  o.scrollTop = o.scrollHeight;
}
function send(type, data, id) { ws.send(JSON.stringify(id ? { type, data, id } : { type, data })); }

$("login").addEventListener("submit", (e) => {
  e.preventDefault();
  $("login-error").textContent = "";
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws`);
  status("connecting…");
  ws.onopen = () => {
    status("logging in…");
    const data = { player_name: $("name").value.trim(), password: $("password").value };
    if ($("newchar").checked) data.new_char = true;
    send("login", data);
  };
  ws.onmessage = (m) => onMessage(JSON.parse(m.data));
  ws.onclose = () => { status("disconnected"); if (playing) out("[connection closed]", "death"); };
});

function onMessage(m) {
  const d = m.data || {};
  switch (m.type) {
    case "char_create": return showCreate(d);
    case "state": return onState(d);
    case "vars": return onVars(d);
    case "event": return out(d.text || "", d.type);
    case "text": return out(d.text || "");
    case "error":
      // Words for a person (the code is for programs), and the status says where things stand.
      if (!playing) { $("login").classList.remove("hidden"); $("create").classList.add("hidden"); $("login-error").textContent = d.message || "That did not work."; status("not logged in"); }
      else out(`${d.message}`, "death");
      return;
    case "token_refresh": sessionStorage.setItem("pawns-token", d.token); return;
    default: return;
  }
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

function onState(d) {
  if (!playing) {
    playing = true;
    $("login").classList.add("hidden");
    $("create").classList.add("hidden");
    $("game").classList.remove("hidden");
    status(`playing as ${d.player.name}`);
    send("subscribe", { variables: ["*"] });
    $("cmd").focus();
  }
  if (d.token) sessionStorage.setItem("pawns-token", d.token);
  // After login the game narrates rooms itself (as events); `state` then only updates.
  if (shownFirstRoom) return;
  shownFirstRoom = true;
  const r = d.room;
  out(r.name, "room-name");
  out(r.description.trimEnd());
  out(`[ Exits: ${r.exits.join(" ") || "none"} ]`, "dim");
  for (const p of r.players) out(`${p} is here.`);
  for (const mob of r.mobs) out(`${mob} is here.`);
  for (const i of r.items) out(`${i} lies here.`);
}

function bar(name, cur, max) {
  const pct = max > 0 ? Math.max(0, Math.min(100, (100 * cur) / max)) : 0;
  $(`${name}-bar`).style.width = `${pct}%`;
  $(`${name}-text`).textContent = `${name} ${cur}/${max}`;
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

function onVars(d) {
  Object.assign(vars, d);
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
  if ("ROOM_MOBS" in d) list("mobs", vars.ROOM_MOBS, (m) => m.name + (m.fighting ? " (fighting)" : ""));
  if ("ROOM_ITEMS" in d) list("items", vars.ROOM_ITEMS, (i) => i.name);
  if ("INVENTORY" in d) list("inventory", vars.INVENTORY, (i) => i.name);
  if ("ROOM_VNUM" in d) moved(vars.ROOM_VNUM);
  if ("ROOM_EXITS" in d || "ROOM_VNUM" in d) drawMap();
}

// The map of rooms this character has seen, placed by the direction walked.
function moved(vnum) {
  const prev = map.here;
  if (!map.rooms.has(vnum)) {
    let at = { x: 0, y: 0 };
    if (prev !== null && map.rooms.has(prev)) {
      const p = map.rooms.get(prev), dxy = DIRS[lastDir] || [1, 1];
      at = { x: p.x + dxy[0], y: p.y + dxy[1] };
    }
    map.rooms.set(vnum, { ...at, name: vars.ROOM_NAME || "" });
  }
  if (prev !== null && prev !== vnum && !map.links.some(([a, b]) => (a === prev && b === vnum) || (a === vnum && b === prev))) {
    map.links.push([prev, vnum]);
  }
  map.here = vnum;
  lastDir = null;
}
function drawMap() {
  const svg = $("map"), here = map.rooms.get(map.here);
  if (!here) return;
  const S = 24, NS = "http://www.w3.org/2000/svg";
  svg.textContent = "";
  const pos = (r) => [(r.x - here.x) * S, (r.y - here.y) * S];
  for (const [a, b] of map.links) {
    const [x1, y1] = pos(map.rooms.get(a)), [x2, y2] = pos(map.rooms.get(b));
    const l = document.createElementNS(NS, "line");
    Object.entries({ x1, y1, x2, y2, stroke: "#55636d", "stroke-width": 2 }).forEach(([k, v]) => l.setAttribute(k, v));
    svg.appendChild(l);
  }
  for (const [vnum, r] of map.rooms) {
    const [x, y] = pos(r);
    const c = document.createElementNS(NS, "rect");
    Object.entries({ x: x - 6, y: y - 6, width: 12, height: 12, rx: 2, fill: vnum === map.here ? "#e0a84f" : "#3a444b" }).forEach(([k, v]) => c.setAttribute(k, v));
    const t = document.createElementNS(NS, "title");
    t.textContent = `${r.name} (${vnum})`;
    c.appendChild(t);
    c.dataset.vnum = vnum;
    svg.appendChild(c);
  }
}

function command(line) {
  line = line.trim();
  if (!line) return;
  out(`> ${line}`, "cmd");
  history.push(line);
  histAt = history.length;
  const word = line.split(/\s+/)[0].toLowerCase();
  lastDir = DIRS[word] ? word : SHORT[word] || null;
  send("command", { command: line });
}
$("cmdline").addEventListener("submit", (e) => { e.preventDefault(); command($("cmd").value); $("cmd").value = ""; });
$("cmd").addEventListener("keydown", (e) => {
  if (e.key === "ArrowUp" && histAt > 0) { histAt--; $("cmd").value = history[histAt]; e.preventDefault(); }
  if (e.key === "ArrowDown") { histAt = Math.min(history.length, histAt + 1); $("cmd").value = history[histAt] || ""; e.preventDefault(); }
});

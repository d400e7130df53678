// The observatory: who is online, one agent's timeline (live), memory, mind and HUD.
"use strict";
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
if (params.get("token")) sessionStorage.setItem("pawns-admin", params.get("token"));
const token = () => sessionStorage.getItem("pawns-admin") || "";
let current = null, live = null, tab = "timeline";

async function api(path) {
  const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
  const r = await fetch(path, { headers });
  if (r.status === 401 || r.status === 403) { $("denied").classList.remove("hidden"); throw new Error("unauthorized"); }
  const body = await r.json();
  if (!r.ok) throw Object.assign(new Error(body.message || r.statusText), { code: body.code });
  return body;
}
$("token-form").addEventListener("submit", (e) => { e.preventDefault(); sessionStorage.setItem("pawns-admin", $("token").value.trim()); location.reload(); });

function showWho(list) {
  $("count").textContent = `(${list.length})`;
  const ul = $("who-list");
  ul.textContent = "";
  list.sort((a, b) => (b.is_agent - a.is_agent) || a.name.localeCompare(b.name));
  for (const w of list) {
    const li = document.createElement("li");
    li.textContent = w.name;
    li.className = (w.is_agent ? "agent" : "human") + (current === w.name.toLowerCase() ? " selected" : "");
    li.onclick = () => open(w.name.toLowerCase());
    ul.appendChild(li);
  }
}

function connect(agent) {
  if (live) live.close();
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = new URLSearchParams();
  if (agent && $("follow").checked) q.set("agent", agent);
  if (token()) q.set("token", token());
  live = new WebSocket(`${proto}://${location.host}/api/observe/live?${q}`);
  live.onopen = () => { $("status").textContent = agent ? `following ${agent}` : "live"; };
  live.onclose = () => { $("status").textContent = "disconnected"; };
  live.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "who") showWho(msg.who);
    if (msg.type === "records") {
      for (const r of msg.records) addRecord(r, true);
      const ms = (Date.now() * 1000 - Math.max(...msg.records.map((r) => r.at_us))) / 1000;
      $("live-latency").textContent = `last update ${ms.toFixed(0)} ms after it happened`;
    }
    if (msg.type === "lagged") $("live-latency").textContent = `missed ${msg.missed_batches} batches`;
  };
}

const fmt = (s) => s ? `hp ${s.hp ?? s.health ?? "?"} @${s.room_vnum ?? s.room ?? "?"}` : "";
function addRecord(r, fresh) {
  const tb = $("timeline");
  const tr = document.createElement("tr");
  if (fresh) tr.className = "fresh";
  const b = r.body;
  const cells = [r.seq];
  if (b.kind === "decision") {
    tr.dataset.kind = "decision";
    const c = b.client || {};
    const tokens = c.tokens_prompt != null ? `${c.tokens_prompt}+${c.tokens_completion ?? 0}` : "";
    cells.push(`> ${b.command} ${b.args}`.trim(), b.status, `${(b.latency_us / 1000).toFixed(1)} ms`, tokens, `${fmt(b.pre)} → ${fmt(b.post)}`);
  } else if (b.kind === "observation") {
    tr.dataset.kind = "observation";
    cells.push(`heard (${b.event_type}): ${b.text}`, "", "", "", "");
  } else {
    tr.dataset.kind = "transition";
    const { what, kind, ...rest } = b;
    cells.push(`${what}: ${JSON.stringify(rest)}`, "", "", "", "");
  }
  for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
  tb.insertBefore(tr, tb.firstChild);
  while (tb.childNodes.length > 500) tb.removeChild(tb.lastChild);
}

async function open(name) {
  current = name;
  $("pick").classList.add("hidden");
  $("search-results").classList.add("hidden");
  $("agent-view").classList.remove("hidden");
  $("agent-name").textContent = name;
  document.querySelectorAll("#who li").forEach((li) => li.classList.toggle("selected", li.textContent.toLowerCase() === name));
  connect(name);
  await show(tab);
}

async function show(which) {
  tab = which;
  document.querySelectorAll(".tabs button").forEach((b) => b.classList.toggle("on", b.dataset.tab === which));
  for (const t of ["timeline", "memory", "mind", "hud"]) $(`tab-${t}`).classList.toggle("hidden", t !== which);
  const name = current;
  try {
    if (which === "timeline") {
      const t = await api(`/api/observe/agents/${name}/timeline?limit=300`);
      $("timeline").textContent = "";
      for (const r of t.records) addRecord(r, false);
      $("sessions").textContent = t.sessions.length ? `${t.sessions.length} recent sessions; newest ${t.sessions[0].session} (${t.sessions[0].records} records, ${t.sessions[0].harness || "?"}${t.sessions[0].model ? " / " + t.sessions[0].model : ""})` : "no sessions recorded";
    } else if (which === "memory") {
      try {
        const m = await api(`/api/observe/agents/${name}/memory`);
        $("summary").textContent = m.summary;
        const d = m.last_dream;
        $("dream").textContent = d ? `last dream (${d.trigger}): ${d.nodes_before} → ${d.nodes_after} memories, ${d.pruned} pruned, ${d.reinforced} reinforced, ${d.events_extracted} new from ${d.records_read} records, ${d.elapsed_ms.toFixed(1)} ms` : "";
        const n = drawMemoryGraph($("graph"), m.graph);
        $("graph-legend").textContent = `${n} memories, ${m.graph.edges.length} links, ${m.graph.cycles} dream cycles`;
      } catch (e) {
        $("summary").textContent = e.code === "no_memory" ? "This agent has not dreamed yet." : e.message;
        $("graph").textContent = "";
      }
    } else if (which === "mind") {
      const m = await api(`/api/observe/agents/${name}/mind`);
      const tb = $("relationships");
      tb.textContent = "";
      for (const r of m.relationships) {
        const tr = document.createElement("tr");
        tr.innerHTML = "<td></td><td></td>";
        tr.children[0].textContent = r.other ?? r.name ?? "";
        tr.children[1].textContent = JSON.stringify(r);
        tb.appendChild(tr);
      }
      $("layers").textContent = m.layers.map((l) => JSON.stringify(l)).join("\n") || "(nothing kept yet)";
    } else if (which === "hud") {
      try {
        const h = await api(`/api/observe/agents/${name}/hud?format=${$("hud-format").value}`);
        $("hud").textContent = h.content;
        $("hud-tokens").textContent = `${h.tokens.total} tokens of ${h.budget}`;
      } catch (e) { $("hud").textContent = e.message; $("hud-tokens").textContent = ""; }
    }
  } catch (e) { if (e.message !== "unauthorized") $("status").textContent = e.message; }
}

document.querySelectorAll(".tabs button").forEach((b) => (b.onclick = () => show(b.dataset.tab)));
$("hud-refresh").onclick = () => show("hud");
$("hud-format").onchange = () => show("hud");
$("follow").onchange = () => connect(current);
$("search-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = new URLSearchParams({ q: $("q").value, limit: "50" });
  if (current) q.set("agent", current);
  try {
    const r = await api(`/api/search?${q}`);
    $("search-results").classList.remove("hidden");
    const tb = $("hits");
    tb.textContent = "";
    for (const h of r.hits || r.results || []) {
      const tr = document.createElement("tr");
      tr.innerHTML = "<td></td><td></td>";
      tr.children[0].textContent = h.agent || "";
      tr.children[1].textContent = h.text || JSON.stringify(h);
      tb.appendChild(tr);
    }
  } catch (err) { $("status").textContent = err.message; }
});

// On the server's own machine the page asks for the admin token itself (the live
// follow wants it wherever the page is; a page of another site cannot read the answer).
async function ensureToken() {
  if (token()) return;
  try {
    const r = await fetch("/api/admin/token");
    if (r.ok) { const b = await r.json(); if (b.token) sessionStorage.setItem("pawns-admin", b.token); }
  } catch (e) { /* not local: the token form is the way in */ }
}

ensureToken().then(() => api("/api/observe/who")).then(showWho).then(() => connect(null)).catch(() => {});

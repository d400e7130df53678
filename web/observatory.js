// The observatory: who is online, one agent's timeline (live), memory, mind and HUD.
"use strict";
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
if (params.get("token")) sessionStorage.setItem("pawns-admin", params.get("token"));
const token = () => sessionStorage.getItem("pawns-admin") || "";
let current = null, live = null, tab = "timeline";
// The session shown (null: the newest, followed live) and the records' table.
let shownSession = null, viewing = null;
const timeline = new Timeline($("timeline"));

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
      if (viewing !== null) return; // an older session is on the page
      if (tab === "timeline" && shownSession !== null && msg.records.some((r) => r.session !== shownSession)) { show("timeline"); return; }
      const pane = $("agent"), atEnd = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 40;
      for (const r of msg.records) timeline.add(r, true);
      if (atEnd) pane.scrollTop = pane.scrollHeight;
      const ms = (Date.now() * 1000 - Math.max(...msg.records.map((r) => r.at_us))) / 1000;
      $("live-latency").textContent = `last update ${ms.toFixed(0)} ms after it happened`;
    }
    if (msg.type === "lagged") $("live-latency").textContent = `missed ${msg.missed_batches} batches`;
  };
}

// Everything shown of the agent before: gone before the next one's arrives.
function clearPanels() {
  timeline.clear();
  shownSession = null;
  for (const id of ["sessions", "summary", "dream", "graph-legend", "layers", "hud", "hud-tokens", "live-latency"]) $(id).textContent = "";
  $("graph").textContent = "";
  $("relationships").textContent = "";
  $("session-pick").textContent = "";
}

async function open(name, session, seq) {
  if (current !== name) clearPanels();
  current = name;
  viewing = session ?? null;
  $("pick").classList.add("hidden");
  // Picked from the list (not from a search hit): the search steps aside.
  if (session === undefined) $("search-results").classList.add("hidden");
  $("agent-view").classList.remove("hidden");
  $("agent-name").textContent = name;
  document.querySelectorAll("#who li").forEach((li) => li.classList.toggle("selected", li.textContent.toLowerCase() === name));
  connect(name);
  if (session !== undefined) { await show("timeline", seq); return; }
  await show(tab);
}

// The session's header in words: when, who played, how far, what it cost.
function sessionHeader(t) {
  const s = t.shown;
  if (!s) return "no sessions recorded";
  const when = new Date(s.started).toLocaleString();
  const how = s.ended ? `ended ${new Date(s.ended).toLocaleTimeString()}${s.ended_how ? ` (${s.ended_how})` : ""}` : "running";
  const who = [s.harness, s.model].filter(Boolean).join(" / ") || "no harness named";
  const cost = s.tokens_prompt || s.tokens_completion ? ` · ${s.tokens_prompt} tokens in, ${s.tokens_completion} out, ${(s.model_latency_ms / 1000).toFixed(1)} s of model time` : "";
  const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  return `Session started ${when}, ${how} · ${n(s.records, "record", "records")}, ${n(s.decisions, "decision", "decisions")} (${s.with_reason} with a reason) · ${who}${cost}`;
}

function sessionPicker(t) {
  const pick = $("session-pick");
  pick.textContent = "";
  t.sessions.forEach((s, i) => {
    const o = document.createElement("option");
    o.value = s.session;
    o.textContent = `${i === 0 ? "newest: " : ""}${new Date(s.started_us / 1000).toLocaleString()}${s.ended_how ? ` (${s.ended_how})` : ""}`;
    o.selected = t.shown && s.session === t.shown.session;
    pick.appendChild(o);
  });
  pick.classList.toggle("hidden", t.sessions.length < 2);
}

async function show(which, seq) {
  tab = which;
  document.querySelectorAll(".tabs button").forEach((b) => b.classList.toggle("on", b.dataset.tab === which));
  for (const t of ["timeline", "memory", "mind", "hud"]) $(`tab-${t}`).classList.toggle("hidden", t !== which);
  const name = current;
  try {
    if (which === "timeline") {
      const q = new URLSearchParams({ limit: viewing !== null ? "2000" : "300" });
      if (viewing !== null) q.set("session", viewing);
      const t = await api(`/api/observe/agents/${name}/timeline?${q}`);
      if (name !== current) return;
      timeline.clear();
      shownSession = t.shown ? t.shown.session : null;
      for (const r of t.records) timeline.add(r, false);
      $("sessions").textContent = sessionHeader(t);
      sessionPicker(t);
      if (seq === undefined || !timeline.mark(seq)) $("agent").scrollTop = $("agent").scrollHeight;
    } else if (which === "memory") {
      try {
        const m = await api(`/api/observe/agents/${name}/memory`);
        if (name !== current) return;
        $("summary").textContent = m.summary;
        const d = m.last_dream;
        $("dream").textContent = d ? `last dream (${d.trigger}): ${d.nodes_before} → ${d.nodes_after} memories, ${d.pruned} pruned, ${d.reinforced} reinforced, ${d.events_extracted} new from ${d.records_read} records, ${d.elapsed_ms.toFixed(1)} ms` : "";
        $("graph").classList.remove("hidden");
        const n = drawMemoryGraph($("graph"), m.graph);
        $("graph-legend").textContent = `${n} memories, ${m.graph.edges.length} links, ${m.graph.cycles} dream cycles`;
      } catch (e) {
        if (name !== current) return;
        $("summary").textContent = e.code === "no_memory" ? "This agent has not dreamed yet." : e.message;
        $("dream").textContent = "";
        $("graph-legend").textContent = "";
        $("graph").textContent = "";
        $("graph").classList.add("hidden");
      }
    } else if (which === "mind") {
      const m = await api(`/api/observe/agents/${name}/mind`);
      if (name !== current) return;
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
        if (name !== current) return;
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
$("search-close").onclick = () => $("search-results").classList.add("hidden");
$("session-pick").onchange = () => {
  const s = Number($("session-pick").value);
  const newest = $("session-pick").options[0] && Number($("session-pick").options[0].value) === s;
  viewing = newest ? null : s;
  show("timeline");
};
$("search-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = new URLSearchParams({ q: $("q").value, limit: "50" });
  if (current) q.set("agent", current);
  try {
    const r = await api(`/api/search?${q}`);
    const hits = r.hits || r.results || [];
    $("search-results").classList.remove("hidden");
    $("search-count").textContent = `${hits.length} for “${$("q").value}”${current ? ` (${current})` : ""}`;
    const tb = $("hits");
    tb.textContent = "";
    for (const h of hits) {
      // A hit is a place in a timeline: click to open it there.
      const tr = document.createElement("tr");
      tr.className = "expandable";
      tr.title = "open in the timeline";
      for (const c of [h.agent || "", h.at_us ? clock(h.at_us) : "", h.kind || "", h.text || ""]) {
        const td = document.createElement("td");
        td.textContent = c;
        tr.appendChild(td);
      }
      tr.onclick = () => open(h.agent, h.session, h.seq);
      tb.appendChild(tr);
    }
    if (!hits.length) tb.innerHTML = "<tr><td class='dim'>nothing found</td></tr>";
    $("search-results").scrollIntoView({ block: "start" });
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

// The observatory's timeline: one agent's session as a trace, oldest first — each
// decision before what it caused (the record numbers a command as it begins), with its
// time, its reason, and a detail row (click it) holding the state before and after as
// a diff, the stimulus, the memory injected, the timing and the model's cost.
"use strict";
const STATE_FIELDS = [["hp", "hp"], ["max_hp", "max hp"], ["mana", "mana"], ["moves", "moves"], ["position", "position"], ["room_vnum", "room"], ["room_name", "room name"], ["fighting", "fighting"], ["level", "level"], ["exp", "exp"], ["gold", "gold"]];

function clock(us) {
  const d = new Date(us / 1000);
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function ms(us) { return `${(us / 1000).toFixed(1)} ms`; }

// A transition in words: "room 8010 → 8011 (The Temple)", "hp 24 → 20 of 24 (a rat)".
function transitionText(b) {
  switch (b.what) {
    case "hp": return `hp ${b.from} → ${b.to}${b.max ? ` of ${b.max}` : ""}${b.by ? ` (fighting ${b.by})` : ""}`;
    case "room": return `room ${b.from} → ${b.to}${b.name ? ` (${b.name})` : ""}`;
    case "level": case "exp": case "gold": return `${b.what} ${b.from} → ${b.to}`;
    case "item_acquired": return `got ${b.name} (#${b.vnum})`;
    case "item_lost": return `lost ${b.name} (#${b.vnum})`;
    case "equipped": return `wears ${b.name}`;
    case "unequipped": return `took off ${b.name}`;
    case "death": return `died${b.killer ? `, killed by ${b.killer}` : ""}${b.exp_lost ? ` (−${b.exp_lost} exp)` : ""}`;
    case "kill": return `killed ${b.victim} (level ${b.victim_level}${b.victim_is_player ? ", a player" : ""})`;
    case "social": return `${b.act} ${b.by_me ? "→" : "←"} ${b.other}${b.text ? `: ${b.text}` : ""}`;
    case "mind": return `kept in ${b.layer}: ${b.text}`;
    default: {
      const { what, kind, ...rest } = b;
      return `${what}: ${Object.entries(rest).map(([k, v]) => `${k} ${v}`).join(", ")}`;
    }
  }
}

// A decision's detail: the state as a diff, then why and what the agent had in front of it.
function decisionDetail(b) {
  const box = document.createElement("div");
  box.className = "detail";
  const add = (label, text, cls) => {
    if (text === undefined || text === null || text === "") return;
    const row = document.createElement("div");
    const k = document.createElement("span");
    k.className = "k";
    k.textContent = label;
    const v = document.createElement("span");
    if (cls) v.className = cls;
    v.textContent = text;
    row.append(k, v);
    box.appendChild(row);
  };
  const pre = b.pre || {}, post = b.post || {};
  const changed = [], same = [];
  for (const [f, label] of STATE_FIELDS) {
    const a = pre[f] ?? "—", z = post[f] ?? "—";
    if (a === z) same.push(`${label} ${a}`);
    else changed.push(`${label} ${a} → ${z}`);
  }
  add("changed", changed.join(" · ") || "nothing", changed.length ? "diff" : "dim");
  add("unchanged", same.join(" · "), "dim");
  add("reason", b.reason);
  const st = b.stimulus || {};
  add("stimulus", [st.kind, st.target].filter(Boolean).join(": "));
  add("mobs here", (st.mobs_present || []).join(", "));
  add("players here", (st.players_present || []).join(", "));
  add("last heard", st.last_message);
  add("last arrived", st.last_entered);
  if (st.memory_id) add("memory of it", `${st.memory_id} (valence ${Number(st.memory_valence || 0).toFixed(2)})`);
  if ((b.memory_ids || []).length) add("memory injected at login", b.memory_ids.join(", "));
  add("timing", `read ${clock(b.received_us)} · ran +${ms(b.dispatched_us - b.received_us)} · pulse ended +${ms(b.completed_us - b.dispatched_us)}`);
  const c = b.client || {};
  add("client", [c.harness, c.model, c.version].filter(Boolean).join(" / "));
  if (c.tokens_prompt != null || c.tokens_completion != null) add("model", `${c.tokens_prompt ?? 0} tokens in, ${c.tokens_completion ?? 0} out${c.latency_ms != null ? `, ${c.latency_ms} ms` : ""}`);
  add("id", b.re);
  // The model calls behind it: what each was asked and answered, and what it cost.
  for (const [i, m] of (b.llm || []).entries()) {
    const cost = [m.tokens_prompt != null ? `${m.tokens_prompt} tokens in` : "", m.tokens_completion != null ? `${m.tokens_completion} out` : "", `${Number(m.latency_ms || 0).toFixed(0)} ms`].filter(Boolean).join(", ");
    add(`model call ${i + 1}`, `${m.model} (${m.form}) — ${cost}${m.error ? ` — failed: ${m.error}` : ""}`, m.error ? "neg" : "");
    add("answer", m.answer);
    if (m.system || m.user) {
      const d = document.createElement("details");
      const sum = document.createElement("summary");
      sum.textContent = `the prompt (${(m.system || "").length + (m.user || "").length} characters${m.cut ? ", shortened by the client" : ""})`;
      const pre = document.createElement("pre");
      pre.textContent = `[system]\n${m.system}\n\n[user]\n${m.user}`;
      d.append(sum, pre);
      box.appendChild(d);
    }
  }
  return box;
}

class Timeline {
  constructor(tbody) {
    this.tb = tbody;
    this.rows = new Map(); // seq → tr
  }

  clear() { this.tb.textContent = ""; this.rows.clear(); }

  // A record as a row (none for what says nothing), placed by its seq.
  add(r, fresh) {
    if (this.rows.has(r.seq)) return;
    const b = r.body, cells = [String(r.seq), clock(r.at_us)];
    const tr = document.createElement("tr");
    tr.dataset.seq = r.seq;
    tr.dataset.kind = b.kind;
    if (fresh) tr.classList.add("fresh");
    let what;
    if (b.kind === "decision") {
      const c = b.client || {};
      const tokens = c.tokens_prompt != null ? `${c.tokens_prompt}+${c.tokens_completion ?? 0}` : "";
      what = document.createElement("div");
      const cmd = document.createElement("div");
      cmd.className = "command";
      cmd.textContent = `> ${b.command} ${b.args}`.trim();
      what.appendChild(cmd);
      if (b.reason) {
        const why = document.createElement("div");
        why.className = "reason";
        why.textContent = `why: ${b.reason}`;
        what.appendChild(why);
      }
      cells.push(what, b.status, ms(b.latency_us), tokens);
      tr.classList.add("expandable");
      tr.title = "click for the state before and after";
      tr.onclick = () => this.toggle(tr, b);
    } else if (b.kind === "observation") {
      if (!b.text || !b.text.trim()) return;
      what = `${b.event_type === "text" ? "" : `[${b.event_type}] `}${b.text}`;
      cells.push(what, "", "", "");
    } else {
      cells.push(transitionText(b), "", "", "");
    }
    for (const c of cells) {
      const td = document.createElement("td");
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      tr.appendChild(td);
    }
    // In seq order: after the last row numbered below it.
    const after = [...this.rows.keys()].filter((s) => s < r.seq).sort((a, b) => b - a)[0];
    const anchor = after === undefined ? null : this.rows.get(after);
    let before = anchor ? anchor.nextSibling : this.tb.firstChild;
    while (before && before.classList.contains("detail-row")) before = before.nextSibling;
    this.tb.insertBefore(tr, before);
    this.rows.set(r.seq, tr);
    while (this.rows.size > 1000) {
      const first = Math.min(...this.rows.keys());
      const row = this.rows.get(first);
      if (row.nextSibling && row.nextSibling.classList.contains("detail-row")) row.nextSibling.remove();
      row.remove();
      this.rows.delete(first);
    }
  }

  toggle(tr, b) {
    const next = tr.nextSibling;
    if (next && next.classList.contains("detail-row")) { next.remove(); tr.classList.remove("open"); return; }
    const row = document.createElement("tr");
    row.className = "detail-row";
    const td = document.createElement("td");
    td.colSpan = 6;
    td.appendChild(decisionDetail(b));
    row.appendChild(td);
    tr.after(row);
    tr.classList.add("open");
  }

  // Brings one record into view and marks it (a search hit followed here).
  mark(seq) {
    const tr = this.rows.get(seq);
    if (!tr) return false;
    this.tb.querySelectorAll("tr.marked").forEach((t) => t.classList.remove("marked"));
    tr.classList.add("marked");
    tr.scrollIntoView({ block: "center" });
    return true;
  }
}

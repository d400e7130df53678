// The play client's map: the rooms this character has seen, placed by the direction of
// each exit (ROOM_INFO names the room behind every exit), named, and kept per
// character in localStorage across logins. Clicking a room walks there by the known way.
"use strict";
const MAP_STEP = { n: [0, -1], e: [1, 0], s: [0, 1], w: [-1, 0], u: [0.5, -0.5], d: [-0.5, 0.5] };
const MAP_DIR = { n: "north", e: "east", s: "south", w: "west", u: "up", d: "down" };

class RoomMap {
  constructor(svg, walk) {
    this.svg = svg;
    this.walk = walk;
    this.owner = null;
    this.rooms = new Map(); // vnum → {x, y, name, exits: {n: vnum}}
    this.here = null;
  }

  // Loads the character's map (kept in this browser), or starts an empty one.
  load(owner) {
    this.owner = owner.toLowerCase();
    this.rooms = new Map();
    this.here = null;
    try {
      const kept = JSON.parse(localStorage.getItem(`pawns-map-${this.owner}`) || "null");
      if (kept && Array.isArray(kept.rooms)) for (const [v, r] of kept.rooms) this.rooms.set(Number(v), r);
    } catch (e) { /* a damaged copy: start again */ }
  }

  save() {
    if (!this.owner) return;
    const rooms = [...this.rooms].slice(-2000);
    try { localStorage.setItem(`pawns-map-${this.owner}`, JSON.stringify({ rooms })); } catch (e) { /* full: the map stays in the page */ }
  }

  // Where a room goes: beside a known neighbour, in the exit's direction.
  placeNear(vnum) {
    for (const [v, r] of this.rooms) {
      for (const [d, to] of Object.entries(r.exits || {})) {
        if (to === vnum && MAP_STEP[d]) return { x: r.x + MAP_STEP[d][0], y: r.y + MAP_STEP[d][1] };
      }
    }
    // Reached by no known way (a recall, a portal): apart from the rest.
    const xs = [...this.rooms.values()].map((r) => r.x);
    return xs.length ? { x: Math.max(...xs) + 4, y: 0 } : { x: 0, y: 0 };
  }

  // ROOM_INFO: {num, name, exits: {n: vnum}}.
  visit(info) {
    const vnum = Number(info.num);
    let r = this.rooms.get(vnum);
    if (!r) { r = { ...this.placeNear(vnum), name: "", exits: {} }; this.rooms.set(vnum, r); }
    r.name = info.name || r.name;
    r.exits = info.exits || {};
    for (const [d, to] of Object.entries(r.exits)) {
      if (!this.rooms.has(to) && MAP_STEP[d]) this.rooms.set(to, { x: r.x + MAP_STEP[d][0], y: r.y + MAP_STEP[d][1], name: "", exits: {} });
    }
    this.here = vnum;
    this.save();
    this.draw();
  }

  // The way from here to `to` over known exits (breadth first), as directions.
  path(to) {
    const prev = new Map([[this.here, null]]);
    const queue = [this.here];
    while (queue.length) {
      const at = queue.shift();
      if (at === to) break;
      for (const [d, next] of Object.entries((this.rooms.get(at) || {}).exits || {})) {
        if (!prev.has(next)) { prev.set(next, [at, MAP_DIR[d]]); queue.push(next); }
      }
    }
    if (!prev.has(to)) return null;
    const steps = [];
    for (let at = to; prev.get(at); at = prev.get(at)[0]) steps.unshift(prev.get(at)[1]);
    return steps;
  }

  draw() {
    const svg = this.svg, here = this.rooms.get(this.here);
    if (!here) return;
    const S = 30, NS = "http://www.w3.org/2000/svg";
    svg.textContent = "";
    const pos = (r) => [(r.x - here.x) * S, (r.y - here.y) * S];
    const el = (tag, attrs) => { const e = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); svg.appendChild(e); return e; };
    for (const [, r] of this.rooms) {
      for (const to of Object.values(r.exits || {})) {
        const o = this.rooms.get(to);
        if (!o) continue;
        const [x1, y1] = pos(r), [x2, y2] = pos(o);
        el("line", { x1, y1, x2, y2, stroke: "#55636d", "stroke-width": 2 });
      }
    }
    for (const [vnum, r] of this.rooms) {
      const [x, y] = pos(r);
      if (Math.abs(x) > 130 || Math.abs(y) > 90) continue;
      const seen = !!r.name;
      const c = el("rect", { x: x - 6, y: y - 6, width: 12, height: 12, rx: 2, fill: vnum === this.here ? "#e0a84f" : seen ? "#3a444b" : "#23292e" });
      c.dataset.vnum = vnum;
      c.classList.add("map-room");
      const t = document.createElementNS(NS, "title");
      t.textContent = seen ? `${r.name} (${vnum})` : `unexplored (${vnum})`;
      c.appendChild(t);
      c.addEventListener("click", () => this.go(vnum));
      if (seen && (vnum === this.here || Math.abs(x) <= S && Math.abs(y) <= S)) {
        const label = el("text", { x, y: y + 16, "text-anchor": "middle", fill: vnum === this.here ? "#e0a84f" : "#8a959e", "font-size": 7 });
        label.textContent = r.name.length > 22 ? r.name.slice(0, 21) + "…" : r.name;
        label.classList.add("map-label");
      }
    }
  }

  go(vnum) {
    if (vnum === this.here) return;
    const steps = this.path(vnum);
    if (steps && steps.length) this.walk(steps);
  }
}

// Draws an agent's memory graph (StoredGraph: nodes with salience and valence, edges)
// as SVG with a small force layout: size is salience, colour is valence (red − … + green).
"use strict";
function drawMemoryGraph(svg, graph) {
  const NS = "http://www.w3.org/2000/svg";
  const W = svg.clientWidth || 800, H = svg.clientHeight || 480;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.textContent = "";
  const n0 = Math.max(1, graph.nodes.length);
  const nodes = graph.nodes.map((n, i) => ({ ...n, x: W / 2 + (W / 3) * Math.cos((2 * Math.PI * i) / n0), y: H / 2 + (H / 3) * Math.sin((2 * Math.PI * i) / n0) }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges = graph.edges.filter((e) => byId.has(e.from) && byId.has(e.to)).map((e) => [byId.get(e.from), byId.get(e.to), e.kind]);
  // Fruchterman–Reingold: repulsion k²/d between all, attraction d²/k along links, a
  // temperature that cools; enough steps for the few hundred memories a dream keeps.
  const k = 0.6 * Math.sqrt((W * H) / n0);
  const steps = nodes.length > 400 ? 50 : 150;
  let temp = W / 8;
  for (let s = 0; s < steps; s++) {
    for (const n of nodes) { n.dx = 0; n.dy = 0; }
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i], b = nodes[j];
        const dx = a.x - b.x, dy = a.y - b.y, d = Math.max(0.5, Math.hypot(dx, dy)), f = (k * k) / d;
        a.dx += (dx / d) * f; a.dy += (dy / d) * f; b.dx -= (dx / d) * f; b.dy -= (dy / d) * f;
      }
    }
    for (const [a, b] of edges) {
      const dx = a.x - b.x, dy = a.y - b.y, d = Math.max(0.5, Math.hypot(dx, dy)), f = (d * d) / k;
      a.dx -= (dx / d) * f; a.dy -= (dy / d) * f; b.dx += (dx / d) * f; b.dy += (dy / d) * f;
    }
    for (const n of nodes) {
      // A pull to the middle keeps unlinked memories on the page.
      n.dx += (W / 2 - n.x) * 0.05; n.dy += (H / 2 - n.y) * 0.05;
      const d = Math.max(0.5, Math.hypot(n.dx, n.dy)), step = Math.min(d, temp);
      n.x = Math.max(16, Math.min(W - 16, n.x + (n.dx / d) * step));
      n.y = Math.max(16, Math.min(H - 16, n.y + (n.dy / d) * step));
    }
    temp *= 0.96;
  }
  for (const [a, b] of edges) {
    const l = document.createElementNS(NS, "line");
    Object.entries({ x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: "#3a444b" }).forEach(([k, v]) => l.setAttribute(k, v));
    svg.appendChild(l);
  }
  const colour = (v) => {
    const t = Math.max(-1, Math.min(1, v || 0));
    return t < 0 ? `rgb(${200},${Math.round(90 + 110 * (1 + t))},${Math.round(80 + 100 * (1 + t))})` : `rgb(${Math.round(200 - 120 * t)},${200},${Math.round(180 - 90 * t)})`;
  };
  for (const n of nodes) {
    const c = document.createElementNS(NS, n.kind === "event" ? "circle" : "rect");
    const r = 3 + 9 * Math.max(0, Math.min(1, n.salience));
    if (n.kind === "event") Object.entries({ cx: n.x, cy: n.y, r }).forEach(([k, v]) => c.setAttribute(k, v));
    else Object.entries({ x: n.x - r, y: n.y - r, width: 2 * r, height: 2 * r, rx: 2 }).forEach(([k, v]) => c.setAttribute(k, v));
    c.setAttribute("fill", colour(n.valence));
    c.setAttribute("class", "memory-node");
    const t = document.createElementNS(NS, "title");
    t.textContent = `${n.label}\n${n.kind} · salience ${n.salience.toFixed(2)} · valence ${n.valence.toFixed(2)} · met ${n.encounters}×`;
    c.appendChild(t);
    svg.appendChild(c);
    if (n.kind !== "event" && r > 5) {
      // The label on the side with room for it (one on the right half reads leftward),
      // whole up to 28 characters: a name cut to its article said nothing.
      const label = document.createElementNS(NS, "text");
      const left = n.x > W * 0.6;
      Object.entries({ x: left ? n.x - r - 3 : n.x + r + 3, y: n.y + 4, fill: "#8a959e", "font-size": 10, "text-anchor": left ? "end" : "start" }).forEach(([k, v]) => label.setAttribute(k, v));
      label.setAttribute("class", "memory-label");
      label.textContent = n.label.length > 28 ? n.label.slice(0, 27) + "…" : n.label;
      svg.appendChild(label);
    }
  }
  return nodes.length;
}

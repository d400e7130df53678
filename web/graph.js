// Draws an agent's memory graph (StoredGraph: nodes with salience and valence, edges)
// as SVG with a small force layout: size is salience, colour is valence (red − … + green).
"use strict";
function drawMemoryGraph(svg, graph) {
  const NS = "http://www.w3.org/2000/svg";
  const W = svg.clientWidth || 800, H = svg.clientHeight || 480;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.textContent = "";
  const nodes = graph.nodes.map((n, i) => ({ ...n, x: W / 2 + Math.cos(i) * (40 + i * 3), y: H / 2 + Math.sin(i) * (40 + i * 3), vx: 0, vy: 0 }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges = graph.edges.filter((e) => byId.has(e.from) && byId.has(e.to)).map((e) => [byId.get(e.from), byId.get(e.to), e.kind]);
  // A few hundred steps of springs and repulsion: enough for the graphs a dream keeps.
  const steps = nodes.length > 400 ? 60 : 200;
  for (let s = 0; s < steps; s++) {
    for (let i = 0; i < nodes.length; i++) {
      const a = nodes[i];
      for (let j = i + 1; j < nodes.length; j++) {
        const b = nodes[j];
        let dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy + 0.01;
        const f = 900 / d2;
        a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
      }
    }
    for (const [a, b] of edges) {
      const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) + 0.01, f = (d - 60) * 0.02;
      a.vx += (dx / d) * f * d * 0.05; a.vy += (dy / d) * f * d * 0.05;
      b.vx -= (dx / d) * f * d * 0.05; b.vy -= (dy / d) * f * d * 0.05;
    }
    for (const n of nodes) {
      n.vx += (W / 2 - n.x) * 0.002; n.vy += (H / 2 - n.y) * 0.002;
      n.x = Math.max(10, Math.min(W - 10, n.x + Math.max(-20, Math.min(20, n.vx))));
      n.y = Math.max(10, Math.min(H - 10, n.y + Math.max(-20, Math.min(20, n.vy))));
      n.vx *= 0.5; n.vy *= 0.5;
    }
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
      const label = document.createElementNS(NS, "text");
      Object.entries({ x: n.x + r + 2, y: n.y + 4, fill: "#8a959e", "font-size": 10 }).forEach(([k, v]) => label.setAttribute(k, v));
      label.textContent = n.label.slice(0, 24);
      svg.appendChild(label);
    }
  }
  return nodes.length;
}

// asl-terrain serve: the page. It asks the engine through GET /api/map and POST /api/ask only (the same
// queries `asl-terrain ask` takes, queries.md), and draws over GET /api/map.svg. No library, no build step.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const $ = (sel) => document.querySelector(sel);
const state = {
  map: null, size: 36, hexes: new Map(), mode: "los", view: null, full: null,
  a: null, b: null, aLoc: null, bLoc: null,         // the chosen hexes and Locations of the mode
  reach: null, lastQuery: null, lastRender: null,
  counters: [], ownCounters: "[]", conditions: null, ownConditions: null,
  dragging: false, pan: null, tool: "", form: {},
};

// ------------------------------------------------------------------ requests: one in flight per channel, latest wins
class Channel {
  constructor() { this.inflight = false; this.pending = null; this.seq = 0; }
  send(queries, onAnswer) { this.pending = { queries, onAnswer, seq: ++this.seq }; this.pump(); }
  cancel() { this.pending = null; this.seq++; }
  async pump() {
    if (this.inflight || !this.pending) return;
    const job = this.pending; this.pending = null; this.inflight = true;
    document.body.dataset.busy = "1";
    try {
      const r = await fetch("/api/ask", { method: "POST", headers: { "content-type": "application/json" },
                                          body: JSON.stringify(job.queries) });
      let data = await r.json();
      // a refused request (400, 413, 503 busy) answers one error object: every query gets its words
      if (!Array.isArray(data)) data = job.queries.map((q) => ({ kind: q.kind, error: data.error || String(r.status) }));
      if (job.seq === this.seq || this.pending) job.onAnswer(data, r.status);  // a cancelled job is dropped
    } catch (e) {
      job.onAnswer([{ kind: job.queries[0].kind, error: "the server did not answer: " + e }], 0);
    } finally {
      this.inflight = false;
      if (!this.pending) delete document.body.dataset.busy;
      this.pump();
    }
  }
}
const main = new Channel(), hover = new Channel();

function withSituation(q) {
  // what-if counters and conditions go with every query (docs/map-format-extensions.md)
  const out = Object.assign({}, q);
  if (JSON.stringify(state.counters) !== state.ownCounters) out.counters = state.counters;
  const c = state.conditions, o = state.ownConditions, diff = {};
  for (const k of ["month", "weather", "frigid"]) if (c[k] !== o[k]) diff[k] = c[k];
  const extra = (c.ssr || []).filter((n) => !(o.ssr || []).includes(n));  // a query's switches add to the map's
  if (extra.length) diff.ssr = extra;
  if (Object.keys(diff).length) out.conditions = diff;
  return out;
}

function ask(queries, render) {
  state.lastQuery = queries; state.lastRender = render;
  main.send(queries.map(withSituation), (answers, status) => {
    showAnswer(answers);
    render(answers, status);
  });
}

function refresh() { if (state.lastQuery) ask(state.lastQuery, state.lastRender); }

function showAnswer(answers) {
  const el = $("#answer");
  const one = answers.length === 1 ? answers[0] : answers;
  const text = JSON.stringify(one);
  el.setAttribute("data-answer", text);
  el.textContent = JSON.stringify(one, null, 1);
}

// ------------------------------------------------------------------ geometry (grid.py: scaled points, odd-q)
function parseHex(name) {
  const p = state.map.prefix;
  let s = name;
  if (p && s.startsWith(p) && /^[A-Z]+\d+$/.test(s.slice(p.length))) s = s.slice(p.length);
  const m = /^([A-Z]+)(\d+)$/.exec(s);
  if (!m) return null;
  const col = (m[1].length - 1) * 26 + m[1].charCodeAt(0) - 65;
  return { col, row: parseInt(m[2], 10) };
}
function centreOf(col, row) {
  const s = state.size;
  return [3 * col * s / 2, (2 * row + (col & 1)) * s * Math.sqrt(3) / 2];
}
function hexCentre(name) {
  const h = state.hexes.get(name);
  if (h) return [h.x, h.y];
  const c = parseHex(name);
  return c ? centreOf(c.col, c.row) : null;
}
function locHex(loc) { return loc.split("@")[0].split("/")[0]; }
function pointOf(loc) {
  // a Location's point: its hex centre; a Bypass position at a vertex or along a hexside: the mean of its hexes
  const [base, at] = loc.split("@");
  const h = base.split("/")[0];
  if (!at) return hexCentre(h);
  const pts = at.split("-").map((n) => hexCentre(n) || hexCentre(state.map.prefix + n)).filter(Boolean);
  if (!pts.length) return hexCentre(h);
  return [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];
}
function cornerPoints(x, y) {
  const s = state.size, r3 = Math.sqrt(3);
  return [[s / 2, -s * r3 / 2], [s, 0], [s / 2, s * r3 / 2], [-s / 2, s * r3 / 2], [-s, 0], [-s / 2, -s * r3 / 2]]
    .map(([dx, dy]) => [x + dx, y + dy]);
}
const ODD_Q = [[[0, -1], [1, -1], [1, 0], [0, 1], [-1, 0], [-1, -1]], [[0, -1], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0]]];
function hexName(col, row) {
  const letters = String.fromCharCode(65 + (col % 26)).repeat(Math.floor(col / 26) + 1);
  return letters + row;
}
function vertexLocations(name) {
  // the six Bypass positions at the vertices of a hex ("HrO17@O17-O18-N17"): a LOS end may be one (queries.md)
  const c = parseHex(name);
  if (!c) return [];
  const n = ODD_Q[c.col & 1].map(([dc, dr]) => hexName(c.col + dc, c.row + dr));
  const own = hexName(c.col, c.row), out = [];
  for (let k = 0; k < 6; k++) {
    const a = n[k], b = n[(k + 1) % 6];
    if (c.row + ODD_Q[c.col & 1][k][1] < 0 || c.row + ODD_Q[c.col & 1][(k + 1) % 6][1] < 0) continue;
    out.push(`${name}@${own}-${a}-${b}`);
  }
  return out;
}

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function clear(sel) { const g = $(sel); while (g.firstChild) g.removeChild(g.firstChild); return g; }
function hexEl(name) { return document.querySelector(`#layer-hexes [data-hex="${CSS.escape(name)}"]`); }

// ------------------------------------------------------------------ view: pan and zoom with the viewBox
function setView(v) {
  state.view = v;
  $("#map").setAttribute("viewBox", `${v[0]} ${v[1]} ${v[2]} ${v[3]}`);
}
function zoom(f, cx, cy) {
  const v = state.view;
  if (cx === undefined) { cx = v[0] + v[2] / 2; cy = v[1] + v[3] / 2; }
  const w = Math.min(Math.max(v[2] * f, state.size * 4), state.full[2] * 4);
  const k = w / v[2];
  setView([cx - (cx - v[0]) * k, cy - (cy - v[1]) * k, v[2] * k, v[3] * k]);
}
function fit() {
  const r = $("#map").getBoundingClientRect(), f = state.full;
  const k = Math.max(f[2] / r.width, f[3] / r.height);
  const w = r.width * k, h = r.height * k;
  setView([f[0] - (w - f[2]) / 2, f[1] - (h - f[3]) / 2, w, h]);
}
function toMap(ev) {
  const svg = $("#map"), pt = svg.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, p.y];
}

// ------------------------------------------------------------------ formatting, as the CLI writes numbers
const GLYPHS = { 0.5: "½", 0.25: "¼", 0.75: "¾", 0.333: "⅓", 0.667: "⅔" };
function num(v) {
  if (typeof v !== "number") return String(v);
  const sign = v < 0 ? "-" : "", a = Math.abs(v), whole = Math.floor(a + 1e-9), rest = a - whole;
  if (rest < 1e-6) return sign + whole;
  const g = GLYPHS[Math.round(rest * 1000) / 1000] || GLYPHS[Math.round(rest * 100) / 100];
  return g ? sign + (whole || "") + g : String(v);
}
function signed(v) { return (typeof v === "number" && v > 0 ? "+" : "") + num(v); }
function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c])); }
function value(v) {
  if (v === true) return "yes";
  if (v === false) return "no";
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") return num(v);
  if (Array.isArray(v)) return v.length ? v.map(value).join(", ") : "none";
  if (typeof v === "object") {
    if ("terrain" in v && "rule" in v) return `${v.terrain} at ${v.hexside || v.hex} (${v.rule})`;
    return Object.entries(v).map(([k, x]) => `${k} ${value(x)}`).join(", ");
  }
  return String(v);
}
function itemsTable(items, unitsLabel) {
  if (!items || !items.length) return "";
  const key = ["amount", "drm", "cost"].find((k) => k in items[0]) || "cost";
  const head = key === "amount" ? "TEM/DRM" : key === "drm" ? "DRM" : (unitsLabel || "cost");
  const rows = items.map((i) => `<tr><td class="num">${esc(key === "cost" ? num(i[key]) : signed(i[key]))}</td>` +
    `<td>${esc(i.why || "")}</td><td>${esc(i.rule || "")}</td></tr>`).join("");
  return `<table class="items"><tr><th>${esc(head)}</th><th>why</th><th>rule</th></tr>${rows}</table>`;
}
function facts(a, keys) {
  const rows = keys.filter((k) => k in a).map((k) => `<dt>${esc(k.replace(/_/g, " "))}</dt><dd>${esc(value(a[k]))}</dd>`);
  return rows.length ? `<dl>${rows.join("")}</dl>` : "";
}
function rulesLine(a) {
  return `<p class="rules"><b>rules</b>: ${esc((a.rules || []).join(", ") || "–")}</p>` +
    `<p class="explain">${esc(a.explain || "")}</p>`;
}
function errorBlock(a) { return `<p class="error" data-error>${esc(a.error)}</p>`; }
function setResult(html) { $("#result").innerHTML = html; }

// ------------------------------------------------------------------ the map and its overlays
function drawHexes() {
  const g = clear("#layer-hexes");
  for (const h of state.map.hexes) {
    const pts = cornerPoints(h.x, h.y).map((p) => p.map((x) => x.toFixed(2)).join(",")).join(" ");
    const poly = el("polygon", { points: pts, class: "hex", "data-hex": h.name }, g);
    if (h.board_name) poly.setAttribute("data-board-hex", h.board_name);
  }
  const bg = clear("#layer-boards");
  if (state.map.boards.length > 1) {
    for (const b of state.map.boards) {
      const t = el("text", { x: b.box[0] + state.size * 0.4, y: b.box[1] + state.size * 1.1, class: "board-label",
                             "font-size": state.size * 0.9 }, bg);
      t.textContent = `${b.archive}${b.prefix ? " (" + b.prefix + ")" : ""}`;
    }
  }
}

function resetOverlays() {
  for (const e of document.querySelectorAll("#layer-hexes .hex")) e.setAttribute("class", "hex");
  for (const e of document.querySelectorAll("#layer-hexes .hex[style]")) e.removeAttribute("style");
  clear("#layer-labels"); clear("#layer-overlay");
}
function mark(name, cls) { const e = hexEl(name); if (e) e.classList.add(cls); }
function label(name, text, size) {
  const c = hexCentre(name);
  if (!c) return;
  const t = el("text", { x: c[0], y: c[1] + state.size * 0.25, class: "label", "font-size": size || state.size * 0.42 },
    $("#layer-labels"));
  t.textContent = text;
}

const COUNTER_STYLE = {
  smoke: ["#cfcfcf", (c) => "SMK " + c.strength], wreck: ["#6a6a6a", () => "WRK"], vehicle: ["#7f8f4e", () => "VEH"],
  mines: ["#e2cd6a", (c) => "MIN " + c.strength], "residual-fp": ["#f0a3a3", (c) => "RFP " + c.fp],
  blaze: ["#ff8c1a", () => "BLZ"], rubble: ["#a0a0a0", () => "RUB"], entrenchment: ["#9b7a48", () => "ENT"],
  roadblock: ["#3b2a1a", () => "RB"],
};
function drawCounters() {
  const g = clear("#layer-counters"), own = JSON.parse(state.ownCounters).map((c) => JSON.stringify(c));
  const perHex = new Map();
  for (const c of state.counters) {
    const where = c.at || (c.hexside || "").split("-")[0];
    const h = c.at ? c.at : (state.map.prefix && !where.startsWith(state.map.prefix) ? state.map.prefix + where : where);
    const n = perHex.get(h) || 0; perHex.set(h, n + 1);
    const p = c.hexside ? pointOf(locHex(h) + "@" + c.hexside.replace(state.map.prefix, "")) : hexCentre(h);
    if (!p) continue;
    const s = state.size * 0.62, [fill, text] = COUNTER_STYLE[c.type] || ["#fff", () => c.type];
    const whatIf = !own.includes(JSON.stringify(c));
    const grp = el("g", { class: "counter" + (whatIf ? " what-if" : ""), "data-counter": c.type, "data-at": h,
                          transform: `translate(${p[0] - s / 2 + n * 5} ${p[1] - s / 2 - n * 5})` }, g);
    el("rect", { width: s, height: s, rx: 2, fill }, grp);
    const t = el("text", { x: s / 2, y: s / 2, fill: c.type === "wreck" || c.type === "roadblock" ? "#fff" : "#000" }, grp);
    t.textContent = text(c);
    if (c.name) el("title", {}, grp).textContent = c.name;
  }
  // the units of a saved game ([[unit]]): shown, for stacking, not placed or moved here
  const sides = [...new Set((state.map.units || []).map((u) => u.side))];
  for (const u of state.map.units || []) {
    if (!u.at) continue;
    const h = locHex(u.at), n = perHex.get(h) || 0; perHex.set(h, n + 1);
    const p = hexCentre(h);
    if (!p) continue;
    const s = state.size * 0.5, hue = (sides.indexOf(u.side) * 137 + 30) % 360;
    const grp = el("g", { class: "unit", "data-unit": u.kind, "data-at": u.at,
                          transform: `translate(${p[0] - s / 2 + (n % 4) * 4} ${p[1] - s / 2 - (n % 4) * 4})` }, g);
    el("rect", { width: s, height: s, rx: 2, fill: `hsl(${hue}, 45%, 70%)` }, grp);
    el("text", { x: s / 2, y: s / 2 }, grp).textContent = UNIT_ABBR[u.kind] || u.kind.slice(0, 3).toUpperCase();
    el("title", {}, grp).textContent = `${u.name} (${u.kind}${u.side ? ", " + u.side : ""}) in ${u.at}`;
  }
}
const UNIT_ABBR = { squad: "SQD", "half-squad": "HS", crew: "CRW", leader: "LDR", smc: "SMC", sw: "SW", gun: "GUN",
                    vehicle: "VEH" };

// a unit choice as queries.md writes it: a vehicle class is a vehicle object
const VEHICLE_CLASSES = ["half-track", "armored-car", "truck"];
function unitOf(id) {
  const v = $(id).value;
  return VEHICLE_CLASSES.includes(v) ? { type: "vehicle", class: v } : v;
}

// ------------------------------------------------------------------ LOS
function losQuery() {
  const q = { kind: "los", from: state.aLoc, to: state.bLoc };
  return q;
}
function runLos(tracing) {
  if (!state.aLoc || !state.bLoc) return;
  drawThread(null, tracing);
  ask([losQuery()], ([a]) => { drawThread(a, false); renderLos(a); });
}
function drawThread(a, tracing) {
  clear("#layer-overlay");
  for (const e of document.querySelectorAll("#layer-hexes .hex.hind, #layer-hexes .hex.blocker"))
    e.classList.remove("hind", "blocker");
  clear("#layer-labels");
  const p = pointOf(state.aLoc), q = pointOf(state.bLoc);
  if (!p || !q) return;
  const g = $("#layer-overlay");
  if (!a || a.error) {
    el("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: "thread tracing" }, g);
    return;
  }
  const t = a.blocked_at === null || a.blocked_at === undefined ? 1 : a.blocked_at;
  const bx = p[0] + (q[0] - p[0]) * t, by = p[1] + (q[1] - p[1]) * t;
  const before = a.hindrance_drm ? "hindered" : "clear";
  el("line", { x1: p[0], y1: p[1], x2: bx, y2: by, class: "thread " + before, "data-thread": before }, g);
  if (!a.clear) {
    el("line", { x1: bx, y1: by, x2: q[0], y2: q[1], class: "thread blocked", "data-thread": "blocked" }, g);
    const r = state.size * 0.3;
    el("line", { x1: bx - r, y1: by - r, x2: bx + r, y2: by + r, class: "block-mark", "data-block": "" }, g);
    el("line", { x1: bx - r, y1: by + r, x2: bx + r, y2: by - r, class: "block-mark" }, g);
    if (a.blocked_by && a.blocked_by.hex) mark(a.blocked_by.hex, "blocker");
  }
  for (const h of a.hindrances || []) {
    mark(h.hex, "hind");
    const c = hexCentre(h.hex);
    if (c) el("circle", { cx: c[0], cy: c[1], r: state.size * 0.62, class: "hind-ring", "data-hindrance": h.hex }, g);
    label(h.hex, "+" + h.drm);
  }
}
function renderLos(a) {
  if (a.error) { setResult(`<h2>LOS</h2>${errorBlock(a)}`); return; }
  const verdict = !a.clear ? "blocked" : a.hindrance_drm ? "hindered" : "clear";
  const words = verdict === "blocked" ? `blocked by ${value(a.blocked_by)}` :
    verdict === "hindered" ? `clear, hindered +${a.hindrance_drm}` : "clear";
  setResult(`<h2>LOS ${esc(a.from)} → ${esc(a.to)}</h2>` +
    `<p class="verdict ${verdict}" data-verdict="${verdict}">${esc(words)}</p>` +
    facts(a, ["range", "elevations", "up_slope", "height_advantage", "blind", "borderline", "hindrance_drm",
              "roadblocks_crossed"]) + itemsTable(a.items) + rulesLine(a));
}

// ------------------------------------------------------------------ reach, with the path to the hovered hex
function reachQuery() {
  const q = { kind: "reach", unit: unitOf("#unit"), from: state.aLoc };
  const mf = $("#allowance").value;
  if (mf !== "") q.allowance = Number(mf);
  return q;
}
function runReach() {
  if (!state.aLoc) return;
  ask([reachQuery()], ([a]) => {
    resetOverlays();
    mark(locHex(state.aLoc), "sel-a");
    if (a.error) { state.reach = null; setResult(`<h2>Reach</h2>${errorBlock(a)}`); return; }
    state.reach = a;
    const best = new Map();  // hex -> [cost, Location]
    for (const [loc, cost] of Object.entries(a.costs)) {
      const h = locHex(loc), b = best.get(h);
      if (!b || cost < b[0] || (cost === b[0] && !loc.includes("@") && b[1].includes("@"))) best.set(h, [cost, loc]);
    }
    state.reachBest = best;
    const max = Math.max(1, ...[...best.values()].map((b) => b[0]));
    for (const [h, [cost]] of best) {
      const e = hexEl(h);
      if (!e) continue;
      e.classList.add("reach");
      const k = cost / max;  // cheap: green, dear: red
      e.style.fill = `hsl(${Math.round(120 - 120 * k)}, 70%, 45%)`;
      e.setAttribute("data-cost", cost);
      label(h, num(cost), state.size * 0.5);
    }
    setResult(`<h2>Reach from ${esc(a.from)}</h2>` +
      `<p class="verdict">${best.size} hexes, ${Object.keys(a.costs).length} Locations and Bypass positions</p>` +
      facts(a, ["allowance", "units", "road_bonus"]) + rulesLine(a) +
      `<p class="hint">Hover a shaded hex for its cheapest path and what each step costs.</p>`);
    if (state.hoverHex) hoverPath(state.hoverHex);  // the mouse may already be over a hex
  });
}
function hoverPath(name) {
  if (!state.reach || !state.reachBest) return;
  const b = state.reachBest.get(name);
  clear("#layer-overlay");
  if (!b) { $("#hover-result").innerHTML = ""; return; }
  const path = state.reach.paths[b[1]];
  if (!path) return;
  const pts = path.map(pointOf).filter(Boolean);
  const g = $("#layer-overlay");
  const line = pts.map((p) => p.join(",")).join(" ");
  el("polyline", { points: line, class: "path-casing" }, g);  // a white casing: the path shows on any terrain
  el("polyline", { points: line, class: "path", "data-path": b[1] }, g);
  for (const p of pts) el("circle", { cx: p[0], cy: p[1], r: 4, class: "path-dot" }, g);
  if (path.length < 2) { $("#hover-result").innerHTML = ""; return; }
  const q = { kind: "path", unit: unitOf("#unit"), hexes: path };
  const mf = $("#allowance").value;
  if (mf !== "") q.allowance = Number(mf);
  hover.send([withSituation(q)], ([a]) => {
    if (a.error) { $("#hover-result").innerHTML = errorBlock(a); return; }
    const rows = [];
    for (const s of a.steps || []) {
      for (const i of s.items || []) rows.push(`<tr><td>${esc(s.to)}</td><td class="num">${esc(num(i.cost))}</td>` +
        `<td>${esc(i.why)}</td><td>${esc(i.rule)}</td></tr>`);
    }
    $("#hover-result").innerHTML = `<h3 data-path-to="${esc(b[1])}" data-path-cost="${a.cost}">Cheapest path to ${esc(b[1])}: ` +
      `${esc(num(a.cost))} ${esc(a.units || "")}</h3><table class="items"><tr><th>step</th><th>${esc(a.units || "")}` +
      `</th><th>why</th><th>rule</th></tr>${rows.join("")}</table>` + rulesLine(a);
  });
}

// ------------------------------------------------------------------ viewshed
function runViewshed() {
  if (!state.aLoc) return;
  const q = { kind: "viewshed", from: state.aLoc };
  const lv = $("#vs-level").value;
  if (lv !== "") q.level = Number(lv);
  ask([q], ([a]) => {
    resetOverlays();
    if (a.error) { setResult(`<h2>Viewshed</h2>${errorBlock(a)}`); return; }
    mark(locHex(state.aLoc), "viewer");
    let hindered = 0;
    for (const [loc, drm] of Object.entries(a.visible)) {
      const h = locHex(loc);
      mark(h, drm ? "seen-hindered" : "seen");
      if (drm) { hindered++; label(h, "+" + drm); }
    }
    const n = Object.keys(a.visible).length;
    setResult(`<h2>Viewshed of ${esc(a.from)}</h2><p class="verdict">${n} Locations seen, ${hindered} through ` +
      `Hindrances</p><p class="hint">Green: seen clear; amber: through Hindrances (their DRM); untinted: not seen.</p>` +
      rulesLine(a));
  });
}

// ------------------------------------------------------------------ TEM, move, hex (stacking and set-up)
function runTem() {
  if (!state.aLoc || !state.bLoc) return;
  const attack = $("#attack").value;
  const q = { kind: "tem", target: state.bLoc, firer: state.aLoc, attack, unit: unitOf("#target-unit") };
  const moved = $("#moved-by").value;
  if (moved) q.moved_by = moved;
  ask([q], ([a]) => {
    resetOverlays(); mark(locHex(state.aLoc), "sel-a"); mark(locHex(state.bLoc), "sel-b");
    const p = pointOf(state.aLoc), t = pointOf(state.bLoc);
    if (p && t) el("line", { x1: p[0], y1: p[1], x2: t[0], y2: t[1], class: "thread tracing" }, $("#layer-overlay"));
    if (a.error) { setResult(`<h2>TEM</h2>${errorBlock(a)}`); return; }
    setResult(`<h2>${esc(attack)} from ${esc(state.aLoc)} at ${esc(state.bLoc)}</h2>` +
      `<p class="verdict" data-total-drm="${a.total_drm}">TEM ${esc(signed(a.tem))}, total DRM ${esc(signed(a.total_drm))}` +
      `${a.affected === false ? " — not affected" : ""}</p>` +
      facts(a, ["tem", "hindrance_drm", "drm", "ffmo", "ffnam", "open_ground", "affected", "total_drm"]) +
      itemsTable(a.items) + rulesLine(a));
  });
}
function runMove() {
  if (!state.aLoc || !state.bLoc) return;
  const q = { kind: "move", unit: unitOf("#unit"), from: state.aLoc, to: state.bLoc };
  ask([q], ([a]) => {
    resetOverlays(); mark(locHex(state.aLoc), "sel-a"); mark(locHex(state.bLoc), "sel-b");
    if (a.error) { setResult(`<h2>Move</h2>${errorBlock(a)}`); return; }
    setResult(`<h2>Move ${esc(a.from)} → ${esc(a.to)}</h2>` +
      `<p class="verdict ${a.allowed ? "clear" : "blocked"}">${a.allowed ? esc(num(a.cost) + " " + a.units) : "not allowed"}</p>` +
      facts(a, ["reason", "road_rate", "ffmo_exposed"]) + itemsTable(a.items, a.units) + rulesLine(a));
  });
}
function runHex(name) {
  const h = state.hexes.get(name);
  if (!h) return;
  const item = $("#setup-item") ? $("#setup-item").value : "squad";
  const qs = h.locations.map((loc) => ({ kind: "stacking", at: loc }));
  const sq = { kind: "setup", item, at: $("#hex-loc") ? ($("#hex-loc").value || name) : name };
  if (item === "mines") { sq.mine_kind = $("#mine-kind").value; sq.hidden = $("#mine-hidden").checked; }
  qs.push(sq);
  ask(qs, (answers) => {
    resetOverlays(); mark(name, "sel-a");
    const setup = answers[answers.length - 1];
    const stack = answers.slice(0, -1).map((a, i) => a.error ? `<tr><td>${esc(h.locations[i])}</td><td colspan=2 class="error">${esc(a.error)}</td></tr>` :
      `<tr><td>${esc(h.locations[i])}</td><td>${esc(a.limit || num(a.squad_equivalents))}</td><td>${a.guns_allowed ? "guns allowed" : "no guns"}</td></tr>`).join("");
    setResult(`<h2>${esc(name)}${h.board_name ? " (" + esc(h.board_name) + ")" : ""}</h2><p>${esc(h.terrain)}</p>` +
      `<h3>Stacking</h3><table class="items">${stack}</table>` +
      `<h3>Set-up: ${esc(item)} at ${esc(sq.at)}</h3>` +
      (setup.error ? errorBlock(setup) : `<p class="verdict ${setup.allowed ? "clear" : "blocked"}" data-setup="${setup.allowed}">` +
        `${setup.allowed ? "allowed" : "not allowed"}</p>` + facts(setup, ["reason", "must_be_revealed"]) + rulesLine(setup)));
  });
}

// ------------------------------------------------------------------ the side panel's controls per mode
function options(list, selected) {
  return list.map((v) => { const [val, text] = Array.isArray(v) ? v : [v, v];
    return `<option value="${esc(val)}"${val === selected ? " selected" : ""}>${esc(text)}</option>`; }).join("");
}
function locChoices(name) {
  const h = state.hexes.get(name);
  if (!h) return [];
  return h.locations.concat(vertexLocations(name));
}
function endPicker(id, title, name, chosen) {
  if (!name) return `<label>${esc(title)} <i>click a hex</i></label>`;
  return `<label>${esc(title)} <select id="${id}" data-end="${id}">${options(locChoices(name), chosen)}</select></label>`;
}
const HINTS = {
  los: "Press on a hex and drag to another (or click one, then the other). Choose each end's level below.",
  reach: "Choose a unit and its MF/MP, then click the starting Location.",
  viewshed: "Click the viewing Location.",
  tem: "Click the firer, then the target.",
  move: "Click a hex, then an adjacent hex.",
  hex: "Click a hex (or right-click one in any mode) for its stacking limits and set-up rulings.",
};
function renderControls() {
  const m = state.mode, ch = state.map.choices;
  let html = `<p class="hint" data-hint>${esc(HINTS[m])}</p>`;
  const unit = "infantry";
  if (m === "los" || m === "tem") {
    html += endPicker("a-loc", m === "tem" ? "firer" : "from", state.a, state.aLoc) +
            endPicker("b-loc", m === "tem" ? "target" : "to", state.b, state.bLoc);
  }
  if (m === "reach" || m === "move") {
    html += `<label>unit <select id="unit">${options(ch.units, unit)}</select></label>`;
  }
  if (m === "reach") {
    html += `<label>MF/MP <input id="allowance" type="number" min="0" step="0.5" value="" placeholder="own" title="allowance; empty: the unit's own MF/MP"></label>` +
            endPicker("a-loc", "from", state.a, state.aLoc);
  }
  if (m === "move") html += endPicker("a-loc", "from", state.a, state.aLoc) + endPicker("b-loc", "to", state.b, state.bLoc);
  if (m === "viewshed") {
    html += endPicker("a-loc", "from", state.a, state.aLoc) +
      `<label>look at <select id="vs-level">${options([["", "ground level"], ["1", "building level 1"], ["2", "building level 2"]], "")}</select></label>`;
  }
  if (m === "tem") {
    html += `<label>attack <select id="attack">${options(ch.attacks, "small-arms")}</select></label>` +
      `<label>target <select id="target-unit">${options(ch.units, "infantry")}</select></label>` +
      `<label>moved <select id="moved-by">${options([["", "did not move"], ["road-rate", "at road rate"], ["non-road", "not on road"]], "")}</select></label>`;
  }
  if (m === "hex") {
    html += `<label>set up <select id="setup-item">${options(ch.setup_items, "squad")}</select></label>` +
      (state.a ? `<label>at <select id="hex-loc">${options(state.hexes.get(state.a).locations, state.aLoc)}</select></label>` : "") +
      `<label>mines <select id="mine-kind">${options(["A-P", "A-T"], "A-P")}</select></label>` +
      `<label><input id="mine-hidden" type="checkbox"> hidden</label>`;
  }
  // the choices made stay when the controls are drawn anew (a new hex picked, another mode)
  const kept = {};
  for (const e of document.querySelectorAll("#controls select, #controls input")) {
    if (e.id !== "a-loc" && e.id !== "b-loc" && e.id !== "hex-loc") kept[e.id] = e.type === "checkbox" ? e.checked : e.value;
  }
  Object.assign(state.form, kept);
  $("#controls").innerHTML = html;
  for (const [id, v] of Object.entries(state.form)) {
    const e = document.getElementById(id);
    if (!e || !e.closest("#controls")) continue;
    if (e.type === "checkbox") e.checked = v; else if ([...(e.options || [{ value: v }])].some((o) => o.value === v)) e.value = v;
  }
  for (const id of ["a-loc", "b-loc"]) {
    const s = document.getElementById(id);
    if (s) s.addEventListener("change", () => { if (id === "a-loc") state.aLoc = s.value; else state.bLoc = s.value; run(); });
  }
  for (const id of ["unit", "allowance", "vs-level", "attack", "target-unit", "moved-by", "setup-item", "hex-loc", "mine-kind", "mine-hidden"]) {
    const s = document.getElementById(id);
    if (s) s.addEventListener("change", () => run());
  }
}
function run() {
  const m = state.mode;
  if (m === "los") runLos(false);
  else if (m === "reach") runReach();
  else if (m === "viewshed") runViewshed();
  else if (m === "tem") runTem();
  else if (m === "move") runMove();
  else if (m === "hex" && state.a) { if ($("#hex-loc")) state.aLoc = $("#hex-loc").value; runHex(state.a); }
}
function setMode(m) {
  state.mode = m; state.a = state.b = state.aLoc = state.bLoc = null; state.reach = null;
  state.lastQuery = null; main.cancel(); hover.cancel();
  for (const b of document.querySelectorAll("#modes button")) b.setAttribute("aria-selected", String(b.dataset.mode === m));
  document.body.dataset.currentMode = m;
  resetOverlays(); $("#hover-result").innerHTML = "";
  renderControls();
  setResult(`<p class="hint">${esc(HINTS[m])}</p>`);
}

// ------------------------------------------------------------------ what-if counters
function applyTool(name) {
  const t = state.tool;
  if (t === "remove") {
    const i = state.counters.map((c) => c.at || "").lastIndexOf(name);
    if (i >= 0) state.counters.splice(i, 1);
  } else if (t === "smoke") {
    state.counters.push({ type: "smoke", at: name, strength: Math.min(6, Math.max(1, Number($("#smoke-strength").value) || 2)) });
  } else if (t === "wreck") state.counters.push({ type: "wreck", at: name, burning: false });
  else if (t === "vehicle") state.counters.push({ type: "vehicle", at: name, immobile: false });
  drawCounters();
  refresh();
}

function countersToml() {
  // the counters on the page as a map file writes them (map-format.md), for a copy of the map: the served
  // map file itself is never written
  const lines = [`# counters on ${state.map.name}, saved from asl-terrain serve: paste into a copy of the map file`];
  for (const c of state.counters) {
    lines.push("", "[[counter]]");
    for (const [k, v] of Object.entries(c)) {
      const bare = typeof v === "string" && state.map.prefix && /^(at|hexside|bypass|arrow)$/.test(k)
        ? v.split("-").map((x) => x.startsWith(state.map.prefix) ? x.slice(state.map.prefix.length) : x).join("-") : v;
      lines.push(`${k} = ${typeof bare === "string" ? JSON.stringify(bare) : String(bare)}`);
    }
  }
  return lines.join("\n") + "\n";
}
function saveCounters() {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([countersToml()], { type: "application/toml" }));
  a.download = "counters.toml";
  document.body.appendChild(a); a.click(); a.remove();
}

// ------------------------------------------------------------------ mouse and keyboard
function hexAt(ev) {
  const t = ev.target && ev.target.closest ? ev.target.closest("[data-hex]") : null;
  return t ? t.getAttribute("data-hex") : null;
}
function pick(name) {
  // the mode's first or second hex; a LOS end, firer or target takes its base Location
  const m = state.mode;
  if (m === "reach" || m === "viewshed" || m === "hex") {
    state.a = name; state.aLoc = name; renderControls(); run(); return;
  }
  if (!state.a || state.b) { state.a = name; state.aLoc = name; state.b = state.bLoc = null;
    resetOverlays(); mark(name, "sel-a"); renderControls(); return; }
  state.b = name; state.bLoc = name; renderControls(); run();
}
function setupInput() {
  const svg = $("#map");
  let down = null;
  svg.addEventListener("contextmenu", (ev) => {
    const h = hexAt(ev);
    ev.preventDefault();
    if (!h) return;
    if (state.mode !== "hex") setMode("hex");
    pick(h);
  });
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.button === 2) return;
    svg.focus();
    const h = hexAt(ev);
    const panning = ev.button === 1 || ev.shiftKey || (state.mode !== "los" && !state.tool) || !h;
    down = { x: ev.clientX, y: ev.clientY, hex: h, moved: false, panning, view: state.view.slice(),
             ctm: svg.getScreenCTM() };
    if (state.mode === "los" && !panning && !state.tool && h) {
      state.a = h; state.aLoc = h; state.b = h; state.bLoc = null; state.dragging = true;
      resetOverlays(); mark(h, "sel-a");
    }
    svg.setPointerCapture(ev.pointerId);
  });
  svg.addEventListener("pointermove", (ev) => {
    const h = hexAt(ev) || (document.elementFromPoint(ev.clientX, ev.clientY) || { closest: () => null }).closest?.("[data-hex]")?.getAttribute("data-hex");
    const info = h && state.hexes.get(h);
    $("#hover-name").textContent = info ? `${h}${info.board_name ? " (" + info.board_name + ")" : ""}: ${info.terrain}` : "";
    if (down) {
      const dx = ev.clientX - down.x, dy = ev.clientY - down.y;
      if (Math.abs(dx) + Math.abs(dy) > 4) down.moved = true;
      if (down.panning && down.moved) {
        svg.classList.add("panning");
        const k = down.view[2] / svg.getBoundingClientRect().width;
        setView([down.view[0] - dx * k, down.view[1] - dy * k, down.view[2], down.view[3]]);
        return;
      }
      if (state.dragging && h && h !== state.b) {
        state.b = h; state.bLoc = h;
        if (h !== state.a) runLos(true);
      }
      return;
    }
    if (state.mode === "reach" && h && h !== state.hoverHex) { state.hoverHex = h; hoverPath(h); }
  });
  const up = (ev) => {
    svg.classList.remove("panning");
    if (!down) return;
    const d = down; down = null;
    const h = hexAt(ev) || d.hex;
    if (state.dragging) {
      state.dragging = false;
      if (d.moved && state.b && state.b !== state.a) { renderControls(); runLos(false); return; }
      // a click without a drag: the first end; the next click gives the other
      state.b = null; state.bLoc = null; renderControls();
      if (state.pendingFirst && state.pendingFirst !== h) {
        state.a = state.pendingFirst; state.aLoc = state.a; state.b = h; state.bLoc = h; state.pendingFirst = null;
        resetOverlays(); renderControls(); runLos(false); return;
      }
      state.pendingFirst = h; return;
    }
    if (d.moved && d.panning) return;
    if (!h) return;
    if (state.tool) { applyTool(h); return; }
    pick(h);
  };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", () => { down = null; state.dragging = false; });
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [x, y] = toMap(ev);
    zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, x, y);
  }, { passive: false });
  document.addEventListener("keydown", (ev) => {
    if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    const v = state.view, step = v[2] * 0.1;
    const keys = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (keys[ev.key]) { setView([v[0] + keys[ev.key][0], v[1] + keys[ev.key][1], v[2], v[3]]); ev.preventDefault(); }
    else if (ev.key === "+" || ev.key === "=") zoom(1 / 1.25);
    else if (ev.key === "-") zoom(1.25);
    else if (ev.key === "0") fit();
    else if (ev.key === "Escape") { setMode(state.mode); state.pendingFirst = null; }
    else if (/^[1-6]$/.test(ev.key)) setMode(["los", "reach", "viewshed", "tem", "move", "hex"][Number(ev.key) - 1]);
  });
  for (const b of document.querySelectorAll("#modes button")) b.addEventListener("click", () => { state.pendingFirst = null; setMode(b.dataset.mode); });
  $("#zoom-in").addEventListener("click", () => zoom(1 / 1.25));
  $("#zoom-out").addEventListener("click", () => zoom(1.25));
  $("#zoom-fit").addEventListener("click", fit);
  $("#tool").addEventListener("change", () => { state.tool = $("#tool").value; document.body.dataset.tool = state.tool; });
  $("#save-counters").addEventListener("click", saveCounters);
  $("#reset-counters").addEventListener("click", () => { state.counters = JSON.parse(state.ownCounters); drawCounters(); refresh(); });
  const conditionsChanged = () => {
    const ssr = [...document.querySelectorAll("#ssr-list input[data-ssr]:checked")].map((e) => e.dataset.ssr);
    state.conditions = { month: Number($("#month").value), weather: $("#weather").value, frigid: $("#frigid").checked, ssr };
    refresh();
  };
  for (const id of ["month", "weather", "frigid"]) document.getElementById(id).addEventListener("change", conditionsChanged);
  $("#ssr-list").addEventListener("change", conditionsChanged);
  window.addEventListener("resize", () => { if (state.full) fit(); });
}

// ------------------------------------------------------------------ start
async function start() {
  const r = await fetch("/api/map");
  const m = await r.json();
  state.map = m; state.size = m.size;
  for (const h of m.hexes) state.hexes.set(h.name, h);
  state.counters = m.counters.slice(); state.ownCounters = JSON.stringify(m.counters);
  state.conditions = Object.assign({}, m.conditions, { ssr: m.conditions.ssr.slice() });
  state.ownConditions = Object.assign({}, m.conditions, { ssr: m.conditions.ssr.slice() });
  const archives = m.boards.map((b) => b.archive).join(", ");
  $("#map-name").textContent = `${m.name}${archives && !m.name.includes(archives) ? " — " + archives : ""} (${m.grid})`;
  document.title = `asl-terrain: ${m.name}`;
  $("#month").innerHTML = options([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => [String(n), String(n)]), String(m.conditions.month));
  $("#weather").innerHTML = options(m.choices.weather, m.conditions.weather);
  $("#frigid").checked = m.conditions.frigid;
  $("#ssr-list").innerHTML = m.choices.ssr.map((w) => {
    const own = m.conditions.ssr.includes(w.name);
    return `<label title="${esc(w.rule)}"><input type="checkbox" data-ssr="${esc(w.name)}"${own ? " checked disabled" : ""}>` +
      `<span><b>${esc(w.name)}</b> (${esc(w.rule)}): ${esc(w.says)}${own ? " — the map's own" : ""}</span></label>`;
  }).join("");
  // the picture's extent: from the SVG's own viewBox
  const xs = m.hexes.map((h) => h.x), ys = m.hexes.map((h) => h.y), s = m.size;
  state.full = [Math.min(...xs) - 1.5 * s, Math.min(...ys) - 1.5 * s, Math.max(...xs) - Math.min(...xs) + 3 * s,
                Math.max(...ys) - Math.min(...ys) + 3 * s];
  drawHexes(); drawCounters(); setupInput(); fit(); setMode("los");
  document.body.dataset.ready = "1";
  loadPicture();
}
async function loadPicture() {
  const r = await fetch("/api/map.svg");
  if (!r.ok) { $("#hover-name").textContent = "the map's picture cannot be drawn"; return; }
  const text = await r.text();
  const vb = /viewBox="([-\d.\s]+)"/.exec(text);
  const [x, y, w, h] = vb ? vb[1].trim().split(/\s+/).map(Number) : state.full;
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  const g = clear("#layer-picture");
  el("image", { href: url, x, y, width: w, height: h, preserveAspectRatio: "none" }, g);
  document.body.dataset.picture = "1";
}
start().catch((e) => setResult(`<p class="error">The page could not start: ${esc(e)}</p>`));

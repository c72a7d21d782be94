// Rendering of API responses: search results with their `why` and trace, memory details,
// health and structure. Every stored string goes through el() as text.
import { el } from "/ui/api.js";
import { link } from "/ui/router.js";

export const EDGE_COLOURS = {
  SHARES_TAG: "#5b8def", SAME_CATEGORY: "#9b59b6", OVERLAPS: "#2ecc71", RELATED: "#e67e22",
  FOLLOWS: "#34495e", SUPERSEDES: "#c0392b",
};
const OTHER = ["#16a085", "#c0392b", "#8e44ad", "#7f8c8d"];

export function edgeColour(type) {
  if (!(type in EDGE_COLOURS)) EDGE_COLOURS[type] = OTHER[Object.keys(EDGE_COLOURS).length % OTHER.length];
  return EDGE_COLOURS[type];
}

export const num = (x, d = 3) => (typeof x === "number" ? x.toFixed(d).replace(/\.?0+$/, "") : String(x));
/** A link to a memory's page (a real URL: it opens in a new tab, and back comes back). */
export const memLink = (id) => el("a", { class: "mem", href: link("memory", id) }, id);
export const chip = (t) => el("span", { class: "chip" }, t);
const json = (v) => (typeof v === "string" ? v : JSON.stringify(v));

function hit(name, h) {
  return h ? `${name} rank ${h.rank} (score ${num(h.score)})` : `not in the ${name} list`;
}

/** The `why` as one or two sentences. */
export function whyWords(why) {
  const parts = [];
  if (why.direct) {
    parts.push(`Found directly: ${hit("vector", why.direct.vector)}, ${hit("lexical", why.direct.lexical)}; ` +
      `fused ${num(why.direct.fused)}` + (why.direct.keys ? ` (by ${why.direct.keys.join(" and ")})` : "") + ".");
  }
  for (const p of why.related || []) {
    parts.push(`Brought in by seed ${p.seed} over a ${p.edge} edge (weight ${num(p.weight)}).`);
  }
  if (why.router && why.router.boost) {
    parts.push(`The router boosted it ×${num(why.router.boost)} for ` +
      [...why.router.tags, why.router.category].filter(Boolean).join(", ") + ".");
  }
  const h = why.health;
  parts.push(h.penalties.length
    ? `Health ${num(h.score)} (${h.penalties.map((p) => `${p.rule} −${num(p.penalty)}`).join(", ")})` +
      (h.applied ? `, score ×${num(h.multiplier)}.` : ", not applied.")
    : `Healthy (${num(h.score)}).`);
  parts.push(`Source ${why.source.source} weighs ${num(why.source.weight)}` + (why.source.applied ? "." : " (not applied)."));
  return parts.join(" ");
}

/** The `why` as a table of its parts. */
export function whyTable(why) {
  const rows = [["kind", why.kind]];
  if (why.direct) {
    rows.push(["vector rank", why.direct.vector ? `${why.direct.vector.rank} (${num(why.direct.vector.score)})` : "—"]);
    rows.push(["lexical rank", why.direct.lexical ? `${why.direct.lexical.rank} (${num(why.direct.lexical.score)})` : "—"]);
    rows.push(["fused", num(why.direct.fused)]);
    if (why.direct.window) rows.push(["context window", `fused ${num(why.direct.window.fused)}, weight ${num(why.direct.window.weight)}`]);
  }
  for (const p of why.related || []) {
    rows.push(["seed · edge", `${p.seed} · ${p.edge} (weight ${num(p.weight)}, score ${num(p.score)})`]);
    rows.push(["edge reason", json(p.reason)]);
  }
  for (const e of (why.multihop && why.multihop.entities) || []) {
    rows.push(["shared entity", `${e.reason} (rarity ${num(e.weight)}, score ${num(why.multihop.score)})`]);
  }
  if (why.router) rows.push(["router boost", `${num(why.router.boost)} (${[...why.router.tags, why.router.category].filter(Boolean).join(", ")})`]);
  rows.push(["health", `${num(why.health.score)} → ×${num(why.health.multiplier)}${why.health.applied ? "" : " (off)"}`]);
  for (const p of why.health.penalties) rows.push(["health penalty", `${p.rule} −${num(p.penalty)}: ${p.detail}`]);
  rows.push(["source weight", `${why.source.source}: ${num(why.source.weight)}${why.source.applied ? "" : " (off)"}`]);
  if (why.near_duplicates_merged) rows.push(["near-duplicates merged", why.near_duplicates_merged.join(", ")]);
  if (why.time) {
    for (const t of why.time.resolved) rows.push(["time", timeWords(t)]);
    if (why.time.boost) rows.push(["time boost", `"${why.time.boost.query_phrase}" = ${why.time.boost.range}, ` +
      `fits ${why.time.boost.matched}: ×${num(why.time.boost.multiplier)}`]);
  }
  return el("table", { class: "why-parts" }, rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v))));
}

/** Candidates in and out per stage, as bars, with the time. */
export function traceChart(trace) {
  const most = Math.max(1, ...trace.stages.map((s) => Math.max(s.in, s.out)));
  const bar = (n, cls) => el("span", { class: `bar ${cls}`, style: `width:${Math.round((160 * n) / most)}px` });
  return el("div", { class: "card trace" },
    el("div", {}, `recipe ${trace.recipe} · k ${trace.k} · ${num(trace.total_ms, 1)} ms in all`),
    el("div", { class: "scroll" }, el("table", {}, el("tr", {}, ["stage", "in", "out", "ms"].map((h) => el("th", {}, h))),
      trace.stages.map((s) => el("tr", { dataset: { stage: s.stage }, class: s.enabled ? "" : "muted" },
        el("td", {}, s.stage + (s.enabled ? "" : " (off)")),
        el("td", {}, bar(s.in, "in"), ` ${s.in}`), el("td", {}, bar(s.out, "out"), ` ${s.out}`),
        el("td", {}, num(s.ms, 2)))))));
}

/** One result, compact: id, score, kind, labels and the content; its `why` folded until opened. */
export function resultCard(r) {
  const m = r.memory;
  return el("li", { class: "card result", dataset: { id: r.id } },
    el("div", { class: "row-head" }, memLink(r.id), el("span", { class: "badge" }, `${num(r.score)} · ${r.kind}`),
      m.tags.map(chip), m.category ? ` ${m.category}` : ""),
    el("div", { class: "content clamp" }, m.content),
    r.why ? el("details", { class: "why" }, el("summary", {}, "why"),
      el("div", { class: "why-words" }, whyWords(r.why)), el("div", { class: "scroll" }, whyTable(r.why))) : null);
}

/** A resolved time phrase: `"last week" = the week before 9 June 2023 (2023-05-29/2023-06-04)`. */
const timeWords = (t) => `"${t.phrase}" = ${t.text} (${t.value})`;

/** An entity the memory mentions: its key, and the span it comes from when that reads differently. */
const entityWords = (e) => (e.quote.toLowerCase() === e.entity ? e.entity : `${e.entity} ("${e.quote}")`);

/** A field's value in words: resolved times and entities read as phrases, the rest as JSON. */
function fieldWords(k, v) {
  if (v === null) return "—";
  if (k === "times" && Array.isArray(v)) return v.map(timeWords).join("; ") || "—";
  if (k === "entities" && Array.isArray(v)) return v.map(entityWords).join("; ") || "—";
  return json(v);
}

export function memoryTable(m) {
  return el("table", { class: "fields" }, Object.entries(m).map(([k, v]) =>
    el("tr", { dataset: { field: k } }, el("th", {}, k), el("td", { class: k === "content" ? "content" : "" },
      fieldWords(k, v)))));
}

export function healthReasons(m) {
  return el("div", { class: "health" }, `health ${num(m.health)}`,
    m.health_reasons.length
      ? el("ul", {}, m.health_reasons.map((p) => el("li", {}, `${p.rule} −${num(p.penalty)}: ${p.detail}`)))
      : " — no penalties");
}

function barTable(title, entries, cls = "") {
  const most = Math.max(1, ...entries.map(([, n]) => n));
  return el("div", { class: `card ${cls}` }, el("h3", {}, title), el("table", {},
    entries.map(([k, n]) => el("tr", { dataset: { key: k } }, el("th", {}, k),
      el("td", {}, el("span", { class: "bar", style: `width:${Math.round((200 * n) / most)}px` }), ` ${n}`)))));
}

export function healthView(stats, lowest) {
  return el("div", {},
    el("p", {}, `${stats.memories} memories on ${stats.server.kind} (${stats.server.edition} ${stats.server.version})`),
    barTable("Health histogram", Object.entries(stats.health_histogram), "histogram"),
    el("div", { class: "card lowest" }, el("h3", {}, "Lowest health"), el("ol", {}, lowest.map((m) =>
      el("li", { dataset: { health: m.health } }, memLink(m.id),
        ` ${num(m.health)} `,
        el("span", { class: "muted" }, m.content.slice(0, 80)),
        el("ul", {}, m.health_reasons.map((p) => el("li", {}, `${p.rule} −${num(p.penalty)}: ${p.detail}`))))))),
    barTable("Edges by type", Object.entries(stats.edges), "edge-counts"),
    el("div", { class: "card degree" }, el("h3", {}, "Degree by edge type"), el("table", {},
      el("tr", {}, ["type", "max", "mean"].map((h) => el("th", {}, h))),
      Object.entries(stats.degree).map(([t, d]) => el("tr", {}, el("td", {}, t), el("td", {}, d.max),
        el("td", {}, num(d.mean)))))),
    barTable("Namespaces", Object.entries(stats.namespaces), "namespaces"));
}

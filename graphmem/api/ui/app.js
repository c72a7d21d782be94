// The inspector's wiring: tabs, the key form, search, the memory page with its neighbourhood
// graph (cytoscape), health and structure, and edits, all through the /v1 API.
import cytoscape from "/ui/vendor/cytoscape.esm.min.mjs";
import { ApiError, auth, call, el, splitList } from "/ui/api.js";
import * as V from "/ui/views.js";

const $ = (id) => document.getElementById(id);
const views = ["search", "memory", "health", "add"];

function say(text, ok = false) {
  const box = $("msg");
  box.hidden = !text;
  box.className = ok ? "ok" : "";
  box.textContent = text || "";
}

function explain(err) {
  if (err instanceof ApiError) {
    if (err.status === 401) return `This server needs an API key: type it above and press Use (${err.message}).`;
    if (err.status === 403) return `This key may not do that: ${err.message}`;
    return `${err.status} ${err.code}: ${err.message}${err.field ? ` (${err.field})` : ""}`;
  }
  return String(err);
}

async function guarded(fn) {
  try { say(""); return await fn(); } catch (err) { say(explain(err)); return undefined; }
}

function show(name) {
  for (const v of views) {
    $(`view-${v}`).hidden = v !== name;
    document.querySelector(`[data-view=${v}]`).classList.toggle("active", v === name);
  }
  if (name === "health") guarded(loadHealth);
}

// --- search -------------------------------------------------------------------------------
async function loadOptions() {
  const spec = await fetch("/openapi.json").then((r) => r.json());
  const schemas = spec.components.schemas;
  const recipes = (schemas.SearchRequest.properties.recipe.anyOf || []).flatMap((s) => s.enum || []);
  for (const r of recipes) $("recipe").append(el("option", { value: r }, r));
  for (const stage of Object.keys(schemas.Stages.properties)) {
    $("stages").append(el("label", {}, el("input", { type: "checkbox", checked: true, name: stage, class: "stage" }), stage));
  }
}

async function search() {
  const filters = {};
  const tags = splitList($("f-tags").value);
  if (tags.length) filters.tags = tags;
  if ($("f-category").value.trim()) filters.categories = [$("f-category").value.trim()];
  if ($("f-source").value.trim()) filters.sources = [$("f-source").value.trim()];
  if ($("f-min-health").value !== "") filters.min_health = Number($("f-min-health").value);
  const stages = Object.fromEntries([...document.querySelectorAll("input.stage")].map((c) => [c.name, c.checked]));
  const body = { query: $("q").value, k: Number($("k").value) || 10, trace: true, explain: true, stages };
  if (Object.keys(filters).length) body.filters = filters;
  if ($("recipe").value) body.recipe = $("recipe").value;
  const out = await call("POST", "/v1/search", { body });
  $("trace").replaceChildren(V.traceChart(out.trace));
  $("results").replaceChildren(...out.results.map((r) => V.resultCard(r, openMemory)));
  if (!out.results.length) $("results").append(el("li", { class: "muted" }, "No results."));
}

// --- memory page --------------------------------------------------------------------------
let cy = null;
const EDGE_HINT = $("edge-info").textContent;

function drawGraph(center, neighbors) {
  const label = (m) => (m.content.length > 40 ? `${m.content.slice(0, 40)}…` : m.content);
  const elements = [{ data: { id: center.id, label: label(center), center: 1 } }];
  const seen = new Set([center.id]);
  neighbors.forEach((n, i) => {
    if (!seen.has(n.memory.id)) elements.push({ data: { id: n.memory.id, label: label(n.memory), center: 0 } });
    seen.add(n.memory.id);
    elements.push({ data: { id: `e${i}`, source: center.id, target: n.memory.id, type: n.type, weight: n.weight,
                            reason: JSON.stringify(n.reason), colour: V.edgeColour(n.type) } });
  });
  if (cy) cy.destroy();
  $("edge-info").textContent = EDGE_HINT;         // not the last memory's edge
  cy = cytoscape({
    container: $("graph"), elements, maxZoom: 1.5,  // a small neighbourhood is not blown up to fill the box
    style: [
      { selector: "node", style: { label: "data(label)", "font-size": 9, "text-wrap": "wrap", "text-max-width": 110,
                                    "text-background-color": "#fff", "text-background-opacity": 0.85,
                                    "background-color": "#5b8def", width: 18, height: 18 } },
      { selector: "node[center = 1]", style: { "background-color": "#f0b429", width: 28, height: 28 } },
      { selector: "edge", style: { "line-color": "data(colour)", "target-arrow-color": "data(colour)",
                                    "target-arrow-shape": "triangle", "curve-style": "bezier",
                                    width: "mapData(weight, 0, 1, 1, 6)" } },
    ],
    layout: { name: "concentric", concentric: (n) => (n.data("center") ? 2 : 1), levelWidth: () => 1,
              animate: false, minNodeSpacing: 70 },
  });
  cy.on("mouseover", "edge", (e) => {
    const d = e.target.data();
    $("edge-info").textContent = `${d.type} · weight ${d.weight} · reason ${d.reason}`;
  });
  cy.on("tap", "node", (e) => { if (e.target.id() !== center.id) openMemory(e.target.id()); });
  window.graphmemCy = cy;        // for the page tests (read-only use)
  const types = [...new Set(neighbors.map((n) => n.type))];
  $("legend").replaceChildren(...types.map((t) => el("span", { class: "chip" },
    el("span", { class: "swatch", style: `background:${V.edgeColour(t)}` }), t)));
  const open = (id) => el("a", { class: "mem", on: { click: () => openMemory(id) } }, id);
  const chain = neighbors.filter((n) => n.type === "FOLLOWS").map((n) => el("li", {}, "FOLLOWS ", open(n.memory.id),
    ` (seq ${n.memory.seq ?? "—"}): ${n.memory.content.slice(0, 60)}`));
  for (const n of neighbors.filter((x) => x.type === "SUPERSEDES")) {    // one step of the chain each way
    const newer = center.superseded_by === n.memory.id;
    chain.push(el("li", { class: newer ? "superseded-by" : "supersedes" }, newer ? "superseded by " : "supersedes ",
      open(n.memory.id), `: ${n.memory.content.slice(0, 60)}`));
  }
  if (center.near_duplicate_of) {         // graphmem's supersession: a later, nearly identical copy
    chain.push(el("li", { class: "near-dup" }, "near duplicate of ", open(center.near_duplicate_of)));
  }
  $("threads").replaceChildren(chain.length ? el("div", { class: "card" },
    el("h3", {}, center.thread ? `Thread ${center.thread}` : "Chains"), el("ul", {}, chain)) : "");
}

function editForm(m) {
  const field = (name, value, area = false) => el("label", {}, name,
    el(area ? "textarea" : "input", { id: `edit-${name}`, value: value ?? "", rows: 3 }));
  return el("form", { class: "stack card", id: "edit-form", on: { submit: async (e) => {
    e.preventDefault();
    await guarded(async () => {
      const patch = { content: $("edit-content").value, tags: splitList($("edit-tags").value),
                      category: $("edit-category").value.trim() || undefined,
                      source: $("edit-source").value.trim() || undefined };
      const updated = await call("PATCH", `/v1/memories/${encodeURIComponent(m.id)}`, { body: patch });
      await openMemory(updated.id);
      say(`Updated ${updated.id}.`, true);
    });
  } } },
  el("h3", {}, "Edit"), field("content", m.content, true), field("tags", m.tags.join(", ")),
  field("category", m.category), field("source", m.source), el("button", { type: "submit" }, "Save"),
  " ", el("button", { type: "button", class: "danger", id: "delete", on: { click: () => remove(m.id) } }, "Delete"));
}

async function remove(id) {
  if (!window.confirm(`Delete memory ${id} and its edges?`)) return;
  await guarded(async () => {
    await call("DELETE", `/v1/memories/${encodeURIComponent(id)}`);
    $("mem-detail").replaceChildren(el("p", {}, `Deleted ${id}.`));
    if (cy) cy.elements().remove();
    say(`Deleted ${id}.`, true);
  });
}

async function openMemory(id) {
  show("memory");
  $("mem-id").value = id;
  await guarded(async () => {
    const path = `/v1/memories/${encodeURIComponent(id)}`;
    const [m, nb] = await Promise.all([call("GET", path), call("GET", `${path}/neighbors`)]);
    $("mem-detail").replaceChildren(el("h2", {}, m.id), V.healthReasons(m), V.memoryTable(m), editForm(m));
    drawGraph(m, nb.neighbors);
  });
}

// --- health and structure -----------------------------------------------------------------
/** The `want` weakest memories: the histogram says how far up the scale they reach, so only that band
 * is listed (max_health), not the newest page of the whole store. */
async function lowestHealth(histogram, want) {
  let total = 0;
  let upper = 1;
  for (const [bin, n] of Object.entries(histogram).sort(([a], [b]) => parseFloat(a) - parseFloat(b))) {
    total += n;
    upper = Number(bin.split("-")[1]);
    if (total >= want) break;
  }
  const query = { limit: Math.min(500, Math.max(want, total)), max_health: upper };
  const page = await call("GET", "/v1/memories", { query });
  return page.memories.sort((a, b) => a.health - b.health).slice(0, want);
}

async function loadHealth() {
  const stats = await call("GET", "/v1/stats");
  const lowest = await lowestHealth(stats.health_histogram, 10);
  $("health-body").replaceChildren(V.healthView(stats, lowest, openMemory));
}

// --- wiring -------------------------------------------------------------------------------
function init() {
  $("key").value = auth.key();
  $("ns").value = auth.namespace();
  $("auth").addEventListener("submit", (e) => {
    e.preventDefault();
    auth.set($("key").value.trim(), $("ns").value.trim());
    say("Key and namespace set for this tab.", true);
  });
  for (const v of views) document.querySelector(`[data-view=${v}]`).addEventListener("click", () => show(v));
  $("search-form").addEventListener("submit", (e) => { e.preventDefault(); guarded(search); });
  $("open-form").addEventListener("submit", (e) => { e.preventDefault(); openMemory($("mem-id").value.trim()); });
  $("add-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded(async () => {
      const body = { content: $("add-content").value, tags: splitList($("add-tags").value) };
      if ($("add-id").value.trim()) body.id = $("add-id").value.trim();
      if ($("add-category").value.trim()) body.category = $("add-category").value.trim();
      if ($("add-source").value.trim()) body.source = $("add-source").value.trim();
      const out = await call("POST", "/v1/memories", { body });
      await openMemory(out.id);
      say(`${out.status === "created" ? "Added" : "Already stored as"} ${out.id}.`, true);
    });
  });
  show("search");
  guarded(loadOptions);
  document.body.dataset.ready = "1";
}

init();

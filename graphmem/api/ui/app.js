// The inspector's wiring: hash routes (router.js) to views, the key form, the memory list, search,
// the memory page with its neighbourhood graph (cytoscape), threads, health and edits, all through /v1.
import cytoscape from "/ui/vendor/cytoscape.esm.min.mjs";
import { ApiError, auth, call, el, splitList } from "/ui/api.js";
import { fillListForm, listFormParams, listQuery, memoryRow, pager, threadTurns } from "/ui/lists.js";
import { link, parse } from "/ui/router.js";
import * as V from "/ui/views.js";

const $ = (id) => document.getElementById(id);
const views = ["list", "search", "memory", "thread", "health", "add"];
let routed = 0;          // each route gets a ticket: a slow answer for a view already left is dropped

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
  for (const v of views) $(`view-${v}`).hidden = v !== name;
  for (const tab of document.querySelectorAll("nav .tab")) tab.classList.toggle("active", tab.dataset.view === name);
}

/** Move to a view: a new history entry (so back returns), then render it. */
function go(view, arg = "", params = {}) {
  const hash = link(view, arg, params);
  if (hash !== location.hash) history.pushState(null, "", hash);
  return route();
}

// --- memory list --------------------------------------------------------------------------
async function loadList(params, ticket) {
  const page = await call("GET", "/v1/memories", { query: listQuery(params) });
  if (ticket !== routed) return;
  $("list").replaceChildren(...page.memories.map(memoryRow));
  if (!page.memories.length) $("list").append(el("li", { class: "muted" }, "No memories match."));
  $("list-summary").textContent = `${page.memories.length} memories in ${page.namespace}` +
    (page.next_cursor ? " (more on the next page)" : "");
  $("list-pager").replaceChildren(...pager("memories", "", params, page.next_cursor));
}

// --- search -------------------------------------------------------------------------------
const SEARCH_FIELDS = { q: "q", k: "k", tags: "f-tags", category: "f-category", source: "f-source",
                        min_health: "f-min-health", recipe: "recipe" };

const optionsLoaded = (async () => {
  const spec = await fetch("/openapi.json").then((r) => r.json());
  const schemas = spec.components.schemas;
  const recipes = (schemas.SearchRequest.properties.recipe.anyOf || []).flatMap((s) => s.enum || []);
  for (const r of recipes) $("recipe").append(el("option", { value: r }, r));
  for (const stage of Object.keys(schemas.Stages.properties)) {      // each: the recipe's choice, on or off
    $("stages").append(el("label", { class: "stage-switch" }, `${stage} `,
      el("select", { name: stage, class: "stage" }, el("option", { value: "" }, "recipe"),
        el("option", { value: "on" }, "on"), el("option", { value: "off" }, "off"))));
  }
})().catch((err) => say(explain(err)));

function searchFormParams() {
  const out = Object.fromEntries(Object.entries(SEARCH_FIELDS).map(([k, id]) => [k, $(id).value.trim()]));
  if (out.k === "10") out.k = "";
  const stages = [...document.querySelectorAll("select.stage")];
  out.on = stages.filter((s) => s.value === "on").map((s) => s.name);
  out.off = stages.filter((s) => s.value === "off").map((s) => s.name);
  return out;
}

function fillSearchForm(params) {
  for (const [k, id] of Object.entries(SEARCH_FIELDS)) $(id).value = params.get(k) ?? (k === "k" ? "10" : "");
  const on = splitList(params.get("on") || "");
  const off = splitList(params.get("off") || "");
  for (const s of document.querySelectorAll("select.stage")) {
    s.value = on.includes(s.name) ? "on" : off.includes(s.name) ? "off" : "";
  }
  $("stage-box").open = on.length + off.length > 0;
}

async function runSearch(params, ticket) {
  const filters = {};
  const tags = splitList(params.get("tags") || "");
  if (tags.length) filters.tags = tags;
  if (params.get("category")) filters.categories = [params.get("category")];
  if (params.get("source")) filters.sources = [params.get("source")];
  if (params.get("min_health")) filters.min_health = Number(params.get("min_health"));
  const stages = {};
  for (const s of splitList(params.get("on") || "")) stages[s] = true;
  for (const s of splitList(params.get("off") || "")) stages[s] = false;
  const body = { query: params.get("q"), k: Number(params.get("k")) || 10, trace: true, explain: true };
  if (Object.keys(stages).length) body.stages = stages;
  if (Object.keys(filters).length) body.filters = filters;
  if (params.get("recipe")) body.recipe = params.get("recipe");
  const out = await call("POST", "/v1/search", { body });
  if (ticket !== routed) return;
  $("trace").replaceChildren(V.traceChart(out.trace));
  $("results").replaceChildren(...out.results.map(V.resultCard));
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
  cy.on("tap", "node", (e) => { if (e.target.id() !== center.id) go("memory", e.target.id()); });
  window.graphmemCy = cy;        // for the page tests (read-only use)
  const types = [...new Set(neighbors.map((n) => n.type))];
  $("legend").replaceChildren(...types.map((t) => el("span", { class: "chip" },
    el("span", { class: "swatch", style: `background:${V.edgeColour(t)}` }), t)));
  const chain = neighbors.filter((n) => n.type === "FOLLOWS").map((n) => el("li", {}, "FOLLOWS ",
    V.memLink(n.memory.id), ` (seq ${n.memory.seq ?? "—"}): ${n.memory.content.slice(0, 60)}`));
  for (const n of neighbors.filter((x) => x.type === "SUPERSEDES")) {    // one step of the chain each way
    const newer = center.superseded_by === n.memory.id;
    chain.push(el("li", { class: newer ? "superseded-by" : "supersedes" }, newer ? "superseded by " : "supersedes ",
      V.memLink(n.memory.id), `: ${n.memory.content.slice(0, 60)}`));
  }
  if (center.near_duplicate_of) {         // graphmem's supersession: a later, nearly identical copy
    chain.push(el("li", { class: "near-dup" }, "near duplicate of ", V.memLink(center.near_duplicate_of)));
  }
  const title = center.thread
    ? el("h3", {}, "Thread ", el("a", { class: "thread-link", href: link("thread", center.thread) }, center.thread))
    : el("h3", {}, "Chains");
  $("threads").replaceChildren(chain.length || center.thread ? el("div", { class: "card" }, title, el("ul", {}, chain)) : "");
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
      await go("memory", updated.id);
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

async function openMemory(id, ticket) {
  $("mem-id").value = id;
  const path = `/v1/memories/${encodeURIComponent(id)}`;
  const [m, nb] = await Promise.all([call("GET", path), call("GET", `${path}/neighbors`)]);
  if (ticket !== routed) return;
  $("mem-detail").replaceChildren(el("h2", {}, m.id), V.healthReasons(m), el("div", { class: "scroll" },
    V.memoryTable(m)), editForm(m));
  drawGraph(m, nb.neighbors);
}

// --- thread -------------------------------------------------------------------------------
async function loadThread(thread, params, ticket) {
  const query = { thread, sort: "thread", limit: params.get("limit") || 100, cursor: params.get("cursor") };
  const page = await call("GET", "/v1/memories", { query });
  if (ticket !== routed) return;
  $("thread-title").textContent = `Thread ${thread}`;
  $("turns").replaceChildren(...threadTurns(page.memories, page.thread));
  if (!page.memories.length) $("turns").append(el("li", { class: "muted" }, "No turns in this thread."));
  $("thread-pager").replaceChildren(...pager("thread", thread, params, page.next_cursor));
}

// --- health and structure -----------------------------------------------------------------
/** The `want` weakest memories: the API lists them weakest first (sort=health). */
async function loadHealth(ticket) {
  const [stats, weakest] = await Promise.all([call("GET", "/v1/stats"),
    call("GET", "/v1/memories", { query: { sort: "health", limit: 10 } })]);
  if (ticket !== routed) return;
  $("health-body").replaceChildren(V.healthView(stats, weakest.memories));
}

// --- routing and wiring -------------------------------------------------------------------
async function route() {
  const ticket = ++routed;
  const { view, arg, params } = parse();
  if (params.has("ns") && params.get("ns") !== auth.namespace()) {      // a link names its namespace
    auth.set(auth.key(), params.get("ns"));
    $("ns").value = auth.namespace();
  }
  document.title = `graphmem · ${view}${arg ? ` ${arg}` : ""}`;
  if (view === "search") {
    show("search");
    await optionsLoaded;
    fillSearchForm(params);
    if (!params.get("q")) { $("trace").replaceChildren(); $("results").replaceChildren(); return; }
    await guarded(() => runSearch(params, ticket));
  } else if (view === "memory") {
    show("memory");
    if (arg) await guarded(() => openMemory(arg, ticket));
  } else if (view === "thread") {
    show("thread");
    await guarded(() => loadThread(arg, params, ticket));
  } else if (view === "health") {
    show("health");
    await guarded(() => loadHealth(ticket));
  } else if (view === "add") {
    show("add");
  } else {
    show("list");
    fillListForm(params);
    await guarded(() => loadList(params, ticket));
  }
  if (ticket === routed) document.body.dataset.routed = location.hash || "#/";   // for the page tests
}

function init() {
  $("key").value = auth.key();
  $("ns").value = auth.namespace();
  $("auth").addEventListener("submit", async (e) => {
    e.preventDefault();
    auth.set($("key").value.trim(), $("ns").value.trim());
    const { view, arg, params } = parse();
    params.delete("ns");
    await go(view, arg, Object.fromEntries(params));         // the view again, with the new key
    if ($("msg").hidden) say("Key and namespace set for this tab.", true);   // else: what the key met
  });
  $("list-form").addEventListener("submit", (e) => { e.preventDefault(); go("memories", "", listFormParams()); });
  $("search-form").addEventListener("submit", (e) => { e.preventDefault(); go("search", "", searchFormParams()); });
  $("open-form").addEventListener("submit", (e) => { e.preventDefault(); go("memory", $("mem-id").value.trim()); });
  $("add-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded(async () => {
      const body = { content: $("add-content").value, tags: splitList($("add-tags").value) };
      if ($("add-id").value.trim()) body.id = $("add-id").value.trim();
      if ($("add-category").value.trim()) body.category = $("add-category").value.trim();
      if ($("add-source").value.trim()) body.source = $("add-source").value.trim();
      const out = await call("POST", "/v1/memories", { body });
      await go("memory", out.id);
      say(`${out.status === "created" ? "Added" : "Already stored as"} ${out.id}.`, true);
    });
  });
  window.addEventListener("hashchange", route);     // links, typed URLs, back and forward
  document.body.dataset.ready = "1";
  route();
}

init();

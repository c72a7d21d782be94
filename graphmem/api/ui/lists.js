// The landing list of a namespace's memories (filters, sort, cursor paging) and the thread view
// (turns in order with their FOLLOWS edges and context windows). Stored strings go through el() as text.
import { el, splitList } from "/ui/api.js";
import { link } from "/ui/router.js";
import { chip, memLink, num } from "/ui/views.js";

export const LIST_DEFAULTS = { sort: "-created", limit: "20" };
const LIST_FIELDS = { tags: "l-tags", category: "l-category", source: "l-source", min_health: "l-min-health",
                      max_health: "l-max-health", thread: "l-thread", state: "l-state", sort: "l-sort",
                      limit: "l-limit" };
const $ = (id) => document.getElementById(id);

/** The list form from a route's parameters (defaults where the URL says nothing). */
export function fillListForm(params) {
  for (const [name, id] of Object.entries(LIST_FIELDS)) $(id).value = params.get(name) ?? LIST_DEFAULTS[name] ?? "";
}

/** The URL parameters the list form describes (a new query starts at the first page). */
export function listFormParams() {
  const out = {};
  for (const [name, id] of Object.entries(LIST_FIELDS)) out[name] = $(id).value.trim();
  out.tags = splitList(out.tags);
  return out;
}

/** GET /v1/memories query of a route's parameters. */
export function listQuery(params) {
  const get = (name) => params.get(name) ?? LIST_DEFAULTS[name] ?? "";
  const state = get("state");
  return { tags: splitList(get("tags")), category: get("category"), source: get("source"),
           min_health: get("min_health"), max_health: get("max_health"), thread: get("thread"),
           current_only: state === "current" ? "true" : "", superseded_only: state === "superseded" ? "true" : "",
           sort: get("sort"), limit: get("limit"), cursor: get("cursor") };
}

/** Next page and first page links: the cursor and a page number live in the URL (back goes back). */
export function pager(view, arg, params, nextCursor) {
  const page = Number(params.get("page") || 1);
  const keep = Object.fromEntries([...params].filter(([k]) => !["cursor", "page", "ns"].includes(k)));
  return [
    page > 1 ? el("a", { class: "first", href: link(view, arg, keep) }, "« first page") : null,
    el("span", { class: "page-no" }, ` page ${page} `),
    nextCursor ? el("a", { class: "next", href: link(view, arg, { ...keep, cursor: nextCursor, page: page + 1 }) },
      "next page »") : null,
  ].filter(Boolean);
}

export function memoryRow(m) {
  const when = m.created_at.slice(0, 16).replace("T", " ");
  return el("li", { class: "card row", dataset: { id: m.id, health: m.health } },
    el("div", { class: "row-head" }, memLink(m.id), el("span", { class: "badge" }, `health ${num(m.health)}`),
      m.superseded_by ? el("span", { class: "badge superseded" }, "superseded by ", memLink(m.superseded_by)) : null),
    el("div", { class: "content clamp" }, m.content),
    el("div", { class: "meta" }, m.tags.map(chip), [m.category, m.source, when].filter(Boolean).join(" · "),
      m.thread ? [" · ", el("a", { class: "thread-link", href: link("thread", m.thread) }, `thread ${m.thread}`),
        m.seq !== null && m.seq !== undefined ? ` #${m.seq}` : ""] : null));
}

function windowOf(turns, self) {
  if (!turns || !turns.length) return el("div", { class: "muted window-none" }, "no context window");
  return el("details", { class: "window" }, el("summary", {}, `context window: ${turns.length} turns`),
    el("ol", {}, turns.map((t) => el("li", { class: t === self ? "self" : "" }, memLink(t)))));
}

/** A thread's turns in order; under each, the FOLLOWS edge to the next turn and its context window. */
export function threadTurns(memories, thread) {
  const next = new Map(thread.follows.map((f) => [f.from, f]));
  return memories.map((m) => {
    const edge = next.get(m.id);
    return el("li", { class: "card turn", dataset: { id: m.id } },
      el("div", { class: "row-head" }, el("span", { class: "seq" }, m.seq ?? "—"), memLink(m.id),
        el("span", { class: "muted" }, m.created_at.slice(0, 19).replace("T", " "))),
      el("div", { class: "content" }, m.content),
      windowOf(thread.windows[m.id], m.id),
      edge ? el("div", { class: "follows", dataset: { to: edge.to } }, "↓ FOLLOWS ", memLink(edge.to),
        ` (weight ${num(edge.weight)})`) : null);
  });
}

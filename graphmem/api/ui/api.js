// The API as the page calls it: the key lives in sessionStorage only (never in a URL) and is
// sent as a Bearer header; the namespace goes in the query string or the body, as for any client.
const KEY = "graphmem.key";
const NS = "graphmem.namespace";

export const auth = {
  key: () => sessionStorage.getItem(KEY) || "",
  namespace: () => sessionStorage.getItem(NS) || "",
  set(key, namespace) {
    if (key) sessionStorage.setItem(KEY, key); else sessionStorage.removeItem(KEY);
    if (namespace) sessionStorage.setItem(NS, namespace); else sessionStorage.removeItem(NS);
  },
};

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || "";
    this.field = e.field || null;
  }
}

export async function call(method, path, { query = {}, body = null } = {}) {
  const url = new URL(path, location.origin);
  const ns = auth.namespace();
  if (ns && body === null) url.searchParams.set("namespace", ns);
  for (const [k, v] of Object.entries(query)) {
    for (const one of [].concat(v)) if (one !== undefined && one !== null && one !== "") url.searchParams.append(k, one);
  }
  const headers = { Accept: "application/json" };
  if (auth.key()) headers.Authorization = `Bearer ${auth.key()}`;
  const init = { method, headers };
  if (body !== null) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(ns && body.namespace === undefined ? { ...body, namespace: ns } : body);
  }
  const resp = await fetch(url, init);
  if (resp.status === 204) return null;
  const data = await resp.json().catch(() => null);
  if (!resp.ok) throw new ApiError(resp.status, data);
  return data;
}

/** An element; string children become text nodes (stored strings are never parsed as HTML). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else if (k === "style") node.setAttribute("style", v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node[k] = v;
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export const splitList = (s) => s.split(",").map((t) => t.trim()).filter(Boolean);

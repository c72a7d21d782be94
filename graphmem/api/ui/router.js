// The page's URLs: every view is a hash route, so it can be bookmarked, shared, opened directly and
// left with the back button: #/memories?…, #/memory/<id>, #/search?q=…, #/thread/<id>, #/health, #/add.
// The namespace rides along as `ns` (a link opens the same namespace); the API key never goes into a URL.
import { auth } from "/ui/api.js";

/** {view, arg, params} of a hash such as "#/memory/deploy-1?ns=team". */
export function parse(hash = location.hash) {
  const raw = hash.replace(/^#/, "");
  const cut = raw.indexOf("?");
  const path = cut < 0 ? raw : raw.slice(0, cut);
  const params = new URLSearchParams(cut < 0 ? "" : raw.slice(cut + 1));
  const [, view = "", ...rest] = path.split("/");
  let arg = "";
  try { arg = decodeURIComponent(rest.join("/")); } catch { arg = rest.join("/"); }
  return { view: view || "memories", arg, params };
}

/** The hash of a view; empty values are left out, lists joined with commas, the tab's namespace added. */
export function link(view, arg = "", params = {}) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    const value = Array.isArray(v) ? v.join(",") : v;
    if (value !== undefined && value !== null && value !== "") query.set(k, String(value));
  }
  if (auth.namespace() && !query.has("ns")) query.set("ns", auth.namespace());
  const qs = query.toString();
  return `#/${view}${arg ? `/${encodeURIComponent(arg)}` : ""}${qs ? `?${qs}` : ""}`;
}

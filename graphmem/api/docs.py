"""``/docs``: a self-contained HTML page rendered server-side from the OpenAPI document.

No JavaScript and no CDN (the service may run offline); the page is generated from the same
dict served at ``/openapi.json``, so the two cannot drift apart.
"""

from __future__ import annotations

from html import escape
from typing import Any

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:1rem 1.5rem;color:#222}
h1{margin-bottom:.2rem} h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
.op{border:1px solid #ddd;border-radius:6px;margin:.8rem 0;padding:.6rem .9rem}
.m{display:inline-block;min-width:4.2rem;font-weight:700;text-transform:uppercase}
.get{color:#1565c0}.post{color:#2e7d32}.patch{color:#ef6c00}.delete{color:#c62828}
code,.path{font-family:ui-monospace,monospace} .path{font-weight:600}
table{border-collapse:collapse;margin:.4rem 0;width:100%} td,th{border-bottom:1px solid #eee;padding:.2rem .4rem;
text-align:left;vertical-align:top;font-size:14px} th{color:#555;font-weight:600} .muted{color:#777}
"""


def _type(schema: dict[str, Any] | None) -> str:
    """A short human type: links for $refs, ``array of X``, enums, nullables."""
    if not schema:
        return ""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f'<a href="#schema-{escape(name)}">{escape(name)}</a>'
    if "const" in schema:
        return f"<code>{escape(repr(schema['const']))}</code>"
    if "enum" in schema:
        return " | ".join(f"<code>{escape(str(v))}</code>" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return "array of " + _type(schema.get("items"))
    if isinstance(kind, list):
        return " | ".join(escape(k) for k in kind)
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "map of " + _type(schema["additionalProperties"])
    return escape(str(kind))


def _limits(schema: dict[str, Any]) -> str:
    keys = ("minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength", "minItems", "maxItems",
            "default", "pattern", "format")
    parts = [f"{k}={schema[k]}" for k in keys if k in schema]
    return f' <span class="muted">({escape(", ".join(parts))})</span>' if parts else ""



def _response_schema(response: dict[str, Any]) -> Any:
    """The schema of a response's first content type (None when the response has no body)."""
    content: dict[str, dict[str, Any]] = response.get("content", {})
    return next(iter(content.values()), {}).get("schema")

def _schema_table(schema: dict[str, Any]) -> str:
    props = schema.get("properties", {})
    if not props:
        return f"<p>{_type(schema)}{_limits(schema)}</p>"
    required = set(schema.get("required", []))
    rows = "".join(f"<tr><td><code>{escape(n)}</code>{' *' if n in required else ''}</td>"
                   f"<td>{_type(s)}{_limits(s)}</td><td>{escape(s.get('description', ''))}</td></tr>"
                   for n, s in props.items())
    return f"<table><tr><th>field</th><th>type</th><th>notes</th></tr>{rows}</table>"


def _operation(path: str, method: str, op: dict[str, Any], params: dict[str, Any]) -> str:
    out = [f'<div class="op" id="op-{escape(op["operationId"])}"><span class="m {method}">{method}</span>'
           f'<span class="path">{escape(path)}</span> — {escape(op.get("summary", ""))}']
    if op.get("description"):
        out.append(f"<p>{escape(op['description'])}</p>")
    if op.get("security") == []:
        out.append('<p class="muted">No API key needed.</p>')
    plist = [params[p["$ref"].rsplit("/", 1)[-1]] if "$ref" in p else p for p in op.get("parameters", [])]
    if plist:
        rows = "".join(f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
                       f"<td>{_type(p['schema'])}{_limits(p['schema'])}</td><td>{escape(p.get('description', ''))}"
                       f"</td></tr>" for p in plist)
        out.append(f"<table><tr><th>parameter</th><th>in</th><th>type</th><th>notes</th></tr>{rows}</table>")
    body = op.get("requestBody", {}).get("content", {}).get("application/json")
    if body:
        out.append(f"<p>Body: {_type(body['schema'])}</p>")
    rows = "".join(f"<tr><td><code>{escape(code)}</code></td><td>{escape(r['description'])}</td><td>"
                   f"{_type(_response_schema(r))}</td></tr>" for code, r in op["responses"].items())
    out.append(f"<table><tr><th>status</th><th>meaning</th><th>body</th></tr>{rows}</table></div>")
    return "".join(out)


def render_docs(spec: dict[str, Any]) -> str:
    info = spec["info"]
    params = spec["components"].get("parameters", {})
    ops = [_operation(path, method, op, params)
           for path, item in spec["paths"].items() for method, op in item.items()]
    schemas = [f'<h3 id="schema-{escape(n)}">{escape(n)}</h3>'
               + (f"<p>{escape(s['description'])}</p>" if s.get("description") else "") + _schema_table(s)
               for n, s in spec["components"]["schemas"].items()]
    auth = ("Send a key as <code>Authorization: Bearer &lt;key&gt;</code> or <code>X-API-Key</code>; "
            "each key may use only its namespaces (others answer 403, foreign ids 404).")
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(info['title'])} API</title>"
            f"<style>{STYLE}</style></head><body><h1>{escape(info['title'])} API "
            f"<small class=muted>v{escape(info['version'])}</small></h1><p>{escape(info['description'])}</p>"
            f"<p>{auth} Machine-readable: <a href=\"/openapi.json\">/openapi.json</a>.</p>"
            f"<h2>Endpoints</h2>{''.join(ops)}<h2>Schemas</h2>{''.join(schemas)}</body></html>")

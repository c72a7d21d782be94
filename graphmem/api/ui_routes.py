"""``/ui``: the memory inspector, static files shipped in ``graphmem/api/ui`` (no CDN, works offline).

The page itself holds no tenant data and needs no key: it asks the user for one, keeps it in
sessionStorage and sends it on every ``/v1`` call, so keys and namespaces are enforced by the
API exactly as for any client. A Content-Security-Policy allows only this server."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, redirect, send_from_directory

from graphmem.api.validation import operation

UI_DIR = Path(__file__).with_name("ui")
FILES = frozenset({"index.html", "app.js", "views.js", "lists.js", "router.js", "api.js", "style.css",
                   "vendor/cytoscape.esm.min.mjs"})
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
PUBLIC = {"ui.root", "ui.page", "ui.page_slash", "ui.asset"}

bp = Blueprint("ui", __name__)


def _secure(resp: Response) -> Response:
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@bp.get("/")
def root() -> Response:
    """The server's front page is the inspector (a browser opening the bare address lands there)."""
    return redirect("/ui", code=302)        # type: ignore[return-value]


@bp.get("/ui")
@operation("inspector", "ops", "The memory inspector page (served offline; its data comes from /v1 with your key)",
           ok={200: ("HTML", None)}, public=True, media={200: "text/html"})
def page() -> Response:
    resp = send_from_directory(UI_DIR, "index.html", max_age=0)
    return _secure(resp)


@bp.get("/ui/")
def page_slash() -> Response:
    return redirect("/ui", code=308)        # type: ignore[return-value]


@bp.get("/ui/<path:name>")
def asset(name: str) -> Response:
    if name not in FILES:
        abort(404)
    mimetype = "text/javascript" if name.endswith((".js", ".mjs")) else None
    resp = send_from_directory(UI_DIR, name, max_age=3600, mimetype=mimetype)
    return _secure(resp)

"""Operations endpoints: stats, liveness, readiness, metrics, the OpenAPI document and its docs.

Only ``/v1/stats`` needs a key (it describes tenant data); the probes, metrics and docs are
open so orchestrators and scrapers work without credentials and reveal no tenant data.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, jsonify, send_from_directory

from graphmem.api.docs import ASSETS, FILES, PAGE
from graphmem.api.errors import retry_after_seconds
from graphmem.api.serialize import engine, principal, query_namespace
from graphmem.api.validation import operation
from graphmem.contract.requests import NamespaceArgs
from graphmem.views import dump

bp = Blueprint("ops", __name__)

PUBLIC_ENDPOINTS = {"ops.healthz", "ops.readyz", "ops.metrics", "ops.openapi", "ops.docs", "ops.docs_assets"}


@bp.get("/v1/stats")
@operation("getStats", "ops", "Counts, edges per type, degree and health stats (your namespaces)",
           ok={200: ("Statistics", "Stats")}, errors=(403, 422), args=NamespaceArgs)
def stats(args: NamespaceArgs) -> Response:
    eng, who = engine(), principal()
    if args.namespace:
        return jsonify(dump(eng.stats(query_namespace(args.namespace))))
    if who.namespaces is None:
        return jsonify(dump(eng.stats(None)))
    return jsonify(dump(eng.stats(namespaces=list(who.namespaces))))


@bp.get("/healthz")
@operation("healthz", "ops", "Liveness", ok={200: ("Process up", "Health")}, public=True)
def healthz() -> Response:
    return jsonify({"status": "ok"})


@bp.get("/readyz")
@operation("readyz", "ops", "Readiness: store ping and embedder, and the store's version and topology",
           ok={200: ("Ready", "Ready"), 503: ("Not ready", "NotReady")}, public=True)
def readyz() -> Response:
    """Ready when every check of ``Graphmem.ready`` says "ok"; else 503 with the checks."""
    eng = engine()
    checks = eng.ready()
    if all(v == "ok" for v in checks.values()):
        return jsonify({"status": "ready", "checks": checks, "server": eng.server(addresses=False, refresh=False)})
    failing = ", ".join(k for k, v in checks.items() if v != "ok")
    resp = jsonify({"error": {"code": "not_ready", "message": f"not ready: {failing}", "field": None},
                    "checks": checks})
    resp.status_code = 503
    resp.headers["Retry-After"] = str(retry_after_seconds())
    return resp


@bp.get("/metrics")
@operation("metrics", "ops", "Prometheus metrics", ok={200: ("Text exposition", None)}, public=True,
           media={200: "text/plain"})
def metrics() -> Response:
    state = current_app.extensions["graphmem"]
    return Response(state.metrics.render(), mimetype=None, content_type=state.metrics.content_type)


@bp.get("/openapi.json")
@operation("openapi", "ops", "This document (OpenAPI 3.1)", ok={200: ("OpenAPI 3.1", None)}, public=True,
           media={200: "application/json"})
def openapi() -> Response:
    return jsonify(current_app.extensions["graphmem"].spec)


@bp.get("/docs")
@operation("docs", "ops", "Interactive docs (Swagger UI, served offline)", ok={200: ("HTML", None)},
           public=True, media={200: "text/html"})
def docs() -> Response:
    return Response(PAGE, content_type="text/html; charset=utf-8")


@bp.get("/docs/assets/<name>")
def docs_assets(name: str) -> Response:
    if name not in FILES:
        abort(404)
    return send_from_directory(ASSETS, name, max_age=86400)

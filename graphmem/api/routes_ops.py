"""Operations endpoints: stats, liveness, readiness, metrics, the OpenAPI document and its docs.

Only ``/v1/stats`` needs a key (it describes tenant data); the probes, metrics and docs are
open so orchestrators and scrapers work without credentials and reveal no tenant data.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from graphmem.api.errors import RETRY_AFTER_SECONDS
from graphmem.api.openapi import render_docs
from graphmem.api.serialize import check_args, engine, principal, query_namespace

bp = Blueprint("ops", __name__)

PUBLIC_ENDPOINTS = {"ops.healthz", "ops.readyz", "ops.metrics", "ops.openapi", "ops.docs"}


@bp.get("/v1/stats")
def stats() -> Response:
    check_args({"namespace"})
    eng, who = engine(), principal()
    requested = request.args.get("namespace")
    if requested:
        return jsonify(eng.stats(query_namespace()))
    if who.namespaces is None:
        return jsonify(eng.stats(None))
    return jsonify(eng.stats(namespaces=list(who.namespaces)))


@bp.get("/healthz")
def healthz() -> Response:
    return jsonify({"status": "ok"})


@bp.get("/readyz")
def readyz() -> Response:
    """Ready when every check of ``Graphmem.ready`` says "ok"; else 503 with the checks."""
    checks = engine().ready()
    if all(v == "ok" for v in checks.values()):
        return jsonify({"status": "ready", "checks": checks})
    failing = ", ".join(k for k, v in checks.items() if v != "ok")
    resp = jsonify({"error": {"code": "not_ready", "message": f"not ready: {failing}", "field": None},
                    "checks": checks})
    resp.status_code = 503
    resp.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return resp


@bp.get("/metrics")
def metrics() -> Response:
    state = current_app.extensions["graphmem"]
    return Response(state.metrics.render(), mimetype=None, content_type=state.metrics.content_type)


@bp.get("/openapi.json")
def openapi() -> Response:
    return jsonify(current_app.extensions["graphmem"].spec)


@bp.get("/docs")
def docs() -> Response:
    return Response(render_docs(current_app.extensions["graphmem"].spec), content_type="text/html; charset=utf-8")

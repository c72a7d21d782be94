"""The HTTP API: ``create_app(engine, settings)`` returns a Flask app over a ``Graphmem`` engine.

The web layer only parses, authorises, calls the engine and serialises. Per request it
assigns a request id (an incoming ``X-Request-ID`` is honoured), records latency by url
rule, and writes one JSON access-log line.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, current_app, g, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.routing import PathConverter

from graphmem import fastjson
from graphmem.api import routes_context, routes_memories, routes_ops, routes_search, routes_supersede, ui_routes
from graphmem.api.errors import register_error_handlers
from graphmem.api.metrics import ApiMetrics
from graphmem.api.openapi import build_spec
from graphmem.auth import Keyring
from graphmem.config import Settings
from graphmem.engine import Graphmem
from graphmem.hosts import HostPolicy

access_log = logging.getLogger("graphmem.access")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


class MemoryIdConverter(PathConverter):
    """A memory id in a path: may hold '/', never ends in '/neighbors', '/history' or '/candidates'
    (those paths are the neighbours view, the history and its candidates), so
    /v1/memories/x/neighbors has exactly one route (and one Allow header)."""

    regex = r"[^/].*?(?<!/neighbors)(?<!/history)(?<!/candidates)"


@dataclass
class ApiState:
    engine: Graphmem
    settings: Settings
    keyring: Keyring
    metrics: ApiMetrics
    spec: dict[str, Any]
    hosts: HostPolicy


class FiniteJSONProvider(DefaultJSONProvider):
    """Responses are RFC 8259 JSON: never NaN or Infinity (graphmem.fastjson.dumps)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("default", self.default)
        kwargs.setdefault("ensure_ascii", self.ensure_ascii)
        kwargs.setdefault("sort_keys", self.sort_keys)
        return fastjson.dumps(obj, **kwargs)


def create_app(engine: Graphmem, settings: Settings | None = None, *, keyring: Keyring | None = None,
               environ: Mapping[str, str] | None = None, metrics: ApiMetrics | None = None,
               bind_host: str | None = None) -> Flask:
    """Build the app. Keys come from ``keyring`` or else from ``settings.api.keys`` plus
    ``GRAPHMEM_API_KEYS`` in ``environ`` (default ``os.environ``). Requests must name a host the
    server answers (``graphmem.hosts``): loopback, ``bind_host`` (default ``[api] host``) or
    ``[api] allowed_hosts``."""
    settings = settings or engine.settings
    if keyring is None:
        keyring = Keyring.from_settings(settings, os.environ if environ is None else environ)
    app = Flask("graphmem.api")
    app.config["MAX_CONTENT_LENGTH"] = settings.limits.max_body_bytes
    json_provider = FiniteJSONProvider(app)
    json_provider.sort_keys = False   # keep the engine's field order (id, score, kind, memory, why)
    json_provider.compact = True
    app.json = json_provider
    hosts = HostPolicy.for_bind(bind_host or settings.api.host, settings.api.allowed_hosts)
    state = ApiState(engine, settings, keyring, metrics or ApiMetrics(), {}, hosts)
    app.extensions["graphmem"] = state
    app.url_map.converters["memory_id"] = MemoryIdConverter
    register_error_handlers(app)
    app.register_blueprint(routes_memories.bp)
    app.register_blueprint(routes_search.bp)
    app.register_blueprint(routes_context.bp)
    app.register_blueprint(routes_ops.bp)
    app.register_blueprint(routes_supersede.bp)
    app.register_blueprint(ui_routes.bp)
    state.spec = build_spec(app, settings)
    app.before_request(_before)
    app.after_request(_after)
    app.teardown_request(_teardown)
    return app


def _state() -> ApiState:
    return current_app.extensions["graphmem"]


def _before() -> Response | None:
    g.started = time.perf_counter()
    incoming = request.headers.get("X-Request-ID", "")
    g.request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex
    g.namespace = None
    g.principal = None
    state = _state()
    state.metrics.in_flight.inc()
    g.in_flight = True
    refused = state.hosts.refusal(request.headers.get("Host"), request.headers.get("Origin"))
    if refused is not None:                 # before auth: a rebound page learns nothing, not even 401
        status, body = refused
        return Response(fastjson.dumps(body), status=status, mimetype="application/json")
    if request.endpoint is not None and request.endpoint not in routes_ops.PUBLIC_ENDPOINTS \
            and request.endpoint not in ui_routes.PUBLIC:
        g.principal = state.keyring.authenticate(request)
    return None


def _after(response: Response) -> Response:
    started = g.get("started", time.perf_counter())
    seconds = time.perf_counter() - started
    request_id = g.get("request_id") or uuid.uuid4().hex
    response.headers["X-Request-ID"] = request_id
    endpoint = request.url_rule.rule if request.url_rule is not None else "<unmatched>"
    _state().metrics.observe_request(request.method, endpoint, response.status_code, seconds)
    access_log.info("request", extra={"fields": {
        "method": request.method, "path": request.path, "status": response.status_code,
        "ms": round(seconds * 1000, 3), "request_id": request_id, "namespace": g.get("namespace"),
        "key": getattr(g.get("principal"), "name", None)}})
    return response


def _teardown(_exc: BaseException | None) -> None:
    if g.pop("in_flight", False):
        _state().metrics.in_flight.dec()


__all__ = ["create_app", "ApiState"]

"""Every failure leaves the API as ``{"error": {"code", "message", "field"}}``.

Engine errors (``GraphmemError``) carry their own code/status/field; Werkzeug's HTTP
exceptions (unknown route, wrong method, body too large) and unexpected exceptions are
rendered the same way so clients need exactly one error parser.
"""

from __future__ import annotations

import logging
import math

from flask import Flask, Response, current_app, jsonify
from werkzeug.exceptions import HTTPException

from graphmem.errors import GraphmemError, StoreUnavailable

log = logging.getLogger("graphmem.api")



def retry_after_seconds() -> int:
    """Retry-After when the store gave no hint: the breaker's cooldown (store.neo4j.breaker_cooldown),
    after which the breaker lets a probe through, so an earlier retry would be refused anyway."""
    cooldown = current_app.extensions["graphmem"].engine.settings.store.neo4j.breaker_cooldown
    return max(1, math.ceil(cooldown))

# Stable machine codes for the HTTP statuses Werkzeug raises itself.
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    500: "internal_error",
    503: "store_unavailable",
}


class ApiError(GraphmemError):
    """An error raised by the HTTP layer itself (auth, malformed JSON, bad query args)."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message, field=field, code=code)
        self.status = status
        self.headers = headers or {}


def error_response(status: int, code: str, message: str, field: str | None = None,
                   headers: dict[str, str] | None = None) -> Response:
    resp = jsonify({"error": {"code": code, "message": message, "field": field}})
    resp.status_code = status
    for key, value in (headers or {}).items():
        resp.headers[key] = value
    return resp


def _graphmem_error(exc: GraphmemError) -> Response:
    headers = dict(getattr(exc, "headers", {}) or {})
    if isinstance(exc, StoreUnavailable):
        headers.setdefault("Retry-After", str(exc.retry_after or retry_after_seconds()))
    status = exc.status if 400 <= exc.status < 600 else 500
    if status >= 500 and not isinstance(exc, StoreUnavailable):
        log.error("server error: %s", exc, exc_info=exc)
    return error_response(status, exc.code, exc.message, exc.field, headers)


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    headers = {}
    if status == 405:
        allow = dict(exc.get_headers()).get("Allow")
        if allow:
            headers["Allow"] = allow
    message = exc.description or exc.name
    if status == 413:
        message = "request body is larger than the limit (limits.max_body_bytes)"
    return error_response(status, HTTP_CODES.get(status, f"http_{status}"), message, None, headers)


def _unexpected(exc: Exception) -> Response:
    log.exception("unhandled error")
    return error_response(500, "internal_error", "internal server error; see the server log", None)


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(GraphmemError, _graphmem_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)

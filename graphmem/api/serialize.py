"""Request parsing and response shaping shared by the blueprints.

Parsing is strict (unknown body keys and query parameters are 422, ``NaN`` is malformed
JSON) so a typo never silently turns into a default; shaping never adds ranking logic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from flask import current_app, g, request

from graphmem.api.auth import Principal
from graphmem.api.errors import ApiError
from graphmem.engine import Graphmem
from graphmem.errors import ValidationError
from graphmem.model import EDGE_TYPES


def engine() -> Graphmem:
    return current_app.extensions["graphmem"].engine


def principal() -> Principal:
    return g.principal


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def json_body(allowed: Iterable[str] | None = None) -> dict[str, Any]:
    """The request body as a JSON object (400 when it is not JSON, 422 for unknown keys)."""
    raw = request.get_data(cache=True)     # raises 413 past MAX_CONTENT_LENGTH
    if not raw.strip():
        raise ApiError(400, "malformed_json", "the request body must be a JSON object")
    try:
        data = json.loads(raw, parse_constant=_no_constants)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, "malformed_json", f"the request body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "the request body must be a JSON object")
    if allowed is not None:
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise ValidationError(f"unknown field {unknown[0]!r}", field=unknown[0])
    return data


def check_args(allowed: Iterable[str]) -> None:
    unknown = sorted(set(request.args) - set(allowed))
    if unknown:
        raise ValidationError(f"unknown query parameter {unknown[0]!r}", field=unknown[0])


def arg_list(name: str) -> list[str] | None:
    """A list query parameter: repeated (``?tags=a&tags=b``) or comma-separated (``?tags=a,b``)."""
    values = [v for raw in request.args.getlist(name) for v in raw.split(",") if v.strip()]
    return [v.strip() for v in values] if values else None


def arg_int(name: str, default: int | None, low: int, high: int) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError(f"{name} must be an integer", field=name) from None
    if not low <= value <= high:
        raise ValidationError(f"{name} must be between {low} and {high}", field=name)
    return value


def arg_float(name: str, default: float, low: float, high: float) -> float:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValidationError(f"{name} must be a number", field=name) from None
    if not low <= value <= high:     # also rejects nan
        raise ValidationError(f"{name} must be between {low} and {high}", field=name)
    return value


def body_namespace(data: dict[str, Any]) -> str:
    """Writes and search carry the namespace in the body; ``?namespace=`` is accepted too."""
    in_body, in_query = data.get("namespace"), request.args.get("namespace")
    if in_body is not None and in_query is not None and in_body != in_query:
        raise ValidationError("namespace in the body and in the query string differ", field="namespace")
    ns = principal().namespace(in_body if in_body is not None else in_query)
    g.namespace = ns
    return ns


def query_namespace() -> str:
    ns = principal().namespace(request.args.get("namespace"))
    g.namespace = ns
    return ns


def edge_types(value: list[str] | None, field: str = "types") -> list[str] | None:
    if value is None:
        return None
    bad = [t for t in value if t not in EDGE_TYPES]
    if bad:
        raise ValidationError(f"unknown edge type {bad[0]!r}; types are {', '.join(EDGE_TYPES)}", field=field)
    return value

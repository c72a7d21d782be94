"""One validation layer for the HTTP API: ``@operation`` parses a route's JSON body, query
string and path against the contract's models and describes the route for the OpenAPI document.

Body rules before the model: a JSON content type (else 415), JSON that parses (else 400),
nesting within ``limits.max_json_depth`` (else 422). Query strings: list parameters may be
repeated or comma-separated; any other parameter given twice is a 422."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_origin

from flask import current_app, request
from pydantic import BaseModel

from graphmem.api.errors import ApiError
from graphmem.config import Settings
from graphmem.contract import json_depth, validate
from graphmem.contract.requests import MemoryPath
from graphmem.errors import ValidationError


@dataclass(frozen=True)
class Operation:
    """What the OpenAPI document says about one route."""

    op_id: str
    tag: str
    summary: str
    ok: dict[int, tuple[str, str | None]]           # status -> (description, response model name)
    errors: tuple[int, ...] = ()
    body: type[BaseModel] | None = None              # the request model of the JSON body
    args: type[BaseModel] | None = None              # the query-string model
    public: bool = False
    description: str = ""
    media: dict[int, str] = field(default_factory=dict)   # non-JSON response media types


def _settings() -> Settings:
    return current_app.extensions["graphmem"].settings


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def json_body() -> dict[str, Any]:
    """The request body as a JSON object (415 without a JSON content type, 400 when malformed)."""
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", "send the body as application/json", "Content-Type")
    raw = request.get_data(cache=True)     # raises 413 past MAX_CONTENT_LENGTH
    try:
        data = json.loads(raw, parse_constant=_no_constants)
    except RecursionError:
        data = None
        depth_error = True
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, "malformed_json", f"the request body is not valid JSON: {exc}") from None
    else:
        depth_error = json_depth(data) > _settings().limits.max_json_depth
    if depth_error:
        limit = _settings().limits.max_json_depth
        raise ValidationError(f"the body is nested deeper than {limit} levels (limits.max_json_depth)")
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "the request body must be a JSON object")
    return data


@functools.lru_cache(maxsize=64)
def _list_fields(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(name for name, f in model.model_fields.items() if get_origin(f.annotation) is list)


def query_args(model: type[BaseModel]) -> dict[str, Any]:
    """``request.args`` shaped for ``model``: lists split, repeated scalars refused."""
    lists = _list_fields(model)
    out: dict[str, Any] = {}
    for name in request.args:
        values = request.args.getlist(name)
        if name in lists:
            out[name] = [v.strip() for raw in values for v in raw.split(",") if v.strip()]
        elif len(values) > 1:
            raise ValidationError(f"{name} is given {len(values)} times; give it once", field=name)
        else:
            out[name] = values[0]
    return out


def _validate_args(model: type[BaseModel]) -> Any:
    """Query arguments; a failure names the parameter (``types``, not ``types[0]``)."""
    try:
        return validate(model, query_args(model), _settings())
    except ValidationError as exc:
        exc.field = (exc.field or "").split("[")[0].split(".")[0] or None
        raise


def operation(op_id: str, tag: str, summary: str, *, ok: dict[int, tuple[str, str | None]],
              errors: tuple[int, ...] = (), body: type[BaseModel] | None = None,
              args: type[BaseModel] | None = None,
              public: bool = False, description: str = "",
              media: dict[int, str] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Validate the route's inputs against the contract and pass them as ``body=`` / ``args=``."""
    op = Operation(op_id, tag, summary, ok, errors, body, args, public, description, media or {})

    def wrap(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def checked(**path: Any) -> Any:
            if "memory_id" in path:
                validate(MemoryPath, path, _settings())
            if args is not None:
                path["args"] = _validate_args(args)
            elif request.args:
                name = next(iter(request.args))
                raise ValidationError(f"unknown query parameter {name!r}", field=name)
            if body is not None:
                path["body"] = validate(body, json_body(), _settings())
            return view(**path)

        setattr(checked, "operation", op)      # noqa: B010 (read by the OpenAPI builder)
        return checked

    return wrap

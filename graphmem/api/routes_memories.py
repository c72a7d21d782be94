"""Memory CRUD, batch create and filtered listing.

Idempotency comes from the engine: an explicit ``id`` (or identical content) returns the
stored memory as a duplicate instead of writing twice.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from graphmem.api.errors import ApiError
from graphmem.api.serialize import (
    arg_int,
    arg_list,
    body_namespace,
    check_args,
    engine,
    json_body,
    principal,
    query_namespace,
)
from graphmem.errors import StoreUnavailable, ValidationError
from graphmem.ingest.validate import PATCHABLE_FIELDS, WRITABLE_FIELDS, validate_namespace
from graphmem.retrieval.request import parse_filters

bp = Blueprint("memories", __name__, url_prefix="/v1")

LIST_ARGS = {"namespace", "limit", "cursor", "tags", "category", "source", "min_health", "max_health",
             "created_after", "created_before", "include_expired"}

QUERY_FIELD = {"filters.categories": "category", "filters.sources": "source"}


def _metrics():
    return current_app.extensions["graphmem"].metrics


def _result_body(result) -> dict[str, Any]:
    out = result.to_dict()
    out.pop("index", None)
    return out


@bp.post("/memories")
def create_memory() -> tuple[Response, int] | Response:
    data = json_body(WRITABLE_FIELDS)
    ns = body_namespace(data)
    result = engine().add({**data, "namespace": ns}, ns)
    _metrics().observe_ingest([result.status])
    resp = jsonify(_result_body(result))
    if result.status == "created" and result.memory is not None:
        resp.status_code = 201
        resp.headers["Location"] = url_for("memories.get_memory", memory_id=result.memory.id, namespace=ns)
    return resp


@bp.post("/memories:batch")
def create_batch() -> Response:
    data = json_body({"memories", "namespace"})
    ns = body_namespace(data)
    items = data.get("memories")
    if not isinstance(items, list) or not items:
        raise ValidationError("memories must be a non-empty list", field="memories")
    for i, item in enumerate(items):      # authorise every item's namespace before anything is written
        if isinstance(item, dict) and item.get("namespace") not in (None, ns):
            try:
                item_ns = validate_namespace(item["namespace"], f"memories[{i}].namespace")
            except ValidationError:
                continue                   # malformed: rejected per item by the engine
            if not principal().may_use(item_ns):
                raise ApiError(403, "forbidden_namespace", f"this key may not use namespace {item_ns!r}",
                               f"memories[{i}].namespace")
    results = engine().add_batch(items, ns)
    _metrics().observe_ingest([r.status for r in results])
    down = [r.error for r in results if isinstance(r.error, StoreUnavailable)]
    if down and not any(r.status != "rejected" for r in results):
        raise down[0]        # nothing was written: the whole request is retryable (503)
    summary = {status: sum(r.status == status for r in results) for status in ("created", "duplicate",
                                                                               "rejected")}
    return jsonify({"namespace": ns, "summary": summary, "results": [r.to_dict() for r in results]})


@bp.get("/memories")
def list_memories() -> Response:
    check_args(LIST_ARGS)
    ns = query_namespace()
    try:
        flt = parse_filters({
            "tags": arg_list("tags"), "categories": arg_list("category"), "sources": arg_list("source"),
            "min_health": request.args.get("min_health"), "max_health": request.args.get("max_health"),
            "created_after": request.args.get("created_after"),
            "created_before": request.args.get("created_before"),
            "include_expired": request.args.get("include_expired"),
        }, engine().settings.limits, prefix="filters")
    except ValidationError as exc:     # name the query parameter, not the search-body filter key
        exc.field = QUERY_FIELD.get(exc.field or "", (exc.field or "").removeprefix("filters."))
        raise
    limit = arg_int("limit", 50, 1, 500)
    page, next_cursor = engine().list_memories(ns, flt, limit or 50, request.args.get("cursor"))
    return jsonify({"namespace": ns, "memories": [m.to_dict() for m in page], "next_cursor": next_cursor})


@bp.get("/memories/<path:memory_id>")
def get_memory(memory_id: str) -> Response:
    check_args({"namespace"})
    return jsonify(engine().get(query_namespace(), memory_id).to_dict())


@bp.patch("/memories/<path:memory_id>")
def update_memory(memory_id: str) -> Response:
    data = json_body(PATCHABLE_FIELDS | {"namespace"})
    ns = body_namespace(data)
    patch = {k: v for k, v in data.items() if k != "namespace"}
    if not patch:
        raise ValidationError("a patch must change at least one of " + ", ".join(sorted(PATCHABLE_FIELDS)),
                              field=None)
    return jsonify(engine().update(ns, memory_id, patch).to_dict())


@bp.delete("/memories/<path:memory_id>")
def delete_memory(memory_id: str) -> tuple[str, int]:
    check_args({"namespace"})
    engine().delete(query_namespace(), memory_id)
    return "", 204

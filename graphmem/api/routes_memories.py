"""Memory CRUD, batch create and filtered listing.

Inputs arrive validated by the contract's models (``@operation``). Idempotency comes from the
engine: an explicit ``id`` (or identical content) returns the stored memory as a duplicate."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, url_for

from graphmem.api.errors import ApiError
from graphmem.api.serialize import body_namespace, engine, principal, query_namespace
from graphmem.api.validation import operation
from graphmem.contract.requests import BatchRequest, ListArgs, MemoryInput, MemoryPatch, NamespaceArgs
from graphmem.contract.search import list_filters
from graphmem.errors import StoreUnavailable
from graphmem.views import dump

bp = Blueprint("memories", __name__, url_prefix="/v1")


def _metrics():
    return current_app.extensions["graphmem"].metrics


def _fields(model: Any) -> dict[str, Any]:
    """What the client sent (unset fields stay unset, so the engine applies its defaults)."""
    return model.model_dump(exclude_unset=True)


@bp.post("/memories")
@operation("createMemory", "memories", "Store a memory (idempotent by id or content)",
           ok={201: ("Created", "CreateResult"), 200: ("Duplicate of a stored memory", "CreateResult")},
           errors=(400, 403, 409, 413, 415, 422), body=MemoryInput,
           description="Answers 201 with a Location header when created, 200 with `status: duplicate` when "
                       "the id (with the same content) or the same content is already stored: the stored "
                       "memory is never changed, and what the request carried that it does not hold (new "
                       "tags, another category, source, reason or metadata) is listed in `not_stored`; "
                       "PATCH changes a memory. Other content under a stored id is a 409 naming PATCH.")
def create_memory(body: MemoryInput) -> tuple[Response, int] | Response:
    ns = body_namespace(body.namespace)
    result = engine().add({**_fields(body), "namespace": ns}, ns)
    _metrics().observe_ingest([result.status])
    resp = jsonify(dump(result))
    if result.status == "created":
        resp.status_code = 201
        resp.headers["Location"] = url_for("memories.get_memory", memory_id=result.id, namespace=ns)
    return resp


@bp.post("/memories:batch")
@operation("createMemories", "memories", "Store up to limits.max_batch memories in one request",
           ok={200: ("Per-item results, in request order", "BatchResponse")},
           errors=(400, 403, 413, 415, 422), body=BatchRequest,
           description="The whole batch is validated first: any invalid item answers 422 naming it "
                       "(`memories[i].field`) and nothing is written. Each item is then created, a "
                       "duplicate, or rejected (an id already stored with other content, evidence not found).")
def create_batch(body: BatchRequest) -> Response:
    ns = body_namespace(body.namespace)
    for i, item in enumerate(body.memories):     # authorise every item's namespace before any write
        if item.namespace not in (None, ns) and not principal().may_use(item.namespace):
            raise ApiError(403, "forbidden_namespace", f"this key may not use namespace {item.namespace!r}",
                           f"memories[{i}].namespace")
    try:
        answer = engine().add_batch([_fields(item) for item in body.memories], ns)
    except StoreUnavailable:     # nothing was written: a 503, each item counted as the rejection it was
        _metrics().observe_ingest(["rejected"] * len(body.memories))
        raise
    _metrics().observe_ingest([r.status for r in answer.results])
    return jsonify(dump(answer))


@bp.get("/memories")
@operation("listMemories", "memories", "List memories with filters, a sort and a cursor",
           ok={200: ("One page", "MemoryList")}, errors=(403, 422), args=ListArgs,
           description="Oldest first unless `sort` says otherwise. `next_cursor` pages on in the same sort "
                       "and filters; a cursor of another sort answers 422. With `thread`, the answer adds "
                       "the page's FOLLOWS edges and context windows.")
def list_memories(args: ListArgs) -> Response:
    ns = query_namespace(args.namespace)
    return jsonify(dump(engine().list_memories(ns, list_filters(args), args.limit, args.cursor, args.sort,
                                               args.thread, args.superseded_only)))


@bp.get("/memories/<memory_id:memory_id>")
@operation("getMemory", "memories", "Fetch one memory", ok={200: ("The memory", "Memory")},
           errors=(403, 404, 422), args=NamespaceArgs)
def get_memory(memory_id: str, args: NamespaceArgs) -> Response:
    return jsonify(dump(engine().get(query_namespace(args.namespace), memory_id)))


@bp.patch("/memories/<memory_id:memory_id>")
@operation("updateMemory", "memories", "Change fields of a memory", ok={200: ("The updated memory", "Memory")},
           errors=(400, 403, 404, 413, 415, 422), body=MemoryPatch)
def update_memory(memory_id: str, body: MemoryPatch) -> Response:
    ns = body_namespace(body.namespace)
    patch = {k: v for k, v in _fields(body).items() if k != "namespace"}
    return jsonify(dump(engine().update(ns, memory_id, patch)))


@bp.delete("/memories/<memory_id:memory_id>")
@operation("deleteMemory", "memories", "Delete a memory and its edges", ok={204: ("Deleted", None)},
           errors=(403, 404, 422), args=NamespaceArgs)
def delete_memory(memory_id: str, args: NamespaceArgs) -> tuple[str, int]:
    engine().delete(query_namespace(args.namespace), memory_id)
    return "", 204

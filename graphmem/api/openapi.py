"""The OpenAPI 3.1 description of the HTTP API, written as data.

Limits (batch size, k, content length) come from the running settings, so the document
served at ``/openapi.json`` describes the server actually answering. The test suite
validates the document and checks every response it sees against these schemas.
"""

from __future__ import annotations

from typing import Any

from graphmem.api.docs import render_docs
from graphmem.config import STAGES, Limits
from graphmem.model import EDGE_TYPES

JSON = "application/json"
STR: dict[str, Any] = {"type": "string"}
NSTR: dict[str, Any] = {"type": ["string", "null"]}
INT: dict[str, Any] = {"type": "integer"}
NUM: dict[str, Any] = {"type": "number"}
BOOL: dict[str, Any] = {"type": "boolean"}
TIME: dict[str, Any] = {"type": ["string", "null"], "format": "date-time"}
OBJ: dict[str, Any] = {"type": "object"}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def arr(items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": items, **extra}


def obj(props: dict[str, Any], required: list[str] | None = None, closed: bool = True,
        **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, **extra}
    if required:
        out["required"] = required
    if closed:
        out["additionalProperties"] = False
    return out


def _schemas(lim: Limits) -> dict[str, Any]:
    edge_type = {"type": "string", "enum": list(EDGE_TYPES)}
    kind = {"type": "string", "enum": ["direct", "related", "direct+related"]}
    ns = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}$",
          "description": "Tenancy boundary; defaults to the key's only namespace (or `default` without keys)."}
    mem_id = {"type": "string", "maxLength": lim.max_id_chars, "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.:@/\-]*$"}
    tags = arr({"type": "string", "maxLength": lim.max_tag_chars}, maxItems=lim.max_tags)
    values = arr(STR, maxItems=lim.max_filter_values)
    writable = {
        "content": {"type": "string", "minLength": 1, "maxLength": lim.max_content_chars},
        "tags": tags, "category": {"type": ["string", "null"], "maxLength": lim.max_category_chars},
        "source": {"type": ["string", "null"], "maxLength": lim.max_source_chars,
                   "description": "Provenance; ranks by [sources.ranks] (e.g. memory_tool, MEMORY.md)."},
        "reason": {"type": ["string", "null"], "maxLength": lim.max_reason_chars},
        "metadata": {"type": ["object", "null"], "description": f"At most {lim.max_metadata_bytes} bytes."},
        "valid_until": TIME, "expires_at": TIME,
    }
    hit = obj({"rank": INT, "score": NUM}, ["rank", "score"])
    mem_result = {"index": INT, "status": {"type": "string", "enum": ["created", "duplicate", "rejected"]},
                  "id": STR, "memory": ref("Memory"), "duplicate_of": STR, "error": ref("ErrorDetail")}
    count = {"type": "integer", "minimum": 0}
    per_type = {t: count for t in EDGE_TYPES}
    return {
        "ErrorDetail": obj({"code": STR, "message": STR, "field": NSTR}, ["code", "message", "field"]),
        "Error": obj({"error": ref("ErrorDetail")}, ["error"]),
        "NotReady": obj({"error": ref("ErrorDetail"), "checks": {"type": "object",
                                                                  "additionalProperties": STR}},
                        ["error", "checks"]),
        "Namespace": ns,
        "EdgeType": edge_type,
        "Evidence": obj({"source_text": STR, "quote": STR}, ["source_text", "quote"],
                        description="The quote must occur in source_text (case and whitespace folded)."),
        "HealthPenalty": obj({"rule": STR, "penalty": NUM, "detail": STR}, ["rule", "penalty", "detail"]),
        "Memory": obj({
            "id": STR, "namespace": STR, "content": STR, "tags": arr(STR), "category": NSTR, "source": STR,
            "reason": NSTR, "metadata": OBJ, "created_at": STR, "updated_at": STR, "valid_until": NSTR,
            "expires_at": NSTR, "health": {"type": "number", "minimum": 0, "maximum": 1},
            "health_reasons": arr(ref("HealthPenalty")), "source_weight": NUM, "near_duplicate_of": NSTR,
            "evidence": ref("Evidence")},
            ["id", "namespace", "content", "tags", "category", "source", "reason", "metadata", "created_at",
             "updated_at", "valid_until", "expires_at", "health", "health_reasons", "source_weight",
             "near_duplicate_of"]),
        "MemoryInput": obj({
            "id": {**mem_id, "description": "Idempotency key: resending the same id and content is a duplicate."},
            "namespace": ref("Namespace"), **writable, "created_at": TIME,
            "extracted": {**BOOL, "description": "Extracted by a model: evidence is then required."},
            "evidence": ref("Evidence")}, ["content"]),
        "MemoryPatch": obj({"namespace": ref("Namespace"), **writable}, minProperties=1,
                           description="Changing content, tags or category re-embeds and re-links."),
        "CreateResult": obj({k: mem_result[k] for k in ("status", "id", "memory", "duplicate_of")},
                            ["status", "id", "memory"]),
        "BatchRequest": obj({"namespace": ref("Namespace"),
                             "memories": arr(ref("MemoryInput"), minItems=1, maxItems=lim.max_batch)},
                            ["memories"]),
        "BatchItemResult": obj(mem_result, ["index", "status"]),
        "BatchResponse": obj({"namespace": STR, "summary": obj({"created": count, "duplicate": count,
                                                                  "rejected": count},
                                                                 ["created", "duplicate", "rejected"]),
                              "results": arr(ref("BatchItemResult"))}, ["namespace", "summary", "results"]),
        "MemoryList": obj({"namespace": STR, "memories": arr(ref("Memory")), "next_cursor": NSTR},
                          ["namespace", "memories", "next_cursor"]),
        "SearchFilters": obj({"tags": values, "categories": values, "sources": values,
                              "min_health": {"type": "number", "minimum": 0, "maximum": 1},
                              "max_health": {"type": "number", "minimum": 0, "maximum": 1},
                              "created_after": TIME, "created_before": TIME, "include_expired": BOOL},
                             description="Tags: all must match; categories and sources: any."),
        "Stages": obj({s: BOOL for s in STAGES}, description="Switch pipeline stages (all on by default)."),
        "SearchParams": obj({
            "recall_candidates": {"type": "integer", "minimum": 0, "maximum": 1000},
            "fusion": {"type": "string", "enum": ["rrf", "weighted"]},
            "rrf_k": {"type": "integer", "minimum": 0, "maximum": 10000},
            "recency_half_life_days": {"type": "number", "exclusiveMinimum": 0},
            **{p: {"type": "number", "minimum": 0} for p in (
                "vector_weight", "lexical_weight", "router_boost", "recency_weight",
                "expansion_min_edge_weight", "expansion_decay", "expansion_similarity_mix",
                "expansion_merge_bonus", "health_floor")},
            **{p: {"type": "integer", "minimum": 0, "maximum": m} for p, m in (
                ("expansion_seeds", 100), ("expansion_per_seed", 100), ("expansion_max_added", 1000))},
            "edge_type_weights": obj({t: {"type": "number", "minimum": 0, "maximum": 10} for t in EDGE_TYPES}),
            "dedupe_near_duplicates": BOOL}, description="Overrides of the recipe's fusion/expansion tunables."),
        "SearchRequest": obj({
            "query": {"type": "string", "minLength": 1, "maxLength": lim.max_query_chars},
            "namespace": ref("Namespace"), "k": {"type": "integer", "minimum": 1, "maximum": lim.max_k},
            "filters": ref("SearchFilters"),
            "recipe": {**STR, "description": "Named config: default, hybrid, lexical, vector, hybrid_expansion."},
            "stages": ref("Stages"), "params": ref("SearchParams"),
            "explain": {**BOOL, "default": True, "description": "Include `why` on each result."},
            "trace": {**BOOL, "default": False, "description": "Include per-stage counts and timings."}},
            ["query"]),
        "RelatedPath": obj({"seed": STR, "edge": edge_type, "weight": NUM, "reason": OBJ, "score": NUM},
                           ["seed", "edge", "weight", "reason", "score"]),
        "Why": obj({
            "kind": kind,
            "direct": obj({"vector": hit, "lexical": hit, "fused": NUM}, ["fused"]),
            "related": arr(ref("RelatedPath")),
            "router": obj({"tags": arr(STR), "category": NSTR, "boost": NUM}, ["tags", "category", "boost"]),
            "health": obj({"score": NUM, "multiplier": NUM, "penalties": arr(ref("HealthPenalty")),
                           "applied": BOOL}, ["score", "multiplier", "penalties", "applied"]),
            "source": obj({"source": STR, "weight": NUM, "applied": BOOL}, ["source", "weight", "applied"]),
            "near_duplicates_merged": arr(STR)}, ["kind", "health", "source"],
            description="Why a result is here: recall channels, graph paths, router, health and source."),
        "SearchResult": obj({"id": STR, "score": NUM, "kind": kind, "memory": ref("Memory"), "why": ref("Why")},
                            ["id", "score", "kind", "memory"]),
        "TraceStage": obj({"stage": {"type": "string", "enum": ["router", "recall", "expansion", "weighting",
                                                                 "rank"]},
                           "enabled": BOOL, "in": count, "out": count, "ms": NUM}, ["stage", "enabled", "in",
                                                                                   "out", "ms"],
                          closed=False, description="Plus stage-specific counts (vector, lexical, added, "
                                                    "merged, near_duplicates_dropped, ...)."),
        "Trace": obj({"recipe": STR, "k": INT, "stages": arr(ref("TraceStage")),
                      "results_by_kind": obj({"direct": count, "related": count, "direct+related": count}),
                      "total_ms": NUM}, ["recipe", "k", "stages", "results_by_kind", "total_ms"]),
        "SearchResponse": obj({"query": STR, "namespace": STR, "results": arr(ref("SearchResult")),
                               "trace": ref("Trace")}, ["query", "namespace", "results"]),
        "Edge": obj({"source": STR, "target": STR, "type": edge_type, "weight": NUM, "reason": OBJ},
                    ["source", "target", "type", "weight", "reason"]),
        "Neighbor": obj({"memory": ref("Memory"), "type": edge_type, "weight": NUM, "reason": OBJ},
                        ["memory", "type", "weight", "reason"]),
        "NeighborsResponse": obj({"memory": ref("Memory"), "neighbors": arr(ref("Neighbor"))},
                                 ["memory", "neighbors"]),
        "Graph": obj({"nodes": arr(ref("Memory")), "edges": arr(ref("Edge"))}, ["nodes", "edges"]),
        "RelationRequest": obj({"from_id": mem_id, "to_id": mem_id,
                                "label": {"type": "string", "minLength": 1, "maxLength": 200},
                                "evidence": ref("Evidence"),
                                "weight": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                                "namespace": ref("Namespace")}, ["from_id", "to_id", "evidence"]),
        "Stats": obj({"memories": count, "namespaces": {"type": "object", "additionalProperties": count},
                      "edges": obj(per_type, list(EDGE_TYPES)),
                      "degree": obj({t: obj({"max": count, "mean": NUM}, ["max", "mean"]) for t in EDGE_TYPES},
                                    list(EDGE_TYPES)),
                      "health_histogram": {"type": "object", "additionalProperties": count}},
                     ["memories", "namespaces", "edges", "degree", "health_histogram"]),
        "Health": obj({"status": {"const": "ok"}}, ["status"]),
        "Ready": obj({"status": {"const": "ready"}, "checks": {"type": "object", "additionalProperties": STR}},
                     ["status", "checks"]),
    }


# -- operations ------------------------------------------------------------------------------
ERRORS = {400: "Malformed JSON or body", 401: "Missing or invalid API key",
          403: "The key may not use that namespace", 404: "Not found in this namespace", 409: "Conflict",
          413: "Body or field too large", 422: "Validation failed; `field` names the input",
          503: "Store unavailable; retry after Retry-After seconds"}


def _response(desc: str, schema: str | None, status: int) -> dict[str, Any]:
    out: dict[str, Any] = {"description": desc, "headers": {"X-Request-ID": {"$ref": "#/components/headers/"
                                                                                        "X-Request-ID"}}}
    if status == 503:
        out["headers"]["Retry-After"] = {"$ref": "#/components/headers/Retry-After"}
    if schema:
        out["content"] = {JSON: {"schema": ref(schema)}}
    return out


def _op(op_id: str, tag: str, summary: str, ok: dict[int, tuple[str, str | None]], errors: tuple[int, ...],
        params: tuple[str, ...] = (), body: str | None = None, public: bool = False,
        description: str = "") -> dict[str, Any]:
    documented = {s: _response(d, schema, s) for s, (d, schema) in ok.items()}
    for status in (*errors, *(() if public else (401, 503))):
        documented[status] = _response(ERRORS[status], "Error", status)
    responses = {str(s): documented[s] for s in sorted(documented)}
    responses["default"] = _response("Unexpected error", "Error", 500)
    out: dict[str, Any] = {"operationId": op_id, "tags": [tag], "summary": summary, "responses": responses}
    if description:
        out["description"] = description
    if params:
        out["parameters"] = [{"$ref": f"#/components/parameters/{p}"} for p in params]
    if body:
        out["requestBody"] = {"required": True, "content": {JSON: {"schema": ref(body)}}}
    if public:
        out["security"] = []
    return out


def _parameters(lim: Limits) -> dict[str, Any]:
    def q(name: str, schema: dict[str, Any], desc: str) -> dict[str, Any]:
        return {"name": name, "in": "query", "required": False, "schema": schema, "description": desc}

    csv = {"type": "string"}
    return {
        "MemoryId": {"name": "memory_id", "in": "path", "required": True, "schema": STR,
                     "description": "Memory id (ids may contain '/', sent raw or percent-encoded)."},
        "Namespace": q("namespace", ref("Namespace"), "Namespace to read (default: the key's only one)."),
        "Tags": q("tags", csv, "Comma-separated or repeated; the memory must carry all."),
        "Category": q("category", csv, "Comma-separated or repeated; any of."),
        "Source": q("source", csv, "Comma-separated or repeated; any of."),
        "MinHealth": q("min_health", {"type": "number", "minimum": 0, "maximum": 1}, "Lowest health."),
        "MaxHealth": q("max_health", {"type": "number", "minimum": 0, "maximum": 1}, "Highest health."),
        "CreatedAfter": q("created_after", {"type": "string", "format": "date-time"}, "Inclusive."),
        "CreatedBefore": q("created_before", {"type": "string", "format": "date-time"}, "Exclusive."),
        "IncludeExpired": q("include_expired", {"type": "boolean"}, "Also list expired memories."),
        "Limit": q("limit", {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}, "Page size."),
        "Cursor": q("cursor", STR, "`next_cursor` of the previous page."),
        "Types": q("types", csv, "Edge types, comma-separated: " + ", ".join(EDGE_TYPES) + "."),
        "MinWeight": q("min_weight", {"type": "number", "minimum": 0, "maximum": 1}, "Weakest edge kept."),
        "NeighborLimit": q("limit", {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
                           "Edges returned."),
        "Ids": q("ids", csv, f"Comma-separated seed ids (at most {lim.max_filter_values})."),
        "Query": q("query", STR, "Seed the subgraph with this search's results instead of ids."),
        "K": q("k", {"type": "integer", "minimum": 1, "maximum": lim.max_k, "default": 10}, "Seeds from query."),
        "Hops": q("hops", {"type": "integer", "minimum": 0, "maximum": 3, "default": 1}, "Neighbour hops."),
    }


def _paths() -> dict[str, Any]:
    list_params = ("Namespace", "Tags", "Category", "Source", "MinHealth", "MaxHealth", "CreatedAfter",
                   "CreatedBefore", "IncludeExpired", "Limit", "Cursor")
    return {
        "/v1/memories": {
            "post": _op("createMemory", "memories", "Create a memory (idempotent on id and content)",
                        {201: ("Created", "CreateResult"), 200: ("Duplicate of a stored memory", "CreateResult")},
                        (400, 403, 409, 413, 422), body="MemoryInput"),
            "get": _op("listMemories", "memories", "List memories with filters and cursor paging",
                       {200: ("A page", "MemoryList")}, (403, 422), list_params)},
        "/v1/memories:batch": {
            "post": _op("createMemories", "memories", "Create up to limits.max_batch memories",
                        {200: ("Per-item results: created, duplicate or rejected with its reason",
                               "BatchResponse")}, (400, 403, 413, 422), body="BatchRequest")},
        "/v1/memories/{memory_id}": {
            "get": _op("getMemory", "memories", "Exact lookup (whatever the health)",
                       {200: ("The memory", "Memory")}, (403, 404, 422), ("MemoryId", "Namespace")),
            "patch": _op("updateMemory", "memories", "Update a memory", {200: ("The updated memory", "Memory")},
                         (400, 403, 404, 413, 422), ("MemoryId", "Namespace"), body="MemoryPatch"),
            "delete": _op("deleteMemory", "memories", "Delete a memory and its edges", {204: ("Deleted", None)},
                          (403, 404, 422), ("MemoryId", "Namespace"))},
        "/v1/memories/{memory_id}/neighbors": {
            "get": _op("getNeighbors", "graph", "One-hop neighbourhood with edge types, weights and reasons",
                       {200: ("The memory and its neighbours", "NeighborsResponse")}, (403, 404, 422),
                       ("MemoryId", "Namespace", "Types", "MinWeight", "NeighborLimit"))},
        "/v1/search": {
            "post": _op("search", "search", "Staged search: router, hybrid recall, expansion, weighting, rank",
                        {200: ("Ranked results, each with a `why`", "SearchResponse")}, (400, 403, 413, 422),
                        body="SearchRequest")},
        "/v1/graph": {
            "get": _op("getGraph", "graph", "A subgraph (nodes + edges) around ids or a query's results",
                       {200: ("Nodes and edges", "Graph")}, (403, 422),
                       ("Namespace", "Ids", "Query", "K", "Hops"))},
        "/v1/relations": {
            "post": _op("createRelation", "graph", "Add an explicit, evidence-gated RELATED edge",
                        {201: ("The edge", "Edge")}, (400, 403, 404, 409, 413, 422), body="RelationRequest",
                        description="422 `evidence_rejected` when the quote is not in the source text.")},
        "/v1/stats": {
            "get": _op("getStats", "ops", "Counts, edges per type, degree and health stats (your namespaces)",
                       {200: ("Statistics", "Stats")}, (403, 422), ("Namespace",))},
        "/healthz": {"get": _op("healthz", "ops", "Liveness", {200: ("Process up", "Health")}, (), public=True)},
        "/readyz": {"get": _op("readyz", "ops", "Readiness: store ping and embedder", {
            200: ("Ready", "Ready"), 503: ("Not ready", "NotReady")}, (), public=True)},
        "/metrics": {"get": _op("metrics", "ops", "Prometheus metrics", {200: ("Text exposition", None)}, (),
                                public=True)},
        "/openapi.json": {"get": _op("openapi", "ops", "This document", {200: ("OpenAPI 3.1", None)}, (),
                                     public=True)},
        "/docs": {"get": _op("docs", "ops", "Human-readable docs rendered from this document",
                             {200: ("HTML", None)}, (), public=True)},
    }


def build_spec(limits: Limits) -> dict[str, Any]:
    paths = _paths()
    paths["/metrics"]["get"]["responses"]["200"]["content"] = {"text/plain": {"schema": STR}}
    paths["/openapi.json"]["get"]["responses"]["200"]["content"] = {JSON: {"schema": OBJ}}
    paths["/docs"]["get"]["responses"]["200"]["content"] = {"text/html": {"schema": STR}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "graphmem", "version": __import__("graphmem").__version__,
                 "description": "Graph memory for AI agents. Memories are nodes linked by SHARES_TAG, "
                                "SAME_CATEGORY, OVERLAPS and explicit RELATED edges; search runs router -> "
                                "hybrid recall -> one-hop expansion -> health/source weighting -> rank and "
                                "explains every result. Errors are always "
                                "`{\"error\": {\"code\", \"message\", \"field\"}}`, also for unknown routes "
                                "(404) and methods a path does not support (405, with an Allow header)."},
        "servers": [{"url": "/"}],
        "tags": [{"name": n} for n in ("memories", "search", "graph", "ops")],
        "security": [{"bearerAuth": []}, {"apiKey": []}],
        "paths": paths,
        "components": {
            "schemas": _schemas(limits),
            "parameters": _parameters(limits),
            "headers": {
                "X-Request-ID": {"description": "The request id (an incoming X-Request-ID is echoed).",
                                 "schema": STR},
                "Retry-After": {"description": "Seconds to wait before retrying.", "schema": INT}},
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer",
                               "description": "Authorization: Bearer <key>. Not required when the server "
                                              "runs without keys (loopback only)."},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        },
    }


__all__ = ["build_spec", "render_docs"]

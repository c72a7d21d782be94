"""Tool input schemas, taken from the HTTP API's own schema components.

Why not a field list here: the MCP tools take the same requests as ``/v1`` (issue 15: one
source for the contract), so each tool's schema is the matching API component with its
``$ref`` links inlined (tool clients resolve no references), plus the few MCP-only fields
(``id`` where the API has it in the path, and ``detail``).
"""

from __future__ import annotations

from typing import Any

from graphmem.api.openapi import build_spec
from graphmem.config import Settings

DETAIL = {"type": "string", "enum": ["compact", "full"], "default": "compact",
          "description": "compact (default): content, score and a one-line why per result; "
                         "full: every stored field and the structured why. Results are cut to fit a size bound."}


def _inline(schema: Any, components: dict[str, Any]) -> Any:
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline(components[schema["$ref"].rsplit("/", 1)[1]], components)
        return {key: _inline(value, components) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_inline(value, components) for value in schema]
    return schema


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def input_schemas(settings: Settings) -> dict[str, dict[str, Any]]:
    """Tool name -> JSON schema of its arguments, under the running server's limits."""
    spec = build_spec(settings.limits)["components"]
    comp = spec["schemas"]

    def schema(name: str) -> dict[str, Any]:
        return _inline(comp[name], comp)

    def param(name: str, **extra: Any) -> dict[str, Any]:
        out = _inline(spec["parameters"][name], comp)
        return {**out["schema"], "description": out["description"], **extra}

    relation = schema("RelationRequest")
    mem_id = {**relation["properties"]["from_id"], "description": "The memory's id."}
    namespace = schema("Namespace")
    search = schema("SearchRequest")
    search["properties"].pop("trace")
    memory_input, patch = schema("MemoryInput"), schema("MemoryPatch")
    return {
        "search_memories": _obj({**search["properties"], "detail": DETAIL}, ["query"]),
        "add_memory": _obj({**memory_input["properties"], "detail": DETAIL}, ["content"]),
        "get_memory": _obj({"id": mem_id, "namespace": namespace, "detail": DETAIL}, ["id"]),
        "update_memory": _obj({"id": mem_id, **patch["properties"], "detail": DETAIL}, ["id"]),
        "delete_memory": _obj({"id": mem_id, "namespace": namespace}, ["id"]),
        "memory_neighbors": _obj({
            "id": mem_id, "namespace": namespace,
            "types": {"type": "array", "items": schema("EdgeType"), "uniqueItems": True,
                      "description": "Edge types to follow (default: all)."},
            "min_weight": param("MinWeight"),
            "limit": param("NeighborLimit", default=settings.mcp.neighbors_limit),
            "detail": DETAIL}, ["id"]),
        "relate_memories": _obj(relation["properties"], relation["required"]),
        "memory_stats": _obj({"namespace": namespace}, []),
    }

"""Tool input schemas: the API's request models (``graphmem.contract``), shaped for tool clients.

Why no field list here: a tool takes the same request as its ``/v1`` operation (issue 15: one
source for the contract), so its schema is that model's JSON schema with ``$defs`` inlined
(tool clients resolve no references) and pydantic's generated titles dropped, plus the MCP-only
fields: ``memory_id`` where the API has it in the path, and ``detail``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from graphmem.config import Settings
from graphmem.contract import contract

if TYPE_CHECKING:
    from pydantic import BaseModel

    from graphmem.mcp.tools import ToolSpec

DETAIL = {"type": "string", "enum": ["compact", "full"], "default": "compact",
          "description": "compact (default): content, score and a one-line why per result; "
                         "full: every stored field and the structured why. Results are cut to fit a size bound."}


def _clean(schema: Any, defs: dict[str, Any], in_properties: bool = False) -> Any:
    """Inline ``#/$defs/...`` references and drop generated ``title`` keys (not property names)."""
    if isinstance(schema, list):
        return [_clean(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _clean({**defs[schema["$ref"].rsplit("/", 1)[1]],
                       **{k: v for k, v in schema.items() if k != "$ref"}}, defs)
    return {key: _clean(value, defs, key == "properties" and not in_properties)
            for key, value in schema.items() if in_properties or key not in ("title", "$defs")}


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    return _clean(schema, schema.get("$defs", {}))


def input_schemas(settings: Settings, specs: Iterable[ToolSpec]) -> dict[str, dict[str, Any]]:
    """Tool name -> JSON schema of its arguments, under the running server's limits."""
    models = contract(settings)
    mem_id = {**model_schema(models.MemoryPath)["properties"]["memory_id"], "description": "The memory's id."}
    extra_fields = {"memory_id": mem_id, "detail": DETAIL}
    out = {}
    for spec in specs:
        schema = model_schema(getattr(models, spec.model))
        schema.pop("description", None)          # the model's docstring: the tool has its own description
        props = {k: v for k, v in schema["properties"].items() if k not in spec.unlisted}
        for name, attr in spec.defaults.items():
            props[name] = {**props[name], "default": getattr(settings.mcp, attr)}
        extra = {name: extra_fields[name] for name in spec.extra}
        required = [name for name in spec.extra if name == "memory_id"] + schema.get("required", [])
        schema.pop("required", None)
        out[spec.name] = {**schema, "type": "object", "properties": {**extra, **props},
                          "additionalProperties": False, **({"required": required} if required else {})}
    return out

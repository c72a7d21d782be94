"""Tool input schemas: the API's request models (``graphmem.contract``), shaped for tool clients.

Why no field list here: a tool takes the same request as its ``/v1`` operation (one source
for the contract), so its schema is that model's JSON schema with ``$defs`` inlined
(tool clients resolve no references) and pydantic's generated titles dropped, plus the MCP-only
fields: ``memory_id`` where the API has it in the path, and ``detail``.

Optional fields are advertised by their plain type (``{"type": "integer", ...}``), not as
``anyOf: [T, null]``: clients that convert text arguments by a property's top-level ``type``
(the Inspector CLI, form-based hosts) can then fill them. Leaving a field out is how a caller
asks for its default; an explicit ``null`` is still accepted, as over HTTP. Text sent for a
non-string field is refused, as in an HTTP body: the client converts by the schema (the
Inspector CLI does), the server does not guess (docs/strict-json.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from graphmem.config import Settings
from graphmem.contract.limits import resolve_schema
from graphmem.contract.requests import MemoryPath, ToolDetail

if TYPE_CHECKING:
    from graphmem.mcp.tools import ToolSpec


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


def _plain(schema: Any) -> Any:
    """``anyOf: [T, {"type": "null"}]`` -> ``T`` (with the field's own keys) in every property."""
    if isinstance(schema, list):
        return [_plain(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: ({name: _plain(prop) for name, prop in value.items()} if key == "properties" else _plain(value))
           for key, value in schema.items()}
    branches = out.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        kept = next(b for b in branches if b != {"type": "null"})
        out = {**kept, **{k: v for k, v in out.items() if k != "anyOf"}}
        if out.get("default", "") is None:
            del out["default"]
    return out


def model_schema(model: type[BaseModel], settings: Settings) -> dict[str, Any]:
    """``model``'s JSON schema under ``settings``' limits, references inlined, titles dropped."""
    schema = resolve_schema(model.model_json_schema(), settings)
    return _plain(_clean(schema, schema.get("$defs", {})))


def input_schemas(settings: Settings, specs: Iterable[ToolSpec]) -> dict[str, dict[str, Any]]:
    """Tool name -> JSON schema of its arguments, under the running server's limits."""
    mem_id = {**model_schema(MemoryPath, settings)["properties"]["memory_id"], "description": "The memory's id."}
    extra_fields = {"memory_id": mem_id, "detail": model_schema(ToolDetail, settings)["properties"]["detail"]}
    out = {}
    for spec in specs:
        schema = model_schema(spec.model, settings)
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

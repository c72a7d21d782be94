"""The OpenAPI 3.1 document, generated: paths from the routes' ``@operation`` records, schemas
from the contract's pydantic models (so the limits in it are the running server's).

Nothing here states a field or a bound: change a model and the document follows."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from graphmem.api.validation import Operation
from graphmem.config import Settings
from graphmem.contract import responses
from graphmem.contract.limits import resolve_schema
from graphmem.contract.numbers import json_value_schema
from graphmem.contract.requests import ARGUMENT_MODELS, REQUEST_MODELS, MemoryInput, MemoryPatch, MemoryPath

JSON = "application/json"
REF = "#/components/schemas/{model}"
ERRORS = {400: "Malformed JSON, or a body that is not an object", 401: "Missing or invalid API key",
          403: "The key may not use that namespace", 404: "Not found in this namespace",
          409: "Conflict with what is stored", 413: "Body larger than limits.max_body_bytes",
          415: "The body is not sent as application/json",
          422: "Validation failed; `field` names the input", 503: "Store unavailable; retry after Retry-After"}
DESCRIPTION = ("Graph memory for AI agents. Memories are nodes linked by SHARES_TAG, SAME_CATEGORY, OVERLAPS "
               "and explicit RELATED edges; search runs router -> hybrid recall -> one-hop expansion -> "
               "health/source weighting -> rank and explains every result. Errors are always "
               "`{\"error\": {\"code\", \"message\", \"field\"}}`, also for unknown routes (404) and methods a "
               "path does not support (405, with an Allow header).")
JSON_VALUE = "JsonValue"
# Request models whose free-form ``metadata`` values follow the number rule (docs/strict-json.md).
WITH_METADATA = (MemoryInput.__name__, MemoryPatch.__name__)
EVIDENCE_422 = ("Validation failed; `field` names the input. Also `evidence_rejected` (field `...evidence.quote`) "
                "when an evidence quote does not occur in its `source_text` (compared after folding case and "
                "whitespace): a rule between two fields that JSON Schema cannot state.")


def _strip_titles(node: Any) -> Any:
    """Drop pydantic's generated titles and null defaults (noise in a published document)."""
    if isinstance(node, dict):
        props = node.get("properties") or {}
        return {k: (_strip_titles(v) if k != "properties" else {n: _strip_titles(s) for n, s in props.items()})
                for k, v in node.items()
                if not (k == "title" and isinstance(v, str)) and not (k == "default" and v is None)}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def _not_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A query parameter cannot be null: keep the non-null branch of ``X | None``."""
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    if len(options) == 1:
        rest = {k: v for k, v in schema.items() if k != "anyOf"}
        return {**options[0], **rest}
    return schema


def _components(settings: Settings) -> tuple[dict[str, Any], dict[str, Any]]:
    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = (
        [(m, "validation") for m in (*REQUEST_MODELS, *ARGUMENT_MODELS)]
        + [(m, "serialization") for m in responses.RESPONSE_MODELS])
    _, top = models_json_schema(pairs, ref_template=REF)
    schemas = _strip_titles(resolve_schema(top["$defs"], settings))
    schemas[JSON_VALUE] = json_value_schema(REF.format(model=JSON_VALUE))
    for name in WITH_METADATA:
        metadata = schemas[name]["properties"]["metadata"]
        for option in metadata.get("anyOf", [metadata]):
            if option.get("type") == "object":
                option["additionalProperties"] = {"$ref": REF.format(model=JSON_VALUE)}
    arg_schemas = {model.__name__: schemas.pop(model.__name__) for model in ARGUMENT_MODELS}
    return schemas, arg_schemas


def _parameters(op: Operation, path_args: list[str], arg_schemas: dict[str, Any]) -> list[dict[str, Any]]:
    out = [{"name": name, "in": "path", "required": True,
            "schema": arg_schemas[MemoryPath.__name__]["properties"][name],
            "description": "Memory id (may contain '/', sent raw or percent-encoded)."} for name in path_args]
    if op.args:
        required = set(arg_schemas[op.args.__name__].get("required", []))
        for name, schema in arg_schemas[op.args.__name__]["properties"].items():
            schema = _not_null(schema)
            param = {"name": name, "in": "query", "required": name in required, "schema": schema}
            if schema.get("description"):
                param["description"] = schema["description"]
            if schema.get("type") == "array":
                param["style"], param["explode"] = "form", True
                param["description"] = param.get("description", "") + " Repeated or comma-separated."
            out.append(param)
    return out


def _response(desc: str, schema: str | None, status: int, media: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": desc, "headers": {"X-Request-ID": {"$ref": "#/components/headers/"
                                                                                        "X-Request-ID"}}}
    if status == 503:
        out["headers"]["Retry-After"] = {"$ref": "#/components/headers/Retry-After"}
    if schema:
        out["content"] = {media or JSON: {"schema": {"$ref": REF.format(model=schema)}}}
    elif media:
        out["content"] = {media: {"schema": {"type": "object" if media == JSON else "string"}}}
    return out


def _refers(schemas: dict[str, Any], name: str, target: str) -> bool:
    """Whether schema ``name`` holds ``target`` at any depth, through its references."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current == target:
            return True
        if current in seen or current not in schemas:
            continue
        seen.add(current)
        todo += re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(schemas[current]))
    return False


def _operation(op: Operation, path_args: list[str], arg_schemas: dict[str, Any],
               schemas: dict[str, Any]) -> dict[str, Any]:
    documented = {s: _response(d, schema, s, op.media.get(s)) for s, (d, schema) in op.ok.items()}
    for status in (*op.errors, *(() if op.public else (401, 503))):
        evidence = status == 422 and op.body is not None and _refers(schemas, op.body.__name__, "Evidence")
        documented.setdefault(status, _response(EVIDENCE_422 if evidence else ERRORS[status], "Error", status))
    responses_ = {str(s): documented[s] for s in sorted(documented)}
    responses_["default"] = _response("Unexpected error", "Error", 500)
    out: dict[str, Any] = {"operationId": op.op_id, "tags": [op.tag], "summary": op.summary,
                           "responses": responses_}
    if op.description:
        out["description"] = op.description
    params = _parameters(op, path_args, arg_schemas)
    if params:
        out["parameters"] = params
    if op.body:
        ref = REF.format(model=op.body.__name__)
        out["requestBody"] = {"required": True, "content": {JSON: {"schema": {"$ref": ref}}}}
    if op.public:
        out["security"] = []
    return out


def build_spec(app: Flask, settings: Settings) -> dict[str, Any]:
    """The document for this app's routes under these settings."""
    schemas, arg_schemas = _components(settings)
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        op = getattr(app.view_functions.get(rule.endpoint), "operation", None)
        if op is None:
            continue
        template = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            paths.setdefault(template, {})[method.lower()] = _operation(op, sorted(rule.arguments), arg_schemas,
                                                                          schemas)
    return {
        "openapi": "3.1.0",
        "info": {"title": "graphmem", "version": __import__("graphmem").__version__, "description": DESCRIPTION},
        "servers": [{"url": "/"}],
        "tags": [{"name": n} for n in ("memories", "search", "graph", "ops")],
        "security": [{"bearerAuth": []}, {"apiKey": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "headers": {
                "X-Request-ID": {"description": "The request id (an incoming X-Request-ID is echoed).",
                                 "schema": {"type": "string"}},
                "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}},
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer",
                               "description": "Authorization: Bearer <key>. Not required when the server runs "
                                              "without keys (loopback only)."},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        },
    }


__all__ = ["build_spec"]

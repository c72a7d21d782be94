"""The number rule of every request (RFC 8259, section 6): a number must be finite, and an
integer within +-(2**53 - 1), the range every JSON parser (JavaScript's included) reads exactly.

Why here: ``json.loads`` turns ``1e400`` into ``inf`` and accepts ``NaN``; an MCP client's JSON
parser may too. Stored, such a value comes back as ``Infinity``, which no strict parser reads.
Typed fields already refuse them (``allow_inf_nan=False``, integer ranges); this walk covers
free-form values (``metadata``) and every surface at once, because HTTP bodies, MCP tool
arguments, JSONL imports and the CLI all pass through ``graphmem.contract.validate``."""

from __future__ import annotations

import math
from typing import Any

from graphmem.errors import ValidationError

MAX_SAFE_INTEGER = 2**53 - 1


def _path(prefix: str, parts: list[str | int]) -> str | None:
    out = prefix
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + part
    return out or None


def _problem(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number (NaN, Infinity and overflowing numbers such as 1e400 are not JSON)"
    if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        return (f"must be an integer within -{MAX_SAFE_INTEGER}..{MAX_SAFE_INTEGER} "
                "(2**53-1, exact in every JSON parser)")
    return None


def check_numbers(data: Any, prefix: str = "") -> None:
    """Raise a 422 naming the field path (``metadata.a[2]``) of the first number JSON cannot carry.
    Iterative (a hostile value can be deep); strings and other types are left to the models."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, parts = stack.pop()
        if isinstance(value, dict):
            stack.extend((v, [*parts, str(k)]) for k, v in reversed(list(value.items())))
        elif isinstance(value, list | tuple):
            stack.extend((v, [*parts, i]) for i, v in reversed(list(enumerate(value))))
        else:
            problem = _problem(value)
            if problem is not None:
                field = _path(prefix, parts)
                raise ValidationError(f"{field}: {problem}" if field else problem, field=field)


def json_value_schema(ref: str) -> dict[str, Any]:
    """The JSON Schema of a free-form value (a ``metadata`` value) under this rule, for the OpenAPI
    document: any JSON value, its numbers within +-(2**53 - 1) at any depth (``ref`` points back
    here). One bound states both halves of the rule: every double past 2**53 is an integer."""
    return {
        "description": f"Any JSON value; every number in it, at any depth, within -{MAX_SAFE_INTEGER}.."
                       f"{MAX_SAFE_INTEGER} (2**53-1: exact in every JSON parser; see docs/strict-json.md).",
        "anyOf": [{"type": "string"}, {"type": "boolean"}, {"type": "null"},
                  {"type": "number", "minimum": -MAX_SAFE_INTEGER, "maximum": MAX_SAFE_INTEGER},
                  {"type": "array", "items": {"$ref": ref}},
                  {"type": "object", "additionalProperties": {"$ref": ref}}]}

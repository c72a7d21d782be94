"""Tool arguments sent as text: the one rule by which the MCP layer reads them.

Why: many MCP clients (the official Inspector CLI, form-based hosts, models writing
``key=value`` pairs) send every argument as a string, or convert by the property's top-level
``type`` only. The HTTP API stays exact (a JSON body's ``"3"`` is not ``3``); a tool call may
differ in exactly one way:

    A string is read as JSON only where the tool schema's declared top-level ``type`` of that
    argument is not ``string``, and only if the whole string is one JSON value of exactly that
    type: ``"3"`` for an integer, ``"0.5"`` or ``"1"`` for a number, ``"true"``/``"false"`` for a
    boolean, ``'["a","b"]'`` for an array, ``'{"tags":["db"]}'`` for an object.

Anything else is passed on unchanged, so the request model refuses it with the API's message
and field: ``"5.5"`` or ``"1e3"`` for an integer, ``"NaN"``/``"Infinity"`` anywhere (no JSON
number), ``"yes"`` for a boolean, ``"a,b"`` for an array. Only top-level arguments are read;
values inside a decoded list or object keep their JSON types and are validated strictly, with
the same bounds as over HTTP (size, depth, lengths), because the same request model follows.
"""

from __future__ import annotations

import json
from typing import Any


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _is(value: Any, json_type: str) -> bool:
    if json_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if json_type == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if json_type == "boolean":
        return isinstance(value, bool)
    if json_type == "array":
        return isinstance(value, list)
    if json_type == "object":
        return isinstance(value, dict)
    return False


def read_text_argument(value: str, json_type: str) -> Any:
    """``value`` decoded if it is exactly one JSON ``json_type``; otherwise ``value`` itself."""
    try:
        decoded = json.loads(value, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return value
    if json_type == "integer" and not _integer_literal(value):
        return value            # "1.0" or "1e3" decode to numbers, but are not integers as written
    return decoded if _is(decoded, json_type) else value


def _integer_literal(value: str) -> bool:
    text = value.strip()
    return text.lstrip("-").isdigit() and text.isascii()


def read_arguments(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``args`` with text values of non-string top-level arguments read by the rule above."""
    props = schema.get("properties", {})
    out = dict(args)
    for name, value in args.items():
        declared = props.get(name, {}).get("type")
        if isinstance(value, str) and isinstance(declared, str) and declared != "string":
            out[name] = read_text_argument(value, declared)
    return out

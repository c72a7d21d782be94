"""Schemathesis hooks for tests/api/test_api_schemathesis.py (loaded via SCHEMATHESIS_HOOKS).

Two rules live beyond JSON Schema, so positive cases are made to follow them, and "schema-valid
data is accepted" tests the schema, not the luck of random values. Negative cases are left as
generated.
- The evidence gate keeps a memory or relation only when its quote occurs in its source text:
  positive cases get a quote taken from their source text.
- The number rule (``graphmem.contract.numbers``): an integer anywhere, free-form metadata
  included, must lie within +-(2**53 - 1); JSON Schema cannot bound the integers of an open
  object's values, so positive cases have theirs clamped into that range.
- A list cursor pages only the sort whose key it holds (``contract.search.decode_position``):
  positive cases whose cursor holds another sort's key get the sort that cursor belongs to."""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis.generation import GenerationMode

from graphmem.contract.numbers import MAX_SAFE_INTEGER
from graphmem.contract.search import cursor_form

_SORT_FORM = {"created": "time", "-created": "time", "health": "health", "-health": "health", "thread": "thread"}


def _evidences(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict):
        return []
    items = body.get("memories") if isinstance(body.get("memories"), list) else [body]
    return [item["evidence"] for item in items
            if isinstance(item, dict) and isinstance(item.get("evidence"), dict)]


def _safe_integers(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return max(-MAX_SAFE_INTEGER, min(MAX_SAFE_INTEGER, value))
    if isinstance(value, dict):
        return {k: _safe_integers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_safe_integers(v) for v in value]
    return value


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return case
    case.body = _safe_integers(case.body)
    query = case.query if isinstance(case.query, dict) else {}
    if isinstance(query.get("cursor"), str) and query["cursor"]:
        form = cursor_form(query["cursor"])
        if _SORT_FORM.get(query.get("sort", "created")) != form:
            query["sort"] = {"time": "created", "health": "health", "thread": "thread"}[form]
    for evidence in _evidences(case.body):
        source = evidence.get("source_text")
        if isinstance(source, str) and source.strip() and isinstance(evidence.get("quote"), str):
            evidence["quote"] = source
    return case

"""Schemathesis hooks for tests/api/test_api_schemathesis.py (loaded via SCHEMATHESIS_HOOKS).

One rule lives beyond JSON Schema: the evidence gate keeps a memory or relation only when its
quote occurs in its source text. Positive cases get a quote taken from their source text, so
that "schema-valid data is accepted" tests the schema, not the luck of random strings. Negative
cases are left as generated."""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis.generation import GenerationMode


def _evidences(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict):
        return []
    items = body.get("memories") if isinstance(body.get("memories"), list) else [body]
    return [item["evidence"] for item in items
            if isinstance(item, dict) and isinstance(item.get("evidence"), dict)]


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return case
    for evidence in _evidences(case.body):
        source = evidence.get("source_text")
        if isinstance(source, str) and source.strip() and isinstance(evidence.get("quote"), str):
            evidence["quote"] = source
    return case

"""Schemathesis hooks for tests/api/test_api_schemathesis.py (loaded via SCHEMATHESIS_HOOKS).

The OpenAPI document states the number rule in metadata (``JsonValue``), so schema-valid data
follows it. Three rules relate two values, which JSON Schema cannot state:
- An evidence quote must occur in its ``source_text``. The document gives it as its own 422
  (``evidence_rejected``, field ``...evidence.quote``) on the operations that take evidence, and
  ``positive_data_accepted`` (schemathesis's ``positive_data_acceptance``, same expected statuses,
  replacing the built-in check in the run) accepts that one documented 422 and nothing else.
- A relation joins two different memories (``RelationRequest``): a body whose ``to_id`` is its
  ``from_id`` is refused with a 422 naming ``to_id``, as the operation's description says.
- A list cursor pages only the sort whose key it holds (``contract.search.decode_position``):
  ``map_case`` gives a positive case whose cursor holds another sort's key that cursor's sort.
Every other case is sent as generated."""

from __future__ import annotations

import re
from typing import Any

import schemathesis
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import RejectedPositiveData, positive_data_acceptance

from graphmem.contract.search import cursor_form

EVIDENCE_FIELD = re.compile(r"^(memories\[\d+\]\.)?evidence\.quote$")
_SORT_FORM = {"created": "time", "-created": "time", "health": "health", "-health": "health", "thread": "thread"}


def _documented_evidence_422(case: Any, response: Any) -> bool:
    """A 422 ``evidence_rejected`` on ``...evidence.quote`` where the operation documents that 422."""
    documented = case.operation.definition.raw.get("responses", {}).get("422", {}).get("description", "")
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return False
    return (response.status_code == 422 and "evidence_rejected" in documented
            and error.get("code") == "evidence_rejected"
            and isinstance(error.get("field"), str) and bool(EVIDENCE_FIELD.match(error["field"])))


def _self_relation_422(case: Any, response: Any) -> bool:
    """A 422 naming ``to_id`` for a relation body whose two ids are the same (stated in prose only)."""
    body = case.body if isinstance(case.body, dict) else {}
    try:
        error = response.json()["error"]
    except (ValueError, KeyError, TypeError):
        return False
    return (response.status_code == 422 and case.operation.path == "/v1/relations"
            and "from_id" in body and body.get("from_id") == body.get("to_id") and error.get("field") == "to_id")


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return case
    query = case.query if isinstance(case.query, dict) else {}
    if isinstance(query.get("cursor"), str) and query["cursor"]:
        form = cursor_form(query["cursor"])
        if _SORT_FORM.get(query.get("sort", "created")) != form:
            query["sort"] = {"time": "created", "health": "health", "thread": "thread"}[form]
    return case


@schemathesis.check
def positive_data_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schema-valid data is accepted (the built-in check, run as is), or refused only by the
    documented evidence rule or the self-relation rule."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if _documented_evidence_422(case, response) or _self_relation_422(case, response):
            return None
        raise

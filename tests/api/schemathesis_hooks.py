"""Schemathesis hooks for tests/api/test_api_schemathesis.py (loaded via SCHEMATHESIS_HOOKS).

Generated cases are sent as generated: the OpenAPI document states the number rule in metadata
(``JsonValue``), so schema-valid data follows it. One rule relates two fields, which JSON Schema
cannot state: an evidence quote must occur in its ``source_text``. The document gives it as its
own 422 (``evidence_rejected``, field ``...evidence.quote``) on the operations that take evidence.
``positive_data_accepted`` is schemathesis's ``positive_data_acceptance`` (same expected statuses)
that accepts that one documented 422, and nothing else: it replaces the built-in check in the run."""

from __future__ import annotations

import re
from typing import Any

import schemathesis
from schemathesis.specs.openapi.checks import RejectedPositiveData, positive_data_acceptance

EVIDENCE_FIELD = re.compile(r"^(memories\[\d+\]\.)?evidence\.quote$")


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


@schemathesis.check
def positive_data_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schema-valid data is accepted (the built-in check, run as is), or refused only by the
    documented evidence rule."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if _documented_evidence_422(case, response):
            return None
        raise

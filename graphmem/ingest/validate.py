"""Input validation for memories, by the API contract's models (``graphmem.contract``), then
normalisation. Errors name the offending field; nothing is written until a whole memory validates.
The evidence gate (quote found in its source) is the ingest rule kept here, beyond the schema.

Ingest works on the contract's ``MemoryInput`` itself: ``validate_memory`` returns it normalised.
Normalisation stays here rather than in the model's validators because the HTTP and MCP layers
validate a body, dump it and hand the dict to the engine, which validates it again: a normalising
validator would then check its own output against the limits (NFKC can lengthen a tag)."""

from __future__ import annotations

from typing import Any

from graphmem.config import Limits
from graphmem.contract import validate
from graphmem.contract.requests import DEFAULT_SOURCE, MemoryInput, MemoryPatch
from graphmem.errors import ValidationError
from graphmem.ingest.evidence import check_evidence
from graphmem.text import normalize_category, normalize_tag


def normalize_tags(tags: list[str] | None) -> list[str]:
    """Normalised, first occurrence kept."""
    return list(dict.fromkeys(normalize_tag(t) for t in tags or []))


def _strip(value: str | None) -> str | None:
    return value.strip() if value is not None else None


def validate_memory(data: Any, limits: Limits, default_namespace: str = "default") -> MemoryInput:
    """Turn an untrusted dict into the contract's MemoryInput, normalised (text stripped, tags and
    category in their compared form, supersedes once each, the namespace resolved) and its evidence
    through the gate, or raise naming the field. Fields not given stay None (ingest's defaults then
    apply: no tags, source ``unknown``, no metadata)."""
    m = validate(MemoryInput, data, limits)
    if m.extracted or m.evidence is not None:
        check_evidence(m.evidence.model_dump() if m.evidence else None)
    return m.model_copy(update={
        "content": m.content.strip(), "namespace": m.namespace or default_namespace,
        "tags": normalize_tags(m.tags) if m.tags is not None else None,
        "category": normalize_category(m.category) if m.category else None,
        "source": _strip(m.source), "reason": _strip(m.reason), "thread": _strip(m.thread),
        "supersedes": list(dict.fromkeys(m.supersedes))})


def validate_patch(data: Any, limits: Limits) -> dict[str, Any]:
    """Validate a partial update; returns only the normalised fields present."""
    if not isinstance(data, dict) or not data:
        raise ValidationError("a patch must be a non-empty JSON object", field=None)
    m = validate(MemoryPatch, data, limits)
    given = m.model_fields_set - {"namespace"}
    out: dict[str, Any] = {name: getattr(m, name) for name in given}
    if "content" in out:
        out["content"] = out["content"].strip()
    if "tags" in out:
        out["tags"] = normalize_tags(out["tags"])
    if "category" in out:
        out["category"] = normalize_category(out["category"]) if out["category"] else None
    if "source" in out:
        out["source"] = _strip(out["source"]) or DEFAULT_SOURCE
    if "reason" in out:
        out["reason"] = _strip(out["reason"])
    if "metadata" in out:
        out["metadata"] = out["metadata"] or {}
    return out

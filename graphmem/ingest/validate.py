"""Input validation for memories, by the API contract's models (``graphmem.contract``), then
normalisation. Errors name the offending field; nothing is written until a whole memory validates.
The evidence gate (quote found in its source) is the ingest rule kept here, beyond the schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.config import Limits
from graphmem.contract import validate
from graphmem.contract.requests import DEFAULT_SOURCE, MemoryPatch
from graphmem.contract.requests import MemoryInput as MemoryRequest
from graphmem.errors import ValidationError
from graphmem.ingest.evidence import check_evidence
from graphmem.text import normalize_category, normalize_tag


@dataclass
class MemoryInput:
    content: str
    namespace: str = "default"
    id: str | None = None
    tags: list[str] = field(default_factory=list)
    category: str | None = None
    source: str = DEFAULT_SOURCE
    reason: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    valid_until: str | None = None
    expires_at: str | None = None
    created_at: str | None = None
    evidence: dict[str, str] | None = None
    thread: str | None = None
    seq: int | None = None
    valid_from: str | None = None
    supersedes: list[str] = field(default_factory=list)


def normalize_tags(tags: list[str] | None) -> list[str]:
    """Normalised, first occurrence kept."""
    return list(dict.fromkeys(normalize_tag(t) for t in tags or []))


def _strip(value: str | None) -> str | None:
    return value.strip() if value is not None else None


def validate_memory(data: Any, limits: Limits, default_namespace: str = "default") -> MemoryInput:
    """Turn an untrusted dict into a normalised MemoryInput or raise naming the field."""
    m = validate(MemoryRequest, data, limits)
    evidence = None
    if m.extracted or m.evidence is not None:
        evidence = check_evidence(m.evidence.model_dump() if m.evidence else None)
    return MemoryInput(
        content=m.content.strip(), namespace=m.namespace or default_namespace, id=m.id,
        tags=normalize_tags(m.tags), category=normalize_category(m.category) if m.category else None,
        source=_strip(m.source) or DEFAULT_SOURCE, reason=_strip(m.reason), metadata=m.metadata or {},
        valid_until=m.valid_until, expires_at=m.expires_at, created_at=m.created_at, evidence=evidence,
        thread=_strip(m.thread) or None, seq=m.seq, valid_from=m.valid_from,
        supersedes=list(dict.fromkeys(m.supersedes)))


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

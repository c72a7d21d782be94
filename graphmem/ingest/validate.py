"""Input validation with explicit limits. Errors name the offending field; nothing is
written until a whole memory validates."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from graphmem.config import Limits
from graphmem.errors import TooLargeError, ValidationError
from graphmem.ingest.evidence import check_evidence
from graphmem.model import normalize_timestamp
from graphmem.text import normalize_category, normalize_tag

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/\-]*$")
_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}$")
WRITABLE_FIELDS = {"id", "namespace", "content", "tags", "category", "source", "reason", "metadata",
                   "valid_until", "expires_at", "extracted", "evidence", "created_at"}
PATCHABLE_FIELDS = {"content", "tags", "category", "source", "reason", "metadata",
                    "valid_until", "expires_at"}


@dataclass
class MemoryInput:
    content: str
    namespace: str = "default"
    id: str | None = None
    tags: list[str] = field(default_factory=list)
    category: str | None = None
    source: str = "unknown"
    reason: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    valid_until: str | None = None
    expires_at: str | None = None
    created_at: str | None = None
    evidence: dict[str, str] | None = None


def validate_namespace(value: Any, field_name: str = "namespace") -> str:
    if not isinstance(value, str) or not _NAMESPACE.match(value):
        raise ValidationError("namespace must be 1-64 characters of letters, digits, '_', '-', '.', ':'",
                              field=field_name)
    return value


def validate_id(value: Any, limits: Limits, field_name: str = "id") -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError("id must be a non-empty string", field=field_name)
    if len(value) > limits.max_id_chars:
        raise ValidationError(f"id longer than {limits.max_id_chars} characters", field=field_name)
    if not _ID.match(value):
        raise ValidationError("id may hold letters, digits and _ . : @ / - only", field=field_name)
    return value


def _text(value: Any, name: str, max_chars: int, required: bool = False) -> str | None:
    if value is None:
        if required:
            raise ValidationError(f"{name} is required", field=name)
        return None
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string", field=name)
    text = value.strip()
    if required and not text:
        raise ValidationError(f"{name} must not be empty", field=name)
    if len(text) > max_chars:
        raise TooLargeError(f"{name} is {len(text)} characters; the limit is {max_chars}", field=name)
    return text or None


def validate_tags(value: Any, limits: Limits, name: str = "tags") -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationError("tags must be a list of strings", field=name)
    if len(value) > limits.max_tags:
        raise ValidationError(f"{len(value)} tags; the limit is {limits.max_tags}", field=name)
    tags: list[str] = []
    for i, tag in enumerate(value):
        if not isinstance(tag, str) or not tag.strip():
            raise ValidationError("each tag must be a non-empty string", field=f"{name}[{i}]")
        norm = normalize_tag(tag)
        if len(norm) > limits.max_tag_chars:
            raise ValidationError(f"tag longer than {limits.max_tag_chars} characters", field=f"{name}[{i}]")
        if norm not in tags:
            tags.append(norm)
    return tags


def _timestamp(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be an ISO-8601 timestamp string", field=name)
    try:
        return normalize_timestamp(value)
    except ValueError as exc:
        raise ValidationError(f"{name} is not an ISO-8601 timestamp: {exc}", field=name) from exc


def validate_metadata(value: Any, limits: Limits) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError("metadata must be a JSON object", field="metadata")
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    if size > limits.max_metadata_bytes:
        raise TooLargeError(f"metadata is {size} bytes; the limit is {limits.max_metadata_bytes}",
                            field="metadata")
    return value


def validate_memory(data: Any, limits: Limits, default_namespace: str = "default") -> MemoryInput:
    """Turn an untrusted dict into a normalised MemoryInput or raise naming the field."""
    if not isinstance(data, dict):
        raise ValidationError("a memory must be a JSON object", field=None)
    unknown = set(data) - WRITABLE_FIELDS
    if unknown:
        raise ValidationError(f"unknown field {sorted(unknown)[0]!r}", field=sorted(unknown)[0])
    content = _text(data.get("content"), "content", limits.max_content_chars, required=True)
    category = _text(data.get("category"), "category", limits.max_category_chars)
    extracted = data.get("extracted", False)
    if not isinstance(extracted, bool):
        raise ValidationError("extracted must be a boolean", field="extracted")
    evidence = None
    if extracted or data.get("evidence") is not None:
        evidence = check_evidence(data.get("evidence"))
    return MemoryInput(
        content=content or "",
        namespace=validate_namespace(data.get("namespace") or default_namespace),
        id=validate_id(data["id"], limits) if data.get("id") is not None else None,
        tags=validate_tags(data.get("tags"), limits),
        category=normalize_category(category) if category else None,
        source=_text(data.get("source"), "source", limits.max_source_chars) or "unknown",
        reason=_text(data.get("reason"), "reason", limits.max_reason_chars),
        metadata=validate_metadata(data.get("metadata"), limits),
        valid_until=_timestamp(data.get("valid_until"), "valid_until"),
        expires_at=_timestamp(data.get("expires_at"), "expires_at"),
        created_at=_timestamp(data.get("created_at"), "created_at"),
        evidence=evidence,
    )


def validate_patch(data: Any, limits: Limits) -> dict[str, Any]:
    """Validate a partial update; returns only the normalised fields present."""
    if not isinstance(data, dict) or not data:
        raise ValidationError("a patch must be a non-empty JSON object", field=None)
    unknown = set(data) - PATCHABLE_FIELDS - {"namespace"}
    if unknown:
        raise ValidationError(f"field {sorted(unknown)[0]!r} cannot be patched", field=sorted(unknown)[0])
    out: dict[str, Any] = {}
    if "content" in data:
        out["content"] = _text(data["content"], "content", limits.max_content_chars, required=True)
    if "tags" in data:
        out["tags"] = validate_tags(data["tags"], limits)
    if "category" in data:
        cat = _text(data["category"], "category", limits.max_category_chars)
        out["category"] = normalize_category(cat) if cat else None
    if "source" in data:
        out["source"] = _text(data["source"], "source", limits.max_source_chars) or "unknown"
    if "reason" in data:
        out["reason"] = _text(data["reason"], "reason", limits.max_reason_chars)
    if "metadata" in data:
        out["metadata"] = validate_metadata(data["metadata"], limits)
    for key in ("valid_until", "expires_at"):
        if key in data:
            out[key] = _timestamp(data[key], key)
    return out

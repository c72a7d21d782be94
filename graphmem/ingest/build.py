"""Building a memory from validated input: health, source weight, terms and topics computed,
not yet linked or saved."""

from __future__ import annotations

import uuid

import numpy as np

from graphmem.config import Settings
from graphmem.contract.requests import DEFAULT_SOURCE, MemoryInput
from graphmem.errors import ConflictError
from graphmem.ingest.entities import extract_entities
from graphmem.ingest.health import assess_health, health_score, kept_penalties
from graphmem.ingest.source import source_weight
from graphmem.ingest.timeref import memory_time, resolve_memory_times
from graphmem.ingest.topics import extract_topics
from graphmem.model import Memory
from graphmem.text import content_hash, term_counts


def build_memory(settings: Settings, namespace: str, inp: MemoryInput, embedding: np.ndarray | None, now: str,
                 created_at: str | None = None, current: Memory | None = None) -> Memory:
    """``inp`` as ``validate_memory`` normalised it; the fields it leaves out get their defaults here
    (no tags, source ``unknown``, no metadata). A new version of ``current`` keeps its supersession
    (``superseded_by`` and its penalty)."""
    tags, source = inp.tags or [], inp.source or DEFAULT_SOURCE
    health, reasons = assess_health(inp.content, tags, inp.category, settings.health)
    if current is not None and kept_penalties(current.health_reasons):
        reasons = [*reasons, *kept_penalties(current.health_reasons)]
        health = health_score(reasons)
    mem = Memory(
        id=inp.id or uuid.uuid4().hex, namespace=namespace, content=inp.content,
        content_hash=content_hash(inp.content), tags=tags, category=inp.category,
        source=source, reason=inp.reason, metadata=inp.metadata or {},
        created_at=created_at or inp.created_at or now, updated_at=now,
        valid_until=inp.valid_until, expires_at=inp.expires_at,
        embedding=None if embedding is None else np.asarray(embedding, dtype=np.float32),
        health=health, health_reasons=reasons,
        source_weight=source_weight(source, settings.sources),
        term_counts=term_counts(inp.content), evidence=inp.evidence.model_dump() if inp.evidence else None,
        topics=extract_topics(inp.content, settings.topics), thread=inp.thread, seq=inp.seq,
        valid_from=inp.valid_from, superseded_by=current.superseded_by if current is not None else None)
    mem.times = memory_times(settings, mem)
    mem.entities = extract_entities(inp.content, settings.entities)
    if mem.valid_until is not None and mem.valid_until <= mem.effective_valid_from:
        raise ConflictError(f"valid_until {mem.valid_until} is not after valid_from "
                            f"{mem.effective_valid_from} (valid_from, else created_at)", field="valid_until")
    return mem


def memory_times(settings: Settings, mem: Memory) -> list[dict]:
    """The memory's relative time phrases resolved against its time (``ingest/timeref.py``)."""
    stamp = memory_time(mem.metadata, mem.created_at, settings.time.time_fields)
    return resolve_memory_times(mem.content, stamp, settings.time)

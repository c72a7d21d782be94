"""Conversions between graphmem's data types and Neo4j properties / query parameters.

Stored like the embedded store: JSON text for metadata, health reasons, term counts,
evidence and edge reasons (edge reasons with sorted keys); embeddings as a list of floats
(exact float32 values) returned as ``np.float32`` arrays; timestamps as the fixed-width ISO
strings of ``graphmem.model`` (so string order is time order).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from graphmem.fastjson import loads
from graphmem.model import Edge, Memory, MemoryFilter
from graphmem.text import full_text_terms


def memory_props(mem: Memory) -> dict[str, Any]:
    """Every stored property of the memory node (None removes the property)."""
    embedding = None if mem.embedding is None else np.asarray(mem.embedding, dtype=np.float32).tolist()
    return {
        "namespace": mem.namespace,
        "id": mem.id,
        "content": mem.content,
        "content_hash": mem.content_hash,
        "tags": list(mem.tags),
        "category": mem.category,
        "source": mem.source,
        "reason": mem.reason,
        "metadata": json.dumps(mem.metadata),
        "created_at": mem.created_at,
        "updated_at": mem.updated_at,
        "valid_until": mem.valid_until,
        "expires_at": mem.expires_at,
        "embedding": embedding,
        # the same vector as little-endian float32 bytes, what reads return (records.read_embedding)
        "embedding_f32": None if mem.embedding is None else np.asarray(mem.embedding, dtype="<f4").tobytes(),
        "health": float(mem.health),
        "health_reasons": mem.health_reasons_json(),
        "source_weight": float(mem.source_weight),
        "term_counts": json.dumps(mem.term_counts),
        "term_keys": sorted(mem.term_counts),  # sorted: TermDF locks are taken in one order
        "doc_length": int(mem.doc_length),
        "terms": full_text_terms(mem.term_counts),      # the same text as the embedded store's FTS row
        "near_duplicate_of": mem.near_duplicate_of,
        "evidence": None if mem.evidence is None else json.dumps(mem.evidence),
        "topics": json.dumps(mem.topics),
        "topic_labels": mem.topic_labels,               # their TAGGED links (memory_unindex drops them)
        "thread": mem.thread,
        "seq": mem.seq,
        "thread_pos": mem.thread_pos,
        "valid_from": mem.valid_from,
        "superseded_by": mem.superseded_by,
        "valid_start": mem.effective_valid_from,        # what as_of compares (memory_valid_start)
        "times": json.dumps(mem.times),                 # resolved time phrases (ingest/timeref.py)
        "entities": json.dumps(mem.entities),           # entity mentions; their MENTIONS links (upsert)
    }


def read_embedding(value: bytes | list | None) -> np.ndarray | None:
    """``embedding_f32`` bytes (every write since they exist) or the float list (older memories)."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        return np.frombuffer(value, dtype="<f4").astype(np.float32)
    return np.asarray(value, dtype=np.float32)


def to_memory(p: dict[str, Any]) -> Memory:
    evidence = p.get("evidence")
    topics = p.get("topics")
    return Memory(
        id=p["id"], namespace=p["namespace"], content=p["content"], content_hash=p["content_hash"],
        tags=list(p.get("tags") or []), category=p.get("category"), source=p["source"],
        reason=p.get("reason"), metadata=loads(p["metadata"]), created_at=p["created_at"],
        updated_at=p["updated_at"], valid_until=p.get("valid_until"), expires_at=p.get("expires_at"),
        embedding=read_embedding(p.get("embedding")),
        health=p["health"], health_reasons=Memory.parse_health_reasons(p["health_reasons"]),
        source_weight=p["source_weight"], term_counts=loads(p["term_counts"]),
        near_duplicate_of=p.get("near_duplicate_of"),
        evidence=loads(evidence) if evidence else None, topics=loads(topics) if topics else [],
        thread=p.get("thread"), seq=p.get("seq"), valid_from=p.get("valid_from"),
        superseded_by=p.get("superseded_by"), times=loads(p["times"]) if p.get("times") else [],
        entities=loads(p["entities"]) if p.get("entities") else [])


def to_memories(maps: list[dict[str, Any]]) -> dict[str, Memory]:
    """id -> memory for the maps of a read, leaving out a map whose node another transaction
    deleted while the read ran (its properties come back null: the memory is gone)."""
    return {m["id"]: to_memory(m) for m in maps if m.get("id") is not None and m.get("content") is not None}


def edge_param(edge: Edge) -> dict[str, Any]:
    return {"namespace": edge.namespace, "a": edge.a, "b": edge.b, "type": edge.type,
            "weight": float(edge.weight), "reason": json.dumps(edge.reason, sort_keys=True)}


def to_edge(namespace: str, row) -> Edge:
    """An edge from a row with columns a, b, type, weight, reason (or seed, other, ...)."""
    values = row.values() if hasattr(row, "values") else row
    a, b, type_, weight, reason = values
    return Edge(namespace, a, b, type_, weight, loads(reason))


def to_edges(namespace: str, rows) -> list[Edge]:
    """The edges of a read, leaving out one that another transaction deleted while the read ran
    (its endpoints or properties come back null: the edge is gone)."""
    out = []
    for row in rows:
        values = list(row.values() if hasattr(row, "values") else row)
        if None not in values[:4] and values[4] is not None:
            out.append(to_edge(namespace, values))
    return out


def filter_params(flt: MemoryFilter | None, now_iso: str) -> dict[str, Any]:
    """Parameters of the filter block shared by the list / recall queries.

    ``None`` means no filter at all (not even expiry), as in the embedded store. Empty
    strings for the created range count as "no bound", like ``MemoryFilter.matches``.
    """
    if flt is None:
        flt = MemoryFilter(include_expired=True)
    return {
        "include_expired": bool(flt.include_expired),
        "current_only": bool(flt.current_only),
        "as_of": flt.as_of,
        "now": now_iso or "",
        "tags": list(flt.tags),
        "categories": list(flt.categories),
        "sources": list(flt.sources),
        "min_health": None if flt.min_health is None else float(flt.min_health),
        "max_health": None if flt.max_health is None else float(flt.max_health),
        "created_after": flt.created_after or None,
        "created_before": flt.created_before or None,
    }


def index_ranges(params: dict[str, Any]) -> dict[str, Any]:
    """The created_at / health bounds of ``filter_params`` for a vector index filter, where a
    predicate cannot be optional: a missing bound becomes a value that passes everything."""
    return {"created_from": params["created_after"] or "", "created_to": params["created_before"] or "\uffff",
            "health_from": -1.0 if params["min_health"] is None else params["min_health"],
            "health_to": 2.0 if params["max_health"] is None else params["max_health"]}


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lucene_queries(namespace: str, terms: list[str], chunk: int = 512) -> list[str]:
    """Lucene queries for the memories of ``namespace`` holding any of the distinct terms.

    The namespace is a required clause with boost 0: Lucene skips other tenants' postings
    inside the index (the cost follows this namespace, not the database) and the score is the
    terms' alone. Each value is quoted with ``\\`` and ``"`` escaped; inside a quoted phrase no
    other character is special to Lucene's query parser, so ``c++``, ``a:b`` or ``(x)`` are
    searched literally. Terms are chunked below Lucene's default limit of 1024 clauses.
    """
    unique = [t for t in dict.fromkeys(terms) if t.strip()]
    quoted = ["terms:" + _quoted(t) for t in unique]
    scope = f"+namespace:{_quoted(namespace)}^0"
    return [f"{scope} +({' OR '.join(quoted[i:i + chunk])})" for i in range(0, len(quoted), chunk)]

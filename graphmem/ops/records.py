"""The portable dump format: one JSON object per line, the same for both stores.

Line 1 is a header (format version, model id and dimension); then every memory with every
stored field (embedding as base64 float32, exact health and weights), then every edge of its
namespace. Restoring writes them back verbatim, so stats, edges and rankings are identical,
whichever store kind wrote the dump and whichever reads it (the migration path).
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from graphmem.model import EDGE_TYPES, Edge, HealthPenalty, Memory
from graphmem.stores.base import MemoryStore

FORMAT = "graphmem-dump"
VERSION = 1
EDGE_BATCH = 500           # ids per edges_of call, edges per restore write


def header(model_id: str, dim: int, store_kind: str, created_at: str) -> dict[str, Any]:
    return {"type": "header", "format": FORMAT, "version": VERSION, "model_id": model_id, "dimension": dim,
            "store": store_kind, "created_at": created_at}


def memory_record(mem: Memory) -> dict[str, Any]:
    out = mem.to_dict()
    out.update(type="memory", content_hash=mem.content_hash, health=mem.health, source_weight=mem.source_weight,
               term_counts=mem.term_counts, evidence=mem.evidence,
               embedding=None if mem.embedding is None else base64.b64encode(
                   np.asarray(mem.embedding, dtype="<f4").tobytes()).decode("ascii"))
    return out


def record_memory(rec: dict[str, Any]) -> Memory:
    emb = rec.get("embedding")
    return Memory(
        id=rec["id"], namespace=rec["namespace"], content=rec["content"], content_hash=rec["content_hash"],
        tags=list(rec.get("tags") or []), category=rec.get("category"), source=rec.get("source") or "unknown",
        reason=rec.get("reason"), metadata=rec.get("metadata") or {}, created_at=rec["created_at"],
        updated_at=rec["updated_at"], valid_until=rec.get("valid_until"), expires_at=rec.get("expires_at"),
        embedding=None if emb is None else np.frombuffer(base64.b64decode(emb), dtype="<f4").astype(np.float32),
        health=float(rec["health"]), health_reasons=[HealthPenalty(**p) for p in rec.get("health_reasons") or []],
        source_weight=float(rec["source_weight"]), term_counts=dict(rec.get("term_counts") or {}),
        near_duplicate_of=rec.get("near_duplicate_of"), evidence=rec.get("evidence"),
        topics=[dict(t) for t in rec.get("topics") or []], thread=rec.get("thread"), seq=rec.get("seq"),
        times=[dict(t) for t in rec.get("times") or []], entities=[dict(e) for e in rec.get("entities") or []])


def edge_record(edge: Edge) -> dict[str, Any]:
    return {"type": "edge", "namespace": edge.namespace, "a": edge.a, "b": edge.b, "edge_type": edge.type,
            "weight": edge.weight, "reason": edge.reason}


def record_edge(rec: dict[str, Any]) -> Edge:
    return Edge(rec["namespace"], rec["a"], rec["b"], rec["edge_type"], float(rec["weight"]), rec["reason"])


def namespace_edges(store: MemoryStore, namespace: str, ids: list[str]) -> list[Edge]:
    """Every edge of the namespace once (edges_of returns each edge for both ends' pages)."""
    seen: dict[tuple, Edge] = {}
    for start in range(0, len(ids), EDGE_BATCH):
        for edge in store.edges_of(namespace, ids[start:start + EDGE_BATCH], list(EDGE_TYPES)):
            seen.setdefault(edge.key, edge)
    return [seen[k] for k in sorted(seen)]

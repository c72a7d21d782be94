"""Backup and restore: a portable JSONL dump for both stores.

``dump`` reads through the store contract (keyset pages), so it works on either store and
while the service runs; ``restore`` writes into an empty target through the same contract, so
a dump of one store kind restored into the other is the migration path. A database-file copy
is the store's own ``backup_file`` (the store contract).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from graphmem.errors import ConflictError, ValidationError
from graphmem.model import Edge, MemoryFilter, utcnow_iso
from graphmem.ops import records
from graphmem.stores.base import MemoryStore

_ALL = MemoryFilter(include_expired=True)


def dump_lines(store: MemoryStore, model_id: str, dim: int, namespaces: list[str] | None = None
               ) -> Iterator[dict[str, Any]]:
    yield records.header(model_id, dim, store.kind, utcnow_iso())
    for ns in namespaces or store.namespaces():
        ids: list[str] = []
        for batch in store.iter_memories(ns):
            for mem in batch:
                ids.append(mem.id)
                yield records.memory_record(mem)
        for edge in records.namespace_edges(store, ns, ids):
            yield records.edge_record(edge)


def dump(store: MemoryStore, out: IO[str], model_id: str, dim: int,
         namespaces: list[str] | None = None) -> dict[str, int]:
    counts = {"memories": 0, "edges": 0}
    for line in dump_lines(store, model_id, dim, namespaces):
        out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        if line["type"] != "header":
            counts["memories" if line["type"] == "memory" else "edges"] += 1
    return counts


def read_dump(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"line {number}: invalid JSON ({exc.msg})", field="dump") from exc
        if number == 1 and (rec.get("type") != "header" or rec.get("format") != records.FORMAT):
            raise ValidationError("not a graphmem dump (no header line)", field="dump")
        yield rec


def restore(store: MemoryStore, lines: Iterable[str], model_id: str, dim: int) -> dict[str, int]:
    """Write a dump into ``store``; every namespace it names must be empty there."""
    counts = {"memories": 0, "edges": 0}
    edges: list[Edge] = []
    checked: set[str] = set()
    for rec in read_dump(lines):
        kind = rec.get("type")
        if kind == "header":
            if int(rec["dimension"]) != dim:
                raise ValidationError(f"the dump holds {rec['dimension']}-dim embeddings of {rec['model_id']!r}; "
                                      f"this service uses {dim}-dim {model_id!r}", field="model")
        elif kind == "memory":
            mem = records.record_memory(rec)
            if mem.namespace not in checked:
                if store.list_memories(mem.namespace, _ALL, 1):
                    raise ConflictError(f"namespace {mem.namespace!r} is not empty in the target store; "
                                        "restore into an empty store or namespace", field="namespace")
                checked.add(mem.namespace)
            store.save_memory(mem, [], [])
            counts["memories"] += 1
        elif kind == "edge":
            edges.append(records.record_edge(rec))
            if len(edges) >= records.EDGE_BATCH:
                store.write_edges(edges, [])
                counts["edges"] += len(edges)
                edges = []
    if edges:
        store.write_edges(edges, [])
        counts["edges"] += len(edges)
    return counts

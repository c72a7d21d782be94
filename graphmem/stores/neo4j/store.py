"""Neo4j store: the ``MemoryStore`` contract over a real graph (Bolt, official driver).

Memories are ``:Memory`` nodes keyed by (namespace, id), tags are ``:Tag`` nodes, relation
edges are relationships stored once a -> b, and recall uses the database's own vector and
full-text indexes. Every query lives in ``cypher/*.cypher`` (see ``queries.py``) and takes
its values as parameters. Each public call is one managed transaction (retried by the
driver on transient errors); a lost connection surfaces as ``StoreUnavailable``.

The parts: ``connection.py`` (driver, transactions, error mapping), ``admin.py`` (schema,
model record, readiness, stats), ``search.py`` (recall and label indexes), ``reads.py``
(memory and graph reads); this module keeps the writes.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from neo4j import ManagedTransaction

from graphmem.errors import ValidationError
from graphmem.model import Edge, Memory
from graphmem.stores.base import iter_pages
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.neo4j.admin import AdminMixin
from graphmem.stores.neo4j.connection import _TYPES, _rows
from graphmem.stores.neo4j.entities import EntitiesMixin
from graphmem.stores.neo4j.reads import ReadsMixin
from graphmem.stores.neo4j.records import edge_param, memory_props
from graphmem.stores.neo4j.search import SearchMixin


def _edge_writer(add_edges: list[Edge], remove_edges: list[Edge]) -> Callable[[ManagedTransaction], None]:
    """Deletes then upserts (one query per relation type) inside the caller's transaction; an
    unknown type is rejected here, before any transaction starts."""
    removals = [edge_param(e) for e in remove_edges]
    additions: dict[str, list[dict]] = defaultdict(list)
    for edge in add_edges:
        Q.for_type("edges_add", edge.type)
        additions[edge.type].append(edge_param(edge))

    def write(tx: ManagedTransaction) -> None:
        if removals:
            tx.run(Q.load("edges_remove"), {"edges": removals}).consume()
        for edge_type, edges in additions.items():
            tx.run(Q.for_type("edges_add", edge_type), {"edges": edges}).consume()

    return write


def _edge_namespaces(*edge_lists: Sequence[Edge]) -> list[str]:
    return sorted({e.namespace for edges in edge_lists for e in edges})


class Neo4jStore(AdminMixin, EntitiesMixin, SearchMixin, ReadsMixin):
    kind = "neo4j"

    # -- writes ------------------------------------------------------------------------
    def save_memory(self, mem: Memory, add_edges: list[Edge], remove_edges: list[Edge],
                    replace_edges: bool = False, also: Sequence[Memory] = ()) -> None:
        self._save([mem, *also], add_edges, remove_edges, replace_edges)

    def save_batch(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        if memories or add_edges or remove_edges:
            self._save(memories, add_edges, remove_edges, False)

    def _save(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge],
              replace_edges: bool) -> None:
        """Memories and edge changes in one transaction: each statement handles every memory of a
        namespace at once (UNWIND), so a batch costs a handful of round trips. A batch spans more
        than one namespace only for a namespace's context windows (``model.window_namespace``)."""
        groups: dict[str, list[Memory]] = defaultdict(list)
        for mem in memories:
            groups[mem.namespace].append(mem)
        upserts = {ns: self._upsert_params(ns, group) for ns, group in groups.items()}
        write_edges = _edge_writer(add_edges, remove_edges)

        def work(tx: ManagedTransaction) -> None:     # retried whole on a transient error: reads its inputs only
            for namespace, group in groups.items():
                self._write_group(tx, namespace, group, upserts[namespace], replace_edges)
            write_edges(tx)

        self._execute(True, work, namespaces=[*groups, *_edge_namespaces(add_edges, remove_edges)])

    def _upsert_params(self, namespace: str, memories: list[Memory]) -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        term_df: Counter[str] = Counter()
        categories: Counter[str] = Counter()
        length = 0
        for mem in memories:
            props = memory_props(mem)
            if self.dim and props["embedding"] is not None and len(props["embedding"]) != self.dim:
                raise ValidationError(f"embedding has {len(props['embedding'])} dimensions; the store holds "
                                      f"{self.dim}-dim embeddings", field="embedding")
            rows.append({"id": mem.id, "props": props, "tags": sorted(set(mem.index_labels)),
                         "entities": mem.entities})
            term_df.update(props["term_keys"])
            categories.update([mem.category] if mem.category else [])
            length += props["doc_length"]
        return {"namespace": namespace, "rows": rows, "doc_length": length,
                "term_df": [{"term": t, "n": n} for t, n in sorted(term_df.items())],
                "category_counts": [{"category": c, "n": n} for c, n in sorted(categories.items())]}

    @staticmethod
    def _write_group(tx: ManagedTransaction, namespace: str, memories: list[Memory], upsert: dict[str, Any],
                     replace_edges: bool) -> None:
        ids = [m.id for m in memories]
        kept = {m.id: set(m.index_labels) for m in memories}
        old = _rows(tx, "memory_unindex", {"namespace": namespace, "ids": ids})
        if replace_edges:
            for memory_id in ids:
                tx.run(Q.load("edges_clear"), {"namespace": namespace, "id": memory_id,
                                                "types": _TYPES}).consume()
        tx.run(Q.load("memory_upsert"), upsert).consume()
        dropped = sorted({t for r in old for t in (r["old_tags"] or []) if t not in kept[r["id"]]})
        if dropped:
            tx.run(Q.load("tags_prune"), {"namespace": namespace, "tags": dropped}).consume()

    def write_edges(self, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        if add_edges or remove_edges:
            self._execute(True, _edge_writer(add_edges, remove_edges),
                          namespaces=_edge_namespaces(add_edges, remove_edges))

    def delete_memory(self, namespace: str, memory_id: str, companions: Sequence[str] = (),
                      save: Sequence[Memory] = (), add_edges: Sequence[Edge] = ()) -> bool:
        groups: dict[str, list[Memory]] = defaultdict(list)
        for mem in save:
            groups[mem.namespace].append(mem)
        upserts = {ns: self._upsert_params(ns, group) for ns, group in groups.items()}
        write_edges = _edge_writer(list(add_edges), [])

        def work(tx: ManagedTransaction) -> bool:
            existed = False
            for ns in (namespace, *companions):
                old = _rows(tx, "memory_unindex", {"namespace": ns, "ids": [memory_id]})
                if not old:
                    continue
                existed = existed or ns == namespace
                tx.run(Q.load("memory_delete"), {"namespace": ns, "id": memory_id}).consume()
                if old[0]["old_tags"]:
                    tx.run(Q.load("tags_prune"), {"namespace": ns, "tags": old[0]["old_tags"]}).consume()
            if not existed:
                return False
            for ns, group in groups.items():
                self._write_group(tx, ns, group, upserts[ns], False)
            write_edges(tx)
            return True

        return self._execute(True, work, namespaces=[namespace, *companions, *groups])

    def update_health(self, namespace: str, updates: list[tuple[str, float, list, float]]) -> int:
        rows = [{"id": i, "health": float(h), "health_reasons": json.dumps([p.to_dict() for p in reasons]),
                 "source_weight": float(w)} for i, h, reasons, w in updates]
        if rows:
            self._write("health_update", namespace=namespace, updates=rows)
        return len(updates)

    def iter_memories(self, namespace: str, batch_size: int = 500) -> Iterator[list[Memory]]:
        return iter_pages(self, namespace, batch_size)

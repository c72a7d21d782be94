"""Reads of the embedded store: memories by id, hash or page, namespaces, and graph edges."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import numpy as np

from graphmem.fastjson import loads
from graphmem.model import EDGE_TYPES, Edge, ListOrder, Memory, MemoryFilter, is_window_namespace
from graphmem.stores.sqlite.connection import SQLiteBase
from graphmem.stores.sqlite.search import filter_sql

_COLUMNS = ("namespace, id, content, content_hash, tags_json, category, source, reason, metadata_json, "
            "created_at, updated_at, valid_until, expires_at, embedding, health, health_reasons_json, "
            "source_weight, term_counts_json, doc_length, near_duplicate_of, evidence_json, topics_json, "
            "thread, seq, thread_pos, valid_from, superseded_by, valid_start, times_json, entities_json")

# A list sort (model.LIST_SORTS) -> its column and direction (ties: id, the same way).
_LIST_KEYS = {"created": ("created_at", "ASC"), "-created": ("created_at", "DESC"), "health": ("health", "ASC"),
              "-health": ("health", "DESC"), "thread": ("thread_pos", "ASC")}


class _Decoded:
    """A JSON column of a stored memory, decoded on first read and then kept on the instance
    (a non-data descriptor: the instance's own value, once set, is found first)."""

    def __init__(self, decode: Callable[[Any], Any]) -> None:
        self.decode = decode

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = self.decode(obj.__dict__["_raw"][self.name])     # kept: a copy shares the dict
        obj.__dict__[self.name] = value
        return value


def _loads_or(empty: Callable[[], Any]) -> Callable[[str | None], Any]:
    return lambda text: loads(text) if text else empty()


class StoredMemory(Memory):
    """A memory as the embedded store reads it: its JSON columns are decoded when first read.
    A search reads a few hundred candidates and returns ten; most are never asked for their
    metadata, topics, entities or health reasons. Equal to a ``Memory`` with the same fields."""

    tags = _Decoded(loads)
    metadata = _Decoded(loads)
    health_reasons = _Decoded(Memory.parse_health_reasons)
    term_counts = _Decoded(loads)
    evidence = _Decoded(_loads_or(lambda: None))
    topics = _Decoded(_loads_or(list))
    times = _Decoded(_loads_or(list))
    entities = _Decoded(_loads_or(list))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Memory):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(Memory))

    __hash__ = None     # type: ignore[assignment]     # mutable, as Memory


class ReadsMixin(SQLiteBase):
    # -- reads -------------------------------------------------------------------------
    @staticmethod
    def _row_to_memory(row: tuple) -> Memory:
        (namespace, id_, content, chash, tags, category, source, reason, metadata, created, updated,
         valid_until, expires_at, emb, health, reasons, weight, terms, _len, near_dup, evidence, topics,
         thread, seq, _pos, valid_from, superseded_by, _start, times, entities) = row
        mem = object.__new__(StoredMemory)
        mem.__dict__.update(
            id=id_, namespace=namespace, content=content, content_hash=chash, category=category, source=source,
            reason=reason, created_at=created, updated_at=updated, valid_until=valid_until, expires_at=expires_at,
            embedding=None if emb is None else np.frombuffer(emb, dtype=np.float32),     # read-only
            health=health, source_weight=weight, near_duplicate_of=near_dup, thread=thread, seq=seq,
            valid_from=valid_from, superseded_by=superseded_by,
            _raw={"tags": tags, "metadata": metadata, "health_reasons": reasons, "term_counts": terms,
                  "evidence": evidence, "topics": topics, "times": times, "entities": entities})
        return mem

    def get_memories(self, namespace: str, ids: list[str]) -> dict[str, Memory]:
        """By id, each chunk of 500 in id order (the order SQLite returns an ``IN`` list in), rows
        served from the row cache when it holds them."""
        out: dict[str, Memory] = {}
        unique = list(dict.fromkeys(ids))
        generation = self.rows.check(self.db)
        caching = self._caching()         # not inside a write session that wrote: its rows are not committed
        for start in range(0, len(unique), 500):
            found, chunk = (self.rows.take(namespace, unique[start:start + 500]) if caching
                            else ({}, unique[start:start + 500]))
            read = {}
            if chunk:
                rows = self.db.execute(f"SELECT {_COLUMNS} FROM memories WHERE namespace = ? AND id IN "
                                       f"({','.join('?' * len(chunk))})", [namespace, *chunk]).fetchall()
                read = {row[1]: self._row_to_memory(row) for row in rows}
                if caching:
                    self.rows.put(namespace, read, generation)
            found.update(read)
            out.update((i, found[i]) for i in sorted(found))
        return out

    def find_by_hash(self, namespace: str, content_hash: str) -> Memory | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM memories WHERE namespace = ? AND content_hash = ? "
                              "ORDER BY created_at, id LIMIT 1", (namespace, content_hash)).fetchone()
        return self._row_to_memory(row) if row else None

    def find_by_hashes(self, namespace: str, hashes: list[str]) -> dict[str, Memory]:
        found = (self.find_by_hash(namespace, h) for h in dict.fromkeys(hashes))
        return {m.content_hash: m for m in found if m is not None}

    def list_memories(self, namespace: str, flt: MemoryFilter, limit: int,
                      after: tuple[str, str] | None = None, now_iso: str = "") -> list[Memory]:
        where, params = filter_sql(flt, now_iso)
        if after:
            where += " AND (m.created_at > ? OR (m.created_at = ? AND m.id > ?))"
            params += [after[0], after[0], after[1]]
        cols = ", ".join(f"m.{c.strip()}" for c in _COLUMNS.split(","))
        rows = self.db.execute(f"SELECT {cols} FROM memories m WHERE m.namespace = ?{where} "
                               "ORDER BY m.created_at, m.id LIMIT ?", [namespace, *params, limit]).fetchall()
        return [self._row_to_memory(r) for r in rows]

    def list_ordered(self, namespace: str, flt: MemoryFilter, order: ListOrder, limit: int,
                     now_iso: str = "") -> list[Memory]:
        """A page in ``order.sort`` (the ``ListOrder`` filters too), after ``order.after``."""
        where, params = filter_sql(flt, now_iso)
        column, direction = _LIST_KEYS[order.sort]
        where += f" AND m.{column} IS NOT NULL"
        if order.thread is not None:
            where += " AND m.thread = ?"
            params.append(order.thread)
        if order.superseded_only:
            where += " AND m.superseded_by IS NOT NULL"
        if order.after:
            op = ">" if direction == "ASC" else "<"
            where += f" AND (m.{column} {op} ? OR (m.{column} = ? AND m.id {op} ?))"
            params += [order.after[0], order.after[0], order.after[1]]
        cols = ", ".join(f"m.{c.strip()}" for c in _COLUMNS.split(","))
        rows = self.db.execute(f"SELECT {cols} FROM memories m WHERE m.namespace = ?{where} "
                               f"ORDER BY m.{column} {direction}, m.id {direction} LIMIT ?",
                               [namespace, *params, limit]).fetchall()
        return [self._row_to_memory(r) for r in rows]

    def namespaces(self) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT namespace FROM namespace_stats WHERE n_docs > 0 ORDER BY namespace")
            if not is_window_namespace(r[0])]

    def thread_context(self, namespace: str, keys: list[tuple[str, str]], before: int,
                       after: int) -> list[tuple[list[str], list[str]]]:
        """Per (thread, position): the ids of up to ``before`` stored memories just before it in
        the thread (nearest first) and up to ``after`` just after (nearest first); two index seeks each."""
        out = []
        for thread, pos in keys:
            prev = [r[0] for r in self.db.execute(
                "SELECT id FROM memories WHERE namespace = ? AND thread = ? AND thread_pos < ? "
                "ORDER BY thread_pos DESC LIMIT ?", (namespace, thread, pos, before))] if before else []
            nxt = [r[0] for r in self.db.execute(
                "SELECT id FROM memories WHERE namespace = ? AND thread = ? AND thread_pos > ? "
                "ORDER BY thread_pos LIMIT ?", (namespace, thread, pos, after))] if after else []
            out.append((prev, nxt))
        return out

    # -- graph ----------------------------------------------------------------------------
    @staticmethod
    def _edge(row: tuple) -> Edge:
        return Edge(row[0], row[1], row[2], row[3], row[4], loads(row[5]))

    def edges_of(self, namespace: str, ids: list[str], types: list[str] | None = None,
                 with_reasons: bool = True) -> list[Edge]:
        if not ids or types == []:
            return []
        marks = ",".join("?" * len(ids))
        kinds = list(types or EDGE_TYPES)
        type_marks = ",".join("?" * len(kinds))
        reason = "reason_json" if with_reasons else "'{}'"
        # Two index lookups (primary key on a, edges_b on b) instead of an OR that scans.
        rows = self.db.execute(
            f"SELECT namespace, a, b, type, weight, {reason} FROM edges WHERE namespace = ? AND a IN ({marks}) "
            f"AND type IN ({type_marks}) UNION "
            f"SELECT namespace, a, b, type, weight, {reason} FROM edges WHERE namespace = ? AND b IN ({marks}) "
            f"AND type IN ({type_marks})",
            [namespace, *ids, *kinds, namespace, *ids, *kinds]).fetchall()
        if not with_reasons:
            return [Edge(r[0], r[1], r[2], r[3], r[4], {}) for r in rows]
        return [self._edge(r) for r in rows]

    def neighbors(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                  edge_types: list[str]) -> list[Edge]:
        if not seed_ids or not edge_types or per_seed <= 0:
            return []
        seeds = ",".join("?" * len(seed_ids))
        types = ",".join("?" * len(edge_types))
        rows = self.db.execute(f"""
            WITH oriented AS (
                SELECT namespace, a AS seed, b AS other, type, weight, reason_json FROM edges
                WHERE namespace = ? AND a IN ({seeds}) AND type IN ({types}) AND weight >= ?
                UNION ALL
                SELECT namespace, b AS seed, a AS other, type, weight, reason_json FROM edges
                WHERE namespace = ? AND b IN ({seeds}) AND type IN ({types}) AND weight >= ?),
            ranked AS (
                SELECT *, ROW_NUMBER() OVER (PARTITION BY seed ORDER BY weight DESC, other, type) AS n
                FROM oriented)
            SELECT namespace, seed, other, type, weight, reason_json FROM ranked WHERE n <= ?
            ORDER BY seed, n""",
            [namespace, *seed_ids, *edge_types, min_weight, namespace, *seed_ids, *edge_types, min_weight,
             per_seed]).fetchall()
        # Oriented seed -> neighbour: ``a`` is the seed here (not the canonical order).
        return [Edge(r[0], r[1], r[2], r[3], r[4], loads(r[5])) for r in rows]

    def edges_among(self, namespace: str, ids: list[str]) -> list[Edge]:
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(f"SELECT * FROM edges WHERE namespace = ? AND a IN ({marks}) AND b IN ({marks}) "
                               "ORDER BY a, b, type", [namespace, *ids, *ids]).fetchall()
        return [self._edge(r) for r in rows]

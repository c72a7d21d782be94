"""In-process exact vector search for the embedded store.

One contiguous float32 matrix per namespace, grown by doubling and updated in place on
insert/delete (swap-remove), so a write costs O(dim) and a query one matrix-vector product.

Thread safety: writers swap rows in place, so a search takes the namespace's lock while it
multiplies and copies the id order (both O(n), no Python loop); ranking runs outside the lock
on that private copy. Freshness across processes: see ``catch_up`` and ``vector_log``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable

import numpy as np

from graphmem.stores.sqlite import vector_log

Loader = Callable[[str], Iterable[tuple[str, bytes]]]


class NamespaceVectors:
    def __init__(self, dim: int):
        self.dim = dim
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self.matrix = np.zeros((64, dim), dtype=np.float32)
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.ids)

    def upsert(self, memory_id: str, vector: np.ndarray) -> None:
        with self.lock:
            row = self.rows.get(memory_id)
            if row is None:
                row = len(self.ids)
                if row >= self.matrix.shape[0]:
                    grown = np.zeros((self.matrix.shape[0] * 2, self.dim), dtype=np.float32)
                    grown[:row] = self.matrix[:row]
                    self.matrix = grown
                self.ids.append(memory_id)
                self.rows[memory_id] = row
            self.matrix[row] = vector

    def remove(self, memory_id: str) -> None:
        with self.lock:
            row = self.rows.pop(memory_id, None)
            if row is None:
                return
            last = len(self.ids) - 1
            if row != last:
                moved = self.ids[last]
                self.matrix[row] = self.matrix[last]
                self.ids[row] = moved
                self.rows[moved] = row
            self.ids.pop()

    def snapshot_scores(self, vector: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """Scores of every row and the ids in row order, read consistently."""
        query = vector.astype(np.float32)
        with self.lock:
            n = len(self.ids)
            return self.matrix[:n] @ query, self.ids[:]

    def search(self, vector: np.ndarray, limit: int, allowed: set[str] | None = None) -> list[str]:
        """Top ids by cosine (vectors are unit length); ties broken by id for determinism."""
        if limit <= 0:
            return []
        scores, ids = self.snapshot_scores(vector)
        n = len(ids)
        if n == 0:
            return []
        if allowed is not None:
            mask = np.fromiter((i in allowed for i in ids), dtype=bool, count=n)
            scores = np.where(mask, scores, -np.inf)
        take = min(limit, n)
        top = np.argpartition(-scores, take - 1)[:take] if take < n else np.arange(n)
        ranked = sorted(top, key=lambda r: (-float(scores[r]), ids[r]))
        return [ids[r] for r in ranked if scores[r] != -np.inf]


class VectorCache:
    """Lazily loaded per-namespace matrices, shared by all threads of one store.

    ``applied`` is the last ``vector_log`` sequence number reflected in every loaded matrix;
    ``catch_up`` replays what other processes (or connections) logged after it."""

    def __init__(self, dim: int, applied: int = 0):
        self.dim = dim
        self.lock = threading.RLock()
        self.namespaces: dict[str, NamespaceVectors] = {}
        self.applied = applied
        self.reloads = 0            # full resets after the log was pruned past ``applied`` (tests)

    def get(self, namespace: str, loader: Loader) -> NamespaceVectors:
        with self.lock:
            vectors = self.namespaces.get(namespace)
            if vectors is None:
                vectors = NamespaceVectors(self.dim)
                for memory_id, blob in loader(namespace):
                    vectors.upsert(memory_id, np.frombuffer(blob, dtype=np.float32))
                self.namespaces[namespace] = vectors
            return vectors

    def upsert(self, namespace: str, memory_id: str, vector: np.ndarray) -> None:
        with self.lock:
            if namespace in self.namespaces:
                self.namespaces[namespace].upsert(memory_id, vector)

    def remove(self, namespace: str, memory_id: str) -> None:
        with self.lock:
            if namespace in self.namespaces:
                self.namespaces[namespace].remove(memory_id)

    def applied_own(self, seq: int) -> None:
        """This process logged and applied ``seq``: skip it in catch-up if nothing came between."""
        with self.lock:
            if seq == self.applied + 1:
                self.applied = seq

    def catch_up(self, db: sqlite3.Connection) -> int:
        """Replay logged changes after ``applied`` into the loaded matrices: each changed id is
        re-read from ``memories`` (upserted, or removed when gone), so a replay is idempotent.
        A writer here applies its own change after its commit and under this lock, so a replay
        that read an older row is overwritten in order. Returns the number of ids replayed."""
        with self.lock:
            first, changes, last = vector_log.since(db, self.applied)
            if first is not None and first > self.applied + 1:    # pruned past us: start over
                self.namespaces.clear()
                self.applied = last
                self.reloads += 1
                return 0
            touched = {(ns, mid) for ns, mid in changes if ns in self.namespaces}
            for (ns, mid), blob in vector_log.current_vectors(db, touched).items():
                if blob is None:
                    self.namespaces[ns].remove(mid)
                else:
                    self.namespaces[ns].upsert(mid, np.frombuffer(blob, dtype=np.float32))
            self.applied = max(self.applied, last)
            return len(touched)

"""In-process exact vector search for the embedded store.

One contiguous float32 matrix per namespace, grown by doubling and updated in place on
insert/delete (swap-remove), so a write costs O(dim) and a query one matrix-vector product.
"""

from __future__ import annotations

import threading

import numpy as np


class NamespaceVectors:
    def __init__(self, dim: int):
        self.dim = dim
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self.matrix = np.zeros((64, dim), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.ids)

    def upsert(self, memory_id: str, vector: np.ndarray) -> None:
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

    def search(self, vector: np.ndarray, limit: int, allowed: set[str] | None = None) -> list[str]:
        """Top ids by cosine (vectors are unit length); ties broken by id for determinism."""
        n = len(self.ids)
        if n == 0 or limit <= 0:
            return []
        scores = self.matrix[:n] @ vector.astype(np.float32)
        if allowed is not None:
            mask = np.fromiter((i in allowed for i in self.ids), dtype=bool, count=n)
            scores = np.where(mask, scores, -np.inf)
        take = min(limit, n)
        top = np.argpartition(-scores, take - 1)[:take] if take < n else np.arange(n)
        ranked = sorted(top, key=lambda r: (-float(scores[r]), self.ids[r]))
        return [self.ids[r] for r in ranked if scores[r] != -np.inf]


class VectorCache:
    """Lazily loaded per-namespace matrices, shared by all threads of one store."""

    def __init__(self, dim: int):
        self.dim = dim
        self.lock = threading.RLock()
        self.namespaces: dict[str, NamespaceVectors] = {}

    def get(self, namespace: str, loader) -> NamespaceVectors:
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

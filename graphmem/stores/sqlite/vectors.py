"""In-process exact vector search for the embedded store.

One contiguous matrix per namespace, grown by doubling and updated in place on insert/delete
(swap-remove), so a write costs O(dim) and a query one matrix-vector product. float32, except in
a namespace the approximate index searches, where ``ann_matrix_dtype`` may halve it.

Thread safety: writers swap rows in place, so a search takes the namespace's lock while it
multiplies and copies the id order (both O(n), no Python loop); ranking runs outside the lock
on that private copy. Freshness across processes: see ``catch_up`` and ``vector_log``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import islice
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from graphmem.stores.sqlite import vector_log
from graphmem.stores.sqlite.ann import AnnIndex, AnnSettings, index_base
from graphmem.stores.sqlite.validity_mask import RowValidity, ValidityColumns, ValidityFilter

# (at most how many rows, the rows: (id, embedding, *RowValidity))
Loader = Callable[[str], tuple[int, Iterable[tuple]]]
SCAN_BLOCK = 65536      # rows a half-precision scan converts to float32 at a time
HEADROOM = 8            # a loaded matrix reserves 1/HEADROOM more rows, so the next writes do not grow it


def limit_blas_threads(threads: int) -> None:
    """Cap numpy's BLAS pool (0: leave it). A matrix-vector product is memory-bound: extra BLAS
    threads add wake-up latency, and on a busy machine they spin against the searches' own threads."""
    if threads > 0:
        threadpool_limits(limits=threads, user_api="blas")


class NamespaceVectors:
    def __init__(self, dim: int, ann_settings: AnnSettings | None = None):
        self.dim = dim
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self.matrix = np.zeros((64, dim), dtype=np.float32)
        self.validity = ValidityColumns(64)     # valid_start / valid_until / expires_at / superseded per row
        self.lock = threading.Lock()
        self.ann_settings = ann_settings
        self.ann: AnnIndex | None = None        # attached by VectorCache past the threshold

    def __len__(self) -> int:
        return len(self.ids)

    def upsert_many(self, ids: list[str], block: np.ndarray, validity: list[RowValidity | None]) -> None:
        """Several distinct ids at once: the index takes them in one multi-threaded insert."""
        with self.lock:
            for memory_id, vector, valid in zip(ids, block, validity, strict=True):
                self._put_row(memory_id, vector, valid)
            if self.ann is not None:
                self.ann.upsert_many(ids, block)

    def _put_row(self, memory_id: str, vector: np.ndarray, validity: RowValidity | None) -> None:
        row = self.rows.get(memory_id)
        if row is None:
            row = len(self.ids)
            if row >= self.matrix.shape[0]:
                self._grow(_larger(self.matrix.shape[0]), row + 1)
            self.ids.append(memory_id)
            self.rows[memory_id] = row
        self.matrix[row] = vector
        self.validity.set(row, validity)

    def extend(self, ids: list[str], block: np.ndarray, validity: list[RowValidity] | None = None) -> None:
        """Bulk load of new ids (the initial read from SQLite): one copy per block, no Python loop."""
        with self.lock:
            start = len(self.ids)
            need = start + len(ids)
            if need > self.matrix.shape[0]:
                self._grow(max(need, _larger(self.matrix.shape[0])), need)
            self.matrix[start:need] = block
            self.validity.set_many(start, validity, len(ids))
            self.ids.extend(ids)
            self.rows.update(zip(ids, range(start, need), strict=True))

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` memories and headroom, in their final precision: reading never grows it."""
        with self.lock:
            if rows > self.matrix.shape[0]:
                self._grow(rows + rows // HEADROOM, rows)

    def _half(self, rows: int) -> bool:
        """Whether a matrix of ``rows`` memories is kept in half precision (``ann_matrix_dtype``:
        a namespace the index searches; below ``ann_threshold`` the scan reads float32)."""
        cfg = self.ann_settings
        return cfg is not None and cfg.matrix_dtype == "f16" and rows >= cfg.threshold

    def _grow(self, capacity: int, rows: int) -> None:
        """A larger matrix for ``rows`` memories, in the precision their number calls for."""
        dtype = np.float16 if self._half(rows) or self.matrix.dtype == np.float16 else np.float32
        grown = np.zeros((capacity, self.dim), dtype=dtype)
        grown[:len(self.ids)] = self.matrix[:len(self.ids)]
        self.matrix = grown
        self.validity.reserve(capacity)

    def settle_precision(self) -> None:
        """Half precision at once when the namespace is past the threshold (its index attached);
        the caller holds ``lock``."""
        if self.matrix.dtype != np.float16 and self._half(len(self.ids)):
            self.matrix = self.matrix.astype(np.float16)

    def _products(self, rows: np.ndarray | slice, query: np.ndarray) -> np.ndarray:
        """``matrix[rows] @ query`` in float32; a half-precision matrix is converted a block at a
        time, so a scan never holds a float32 copy of it."""
        if self.matrix.dtype == np.float32:
            return self.matrix[rows] @ query
        part = self.matrix[rows]
        return np.concatenate([part[i:i + SCAN_BLOCK].astype(np.float32) @ query
                               for i in range(0, len(part), SCAN_BLOCK)] or [np.zeros(0, np.float32)])

    def remove(self, memory_id: str) -> None:
        with self.lock:
            if self.ann is not None:
                self.ann.remove(memory_id)
            row = self.rows.pop(memory_id, None)
            if row is None:
                return
            last = len(self.ids) - 1
            if row != last:
                moved = self.ids[last]
                self.matrix[row] = self.matrix[last]
                self.validity.move(last, row)
                self.ids[row] = moved
                self.rows[moved] = row
            else:
                self.validity.vacate(row)
            self.ids.pop()

    def snapshot_scores(self, vector: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """Scores of every row and the ids in row order, read consistently."""
        query = vector.astype(np.float32)
        with self.lock:
            n = len(self.ids)
            return self._products(slice(0, n), query), self.ids[:]

    def _subset_scores(self, vector: np.ndarray, candidates) -> tuple[np.ndarray, list[str]]:
        """Exact scores of the candidate ids still present (one gather + one product, under the lock)."""
        with self.lock:
            rows = self.rows
            picked = [rows[c] for c in candidates if c in rows]
            ids = self.ids
            scores = self._products(np.array(picked, dtype=np.int64), vector.astype(np.float32))
            return scores, [ids[r] for r in picked]

    def search(self, vector: np.ndarray, limit: int, allowed: set[str] | None = None,
               excluded: set[str] | None = None, keep: ValidityFilter | None = None) -> list[str]:
        """Top ids by cosine (vectors are unit length); ties broken by id for determinism.
        Past the approximate threshold the index proposes candidates, scored here exactly.
        ``excluded`` (a few ids a filter drops) are left out; ``allowed`` (the ids a filter keeps)
        are all that may come back; ``keep`` (validity in time) is a mask over the rows."""
        if limit <= 0:
            return []
        if keep is not None and (keep.is_empty() or self.validity.drops_nothing(keep)):
            keep = None
        if self.ann is not None and self.ann_settings is not None and len(self) >= self.ann_settings.threshold:
            if keep is not None:        # the index filters by id: the mask's ids, read under the lock
                kept, dropped = self.mask_ids(keep, limit * 50)
                if kept is not None:
                    return self.search(vector, limit, kept if allowed is None else kept & allowed, excluded)
                if dropped:
                    return self.search(vector, limit, allowed, dropped | (excluded or set()))
            if excluded:
                wider = self.search(vector, limit + len(excluded), allowed)
                return [i for i in wider if i not in excluded][:limit]
            found = self._approximate(vector, limit, allowed)
            if found is not None:
                return _top(*found, limit)
        if allowed is not None or excluded or keep is not None:
            scores, ids = self._allowed_scores(vector, allowed, excluded, keep)
        else:
            scores, ids = self.snapshot_scores(vector)
        if len(ids) == 0:
            return []
        return _top(scores, ids, limit)

    def _allowed_scores(self, vector: np.ndarray, allowed: set[str] | None, excluded: set[str] | None = None,
                        keep: ValidityFilter | None = None) -> tuple[np.ndarray, list[str]]:
        """Scores of every row, those outside ``allowed``, in ``excluded`` or out of ``keep`` at -inf:
        the mask is set from the validity arrays and those ids' rows (one dict lookup each), read
        with the scores under the lock."""
        query = vector.astype(np.float32)
        with self.lock:
            n = len(self.ids)
            scores = self._products(slice(0, n), query)
            rows = self.rows
            mask = np.ones(n, dtype=bool) if keep is None else self.validity.mask(keep, n)
            if allowed is not None:
                only = np.zeros(n, dtype=bool)
                only[[rows[i] for i in allowed if i in rows]] = True
                mask &= only
            if excluded:
                mask[[rows[i] for i in excluded if i in rows]] = False
            return np.where(mask, scores, -np.inf), self.ids[:]

    def mask_ids(self, keep: ValidityFilter, few: int) -> tuple[set[str] | None, set[str] | None]:
        """(kept, None), or (None, dropped) when ``keep`` drops at most ``few`` rows (none: both None)."""
        with self.lock:
            ids = self.ids
            mask = self.validity.mask(keep, len(ids))
            dropped = len(ids) - int(mask.sum())
            if dropped <= few:
                return None, ({ids[r] for r in np.flatnonzero(~mask)} if dropped else None)
            return {ids[r] for r in np.flatnonzero(mask)}, None

    def kept_share(self, keep: ValidityFilter) -> float:
        """The share of rows ``keep`` keeps (1.0 when empty)."""
        with self.lock:
            n = len(self.ids)
            if not n or self.validity.drops_nothing(keep):
                return 1.0
            return float(self.validity.mask(keep, n).mean())

    def keeps(self, memory_ids: list[str], keep: ValidityFilter) -> dict[str, bool]:
        """Whether ``keep`` keeps each of these ids; ids without a row (no vector) are left out."""
        with self.lock:
            rows = self.rows
            present = [i for i in memory_ids if i in rows]
            picked = np.fromiter((rows[i] for i in present), dtype=np.int64, count=len(present))
            return dict(zip(present, self.validity.mask_at(keep, picked).tolist(), strict=True))

    def _approximate(self, vector: np.ndarray, limit: int,
                     allowed: set[str] | None) -> tuple[np.ndarray, list[str]] | None:
        """Candidates with exact scores, or None when only a full scan can answer (a filter that
        keeps too few memories for any affordable over-fetch)."""
        cfg = self.ann_settings
        assert cfg is not None, "an index is attached only together with its settings"
        if allowed is not None and len(allowed) <= cfg.exact_subset_max:
            return self._subset_scores(vector, allowed)
        n = len(self)
        share = 1.0 if allowed is None else max(len(allowed), 1) / max(n, 1)
        pool = min(n, int(limit * cfg.overfetch / share) + 1)
        # A pool of every row asks the graph for all it holds, which it may not reach (a small or
        # much-edited graph); the full scan answers that exactly and costs no more.
        while pool < n and (pool <= n // 4 or allowed is None):
            with self.lock:
                assert self.ann is not None
                candidates = self.ann.search(vector, pool)
            if allowed is not None:
                candidates = [c for c in candidates if c in allowed]
            if len(candidates) >= limit or allowed is None:
                return self._subset_scores(vector, candidates)
            pool *= 4
        return None


def _larger(capacity: int) -> int:
    """Doubled while small, then a quarter more (doubling briefly holds three times a large matrix)."""
    return capacity * 2 if capacity < SCAN_BLOCK else capacity + capacity // 4


def _top(scores: np.ndarray, ids: list[str], limit: int) -> list[str]:
    n = len(ids)
    if n == 0:
        return []
    take = min(limit, n)
    top = np.argpartition(-scores, take - 1)[:take] if take < n else np.arange(n)
    ranked = sorted(top, key=lambda r: (-float(scores[r]), ids[r]))
    return [ids[r] for r in ranked if scores[r] != -np.inf]


class VectorCache:
    """Lazily loaded per-namespace matrices, shared by all threads of one store.

    ``applied`` is the last ``vector_log`` sequence number reflected in every loaded matrix;
    ``catch_up`` replays what other processes (or connections) logged after it. A namespace
    past ``ann.threshold`` also gets an approximate index (``attach_ann``), kept in step by the
    same upserts and removes and saved under ``ann_dir`` (``save``; and by a loading process every
    ``save_every`` changes, so the saved index stays within what the change log can replay)."""

    def __init__(self, dim: int, applied: int = 0, ann: AnnSettings | None = None,
                 ann_dir: Path | None = None, save_every: int = 0):
        self.dim = dim
        self.lock = threading.RLock()
        self.namespaces: dict[str, NamespaceVectors] = {}
        self.applied = applied
        self.reloads = 0            # full resets after the log was pruned past ``applied`` (tests)
        self.ann = ann
        self.ann_dir = ann_dir
        self.save_every = save_every
        self.ann_events: Counter[str] = Counter()   # built / loaded / replayed / stale (tests, benches)

    def get(self, namespace: str, loader: Loader, db: sqlite3.Connection | None = None) -> NamespaceVectors:
        with self.lock:
            vectors = self.namespaces.get(namespace)
            if vectors is None:
                vectors = NamespaceVectors(self.dim, self.ann)
                bound, found = loader(namespace)
                vectors.reserve(bound)
                rows = iter(found)
                while chunk := list(islice(rows, 10_000)):
                    vectors.extend([c[0] for c in chunk], np.frombuffer(b"".join(c[1] for c in chunk),
                                                                        dtype=np.float32).reshape(-1, self.dim),
                                   [tuple(c[2:6]) for c in chunk] if chunk and len(chunk[0]) >= 6 else None)
                self.namespaces[namespace] = vectors
            if (db is not None and self.ann is not None and vectors.ann is None
                    and len(vectors) >= self.ann.threshold):
                self.attach_ann(namespace, vectors, db)
            return vectors

    def attach_ann(self, namespace: str, vectors: NamespaceVectors, db: sqlite3.Connection) -> None:
        """Load the saved index and replay the logged changes since it was saved; build it from
        the matrix instead when there is none, or it is stale past what the log still holds."""
        assert self.ann is not None and self.ann_dir is not None
        base = index_base(self.ann_dir, namespace)
        loaded = AnnIndex.load(base, self.dim, self.ann)
        with vectors.lock:
            ann = None
            if loaded is not None:
                ann, seq = loaded
                changed = vector_log.changed_ids(db, namespace, seq)
                if changed is None:
                    ann = None
                    self.ann_events["stale"] += 1
                else:
                    present = sorted(changed & vectors.rows.keys())
                    for memory_id in changed - vectors.rows.keys():
                        ann.remove(memory_id)
                    ann.upsert_many(present, vectors.matrix[[vectors.rows[m] for m in present]])
                    self.ann_events["replayed"] += len(changed)
                    if ann.keys.keys() != vectors.rows.keys():      # a change the log missed
                        ann = None
                        self.ann_events["stale"] += 1
                    else:
                        self.ann_events["loaded"] += 1
            if ann is None:
                ann = AnnIndex(self.dim, self.ann)
                ann.add_many(vectors.ids[:], vectors.matrix[:len(vectors)])
                self.ann_events["built"] += 1
            vectors.ann = ann
            vectors.settle_precision()
            if ann.dirty:           # under the lock: a writer must not change the maps mid-save
                ann.save(base, self.applied)

    def save(self, at_least: int = 0) -> None:
        """Persist every approximate index with at least ``at_least`` unsaved changes (at close,
        every changed one: the next process loads, not builds)."""
        with self.lock:
            for namespace, vectors in self.namespaces.items():
                ann = vectors.ann
                if ann is not None and ann.dirty and ann.unsaved >= at_least and self.ann_dir is not None:
                    with vectors.lock:
                        ann.save(index_base(self.ann_dir, namespace), self.applied)

    def upsert_many(self, namespace: str, ids: list[str], block: np.ndarray,
                    validity: list[RowValidity | None]) -> None:
        """Several distinct ids of one namespace (a written batch), when it is loaded."""
        with self.lock:
            if namespace in self.namespaces:
                self.namespaces[namespace].upsert_many(ids, block, validity)

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
            current = vector_log.current_vectors(db, touched)
            put: dict[str, list[tuple[str, bytes, RowValidity]]] = {}
            for (ns, mid), row in sorted(current.items(), key=lambda item: item[0]):
                if row is None:
                    self.namespaces[ns].remove(mid)
                else:
                    put.setdefault(ns, []).append((mid, *row))
            for ns, rows in put.items():
                self.namespaces[ns].upsert_many([r[0] for r in rows],
                                                np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows]),
                                                [r[2] for r in rows])
            self.applied = max(self.applied, last)
            return len(touched)

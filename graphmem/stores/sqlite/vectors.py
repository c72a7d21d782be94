"""In-process exact vector search for the embedded store.

One contiguous matrix per namespace, grown by doubling and updated in place on insert/delete
(swap-remove), so a write costs O(dim) and a query one matrix-vector product. float32, except in
a namespace the approximate index searches, where ``ann_matrix_dtype`` may halve it.

Thread safety: writers swap rows in place, so a search takes the namespace's lock while it
multiplies and copies the id order (both O(n), no Python loop); ranking runs outside the lock
on that private copy. Freshness across processes: see ``vector_cache`` and ``vector_log``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

import numpy as np
from threadpoolctl import threadpool_limits

from graphmem.stores.sqlite.ann import AnnIndex, AnnSettings
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

    def adopt(self, ids: list[str], matrix: np.ndarray, columns: tuple[np.ndarray, ...]) -> None:
        """Take a saved matrix (``matrix_file``): ``ids`` are its first rows, the rest is headroom."""
        with self.lock:
            n = len(ids)
            self.matrix, self.ids = matrix, list(ids)
            self.rows = dict(zip(ids, range(n), strict=True))
            self.validity = ValidityColumns.from_saved(n, matrix.shape[0], *columns)

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

    def precision(self, rows: int) -> type[np.floating]:
        """The matrix's dtype for ``rows`` memories."""
        return np.float16 if self._half(rows) else np.float32

    def _grow(self, capacity: int, rows: int) -> None:
        """A larger matrix for ``rows`` memories, in the precision their number calls for."""
        dtype = np.float16 if self.matrix.dtype == np.float16 else self.precision(rows)
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

    def copy_rows(self) -> tuple[list[str], np.ndarray, tuple[np.ndarray, ...]]:
        """The ids, their rows and their validity columns, copied consistently (``graphmem check``)."""
        with self.lock:
            n = len(self.ids)
            return self.ids[:], self.matrix[:n].copy(), tuple(c.copy() for c in self.validity.saved(n))

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

"""The per-process cache of every loaded namespace's vectors, and how it keeps up with SQLite.

A namespace is read once (from its saved matrix when that is current, else from the table),
then kept current by this process's writes and by replaying ``vector_log`` for other processes'
(``catch_up``). Past ``ann_threshold`` it gets an approximate index (``attach_ann``); the index and
the matrix are saved side by side (``ann.py``, ``matrix_file.py``) so the next process loads both.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import Counter
from itertools import islice
from pathlib import Path

import numpy as np

from graphmem.stores.sqlite import matrix_file, vector_log
from graphmem.stores.sqlite.ann import AnnIndex, AnnSettings, index_base
from graphmem.stores.sqlite.validity_mask import RowValidity
from graphmem.stores.sqlite.vectors import HEADROOM, Loader, NamespaceVectors

log = logging.getLogger("graphmem.store")


class VectorCache:
    """Lazily loaded per-namespace matrices, shared by all threads of one store.

    ``applied`` is the last ``vector_log`` sequence number reflected in every loaded matrix;
    ``catch_up`` replays what other processes (or connections) logged after it. A namespace
    past ``ann.threshold`` also gets an approximate index (``attach_ann``), kept in step by the
    same upserts and removes and saved under ``ann_dir`` (``save``; and by a loading process every
    ``save_every`` changes, so the saved index stays within what the change log can replay)."""

    def __init__(self, dim: int, applied: int = 0, ann: AnnSettings | None = None,
                 ann_dir: Path | None = None, save_every: int = 0, source: str = ""):
        self.dim = dim
        self.lock = threading.RLock()
        self.namespaces: dict[str, NamespaceVectors] = {}
        self.applied = applied
        self.reloads = 0            # full resets after the log was pruned past ``applied`` (tests)
        self.ann = ann
        self.ann_dir = ann_dir
        self.save_every = save_every
        self.source = source        # the database's identity (``meta.lexical_source``): saved matrices name it
        self.ann_events: Counter[str] = Counter()   # built / loaded / replayed / stale (tests, benches)
        self.matrix_events: Counter[str] = Counter()    # saved matrices: loaded / replayed / stale / saved
        self.from_file: set[str] = set()            # namespaces read from a current saved matrix

    def get(self, namespace: str, loader: Loader, db: sqlite3.Connection | None = None) -> NamespaceVectors:
        with self.lock:
            vectors = self.namespaces.get(namespace)
            if vectors is None:
                vectors = self._saved(namespace, db) if db is not None else None
                if vectors is None:
                    vectors = self._read(namespace, loader)
                self.namespaces[namespace] = vectors
            if (db is not None and self.ann is not None and vectors.ann is None
                    and len(vectors) >= self.ann.threshold):
                self.attach_ann(namespace, vectors, db)
            return vectors

    def _read(self, namespace: str, loader: Loader) -> NamespaceVectors:
        """The namespace's vectors from the table, read into a matrix sized for them."""
        vectors = NamespaceVectors(self.dim, self.ann)
        bound, found = loader(namespace)
        vectors.reserve(bound)
        rows = iter(found)
        while chunk := list(islice(rows, 10_000)):
            vectors.extend([c[0] for c in chunk], np.frombuffer(b"".join(c[1] for c in chunk),
                                                                dtype=np.float32).reshape(-1, self.dim),
                           [tuple(c[2:6]) for c in chunk] if chunk and len(chunk[0]) >= 6 else None)
        return vectors

    def _saved(self, namespace: str, db: sqlite3.Connection) -> NamespaceVectors | None:
        """The namespace from its saved matrix with the changes logged since replayed, or None
        when there is none this database can use (``matrix_file``)."""
        if self.ann is None or self.ann_dir is None:
            return None
        vectors = NamespaceVectors(self.dim, self.ann)
        saved = matrix_file.load(index_base(self.ann_dir, namespace), self.source, self.dim,
                                 vectors.precision, HEADROOM)
        if saved is None:
            return None
        changed = vector_log.changed_ids(db, namespace, saved.seq)
        if changed is None:
            self.matrix_events["stale"] += 1
            return None
        vectors.adopt(saved.ids, saved.matrix, (saved.start, saved.until, saved.expires, saved.superseded))
        _apply({namespace: vectors}, vector_log.current_vectors(db, {(namespace, i) for i in changed}))
        self.matrix_events["loaded"] += 1
        self.matrix_events["replayed"] += len(changed)
        self.from_file.add(namespace)
        return vectors

    def _save_matrix(self, namespace: str, vectors: NamespaceVectors) -> None:
        """Beside the index, at the same sequence (the caller holds ``vectors.lock``). It only
        saves the next process a read, so a failure (a full disk) is logged, never raised."""
        assert self.ann_dir is not None
        n = len(vectors)
        try:
            matrix_file.save(index_base(self.ann_dir, namespace), self.source, self.applied, vectors.ids[:n],
                             vectors.matrix[:n], vectors.validity.saved(n))
        except OSError as exc:
            log.warning("the vector matrix of %r was not saved (the next process reads the table): %s",
                        namespace, exc)
            self.matrix_events["save_failed"] += 1
            return
        self.matrix_events["saved"] += 1

    def has_saved(self, namespace: str) -> bool:
        return self.ann_dir is not None and matrix_file.path_of(index_base(self.ann_dir, namespace)).exists()

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
            current = namespace in self.from_file and not ann.dirty
            if ann.dirty:           # under the lock: a writer must not change the maps mid-save
                ann.save(base, self.applied)
            if not current:
                self._save_matrix(namespace, vectors)

    def save(self, at_least: int = 0) -> None:
        """Persist every approximate index with at least ``at_least`` unsaved changes (at close,
        every changed one: the next process loads, not builds)."""
        with self.lock:
            for namespace, vectors in self.namespaces.items():
                ann = vectors.ann
                if ann is not None and ann.dirty and ann.unsaved >= at_least and self.ann_dir is not None:
                    with vectors.lock:
                        ann.save(index_base(self.ann_dir, namespace), self.applied)
                        self._save_matrix(namespace, vectors)

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
                self.from_file.clear()
                self.applied = last
                self.reloads += 1
                return 0
            touched = {(ns, mid) for ns, mid in changes if ns in self.namespaces}
            _apply(self.namespaces, vector_log.current_vectors(db, touched))
            self.applied = max(self.applied, last)
            return len(touched)


def _apply(namespaces: dict[str, NamespaceVectors],
           current: dict[tuple[str, str], tuple[bytes, RowValidity] | None]) -> None:
    """Replayed changes: each (namespace, id) upserted with its current row, or removed when gone."""
    put: dict[str, list[tuple[str, bytes, RowValidity]]] = {}
    for (ns, mid), row in sorted(current.items(), key=lambda item: item[0]):
        if row is None:
            namespaces[ns].remove(mid)
        else:
            put.setdefault(ns, []).append((mid, *row))
    for ns, rows in put.items():
        block = np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
        namespaces[ns].upsert_many([r[0] for r in rows], block, [r[2] for r in rows])

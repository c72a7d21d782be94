"""Approximate vector recall for large namespaces: a usearch HNSW index persisted beside the database.

Why usearch: one wheel, single-query search well under a millisecond at 1M, native removal
(faiss's HNSW cannot delete), and half-precision storage; bench/results/ann_compare.json has the
measured comparison with faiss-cpu. The index only proposes candidates: the caller re-scores
them exactly against its float32 matrix, so both paths rank with the same cosine and tie rule.

Keys: usearch wants integers, memories have string ids, so each id gets a fresh key on every
upsert (the old key is removed) and the id <-> key maps are saved with the index.

Persistence: ``<dir>/<hash of namespace>.usearch`` + ``.ids.npy`` + ``.keys.npy`` + ``.json``
(the ``vector_log`` sequence the index reflects, its size, the build parameters). Written to
temporary names and renamed under an exclusive file lock, read under the same lock, so two
processes never pair one's index with the other's maps.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import onnxruntime  # type: ignore[import-untyped]  # noqa: F401  # before usearch: loaded after usearch's native library, it crashes the process
from usearch.index import Index

from graphmem.config import StoreSettings
from graphmem.config.store import ANN_DTYPES, MATRIX_DTYPES
from graphmem.errors import StoreConfigError

FORMAT = 1
BUILD_BLOCK = 65536       # vectors per usearch add call in a bulk build


@dataclass(frozen=True)
class AnnSettings:
    """``store.sqlite.ann_*`` in defaults.toml (documented there)."""

    threshold: int
    connectivity: int
    expansion_add: int
    expansion_search: int
    overfetch: int
    exact_subset_max: int
    dtype: str
    matrix_dtype: str

    def __post_init__(self) -> None:
        for name, allowed in (("dtype", ANN_DTYPES), ("matrix_dtype", MATRIX_DTYPES)):
            if getattr(self, name) not in allowed:
                raise StoreConfigError(f"store.sqlite.ann_{name} must be one of {', '.join(allowed)}, "
                                       f"not {getattr(self, name)!r}", field=f"store.sqlite.ann_{name}")
        for name in ("threshold", "connectivity", "expansion_add", "expansion_search", "overfetch"):
            if getattr(self, name) < 1:
                raise StoreConfigError(f"store.sqlite.ann_{name} must be at least 1",
                                       field=f"store.sqlite.ann_{name}")

    @classmethod
    def from_store(cls, store_settings: StoreSettings) -> AnnSettings:
        return cls(**{f: getattr(store_settings.sqlite, f"ann_{f}") for f in cls.__dataclass_fields__})


def index_base(directory: Path, namespace: str) -> Path:
    return directory / hashlib.sha256(namespace.encode()).hexdigest()[:24]


@contextmanager
def _locked(base: Path) -> Iterator[None]:
    base.parent.mkdir(parents=True, exist_ok=True)
    with open(base.with_suffix(".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class AnnIndex:
    """One namespace's HNSW graph plus its id <-> key maps. Callers serialise access."""

    def __init__(self, dim: int, settings: AnnSettings) -> None:
        self.dim = dim
        self.settings = settings
        self.index = Index(ndim=dim, metric="ip", dtype=settings.dtype, connectivity=settings.connectivity,
                           expansion_add=settings.expansion_add, expansion_search=settings.expansion_search)
        self.keys: dict[str, int] = {}
        self.ids: dict[int, str] = {}
        self.next_key = 0
        self.dirty = True
        self.unsaved = 0        # changes since the last save (a loader saves every so many)

    def __len__(self) -> int:
        return len(self.keys)

    def add_many(self, ids: list[str], vectors: np.ndarray) -> None:
        """Bulk build (ids must be new): multi-threaded usearch calls, each over a block converted
        to float32 (a half-precision matrix is never copied whole)."""
        if not ids:
            return
        keys = np.arange(self.next_key, self.next_key + len(ids), dtype=np.uint64)
        for start in range(0, len(ids), BUILD_BLOCK):
            self.index.add(keys[start:start + BUILD_BLOCK],
                           np.ascontiguousarray(vectors[start:start + BUILD_BLOCK], dtype=np.float32))
        for key, memory_id in zip(keys.tolist(), ids, strict=True):
            self.keys[memory_id] = key
            self.ids[key] = memory_id
        self.next_key += len(ids)
        self.dirty = True
        self.unsaved += len(ids)

    def upsert_many(self, ids: list[str], vectors: np.ndarray) -> None:
        """Several distinct ids at once: their old keys removed, then one multi-threaded insert
        (inserts are the dear part of keeping an index; a batch uses every core)."""
        old = [self.keys.pop(i) for i in ids if i in self.keys]
        for key in old:
            del self.ids[key]
        if old:
            self.index.remove(np.array(old, dtype=np.uint64))
        self.add_many(ids, vectors)

    def remove(self, memory_id: str) -> None:
        key = self.keys.pop(memory_id, None)
        if key is not None:
            del self.ids[key]
            self.index.remove(key)
            self.dirty = True
            self.unsaved += 1

    def search(self, vector: np.ndarray, count: int) -> list[str]:
        """Ids of (about) the ``count`` nearest vectors by inner product; order not guaranteed exact."""
        if count <= 0 or not self.keys:
            return []
        found = self.index.search(np.asarray(vector, dtype=np.float32), count, threads=1)
        ids = self.ids
        return [ids[k] for k in found.keys.tolist() if k in ids]

    # -- persistence -----------------------------------------------------------------------
    def save(self, base: Path, seq: int) -> None:
        """Write the index reflecting ``vector_log`` sequence ``seq`` (atomically, under the lock)."""
        with _locked(base):
            tmp = base.with_name(base.name + f".tmp{os.getpid()}")
            self.index.save(str(tmp) + ".usearch")
            ids = list(self.keys)
            np.save(str(tmp) + ".ids.npy", np.array(ids, dtype=np.str_))
            np.save(str(tmp) + ".keys.npy", np.array([self.keys[i] for i in ids], dtype=np.uint64))
            meta = {"format": FORMAT, "seq": seq, "count": len(ids), "next_key": self.next_key, "dim": self.dim,
                    "settings": asdict(self.settings)}
            Path(str(tmp) + ".json").write_text(json.dumps(meta))
            for suffix in (".usearch", ".ids.npy", ".keys.npy", ".json"):
                os.replace(str(tmp) + suffix, str(base) + suffix)
        self.dirty = False
        self.unsaved = 0

    @classmethod
    def load(cls, base: Path, dim: int, settings: AnnSettings) -> tuple[AnnIndex, int] | None:
        """The saved index and the sequence it reflects; None when absent, unreadable or built
        with other parameters."""
        with _locked(base):
            try:
                meta = json.loads(Path(str(base) + ".json").read_text())
                if (meta.get("format") != FORMAT or meta.get("dim") != dim
                        or meta.get("settings", {}).get("dtype") != settings.dtype
                        or meta.get("settings", {}).get("connectivity") != settings.connectivity):
                    return None
                ann = cls(dim, settings)
                ann.index.load(str(base) + ".usearch")
                ids = np.load(str(base) + ".ids.npy").tolist()
                keys = np.load(str(base) + ".keys.npy").tolist()
            except (OSError, ValueError, RuntimeError, KeyError):
                return None
        if len(ids) != meta["count"] or len(keys) != len(ids) or len(ann.index) != len(ids):
            return None
        ann.index.expansion_search = settings.expansion_search
        ann.keys = dict(zip(ids, keys, strict=True))
        ann.ids = dict(zip(keys, ids, strict=True))
        ann.next_key = int(meta["next_key"])
        ann.dirty = False
        ann.unsaved = 0
        return ann, int(meta["seq"])

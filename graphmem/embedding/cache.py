"""Persistent embedding cache in SQLite.

Why: agents re-send the same memories and queries; re-embedding them costs ~1 ms
each. Keys are (model_id, sha256 of the UTF-8 text), so texts of any length fit
in a fixed-size key and vectors of different models never mix. Vectors are
stored as raw little-endian float32 bytes, so a hit is bit-identical to what was
put. WAL mode lets readers in other processes proceed during writes; a lock
makes one instance safe to share between threads.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

import numpy as np

from graphmem.private_files import private_file

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model_id TEXT NOT NULL,
    text_sha256 BLOB NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_id, text_sha256)
) WITHOUT ROWID
"""
_CHUNK = 500  # stay well below SQLite's bound-parameter limit
_DTYPE = np.dtype("<f4")


def text_key(text: str) -> bytes:
    """sha256 digest of the text (surrogates escaped, so any Python str hashes)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """Thread-safe SQLite cache of float32 vectors keyed by (model_id, sha256(text))."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            private_file(self.path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30.0)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(_SCHEMA)
        self._conn.commit()
        self.hits = 0
        self.misses = 0

    def get_many(self, model_id: str, texts: Sequence[str]) -> dict[int, np.ndarray]:
        """Return {index: vector} for the texts that are cached; counts hits and misses."""
        keys = [text_key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    "SELECT text_sha256, dim, vector FROM embeddings "
                    f"WHERE model_id = ? AND text_sha256 IN ({marks})",
                    [model_id, *chunk],
                ).fetchall()
                for key, dim, blob in rows:
                    vec = np.frombuffer(blob, dtype=_DTYPE)
                    if vec.shape == (dim,):
                        found[bytes(key)] = vec.astype(np.float32)
            result = {i: found[k].copy() for i, k in enumerate(keys) if k in found}
            self.hits += len(result)
            self.misses += len(keys) - len(result)
        return result

    def put_many(self, model_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store one vector per text (row i belongs to texts[i]); replaces existing rows."""
        arr = np.asarray(vectors)
        if arr.ndim != 2 or arr.shape[0] != len(texts):
            raise ValueError(f"vectors shape {arr.shape} does not match {len(texts)} texts")
        arr = np.ascontiguousarray(arr, dtype=_DTYPE)
        rows = [(model_id, text_key(t), arr.shape[1], arr[i].tobytes()) for i, t in enumerate(texts)]
        with self._lock, self._conn:
            self._conn.executemany(
                "INSERT OR REPLACE INTO embeddings (model_id, text_sha256, dim, vector) VALUES (?, ?, ?, ?)",
                rows,
            )

    def stats(self) -> dict[str, Any]:
        """Hit/miss counters of this instance and the number of stored vectors."""
        with self._lock:
            (entries,) = self._conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()
        total = self.hits + self.misses
        return {
            "hits": self.hits,
            "misses": self.misses,
            "hit_rate": self.hits / total if total else 0.0,
            "entries": int(entries),
            "path": str(self.path),
        }

    def clear(self, model_id: str | None = None) -> int:
        """Delete cached vectors (of one model, or all); returns rows removed."""
        with self._lock, self._conn:
            if model_id is None:
                cur = self._conn.execute("DELETE FROM embeddings")
            else:
                cur = self._conn.execute("DELETE FROM embeddings WHERE model_id = ?", [model_id])
        return cur.rowcount

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

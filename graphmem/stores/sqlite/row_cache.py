"""Decoded memories kept between reads of the embedded store (``store.sqlite.row_cache``).

A search reads a few hundred rows, and reading plus decoding one (an index lookup, 21 columns,
five JSON texts, the embedding) costs far more than a dictionary hit; neighbouring searches
read many of the same rows. The cache holds rows as they are in the database, so it is
emptied whenever the database may have changed: after every write transaction of this store
(``SQLiteBase._write``) and when ``PRAGMA data_version`` says another connection or process
committed. A read that began before an emptying does not put its rows back (``generation``).
Bounded: least recently used rows go first.

Cached memories are shared by the readers that ask for them; nothing on the read path changes a
memory it was handed (a read's embedding is a read-only view of its row, so an attempt fails loudly).
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict

from graphmem.model import Memory
from graphmem.stores.sqlite.vector_log import VersionGate


class RowCache:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._rows: OrderedDict[tuple[str, str], Memory] = OrderedDict()
        self._lock = threading.Lock()
        self._gate = VersionGate()
        self.generation = 0

    def clear(self) -> None:
        with self._lock:
            self.generation += 1
            self._rows.clear()

    def check(self, db: sqlite3.Connection) -> int:
        """Empty the cache if another connection committed since this connection last looked;
        the generation a read starting now must carry to ``put``."""
        if self._gate.changed(db):
            self.clear()
        return self.generation

    def take(self, namespace: str, ids: list[str]) -> tuple[dict[str, Memory], list[str]]:
        """(cached memories, ids to read)."""
        found: dict[str, Memory] = {}
        missing: list[str] = []
        rows = self._rows
        with self._lock:
            for id_ in ids:
                mem = rows.get((namespace, id_))
                if mem is None:
                    missing.append(id_)
                else:
                    rows.move_to_end((namespace, id_))
                    found[id_] = mem
        return found, missing

    def put(self, namespace: str, memories: dict[str, Memory], generation: int) -> None:
        if not memories or self.capacity <= 0:
            return
        with self._lock:
            if generation != self.generation:          # the database changed while they were read
                return
            rows = self._rows
            for id_, mem in memories.items():
                rows[(namespace, id_)] = mem
            while len(rows) > self.capacity:
                rows.popitem(last=False)

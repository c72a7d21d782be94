"""Decoded memories kept between reads of the embedded store (``store.sqlite.row_cache``).

A search reads a few hundred rows, and reading plus decoding one (an index lookup, 21 columns,
five JSON texts, the embedding) costs far more than a dictionary hit; neighbouring searches
read many of the same rows. The cache holds rows as they are in the database, so a row leaves it
whenever it may have changed:

- after a write transaction of this store, the rows it changed (``evict``): each connection
  records the (namespace, id) of every row inserted, updated or deleted in ``memories`` through
  temporary triggers (``watch``), whichever statement did it, and a rollback undoes the record
  with the change; when the triggers are missing (a migration rebuilt the table) the cache empties;
- every row, when ``PRAGMA data_version`` says another connection or process committed.

A read that began before an eviction does not put its rows back (``generation``). Bounded:
least recently used rows go first.

Cached memories are shared by the readers that ask for them; nothing on the read path changes a
memory it was handed (the embedding is made read-only, so an attempt fails loudly).
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict

from graphmem.model import Memory
from graphmem.stores.sqlite.vector_log import VersionGate

WATCHED = "graphmem_changed_rows"
_TRIGGERS = {
    f"{WATCHED}_insert": f"AFTER INSERT ON main.memories BEGIN INSERT INTO {WATCHED} "
                         "VALUES (new.namespace, new.id); END",
    f"{WATCHED}_update": f"AFTER UPDATE ON main.memories BEGIN INSERT INTO {WATCHED} "
                         "VALUES (old.namespace, old.id), (new.namespace, new.id); END",
    f"{WATCHED}_delete": f"AFTER DELETE ON main.memories BEGIN INSERT INTO {WATCHED} "
                         "VALUES (old.namespace, old.id); END",
}


def watch(db: sqlite3.Connection) -> bool:
    """Make ``db`` record the rows its writes change in ``memories`` (temporary, this connection
    only); False when the table does not exist yet (a store being created)."""
    if len(_triggers(db)) == len(_TRIGGERS):
        return True
    if not db.execute("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'memories'").fetchone():
        return False
    db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {WATCHED} (namespace TEXT, id TEXT)")
    for name, body in _TRIGGERS.items():
        db.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS {name} {body}")
    return True


def changed_rows(db: sqlite3.Connection) -> set[tuple[str, str]] | None:
    """The rows ``db``'s committed writes changed since the last call (and forget them); None
    when that is unknown (the triggers are gone: a migration dropped and rebuilt the table)."""
    if len(_triggers(db)) != len(_TRIGGERS):
        return None
    found = set(db.execute(f"SELECT namespace, id FROM temp.{WATCHED}").fetchall())
    if found:
        db.execute(f"DELETE FROM temp.{WATCHED}")
    return found


def _triggers(db: sqlite3.Connection) -> list[str]:
    names = list(_TRIGGERS)
    return [r[0] for r in db.execute(f"SELECT name FROM temp.sqlite_master WHERE type = 'trigger' "
                                     f"AND name IN ({','.join('?' * len(names))})", names)]


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

    def evict(self, keys: set[tuple[str, str]] | None) -> None:
        """Drop the rows a write of this store changed (every row when ``keys`` is None)."""
        if keys is None:
            self.clear()
            return
        with self._lock:
            self.generation += 1
            for key in keys:
                self._rows.pop(key, None)

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
                if mem.embedding is not None:
                    mem.embedding.flags.writeable = False
                rows[(namespace, id_)] = mem
            while len(rows) > self.capacity:
                rows.popitem(last=False)

"""The embedded store's change log for vectors: how a process notices other processes' writes.

Every save and delete appends (namespace, id) to ``vector_log`` in its own transaction. A
process's vector cache remembers the last sequence number it reflects; before a search it asks
SQLite whether anything was committed by another connection (``PRAGMA data_version``, no table
read) and, only then, replays the log rows after that number. Only the newest ``keep`` rows are
kept; a cache that fell further behind reloads its matrices from the table.
"""

from __future__ import annotations

import sqlite3

from graphmem.stores.sqlite.validity_mask import VALIDITY_COLUMNS, RowValidity

SCHEMA = """
CREATE TABLE IF NOT EXISTS vector_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL,
    memory_id TEXT NOT NULL
);
"""
PRUNE_EVERY = 1000


def record(db: sqlite3.Connection, namespace: str, memory_id: str, keep: int) -> int:
    """Log a change to one memory's vector inside the caller's write transaction; its sequence number."""
    seq = db.execute("INSERT INTO vector_log (namespace, memory_id) VALUES (?, ?)",
                     (namespace, memory_id)).lastrowid
    assert seq is not None, "an INSERT sets lastrowid"
    if seq % max(1, min(PRUNE_EVERY, keep)) == 0:
        db.execute("DELETE FROM vector_log WHERE seq <= ?", (seq - keep,))
    return int(seq)


def last_seq(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()[0])


def since(db: sqlite3.Connection, applied: int) -> tuple[int | None, list[tuple[str, str]], int]:
    """(oldest kept seq, changes after ``applied`` in order, newest seq)."""
    first = db.execute("SELECT min(seq) FROM vector_log").fetchone()[0]
    rows = db.execute("SELECT seq, namespace, memory_id FROM vector_log WHERE seq > ? ORDER BY seq",
                      (applied,)).fetchall()
    return first, [(r[1], r[2]) for r in rows], (rows[-1][0] if rows else applied)


def current_vectors(db: sqlite3.Connection, keys: set[tuple[str, str]]
                    ) -> dict[tuple[str, str], tuple[bytes, RowValidity] | None]:
    """The stored embedding and validity of each (namespace, id), None when the memory is gone or
    has no embedding."""
    out: dict[tuple[str, str], tuple[bytes, RowValidity] | None] = dict.fromkeys(keys)
    for ns, mid in keys:
        row = db.execute(f"SELECT embedding, {VALIDITY_COLUMNS} FROM memories WHERE namespace = ? AND id = ?",
                         (ns, mid)).fetchone()
        out[(ns, mid)] = (row[0], tuple(row[1:])) if row and row[0] is not None else None
    return out


class VersionGate:
    """Per-connection ``PRAGMA data_version``: changes only when another connection committed."""

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}

    def changed(self, db: sqlite3.Connection) -> bool:
        version = db.execute("PRAGMA data_version").fetchone()[0]
        key = id(db)
        if self.seen.get(key) == version:
            return False
        self.seen[key] = version
        return True


def changed_ids(db: sqlite3.Connection, namespace: str, after: int) -> set[str] | None:
    """Ids of ``namespace`` changed after sequence ``after``; None when that cannot be known (the
    log was pruned past it, or ``after`` is ahead of the log: another database or a restore)."""
    first, last = db.execute("SELECT min(seq), max(seq) FROM vector_log").fetchone()
    newest = int(db.execute("SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'vector_log'")
                 .fetchone()[0]) if last is None else last
    if after > newest or (first is not None and first > after + 1) or (first is None and after < newest):
        return None
    return {r[0] for r in db.execute("SELECT memory_id FROM vector_log WHERE seq > ? AND namespace = ?",
                                     (after, namespace))}

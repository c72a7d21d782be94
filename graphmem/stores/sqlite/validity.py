"""Validity in time and supersession on the embedded store: the columns, their indexes, the
migration of an older store and the SQL of the ``current_only`` / ``as_of`` filters (listing and
filters that combine them with others; recall reads them as arrays, ``validity_mask.py``).

``valid_start`` is derived (``Memory.effective_valid_from``: ``valid_from``, else ``created_at``)
so a range seek answers "valid from after t" without an expression index."""

from __future__ import annotations

COLUMNS = ("valid_from", "superseded_by", "valid_start")
INDEXES = (
    # covering: an as_of answers from the index alone (memory rows are large: content, embedding)
    "CREATE INDEX IF NOT EXISTS memories_valid_at ON memories "
    "(namespace, valid_start, valid_until, expires_at, id)",
    "CREATE INDEX IF NOT EXISTS memories_valid_until ON memories (namespace, valid_until) "
    "WHERE valid_until IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS memories_superseded ON memories (namespace, superseded_by) "
    "WHERE superseded_by IS NOT NULL",
)


def add_columns(store) -> None:
    """Stores written before validity: the columns are added (``valid_start`` = ``created_at``,
    nothing superseded) and indexed. Idempotent, run at every open."""
    columns = {r[1] for r in store.db.execute("PRAGMA table_info(memories)")}
    missing = [c for c in COLUMNS if c not in columns]
    with store._write() as db:
        for name in missing:
            db.execute(f"ALTER TABLE memories ADD COLUMN {name} TEXT")
        if "valid_start" in missing:
            db.execute("UPDATE memories SET valid_start = coalesce(valid_from, created_at)")
        db.execute("DROP INDEX IF EXISTS memories_valid_start")      # the first, non-covering form
        for sql in INDEXES:
            db.execute(sql)


def validity_sql(current_only: bool, as_of: str | None, alias: str = "m") -> tuple[list[str], list]:
    """Conditions with the meaning of ``MemoryFilter.matches`` for ``current_only`` and ``as_of``."""
    clauses: list[str] = []
    params: list = []
    if current_only:
        clauses.append(f"{alias}.superseded_by IS NULL")
    if as_of is not None:
        clauses.append(f"{alias}.valid_start <= ? AND ({alias}.valid_until IS NULL OR {alias}.valid_until > ?)")
        params += [as_of, as_of]
    return clauses, params

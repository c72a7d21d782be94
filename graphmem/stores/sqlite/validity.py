"""Validity in time and supersession on the embedded store: the columns, their indexes, the
migration of an older store, the SQL of the ``current_only`` / ``as_of`` filters, and the ids
those filters drop (index seeks), so vector recall can exclude a few ids instead of listing
every one it keeps.

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


def dropped_ids(db, namespace: str, include_expired: bool, now_iso: str, current_only: bool,
                as_of: str | None, cap: int) -> set[str] | None:
    """The ids expiry, ``current_only`` and ``as_of`` drop, each set from its own index (partial
    indexes on expires_at, superseded_by and valid_until; a range of valid_start); None when they
    are more than ``cap`` (the caller then lists what it keeps instead)."""
    queries: list[tuple[str, tuple]] = []
    if not include_expired and now_iso:
        queries.append(("SELECT id FROM memories WHERE namespace = ? AND expires_at IS NOT NULL "
                        "AND expires_at <= ?", (namespace, now_iso)))
    if current_only:
        queries.append(("SELECT id FROM memories WHERE namespace = ? AND superseded_by IS NOT NULL",
                        (namespace,)))
    if as_of is not None:
        queries.append(("SELECT id FROM memories WHERE namespace = ? AND valid_start > ?", (namespace, as_of)))
        queries.append(("SELECT id FROM memories WHERE namespace = ? AND valid_until IS NOT NULL "
                        "AND valid_until <= ?", (namespace, as_of)))
    counted = 0
    for sql, params in queries:             # counted in the index first: too many costs no row reads
        counted += db.execute(f"SELECT count(*) FROM ({sql} LIMIT ?)", (*params, cap + 1)).fetchone()[0]
        if counted > cap:
            return None
    out: set[str] = set()
    for sql, params in queries:
        out.update(r[0] for r in db.execute(sql, params))
    return out

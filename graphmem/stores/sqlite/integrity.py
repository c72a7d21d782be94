"""The embedded store's own invariants beyond the contract, and its recount.

``integrity`` compares the derived tables with the memories they come from: ``memory_tags``
equal to each memory's tags and topic labels, maintained label counts with no stale labels, and
a loaded vector matrix holding exactly the rows with an embedding, each with its stored vector
and validity (it may have been read from a saved matrix; the lexical index is verified by
``lexical.LexicalIndex.verify``). ``recount`` rebuilds the maintained counts of a namespace
from its memories.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from graphmem.model import TOPIC_LABEL_PREFIX
from graphmem.stores.sqlite.validity_mask import VALIDITY_COLUMNS, ValidityColumns

Finding = tuple[str, str, list[str]]
HALF_PRECISION_ERROR = 1e-3     # a unit vector's components in float16 are within 2**-11 of float32's


def integrity(db: sqlite3.Connection, namespace: str,
              matrix: tuple[list[str], np.ndarray, tuple[np.ndarray, ...]] | None) -> list[Finding]:
    """Findings as (kind, detail, ids); ``matrix``: a loaded namespace's ``copy_rows()``."""
    out: list[Finding] = []
    wrong_tags = [r[0] for r in db.execute(
        "SELECT m.id FROM memories m WHERE m.namespace = ?1 AND "
        "(SELECT group_concat(value, char(0)) FROM (SELECT value FROM json_each(m.tags_json) UNION "
        " SELECT ?2 || json_extract(value, '$.topic') FROM json_each(coalesce(m.topics_json, '[]')) "
        " ORDER BY value)) IS NOT "
        "(SELECT group_concat(tag, char(0)) FROM (SELECT tag FROM memory_tags t "
        " WHERE t.namespace = ?1 AND t.memory_id = m.id ORDER BY tag))", (namespace, TOPIC_LABEL_PREFIX))]
    if wrong_tags:
        out.append(("memory_tags", f"{len(wrong_tags)} memories' tag rows differ from their tags", wrong_tags))
    stale = [f"{r[0]}:{r[1]}" for r in db.execute(
        "SELECT kind, label FROM label_counts l WHERE namespace = ?1 AND n != CASE kind "
        "WHEN 'tag' THEN (SELECT count(*) FROM memory_tags t WHERE t.namespace = ?1 AND t.tag = l.label) "
        "ELSE (SELECT count(*) FROM memories m WHERE m.namespace = ?1 AND m.category = l.label) END",
        (namespace,))]
    if stale:
        out.append(("label_counts", f"{len(stale)} maintained label counts differ from a recount", stale))
    if matrix is not None:
        matrix_ids = matrix[0]
        rows = {r[0] for r in db.execute("SELECT id FROM memories WHERE namespace = ? AND embedding IS NOT NULL",
                                         (namespace,))}
        held = set(matrix_ids)
        if held != rows or len(matrix_ids) != len(held):
            out.append(("vector_rows", f"the vector matrix holds {len(matrix_ids)} rows for {len(rows)} stored "
                                       "vectors", sorted(held ^ rows)))
        wrong = vector_values(db, namespace, *matrix)
        if wrong:
            out.append(("vector_values", f"{len(wrong)} rows of the vector matrix differ from their stored vector "
                                         "or validity", wrong))
    return out


def vector_values(db: sqlite3.Connection, namespace: str, ids: list[str], matrix: np.ndarray,
                  columns: tuple[np.ndarray, ...]) -> list[str]:
    """Ids whose matrix row or validity columns differ from their stored row."""
    at = {memory_id: r for r, memory_id in enumerate(ids)}
    wrong: list[str] = []
    cursor = db.execute(f"SELECT id, embedding, {VALIDITY_COLUMNS} FROM memories WHERE namespace = ? "
                        "AND embedding IS NOT NULL", (namespace,))
    while chunk := [c for c in cursor.fetchmany(10_000) if c[0] in at]:
        rows = np.array([at[c[0]] for c in chunk], dtype=np.int64)
        stored = np.frombuffer(b"".join(c[1] for c in chunk), dtype=np.float32).reshape(len(chunk), -1)
        bad = np.abs(matrix[rows].astype(np.float32) - stored).max(axis=1) > HALF_PRECISION_ERROR
        expected = ValidityColumns(len(chunk))
        expected.set_many(0, [tuple(c[2:6]) for c in chunk], len(chunk))
        for held, want in zip(columns, expected.saved(len(chunk)), strict=True):
            bad |= held[rows] != want
        wrong += [chunk[k][0] for k in np.flatnonzero(bad)]
    return sorted(wrong)


def recount(db: sqlite3.Connection, namespace: str) -> None:
    """Rebuild term_df, label_counts and namespace_stats of ``namespace`` (caller's transaction)."""
    db.execute("DELETE FROM term_df WHERE namespace = ?", (namespace,))
    db.execute("INSERT INTO term_df SELECT m.namespace, j.key, count(*) FROM memories m, "
               "json_each(m.term_counts_json) j WHERE m.namespace = ? GROUP BY m.namespace, j.key", (namespace,))
    db.execute("DELETE FROM label_counts WHERE namespace = ?", (namespace,))
    db.execute("INSERT INTO label_counts SELECT namespace, 'tag', tag, count(*) FROM memory_tags "
               "WHERE namespace = ? GROUP BY namespace, tag", (namespace,))
    db.execute("INSERT INTO label_counts SELECT namespace, 'category', category, count(*) FROM memories "
               "WHERE namespace = ? AND category IS NOT NULL GROUP BY namespace, category", (namespace,))
    db.execute("DELETE FROM namespace_stats WHERE namespace = ?", (namespace,))
    db.execute("INSERT INTO namespace_stats SELECT namespace, count(*), coalesce(sum(doc_length), 0) "
               "FROM memories WHERE namespace = ? GROUP BY namespace", (namespace,))

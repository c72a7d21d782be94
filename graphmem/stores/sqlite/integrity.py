"""The embedded store's own invariants beyond the contract, and its recount.

``integrity`` compares the derived tables with the memories they come from: ``memory_tags``
equal to each memory's tags and topic labels, maintained label counts with no stale labels, and
a loaded vector matrix holding exactly the rows with an embedding (the lexical index is verified
by ``lexical.LexicalIndex.verify``). ``recount`` rebuilds the maintained counts of a namespace
from its memories.
"""

from __future__ import annotations

import sqlite3

from graphmem.model import TOPIC_LABEL_PREFIX

Finding = tuple[str, str, list[str]]


def integrity(db: sqlite3.Connection, namespace: str, matrix_ids: list[str] | None) -> list[Finding]:
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
    if matrix_ids is not None:
        rows = {r[0] for r in db.execute("SELECT id FROM memories WHERE namespace = ? AND embedding IS NOT NULL",
                                         (namespace,))}
        held = set(matrix_ids)
        if held != rows or len(matrix_ids) != len(held):
            out.append(("vector_rows", f"the vector matrix holds {len(matrix_ids)} rows for {len(rows)} stored "
                                       "vectors", sorted(held ^ rows)))
    return out


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

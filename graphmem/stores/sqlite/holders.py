"""``term_holders`` on the embedded store: each term's newest holders, from the lexical engine.

tantivy orders a term's holders by the ``created_us`` fast field and returns rowids; one SQLite
read gives the (created_at, id) of all the batch's holders at once, and the per-term lists are
built as integer positions into those keys (``stores.base.TermHolders``), never as per-term lists
of strings. Rows changed after the index caught up are read from SQLite and take the place of
their documents, so every committed write counts.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import tantivy

from graphmem.stores.base import TermHolders
from graphmem.stores.sqlite.lexical import MUST, SCHEMA, LexicalIndex, Q, fast_ints


def newest_holders(index: LexicalIndex, db: sqlite3.Connection, namespace: str, terms: list[str],
                   limit: int) -> TermHolders:
    """Per term, its ``limit`` newest holders in the namespace, newest first (created_at desc, id
    desc). When tantivy's cut falls inside one instant, every holder of that instant is read, so
    ids break the tie."""
    unique = list(dict.fromkeys(terms))
    empty = np.zeros(0, dtype=np.int64)
    if limit <= 0 or not unique:
        return TermHolders([], {t: empty for t in unique})
    view = index.view(db)
    changed = {mid for ns, mid in view.pending if ns == namespace}
    fresh = {(created, mid): json.loads(counts) for _r, _n, mid, created, counts
             in LexicalIndex._rows_of(db, ((namespace, i) for i in changed))}
    picked = {t: np.array(newest_rowids(view.searcher, namespace, t, limit + len(changed)), dtype=np.int64)
              for t in unique if t}
    wanted = np.unique(np.concatenate([empty, *picked.values()]))
    rows: dict[int, tuple[str, str]] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500].tolist()
        rows.update((r[0], (r[1], r[2])) for r in db.execute(
            f"SELECT rowid, created_at, id FROM memories WHERE +namespace = ? AND rowid IN "
            f"({','.join('?' * len(chunk))})", [namespace, *chunk]))
    stored = {r: key for r, key in rows.items() if key[1] not in changed}
    keys = sorted({*stored.values(), *fresh})
    at = {key: k for k, key in enumerate(keys)}
    rowids = np.fromiter(stored, dtype=np.int64, count=len(stored))
    order = np.argsort(rowids)
    rowids = rowids[order]
    position = np.fromiter((at[key] for key in stored.values()), dtype=np.int64, count=len(stored))[order]
    out: dict[str, np.ndarray] = {t: empty for t in unique}
    for t, found in picked.items():
        slot = np.minimum(np.searchsorted(rowids, found), max(len(rowids) - 1, 0))
        held = position[slot[rowids[slot] == found]] if len(rowids) else empty
        extra = [at[key] for key, counts in fresh.items() if t in counts]
        if extra:
            held = np.concatenate([held, np.array(extra, dtype=np.int64)])
        out[t] = -np.sort(-held)[:limit]
    return TermHolders(keys, out)


def newest_rowids(searcher: tantivy.Searcher, namespace: str, term: str, fetch: int) -> list[int]:
    """The rowids of a term's ``fetch`` newest holders (all of an instant the cut falls inside)."""
    base = LexicalIndex._in_namespace(namespace, Q.term_query(SCHEMA, "terms", term))
    # one hit past the cut: only a cut inside an instant (rare) reads that instant whole
    hits = searcher.search(base, fetch + 1, count=False, order_by_field="created_us").hits
    addresses = [a for _, a in hits[:fetch]]
    if len(hits) > fetch and int(hits[fetch][0]) == int(hits[fetch - 1][0]):
        edge = int(hits[fetch - 1][0])
        tie = Q.boolean_query([(MUST, base), (MUST, Q.range_query(
            SCHEMA, "created_us", tantivy.FieldType.Integer, edge, edge))])
        size = int(getattr(searcher.search(tie, 1, count=True), "count", 0) or 0)
        addresses = [a for key, a in hits if int(key) != edge] + [a for _, a in searcher.search(
            tie, max(size, 1), count=False).hits]
    return fast_ints(searcher, "rowid", addresses)

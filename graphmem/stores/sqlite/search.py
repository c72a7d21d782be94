"""Recall lookups of the embedded store: vector and full-text candidates (the lexical engine,
``lexical.py``), term statistics, label indexes, and the filter SQL they share."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from graphmem.model import MemoryFilter, TermStats
from graphmem.stores.base import MemoryStore, RecallHits, TermHolders, recall_in_turn
from graphmem.stores.sqlite.connection import SQLiteBase
from graphmem.stores.sqlite.holders import newest_holders
from graphmem.stores.sqlite.validity import validity_sql
from graphmem.stores.sqlite.validity_mask import ValidityFilter


def filter_sql(flt: MemoryFilter | None, now_iso: str, alias: str = "m") -> tuple[str, list]:
    """SQL conditions with the meaning of ``MemoryFilter.matches`` (minus the namespace)."""
    if flt is None:
        return "", []
    clauses: list[str] = []
    params: list = []
    if not flt.include_expired and now_iso:
        clauses.append(f"({alias}.expires_at IS NULL OR {alias}.expires_at > ?)")
        params.append(now_iso)
    for tag in flt.tags:
        clauses.append(f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.namespace = {alias}.namespace "
                       f"AND t.memory_id = {alias}.id AND t.tag = ?)")
        params.append(tag)
    if flt.categories:
        clauses.append(f"{alias}.category IN ({','.join('?' * len(flt.categories))})")
        params.extend(flt.categories)
    if flt.sources:
        clauses.append(f"{alias}.source IN ({','.join('?' * len(flt.sources))})")
        params.extend(flt.sources)
    more, more_params = validity_sql(flt.current_only, flt.as_of, alias)
    clauses += more
    params += more_params
    for column, op, value in (("health", ">=", flt.min_health), ("health", "<=", flt.max_health),
                              ("created_at", ">=", flt.created_after or None),
                              ("created_at", "<", flt.created_before or None)):
        if value is not None:
            clauses.append(f"{alias}.{column} {op} ?")
            params.append(value)
    return "".join(f" AND {c}" for c in clauses), params


class SearchMixin(SQLiteBase):
    # -- candidate indexes ----------------------------------------------------------------
    def tag_members(self, namespace: str, tag: str, limit: int, exclude_id: str | None = None) -> list[str]:
        rows = self.db.execute("SELECT memory_id FROM memory_tags WHERE namespace = ? AND tag = ? "
                               "AND memory_id != ? ORDER BY created_at DESC, memory_id DESC LIMIT ?",
                               (namespace, tag, exclude_id or "", limit))
        return [r[0] for r in rows]

    def category_members(self, namespace: str, category: str, limit: int,
                         exclude_id: str | None = None) -> list[str]:
        rows = self.db.execute("SELECT id FROM memories WHERE namespace = ? AND category = ? AND id != ? "
                               "ORDER BY created_at DESC, id DESC LIMIT ?",
                               (namespace, category, exclude_id or "", limit))
        return [r[0] for r in rows]

    def tag_members_many(self, namespace: str, tags: list[str], limit: int) -> dict[str, list[str]]:
        return {tag: self.tag_members(namespace, tag, limit) for tag in dict.fromkeys(tags)}

    def category_members_many(self, namespace: str, categories: list[str], limit: int) -> dict[str, list[str]]:
        return {c: self.category_members(namespace, c, limit) for c in dict.fromkeys(categories)}

    def _label_counts(self, namespace: str, kind: str, labels: list[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(labels))
        if not unique:
            return {}
        found = dict(self.db.execute(f"SELECT label, n FROM label_counts WHERE namespace = ? AND kind = ? AND "
                                     f"label IN ({','.join('?' * len(unique))})", [namespace, kind, *unique]))
        return {label: found.get(label, 0) for label in unique}

    def tag_counts(self, namespace: str, tags: list[str]) -> dict[str, int]:
        return self._label_counts(namespace, "tag", tags)

    def category_counts(self, namespace: str, categories: list[str]) -> dict[str, int]:
        return self._label_counts(namespace, "category", categories)

    def label_counts(self, namespace: str, tags: list[str],
                     categories: list[str]) -> tuple[dict[str, int], dict[str, int]]:
        return self.tag_counts(namespace, tags), self.category_counts(namespace, categories)

    # -- recall --------------------------------------------------------------------------
    def vector_candidates(self, namespace: str, vector: np.ndarray, limit: int,
                          flt: MemoryFilter, now_iso: str) -> list[str]:
        matrix = self._matrix(namespace)
        if flt.only_validity():         # validity in time and expiry: a mask over the matrix rows
            keep = ValidityFilter.of(flt.as_of, flt.current_only, None if flt.include_expired else now_iso)
            return matrix.search(vector, limit, keep=keep)
        allowed = None
        needs_sql = not flt.is_empty() or (not flt.include_expired and self.db.execute(
            "SELECT 1 FROM memories WHERE namespace = ? AND expires_at IS NOT NULL LIMIT 1",
            (namespace,)).fetchone())
        if needs_sql:
            where, params = filter_sql(flt, now_iso)
            allowed = {r[0] for r in self.db.execute(
                f"SELECT m.id FROM memories m WHERE m.namespace = ?{where}", [namespace, *params])}
        return matrix.search(vector, limit, allowed)

    def recall(self, namespace: str, vector: np.ndarray | None, vector_limit: int, terms: list[str],
               lookup: Callable[[TermStats], list[str]], lexical_limit: int, flt: MemoryFilter,
               now_iso: str) -> RecallHits:
        return recall_in_turn(cast("MemoryStore", self), namespace, vector, vector_limit, terms, lookup,
                              lexical_limit, flt, now_iso)

    def lexical_candidates(self, namespace: str, terms: list[str], limit: int,
                           flt: MemoryFilter | None, now_iso: str, exclude_id: str | None = None) -> list[str]:
        if not terms or limit <= 0:
            return []
        if flt is not None and flt.only_validity() and (flt.current_only or flt.as_of is not None):
            return self._lexical_valid(namespace, terms, limit, flt, now_iso, exclude_id)
        where, params = filter_sql(flt, now_iso)
        # The engine ranks the namespace's matches on its own first (top ``window``, pruned), then
        # they are checked against filters in SQLite; a short page widens the window.
        window = max(2 * limit, 64)
        while True:
            ids, exhausted = self._ranked(terms, window, namespace, exclude_id, where, params, limit)
            if len(ids) >= limit or exhausted:        # enough, or every match was seen
                return ids
            window *= 4

    def _lexical_valid(self, namespace: str, terms: list[str], limit: int, flt: MemoryFilter, now_iso: str,
                       exclude_id: str | None) -> list[str]:
        """``current_only`` / ``as_of`` on the full-text side: the ranked window is read without
        them (no read of the validity columns, at the end of a large row) and checked against the
        vector matrix's validity arrays; the window is sized by the share of memories they keep."""
        matrix = self._matrix(namespace)
        keep = ValidityFilter.of(flt.as_of, flt.current_only, None if flt.include_expired else now_iso)
        window = int(max(2 * limit, 64) / max(matrix.kept_share(keep), 0.05))
        while True:
            ids, exhausted = self._ranked(terms, window, namespace, exclude_id, "", [], window)
            kept = matrix.keeps(ids, keep)
            unknown = [i for i in ids if i not in kept]     # no vector: the row answers
            if unknown:
                where, params = filter_sql(flt, now_iso)
                found = {r[0] for r in self.db.execute(
                    f"SELECT m.id FROM memories m WHERE m.namespace = ? AND m.id IN "
                    f"({','.join('?' * len(unknown))}){where}", [namespace, *unknown, *params])}
                kept.update((i, i in found) for i in unknown)
            out = [i for i in ids if kept[i]][:limit]
            if len(out) >= limit or exhausted:
                return out
            window *= 4

    def _ranked(self, terms: list[str], window: int, namespace: str, exclude_id: str | None, where: str,
                params: list, limit: int) -> tuple[list[str], bool]:
        """The best ``limit`` of the engine's ``window`` best matches passing ``where`` (in the
        engine's order), and whether the window held every match."""
        assert self.lexical is not None, "ensure_schema() first"
        rowids, exhausted = self.lexical.top(self.db, namespace, terms, window)
        if not rowids:
            return [], exhausted
        found: dict[int, str] = {}
        for start in range(0, len(rowids), 500):
            chunk = rowids[start:start + 500]
            found.update(self.db.execute(
                f"SELECT m.rowid, m.id FROM memories m WHERE m.rowid IN ({','.join('?' * len(chunk))}) "
                f"AND +m.namespace = ? AND m.id != ?{where}", [*chunk, namespace, exclude_id or "", *params]))
        return [found[r] for r in rowids if r in found][:limit], exhausted

    def term_holders(self, namespace: str, terms: list[str], limit: int) -> TermHolders:
        assert self.lexical is not None, "ensure_schema() first"
        return newest_holders(self.lexical, self.db, namespace, terms, limit)

    def term_stats(self, namespace: str, terms: list[str]) -> TermStats:
        row = self.db.execute("SELECT n_docs, total_length FROM namespace_stats WHERE namespace = ?",
                              (namespace,)).fetchone()
        unique = list(dict.fromkeys(terms))
        df = dict(self.db.execute(f"SELECT term, df FROM term_df WHERE namespace = ? AND term IN "
                                  f"({','.join('?' * len(unique))})", [namespace, *unique])) if unique else {}
        return TermStats(n_docs=row[0] if row else 0, total_length=row[1] if row else 0, df=df)

"""Recall lookups of the Neo4j store: vector (filtered inside the index) and full-text
candidates, term statistics, and the label indexes (newest members, counts)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphmem.model import MemoryFilter, TermStats
from graphmem.stores.base import RecallHits, TermHolders
from graphmem.stores.neo4j.connection import Neo4jBase
from graphmem.stores.neo4j.records import filter_params, index_ranges, lucene_queries, to_memories


class SearchMixin(Neo4jBase):
    # -- candidate indexes ----------------------------------------------------------------
    def tag_members(self, namespace: str, tag: str, limit: int, exclude_id: str | None = None) -> list[str]:
        return self._members("tag_members", "tags", "tag", namespace, [tag], limit, exclude_id).get(tag, [])

    def category_members(self, namespace: str, category: str, limit: int,
                         exclude_id: str | None = None) -> list[str]:
        return self._members("category_members", "categories", "category", namespace, [category], limit,
                             exclude_id).get(category, [])

    def tag_members_many(self, namespace: str, tags: list[str], limit: int) -> dict[str, list[str]]:
        return self._members("tag_members", "tags", "tag", namespace, tags, limit, None)

    def category_members_many(self, namespace: str, categories: list[str], limit: int) -> dict[str, list[str]]:
        return self._members("category_members", "categories", "category", namespace, categories, limit, None)

    def _members(self, query: str, param: str, column: str, namespace: str, labels: list[str], limit: int,
                 exclude_id: str | None) -> dict[str, list[str]]:
        unique = list(dict.fromkeys(labels))
        if limit <= 0 or not unique:
            return {}
        out: dict[str, list[str]] = {label: [] for label in unique}
        for r in self._read(query, namespace=namespace, limit=int(limit), exclude_id=exclude_id or "",
                            **{param: unique}):
            out[r[column]].append(r["id"])
        return out

    def tag_counts(self, namespace: str, tags: list[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(tags))
        if not unique:
            return {}
        rows = self._read("tag_counts", namespace=namespace, tags=unique)
        return {r["tag"]: r["count"] for r in rows}

    def category_counts(self, namespace: str, categories: list[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(categories))
        if not unique:
            return {}
        rows = self._read("category_counts", namespace=namespace, categories=unique)
        return {r["category"]: r["count"] for r in rows}

    def label_counts(self, namespace: str, tags: list[str],
                     categories: list[str]) -> tuple[dict[str, int], dict[str, int]]:
        unique_tags, unique_cats = list(dict.fromkeys(tags)), list(dict.fromkeys(categories))
        if not unique_tags and not unique_cats:
            return {}, {}
        row = self._read("label_counts", namespace=namespace, tags=unique_tags, categories=unique_cats)[0]
        return dict(row["tags"]), dict(row["categories"])

    # -- recall --------------------------------------------------------------------------
    def vector_candidates(self, namespace: str, vector: np.ndarray, limit: int,
                          flt: MemoryFilter, now_iso: str) -> list[str]:
        if limit <= 0:
            return []
        first = self._first_fetch(max(limit * self.vector_overfetch, self.vector_min_fetch, 1), flt)
        return self._vector_from(namespace, vector, limit, flt, now_iso, first)

    def _first_fetch(self, fetch: int, flt: MemoryFilter | None) -> int:
        """A recall arm's first fetch: wider under an ``as_of`` filter, which the indexes cannot
        take and which usually keeps a minority of a namespace (``neo4j_as_of_overfetch``)."""
        return fetch * self.as_of_overfetch if flt is not None and flt.as_of is not None else fetch

    def _vector_from(self, namespace: str, vector: np.ndarray, limit: int, flt: MemoryFilter, now_iso: str,
                     fetch: int) -> list[str]:
        """The vector arm's loop from a first fetch of ``fetch`` hits, x4 while too few pass."""
        params = {"namespace": namespace, "vector": np.asarray(vector, dtype=np.float32).tolist(),
                  **filter_params(flt, now_iso)}
        ranged = {**params, **index_ranges(params)}
        while True:     # one round trip: the namespace's size comes with the index search
            row = self._read("vector_search", **ranged, fetch=fetch)[0]
            if row["size"] <= fetch:
                path, ids = "scan", [r["id"] for r in self._read("vector_scan", **params, limit=int(limit))]
                break
            hits = row["hits"]
            if len(hits) >= limit or row["fetched"] < fetch:
                hits.sort(key=lambda h: (-h[1], h[0]))
                path, ids = "index", [h[0] for h in hits[:limit]]
                break
            fetch *= 4
        self.vector_paths[path] += 1
        return ids

    def recall(self, namespace: str, vector: np.ndarray | None, vector_limit: int, terms: list[str],
               lookup: Callable[[TermStats], list[str]], lexical_limit: int, flt: MemoryFilter,
               now_iso: str) -> RecallHits:
        """Two round trips, one per dependent step: the statistics with the vector arm and its
        memories (recall_vector.cypher), then the full-text arm over ``lookup(stats)`` with the
        memories not yet read (recall_lexical.cypher). A step the one-shot query cannot settle
        (a namespace small enough to scan, too few hits passing a filter, a cut full-text request)
        falls back to the loops of ``vector_candidates`` / ``lexical_candidates``."""
        params = filter_params(flt, now_iso)
        wants_vector = vector is not None and vector_limit > 0
        fetch = (self._first_fetch(max(vector_limit * self.vector_overfetch, self.vector_min_fetch, 1), flt)
                 if wants_vector else 0)
        unique = list(dict.fromkeys(terms))
        row = self._read("recall_vector", namespace=namespace, terms=unique, fetch=int(fetch),
                         limit=int(max(vector_limit, 0)), **params, **index_ranges(params),
                         vector=(np.asarray(vector, dtype=np.float32).tolist() if wants_vector else []))[0]
        stats = TermStats(n_docs=row["n_docs"], total_length=row["total_length"],
                          df={term: df for term, df in row["df"]})
        memories = to_memories(row["memories"])
        vector_ids: list[str] = list(row["ids"])
        if wants_vector:
            if row["n_docs"] > fetch and (row["passed"] >= vector_limit or row["fetched"] < fetch):
                self.vector_paths["index"] += 1
            else:                        # small enough to scan, or too few passed: the general loop,
                assert vector is not None  # from a wider fetch than the one that came back short
                vector_ids = self._vector_from(namespace, vector, vector_limit, flt, now_iso,
                                               fetch if row["n_docs"] <= fetch else fetch * 4)
        searched = lookup(stats) if unique else []
        lexical_ids: list[str] = []
        queries = lucene_queries(namespace, searched)
        if queries and lexical_limit > 0:
            lex_fetch = lexical_limit if flt.is_empty() else self._first_fetch(
                max(lexical_limit * self.vector_overfetch, self.vector_min_fetch), flt)
            lex = self._read("recall_lexical", namespace=namespace, queries=queries, fetch=int(lex_fetch),
                             limit=int(lexical_limit), known=sorted(memories), **params)[0]
            memories.update(to_memories(lex["memories"]))
            lexical_ids = list(lex["ids"])
            exhausted = lex["fetched"] < lex_fetch or (len(queries) == 1 and len(lexical_ids) >= lexical_limit)
            if not exhausted:            # the general loop, from a wider fetch than the one cut short
                lexical_ids = self._lexical(namespace, [searched], lexical_limit, flt, now_iso, None,
                                            first_fetch=int(lex_fetch) * 4)[0]
        missing = [i for i in dict.fromkeys([*vector_ids, *lexical_ids]) if i not in memories]
        if missing:                      # only after a fallback: the ids it found beyond the first reads
            found = self._read("memories_get", namespace=namespace, ids=missing)[0]["memories"]
            memories.update(to_memories(found))
        return RecallHits(stats, vector_ids, lexical_ids, memories)

    def lexical_candidates(self, namespace: str, terms: list[str], limit: int,
                           flt: MemoryFilter | None, now_iso: str, exclude_id: str | None = None) -> list[str]:
        return self._lexical(namespace, [terms], limit, flt, now_iso, exclude_id)[0]

    def term_holders(self, namespace: str, terms: list[str], limit: int) -> TermHolders:
        queries = [{"term": t, "query": lucene_queries(namespace, [t])[0]}
                   for t in dict.fromkeys(terms) if t.strip()]
        out: dict[str, list[tuple[str, str]]] = {t: [] for t in dict.fromkeys(terms)}
        if queries and limit > 0:
            for r in self._read("term_holders", queries=queries, limit=int(limit)):
                out[r["term"]] = [(created_at, id_) for created_at, id_ in r["holders"]]
        return TermHolders.from_lists(out)

    def _lexical(self, namespace: str, term_lists: list[list[str]], limit: int, flt: MemoryFilter | None,
                 now_iso: str, exclude_id: str | None, first_fetch: int | None = None) -> list[list[str]]:
        """Asks the index for the ``limit`` best hits of the namespace (+1 for an excluded id);
        with a filter, ``vector_overfetch`` x that (at least ``vector_min_fetch``), x4 per
        retry for a request that came back short while the index had more. ``first_fetch``
        starts wider (a caller whose own first request came back short)."""
        requests = [lucene_queries(namespace, terms) for terms in term_lists]
        out: list[list[str]] = [[] for _ in term_lists]
        todo = [i for i, queries in enumerate(requests) if queries]
        if limit <= 0:
            return out
        fetch = limit + (1 if exclude_id else 0)
        if flt is not None and not flt.is_empty():
            fetch = self._first_fetch(max(fetch * self.vector_overfetch, self.vector_min_fetch), flt)
        fetch = max(fetch, first_fetch or 0)
        params = {"namespace": namespace, "limit": int(limit), "exclude_id": exclude_id or "",
                  **filter_params(flt, now_iso)}
        while todo:
            rows = self._read("lexical_search", requests=[requests[i] for i in todo], fetch=int(fetch), **params)
            short = []
            for r in rows:
                i = todo[r["request"]]
                out[i] = r["ids"]
                # a chunked request is exact only once no chunk was cut at ``fetch``
                exhausted = r["fetched"] < fetch or (len(requests[i]) == 1 and len(r["ids"]) >= limit)
                if not exhausted:
                    short.append(i)
            todo, fetch = short, fetch * 4
        return out

    def term_stats(self, namespace: str, terms: list[str]) -> TermStats:
        row = self._read("term_stats", namespace=namespace, terms=list(dict.fromkeys(terms)))[0]
        return TermStats(n_docs=row["n_docs"], total_length=row["total_length"],
                         df={term: df for term, df in row["df"]})


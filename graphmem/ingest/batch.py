"""Batch ingest: link a batch of new memories as if they were saved one at a time.

``BatchView`` answers the reads that linking makes (the candidate indexes, term and tag
counts, memories, edges) from what the store held before the batch, fetched for the whole
batch in a handful of calls, plus the memories and edge changes planned so far in the batch.
``Ingestor._link`` runs unchanged against it, so degree caps, eviction and edge reasons are
those of one-at-a-time ingest, and the batch is then written in one transaction.

Exact by construction for the ordered lookups (tag and category members, newest first),
term and tag counts, memories and edges. Lexical candidates are the one approximation: the
store's list (ranked by its own index relevance, before the batch) followed by the batch's
earlier memories that share a term, cut at ``edges.candidates_lexical``. Below that limit the
set is the one a single insert sees (candidates are a set: linking sorts them by id).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

from graphmem.config import EdgeSettings
from graphmem.model import LINK_TYPES, Edge, Memory, MemoryFilter, TermStats, is_topic_label
from graphmem.stores.base import MemoryStore

RareTerms = Callable[[Memory, "BatchView"], list[str]]


def link_labels(mem: Memory, cfg: EdgeSettings) -> list[str]:
    """The labels linking may read for ``mem``: its tags, and its topics' labels when topics link
    (``topic_tag_weight`` > 0; otherwise their index entries are never read at ingest)."""
    return mem.index_labels if cfg.topic_tag_weight > 0 else list(mem.tags)


def _newest_first(memories: list[Memory], exclude_id: str | None, limit: int) -> list[str]:
    ordered = sorted(memories, key=lambda m: (m.created_at, m.id), reverse=True)
    return [m.id for m in ordered if m.id != exclude_id][:limit]


class BatchView:
    """The store as linking sees it midway through a batch of one namespace."""

    def __init__(self, store: MemoryStore, namespace: str, cfg: EdgeSettings):
        self.store, self.namespace, self.cfg = store, namespace, cfg
        self.pending: list[Memory] = []
        self.pending_df: Counter[str] = Counter()
        self.pending_tags: Counter[str] = Counter()
        self.pending_topics: dict[str, set[str]] = {}       # id -> topic labels (read per tag lookup)
        self.stored: dict[str, Memory] = {}
        self.stats = TermStats(n_docs=0, total_length=0, df={})
        self.tag_lists: dict[str, list[str]] = {}
        self.category_lists: dict[str, list[str]] = {}
        self.lexical: dict[tuple[str, ...], list[str]] = {}
        self.stored_tag_counts: dict[str, int] = {}
        self.stored_edges: set[tuple[str, str, str]] = set()
        self.edges: dict[tuple[str, str, str], Edge] = {}
        self.by_node: dict[str, set[tuple[str, str, str]]] = defaultdict(set)

    # -- loading the store's side, once per batch ---------------------------------------
    def prefetch(self, memories: list[Memory], rare_terms: RareTerms) -> None:
        ns, cfg, store = self.namespace, self.cfg, self.store
        self.stats = store.term_stats(ns, sorted({t for m in memories for t in m.term_counts}))
        queries: list[list[str]] = []
        for mem in memories:        # the rarest terms as each insert will see them
            queries.append(rare_terms(mem, self))
            self.pending_df.update(mem.term_counts.keys())
        self.pending_df.clear()
        unique = list(dict.fromkeys(tuple(q) for q in queries))
        found = store.lexical_candidates_many(ns, [list(q) for q in unique], cfg.candidates_lexical)
        self.lexical = dict(zip(unique, found, strict=True))
        tags = sorted({t for m in memories for t in link_labels(m, cfg)})
        self.tag_lists = store.tag_members_many(ns, tags, cfg.candidates_per_tag)
        self.category_lists = store.category_members_many(
            ns, sorted({m.category for m in memories if m.category}), cfg.candidates_per_category)
        self.stored_tag_counts = store.tag_counts(ns, tags)
        ids = {i for lists in (self.tag_lists, self.category_lists) for found_ids in lists.values()
               for i in found_ids} | {i for found_ids in self.lexical.values() for i in found_ids}
        self.stored = store.get_memories(ns, sorted(ids))
        for edge in store.edges_of(ns, sorted(self.stored), types=list(LINK_TYPES), with_reasons=False):
            self.stored_edges.add(edge.key)
            self._put(edge)

    # -- the reads linking makes -----------------------------------------------------------
    def term_stats(self, namespace: str, terms: list[str]) -> TermStats:
        df = {t: self.stats.df.get(t, 0) + self.pending_df[t] for t in terms}
        return TermStats(n_docs=self.stats.n_docs + len(self.pending), total_length=self.stats.total_length
                         + sum(m.doc_length for m in self.pending), df={t: n for t, n in df.items() if n})

    def tag_members(self, namespace: str, tag: str, limit: int, exclude_id: str | None = None) -> list[str]:
        held = [self.stored[i] for i in self.tag_lists.get(tag, []) if i in self.stored]
        topical = is_topic_label(tag)
        carriers = [m for m in self.pending if (tag in self.pending_topics[m.id] if topical else tag in m.tags)]
        return _newest_first(held + carriers, exclude_id, limit)

    def category_members(self, namespace: str, category: str, limit: int,
                         exclude_id: str | None = None) -> list[str]:
        held = [self.stored[i] for i in self.category_lists.get(category, []) if i in self.stored]
        return _newest_first(held + [m for m in self.pending if m.category == category], exclude_id, limit)

    def lexical_candidates(self, namespace: str, terms: list[str], limit: int, flt: MemoryFilter | None,
                           now_iso: str, exclude_id: str | None = None) -> list[str]:
        if not terms or limit <= 0:
            return []
        wanted = set(terms)
        held = [i for i in self.lexical.get(tuple(terms), []) if i != exclude_id]
        recent = [m.id for m in reversed(self.pending) if m.id != exclude_id and wanted & m.term_counts.keys()]
        return (held + recent)[:limit]

    def get_memories(self, namespace: str, ids: list[str]) -> dict[str, Memory]:
        batch = {m.id: m for m in self.pending}
        return {i: batch.get(i) or self.stored[i] for i in dict.fromkeys(ids) if i in batch or i in self.stored}

    def tag_counts(self, namespace: str, tags: list[str]) -> dict[str, int]:
        return {t: self.stored_tag_counts.get(t, 0) + self.pending_tags[t] for t in dict.fromkeys(tags)}

    def edges_of(self, namespace: str, ids: list[str], types: list[str] | None = None,
                 with_reasons: bool = True) -> list[Edge]:
        keys = {k for i in ids for k in self.by_node.get(i, ())}   # order is free: linking groups by node
        return [self.edges[k] for k in keys if types is None or k[2] in types]

    # -- planned writes ----------------------------------------------------------------------
    def add(self, mem: Memory, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        """``mem`` is saved with these edge changes, as far as the rest of the batch can see."""
        self.pending.append(mem)
        self.pending_df.update(mem.term_counts.keys())
        self.pending_topics[mem.id] = set(mem.topic_labels)
        self.pending_tags.update(set(mem.tags) | self.pending_topics[mem.id])
        for edge in remove_edges:
            self._drop(edge.key)
        for edge in add_edges:
            self._put(edge)

    def _put(self, edge: Edge) -> None:
        self.edges[edge.key] = edge
        self.by_node[edge.a].add(edge.key)
        self.by_node[edge.b].add(edge.key)

    def _drop(self, key: tuple[str, str, str]) -> None:
        if self.edges.pop(key, None) is not None:
            self.by_node[key[0]].discard(key)
            self.by_node[key[1]].discard(key)

    def net_edges(self) -> tuple[list[Edge], list[Edge]]:
        """(edges to write, stored edges to delete) after the whole batch."""
        added = [e for k, e in sorted(self.edges.items()) if k not in self.stored_edges]
        gone = sorted(self.stored_edges - set(self.edges))
        removed = [Edge(self.namespace, a, b, edge_type, 0.0, {}) for a, b, edge_type in gone]
        return added, removed

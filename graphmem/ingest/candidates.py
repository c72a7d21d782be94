"""Link candidates for a batch of new memories, from a handful of store reads.

A memory's candidates come from the tag (and topic) index, the category index and the
lexical index, exactly as one insert after another would find them: candidates depend only
on what the store held before the batch and on the batch's earlier memories, never on edges,
so the whole batch's are computed up front from one term-count read, one label-count read,
one tag and one category read, one full-text read (``term_holders``) and one memory read.
Every read is bounded: its cost does not grow with the store.

- Tag, topic and category members: newest first (created_at, id), ``candidates_per_tag`` /
  ``candidates_per_category`` each; the stored list is merged with the batch's earlier carriers.
- Lexical: the memory's rarest terms (``text.rarest_terms`` under ``edges.lexical_*``, the df
  it would see); each term's newest ``edges.lexical_holders_per_term`` holders (created_at, id:
  the store's index answers that per term without reading every posting); then, among those,
  the memories holding the most of its terms, ties newest first, at most ``candidates_lexical``
  (a rule with no corpus-wide statistic in it, so a batch ranks as a sequence of inserts does:
  a term's newest holders are cut from the stored ones and the batch's earlier ones together;
  counted over arrays). Both stores answer ``term_holders`` under the same order.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass

import numpy as np

from graphmem.config import EdgeSettings
from graphmem.model import Memory
from graphmem.stores.base import MemoryStore, TermHolders
from graphmem.text import rarest_terms


@dataclass
class LinkInput:
    """What linking needs of one memory: the labels it links by, their counts as its insert
    sees them (itself counted once), and its candidates (sorted by id)."""
    mem: Memory
    labels: list[str]
    tag_df: dict[str, int]
    candidates: list[Memory]


def link_labels(mem: Memory, cfg: EdgeSettings) -> list[str]:
    """The labels linking may read for ``mem``: its tags, and its topics' labels when topics link
    (``topic_tag_weight`` > 0; otherwise their index entries are never read at ingest)."""
    return mem.index_labels if cfg.topic_tag_weight > 0 else list(mem.tags)


def link_topics(mem: Memory, tag_df: dict[str, int], n_docs: int, cfg: EdgeSettings) -> list[str]:
    """The topic labels ``mem`` links by: those other memories hold, skipping any held by more
    than ``edges.topic_max_df_ratio`` of the namespace (``text.rarest_terms``, the rule lexical
    lookups use; each topic's candidates are capped at ``candidates_per_tag`` already)."""
    topics = mem.topic_labels
    if not topics or cfg.topic_tag_weight <= 0:
        return []
    others = {t: tag_df[t] - 1 for t in topics}
    return rarest_terms(topics, others, n_docs, max_terms=len(topics), max_df_ratio=cfg.topic_max_df_ratio,
                        max_postings=sys.maxsize)


def _newest_first(memories: list[Memory], limit: int) -> list[Memory]:
    return sorted(memories, key=lambda m: (m.created_at, m.id), reverse=True)[:limit]


class LexicalRanker:
    """Each term's holders as index arrays over one universe: the stored holders (``TermHolders``'
    keys, oldest first), then the batch in batch order, so a memory's lexical candidates are a few
    array cuts, a bincount and a partial sort, and only the winners are turned back into ids."""

    def __init__(self, holders: TermHolders, batch: list[Memory], exclude: set[str], per_term: int):
        stored_keys = holders.keys
        n = len(stored_keys)
        batch_keys = [(m.created_at, m.id) for m in batch]
        self.ids = [i for _, i in stored_keys] + [m.id for m in batch]
        self.per_term = per_term
        if not n or min(batch_keys, default=stored_keys[-1]) > stored_keys[-1]:     # the batch is newest
            order = sorted(range(len(batch)), key=batch_keys.__getitem__)
            self.recency = np.arange(n + len(batch), dtype=np.int64)
            self.recency[n + np.array(order, dtype=np.int64)] = np.arange(n, n + len(batch))
        else:                                       # an older memory in the batch (a re-link, an import)
            every = stored_keys + batch_keys
            self.recency = np.empty(len(every), dtype=np.int64)
            self.recency[sorted(range(len(every)), key=every.__getitem__)] = np.arange(len(every))
        dropped = np.array([k for k, (_, i) in enumerate(stored_keys) if i in exclude], dtype=np.int64)
        self.stored = {t: found[~np.isin(found, dropped)] if dropped.size else found
                       for t, found in holders.positions.items()}
        at: dict[str, list[int]] = {t: [] for t in holders.positions}
        for j, mem in enumerate(batch):
            for t in at.keys() & mem.term_counts.keys():
                at[t].append(n + j)
        self.batch = {t: np.array(found, dtype=np.int64) for t, found in at.items()}    # in batch order
        self.first = n                   # batch ids come last in the universe

    def _newest(self, held: np.ndarray) -> np.ndarray:
        """A term's ``per_term`` newest holders of ``held``."""
        if held.size <= self.per_term:
            return held
        return held[np.argpartition(-self.recency[held], self.per_term - 1)[:self.per_term]]

    def top(self, position: int, terms: list[str], limit: int) -> list[str]:
        """The ``limit`` memories (stored, or earlier in the batch than ``position``) holding the
        most of ``terms`` among each term's newest holders, ties newest first."""
        if not terms or limit <= 0 or self.per_term <= 0:
            return []
        cut = self.first + position          # batch ids are numbered in batch order: earlier ones below
        parts = [self._newest(np.concatenate([self.stored[t], found[:np.searchsorted(found, cut)]]))
                 for found, t in ((self.batch[t], t) for t in terms)]
        held = np.concatenate(parts)
        if not held.size:
            return []
        counts = np.bincount(held, minlength=len(self.ids))
        found = np.flatnonzero(counts)
        key = counts[found] * len(self.ids) + self.recency[found]     # more terms first, then newer
        if found.size > limit:
            pick = np.argpartition(-key, limit - 1)[:limit]
            found, key = found[pick], key[pick]
        return [self.ids[k] for k in found[np.argsort(-key)]]


def gather(store: MemoryStore, namespace: str, memories: list[Memory], cfg: EdgeSettings,
           stored_labels: dict[str, list[str]] | None = None) -> list[LinkInput]:
    """Each memory's ``LinkInput``, as if the memories were saved one at a time in this order.
    ``stored_labels``: for a memory already stored (a re-link), the labels it holds there, which
    the stored counts include already (it is left out of its own candidates)."""
    stored_labels = stored_labels or {}
    stats = store.term_stats(namespace, sorted({t for m in memories for t in m.term_counts}))
    label_set = sorted({t for m in memories for t in link_labels(m, cfg)})
    stored_counts = store.tag_counts(namespace, label_set)
    pending_df: Counter[str] = Counter()
    pending_tags: Counter[str] = Counter()
    plans: list[tuple[list[str], dict[str, int], list[str]]] = []
    for k, mem in enumerate(memories):          # what each insert sees of counts: the store plus earlier ones
        n_docs = stats.n_docs + k
        df = {t: stats.df.get(t, 0) + pending_df[t] for t in mem.term_counts}
        terms = rarest_terms(mem.term_counts, df, n_docs, max_terms=cfg.lexical_lookup_terms,
                             max_df_ratio=cfg.lexical_max_df_ratio, max_postings=cfg.lexical_max_postings)
        held = set(stored_labels.get(mem.id, ()))
        tag_df = {t: stored_counts.get(t, 0) + pending_tags[t] + (t not in held) for t in link_labels(mem, cfg)}
        plans.append(([*mem.tags, *link_topics(mem, tag_df, n_docs, cfg)], tag_df, terms))
        pending_df.update(mem.term_counts.keys())
        pending_tags.update(set(mem.tags) | set(mem.topic_labels))
    batch_ids = {m.id for m in memories}
    extra = len(batch_ids & set(stored_labels))       # a re-linked memory may be in its own lists
    tag_lists = store.tag_members_many(namespace, sorted({t for labels, _, _ in plans for t in labels}),
                                       cfg.candidates_per_tag + extra)
    category_lists = store.category_members_many(
        namespace, sorted({m.category for m in memories if m.category}), cfg.candidates_per_category + extra)
    holders = store.term_holders(namespace, sorted({t for _, _, terms in plans for t in terms}),
                                 cfg.lexical_holders_per_term + extra)
    ranker = LexicalRanker(holders, memories, batch_ids, cfg.lexical_holders_per_term)
    lexical = [ranker.top(k, terms, cfg.candidates_lexical) for k, (_, _, terms) in enumerate(plans)]
    wanted = {i for lists in (tag_lists, category_lists) for ids in lists.values() for i in ids}
    wanted |= {i for ids in lexical for i in ids}
    stored = store.get_memories(namespace, sorted(wanted - batch_ids))
    return _assemble(memories, plans, tag_lists, category_lists, lexical, stored, cfg)


def _assemble(memories: list[Memory], plans: list[tuple[list[str], dict[str, int], list[str]]],
              tag_lists: dict[str, list[str]], category_lists: dict[str, list[str]], lexical: list[list[str]],
              stored: dict[str, Memory], cfg: EdgeSettings) -> list[LinkInput]:
    """Each memory's candidates: stored list members merged with the batch's earlier carriers."""
    carriers: dict[str, list[Memory]] = {}
    in_category: dict[str, list[Memory]] = {}
    earlier: dict[str, Memory] = {}
    out = []
    for mem, (labels, tag_df, _), lexical_ids in zip(memories, plans, lexical, strict=True):
        found: dict[str, Memory] = {}
        for label in labels:
            held = [stored[i] for i in tag_lists.get(label, []) if i in stored]
            found.update((m.id, m) for m in _newest_first(held + carriers.get(label, []), cfg.candidates_per_tag))
        if mem.category:
            held = [stored[i] for i in category_lists.get(mem.category, []) if i in stored]
            found.update((m.id, m) for m in _newest_first(held + in_category.get(mem.category, []),
                                                           cfg.candidates_per_category))
        found.update((i, stored.get(i) or earlier[i]) for i in lexical_ids)
        found.pop(mem.id, None)
        out.append(LinkInput(mem, labels, tag_df, [found[i] for i in sorted(found)]))
        earlier[mem.id] = mem
        for label in {*mem.tags, *mem.topic_labels}:
            carriers.setdefault(label, []).append(mem)
        if mem.category:
            in_category.setdefault(mem.category, []).append(mem)
    return out

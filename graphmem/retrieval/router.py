"""Router: explicit filters prune; query words that name a known tag, category or extracted
topic boost.

Two stages: ``RouterStage`` (its own trace row, first) finds what the query names in the store;
``RouterBoostStage`` (in the recall row, once recall found candidates) multiplies each by its bonus."""

from __future__ import annotations

from typing import ClassVar

from graphmem.contract.responses import RouterWhy
from graphmem.model import TOPIC_LABEL_PREFIX, topic_label
from graphmem.retrieval.stage import Named, Search, Stage
from graphmem.retrieval.trace import StageRow
from graphmem.text import normalize_tag, tokenize


def label_candidates(query: str) -> list[str]:
    """Phrases of the query that could name a tag or category: words, word pairs, the whole query."""
    words = [w for w in normalize_tag(query).replace("?", " ").replace(",", " ").split() if w]
    terms = set(words) | {" ".join(p) for p in zip(words, words[1:], strict=False)}
    terms |= {"-".join(p) for p in zip(words, words[1:], strict=False)} | set(tokenize(query))
    terms.add(normalize_tag(query))
    return sorted(t for t in terms if len(t) >= 3)


def topic_candidates(query: str) -> list[str]:
    """The topic labels the query's phrases could name (topic keys are graphmem's own terms)."""
    keys = {" ".join(tokenize(phrase)) for phrase in label_candidates(query)}
    return sorted(topic_label(k) for k in keys if k)


def router_bonus(tags: list[str], category: str | None, named_tags: set[str],
                 named_categories: set[str], boost: float, topic_labels: list[str] | tuple = (),
                 named_topics: set[str] | frozenset = frozenset(),
                 topic_boost: float = 0.0) -> tuple[float, RouterWhy | None]:
    """Multiplier 1 + boost * (named tags carried + 1 if the category is named)
    + topic_boost * (named extracted topics carried)."""
    hit_tags = sorted(set(tags) & named_tags)
    hit_category = category if category in named_categories else None
    hit_topics = sorted(t[len(TOPIC_LABEL_PREFIX):] for t in set(topic_labels) & named_topics)
    hits = len(hit_tags) + (1 if hit_category else 0)
    if not hits and not hit_topics:
        return 1.0, None
    bonus = boost * hits + topic_boost * len(hit_topics)
    why = {"tags": hit_tags, "category": hit_category, "boost": round(bonus, 6)}
    if hit_topics:
        why["topics"] = hit_topics
    return 1.0 + bonus, RouterWhy.model_validate(why)


class RouterStage(Stage):
    """The tags, categories and extracted topics the query names (they earn ``router_boost``,
    topics ``router_topic_boost``): one store call for their counts."""

    name: ClassVar[str] = "router"

    def enabled(self, search: Search) -> bool:
        return search.cfg.stage("router")

    def run(self, search: Search, row: StageRow) -> None:
        q = search.query
        labels = label_candidates(q.text)
        topics = topic_candidates(q.text) if q.cfg.router_topic_boost > 0 else []
        counts, cat_counts = search.store.label_counts(q.ns, labels + topics, labels)
        search.named = Named(tags={t for t in labels if counts.get(t)},
                             categories={c for c, n in cat_counts.items() if n},
                             topics={t for t in topics if counts.get(t)})
        self.skip(search, row)
        if search.named.topics:
            row.counts(0, 0, named_topics=sorted(search.named.topics))

    def skip(self, search: Search, row: StageRow) -> None:
        row.counts(0, 0, filters=not search.query.flt.is_empty(), named_tags=sorted(search.named.tags),
                   named_categories=sorted(search.named.categories))


class RouterBoostStage(Stage):
    """Each recalled candidate's score times its router bonus; its ``why.router`` says what it matched."""

    name: ClassVar[str] = "router_boost"

    def enabled(self, search: Search) -> bool:
        named = search.named
        return bool(search.cands) and bool(named.tags or named.categories or named.topics)

    def run(self, search: Search, row: StageRow) -> None:
        cfg, named = search.cfg, search.named
        for cand in search.cands.values():
            mem = cand.memory
            boost, why = router_bonus(mem.tags, mem.category, named.tags, named.categories, cfg.router_boost,
                                      mem.topic_labels, named.topics, cfg.router_topic_boost)
            cand.score *= boost
            cand.router = why

"""Router: explicit filters prune; query words that name a known tag, category or extracted
topic boost."""

from __future__ import annotations

from graphmem.model import TOPIC_LABEL_PREFIX, topic_label
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
                 topic_boost: float = 0.0) -> tuple[float, dict | None]:
    """Multiplier 1 + boost * (named tags carried + 1 if the category is named)
    + topic_boost * (named extracted topics carried)."""
    hit_tags = sorted(set(tags) & named_tags)
    hit_category = category if category in named_categories else None
    hit_topics = sorted(t[len(TOPIC_LABEL_PREFIX):] for t in set(topic_labels) & named_topics)
    hits = len(hit_tags) + (1 if hit_category else 0)
    if not hits and not hit_topics:
        return 1.0, None
    bonus = boost * hits + topic_boost * len(hit_topics)
    why: dict = {"tags": hit_tags, "category": hit_category, "boost": round(bonus, 6)}
    if hit_topics:
        why["topics"] = hit_topics
    return 1.0 + bonus, why

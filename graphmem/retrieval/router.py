"""Router: explicit filters prune; query words that name a known tag or category boost."""

from __future__ import annotations

from graphmem.text import normalize_tag, tokenize


def label_candidates(query: str) -> list[str]:
    """Phrases of the query that could name a tag or category: words, word pairs, the whole query."""
    words = [w for w in normalize_tag(query).replace("?", " ").replace(",", " ").split() if w]
    terms = set(words) | {" ".join(p) for p in zip(words, words[1:], strict=False)}
    terms |= {"-".join(p) for p in zip(words, words[1:], strict=False)} | set(tokenize(query))
    terms.add(normalize_tag(query))
    return sorted(t for t in terms if len(t) >= 3)


def router_bonus(tags: list[str], category: str | None, named_tags: set[str],
                 named_categories: set[str], boost: float) -> tuple[float, dict | None]:
    """Multiplier 1 + boost * (named tags carried + 1 if the category is named)."""
    hit_tags = sorted(set(tags) & named_tags)
    hit_category = category if category in named_categories else None
    hits = len(hit_tags) + (1 if hit_category else 0)
    if not hits:
        return 1.0, None
    return 1.0 + boost * hits, {"tags": hit_tags, "category": hit_category, "boost": round(boost * hits, 6)}

"""Edge computation with bounded degree: pure functions, no store access.

Given a memory, its index-found candidates and the candidates' current edges, decide
which edges to add and which to evict so that no memory ever holds more than K edges
of one type. The strongest edges win; ties break on ids so both stores agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from graphmem.config import EdgeSettings
from graphmem.ingest.degrees import DegreeBook
from graphmem.model import LINK_TYPES, TOPIC_LABEL_PREFIX, Edge, Memory, is_topic_label, topic_label
from graphmem.similarity import cosine


@dataclass
class EdgePlan:
    add: list[Edge] = field(default_factory=list)
    remove: list[Edge] = field(default_factory=list)


def tag_rarity(df: int) -> float:
    """Rarer tags count more: 1 for a tag only this pair has, ~0.33 at 100 holders."""
    return 1.0 / (1.0 + math.log10(max(df, 1)))


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    return 0.0 if a is None or b is None else cosine(a, b)


def label_rarity(label: str, df: int, cfg: EdgeSettings) -> float:
    """A shared label's part of SHARES_TAG: its tag rarity, times ``topic_tag_weight`` for a topic."""
    return tag_rarity(df) * (cfg.topic_tag_weight if is_topic_label(label) else 1.0)


def shares_tag_weight(shared: list[str], tag_df: dict[str, int], cfg: EdgeSettings) -> tuple[float, float] | None:
    """(weight, summed rarity) of a SHARES_TAG edge over ``shared`` labels (tags and topic labels);
    None below the floor."""
    rarity = sum(label_rarity(t, tag_df.get(t, 1), cfg) for t in shared)
    weight = shares_tag_strength(rarity, cfg) if shared else None
    return None if weight is None else (weight, rarity)


def shares_tag_strength(rarity: float, cfg: EdgeSettings) -> float | None:
    """The SHARES_TAG weight for a summed label rarity: full at ``tag_full_strength``, none at or
    below ``min_shared_tag_rarity``."""
    if rarity <= cfg.min_shared_tag_rarity:
        return None
    return cfg.shares_tag_weight * min(1.0, rarity / cfg.tag_full_strength)


def same_category_weight(similarity: float, cfg: EdgeSettings) -> float:
    mix = cfg.category_similarity_mix
    return cfg.same_category_weight * (1.0 - mix + mix * similarity)


def overlaps_weight(shared_terms: int, cfg: EdgeSettings) -> float | None:
    if shared_terms < cfg.min_shared_terms:
        return None
    return cfg.overlaps_weight * min(1.0, shared_terms / cfg.overlap_full_terms)


def shares_tag_reason(shared: list[str], rarity: float) -> dict:
    """The caller's tags and the topics (keys) two memories share, apart."""
    reason: dict = {"tags": [t for t in shared if not is_topic_label(t)], "rarity": round(rarity, 4)}
    topics = [t[len(TOPIC_LABEL_PREFIX):] for t in shared if is_topic_label(t)]
    if topics:         # kind: edge precision is reported per reason kind (eval/metrics.edge_key)
        reason.update(topics=topics, kind="tags+topics" if reason["tags"] else "topics")
    return reason


def reason_labels(reason: dict) -> list[str]:
    """The labels a SHARES_TAG reason names (its tags and its topics' labels)."""
    return [*reason.get("tags", []), *(topic_label(k) for k in reason.get("topics", []))]


def shared_labels(tags: set[str], topics: set[str], other: Memory) -> set[str]:
    """The caller tags and topic labels ``other`` shares with ``tags`` / ``topics`` (``other``'s
    topic labels are only built when there are topics to compare: most links are by tags)."""
    shared = tags.intersection(other.tags)
    return shared | topics.intersection(other.topic_labels) if topics else shared


def _split(labels: list[str]) -> tuple[set[str], set[str]]:
    topics = {t for t in labels if is_topic_label(t)}
    return set(labels) - topics, topics


def shares_tag_edge(mem: Memory, other: Memory, tag_df: dict[str, int], cfg: EdgeSettings,
                    labels: list[str]) -> Edge | None:
    shared = sorted(shared_labels(*_split(labels), other))
    found = shares_tag_weight(shared, tag_df, cfg)
    if found is None:
        return None
    return Edge.make(mem.namespace, mem.id, other.id, "SHARES_TAG", found[0], shares_tag_reason(shared, found[1]))


def same_category_edge(mem: Memory, other: Memory, cfg: EdgeSettings) -> Edge | None:
    if not mem.category or mem.category != other.category:
        return None
    similarity = max(0.0, _cosine(mem.embedding, other.embedding))
    return Edge.make(mem.namespace, mem.id, other.id, "SAME_CATEGORY", same_category_weight(similarity, cfg),
                     {"category": mem.category, "similarity": round(similarity, 4)})


def overlaps_edge(mem: Memory, other: Memory, cfg: EdgeSettings) -> Edge | None:
    shared = sorted(set(mem.term_counts) & set(other.term_counts))
    weight = overlaps_weight(len(shared), cfg)
    if weight is None:
        return None
    return Edge.make(mem.namespace, mem.id, other.id, "OVERLAPS", weight,
                     {"terms": shared[:12], "shared_terms": len(shared)})


def reweigh(edge: Edge, tag_df: dict[str, int], cfg: EdgeSettings) -> Edge | None:
    """An automatic edge re-weighted from its stored reason under the current rules and tag
    counts (tags grow common, weights get re-configured); None when it no longer qualifies.
    Other edge types are returned unchanged."""
    reason = dict(edge.reason)
    if edge.type == "SHARES_TAG":
        found = shares_tag_weight(reason_labels(reason), tag_df, cfg)
        if found is None:
            return None
        weight, reason = found[0], shares_tag_reason(sorted(reason_labels(reason)), found[1])
    elif edge.type == "SAME_CATEGORY":
        weight = same_category_weight(float(reason.get("similarity", 0.0)), cfg)
    elif edge.type == "OVERLAPS":
        found_weight = overlaps_weight(int(reason.get("shared_terms", len(reason.get("terms", [])))), cfg)
        if found_weight is None:
            return None
        weight = found_weight
    else:
        return edge
    return Edge.make(edge.namespace, edge.a, edge.b, edge.type, weight, reason)


def _winners(mem: Memory, others: list[Memory], tag_df: dict[str, int], cfg: EdgeSettings,
             labels: list[str]) -> dict[str, list[Memory]]:
    """Each type's ``K`` strongest qualifying candidates, strongest first, scored over arrays
    without building edges or reasons (most candidates lose). The order is the edges' own
    (``strength_key``: the weight ``Edge.make`` rounds to, then the endpoint ids: with one end
    fixed, the other's id; ``others`` come sorted by id, so their position breaks ties)."""
    tags, topics = _split(labels)
    ordered = [*tags, *topics]
    rarity = np.array([label_rarity(t, tag_df.get(t, 1), cfg) for t in ordered], dtype=np.float64)
    n = len(others)
    weights: dict[str, np.ndarray] = {}
    if ordered:
        held = np.zeros((n, len(ordered)), dtype=np.float64)
        for col, t in enumerate(tags):
            held[:, col] = [t in o.tags for o in others]
        for col, t in enumerate(topics, start=len(tags)):
            held[:, col] = [t in o.topic_labels for o in others]
        summed = held @ rarity
        full = cfg.shares_tag_weight * np.minimum(1.0, summed / cfg.tag_full_strength)
        weights["SHARES_TAG"] = np.where(held.any(axis=1) & (summed > cfg.min_shared_tag_rarity), full, np.nan)
    if mem.category:
        same = np.array([o.category == mem.category for o in others], dtype=bool)
        cos = np.zeros(n)
        with_vectors = [k for k in np.flatnonzero(same) if others[k].embedding is not None]
        if with_vectors and mem.embedding is not None:
            cos[with_vectors] = [_cosine(mem.embedding, others[k].embedding) for k in with_vectors]
        mix = cfg.category_similarity_mix       # same_category_weight, over the array
        weights["SAME_CATEGORY"] = np.where(
            same, cfg.same_category_weight * (1.0 - mix + mix * np.maximum(0.0, cos)), np.nan)
    terms = set(mem.term_counts)
    shared = np.array([len(terms.intersection(o.term_counts)) for o in others], dtype=np.float64)
    weights["OVERLAPS"] = np.where(shared >= cfg.min_shared_terms,
                                   cfg.overlaps_weight * np.minimum(1.0, shared / cfg.overlap_full_terms), np.nan)
    out: dict[str, list[Memory]] = {t: [] for t in LINK_TYPES}
    for edge_type, weight in weights.items():
        k = max(cfg.max_degree(edge_type), 0)
        found = np.flatnonzero(~np.isnan(weight))
        if not k or not found.size:
            continue
        rounded = np.array([round(float(w), 6) for w in weight[found]])
        order = np.lexsort((found, -rounded))[:k]
        out[edge_type] = [others[i] for i in found[order]]
    return out


def propose_edges(mem: Memory, candidates: list[Memory], tag_df: dict[str, int],
                  cfg: EdgeSettings, labels: list[str] | None = None) -> dict[str, list[Edge]]:
    """The strongest ``K`` edges of each type from ``mem`` to its candidates (no caps of others yet).
    Candidates are ranked by weight first and only the ``K`` winners become edges (the same
    edges, in the same order, as building every edge and sorting them). ``labels``: the tags and
    topic labels ``mem`` links by (default: its tags and every topic)."""
    others = sorted((c for c in candidates if c.id != mem.id and c.namespace == mem.namespace), key=lambda c: c.id)
    labels = mem.index_labels if labels is None else labels
    builders = {
        "SHARES_TAG": lambda o: shares_tag_edge(mem, o, tag_df, cfg, labels),
        "SAME_CATEGORY": lambda o: same_category_edge(mem, o, cfg),
        "OVERLAPS": lambda o: overlaps_edge(mem, o, cfg),
    }
    winners = _winners(mem, others, tag_df, cfg, labels) if others else {t: [] for t in LINK_TYPES}
    proposals: dict[str, list[Edge]] = {}
    for edge_type in LINK_TYPES:
        built = [builders[edge_type](o) for o in winners[edge_type]]
        proposals[edge_type] = [e for e in built if e is not None]
    return proposals


def apply_degree_caps(mem_id: str, proposals: dict[str, list[Edge]], existing: dict[str, list[Edge]],
                      cfg: EdgeSettings) -> EdgePlan:
    """Accept each proposed edge if its other end has room, or if it beats that end's weakest
    edge of the type (which is evicted). ``existing`` maps an endpoint id to its current edges;
    the rule is ``degrees.DegreeBook``'s, for one memory."""
    book = DegreeBook(cfg)
    held = {e.key: e for edges in existing.values() for e in edges}
    book.load([(e.a, e.b, e.type, e.weight) for e in held.values()], skip={mem_id})
    book.accept(mem_id, proposals)
    added, removed = book.net("")
    return EdgePlan(add=added, remove=[held[e.key] for e in removed])

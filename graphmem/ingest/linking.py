"""Edge computation with bounded degree: pure functions, no store access.

Given a memory, its index-found candidates and the candidates' current edges, decide
which edges to add and which to evict so that no memory ever holds more than K edges
of one type. The strongest edges win; ties break on ids so both stores agree.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from graphmem.config import EdgeSettings
from graphmem.model import LINK_TYPES, TOPIC_LABEL_PREFIX, Edge, Memory, is_topic_label, strength_key, topic_label


@dataclass
class EdgePlan:
    add: list[Edge] = field(default_factory=list)
    remove: list[Edge] = field(default_factory=list)


def tag_rarity(df: int) -> float:
    """Rarer tags count more: 1 for a tag only this pair has, ~0.33 at 100 holders."""
    return 1.0 / (1.0 + math.log10(max(df, 1)))


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    if a is None or b is None:
        return 0.0
    return float(np.dot(a, b))


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


def _weight_keys(mem: Memory, others: list[Memory], tag_df: dict[str, int], cfg: EdgeSettings,
                 labels: list[str]) -> dict[str, list[tuple[tuple[float, str, str], Memory]]]:
    """Each type's qualifying candidates with the sort key their edge would have (the weight
    ``Edge.make`` rounds to), computed without building edges or reasons: most candidates lose."""
    (tags, topics), terms = _split(labels), set(mem.term_counts)
    rarity = {t: label_rarity(t, tag_df.get(t, 1), cfg) for t in (*tags, *topics)}
    keyed: dict[str, list[tuple[tuple[float, str, str], Memory]]] = {t: [] for t in LINK_TYPES}

    def put(edge_type: str, weight: float, other: Memory) -> None:
        a, b = (mem.id, other.id) if mem.id < other.id else (other.id, mem.id)
        keyed[edge_type].append((strength_key(weight, a, b), other))

    for other in others:
        shared = sorted(shared_labels(tags, topics, other))
        tag_weight = shares_tag_strength(sum(rarity[t] for t in shared), cfg) if shared else None
        if tag_weight is not None:
            put("SHARES_TAG", tag_weight, other)
        if mem.category and mem.category == other.category:
            put("SAME_CATEGORY", same_category_weight(max(0.0, _cosine(mem.embedding, other.embedding)), cfg),
                other)
        weight = overlaps_weight(len(terms.intersection(other.term_counts)), cfg)
        if weight is not None:
            put("OVERLAPS", weight, other)
    return keyed


def propose_edges(mem: Memory, candidates: list[Memory], tag_df: dict[str, int],
                  cfg: EdgeSettings, labels: list[str] | None = None) -> dict[str, list[Edge]]:
    """The strongest ``K`` edges of each type from ``mem`` to its candidates (no caps of others yet).
    Candidates are ranked by weight first and only the ``K`` winners become edges (the same
    edges, in the same order, as building every edge and sorting them). ``labels``: the tags and
    topic labels ``mem`` links by (default: its tags and every topic)."""
    others = [c for c in candidates if c.id != mem.id and c.namespace == mem.namespace]
    labels = mem.index_labels if labels is None else labels
    builders = {
        "SHARES_TAG": lambda o: shares_tag_edge(mem, o, tag_df, cfg, labels),
        "SAME_CATEGORY": lambda o: same_category_edge(mem, o, cfg),
        "OVERLAPS": lambda o: overlaps_edge(mem, o, cfg),
    }
    keyed = _weight_keys(mem, others, tag_df, cfg, labels)
    proposals: dict[str, list[Edge]] = {}
    for edge_type in LINK_TYPES:
        winners = heapq.nsmallest(max(cfg.max_degree(edge_type), 0), keyed[edge_type], key=lambda kv: kv[0])
        built = [builders[edge_type](o) for _, o in winners]
        proposals[edge_type] = [e for e in built if e is not None]
    return proposals


def apply_degree_caps(mem_id: str, proposals: dict[str, list[Edge]], existing: dict[str, list[Edge]],
                      cfg: EdgeSettings) -> EdgePlan:
    """Accept each proposed edge if its other end has room, or if it beats that end's weakest
    edge of the type (which is evicted). ``existing`` maps an endpoint id to its current edges."""
    plan = EdgePlan()
    evicted: set[tuple[str, str, str]] = set()
    for edge_type, edges in proposals.items():
        cap = cfg.max_degree(edge_type)
        for edge in edges:
            other_id = edge.other(mem_id)
            current = [e for e in existing.get(other_id, [])
                       if e.type == edge_type and e.key not in evicted]
            if len(current) < cap:
                plan.add.append(edge)
                continue
            weakest = max(current, key=lambda e: e.strength_key)
            if edge.strength_key < weakest.strength_key:
                evicted.add(weakest.key)
                plan.remove.append(weakest)
                plan.add.append(edge)
    return plan

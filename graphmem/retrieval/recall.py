"""Hybrid recall scoring: BM25 over graphmem's own terms, cosine, and their fusion (the rules the
key stages, ``keys.py``, and the recall stage, ``recall_stage.py``, apply).

BM25 is Okapi's with Lucene's idf (``similarity.idf``); its ``k1`` and ``b`` are the recipe's
``bm25_k1`` and ``bm25_b``.

Fusion rules (``SearchConfig.fusion``; ``context_fusion`` for the context-window key):
- ``rrf``: mean over the two channels of (rrf_k + 1) / (rrf_k + rank), rank from 1: 1.0 for a memory
  first in both, so an rrf key and a weighted key mix on one scale. Robust to score scales.
- ``weighted``: vector_weight * minmax(cosine) + lexical_weight * minmax(bm25).
"""

from __future__ import annotations

import numpy as np

from graphmem.config import SearchConfig
from graphmem.model import Memory, TermStats
from graphmem.similarity import cosine, idf
from graphmem.text import rarest_terms


def bm25_scores(query_terms: list[str], docs: dict[str, Memory], stats: TermStats,
                cfg: SearchConfig) -> dict[str, float]:
    """Okapi BM25 (Lucene's idf form, always positive) for the docs that contain a query term."""
    scores: dict[str, float] = {}
    avg = stats.avg_length or 1.0
    k1, b = cfg.bm25_k1, cfg.bm25_b
    terms = list(dict.fromkeys(query_terms))
    for doc_id, mem in docs.items():
        length = mem.doc_length
        total = 0.0
        for term in terms:
            tf = mem.term_counts.get(term, 0)
            if not tf:
                continue
            weight = idf(stats.n_docs, stats.df.get(term, 0))
            total += weight * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))
        if total > 0:
            scores[doc_id] = total
    return scores


def lookup_terms(terms: list[str], stats: TermStats, cfg: SearchConfig) -> list[str]:
    """Terms used to *find* lexical candidates (``text.rarest_terms`` under the recipe's
    ``lexical_*`` settings). Every query term still counts in BM25."""
    return rarest_terms(terms, stats.df, stats.n_docs, max_terms=cfg.lexical_lookup_terms,
                        max_df_ratio=cfg.lexical_max_df_ratio, max_postings=cfg.lexical_max_postings)


def cosine_scores(query_vector: np.ndarray, docs: dict[str, Memory]) -> dict[str, float]:
    return {doc_id: cosine(query_vector, mem.embedding)
            for doc_id, mem in docs.items() if mem.embedding is not None}


def ranked(scores: dict[str, float], limit: int | None = None) -> list[str]:
    """Ids by descending score, ties by id (deterministic across stores)."""
    order = sorted(scores, key=lambda i: (-scores[i], i))
    return order if limit is None else order[:limit]


def _minmax(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    return {k: (v - low) / span if span > 0 else 1.0 for k, v in scores.items()}


def memory_key_rule(cfg: SearchConfig, windows_recalled: bool) -> str:
    """The memory key's fusion rule: ``threaded_fusion`` in a search that also recalls context
    windows (a namespace holding threads, where rank fusion held out best), else ``fusion`` (agent
    records without threads keep the weighted rule their expansion was tuned with)."""
    return cfg.threaded_fusion if windows_recalled else cfg.fusion


def fuse(vector: dict[str, float], lexical: dict[str, float], cfg: SearchConfig,
         weights: tuple[float, float] | None = None, rule: str | None = None) -> dict[str, dict]:
    """Per id: fused score plus each channel's rank and raw score (the ``why`` of a direct hit).
    ``weights`` (vector, lexical) replace the recipe's for ``weighted`` fusion, ``rule`` its ``fusion``
    (a window key's own)."""
    rule = rule or cfg.fusion
    channels = {"vector": vector, "lexical": lexical}
    ranks = {name: {doc: r for r, doc in enumerate(ranked(s), start=1)} for name, s in channels.items()}
    norms = {"vector": _minmax(vector), "lexical": _minmax(lexical)}
    vector_weight, lexical_weight = weights or (cfg.vector_weight, cfg.lexical_weight)
    weights_by = {"vector": vector_weight, "lexical": lexical_weight}
    out: dict[str, dict] = {}
    for doc in set(vector) | set(lexical):
        parts: dict[str, dict] = {}
        fused = 0.0
        for name, scores in channels.items():
            if doc not in scores:
                continue
            rank = ranks[name][doc]
            parts[name] = {"rank": rank, "score": round(scores[doc], 6)}
            if rule == "rrf":
                fused += (cfg.rrf_k + 1) / (2 * (cfg.rrf_k + rank))
            else:
                fused += weights_by[name] * norms[name][doc]
        out[doc] = {**parts, "fused": fused}
    return out


def with_windows(memory_key: dict[str, dict], window_key: dict[str, dict], turns: dict[str, list[str]],
                 found: dict[str, set[str]], cfg: SearchConfig) -> dict[str, dict]:
    """A thread member's recall score from both its keys: ``(1 - context_weight) * memory key +
    context_weight * window key``, each key fused from its own vector and full-text scores. A memory
    without a window (``turns``) keeps its own key's score, as if its window were itself. ``keys``
    names the keys whose recall found it (``found``: key -> ids)."""
    weight = cfg.context_weight
    out: dict[str, dict] = {}
    for doc in set(memory_key) | set(window_key):
        own = memory_key.get(doc, {"fused": 0.0})
        if doc not in turns:
            out[doc] = own
            continue
        window = window_key.get(doc, {"fused": 0.0})
        out[doc] = {**own, "fused": (1 - weight) * own["fused"] + weight * window["fused"],
                    "keys": [key for key in ("memory", "window") if doc in found[key]],
                    "window": {**window, "fused": round(window["fused"], 6), "weight": weight,
                               "turns": turns[doc]}}
    return out

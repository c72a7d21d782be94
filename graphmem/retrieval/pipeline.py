"""The staged search pipeline: each stage timed, counted and switchable per request.

router -> recall (vector + lexical, fused) -> expansion (one hop) -> weighting -> rank.
Scoring rules live in the stage modules; this module only moves data between the store
and them and keeps the trace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.config import SearchConfig
from graphmem.model import EDGE_TYPES, MemoryFilter, utcnow_iso
from graphmem.retrieval import expansion, rank, recall, router, weighting
from graphmem.retrieval.candidate import Candidate
from graphmem.stores.base import MemoryStore
from graphmem.text import tokenize


@dataclass
class SearchRequest:
    query: str
    namespace: str = "default"
    config: SearchConfig | None = None
    k: int | None = None
    filters: MemoryFilter = field(default_factory=MemoryFilter)


@dataclass
class SearchOutcome:
    candidates: list[Candidate]
    trace: dict[str, Any]


class _Stages:
    """Collects per-stage counts and milliseconds."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.started = time.perf_counter()

    def record(self, stage: str, enabled: bool, t0: float, n_in: int, n_out: int, **extra: Any) -> None:
        self.rows.append({"stage": stage, "enabled": enabled, "in": n_in, "out": n_out,
                          "ms": round((time.perf_counter() - t0) * 1000, 3), **extra})


class SearchPipeline:
    def __init__(self, store: MemoryStore, embedder, clock=utcnow_iso):
        self.store = store
        self.embedder = embedder
        self.clock = clock

    def run(self, req: SearchRequest) -> SearchOutcome:
        cfg = req.config
        assert cfg is not None
        k = req.k or cfg.k
        ns, flt, now = req.namespace, req.filters, self.clock()
        stages = _Stages()

        # 1. router: which tags/categories does the query name?
        t0 = time.perf_counter()
        named_tags: set[str] = set()
        named_cats: set[str] = set()
        if cfg.stage("router"):
            labels = router.label_candidates(req.query)
            named_tags = {t for t, n in self.store.tag_counts(ns, labels).items() if n}
            named_cats = {c for c, n in self.store.category_counts(ns, labels).items() if n}
        stages.record("router", cfg.stage("router"), t0, 0, 0, filters=not flt.is_empty(),
                      named_tags=sorted(named_tags), named_categories=sorted(named_cats))

        # 2. hybrid recall
        t0 = time.perf_counter()
        use_vec, use_lex = cfg.stage("vector"), cfg.stage("lexical")
        qvec: np.ndarray | None = None
        if use_vec or (cfg.stage("expansion") and cfg.expansion_similarity_mix > 0):
            qvec = self.embedder.embed_query(req.query)
        terms = tokenize(req.query)
        vec_ids = self.store.vector_candidates(ns, qvec, cfg.recall_candidates, flt, now) if use_vec else []
        stats = self.store.term_stats(ns, terms) if use_lex and terms else None
        # The lexical pool is over-fetched and cut by graphmem's own BM25, so which memories enter
        # does not depend on a store's full-text scoring (FTS5 and Lucene rank differently).
        pool = (self.store.lexical_candidates(ns, recall.lookup_terms(terms, stats, cfg),
                                              cfg.recall_candidates * cfg.lexical_overfetch, flt, now)
                if stats else [])
        docs = {i: m for i, m in self.store.get_memories(ns, [*vec_ids, *pool]).items()
                if flt.matches(m, now)}
        bm25 = recall.bm25_scores(terms, docs, stats) if stats and docs else {}
        lex_ids = recall.ranked({i: bm25[i] for i in pool if i in bm25}, cfg.recall_candidates)
        keep = set(vec_ids) | set(lex_ids)
        docs = {i: m for i, m in docs.items() if i in keep}
        vec_scores = recall.cosine_scores(qvec, docs) if use_vec else {}
        lex_scores = {i: score for i, score in bm25.items() if i in docs} if use_lex else {}
        fused = recall.fuse(vec_scores, lex_scores, cfg)
        cands: dict[str, Candidate] = {}
        for doc_id, parts in fused.items():
            mem = docs[doc_id]
            boost, why = router.router_bonus(mem.tags, mem.category, named_tags, named_cats, cfg.router_boost)
            score = parts["fused"] * boost * recall.recency_multiplier(mem.created_at, now, cfg)
            cands[doc_id] = Candidate(mem, score=score, direct={**parts, "fused": round(parts["fused"], 6)},
                                      router=why, cosine=vec_scores.get(doc_id, 0.0))
        stages.record("recall", use_vec or use_lex, t0, len(vec_ids) + len(lex_ids), len(cands),
                      vector=len(vec_ids), lexical=len(lex_ids))

        # 3. one-hop expansion from the top direct results
        t0 = time.perf_counter()
        added = merged = 0
        if cfg.stage("expansion") and cands:
            added, merged = self._expand(cands, cfg, ns, flt, now, qvec)
        stages.record("expansion", cfg.stage("expansion"), t0, len(cands) - added, len(cands),
                      added=added, merged=merged)

        # 4. health and source weighting
        t0 = time.perf_counter()
        before = [c.memory.id for c in rank.order(list(cands.values()))[:5]]
        if cfg.stage("health"):
            for c in cands.values():
                c.score *= weighting.health_multiplier(c.memory, cfg.health_floor)
                c.health = weighting.health_why(c.memory, cfg.health_floor)
        after_health = [c.memory.id for c in rank.order(list(cands.values()))[:k]]
        if cfg.stage("source"):
            for c in cands.values():
                c.score *= c.memory.source_weight
                c.source = weighting.source_why(c.memory)
        after_source = [c.memory.id for c in rank.order(list(cands.values()))[:k]]
        stages.record("weighting", cfg.stage("health") or cfg.stage("source"), t0, len(cands), len(cands),
                      health_changed_top5=before != after_health[:5],
                      source_reordered=after_health != after_source)

        # 5. dedupe, rank, cut
        t0 = time.perf_counter()
        results, dropped = rank.top_k(list(cands.values()), k, cfg.dedupe_near_duplicates)
        kinds = {"direct": 0, "related": 0, "direct+related": 0}
        for c in results:
            kinds[c.kind] += 1
        stages.record("rank", True, t0, len(cands), len(results), near_duplicates_dropped=dropped)
        trace = {"recipe": cfg.name, "k": k, "stages": stages.rows, "results_by_kind": kinds,
                 "total_ms": round((time.perf_counter() - stages.started) * 1000, 3)}
        return SearchOutcome(results, trace)

    def _expand(self, cands: dict[str, Candidate], cfg: SearchConfig, ns: str, flt: MemoryFilter,
                now: str, qvec: np.ndarray | None) -> tuple[int, int]:
        seeds = rank.order(list(cands.values()))[: cfg.expansion_seeds]
        seed_scores = {c.memory.id: c.score for c in seeds}
        types = [t for t in EDGE_TYPES if cfg.edge_type_weights.get(t, 1.0) > 0]
        edges = self.store.neighbors(ns, list(seed_scores), cfg.expansion_per_seed,
                                     cfg.expansion_min_edge_weight, types)
        missing = [e.b for e in edges if e.b not in cands]
        neighbours = {i: m for i, m in self.store.get_memories(ns, missing).items() if flt.matches(m, now)}
        known = {i: c.memory for i, c in cands.items()} | neighbours
        edges = [e for e in edges if e.b in known]
        cosines = ({i: float(np.dot(qvec, m.embedding)) for i, m in known.items() if m.embedding is not None}
                   if qvec is not None else {})
        found = expansion.expand(seed_scores, edges, cosines, cfg)
        merged = 0
        fresh: list[Candidate] = []
        for other, (score, paths) in found.items():
            if other in cands:
                cand = cands[other]
                cand.related = paths
                cand.score += cfg.expansion_merge_bonus * score
                merged += 1
            else:
                fresh.append(Candidate(known[other], score=score, related=paths, cosine=cosines.get(other, 0.0)))
        fresh = rank.order(fresh)[: cfg.expansion_max_added]
        for cand in fresh:
            cands[cand.memory.id] = cand
        return len(fresh), merged

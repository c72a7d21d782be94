"""The staged search pipeline: each stage timed, counted and switchable per request.

router -> recall (vector + lexical, fused) -> expansion (one hop) -> weighting -> rank.
Scoring rules live in the stage modules; this module only moves data between the store
and them and keeps the trace.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.config import EntitySettings, SearchConfig, SupersedeSettings, TimeSettings
from graphmem.model import EDGE_TYPES, Memory, MemoryFilter, TermStats, utcnow_iso, window_namespace
from graphmem.retrieval import (
    expansion,
    feedback,
    multihop,
    rank,
    recall,
    router,
    supersession,
    time_boost,
    weighting,
)
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.overlap import Overlap
from graphmem.retrieval.trace import Trace
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
    # every neighbour expansion added (before the cut to k), with the paths that brought it:
    # the eval harness measures edge precision on these, whether or not they reached the top k
    expansion_added: list[Candidate] = field(default_factory=list)


@dataclass
class _Query:
    """One request's fixed inputs, shared by every stage."""
    text: str
    cfg: SearchConfig
    k: int
    ns: str
    flt: MemoryFilter
    now: str
    pools: dict[tuple[str, tuple[str, ...]], tuple[TermStats, list[str], dict[str, Memory]]] = field(
        default_factory=dict)


@dataclass
class _StageView:
    """What stage multihop reads of a search (the fields of the ``Stage`` protocol's ``Search``)."""
    query: _Query
    store: MemoryStore
    cands: dict[str, Candidate]
    qvec: np.ndarray | None


@dataclass
class _Key:
    """One recall key's scored candidates: rows by id, cosine and BM25 scores, the ids its recall
    found (vector hits, then full-text), its full-text ids, and each window's turns."""
    docs: dict[str, Memory]
    vector: dict[str, float]
    lexical: dict[str, float]
    ids: list[str]
    lex_ids: list[str]
    turns: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class _Round:
    """One recall round's fused scores, the memories they are about, its counts and how many it found."""
    fused: dict[str, dict]
    docs: dict[str, Memory]
    counts: dict[str, Any]
    found: int


@dataclass
class _Recalled:
    """What recall hands on: the candidates and the query vector (expansion reuses it)."""
    cands: dict[str, Candidate]
    qvec: np.ndarray | None


class SearchPipeline:
    def __init__(self, store: MemoryStore, embedder, clock=utcnow_iso, overlap_workers: int = 0,
                 supersede: SupersedeSettings | None = None, time: TimeSettings | None = None,
                 entities: EntitySettings | None = None):
        self.store = store
        self.multihop = multihop.MultiHopStage(entities)
        self.time = time                    # stage time's rules (None: the stage finds no dates)
        self.supersede = supersede          # candidates between results shown in why (None: not looked for)
        self.embedder = embedder
        self.clock = clock
        self.overlap = Overlap(overlap_workers)

    def close(self) -> None:
        self.overlap.close()

    def run(self, req: SearchRequest) -> SearchOutcome:
        cfg = req.config
        assert cfg is not None
        q = _Query(req.query, cfg, req.k or cfg.k, req.namespace, req.filters, self.clock())
        trace = Trace()
        # the query is embedded beside the router's and the context check's store round trips
        # (ONNX Runtime releases the GIL); in turn when the pipeline has no overlap workers
        embedding = self.overlap.start(lambda: self._embed(q)) if self.overlap.workers else None
        named_tags, named_cats, named_topics = self._route(q, trace)
        recalled = self._recall(q, named_tags, named_cats, named_topics, trace, embedding)
        added = self._expansion(q, recalled, trace)
        view = _StageView(q, self.store, recalled.cands, recalled.qvec)     # the Stage protocol's Search
        with trace.stage("multihop", self.multihop.enabled(view)) as row:
            self.multihop.run(view, row) if self.multihop.enabled(view) else self.multihop.skip(view, row)
        q.cfg = view.query.cfg          # a list question's thread spread (multihop_list_thread_decay)
        self._weigh(q, recalled.cands, trace)
        results = self._rank(q, recalled.cands, trace)
        kinds = {"direct": 0, "related": 0, "direct+related": 0}
        for c in results:
            kinds[c.kind] += 1
        return SearchOutcome(results, {"recipe": cfg.name, "k": q.k, "stages": trace.rows,
                                       "results_by_kind": kinds, "total_ms": trace.total_ms()}, added)

    def _route(self, q: _Query, trace: Trace) -> tuple[set[str], set[str], set[str]]:
        """Router: the tags, categories and extracted topics the query names (they earn
        ``router_boost``, topics ``router_topic_boost``)."""
        named_tags: set[str] = set()
        named_cats: set[str] = set()
        named_topics: set[str] = set()
        with trace.stage("router", q.cfg.stage("router")) as row:
            if q.cfg.stage("router"):
                labels = router.label_candidates(q.text)
                topics = router.topic_candidates(q.text) if q.cfg.router_topic_boost > 0 else []
                counts, cat_counts = self.store.label_counts(q.ns, labels + topics, labels)
                named_tags = {t for t in labels if counts.get(t)}
                named_topics = {t for t in topics if counts.get(t)}
                named_cats = {c for c, n in cat_counts.items() if n}
            row.counts(0, 0, filters=not q.flt.is_empty(), named_tags=sorted(named_tags),
                       named_categories=sorted(named_cats))
            if named_topics:
                row.counts(0, 0, named_topics=sorted(named_topics))
        return named_tags, named_cats, named_topics

    def _embed(self, q: _Query) -> np.ndarray | None:
        """The query vector, when vector recall or expansion's similarity mix needs it."""
        cfg = q.cfg
        if cfg.stage("vector") or (cfg.stage("expansion") and cfg.expansion_similarity_mix > 0):
            return self.embedder.embed_query(q.text)
        return None

    def _recall(self, q: _Query, named_tags: set[str], named_cats: set[str], named_topics: set[str],
                trace: Trace, embedding=None) -> _Recalled:
        """Hybrid recall: vector and lexical candidates by each memory's own text and, for thread
        members, by their context window; fused, optionally re-queried from the top (``feedback``),
        then router- and recency-adjusted."""
        cfg, now = q.cfg, q.now
        use_vec, use_lex = cfg.stage("vector"), cfg.stage("lexical")
        with trace.stage("recall", use_vec or use_lex) as row:
            terms = tokenize(q.text)
            wns = window_namespace(q.ns)
            use_ctx = (cfg.stage("context") and cfg.context_weight > 0 and (use_vec or use_lex)
                       and self.store.term_stats(wns, []).n_docs > 0)
            qvec = embedding() if embedding is not None else self._embed(q)
            first = self._round(q, terms, qvec, wns, use_ctx)
            fused, docs, counts = first.fused, first.docs, first.counts
            if cfg.stage("feedback") and cfg.feedback_seeds > 0 and cfg.feedback_weight > 0 and fused:
                fused, docs, extra = self._feedback(q, terms, qvec, wns, use_ctx, first)
                counts = {**counts, "feedback": extra}
            cands: dict[str, Candidate] = {}
            for doc_id, parts in fused.items():
                mem = docs[doc_id]
                boost, why = router.router_bonus(mem.tags, mem.category, named_tags, named_cats,
                                                 cfg.router_boost, mem.topic_labels, named_topics,
                                                 cfg.router_topic_boost)
                score = recall.direct_score(parts["fused"], boost, mem.created_at, now, cfg)
                cands[doc_id] = Candidate(mem, score=score, direct={**parts, "fused": round(parts["fused"], 6)},
                                          router=why)
            row.counts(first.found, len(cands), **counts)
        return _Recalled(cands, qvec)

    def _round(self, q: _Query, terms: list[str], qvec: np.ndarray | None, wns: str, use_ctx: bool) -> _Round:
        """One recall round: both keys' candidates for ``terms`` and ``qvec``, fused."""
        cfg, ns = q.cfg, q.ns
        # the window key's recall needs nothing from the memory key's: it runs beside it
        window_recall = self.overlap.start(lambda: self._recall_key(q, wns, terms, qvec)) if use_ctx else None
        stats, vec_ids, pool, read = self._recall_key(q, ns, terms, qvec)
        own = self._score_key(q, terms, qvec, vec_ids, pool, read, stats)
        # the window key runs first: memories only a window found join the memory key's scores
        windows = self._window_key(q, terms, qvec, own, stats, window_recall()) if window_recall else None
        rule = recall.memory_key_rule(cfg, windows is not None)
        fused = recall.fuse(own.vector, own.lexical, cfg, rule=rule)
        if windows is not None:
            weights = (cfg.context_vector_weight, cfg.context_lexical_weight)
            fused = recall.with_windows(fused, recall.fuse(windows.vector, windows.lexical, cfg, weights,
                                                           cfg.context_fusion),
                                        windows.turns, {"memory": set(own.ids), "window": set(windows.ids)},
                                        cfg)
        extra = {"window": len(windows.ids), "memory_fusion": rule} if windows is not None else {}
        found = len(vec_ids) + len(own.lex_ids) + (len(windows.ids) if windows else 0)
        return _Round(fused, own.docs, {"vector": len(vec_ids), "lexical": len(own.lex_ids), **extra}, found)

    def _feedback(self, q: _Query, terms: list[str], qvec: np.ndarray | None, wns: str, use_ctx: bool,
                  first: _Round) -> tuple[dict[str, dict], dict[str, Memory], dict[str, Any]]:
        """The second round (``feedback.py``): seeded by the first round's top memories, mixed with it."""
        cfg = q.cfg
        t0 = time.perf_counter()
        top = feedback.seeds(first.fused, cfg.feedback_seeds)
        seed_docs = [first.docs[i] for i in top]
        qvec2 = (feedback.feedback_vector(qvec, [m.embedding for m in seed_docs if m.embedding is not None],
                                          cfg.feedback_vector_weight) if qvec is not None else None)
        added: list[str] = []
        if cfg.feedback_terms > 0 and cfg.stage("lexical"):
            known = set(terms)
            pool_terms = sorted({t for m in seed_docs for t in m.term_counts if t not in known})
            stats = self.store.term_stats(q.ns, pool_terms)
            added = feedback.expansion_terms(terms, seed_docs, stats, cfg.feedback_terms)
        second = self._round(q, [*terms, *added], qvec2, wns, use_ctx)
        fused = feedback.mix_rounds(first.fused, second.fused, cfg.feedback_weight)
        docs = {**second.docs, **first.docs}
        new = sum(1 for i in second.fused if i not in first.fused)
        return fused, docs, {"seeds": len(top), "terms": added, "found": second.found, "new": new,
                             "ms": round((time.perf_counter() - t0) * 1000, 3)}

    def _recall_key(self, q: _Query, namespace: str, terms: list[str], qvec: np.ndarray | None
                    ) -> tuple[TermStats | None, list[str], list[str], dict[str, Memory]]:
        """One key's recall in one store call (``store.recall``): the terms' statistics, the vector
        hits, the full-text pool (over-fetched, cut by graphmem's own BM25 later, so which memories
        enter does not depend on a store's full-text scoring) and the memories of both. A second
        round asking for the same pool reuses the first's."""
        cfg = q.cfg
        use_vec = cfg.stage("vector") and qvec is not None
        use_lex = cfg.stage("lexical") and bool(terms)
        key = (namespace, tuple(terms))
        cached = q.pools.get(key) if use_lex else None
        hits = self.store.recall(namespace, qvec if use_vec else None, cfg.recall_candidates,
                                 terms if use_lex and cached is None else [],
                                 lambda found: recall.lookup_terms(terms, found, cfg),
                                 cfg.recall_candidates * cfg.lexical_overfetch, q.flt, q.now)
        if use_lex and cached is None:
            cached = q.pools[key] = (hits.stats, hits.lexical_ids,
                                     {i: hits.memories[i] for i in hits.lexical_ids if i in hits.memories})
        stats, pool, pool_read = cached if cached is not None else (None, [], {})
        return stats, hits.vector_ids, pool, {**hits.memories, **pool_read}

    @staticmethod
    def _score_key(q: _Query, terms: list[str], qvec: np.ndarray | None, vec_ids: list[str], pool: list[str],
                   read: dict[str, Memory], stats: TermStats | None, also: Sequence[str] = ()) -> _Key:
        """One recall key's candidates (its vector hits, its full-text pool cut by BM25, and ``also``)
        and their cosine and BM25 scores over its rows."""
        cfg = q.cfg
        docs = {i: read[i] for i in dict.fromkeys([*vec_ids, *pool, *also])
                if i in read and q.flt.matches(read[i], q.now)}
        bm25 = recall.bm25_scores(terms, docs, stats) if stats and docs else {}
        lex_ids = recall.ranked({i: bm25[i] for i in pool if i in bm25}, cfg.recall_candidates)
        keep = set(vec_ids) | set(lex_ids) | set(also)
        docs = {i: m for i, m in docs.items() if i in keep}
        vec_scores = recall.cosine_scores(qvec, docs) if cfg.stage("vector") and qvec is not None else {}
        lex_scores = {i: score for i, score in bm25.items() if i in docs} if cfg.stage("lexical") else {}
        found = [i for i in dict.fromkeys([*vec_ids, *lex_ids]) if i in docs]
        return _Key(docs, vec_scores, lex_scores, found, lex_ids)

    def _window_key(self, q: _Query, terms: list[str], qvec: np.ndarray | None, own: _Key,
                    own_stats: TermStats | None,
                    recalled: tuple[TermStats | None, list[str], list[str], dict[str, Memory]]) -> _Key:
        """The context-window key: its own vector and full-text recall over the window namespace; every
        candidate is scored on both keys (memories only a window found join ``own`` with their own
        scores, their windows are read for the memory key's candidates)."""
        cfg, wns = q.cfg, window_namespace(q.ns)
        stats, vec_ids, pool, rows = recalled
        missing = [i for i in own.docs if i not in rows]
        rows.update(self.store.get_memories(wns, missing) if missing else {})
        win = self._score_key(q, terms, qvec, vec_ids, pool, rows, stats, also=[i for i in own.docs if i in rows])
        new = [i for i in win.docs if i not in own.docs]
        if new:                     # found by their window alone: their own rows and scores join the memory key
            fresh = {i: m for i, m in self.store.get_memories(q.ns, new).items() if q.flt.matches(m, q.now)}
            own.docs.update(fresh)
            if cfg.stage("vector") and qvec is not None:
                own.vector.update(recall.cosine_scores(qvec, fresh))
            if cfg.stage("lexical") and own_stats is not None:
                own.lexical.update(recall.bm25_scores(terms, fresh, own_stats))
        kept = {i: m for i, m in win.docs.items() if i in own.docs}
        return _Key(kept, {i: v for i, v in win.vector.items() if i in kept},
                    {i: v for i, v in win.lexical.items() if i in kept}, [i for i in win.ids if i in kept],
                    win.lex_ids, {i: list(m.metadata.get("turns", [i])) for i, m in kept.items()})

    def _expansion(self, q: _Query, recalled: _Recalled, trace: Trace) -> list[Candidate]:
        """One-hop expansion from the top direct results; returns the neighbours it added."""
        cands = recalled.cands
        with trace.stage("expansion", q.cfg.stage("expansion")) as row:
            added: list[Candidate] = []
            merged = skipped = 0
            if q.cfg.stage("expansion") and cands:
                added, merged, skipped = self._expand(cands, q.cfg, q.ns, q.flt, q.now, recalled.qvec)
            extra = {"threaded_edges_skipped": skipped} if q.cfg.expansion_threaded != "all" else {}
            row.counts(len(cands) - len(added), len(cands), added=len(added), merged=merged, **extra)
        return added

    def _weigh(self, q: _Query, cands: dict[str, Candidate], trace: Trace) -> None:
        """Health and source multipliers; the trace says whether each reordered the top."""
        cfg = q.cfg
        timed = cfg.stage("time") and cfg.time_boost > 0 and self.time is not None
        with trace.stage("weighting", cfg.stage("health") or cfg.stage("source") or timed) as row:
            before = [c.memory.id for c in rank.order(list(cands.values()))[:5]]
            if cfg.stage("health"):
                for c in cands.values():
                    c.score *= weighting.health_multiplier(c.memory, cfg.health_floor)
                    c.health = weighting.health_why(c.memory, cfg.health_floor)
            after_health = [c.memory.id for c in rank.order(list(cands.values()))[:q.k]]
            if cfg.stage("source"):
                for c in cands.values():
                    c.score *= weighting.source_multiplier(c.memory)
                    c.source = weighting.source_why(c.memory)
            after_source = [c.memory.id for c in rank.order(list(cands.values()))[:q.k]]
            row.counts(len(cands), len(cands), health_changed_top5=before != after_health[:5],
                       source_reordered=after_health != after_source)
            if timed:
                assert self.time is not None
                found = time_boost.apply(cands, q.text, q.flt.as_of or q.now, self.time, cfg.time_boost)
                if found is not None:           # the query names a date
                    row.counts(len(cands), len(cands), time=found)

    def _rank(self, q: _Query, cands: dict[str, Candidate], trace: Trace) -> list[Candidate]:
        """Merge near-duplicates, order, cut to k."""
        with trace.stage("rank", True) as row:
            # copies are told apart by health and source, so grouping belongs to the weighting recipes
            weighs = q.cfg.stage("health") or q.cfg.stage("source")
            grouping = (q.cfg.group_cosine, q.cfg.group_term_overlap) if q.cfg.group_copies and weighs else None
            pulled = (supersession.pull_successors(cands, self.store, q.ns, q.flt, q.now)
                      if q.cfg.successors_first else 0)
            results, dropped, grouped, moved, spread = rank.top_k(
                list(cands.values()), q.k, q.cfg.dedupe_near_duplicates, grouping, q.cfg.successors_first,
                q.cfg.thread_decay)
            extra = {"thread_spread": spread} if q.cfg.thread_decay < 1 else {}
            row.counts(len(cands), len(results), near_duplicates_dropped=dropped, copies_grouped=grouped, **extra)
            if pulled or moved:
                row.counts(len(cands), len(results), successors_added=pulled, moved_below_successor=moved)
            if self.supersede is not None and self.supersede.candidates:
                proposed = supersession.mark_candidates(results, self.supersede, cands)
                if proposed:
                    row.counts(len(cands), len(results), supersede_candidates=proposed)
        return results

    def _expand(self, cands: dict[str, Candidate], cfg: SearchConfig, ns: str, flt: MemoryFilter,
                now: str, qvec: np.ndarray | None) -> tuple[list[Candidate], int, int]:
        seeds = rank.order(list(cands.values()))[: cfg.expansion_seeds]
        seed_scores = {c.memory.id: c.score for c in seeds}
        types = [t for t in EDGE_TYPES if cfg.edge_type_weights.get(t, 1.0) > 0]
        edges, missing = self.store.neighbors_with_memories(ns, list(seed_scores), cfg.expansion_per_seed,
                                                            cfg.expansion_min_edge_weight, types, cands.keys())
        neighbours = {i: m for i, m in missing.items() if flt.matches(m, now)}
        known = {i: c.memory for i, c in cands.items()} | neighbours
        edges = [e for e in edges if e.b in known]
        reached = {e.b for e in edges}          # only a neighbour's own similarity enters its score
        cosines = ({i: float(np.dot(qvec, vec)) for i in reached
                    if (vec := known[i].embedding) is not None} if qvec is not None else {})
        windows = {c.memory.id: expansion.window_turns(c.direct) for c in seeds}
        found = expansion.expand(seed_scores, edges, cosines, cfg, windows)
        skipped = sum(1 for e in edges if e.a != e.b and expansion.skipped(e, windows, cfg))
        merged = 0
        fresh: list[Candidate] = []
        for other, (score, paths) in found.items():
            if other in cands:
                cand = cands[other]
                cand.related = paths
                cand.score = expansion.merged_score(cand.score, score, cfg)
                merged += 1
            else:
                fresh.append(Candidate(known[other], score=score, related=paths))
        fresh = rank.order(fresh)[: cfg.expansion_max_added]
        for cand in fresh:
            cands[cand.memory.id] = cand
        return fresh, merged, skipped

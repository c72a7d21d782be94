"""Stage recall: hybrid recall over the key stages (``keys.py``), fused (``recall.py``),
optionally re-queried from the top (stage ``feedback``, ``feedback.py``).

A round runs the keys on its terms and query vector (a later key's store call starts beside the
first's), fuses each key's vector and full-text scores, and mixes the keys (``recall.with_windows``).
The candidates it hands on score their fused recall score, with the parts that explain it (read as
``Candidate.direct``); the router boost and recency follow as their own stages."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np

from graphmem.model import Memory, window_namespace
from graphmem.retrieval import feedback, recall
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.keys import KeyStage, MemoryKeyStage, WindowKeyStage
from graphmem.retrieval.stage import KeyScores, Query, RecallRound, Search, Stage
from graphmem.retrieval.trace import StageRow
from graphmem.text import tokenize


def query_vector(embedder: Any, q: Query) -> np.ndarray | None:
    """The query vector, when vector recall or expansion's similarity mix needs it."""
    cfg = q.cfg
    if cfg.stage("vector") or (cfg.stage("expansion") and cfg.expansion_similarity_mix > 0):
        return embedder.embed_query(q.text)
    return None


@dataclass
class _Round:
    """One round's fused scores, the memories they are about, its counts and how many it found."""

    fused: dict[str, dict]
    docs: dict[str, Memory]
    counts: dict[str, Any]
    found: int


class RecallStage(Stage):
    """Finds the direct candidates: ``search.cands`` at their fused recall score."""

    name: ClassVar[str] = "recall"

    def __init__(self, keys: Sequence[KeyStage] = (MemoryKeyStage(), WindowKeyStage())) -> None:
        self.keys = tuple(keys)         # the memory key first: the others score its candidates too

    def enabled(self, search: Search) -> bool:
        return search.cfg.stage("vector") or search.cfg.stage("lexical")

    def run(self, search: Search, row: StageRow) -> None:
        q, cfg = search.query, search.cfg
        terms = tokenize(q.text)
        search.recall_windows = (cfg.stage("context") and cfg.context_weight > 0
                                 and search.store.term_stats(window_namespace(q.ns), []).n_docs > 0)
        search.qvec = search.embed()
        first = self._round(search, terms, search.qvec, row)
        fused, docs, counts = first.fused, first.docs, first.counts
        if cfg.stage("feedback") and cfg.feedback_seeds > 0 and cfg.feedback_weight > 0 and fused:
            fused, docs, extra = self._feedback(search, terms, first, row)
            counts = {**counts, "feedback": extra}
        for doc_id, parts in fused.items():
            search.cands[doc_id] = Candidate(docs[doc_id], score=parts["fused"], recall=parts)
        row.counts(first.found, len(search.cands), **counts)

    def skip(self, search: Search, row: StageRow) -> None:
        search.qvec = search.embed()        # expansion's similarity mix may still want it
        row.counts(0, 0, vector=0, lexical=0)

    def _round(self, search: Search, terms: list[str], qvec: np.ndarray | None, row: StageRow) -> _Round:
        """One recall round: every enabled key's candidates for ``terms`` and ``qvec``, fused."""
        cfg = search.cfg
        rnd = search.round = RecallRound(terms, qvec)
        keys = [key for key in self.keys if key.enabled(search)]
        for key in keys[1:]:            # their store calls need nothing from the first key's: beside it
            rnd.prefetched[key.name] = search.overlap.start(partial(key.fetch, search, rnd))
        for key in keys:
            key.run(search, row)       # the keys report through recall's counts
        own = rnd.keys[MemoryKeyStage.name]
        windows: KeyScores | None = rnd.keys.get(WindowKeyStage.name)
        rule = recall.memory_key_rule(cfg, windows is not None)
        fused = recall.fuse(own.vector, own.lexical, cfg, rule=rule)
        if windows is not None:
            weights = (cfg.context_vector_weight, cfg.context_lexical_weight)
            fused = recall.with_windows(fused, recall.fuse(windows.vector, windows.lexical, cfg, weights,
                                                           cfg.context_fusion),
                                        windows.turns, {"memory": set(own.ids), "window": set(windows.ids)},
                                        cfg)
        extra = {"window": len(windows.ids), "memory_fusion": rule} if windows is not None else {}
        found = own.vector_hits + len(own.lex_ids) + (len(windows.ids) if windows else 0)
        return _Round(fused, own.docs, {"vector": own.vector_hits, "lexical": len(own.lex_ids), **extra}, found)

    def _feedback(self, search: Search, terms: list[str], first: _Round, row: StageRow
                  ) -> tuple[dict[str, dict], dict[str, Memory], dict[str, Any]]:
        """The second round (``feedback.py``): seeded by the first round's top memories, mixed with it."""
        q, cfg, qvec = search.query, search.cfg, search.qvec
        t0 = time.perf_counter()
        top = feedback.seeds(first.fused, cfg.feedback_seeds)
        seed_docs = [first.docs[i] for i in top]
        qvec2 = (feedback.feedback_vector(qvec, [m.embedding for m in seed_docs if m.embedding is not None],
                                          cfg.feedback_vector_weight) if qvec is not None else None)
        added: list[str] = []
        if cfg.feedback_terms > 0 and cfg.stage("lexical"):
            known = set(terms)
            pool_terms = sorted({t for m in seed_docs for t in m.term_counts if t not in known})
            stats = search.store.term_stats(q.ns, pool_terms)
            added = feedback.expansion_terms(terms, seed_docs, stats, cfg.feedback_terms)
        second = self._round(search, [*terms, *added], qvec2, row)
        fused = feedback.mix_rounds(first.fused, second.fused, cfg.feedback_weight)
        docs = {**second.docs, **first.docs}
        new = sum(1 for i in second.fused if i not in first.fused)
        return fused, docs, {"seeds": len(top), "terms": added, "found": second.found, "new": new,
                             "ms": round((time.perf_counter() - t0) * 1000, 3)}

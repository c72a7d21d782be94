"""The recall keys: a memory is found and scored by its own text (the memory key) and, for a
thread member, by its context window (the window key, stage ``context``).

Each key is a stage run once per recall round (``RecallRound``: its terms and query vector): one
store call (``store.recall``) brings its vector hits, its full-text pool (over-fetched, cut by
graphmem's own BM25, so which memories enter does not depend on a store's full-text scoring) and
their rows; the key scores them by cosine and BM25 and leaves its ``KeyScores`` on the round.
Every candidate is scored on both keys: the window key reads the windows of the memory key's
candidates, and a memory only its window found joins the memory key with its own scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from graphmem.model import Memory, window_namespace
from graphmem.retrieval import recall
from graphmem.retrieval.stage import KeyRecall, KeyScores, RecallRound, Search, Stage
from graphmem.retrieval.trace import StageRow


def fetch(search: Search, namespace: str, terms: list[str], qvec: np.ndarray | None) -> KeyRecall:
    """One key's store call: the terms' statistics, the vector hits, the full-text pool and the
    memories of both. A second round asking for the same pool reuses the first's."""
    q, cfg = search.query, search.cfg
    use_vec = cfg.stage("vector") and qvec is not None
    use_lex = cfg.stage("lexical") and bool(terms)
    key = (namespace, tuple(terms))
    cached = search.pools.get(key) if use_lex else None
    hits = search.store.recall(namespace, qvec if use_vec else None, cfg.recall_candidates,
                               terms if use_lex and cached is None else [],
                               lambda found: recall.lookup_terms(terms, found, cfg),
                               cfg.recall_candidates * cfg.lexical_overfetch, q.flt, q.now)
    if use_lex and cached is None:
        cached = search.pools[key] = (hits.stats, hits.lexical_ids,
                                      {i: hits.memories[i] for i in hits.lexical_ids if i in hits.memories})
    stats, pool, pool_read = cached if cached is not None else (None, [], {})
    return stats, hits.vector_ids, pool, {**hits.memories, **pool_read}


def score(search: Search, terms: list[str], qvec: np.ndarray | None, recalled: KeyRecall,
          also: Sequence[str] = ()) -> KeyScores:
    """One key's candidates (its vector hits, its full-text pool cut by BM25, and ``also``) and
    their cosine and BM25 scores over its rows."""
    q, cfg = search.query, search.cfg
    stats, vec_ids, pool, read = recalled
    docs = {i: read[i] for i in dict.fromkeys([*vec_ids, *pool, *also])
            if i in read and q.flt.matches(read[i], q.now)}
    bm25 = recall.bm25_scores(terms, docs, stats, cfg) if stats and docs else {}
    lex_ids = recall.ranked({i: bm25[i] for i in pool if i in bm25}, cfg.recall_candidates)
    keep = set(vec_ids) | set(lex_ids) | set(also)
    docs = {i: m for i, m in docs.items() if i in keep}
    vec_scores = recall.cosine_scores(qvec, docs) if cfg.stage("vector") and qvec is not None else {}
    lex_scores = {i: s for i, s in bm25.items() if i in docs} if cfg.stage("lexical") else {}
    found = [i for i in dict.fromkeys([*vec_ids, *lex_ids]) if i in docs]
    return KeyScores(docs, vec_scores, lex_scores, found, lex_ids, vector_hits=len(vec_ids))


class KeyStage(Stage):
    """A recall key: ``fetch`` is its store call (a round may start it beside another key's);
    ``run`` scores what it brought (``round.prefetched`` if started, else fetched now)."""

    name: ClassVar[str] = "key"

    def namespace(self, search: Search) -> str:
        return search.query.ns

    def fetch(self, search: Search, rnd: RecallRound) -> KeyRecall:
        return fetch(search, self.namespace(search), rnd.terms, rnd.qvec)

    def recalled(self, search: Search, rnd: RecallRound) -> KeyRecall:
        started = rnd.prefetched.pop(self.name, None)
        return started() if started is not None else self.fetch(search, rnd)


class MemoryKeyStage(KeyStage):
    """A memory's own text: runs in every round."""

    name: ClassVar[str] = "memory"

    def enabled(self, search: Search) -> bool:
        return True

    def run(self, search: Search, row: StageRow) -> None:
        rnd = _round(search)
        recalled = self.recalled(search, rnd)
        rnd.stats[self.name] = recalled[0]
        rnd.keys[self.name] = score(search, rnd.terms, rnd.qvec, recalled)


class WindowKeyStage(KeyStage):
    """A thread member's context window, over the window namespace; runs after the memory key
    (it scores that key's candidates by their windows and adds the memories only a window found)."""

    name: ClassVar[str] = "window"

    def namespace(self, search: Search) -> str:
        return window_namespace(search.query.ns)

    def enabled(self, search: Search) -> bool:
        return search.recall_windows

    def run(self, search: Search, row: StageRow) -> None:
        q, cfg, rnd = search.query, search.cfg, _round(search)
        own = rnd.keys[MemoryKeyStage.name]
        own_stats = rnd.stats.get(MemoryKeyStage.name)
        stats, vec_ids, pool, rows = self.recalled(search, rnd)
        missing = [i for i in own.docs if i not in rows]
        rows.update(search.store.get_memories(self.namespace(search), missing) if missing else {})
        win = score(search, rnd.terms, rnd.qvec, (stats, vec_ids, pool, rows),
                    also=[i for i in own.docs if i in rows])
        new = [i for i in win.docs if i not in own.docs]
        if new:                 # found by their window alone: their own rows and scores join the memory key
            fresh: dict[str, Memory] = {i: m for i, m in search.store.get_memories(q.ns, new).items()
                                        if q.flt.matches(m, q.now)}
            own.docs.update(fresh)
            if cfg.stage("vector") and rnd.qvec is not None:
                own.vector.update(recall.cosine_scores(rnd.qvec, fresh))
            if cfg.stage("lexical") and own_stats is not None:
                own.lexical.update(recall.bm25_scores(rnd.terms, fresh, own_stats, cfg))
        kept = {i: m for i, m in win.docs.items() if i in own.docs}
        rnd.keys[self.name] = KeyScores(
            kept, {i: v for i, v in win.vector.items() if i in kept},
            {i: v for i, v in win.lexical.items() if i in kept}, [i for i in win.ids if i in kept],
            win.lex_ids, {i: list(m.metadata.get("turns", [i])) for i, m in kept.items()})


def _round(search: Search) -> RecallRound:
    assert search.round is not None, "a key runs inside a recall round"
    return search.round

"""One-hop expansion scoring.

A neighbour reached from seed s over edge e scores

    decay * score(s) * weight(e) * type_weight(e) * ((1 - mix) + mix * max(0, cos(neighbour, query)))

so a neighbour never outranks its seed (decay, weight <= 1), strong relations count more than
weak ones, and among neighbours those that also look like the query come first. A neighbour
reached from several seeds keeps its best path and lists every path in its ``why``. A direct hit
that is also a neighbour is merged: it keeps its direct score plus ``merge_bonus`` times its
neighbour score (``merged_score``).

A seed that a context window scored (``window_turns``) follows ``expansion_threaded``: ``all``
expands it like any other; ``outside_window`` keeps it from reaching the turns of its own window
(recall already scored the seed by that window's text, so an edge to them, as a FOLLOWS edge always
is, counts that evidence a second time); ``off`` keeps it from expanding at all.
"""

from __future__ import annotations

from typing import ClassVar

from graphmem.config import SearchConfig
from graphmem.contract.responses import DirectWhy, RelatedPath
from graphmem.model import EDGE_TYPES, Edge
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.rank import order
from graphmem.retrieval.stage import Search, Stage
from graphmem.retrieval.trace import StageRow
from graphmem.similarity import cosine


def neighbour_score(seed_score: float, edge: Edge, neighbour_cosine: float, cfg: SearchConfig) -> float:
    mix = cfg.expansion_similarity_mix
    type_weight = cfg.edge_type_weights.get(edge.type, 1.0)
    relevance = (1.0 - mix) + mix * max(0.0, neighbour_cosine)
    return cfg.expansion_decay * seed_score * edge.weight * type_weight * relevance


def window_turns(direct: DirectWhy | None) -> frozenset[str]:
    """The turns of the context window that scored a direct hit (empty: no window did)."""
    window = direct.window if direct is not None else None
    return frozenset(window.turns) if window is not None else frozenset()


def skipped(edge: Edge, windows: dict[str, frozenset[str]], cfg: SearchConfig) -> bool:
    """Whether ``expansion_threaded`` keeps seed ``edge.a`` from reaching ``edge.b``."""
    turns = windows.get(edge.a)
    if not turns or cfg.expansion_threaded == "all":
        return False
    return cfg.expansion_threaded == "off" or edge.b in turns


def expand(seed_scores: dict[str, float], edges: list[Edge], cosines: dict[str, float],
           cfg: SearchConfig, windows: dict[str, frozenset[str]] | None = None
           ) -> dict[str, tuple[float, list[dict]]]:
    """Neighbour id -> (best score, paths). ``edges`` are oriented seed (a) -> neighbour (b);
    ``windows``: seed id -> the turns of the window that scored it (``expansion_threaded``)."""
    found: dict[str, tuple[float, list[dict]]] = {}
    windows = windows or {}
    for edge in edges:
        seed, other = edge.a, edge.b
        if other == seed or seed not in seed_scores or skipped(edge, windows, cfg):
            continue
        score = neighbour_score(seed_scores[seed], edge, cosines.get(other, 0.0), cfg)
        path = {"seed": seed, "edge": edge.type, "weight": edge.weight, "reason": edge.reason,
                "score": round(score, 6)}
        best, paths = found.get(other, (0.0, []))
        found[other] = (max(best, score), [*paths, path])
    for _, paths in found.values():
        paths.sort(key=lambda p: (-p["score"], p["seed"], p["edge"]))
    return found


def merged_score(direct_score: float, neighbour: float, cfg: SearchConfig) -> float:
    """A direct hit that expansion also reached: its own score plus the merge bonus."""
    return direct_score + cfg.expansion_merge_bonus * neighbour


class ExpansionStage(Stage):
    """One hop from the top direct results: neighbours join ``search.cands`` (and ``search.added``),
    a direct hit a seed reaches gains the merge bonus; each lists the paths that reached it."""

    name: ClassVar[str] = "expansion"

    def enabled(self, search: Search) -> bool:
        return search.cfg.stage("expansion")

    def run(self, search: Search, row: StageRow) -> None:
        merged = skipped_edges = 0
        if search.cands:
            merged, skipped_edges = self._expand(search)
        self._report(search, row, merged, skipped_edges)

    def skip(self, search: Search, row: StageRow) -> None:
        self._report(search, row, 0, 0)

    @staticmethod
    def _report(search: Search, row: StageRow, merged: int, skipped_edges: int) -> None:
        n = len(search.cands)
        extra = {"threaded_edges_skipped": skipped_edges} if search.cfg.expansion_threaded != "all" else {}
        row.counts(n - len(search.added), n, added=len(search.added), merged=merged, **extra)

    @staticmethod
    def _expand(search: Search) -> tuple[int, int]:
        """Expands ``search.cands`` in place; returns (direct hits merged, edges ``expansion_threaded``
        skipped)."""
        q, cfg, cands = search.query, search.cfg, search.cands
        seeds = order(list(cands.values()))[: cfg.expansion_seeds]
        seed_scores = {c.memory.id: c.score for c in seeds}
        types = [t for t in EDGE_TYPES if cfg.edge_type_weights.get(t, 1.0) > 0]
        edges, missing = search.store.neighbors_with_memories(q.ns, list(seed_scores), cfg.expansion_per_seed,
                                                              cfg.expansion_min_edge_weight, types, cands.keys())
        neighbours = {i: m for i, m in missing.items() if q.flt.matches(m, q.now)}
        known = {i: c.memory for i, c in cands.items()} | neighbours
        edges = [e for e in edges if e.b in known]
        reached = {e.b for e in edges}          # only a neighbour's own similarity enters its score
        qvec = search.qvec
        cosines = ({i: cosine(qvec, vec) for i in reached if (vec := known[i].embedding) is not None}
                   if qvec is not None else {})
        windows = {c.memory.id: window_turns(c.direct) for c in seeds}
        found = expand(seed_scores, edges, cosines, cfg, windows)
        skipped_edges = sum(1 for e in edges if e.a != e.b and skipped(e, windows, cfg))
        merged = 0
        fresh: list[tuple[float, str]] = []
        for other, (score, paths) in found.items():
            if other in cands:
                cand = cands[other]
                cand.related = [RelatedPath.model_validate(p) for p in paths]
                cand.score = merged_score(cand.score, score, cfg)
                merged += 1
            else:
                fresh.append((-score, other))
        # the best neighbours by score, ties by id (rank.order's rule), up to expansion_max_added
        search.added = [Candidate(known[other], score=found[other][0],
                                  related=[RelatedPath.model_validate(p) for p in found[other][1]])
                        for _, other in sorted(fresh)[: cfg.expansion_max_added]]
        for cand in search.added:
            cands[cand.memory.id] = cand
        return merged, skipped_edges

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

from graphmem.config import SearchConfig
from graphmem.model import Edge


def neighbour_score(seed_score: float, edge: Edge, neighbour_cosine: float, cfg: SearchConfig) -> float:
    mix = cfg.expansion_similarity_mix
    type_weight = cfg.edge_type_weights.get(edge.type, 1.0)
    relevance = (1.0 - mix) + mix * max(0.0, neighbour_cosine)
    return cfg.expansion_decay * seed_score * edge.weight * type_weight * relevance


def window_turns(direct: dict | None) -> frozenset[str]:
    """The turns of the context window that scored a direct hit (empty: no window did)."""
    window = (direct or {}).get("window")
    return frozenset(window.get("turns", ())) if window else frozenset()


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

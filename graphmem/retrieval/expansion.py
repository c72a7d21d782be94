"""One-hop expansion scoring.

A neighbour reached from seed s over edge e scores

    decay * score(s) * weight(e) * type_weight(e) * ((1 - mix) + mix * max(0, cos(neighbour, query)))

so a neighbour never outranks its seed (decay, weight <= 1), strong relations count more than
weak ones, and among neighbours those that also look like the query come first. A neighbour
reached from several seeds keeps its best path and lists every path in its ``why``. A direct hit
that is also a neighbour is merged: it keeps its direct score plus ``merge_bonus`` times its
neighbour score (``merged_score``).
"""

from __future__ import annotations

from graphmem.config import SearchConfig
from graphmem.model import Edge


def neighbour_score(seed_score: float, edge: Edge, neighbour_cosine: float, cfg: SearchConfig) -> float:
    mix = cfg.expansion_similarity_mix
    type_weight = cfg.edge_type_weights.get(edge.type, 1.0)
    relevance = (1.0 - mix) + mix * max(0.0, neighbour_cosine)
    return cfg.expansion_decay * seed_score * edge.weight * type_weight * relevance


def expand(seed_scores: dict[str, float], edges: list[Edge], cosines: dict[str, float],
           cfg: SearchConfig) -> dict[str, tuple[float, list[dict]]]:
    """Neighbour id -> (best score, paths). ``edges`` are oriented seed (a) -> neighbour (b)."""
    found: dict[str, tuple[float, list[dict]]] = {}
    for edge in edges:
        seed, other = edge.a, edge.b
        if other == seed or seed not in seed_scores:
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

"""Graph and retrieval metrics: pure functions over a mirror (``nx.MultiGraph`` keyed by edge
type, see ``graphmem.analysis.mirror``) or over search result dicts. No store access.

What they are for: edge weight distributions per type and degree saturation show how the
linker's weights and caps shape the graph; components, communities and bridges show its
structure; ``edge_attribution`` shows which edge types and weight ranges brought relevant
(vs irrelevant) neighbours into the top k -- the evidence for tuning
``edge_type_weights`` and ``expansion_min_edge_weight``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import networkx as nx

from graphmem.model import EDGE_TYPES

# Weight bins: the lowest ends at the default expansion_min_edge_weight (0.3).
WEIGHT_BINS = (0.0, 0.3, 0.5, 0.7, 0.9, 1.0)


# -- helpers ---------------------------------------------------------------------------------
def _types_of(G: nx.Graph, edge_types: Iterable[str] | None = None) -> list[str]:
    if edge_types is not None:
        return list(edge_types)
    present = {d.get("type") for *_, d in G.edges(data=True)}
    return [t for t in EDGE_TYPES if t in present] + sorted(t for t in present - set(EDGE_TYPES) if t)


def _edges(G: nx.Graph, edge_types: Iterable[str] | None = None):
    """(u, v, data) for edges whose type is in ``edge_types`` (all when None)."""
    wanted = None if edge_types is None else set(edge_types)
    for u, v, data in G.edges(data=True):
        if wanted is None or data.get("type") in wanted:
            yield u, v, data


def bin_label(weight: float, bins: tuple[float, ...] = WEIGHT_BINS) -> str:
    """``"0.3-0.5"`` style label: bins are [lo, hi), the last one closed."""
    for lo, hi in zip(bins, bins[1:], strict=False):
        if lo <= weight < hi:
            return f"{lo:g}-{hi:g}"
    if weight == bins[-1]:
        return f"{bins[-2]:g}-{bins[-1]:g}"
    return f"<{bins[0]:g}" if weight < bins[0] else f">{bins[-1]:g}"


def bin_labels(bins: tuple[float, ...] = WEIGHT_BINS) -> list[str]:
    return [f"{lo:g}-{hi:g}" for lo, hi in zip(bins, bins[1:], strict=False)]


def _quantile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


# -- edge weights ------------------------------------------------------------------------------
def edge_weights(G: nx.Graph, edge_types: Iterable[str] | None = None) -> dict[str, list[float]]:
    """Edge type -> its weights (sorted), for plots."""
    out: dict[str, list[float]] = {t: [] for t in _types_of(G, edge_types)}
    for _, _, data in _edges(G, edge_types):
        out.setdefault(data["type"], []).append(float(data["weight"]))
    return {t: sorted(w) for t, w in out.items()}


def weight_summary(G: nx.Graph, edge_types: Iterable[str] | None = None) -> dict[str, dict[str, float]]:
    """Per edge type: count, min, p25, median, p75, max, mean (4 decimals)."""
    out = {}
    for etype, values in edge_weights(G, edge_types).items():
        out[etype] = {"count": len(values)} | {
            name: round(val, 4) for name, val in (
                ("min", values[0] if values else 0.0), ("p25", _quantile(values, 0.25)),
                ("median", _quantile(values, 0.5)), ("p75", _quantile(values, 0.75)),
                ("max", values[-1] if values else 0.0),
                ("mean", statistics.fmean(values) if values else 0.0))}
    return out


def weight_histogram(G: nx.Graph, bins: tuple[float, ...] = WEIGHT_BINS,
                     edge_types: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
    """Per edge type: weight bin label -> number of edges."""
    out = {t: dict.fromkeys(bin_labels(bins), 0) for t in _types_of(G, edge_types)}
    for _, _, data in _edges(G, edge_types):
        label = bin_label(float(data["weight"]), bins)
        row = out.setdefault(data["type"], dict.fromkeys(bin_labels(bins), 0))
        row[label] = row.get(label, 0) + 1
    return out


# -- degrees and hubs --------------------------------------------------------------------------
def degrees(G: nx.Graph, edge_type: str | None = None, weighted: bool = False) -> dict[str, float]:
    """Node -> number of edges (of ``edge_type``; all types when None), or their weight sum."""
    out: dict[str, float] = dict.fromkeys(G.nodes, 0)
    for u, v, data in _edges(G, None if edge_type is None else [edge_type]):
        inc = float(data["weight"]) if weighted else 1
        out[u] += inc
        if v != u:
            out[v] += inc
    return out


def degree_distribution(G: nx.Graph, edge_type: str | None = None) -> dict[int, int]:
    """Degree -> number of memories with it (ascending degree, zero included)."""
    return dict(sorted(Counter(int(d) for d in degrees(G, edge_type).values()).items()))


def degree_summary(G: nx.Graph, caps: Mapping[str, int] | None = None) -> dict[str, dict[str, float]]:
    """Per edge type (and ``"all"``): max, mean, median degree, memories with none, and --
    given the linker's ``caps`` (``EdgeSettings.max_degree``) -- the share at the cap: a high
    share means eviction is deciding which edges survive."""
    out = {}
    for etype in [*_types_of(G), "all"]:
        values = sorted(degrees(G, None if etype == "all" else etype).values())
        row = {"max": max(values, default=0), "mean": round(statistics.fmean(values), 4) if values else 0.0,
               "median": _quantile(values, 0.5), "zero": sum(1 for v in values if v == 0)}
        if caps and etype in caps and values:
            row["cap"] = caps[etype]
            row["at_cap_share"] = round(sum(1 for v in values if v >= caps[etype]) / len(values), 4)
        out[etype] = row
    return out


def hubs(G: nx.Graph, top: int = 10, edge_type: str | None = None, by: str = "degree") -> list[dict[str, Any]]:
    """The ``top`` memories by degree (or ``by="weighted"``: weight sum), ties on id, with
    their per-type degree and a content snippet."""
    plain = degrees(G, edge_type)
    weighted = degrees(G, edge_type, weighted=True)
    per_type = {t: degrees(G, t) for t in _types_of(G)}
    key = weighted if by == "weighted" else plain
    ranked = sorted(G.nodes, key=lambda n: (-key[n], n))[:top]
    return [{"id": n, "degree": int(plain[n]), "weighted_degree": round(weighted[n], 4),
             "by_type": {t: int(per_type[t][n]) for t in per_type},
             "category": G.nodes[n].get("category"), "tags": G.nodes[n].get("tags", []),
             "content": (G.nodes[n].get("content") or "")[:80]} for n in ranked]


# -- structure ---------------------------------------------------------------------------------
def collapse(G: nx.Graph, edge_types: Iterable[str] | None = None, combine: str = "max") -> nx.Graph:
    """A simple ``Graph`` with one edge per linked pair: ``weight`` is the max (or ``"sum"``)
    of the pair's edge weights, ``types`` the sorted list of its edge types. All nodes kept."""
    if combine not in ("max", "sum"):
        raise ValueError("combine must be 'max' or 'sum'")
    H = nx.Graph()
    H.add_nodes_from(G.nodes(data=True))
    for u, v, data in _edges(G, edge_types):
        w = float(data["weight"])
        if H.has_edge(u, v):
            cur = H.edges[u, v]
            cur["weight"] = max(cur["weight"], w) if combine == "max" else cur["weight"] + w
            cur["types"] = sorted({*cur["types"], data["type"]})
        else:
            H.add_edge(u, v, weight=w, types=[data["type"]])
    return H


def isolated_memories(G: nx.Graph, edge_types: Iterable[str] | None = None) -> list[str]:
    """Memories without any edge (of the given types), sorted."""
    linked = {n for u, v, _ in _edges(G, edge_types) for n in (u, v)}
    return sorted(n for n in G.nodes if n not in linked)


def components(G: nx.Graph, edge_types: Iterable[str] | None = None) -> dict[str, Any]:
    """Connected components: count, sizes (largest first), the largest's share of memories,
    and the isolated memories (components of size 1)."""
    H = collapse(G, edge_types)
    comps = sorted((sorted(c) for c in nx.connected_components(H)), key=lambda c: (-len(c), c[0]))
    n = H.number_of_nodes()
    return {"count": len(comps), "sizes": [len(c) for c in comps],
            "largest_share": round(len(comps[0]) / n, 4) if comps else 0.0,
            "isolated": isolated_memories(G, edge_types), "members": comps}


def communities(G: nx.Graph, seed: int = 7, resolution: float = 1.0,
                edge_types: Iterable[str] | None = None, combine: str = "sum",
                top_labels: int = 3) -> dict[str, Any]:
    """Louvain communities (networkx, fixed ``seed``) on the collapsed graph (pair weight =
    sum over types by default: several relations make a stronger tie). Returns modularity and
    the communities, largest first, each with its size, members and the most common
    categories and tags (to name it)."""
    H = collapse(G, edge_types, combine)
    if H.number_of_edges() == 0:
        parts = [{n} for n in H.nodes]
        modularity = 0.0
    else:
        parts = nx.community.louvain_communities(H, weight="weight", resolution=resolution, seed=seed)
        modularity = nx.community.modularity(H, parts, weight="weight", resolution=resolution)
    rows = []
    for members in sorted((sorted(p) for p in parts), key=lambda p: (-len(p), p[0])):
        cats = Counter(G.nodes[n].get("category") for n in members if G.nodes[n].get("category"))
        tags = Counter(t for n in members for t in G.nodes[n].get("tags", []))
        rows.append({"size": len(members), "members": members,
                     "categories": [c for c, _ in sorted(cats.items(), key=lambda x: (-x[1], x[0]))[:top_labels]],
                     "tags": [t for t, _ in sorted(tags.items(), key=lambda x: (-x[1], x[0]))[:top_labels]]})
    return {"count": len(rows), "modularity": round(modularity, 4), "communities": rows}


def community_of(result: dict[str, Any]) -> dict[str, int]:
    """Node -> index of its community in a ``communities()`` result."""
    return {n: i for i, c in enumerate(result["communities"]) for n in c["members"]}


def bridges(G: nx.Graph, edge_types: Iterable[str] | None = None) -> dict[str, Any]:
    """Linked pairs whose link (all its edge types together) is the only path between two
    parts of the graph, and the memories whose removal splits their component (cut
    memories). Bridges to a memory with no other link (leaves) are counted separately."""
    H = collapse(G, edge_types)
    found = []
    for u, v in nx.bridges(H):
        a, b = sorted((u, v))
        leaf = H.degree(a) == 1 or H.degree(b) == 1
        found.append({"a": a, "b": b, "types": H.edges[a, b]["types"],
                      "weight": round(H.edges[a, b]["weight"], 4), "leaf": leaf})
    found.sort(key=lambda r: (r["leaf"], r["a"], r["b"]))
    return {"count": len(found), "non_leaf": sum(1 for r in found if not r["leaf"]), "bridges": found,
            "cut_memories": sorted(nx.articulation_points(H))}


def type_overlap(G: nx.Graph) -> dict[str, int]:
    """How many linked pairs carry each combination of edge types (``"SAME_CATEGORY+SHARES_TAG"``)."""
    H = collapse(G)
    return dict(sorted(Counter("+".join(d["types"]) for *_, d in H.edges(data=True)).items(),
                       key=lambda x: (-x[1], x[0])))


# -- retrieval attribution -----------------------------------------------------------------------
def _result_list(obj: Any) -> list[dict[str, Any]]:
    """One query's results as dicts with id, score, kind, why (accepts a SearchOutcome, its
    candidates, an ``engine.search`` response, an eval ``QueryRun``, or result dicts)."""
    if hasattr(obj, "candidates"):
        obj = obj.candidates
    elif isinstance(obj, Mapping) and "results" in obj:
        obj = obj["results"]
    elif hasattr(obj, "results"):
        obj = obj.results
    out = []
    for item in obj:
        if hasattr(item, "why") and hasattr(item, "memory"):
            why = item.why()
            out.append({"id": item.memory.id, "score": item.score, "kind": why["kind"], "why": why})
        else:
            why = item.get("why")
            out.append({"id": item["id"], "score": item.get("score"),
                        "kind": item.get("kind") or (why or {}).get("kind"), "why": why})
    return out


def _relevant_set(value: Any) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, Mapping):
        return {k for k, grade in value.items() if grade and float(grade) > 0}
    if isinstance(value, str):
        return {value}
    return set(value)


def _is_single(obj: Any) -> bool:
    """True for one query's results, False for many queries' runs."""
    if hasattr(obj, "candidates"):
        return True
    if isinstance(obj, Mapping):
        return "results" in obj and "query_id" not in obj
    items = list(obj)
    if not items:
        return True
    first = items[0]
    if hasattr(first, "memory"):
        return True
    return isinstance(first, Mapping) and "results" not in first


def _queries(trace: Any, relevant: Any) -> list[tuple[str, list[dict[str, Any]], set[str]]]:
    """Normalise to [(query id, results, relevant ids)]."""
    if _is_single(trace):
        return [("q", _result_list(trace), _relevant_set(relevant))]
    runs: list[tuple[str, Any, Any]] = []
    if isinstance(trace, Mapping):           # query id -> results
        runs = [(str(qid), res, None) for qid, res in trace.items()]
    else:                                    # per-query records: QueryRun or {"query_id", "results"}
        for i, rec in enumerate(trace):
            if isinstance(rec, Mapping):
                qid, own = rec.get("query_id") or rec.get("id") or f"q{i}", rec.get("relevant_ids")
            else:
                qid, own = getattr(rec, "query_id", None) or f"q{i}", None
            runs.append((str(qid), rec, own))
    out = []
    for qid, res, own in runs:
        rel = own if own is not None else (relevant.get(qid) if isinstance(relevant, Mapping) else relevant)
        out.append((qid, _result_list(res), _relevant_set(rel)))
    return out


def edge_attribution(eval_trace_or_results: Any, relevant_ids: Any, k: int | None = None,
                     bins: tuple[float, ...] = WEIGHT_BINS) -> dict[str, Any]:
    """Which edge types and weight bins brought relevant vs irrelevant neighbours into the top k.

    Input: one query's results (``SearchOutcome``, its candidates, an ``engine.search``
    response or its ``results``; each result needs its ``why``) with ``relevant_ids`` (ids,
    or ``{id: grade}``); or many queries (``{query_id: results}``, or records with
    ``query_id`` + ``results`` such as the eval harness's ``QueryRun``s) with ``relevant_ids``
    as ``{query_id: ids}`` (or ``relevant_ids`` inside each record).

    A ``related`` result (added by expansion) is attributed to its best path (the one that
    set its score: seed, edge type, weight); ``all_paths`` counts every path (each seed and
    type that reached it); ``merged`` counts paths into ``direct+related`` results (direct
    hits expansion also reached, which it did not bring in). ``rows`` has one row per path.
    """
    bin_names = bin_labels(bins)

    def zero() -> dict[str, Any]:
        return {"relevant": 0, "irrelevant": 0}

    by_type: dict[str, dict[str, Any]] = {}
    by_bin: dict[str, dict[str, dict[str, int]]] = {}
    all_paths: dict[str, dict[str, Any]] = {}
    merged: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    totals: Counter[str] = Counter()
    queries = _queries(eval_trace_or_results, relevant_ids)
    for qid, results, relevant in queries:
        top = results[:k] if k else results
        totals["results"] += len(top)
        for rank, res in enumerate(top, start=1):
            is_rel = res["id"] in relevant
            totals["relevant_results"] += is_rel
            kind = res.get("kind")
            paths = ((res.get("why") or {}).get("related")) or []
            if kind in ("related", "direct+related"):
                totals[kind] += 1
                totals[f"{kind}_relevant"] += is_rel
            if kind == "related" and not paths:
                totals["unattributed"] += 1
                continue
            label = "relevant" if is_rel else "irrelevant"
            for i, path in enumerate(paths):
                etype, weight = path["edge"], float(path["weight"])
                wbin = bin_label(weight, bins)
                rows.append({"query": qid, "id": res["id"], "rank": rank, "relevant": is_rel, "kind": kind,
                             "seed": path["seed"], "seed_relevant": path["seed"] in relevant, "edge": etype,
                             "weight": weight, "bin": wbin, "path_score": path.get("score"), "best": i == 0})
                if kind == "related":
                    all_paths.setdefault(etype, zero())[label] += 1
                    if i == 0:
                        by_type.setdefault(etype, zero())[label] += 1
                        cell = by_bin.setdefault(etype, {b: zero() for b in bin_names})
                        cell.setdefault(wbin, zero())[label] += 1
                elif kind == "direct+related":
                    merged.setdefault(etype, zero())[label] += 1
    for table in (by_type, all_paths, merged):
        for row in table.values():
            n = row["relevant"] + row["irrelevant"]
            row["precision"] = round(row["relevant"] / n, 4) if n else None
    order = {t: i for i, t in enumerate(EDGE_TYPES)}

    def ordered(table: dict) -> dict:
        return dict(sorted(table.items(), key=lambda x: (order.get(x[0], 99), x[0])))

    added = totals["related"]
    return {
        "queries": len(queries), "k": k, "results": totals["results"],
        "relevant_results": totals["relevant_results"],
        "related_results": added, "related_relevant": totals["related_relevant"],
        "related_precision": round(totals["related_relevant"] / added, 4) if added else None,
        "direct_related_results": totals["direct+related"], "unattributed": totals["unattributed"],
        "by_type": ordered(by_type), "by_bin": ordered(by_bin), "all_paths": ordered(all_paths),
        "merged": ordered(merged), "rows": rows,
    }


def compare_rankings(results_a: Any, results_b: Any) -> list[dict[str, Any]]:
    """Rank and score of each id in two result lists (e.g. recipe hybrid_expansion vs
    default; any form ``edge_attribution`` accepts for one query), with the health score and
    multiplier and the source weight from the ``why`` (``b``'s when present); ordered by rank
    in ``b`` then ``a``. ``shift`` > 0 means the id moved up in ``b``."""
    a = {r["id"]: (i, r) for i, r in enumerate(_result_list(results_a), start=1)}
    b = {r["id"]: (i, r) for i, r in enumerate(_result_list(results_b), start=1)}
    missing = (10**9, None)
    rows = []
    for node in sorted(set(a) | set(b), key=lambda n: (b.get(n, missing)[0], a.get(n, missing)[0], n)):
        ra, res_a = a.get(node, (None, None))
        rb, res_b = b.get(node, (None, None))
        why = (res_b or res_a or {}).get("why") or {}
        rows.append({"id": node, "rank_a": ra, "rank_b": rb,
                     "shift": (ra - rb) if ra is not None and rb is not None else None,
                     "score_a": res_a and res_a["score"], "score_b": res_b and res_b["score"],
                     "kind_a": res_a and res_a["kind"], "kind_b": res_b and res_b["kind"],
                     "health": (why.get("health") or {}).get("score"),
                     "health_multiplier": (why.get("health") or {}).get("multiplier"),
                     "source": (why.get("source") or {}).get("source"),
                     "source_weight": (why.get("source") or {}).get("weight")})
    return rows

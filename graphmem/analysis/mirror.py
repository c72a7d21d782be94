"""Mirror a store's (sub)graph into networkx, through the store contract only.

Why a ``MultiGraph`` keyed by edge type: the stores key an edge by ``(a, b, type)``, and two
memories often hold several types at once (same session: SHARES_TAG *and* SAME_CATEGORY,
often OVERLAPS too), each with its own weight and reason. A simple ``Graph`` would have to
merge them and lose exactly the per-type weights that expansion scores with. With
``key = type`` the mirror holds one nx edge per stored edge, so ``G.number_of_edges()``
equals the store's edge count and ``G.edges(keys=True)`` is the store's key set. Metrics
that need a simple graph (communities, bridges) collapse it explicitly
(``graphmem.analysis.metrics.collapse``).

Node attributes are the API's memory JSON (``Memory.to_dict()`` without ``id``): content,
tags, category, source, health, health_reasons, source_weight, created_at, namespace, ...
Edge attributes: ``type``, ``weight``, ``reason`` (the dict the linker wrote). Mirrors of
ids or of a query also carry analysis attributes (``ANALYSIS_NODE_ATTRS`` /
``ANALYSIS_EDGE_ATTRS``) that the API JSON export leaves out by default.

Determinism: nodes are added in a fixed order (seeds as given, then neighbours by hop and
id; a namespace in ``iter_memories`` order: created_at, id) and edges sorted by
``(a, b, type)``, so layouts with a fixed seed and every export are reproducible, and the
SQLite and Neo4j stores give identical graphs for identical data.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from graphmem.model import EDGE_TYPES, Edge, Memory

ANALYSIS_NODE_ATTRS = ("hop", "seed", "result_rank", "result_kind", "result_score", "result_why")
ANALYSIS_EDGE_ATTRS = ("expanded", "expansion_score")
DEFAULT_CHUNK = 500


def node_attrs(mem: Memory) -> dict[str, Any]:
    """The API's memory JSON minus ``id`` (the node key)."""
    data = mem.to_dict()
    data.pop("id")
    return data


def edge_attrs(edge: Edge) -> dict[str, Any]:
    return {"type": edge.type, "weight": edge.weight, "reason": edge.reason}


def _types(edge_types: Iterable[str] | None) -> tuple[str, ...]:
    if edge_types is None:
        return EDGE_TYPES
    chosen = tuple(edge_types)
    unknown = [t for t in chosen if t not in EDGE_TYPES]
    if unknown:
        raise ValueError(f"unknown edge type {unknown[0]!r}; types are {', '.join(EDGE_TYPES)}")
    return chosen


def _new_graph(store, namespace: str, kind: str, edge_types: tuple[str, ...], **extra: Any) -> nx.MultiGraph:
    return nx.MultiGraph(namespace=namespace, store=getattr(store, "kind", type(store).__name__),
                         mirror=kind, edge_types=list(edge_types), **extra)


def _add_edges(G: nx.MultiGraph, edges: Iterable[Edge]) -> None:
    """Add canonical (a < b) edges in (a, b, type) order; a repeated key is added once."""
    canon = {}
    for e in edges:
        a, b = (e.a, e.b) if e.a <= e.b else (e.b, e.a)
        canon[(a, b, e.type)] = e
    for a, b, t in sorted(canon):
        if not G.has_edge(a, b, key=t):
            G.add_edge(a, b, key=t, **edge_attrs(canon[(a, b, t)]))


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def induced_edges(store, namespace: str, ids: list[str], edge_types: Iterable[str] | None = None,
                  chunk: int = DEFAULT_CHUNK) -> list[Edge]:
    """Edges with both endpoints in ``ids``: ``edges_among`` for a small set, else ``edges_of``
    in chunks filtered to the set (keeps every store query bounded in size)."""
    types = set(_types(edge_types))
    if not ids:
        return []
    if len(ids) <= chunk:
        found = store.edges_among(namespace, ids)
    else:
        members = set(ids)
        found = [e for part in _chunks(ids, chunk) for e in store.edges_of(namespace, part)
                 if e.a in members and e.b in members]
    return [e for e in found if e.type in types]


def _neighbour_ids(store, namespace: str, frontier: list[str], edge_types: tuple[str, ...],
                   per_node: int | None, min_weight: float, chunk: int) -> list[str]:
    """Ids one hop from ``frontier``: every edge (``edges_of``), or each node's ``per_node``
    strongest (``neighbors``, the way ``Graphmem.graph`` expands)."""
    found: list[str] = []
    frontier_set = set(frontier)
    for part in _chunks(frontier, chunk):
        if per_node is None:
            for e in store.edges_of(namespace, part):
                if e.type in edge_types and e.weight >= min_weight:
                    found += [n for n in (e.a, e.b) if n not in frontier_set]
        else:
            found += [e.b for e in store.neighbors(namespace, part, per_node, min_weight, list(edge_types))]
    return sorted(set(found) - frontier_set)


def mirror_ids(store, namespace: str, ids: list[str], hops: int = 1, *,
               edge_types: Iterable[str] | None = None, per_node: int | None = None,
               min_weight: float = 0.0, chunk: int = DEFAULT_CHUNK) -> nx.MultiGraph:
    """The subgraph induced by ``ids`` and everything within ``hops`` of them.

    ``per_node=None`` takes every neighbour (all edges of the given types with weight >=
    ``min_weight``); ``per_node=50`` reproduces ``Graphmem.graph``'s node set. Node attribute
    ``hop`` is the distance from the seeds (``seed`` is True for hop 0); ids not in the store
    are listed in ``G.graph["missing_ids"]``.
    """
    types = _types(edge_types)
    seeds = list(dict.fromkeys(ids))
    G = _new_graph(store, namespace, "ids", types, seeds=seeds, hops=hops, per_node=per_node,
                   min_weight=min_weight)
    found = store.get_memories(namespace, seeds)
    G.graph["missing_ids"] = [i for i in seeds if i not in found]
    order: list[tuple[str, int]] = [(i, 0) for i in seeds if i in found]
    seen = {i for i, _ in order}
    frontier = [i for i, _ in order]
    for hop in range(1, max(0, hops) + 1):
        if not frontier:
            break
        new = [i for i in _neighbour_ids(store, namespace, frontier, types, per_node, min_weight, chunk)
               if i not in seen]
        fetched = {}
        for part in _chunks(new, chunk):
            fetched.update(store.get_memories(namespace, part))
        new = [i for i in new if i in fetched]
        found.update(fetched)
        order += [(i, hop) for i in new]
        seen.update(new)
        frontier = new
    for node_id, hop in order:
        G.add_node(node_id, **node_attrs(found[node_id]), hop=hop, seed=hop == 0)
    _add_edges(G, induced_edges(store, namespace, [i for i, _ in order], types, chunk))
    return G


@dataclass
class MirrorBatch:
    """One step of a streamed namespace mirror: the batch's memories and every edge whose
    later endpoint (in ``iter_memories`` order) is in this batch, so each edge appears in
    exactly one batch and only after both its endpoints have appeared."""

    nodes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    edges: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)

    def graph(self) -> nx.MultiGraph:
        G = nx.MultiGraph()
        G.add_nodes_from(self.nodes)
        for a, b, key, data in self.edges:
            G.add_edge(a, b, key=key, **data)
        return G


def iter_namespace(store, namespace: str, batch_size: int = 500,
                   edge_types: Iterable[str] | None = None) -> Iterator[MirrorBatch]:
    """Stream a namespace as ``MirrorBatch``es: one ``iter_memories`` batch and one
    ``edges_of`` call per step; only the ids seen so far are kept between steps."""
    types = set(_types(edge_types))
    seen: set[str] = set()
    for memories in store.iter_memories(namespace, batch_size):
        batch = MirrorBatch(nodes=[(m.id, node_attrs(m)) for m in memories])
        seen.update(m.id for m in memories)
        canon: dict[tuple[str, str, str], Edge] = {}
        for e in store.edges_of(namespace, [m.id for m in memories]):
            if e.type in types and e.a in seen and e.b in seen:
                a, b = (e.a, e.b) if e.a <= e.b else (e.b, e.a)
                canon[(a, b, e.type)] = e
        batch.edges = [(a, b, t, edge_attrs(canon[(a, b, t)])) for a, b, t in sorted(canon)]
        yield batch


def mirror_namespace(store, namespace: str, batch_size: int = 500, *,
                     edge_types: Iterable[str] | None = None, progress=None) -> nx.MultiGraph:
    """Every memory and edge of a namespace, read in batches (``iter_namespace``); store
    reads stay bounded by ``batch_size``, the result is as large as the namespace.
    ``progress`` (optional) is called with the number of memories of each batch."""
    types = _types(edge_types)
    G = _new_graph(store, namespace, "namespace", types, batch_size=batch_size)
    for batch in iter_namespace(store, namespace, batch_size, types):
        G.add_nodes_from(batch.nodes)
        for a, b, key, data in batch.edges:
            if not G.has_edge(a, b, key=key):
                G.add_edge(a, b, key=key, **data)
        if progress is not None:
            progress(len(batch.nodes))
    return G


def mark_results(G: nx.MultiGraph, results: list[dict[str, Any]]) -> nx.MultiGraph:
    """Mark result nodes (``result_rank`` 1-based, ``result_kind``, ``result_score``,
    ``result_why``) and the edges expansion walked (``expanded``, ``expansion_score``:
    the best path score over that edge) from search result dicts with ``why``."""
    for _, _, data in G.edges(data=True):
        data["expanded"] = False
    for rank, res in enumerate(results, start=1):
        node = res["id"]
        if node not in G:
            continue
        why = res.get("why") or {}
        G.nodes[node].update(result_rank=rank, result_kind=res.get("kind", why.get("kind")),
                             result_score=res.get("score"), result_why=why)
        for path in why.get("related", []):
            seed, etype = path["seed"], path["edge"]
            if G.has_edge(seed, node, key=etype):
                data = G.edges[seed, node, etype]
                data["expanded"] = True
                data["expansion_score"] = max(data.get("expansion_score", 0.0), path.get("score", 0.0))
    return G


def mirror_query(engine, namespace: str, query: str, k: int = 10, hops: int = 1, *,
                 recipe: str | None = None, filters=None, stages=None, params=None,
                 edge_types: Iterable[str] | None = None, per_node: int | None = None,
                 min_weight: float = 0.0) -> nx.MultiGraph:
    """The neighbourhood of a query's results: ``engine.search`` (so recipe, stages, params and
    filters work as in the API), then ``mirror_ids`` around the result ids, with results marked
    (``mark_results``). ``G.graph`` keeps the query, the recipe, the result dicts (with ``why``)
    and the trace."""
    from graphmem.views import dump

    found = dump(engine.search(query, namespace, k, filters=filters, recipe=recipe, stages=stages, params=params,
                               explain=True, trace=True))
    results = found["results"]
    G = mirror_ids(engine.store, namespace, [r["id"] for r in results], hops, edge_types=edge_types,
                   per_node=per_node, min_weight=min_weight)
    G.graph.update(mirror="query", query=query, k=k, recipe=found["trace"].get("recipe"),
                   results=results, trace=found["trace"])
    return mark_results(G, results)


def subgraph(G: nx.MultiGraph, nodes: Iterable[str]) -> nx.MultiGraph:
    """The induced subgraph as a new graph in ``G``'s node and edge order. (``G.subgraph`` is a
    view that, for small selections, iterates in set order, which varies between runs and so
    changes seeded layouts and Louvain results.)"""
    keep = set(nodes)
    H = G.__class__()
    H.graph.update(G.graph)
    H.add_nodes_from((n, d) for n, d in G.nodes(data=True) if n in keep)
    H.add_edges_from((u, v, k, d) for u, v, k, d in G.edges(keys=True, data=True) if u in keep and v in keep)
    return H


def same_graph(G1: nx.MultiGraph, G2: nx.MultiGraph, *, ignore: Iterable[str] = ()) -> list[str]:
    """Differences between two mirrors (nodes, edge keys, attributes); empty when equal.
    ``ignore`` names node attributes left out of the comparison."""
    skip = set(ignore)
    problems: list[str] = []
    n1, n2 = set(G1.nodes), set(G2.nodes)
    if n1 != n2:
        problems.append(f"nodes only in first: {sorted(n1 - n2)[:5]}, only in second: {sorted(n2 - n1)[:5]}")
    for node in sorted(n1 & n2):
        a = {k: v for k, v in G1.nodes[node].items() if k not in skip}
        b = {k: v for k, v in G2.nodes[node].items() if k not in skip}
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            problems.append(f"node {node}: attributes differ: {keys}")
    e1 = {(min(u, v), max(u, v), k): d for u, v, k, d in G1.edges(keys=True, data=True)}
    e2 = {(min(u, v), max(u, v), k): d for u, v, k, d in G2.edges(keys=True, data=True)}
    if set(e1) != set(e2):
        problems.append(f"edges only in first: {sorted(set(e1) - set(e2))[:5]}, "
                        f"only in second: {sorted(set(e2) - set(e1))[:5]}")
    for key in sorted(set(e1) & set(e2)):
        if e1[key] != e2[key]:
            problems.append(f"edge {key}: {e1[key]} != {e2[key]}")
    return problems

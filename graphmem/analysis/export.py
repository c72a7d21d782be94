"""Export a mirror to GraphML, GEXF (Gephi, yEd, Cytoscape) or the API's graph JSON.

GraphML and GEXF only hold scalar attributes: lists and dicts (tags, health_reasons, an
edge's reason, metadata, a result's why) are written as JSON text, and None-valued
attributes are left out. The names of the JSON-encoded attributes are recorded in the graph
attribute ``graphmem_json_attrs`` (GEXF drops graph attributes: there the mirror's known
list, ``JSON_ATTRS``, is used), so ``read_graphml`` / ``read_gexf`` here decode them back and
restore the left-out memory fields as None: an exact round trip of nodes and edges (and, for
GraphML, of the graph attributes).

GEXF reserves an edge attribute ``type`` (directed/undirected), so the edge type is written
as ``edge_type`` (and as the edge label); ``read_gexf`` puts it back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from graphmem.analysis.mirror import ANALYSIS_EDGE_ATTRS, ANALYSIS_NODE_ATTRS

FORMATS = ("graphml", "gexf", "json")
# Memory.to_dict keys (besides id) that are always present, None or not; "evidence" is
# present only when set, as in the API.
MEMORY_KEYS = ("namespace", "content", "tags", "category", "source", "reason", "metadata", "created_at",
               "updated_at", "valid_from", "valid_until", "expires_at", "superseded_by", "health",
               "health_reasons", "source_weight", "near_duplicate_of", "thread", "seq")
_SCALARS = (str, int, float, bool)
# JSON-encoded attributes of a mirror; used when a file does not say (GEXF drops graph attributes).
JSON_ATTRS = {"node": ["entities", "evidence", "health_reasons", "metadata", "result_why", "tags", "times",
                       "topics"],
              "edge": ["reason"],
              "graph": ["edge_types", "missing_ids", "results", "seeds", "trace"]}


# -- API JSON ---------------------------------------------------------------------------------
def to_json(G: nx.Graph, include_analysis: bool = False) -> dict[str, Any]:
    """``{"nodes": [memory JSON], "edges": [{source, target, type, weight, reason}]}``: the
    shape ``Graphmem.graph`` (GET /v1/graph) returns. Nodes in mirror order, edges canonical
    (source < target) in (source, target, type) order. ``include_analysis`` keeps the
    mirror's analysis attributes (hop, result rank/kind/score/why, expanded)."""
    nodes = []
    for node, data in G.nodes(data=True):
        row = {"id": node}
        row.update((k, v) for k, v in data.items() if include_analysis or k not in ANALYSIS_NODE_ATTRS)
        nodes.append(row)
    edges = []
    for u, v, data in G.edges(data=True):
        a, b = (u, v) if u <= v else (v, u)
        row = {"source": a, "target": b, "type": data["type"], "weight": data["weight"],
               "reason": data.get("reason", {})}
        if include_analysis:
            row.update((k, data[k]) for k in ANALYSIS_EDGE_ATTRS if k in data)
        edges.append(row)
    edges.sort(key=lambda e: (e["source"], e["target"], e["type"]))
    return {"nodes": nodes, "edges": edges}


def from_json(data: dict[str, Any]) -> nx.MultiGraph:
    """A mirror from the API's graph JSON (``Graphmem.graph`` output or ``to_json``)."""
    G = nx.MultiGraph()
    for row in data["nodes"]:
        G.add_node(row["id"], **{k: v for k, v in row.items() if k != "id"})
    for e in data["edges"]:
        extra = {k: v for k, v in e.items() if k not in ("source", "target", "type", "weight", "reason")}
        G.add_edge(e["source"], e["target"], key=e["type"], type=e["type"], weight=e["weight"],
                   reason=e.get("reason", {}), **extra)
    return G


def write_json(G: nx.Graph, path: str | Path, include_analysis: bool = False, indent: int | None = 2) -> None:
    text = json.dumps(to_json(G, include_analysis), ensure_ascii=False, indent=indent)
    if str(path) == "-":
        print(text)
    else:
        Path(path).write_text(text + "\n", encoding="utf-8")


# -- scalar attributes for GraphML / GEXF --------------------------------------------------------
def _scalar(value: Any) -> tuple[Any, bool]:
    """(value fit for GraphML/GEXF, whether it was JSON-encoded); None stays None (dropped)."""
    if value is None or isinstance(value, _SCALARS):
        return value, False
    if hasattr(value, "item"):                      # numpy scalar
        return value.item(), False
    return json.dumps(value, ensure_ascii=False, sort_keys=True), True


def _scalar_dict(data: dict[str, Any], encoded: set[str]) -> dict[str, Any]:
    out = {}
    for key, value in data.items():
        scalar, was_json = _scalar(value)
        if scalar is None:
            continue
        if was_json:
            encoded.add(key)
        out[key] = scalar
    return out


def scalar_copy(G: nx.Graph, edge_type_attr: str = "type") -> nx.MultiGraph:
    """A copy with only scalar attributes (see module docstring). ``edge_type_attr`` renames
    the edge ``type`` attribute (GEXF needs ``edge_type``)."""
    node_json: set[str] = set()
    edge_json: set[str] = set()
    graph_json: set[str] = set()
    H = nx.MultiGraph()
    for node, data in G.nodes(data=True):
        H.add_node(node, **_scalar_dict(data, node_json))
    for u, v, key, data in G.edges(keys=True, data=True):
        attrs = _scalar_dict(data, edge_json)
        if edge_type_attr != "type" and "type" in attrs:
            attrs[edge_type_attr] = attrs.pop("type")
            attrs["label"] = attrs[edge_type_attr]
        H.add_edge(u, v, key=key, **attrs)
    H.graph.update(_scalar_dict(dict(G.graph), graph_json))
    H.graph["graphmem_json_attrs"] = json.dumps(
        {"node": sorted(node_json), "edge": sorted(edge_json), "graph": sorted(graph_json)})
    return H


def _decode(H: nx.Graph, edge_type_attr: str = "type") -> nx.MultiGraph:
    spec = json.loads(H.graph.pop("graphmem_json_attrs", "") or "null") or JSON_ATTRS
    G = nx.MultiGraph()
    for key, value in H.graph.items():
        G.graph[key] = json.loads(value) if key in spec.get("graph", []) else value
    for node, data in H.nodes(data=True):
        attrs = {k: (json.loads(v) if k in spec.get("node", []) and isinstance(v, str) else v)
                 for k, v in data.items() if k != "label"}
        if "content" in attrs:                       # a memory node: restore left-out fields
            for name in MEMORY_KEYS:
                attrs.setdefault(name, None)
        G.add_node(node, **attrs)
    for u, v, data in H.edges(data=True):
        attrs = {k: (json.loads(val) if k in spec.get("edge", []) and isinstance(val, str) else val)
                 for k, val in data.items() if k not in ("id", "label", "key")}
        etype = attrs.pop(edge_type_attr, None) or data.get("key")
        attrs["type"] = etype
        G.add_edge(u, v, key=etype, **attrs)
    return G


def write_graphml(G: nx.Graph, path: str | Path) -> None:
    """GraphML; each edge's id is its type (the MultiGraph key)."""
    nx.write_graphml(scalar_copy(G), str(path))


def read_graphml(path: str | Path) -> nx.MultiGraph:
    H = nx.read_graphml(str(path), edge_key_type=str, force_multigraph=True)
    return _decode(H)


def write_gexf(G: nx.Graph, path: str | Path) -> None:
    """GEXF 1.2; the edge type is in ``edge_type`` and the edge label."""
    nx.write_gexf(scalar_copy(G, edge_type_attr="edge_type"), str(path))


def read_gexf(path: str | Path) -> nx.MultiGraph:
    H = nx.read_gexf(str(path))
    if not H.is_multigraph():
        H = nx.MultiGraph(H)
    return _decode(H, edge_type_attr="edge_type")


def export_graph(G: nx.Graph, fmt: str, path: str | Path, include_analysis: bool = False) -> None:
    """Write ``G`` as ``fmt`` (graphml, gexf or json) to ``path`` (json also to ``-``: stdout)."""
    if fmt == "graphml":
        write_graphml(G, path)
    elif fmt == "gexf":
        write_gexf(G, path)
    elif fmt == "json":
        write_json(G, path, include_analysis)
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")


def read_graph(fmt: str, path: str | Path) -> nx.MultiGraph:
    if fmt == "graphml":
        return read_graphml(path)
    if fmt == "gexf":
        return read_gexf(path)
    if fmt == "json":
        return from_json(json.loads(Path(path).read_text(encoding="utf-8")))
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")

"""Pure metrics over hand-built mirrors and result dicts (no store, no model)."""

from __future__ import annotations

from types import SimpleNamespace

import networkx as nx
import pytest

from graphmem.analysis import metrics


def _graph() -> nx.MultiGraph:
    """Two triangles joined by one SHARES_TAG edge (a bridge), one pendant, one isolated node."""
    G = nx.MultiGraph()
    for n, cat, tags in [("a", "x", ["t1"]), ("b", "x", ["t1"]), ("c", "x", ["t1", "t2"]), ("d", "y", ["t2"]),
                         ("e", "y", ["t3"]), ("f", "y", ["t3"]), ("g", "z", []), ("h", None, [])]:
        G.add_node(n, category=cat, tags=tags, content=f"memory {n}")
    edges = [("a", "b", "SHARES_TAG", 1.0), ("a", "b", "SAME_CATEGORY", 0.6), ("b", "c", "SHARES_TAG", 0.8),
             ("a", "c", "OVERLAPS", 0.35), ("c", "d", "SHARES_TAG", 0.5), ("d", "e", "SAME_CATEGORY", 0.7),
             ("e", "f", "SHARES_TAG", 0.95), ("d", "f", "SAME_CATEGORY", 0.65), ("f", "g", "OVERLAPS", 0.25)]
    for u, v, t, w in edges:
        G.add_edge(u, v, key=t, type=t, weight=w, reason={})
    return G


def test_weights_and_histogram():
    G = _graph()
    assert metrics.edge_weights(G)["SHARES_TAG"] == [0.5, 0.8, 0.95, 1.0]
    summary = metrics.weight_summary(G)
    assert summary["SHARES_TAG"]["count"] == 4 and summary["SHARES_TAG"]["median"] == 0.875
    assert summary["OVERLAPS"]["min"] == 0.25 and "RELATED" not in summary
    hist = metrics.weight_histogram(G)
    assert hist["SHARES_TAG"] == {"0-0.3": 0, "0.3-0.5": 0, "0.5-0.7": 1, "0.7-0.9": 1, "0.9-1": 2}
    assert sum(sum(row.values()) for row in hist.values()) == G.number_of_edges()
    assert metrics.bin_label(0.3) == "0.3-0.5" and metrics.bin_label(1.0) == "0.9-1"


def test_degrees_hubs_components():
    G = _graph()
    assert metrics.degree_distribution(G) == {0: 1, 1: 1, 2: 1, 3: 5}
    assert metrics.degree_distribution(G, "SHARES_TAG")[0] == 2
    summary = metrics.degree_summary(G, caps={"SHARES_TAG": 2})
    assert summary["SHARES_TAG"]["max"] == 2 and summary["SHARES_TAG"]["at_cap_share"] == 0.25
    assert summary["all"]["zero"] == 1
    assert [h["id"] for h in metrics.hubs(G, top=2)] == ["a", "b"]               # degree 3 ties: by id
    top = metrics.hubs(G, top=2, by="weighted")
    assert [h["id"] for h in top] == ["b", "a"] and top[0]["weighted_degree"] == 2.4
    assert top[0]["by_type"] == {"SHARES_TAG": 2, "SAME_CATEGORY": 1, "OVERLAPS": 0}
    comps = metrics.components(G)
    assert comps["count"] == 2 and comps["sizes"] == [7, 1] and comps["isolated"] == ["h"]
    assert metrics.isolated_memories(G, ["SHARES_TAG"]) == ["g", "h"]


def test_collapse_bridges_communities():
    G = _graph()
    H = metrics.collapse(G)
    assert H.number_of_edges() == 8 and H.edges["a", "b"]["types"] == ["SAME_CATEGORY", "SHARES_TAG"]
    assert H.edges["a", "b"]["weight"] == 1.0
    assert metrics.collapse(G, combine="sum").edges["a", "b"]["weight"] == 1.6
    found = metrics.bridges(G)
    pairs = {(b["a"], b["b"]) for b in found["bridges"]}
    assert pairs == {("c", "d"), ("f", "g")}
    assert found["non_leaf"] == 1 and found["cut_memories"] == ["c", "d", "f"]
    first = metrics.communities(G, seed=7)
    assert first == metrics.communities(G, seed=7)                       # deterministic
    members = sorted(n for c in first["communities"] for n in c["members"])
    assert members == sorted(G.nodes)
    groups = [set(c["members"]) for c in first["communities"]]
    assert {"a", "b", "c"} in groups and first["communities"][0]["categories"]
    assert metrics.type_overlap(G)["SAME_CATEGORY+SHARES_TAG"] == 1


def _result(id_, kind, paths=(), score=0.1):
    why = {"kind": kind, "health": {"score": 1.0, "multiplier": 1.0}, "source": {"source": "s", "weight": 0.9}}
    if paths:
        why["related"] = [{"seed": s, "edge": t, "weight": w, "score": sc} for s, t, w, sc in paths]
    return {"id": id_, "score": score, "kind": kind, "why": why}


def test_edge_attribution_single_query():
    results = [
        _result("s1", "direct"),
        _result("s2", "direct+related", [("s1", "OVERLAPS", 0.4, 0.01)]),
        _result("n1", "related", [("s1", "SHARES_TAG", 0.95, 0.05), ("s2", "OVERLAPS", 0.35, 0.02)]),
        _result("n2", "related", [("s2", "SAME_CATEGORY", 0.6, 0.03)]),
        _result("n3", "related", [("s1", "SHARES_TAG", 0.45, 0.02)]),
    ]
    out = metrics.edge_attribution(results, {"s1", "n1", "s2"})
    assert out["related_results"] == 3 and out["related_relevant"] == 1 and out["related_precision"] == 0.3333
    assert out["by_type"]["SHARES_TAG"] == {"relevant": 1, "irrelevant": 1, "precision": 0.5}
    assert out["by_type"]["SAME_CATEGORY"] == {"relevant": 0, "irrelevant": 1, "precision": 0.0}
    assert "OVERLAPS" not in out["by_type"] and out["all_paths"]["OVERLAPS"]["relevant"] == 1
    assert out["by_bin"]["SHARES_TAG"]["0.9-1"] == {"relevant": 1, "irrelevant": 0}
    assert out["by_bin"]["SHARES_TAG"]["0.3-0.5"] == {"relevant": 0, "irrelevant": 1}
    assert out["merged"]["OVERLAPS"]["relevant"] == 1
    assert len(out["rows"]) == 5 and sum(r["best"] for r in out["rows"]) == 4
    assert list(out["by_type"]) == ["SHARES_TAG", "SAME_CATEGORY"]                # EDGE_TYPES order
    # cut to top 3: only n1 remains among the related results
    assert metrics.edge_attribution(results, {"n1"}, k=3)["related_results"] == 1


def test_edge_attribution_many_queries_and_input_forms():
    q1 = [_result("a", "direct"), _result("b", "related", [("a", "SHARES_TAG", 1.0, 0.1)])]
    q2 = {"results": [_result("c", "direct"), _result("d", "related", [("c", "RELATED", 1.0, 0.1)])]}
    out = metrics.edge_attribution({"q1": q1, "q2": q2}, {"q1": ["b"], "q2": {"d": 0, "c": 2}})
    assert out["queries"] == 2
    assert out["by_type"]["SHARES_TAG"]["relevant"] == 1 and out["by_type"]["RELATED"]["irrelevant"] == 1
    assert out["rows"][1]["seed_relevant"] is True
    records = [{"query_id": "q1", "results": q1, "relevant_ids": ["b"]},
               SimpleNamespace(query_id="q2", results=q2["results"])]
    again = metrics.edge_attribution(records, {"q2": ["c"]})
    assert again["by_type"] == out["by_type"]
    # candidates (objects with .why() and .memory), as in SearchOutcome.candidates
    cands = [SimpleNamespace(memory=SimpleNamespace(id=r["id"]), score=r["score"], why=lambda r=r: r["why"])
             for r in q1]
    outcome = SimpleNamespace(candidates=cands)
    assert metrics.edge_attribution(outcome, ["b"])["by_type"]["SHARES_TAG"]["relevant"] == 1
    # eval rows without why: related results are counted as unattributed
    bare = metrics.edge_attribution([{"id": "b", "kind": "related"}], ["b"])
    assert bare["unattributed"] == 1 and bare["by_type"] == {}


def test_compare_rankings():
    a = [_result("x", "direct", score=0.3), _result("y", "direct", score=0.2), _result("z", "related", score=0.1)]
    b = [_result("y", "direct", score=0.25), _result("x", "direct", score=0.2)]
    rows = metrics.compare_rankings(a, b)
    assert [r["id"] for r in rows] == ["y", "x", "z"]
    assert rows[0]["shift"] == 1 and rows[1]["shift"] == -1 and rows[2]["rank_b"] is None
    assert rows[0]["source_weight"] == 0.9


def test_collapse_rejects_unknown_combine():
    with pytest.raises(ValueError):
        metrics.collapse(_graph(), combine="mean")

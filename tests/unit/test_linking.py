"""Edge planning: weights and reasons per type, and the degree bound under any insert order."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.config import load_settings
from graphmem.ingest.linking import EdgePlan, apply_degree_caps, propose_edges, tag_rarity
from graphmem.model import LINK_TYPES, Memory
from graphmem.text import content_hash, term_counts

CFG = load_settings(use_env=False).edges


def plan_edges(mem, candidates, tag_df, existing, cfg) -> EdgePlan:
    """What ingest does for one new memory: propose each type's strongest edges, then apply the caps."""
    return apply_degree_caps(mem.id, propose_edges(mem, candidates, tag_df, cfg), existing, cfg)


def mem(i, text, tags=(), category=None, ns="ns", vec=None):
    v = np.asarray(vec if vec is not None else np.random.RandomState(i).rand(8), dtype=np.float32)
    return Memory(id=f"m{i:03d}", namespace=ns, content=text, content_hash=content_hash(text), tags=list(tags),
                  category=category, embedding=v / np.linalg.norm(v), term_counts=term_counts(text))


def test_edge_types_weights_and_reasons():
    a = mem(1, "billing service deploy uses helm chart version pinning", ["billing", "deploy"], "ops")
    b = mem(2, "billing service deploy needs helm chart approval", ["billing", "deploy"], "ops")
    plan = plan_edges(a, [b], {"billing": 2, "deploy": 2}, {}, CFG)
    by_type = {e.type: e for e in plan.add}
    assert set(by_type) == {"SHARES_TAG", "SAME_CATEGORY", "OVERLAPS"}
    assert by_type["SHARES_TAG"].reason["tags"] == ["billing", "deploy"]
    assert by_type["SHARES_TAG"].weight <= CFG.shares_tag_weight
    assert by_type["SAME_CATEGORY"].reason["category"] == "ops"
    assert {"billing", "deploy", "helm", "chart"} <= set(by_type["OVERLAPS"].reason["terms"])
    assert all(e.a < e.b for e in plan.add)


def test_two_shared_tags_beat_one_and_rare_tags_beat_common():
    a = mem(1, "x", ["billing", "deploy"])
    two = plan_edges(a, [mem(2, "y", ["billing", "deploy"])], {"billing": 5, "deploy": 5}, {}, CFG).add[0]
    one = plan_edges(a, [mem(3, "z", ["billing"])], {"billing": 5, "deploy": 5}, {}, CFG).add[0]
    assert two.weight > one.weight
    assert tag_rarity(2) > tag_rarity(50) > tag_rarity(5000)


def test_overlaps_needs_min_shared_terms():
    a = mem(1, "postgres replica lag alert", ["a"])
    b = mem(2, "postgres replica failover", ["b"])
    assert not [e for e in plan_edges(a, [b], {}, {}, CFG).add if e.type == "OVERLAPS"]


def test_no_edges_across_namespaces_or_to_itself():
    a = mem(1, "billing deploy helm chart", ["billing"], "ops")
    plan = plan_edges(a, [a, mem(2, "billing deploy helm chart v2", ["billing"], "ops", ns="other")], {}, {}, CFG)
    assert plan.add == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from("abcdef"), max_size=3),
                          st.sampled_from([None, "c1", "c2"]),
                          st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "omega", "sigma"]),
                                   min_size=0, max_size=6)),
                min_size=2, max_size=40))
def test_degree_never_exceeds_cap(specs):
    """Insert memories one by one applying each plan; no node ever exceeds K edges per type."""
    cfg = load_settings(overrides={"edges": {"max_degree_shares_tag": 3, "max_degree_same_category": 2,
                                             "max_degree_overlaps": 2}}, use_env=False).edges
    edges = {}
    stored = []
    tag_counts = {}
    for i, (tags, category, words) in enumerate(specs):
        m = mem(i, " ".join(words) or "empty", sorted(set(tags)), category)
        for t in m.tags:
            tag_counts[t] = tag_counts.get(t, 0) + 1
        existing = {}
        for e in edges.values():
            existing.setdefault(e.a, []).append(e)
            existing.setdefault(e.b, []).append(e)
        plan = plan_edges(m, stored, tag_counts, existing, cfg)
        for e in plan.remove:
            del edges[e.key]
        for e in plan.add:
            edges[e.key] = e
        stored.append(m)
        for node in stored:
            for edge_type in LINK_TYPES:
                degree = sum(1 for e in edges.values() if e.type == edge_type and node.id in (e.a, e.b))
                assert degree <= cfg.max_degree(edge_type)
    assert all(e.a != e.b for e in edges.values())

"""Pure scoring rules of each retrieval stage."""

import math
from dataclasses import replace

import numpy as np
import pytest

from graphmem.config import load_settings
from graphmem.contract.responses import DirectWhy
from graphmem.errors import ConfigError
from graphmem.model import Edge, HealthPenalty, Memory, TermStats
from graphmem.retrieval import expansion, rank, recall, router, weighting
from graphmem.retrieval.candidate import Candidate

CFG = load_settings(use_env=False).recipe("default")


def mem(i, terms=None, health=1.0, source_weight=1.0, near=None):
    return Memory(id=f"m{i}", namespace="ns", content="c", content_hash=str(i), term_counts=terms or {},
                  health=health, source_weight=source_weight, near_duplicate_of=near,
                  embedding=np.eye(4, dtype=np.float32)[i % 4])


def test_bm25_prefers_rare_terms_and_ignores_absent_docs():
    docs = {"m1": mem(1, {"helm": 1, "deploy": 1}), "m2": mem(2, {"deploy": 2}), "m3": mem(3, {"other": 1})}
    stats = TermStats(n_docs=100, total_length=200, df={"helm": 2, "deploy": 50})
    scores = recall.bm25_scores(["helm", "deploy"], docs, stats, CFG)
    assert set(scores) == {"m1", "m2"} and scores["m1"] > scores["m2"]


def test_bm25_k1_and_b_come_from_the_recipe():
    """``bm25_k1`` saturates a term's count, ``bm25_b`` scales by length: both are the recipe's keys."""
    docs = {"short": mem(1, {"helm": 2}), "long": mem(2, {"helm": 2, **{f"w{i}": 1 for i in range(18)}})}
    stats = TermStats(n_docs=10, total_length=40, df={"helm": 2})
    weight = math.log(1.0 + (10 - 2 + 0.5) / (2 + 0.5))
    default = recall.bm25_scores(["helm"], docs, stats, CFG)
    assert (CFG.bm25_k1, CFG.bm25_b) == (1.2, 0.75)
    assert default["short"] == weight * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 2 / 4))
    flat = recall.bm25_scores(["helm"], docs, stats, replace(CFG, bm25_b=0.0))
    assert flat["short"] == flat["long"] == weight * 2 * 2.2 / (2 + 1.2)      # b 0: length does not count
    binary = recall.bm25_scores(["helm"], docs, stats, replace(CFG, bm25_k1=0.0))
    assert binary["short"] == binary["long"] == weight                      # k1 0: only presence counts


@pytest.mark.parametrize("key, value", [("bm25_k1", -0.1), ("bm25_b", 1.5), ("bm25_b", "0.75"), ("bm25_k1", True)])
def test_bm25_settings_outside_their_range_are_refused_at_load(key, value):
    with pytest.raises(ConfigError, match=key) as err:
        load_settings(overrides={"search": {key: value}}, use_env=False)
    assert err.value.field == key


def test_rrf_fusion_and_weighted_fusion():
    rrf = CFG.with_overrides({"fusion": "rrf", "rrf_k": 60})
    fused = recall.fuse({"a": 0.9, "b": 0.5}, {"b": 7.0, "c": 3.0}, rrf)
    assert fused["b"]["fused"] == 61 / 124 + 61 / 122      # the mean of (k + 1) / (k + rank) over channels
    assert fused["a"]["fused"] == 61 / 122 and fused["c"]["fused"] == 61 / 124
    assert fused["a"]["vector"] == {"rank": 1, "score": 0.9} and "lexical" not in fused["a"]
    weighted = recall.fuse({"a": 0.9, "b": 0.5}, {"b": 7.0, "c": 3.0}, CFG.with_overrides({"fusion": "weighted"}))
    assert weighted["b"]["fused"] == 0.5 * 0 + 0.5 * 1.0 and weighted["a"]["fused"] == 0.5
    first_in_both = recall.fuse({"a": 0.9}, {"a": 7.0}, CFG, rule="rrf")
    assert first_in_both["a"]["fused"] == 1.0                  # on the weighted rule's scale: keys can mix


def test_ranked_breaks_ties_by_id():
    assert recall.ranked({"b": 1.0, "a": 1.0, "c": 2.0}) == ["c", "a", "b"]


def test_neighbour_never_outscores_its_seed_and_keeps_best_path():
    edges = [Edge("ns", "s1", "n", "SHARES_TAG", 1.0, {"tags": ["x"]}),
             Edge("ns", "s2", "n", "OVERLAPS", 0.4, {"terms": ["a", "b", "c"]}),
             Edge("ns", "s1", "s1", "SHARES_TAG", 1.0, {})]
    found = expansion.expand({"s1": 0.5, "s2": 0.9}, edges, {"n": 1.0}, CFG)
    score, paths = found["n"]
    assert set(found) == {"n"}                     # a seed is never its own neighbour
    assert score < 0.9 and len(paths) == 2
    assert score == max(p["score"] for p in paths)


def test_edge_type_weights_switch_types_off():
    cfg = CFG.with_overrides({"edge_type_weights": {"OVERLAPS": 0.0}})
    found = expansion.expand({"s": 1.0}, [Edge("ns", "s", "n", "OVERLAPS", 0.5, {})], {}, cfg)
    assert found["n"][0] == 0.0


def test_health_multiplier_is_bounded():
    assert weighting.health_multiplier(mem(1, health=0.0), 0.5) == 0.5
    assert weighting.health_multiplier(mem(1, health=1.0), 0.5) == 1.0
    why = weighting.health_why(Memory(id="x", namespace="n", content="c", content_hash="h", health=0.6,
                                      health_reasons=[HealthPenalty("too_short", 0.4, "5 chars")]), 0.5)
    assert why.penalties[0].rule == "too_short" and why.multiplier == 0.8 and why.applied


def test_dedupe_keeps_the_better_scored_twin():
    a, b, c = Candidate(mem(1), 0.9), Candidate(mem(2, near="m1"), 0.95), Candidate(mem(3), 0.1)
    top = rank.top_k([a, b, c], 10, dedupe=True)
    kept = top.results
    assert [k.memory.id for k in kept] == ["m2", "m3"] and top.near_duplicates_dropped == 1
    assert kept[0].merged_duplicates == ["m1"] and top.copies_grouped == 0


def test_dedupe_merges_a_twin_a_kept_candidate_names():
    # m1 (kept first) names m4 as its twin; m2 names m4 too; m4 comes later: merged into m1
    cands = [Candidate(mem(1, near="m4"), 0.9), Candidate(mem(2, near="m4"), 0.8), Candidate(mem(3), 0.7),
             Candidate(mem(4), 0.6), Candidate(mem(5, near="m3"), 0.5)]
    kept, dropped = rank.dedupe_near_duplicates(cands)
    assert [k.memory.id for k in kept] == ["m1", "m2", "m3"] and dropped == 2
    assert cands[0].merged_duplicates == ["m4"] and cands[2].merged_duplicates == ["m5"]
    assert cands[1].merged_duplicates == []


def test_recall_part_is_made_when_read():
    parts = {"vector": {"rank": 1, "score": 0.91}, "fused": 0.123456789}
    cand = Candidate(mem(1), 0.5, recall=parts)
    assert cand.kind == "direct" and "_direct" not in cand.__dict__
    assert cand.direct == DirectWhy.model_validate({**parts, "fused": 0.123457})
    assert cand.direct is cand.direct and cand.explain().direct == cand.direct
    assert Candidate(mem(2), 0.5).direct is None and Candidate(mem(2), 0.5).kind == "related"


def test_router_names_tags_in_query():
    labels = router.label_candidates("How do I deploy the billing service?")
    assert "billing" in labels and "deploy" in labels and "billing service" in labels
    boost, why = router.router_bonus(["billing"], None, {"billing"}, set(), 0.1)
    assert boost == 1.1 and why is not None
    assert why.model_dump(exclude_unset=True) == {"tags": ["billing"], "category": None, "boost": 0.1}
    assert router.router_bonus(["billing", "config"], "ops", {"billing", "config"}, {"ops"}, 0.1)[0] == 1.3
    assert router.router_bonus(["x"], "c", {"billing"}, set(), 0.1) == (1.0, None)



def test_router_matches_extracted_topics_apart_from_tags():
    labels = router.topic_candidates("Which potteries did Melanie visit?")
    assert "Topic:pottery" in labels and "Topic:melanie" in labels
    boost, why = router.router_bonus(["session:1"], None, set(), set(), 0.25, ["Topic:pottery", "Topic:kid"],
                                     {"Topic:pottery", "Topic:melanie"}, 0.1)
    assert boost == 1.1 and why is not None
    assert why.model_dump(exclude_unset=True) == {"tags": [], "category": None, "boost": 0.1,
                                                  "topics": ["pottery"]}
    assert router.router_bonus(["x"], None, set(), set(), 0.25, ["Topic:pottery"], set(), 0.1) == (1.0, None)


def test_lexical_lookup_uses_rare_terms_but_never_none():
    stats = TermStats(n_docs=1000, total_length=10000, df={"helm": 3, "deploy": 400, "service": 900})
    assert recall.lookup_terms(["service", "deploy", "helm", "absent"], stats, CFG) == ["helm"]
    assert recall.lookup_terms(["service", "deploy"], stats, CFG) == ["deploy", "service"]
    assert recall.lookup_terms(["absent"], stats, CFG) == []


def test_lexical_lookup_stops_at_the_postings_budget():
    stats = TermStats(n_docs=1_000_000, total_length=10**7,
                      df={"rare": 40, "mid": 6000, "common": 9000, "huge": 150_000})
    budget = replace(CFG, lexical_max_postings=10_000)
    assert recall.lookup_terms(["common", "mid", "rare"], stats, budget) == ["rare", "mid"]
    assert recall.lookup_terms(["huge", "common"], stats, budget) == ["common"]      # always one term
    assert recall.lookup_terms(["common", "mid", "rare"], stats, replace(CFG, lexical_max_postings=10**6)) == [
        "rare", "mid", "common"]


def _copy(i: int, vec, terms, health=1.0, source_weight=1.0, score=0.5) -> Candidate:
    m = mem(i, terms, health=health, source_weight=source_weight)
    m.embedding = np.asarray(vec, dtype=np.float32) / np.linalg.norm(vec)
    return Candidate(m, score)


def test_copies_group_under_the_healthiest_best_sourced_one_at_the_best_position():
    terms = {"redis": 1, "version": 1, "cache": 1, "box": 1}
    weak = _copy(1, [1, 0.1, 0, 0], terms, health=1.0, source_weight=0.92, score=0.9)     # `test` near-copy
    original = _copy(2, [1, 0.12, 0, 0], terms, health=1.0, source_weight=0.98, score=0.8)  # USER.md
    stale = _copy(3, [1, 0.11, 0, 0], {"redis": 1, "version": 1, "cache": 1}, health=0.6, score=0.85)
    other = _copy(4, [0, 1, 0, 0], terms, score=0.7)                     # same words, other meaning
    top = rank.top_k([weak, original, stale, other], 10, dedupe=True, grouping=(0.85, 0.5))
    kept, grouped = top.results, top.copies_grouped
    assert [k.memory.id for k in kept] == ["m2", "m4"] and grouped == 2
    assert kept[0].score == 0.9 and kept[0].merged_duplicates == ["m1", "m3"]


def test_grouping_needs_both_meaning_and_wording():
    a = _copy(1, [1, 0, 0, 0], {"a": 1, "b": 1}, score=0.9)
    b = _copy(2, [1, 0.05, 0, 0], {"x": 1, "y": 1}, score=0.8, source_weight=0.99)   # paraphrase, other words
    top = rank.top_k([a, b], 10, dedupe=True, grouping=(0.85, 0.5))
    kept, grouped = top.results, top.copies_grouped
    assert [k.memory.id for k in kept] == ["m1", "m2"] and grouped == 0


def test_expansion_threaded_modes_for_a_seed_its_window_scored():
    edges = [Edge("ns", "s", "w", "FOLLOWS", 1.0, {}), Edge("ns", "s", "far", "SHARES_TAG", 1.0, {}),
             Edge("ns", "solo", "w", "OVERLAPS", 1.0, {})]
    window = {"fused": 0.4, "weight": 0.65, "turns": ["s", "w"]}
    scored = DirectWhy.model_validate({"fused": 0.5, "window": window})
    windows = {"s": expansion.window_turns(scored), "solo": expansion.window_turns(DirectWhy(fused=0.3))}
    seeds = {"s": 1.0, "solo": 0.5}

    def reached(mode):
        found = expansion.expand(seeds, edges, {}, CFG.with_overrides({"expansion_threaded": mode}), windows)
        return {n: sorted(p["seed"] for p in paths) for n, (_, paths) in found.items()}
    assert reached("all") == {"w": ["s", "solo"], "far": ["s"]}
    assert reached("outside_window") == {"w": ["solo"], "far": ["s"]}   # not into its own window
    assert reached("off") == {"w": ["solo"]}                             # a seed without a window still expands

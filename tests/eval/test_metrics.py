"""Pure metric functions against values computed by hand (see each comment)."""

from __future__ import annotations

import math

import pytest

from graphmem.eval import metrics as M

RANKED = ["a", "b", "c", "d"]
BINARY = {"b": 1, "d": 1, "x": 1}           # x is relevant but never returned


def test_recall_counts_relevant_found_over_all_relevant() -> None:
    assert M.recall_at_k(RANKED, BINARY, 1) == 0.0
    assert M.recall_at_k(RANKED, BINARY, 2) == pytest.approx(1 / 3)
    assert M.recall_at_k(RANKED, BINARY, 4) == pytest.approx(2 / 3)
    assert M.recall_at_k(RANKED, BINARY, 10) == pytest.approx(2 / 3)   # k beyond the list
    assert M.recall_at_k(RANKED, {}, 4) == 0.0


def test_precision_divides_by_k_not_by_results_returned() -> None:
    assert M.precision_at_k(RANKED, BINARY, 2) == 0.5
    assert M.precision_at_k(RANKED, BINARY, 4) == 0.5
    assert M.precision_at_k(RANKED, BINARY, 5) == pytest.approx(2 / 5)   # 4 results, k = 5


def test_hit_and_reciprocal_rank() -> None:
    assert M.hit_at_k(RANKED, BINARY, 1) == 0.0
    assert M.hit_at_k(RANKED, BINARY, 2) == 1.0
    assert M.reciprocal_rank(RANKED, BINARY) == 0.5
    assert M.reciprocal_rank(["a", "c"], BINARY) == 0.0


def test_ndcg_binary_by_hand() -> None:
    # DCG = 1/log2(3) + 1/log2(5) = 0.630930 + 0.430677 = 1.061606; IDCG = 1 + 0.630930 + 0.5 = 2.130930
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 0.5)
    assert M.ndcg_at_k(RANKED, BINARY, 4) == pytest.approx(expected)
    assert M.ndcg_at_k(RANKED, BINARY, 4) == pytest.approx(0.498189, abs=1e-6)


def test_ndcg_graded_uses_linear_gain() -> None:
    graded = {"a": 2, "c": 1}
    # ranked c, a: DCG = 1/1 + 2/log2(3) = 2.261860; IDCG = 2/1 + 1/log2(3) = 2.630930
    assert M.ndcg_at_k(["c", "a"], graded, 2) == pytest.approx(0.859719, abs=1e-6)
    assert M.ndcg_at_k(["a", "c"], graded, 2) == pytest.approx(1.0)


def test_merged_result_credits_each_relevant_id_once() -> None:
    # one returned memory stands for a and its merged near-duplicate b
    assert M.recall_at_k([("a", "b"), "c"], {"b": 1, "c": 1}, 1) == 0.5
    assert M.precision_at_k([("a", "b"), "c"], {"b": 1, "c": 1}, 1) == 1.0
    assert M.recall_at_k([("a", "b"), "b"], {"b": 1}, 2) == 1.0          # not 2.0
    # a slot crediting grades 1 and 2 gains 2; IDCG = 2 + 1/log2(3) = 2.630930
    assert M.ndcg_at_k([("a", "b")], {"a": 1, "b": 2}, 2) == pytest.approx(2 / 2.630930, abs=1e-6)
    assert M.recall_at_k([("a", "b")], {"a": 1, "b": 2}, 1) == 1.0


def test_low_health_above_relevant() -> None:
    rel = {"r": 1}
    assert M.low_health_above_relevant(["j", "r"], [0.2, 0.9], rel)
    assert not M.low_health_above_relevant(["r", "j"], [0.9, 0.2], rel)
    # healthy answer pushed below the top 3 by junk still counts
    assert M.low_health_above_relevant(["j", "x", "y", "r"], [0.3, 1, 1, 1], rel)
    # junk outside the top 3 does not
    assert not M.low_health_above_relevant(["a", "b", "c", "j", "r"], [1, 1, 1, 0.2, 1], rel)
    # no healthy relevant result at all: nothing was outranked
    assert not M.low_health_above_relevant(["j", "x"], [0.2, 1.0], {"j": 1})
    # health exactly at the threshold is healthy
    assert not M.low_health_above_relevant(["j", "r"], [0.5, 1.0], rel)


def test_low_health_share_percentile_mean_lift() -> None:
    assert M.low_health_share([0.2, 0.6, 0.4, 1.0]) == 0.5
    assert M.low_health_share([]) == 0.0
    assert M.percentile([4, 1, 3, 2], 50) == 2.5
    assert M.percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert M.percentile([], 50) == 0.0
    assert M.mean([1, 2, 3]) == 2.0
    assert M.relative_lift(0.9, 0.6) == pytest.approx(0.5)
    assert M.relative_lift(0.5, 0.0) is None


def test_credited_lists_first_credit_only() -> None:
    assert M.credited([("a", "b"), "b", "c"], {"b": 1, "c": 2}, 3) == [["b"], [], ["c"]]


def test_edge_key_is_the_type_refined_by_what_the_reason_shares() -> None:
    assert M.edge_key({"edge": "SHARES_TAG", "reason": {"tags": ["billing"], "rarity": 0.4}}) == "SHARES_TAG[tags]"
    both = {"tags": ["speaker:a"], "topics": [{"label": "pottery"}], "rarity": 0.4}
    assert M.edge_key({"edge": "SHARES_TAG", "reason": both}) == "SHARES_TAG[tags+topics]"
    assert M.edge_key({"edge": "SHARES_TAG", "reason": {"tags": [], "topics": ["x"]}}) == "SHARES_TAG[topics]"
    category = {"category": "ops", "similarity": 0.7}
    assert M.edge_key({"edge": "SAME_CATEGORY", "reason": category}) == "SAME_CATEGORY"
    assert M.edge_key({"edge": "SHARES_TAG", "reason": {"tags": ["x"], "kind": "topics"}}) == "SHARES_TAG[topics]"
    assert M.edge_key({"edge": "RELATED", "reason": None}) == "RELATED"


def test_expansion_counts_per_edge_and_in_top() -> None:
    additions = [("b", "SHARES_TAG"), ("c", "SHARES_TAG"), ("d", "OVERLAPS"), ("e", "OVERLAPS")]
    row = M.expansion_counts(additions, {"b": 1, "d": 2, "z": 0}, top_ids={"a", "b", "c"})
    assert row["exp_added"] == 4 and row["exp_relevant"] == 2
    assert (row["exp_added:SHARES_TAG"], row["exp_relevant:SHARES_TAG"]) == (2, 1)
    assert (row["exp_added:OVERLAPS"], row["exp_relevant:OVERLAPS"]) == (2, 1)
    assert (row["exp_added@top"], row["exp_relevant@top"]) == (2, 1)       # b (relevant) and c
    empty = M.expansion_counts([], {"b": 1}, top_ids=set())
    assert empty == {"exp_added": 0, "exp_relevant": 0, "exp_added@top": 0, "exp_relevant@top": 0}
    other = M.expansion_counts([("x", "SAME_CATEGORY")], {}, top_ids=set())
    assert M.edge_keys([row, empty, other]) == ["OVERLAPS", "SAME_CATEGORY", "SHARES_TAG"]
    # pooled over queries: (1 + 0) relevant of (2 + 1) added... per key and overall
    assert M.pooled_precision([row, other], ":SAME_CATEGORY") == (0, 1, 0.0)
    assert M.pooled_precision([row, other]) == (2, 5, pytest.approx(0.4))
    assert M.pooled_precision([empty], ":OVERLAPS") == (0, 0, None)
    # another set of pairs under its own prefix (direct hits an edge also reached)
    boost = M.expansion_counts([("b", "OVERLAPS")], {"b": 1}, top_ids=(), prefix="boost")
    assert (boost["boost_added:OVERLAPS"], boost["boost_relevant"], boost["boost_added@top"]) == (1, 1, 0)
    assert M.edge_keys([row, boost], "boost") == ["OVERLAPS"]
    assert M.pooled_precision([row, boost], prefix="boost") == (1, 1, 1.0)

"""Cross-validation selection, bootstrap intervals and answer coverage, checked by hand."""

from __future__ import annotations

import pytest

from graphmem.eval import cv
from graphmem.eval import metrics as M
from graphmem.eval.cv_report import build_cv_report

GROUPS = {"g1": ["a1", "a2"], "g2": ["b1", "b2"], "g3": ["c1", "c2"]}


def _rows(values: dict[str, float]) -> dict[str, dict[str, float]]:
    return {q: {"r": v} for q, v in values.items()}


# "x" is best on g1 and g2 but worst on g3; "y" is the reverse.
GRID = {"x": _rows({"a1": 1, "a2": 1, "b1": 1, "b2": 1, "c1": 0, "c2": 0}),
        "y": _rows({"a1": 0, "a2": 0, "b1": 0.5, "b2": 0.5, "c1": 1, "c2": 1})}


def test_each_fold_selects_on_the_other_groups_only() -> None:
    folds = {f.held_out: f for f in cv.select_per_fold(GRID, ["x", "y"], GROUPS, "r")}
    # held-out g1: train g2,g3 -> x: (1 + 0)/2 = .5, y: (.5 + 1)/2 = .75 -> y, scoring 0 on g1
    assert (folds["g1"].chosen, folds["g1"].train_score, folds["g1"].held_out_score) == ("y", 0.75, 0.0)
    # held-out g2: train g1,g3 -> x .5, y .5: tie goes to the earlier grid point
    assert folds["g2"].chosen == "x" and folds["g2"].held_out_score == 1.0
    # held-out g3: train g1,g2 -> x 1.0, y .25 -> x, scoring 0 on g3
    assert folds["g3"].chosen == "x" and folds["g3"].held_out_score == 0.0
    held = cv.held_out_rows(GRID, list(folds.values()), GROUPS)
    # mean over held-out folds (0 + 1 + 0) / 3, below either in-sample figure (x: 2/3, y: .5)
    assert cv.mean_of_group_means(held, GROUPS, "r") == pytest.approx(1 / 3)
    assert cv.mean_of_group_means(GRID["x"], GROUPS, "r") == pytest.approx(2 / 3)


def test_bootstrap_interval_brackets_the_estimate_and_pairs_differences() -> None:
    values = {"g1": [0, 1, 1, 0, 1], "g2": [1, 1, 1, 1, 0]}
    est, low, high = cv.bootstrap_groups(values, n=500, seed=1)
    assert est == pytest.approx((0.6 + 0.8) / 2) and low <= est <= high and high - low > 0.1
    # a constant group contributes no spread; a configuration against itself differs by exactly 0
    assert cv.bootstrap_groups({"g": [1, 1, 1]}, n=100) == (1.0, 1.0, 1.0)
    same = cv.interval(GRID["x"], GROUPS, "r", baseline=GRID["x"], n=100)
    assert same == {"mean": 0.0, "ci95": [0.0, 0.0]}


def test_cv_report_labels_held_out_and_tuned_on_and_keeps_every_grid_point() -> None:
    report = build_cv_report(GRID, {"hybrid": ["x", "y"], "default": ["y"]}, GROUPS,
                             {"cat": {"a1", "b1", "c1"}}, ["r"], "r", n_boot=100)
    fam = report["families"]["hybrid"]
    assert fam["held_out"]["r"]["mean"] == pytest.approx(1 / 3, abs=1e-4)
    assert fam["tuned_on"]["chosen"] == "x" and fam["tuned_on"]["r"]["mean"] == pytest.approx(2 / 3, abs=1e-4)
    assert [f["chosen"] for f in fam["folds"]] == ["y", "x", "x"]
    assert set(report["grid"]) == {"x", "y"} and report["grid"]["y"]["g2"]["r"] == 0.5
    assert report["differences"]["default - hybrid"]["r"]["mean"] == pytest.approx(0.5 - 1 / 3, abs=1e-4)
    assert fam["held_out"]["by_category"]["cat"]["n"] == 3
    # per-query held-out values are kept only when asked for, with the groups to resample within
    assert "held_out_per_query" not in fam and "groups" not in report["protocol"]
    kept = build_cv_report(GRID, {"hybrid": ["x", "y"]}, GROUPS, {"cat": {"a1", "b1", "c1"}}, ["r"], "r",
                           n_boot=100, per_query=["r"])
    rows = kept["families"]["hybrid"]["held_out_per_query"]
    assert rows == {q: {"r": GRID[{"g1": "y", "g2": "x", "g3": "x"}[g]][q]["r"]} for g, ids in GROUPS.items()
                    for q in ids}
    assert kept["protocol"]["groups"] == GROUPS and kept["protocol"]["categories"] == {"cat": ["a1", "b1", "c1"]}


def test_answer_coverage_short_phrase_and_long_token_share() -> None:
    assert M.normalize_answer("The Sunday, before 25 May!") == "sunday before 25 may"
    assert M.answer_covered("Sweden", ["I moved from sweden four years ago."])
    assert not M.answer_covered("Sweden", ["Swedenborg is a name"])          # whole words only
    assert M.answer_covered("adoption agencies", ["Looking into Adoption  agencies, too"])
    assert not M.answer_covered("adoption agencies", ["agencies for adoption"])   # short: the phrase
    long = "painting pottery hiking camping swimming"     # 5 content tokens: 4 of 5 = 80% suffices
    assert M.answer_covered(long, ["pottery, swimming and camping", "then painting"])
    assert not M.answer_covered(long, ["pottery and camping", "painting"])   # 3 of 5
    assert not M.answer_covered("", ["anything"])
    assert M.context_tokens(["Hi, Mel!", "ok"]) == 5


def test_bootstrap_ratio_pools_relevant_over_added_with_paired_draws() -> None:
    num = {"g1": [1, 0, 2], "g2": [0, 1]}
    den = {"g1": [2, 1, 2], "g2": [0, 3]}
    est, low, high = cv.bootstrap_ratio(num, den, n=500, seed=3)
    assert est == pytest.approx(4 / 8) and low is not None and high is not None
    assert low <= est <= high and high - low > 0.05
    # every addition relevant: numerator and denominator drawn together, so no spread at all
    assert cv.bootstrap_ratio({"g": [2, 1]}, {"g": [2, 1]}, n=200) == (1.0, 1.0, 1.0)
    assert cv.bootstrap_ratio({"g": [0, 0]}, {"g": [0, 0]}, n=50) == (None, None, None)


def test_cv_report_gives_held_out_edge_precision_only_where_expansion_added() -> None:
    def rows(added: dict[str, tuple[int, int]]) -> dict[str, dict[str, float]]:
        out = {}
        for q, (n, rel) in added.items():
            out[q] = {"r": 0.0, "exp_added": n, "exp_relevant": rel, "exp_added:OVERLAPS": n,
                      "exp_relevant:OVERLAPS": rel, "exp_added@top": min(n, 1), "exp_relevant@top": min(rel, 1)}
        return out
    none = {q: (0, 0) for ids in GROUPS.values() for q in ids}
    some = {**none, "a1": (2, 1), "b1": (2, 0), "c1": (4, 3)}
    report = build_cv_report({"h": rows(none), "d": rows(some)}, {"hybrid": ["h"], "default": ["d"]}, GROUPS,
                             {}, ["r"], "r", n_boot=100)
    assert "edge_precision_held_out" not in report["families"]["hybrid"]
    edges = report["families"]["default"]["edge_precision_held_out"]
    assert edges["all"]["added"] == 8 and edges["all"]["relevant"] == 4 and edges["all"]["precision"] == 0.5
    assert edges["by_edge"]["OVERLAPS"] == edges["all"]
    assert (edges["in_top_k"]["added"], edges["in_top_k"]["relevant"]) == (3, 2)
    assert edges["all"]["ci95"][0] <= 0.5 <= edges["all"]["ci95"][1]

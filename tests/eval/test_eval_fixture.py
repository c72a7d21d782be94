"""The harness on the agent-memory fixture: floors, expansion lift, health guard,
determinism, the CLI end to end. Fast (a 77-memory store), so it runs in every test pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.eval.report import build_report, deterministic_view
from graphmem.eval.runner import EvalOptions, evaluate
from graphmem.model import EDGE_TYPES
from graphmem.text import tokenize

from .conftest import FIXTURE


def _options(**extra) -> EvalOptions:
    return EvalOptions(memories=FIXTURE / "memories.jsonl", queries=FIXTURE / "queries.jsonl",
                       by=["needs_related", "kind"], progress=False, **extra)


@pytest.fixture(scope="module")
def report() -> dict:
    return build_report(evaluate(_options()))


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURE / name).read_text().splitlines() if line.strip()]


def _linked(mem: dict, direct: list[dict]) -> bool:
    """Shares a tag or the category with one of the direct answers."""
    return any(set(mem["tags"]) & set(d["tags"]) or (mem.get("category") is not None
               and mem.get("category") == d.get("category")) for d in direct)


def test_fixture_shape_and_needs_related_rule() -> None:
    """Labels point at real records and ``needs_related`` follows the README's rule."""
    memories = {m["id"]: m for m in _rows("memories.jsonl")}
    queries = _rows("queries.jsonl")
    assert 60 <= len(memories) <= 120 and 25 <= len(queries) <= 40
    assert {m["source"] for m in memories.values()} >= {"memory_tool", "identity.md", "USER.md", "MEMORY.md",
                                                        "session_search", "sync_l1_to_l2", "cron", "manual_fix",
                                                        "test"}
    for q in queries:
        assert set(q["relevance"]) <= set(memories), q["id"]
        terms = set(tokenize(q["text"]))
        direct = [memories[i] for i, g in q["relevance"].items() if g == 2]
        assert direct, q["id"]

        needs = any(g == 1 and not terms & set(tokenize(memories[i]["content"])) and _linked(memories[i], direct)
                    for i, g in q["relevance"].items())
        assert q["needs_related"] == needs, q["id"]


def test_all_configurations_run_and_ingest_is_clean(report: dict) -> None:
    assert list(report["configs"]) == ["lexical", "vector", "hybrid", "hybrid_context", "hybrid_expansion",
                                      "default"]
    ingest = report["dataset"]["ingest"]
    assert (ingest["created"], ingest["duplicate"], ingest["rejected"]) == (76, 1, 0)
    assert report["dataset"]["relevant_not_stored"] == 0 and report["dataset"]["graded"]
    for cfg in report["configs"].values():
        assert len(cfg["recall_curve"]) == 20
        assert cfg["recall_curve"][9] == pytest.approx(cfg["overall"]["recall@10"])
        assert cfg["overall"]["context_results"] <= 10


def test_floors(report: dict, floors: dict) -> None:
    tol = floors["tolerance"]
    for name, metrics in floors["fixture"]["configs"].items():
        for metric, floor in metrics.items():
            got = report["configs"][name]["overall"][metric]
            assert got >= floor - tol, f"{name} {metric} {got:.3f} < floor {floor:.3f} - {tol}"


def test_expansion_lifts_needs_related_recall(report: dict, floors: dict) -> None:
    hybrid = report["configs"]["hybrid"]["by"]["needs_related"]["true"]["recall@10"]
    default = report["configs"]["default"]["by"]["needs_related"]["true"]["recall@10"]
    assert hybrid > 0
    assert (default - hybrid) / hybrid >= floors["fixture"]["needs_related_lift_min"], (hybrid, default)
    assert report["lift_vs_hybrid"]["default"]["by"]["needs_related"]["true"] == pytest.approx(
        (default - hybrid) / hybrid, abs=1e-4)


def test_no_low_health_record_outranks_a_healthy_relevant_one(report: dict) -> None:
    default = report["configs"]["default"]["overall"]
    assert default["low_health_above_relevant_top3"] == 0
    # the guard is the health stage's doing: without it junk does get above answers
    assert report["configs"]["hybrid"]["overall"]["low_health_above_relevant_top3"] > 0
    assert default["low_health_share"] < report["configs"]["hybrid"]["overall"]["low_health_share"]


def test_edge_precision_accounts_for_every_expansion_addition(report: dict) -> None:
    """The additions the report credits to edges are the ones the pipeline's trace counted,
    and the ones in the top 10 are the results that expansion alone brought."""
    n = report["dataset"]["queries"]
    assert "edge_precision" not in report["configs"]["hybrid"]
    for name in ("hybrid_expansion", "default"):
        cfg = report["configs"][name]
        edges = cfg["edge_precision"]
        assert edges["all"]["added"] == round(cfg["candidates_mean"]["expansion_added"] * n) > 0
        assert sum(e["added"] for e in edges["by_edge"].values()) == edges["all"]["added"]
        assert sum(e["relevant"] for e in edges["by_edge"].values()) == edges["all"]["relevant"] > 0
        assert {k.split("[")[0] for k in edges["by_edge"]} <= set(EDGE_TYPES)
        assert "SHARES_TAG[tags]" in edges["by_edge"]
        assert edges["in_top_k"]["added"] == round(cfg["overall"]["related_in_top_k"] * n)
        assert edges["in_top_k"]["relevant"] <= min(edges["in_top_k"]["added"], edges["all"]["relevant"])
        low, high = edges["all"]["ci95"]
        assert 0 <= low <= edges["all"]["precision"] <= high <= 1
        boosted = edges["boosted_in_top_k"]
        assert boosted["all"]["added"] == sum(e["added"] for e in boosted["by_edge"].values()) > 0
        assert boosted["all"]["relevant"] <= boosted["all"]["added"] + edges["in_top_k"]["added"] <= 10 * n


def test_same_input_same_numbers(report: dict) -> None:
    again = build_report(evaluate(_options()))
    assert deterministic_view(again) == deterministic_view(report)


def test_cli_writes_report_and_plots_with_extra_configurations(tmp_path: Path) -> None:
    from graphmem.cli import main

    config = tmp_path / "lexheavy.toml"
    config.write_text('[search]\nlexical_weight = 0.7\nvector_weight = 0.3\n\n'
                      '[recipes.no_graph]\nstages = { expansion = false }\n')
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [
        "eval", "--memories", str(FIXTURE / "memories.jsonl"), "--queries", str(FIXTURE / "queries.jsonl"),
        "--config", str(config), "--recipe", "hybrid", "--recipe", "lexheavy", "--recipe", "no_graph",
        "--by", "needs_related", "--k", "5", "--no-progress", "--output", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "report.json").read_text())
    assert list(data["configs"]) == ["hybrid", "lexheavy", "no_graph"]
    assert data["settings"]["recipes"]["lexheavy"]["lexical_weight"] == 0.7
    assert data["settings"]["recipes"]["no_graph"]["stages"]["expansion"] is False
    assert "recall@5" in data["configs"]["hybrid"]["overall"]
    for png in ("metric_by_config.png", "recall_curve.png", "latency_by_stage.png", "recall_by_needs_related.png"):
        assert (out / png).stat().st_size > 1000
    assert "graphmem eval" in result.output


def test_cli_rejects_unknown_recipe(tmp_path: Path) -> None:
    from graphmem.cli import main

    result = CliRunner().invoke(main, [
        "eval", "--memories", str(FIXTURE / "memories.jsonl"), "--queries", str(FIXTURE / "queries.jsonl"),
        "--recipe", "nope", "--no-progress", "--no-plots", "--output", str(tmp_path)])
    assert result.exit_code != 0 and "unknown configuration 'nope'" in result.output

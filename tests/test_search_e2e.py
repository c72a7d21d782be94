"""End to end: import a small agent-memory fixture and show that expansion surfaces the related
config note and operating rule that direct recall ranks out of the top k, with the ``why``."""

from pathlib import Path

import pytest

from graphmem.ingest.bulk import import_jsonl
from graphmem.views import dump

FIXTURE = Path(__file__).parent / "fixtures" / "e2e_agent.jsonl"
QUERY = "How do I ship a new release of the billing service?"


@pytest.fixture
def agent(engine):
    summary = import_jsonl(engine, FIXTURE)
    assert summary["created"] == 15 and summary["rejected"] == 0
    return engine


def ids(out):
    return [r["id"] for r in out["results"]]


# A 15-memory store fits inside one recall window; a small window stands in for a large store
# where the related records fall outside what direct recall fetches.
WINDOW = {"recall_candidates": 2}


def test_expansion_surfaces_related_config_and_rule(agent):
    hybrid = dump(agent.search(QUERY, k=6, recipe="hybrid", params=WINDOW))
    full = dump(agent.search(QUERY, k=6, trace=True, params=WINDOW))
    assert ids(hybrid)[0] == ids(full)[0] == "skill-deploy-billing"
    assert "config-billing-env" not in ids(hybrid)
    assert "config-billing-env" in ids(full) and "rule-friday" in ids(full)
    related = next(r for r in full["results"] if r["id"] == "config-billing-env")
    assert related["kind"] in ("related", "direct+related")
    path = related["why"]["related"][0]
    assert path["seed"] == "skill-deploy-billing" and path["edge"] == "SHARES_TAG"
    assert "billing" in path["reason"]["tags"]
    expansion = next(s for s in full["trace"]["stages"] if s["stage"] == "expansion")
    assert expansion["enabled"] and expansion["added"] + expansion["merged"] >= 1


def test_low_health_records_never_outrank_healthy_relevant_ones(agent):
    out = dump(agent.search(QUERY, k=6))
    top = ids(out)
    for low in ("cmd-restart", "hash-fix"):
        if low in top:
            assert top.index(low) > top.index("skill-deploy-billing")
            assert top.index(low) > top.index("config-billing-env")
    unweighted = dump(agent.search(QUERY, k=6, stages={"health": False, "source": False}))
    assert unweighted["results"][0]["why"]["health"]["applied"] is False
    # low-health memories stay retrievable by id and by explicit request
    assert agent.get("default", "hash-fix").health < 0.6
    low_only = dump(agent.search("billing deploy", filters={"max_health": 0.59}))
    assert set(ids(low_only)) == {"cmd-restart", "hash-fix"}


@pytest.mark.parametrize("stage", ["router", "lexical", "vector", "expansion", "health", "source"])
def test_every_stage_can_be_switched_off_and_reports_itself(agent, stage):
    out = dump(agent.search(QUERY, k=5, stages={stage: False}, trace=True))
    rows = {s["stage"]: s for s in out["trace"]["stages"]}
    if stage in ("lexical", "vector"):
        assert rows["recall"][stage] == 0
    elif stage in ("health", "source"):
        assert all(r["why"][stage]["applied"] is False for r in out["results"])
    else:
        assert rows[stage]["enabled"] is False
    assert all(isinstance(s["ms"], float) for s in out["trace"]["stages"])
    assert out["results"]


def test_filters_prune_and_router_boosts_named_tags(agent):
    out = dump(agent.search("what should I know", filters={"categories": ["preferences"]}))
    assert set(ids(out)) == {"pref-concise", "pref-timezone"}
    out = dump(agent.search("search config", k=3, trace=True))
    router_row = out["trace"]["stages"][0]
    assert "search" in router_row["named_tags"] and "config" in router_row["named_tags"]
    assert out["results"][0]["id"] == "config-search-cache"
    assert out["results"][0]["why"]["router"]["tags"] == ["config", "search"]


def test_results_are_deterministic(agent):
    assert dump(agent.search(QUERY, k=8)) == dump(agent.search(QUERY, k=8))

"""Health rules: each penalty fires on its case, the score is 1 - sum(penalties) clipped to [0, 1]."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.config import load_settings
from graphmem.ingest.health import assess_health
from graphmem.ingest.source import source_weight

RULES = load_settings(use_env=False).health
SOURCES = load_settings(use_env=False).sources
GOOD = "The staging cluster uses the eu-west-1 region and its own IAM role for deploys."


def rules_of(content, tags=("ops",), category="ops"):
    score, reasons = assess_health(content, list(tags), category, RULES)
    return score, {r.rule for r in reasons}


def test_healthy_memory_has_no_penalty():
    assert rules_of(GOOD) == (1.0, set())


def test_each_rule_fires():
    assert rules_of("too short")[1] == {"too_short"}
    assert rules_of(GOOD * 10)[1] == {"too_long"}
    assert "transient_command" in rules_of("git push --force origin main to fix the deploy")[1]
    assert "transient_command" in rules_of("$ kubectl rollout restart deployment/billing-api")[1]
    assert "raw_reference" in rules_of("The fix for the billing timeout landed in 3f9c2ab1d")[1]
    assert "raw_reference" in rules_of("The billing timeout fix is tracked in PR #4521 upstream")[1]
    assert rules_of(GOOD, tags=())[1] == {"missing_tags"}
    assert rules_of(GOOD, category=None)[1] == {"missing_category"}


def test_default_penalties_match_the_design():
    assert rules_of("short")[0] == 0.6
    assert rules_of(GOOD * 10)[0] == 0.8
    assert rules_of(GOOD, tags=())[0] == 0.85


def test_rules_come_from_configuration():
    strict = load_settings(overrides={"health": {"short_chars": 200, "short_penalty": 0.5}}, use_env=False)
    score, reasons = assess_health(GOOD, ["ops"], "ops", strict.health)
    assert score == 0.5 and reasons[0].rule == "too_short" and "200" in reasons[0].detail


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=700), st.lists(st.text(min_size=1, max_size=8), max_size=3),
       st.one_of(st.none(), st.text(min_size=1, max_size=10)))
def test_score_is_bounded_and_explained(content, tags, category):
    score, reasons = assess_health(content, tags, category, RULES)
    assert 0.0 <= score <= 1.0
    assert abs(score - max(0.0, 1.0 - sum(r.penalty for r in reasons))) < 1e-6
    assert all(r.detail for r in reasons)


def test_source_weight_is_modest_and_ranked():
    assert source_weight("memory_tool", SOURCES) == 1.0
    assert source_weight("unknown", SOURCES) == 0.9
    assert source_weight("never-heard-of-it", SOURCES) == 0.9
    assert source_weight("identity.md", SOURCES) > source_weight("cron", SOURCES) > source_weight("test", SOURCES)


def test_prose_that_starts_with_a_tool_name_is_not_a_command():
    assert "transient_command" not in rules_of("Python projects in this repo use uv for dependency locking.")[1]
    assert "transient_command" in rules_of("psql -h db.internal -U billing -c 'select 1'")[1]


@pytest.mark.parametrize("text", [
    "pull the latest main in the billing repo on the build box now, then deploy",
    "restart the worker on host-b now so it picks up the new config",
    "bump the replica count of the search pods to 6 immediately",
    "flush the redis cache on the staging box, then rerun the import",
    "please rotate the billing api key tonight",
])
def test_imperatives_meant_for_now_are_transient_by_shape(text: str) -> None:
    assert "transient_command" in rules_of(text)[1]


@pytest.mark.parametrize("text", [
    "billing runs on host-b now and reads BILLING_DB_URL",
    "dependency locking uses uv now in every repo",
    "we deploy on fridays, then freeze the branch",
    "Restart policy: the worker restarts itself after a crash.",
    "Caroline: I went to the support group yesterday, then painted.",
])
def test_statements_are_not_imperatives(text: str) -> None:
    assert "transient_command" not in rules_of(text)[1], text

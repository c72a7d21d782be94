"""The supersession-candidate rule: value spans, the gates, proposals listed with their evidence on
both stores, applied only with ``[supersede] auto``, and its precision on the labelled pairs
(tests/fixtures/supersede/pairs.jsonl) at the default thresholds."""

from __future__ import annotations

import uuid

import pytest

from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.errors import NotFoundError
from graphmem.ingest.supersede_candidates import value_spans
from graphmem.model import SUPERSEDES
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from harness.supersede_pairs import load_pairs, memories, score
from tests.neo4j_server import open_store, store_settings

OLD = {"id": "redis-6", "content": "The cache cluster runs Redis 6.2 on three nodes.", "tags": ["redis", "cache"],
       "category": "infra", "created_at": "2025-01-10T00:00:00Z"}
NEW = {"id": "redis-7", "content": "The cache cluster runs Redis 7.4 on three nodes.", "tags": ["redis", "cache"],
       "category": "infra", "created_at": "2025-06-01T00:00:00Z"}
SAME = {"id": "redis-6b", "content": "Our cache cluster runs Redis 6.2, three nodes.", "tags": ["redis"],
        "category": "infra", "created_at": "2025-02-01T00:00:00Z"}


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def make(request, tmp_path, embedder):
    made: list[Graphmem] = []

    def build(**supersede) -> Graphmem:
        data = tmp_path / f"s{len(made)}"
        overrides = {"store": {"data_dir": str(data)}, "supersede": supersede}
        settings = load_settings(overrides=overrides, use_env=False)
        store = SQLiteStore(data, store_settings()) if request.param == "sqlite" else open_store()
        eng = Graphmem(settings, store, embedder)
        eng.test_namespace = f"cand-{uuid.uuid4().hex[:10]}"   # type: ignore[attr-defined]
        made.append(eng)
        return eng

    yield build
    for eng in made:
        if request.param == "neo4j":
            eng.store.drop_namespace(eng.test_namespace)   # type: ignore[attr-defined]
        eng.close()


def test_value_spans_by_kind_and_position():
    text = "Launch moved to 2025-04-02 at 10:30; the app v1.2.3 costs $15 per seat, says Priya Rao."
    got = [(s.kind, s.text) for s in value_spans(text)]
    assert got == [("date", "2025-04-02"), ("time", "10:30"), ("version", "v1.2.3"), ("number", "$15"),
                   ("name", "Priya Rao")]
    assert all(text[s.start:s.end] == s.text for s in value_spans(text))
    assert value_spans("Launch is due on June 30.")[0].kind == "date"     # not a number, not a name


def test_proposals_listed_with_evidence_and_not_applied(make):
    eng = make()
    ns = eng.test_namespace
    for body in (OLD, SAME, NEW):
        eng.add(body, ns)
    listed = dump(eng.supersede_candidates(ns, "redis-7"))["candidates"]
    assert [(c["newer"], c["older"]) for c in listed] == [("redis-7", "redis-6"), ("redis-7", "redis-6b")]
    first = listed[0]
    assert [s["text"] for s in first["older_spans"]] == ["6.2"] and [s["text"] for s in first["newer_spans"]] == [
        "7.4"]
    assert NEW["content"][first["newer_spans"][0]["start"]:first["newer_spans"][0]["end"]] == "7.4"
    assert first["shared"] == ["cache", "redis"] and first["applied"] is False
    assert first["cosine"] >= eng.settings.supersede.min_cosine
    # the older side sees the same proposal; a restatement of the same value is no proposal
    assert [(c["newer"], c["older"]) for c in dump(eng.supersede_candidates(ns, "redis-6"))["candidates"]] == [
        ("redis-7", "redis-6")]
    assert eng.get(ns, "redis-6").superseded_by is None                 # auto is off: nothing applied
    assert eng.store.edges_of(ns, ["redis-6", "redis-6b"], [SUPERSEDES]) == []
    with pytest.raises(NotFoundError):
        dump(eng.supersede_candidates(ns, "missing"))


def test_auto_applies_the_best_proposal_at_write_time(make):
    eng = make(auto=True)
    ns = eng.test_namespace
    eng.add(OLD, ns)
    eng.add(NEW, ns)
    assert eng.get(ns, "redis-6").superseded_by == "redis-7"
    link = dump(eng.history(ns, "redis-6"))["links"]
    assert [(x["newer"], x["older"], x["by"], x["reason"]) for x in link] == [
        ("redis-7", "redis-6", "auto", "version changed: 6.2 -> 7.4")]
    assert dump(eng.supersede_candidates(ns, "redis-7"))["candidates"] == []  # applied: no longer proposed


def test_batch_import_applies_proposals_within_the_batch_and_against_the_store(make):
    """The same rule as a single write: an earlier item of the batch, or a stored memory; a memory
    the batch already superseded is no candidate; off without auto."""
    eng = make(auto=True)
    ns = eng.test_namespace
    eng.add(OLD, ns)
    newer = {**NEW, "id": "redis-8", "content": "The cache cluster runs Redis 8.0 on three nodes.",
             "created_at": "2025-09-01T00:00:00Z"}
    results = eng.add_batch([NEW, newer], ns).results
    assert [r.status for r in results] == ["created", "created"]
    assert eng.get(ns, "redis-6").superseded_by == "redis-7"           # against the store
    assert eng.get(ns, "redis-7").superseded_by == "redis-8"           # within the batch
    links = dump(eng.history(ns, "redis-8"))["links"]
    assert [(x["newer"], x["older"], x["by"]) for x in links] == [("redis-7", "redis-6", "auto"),
                                                                  ("redis-8", "redis-7", "auto")]
    off = make()
    off.add_batch([OLD, NEW], off.test_namespace)
    assert off.get(off.test_namespace, "redis-6").superseded_by is None


def test_candidates_off_lists_nothing(make):
    eng = make(candidates=False, auto=True)
    ns = eng.test_namespace
    eng.add(OLD, ns)
    eng.add(NEW, ns)
    assert dump(eng.supersede_candidates(ns, "redis-7"))["candidates"] == []
    assert eng.get(ns, "redis-6").superseded_by is None


def test_precision_on_the_labelled_pairs(embedder):
    """At the default thresholds the rule keeps the precision bench/results/supersede_candidates.json
    reports (0.8 when measured); a change that loses it shows here first."""
    result = score(memories(load_pairs(), embedder), load_settings(use_env=False).supersede)
    assert result["precision"] >= 0.75 and result["recall"] >= 0.6, result


def test_search_shows_proposals_between_results_in_why(make):
    eng = make()
    ns = eng.test_namespace
    for body in (OLD, NEW):
        eng.add(body, ns)
    found = dump(eng.search("which Redis version runs on the cache cluster?", ns, 5))
    hits = {h["id"]: h for h in found["results"]}
    # redis-6 is shown, or merged into redis-7 as its near duplicate: either way the shown ones say so
    shown = [i for i in ("redis-6", "redis-7") if i in hits]
    assert "redis-7" in shown and (shown == ["redis-6", "redis-7"]
                                   or hits["redis-7"]["why"]["near_duplicates_merged"] == ["redis-6"])
    for memory_id in shown:
        proposed = hits[memory_id]["why"]["supersession"]["candidates"]
        assert [(c["newer"], c["older"], c["applied"]) for c in proposed] == [("redis-7", "redis-6", False)]
    off = make(candidates=False)
    for body in (OLD, NEW):
        off.add(body, off.test_namespace)
    hits = dump(off.search("which Redis version runs on the cache cluster?", off.test_namespace, 5))["results"]
    assert all("supersession" not in h["why"] for h in hits)

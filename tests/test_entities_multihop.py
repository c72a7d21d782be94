"""Entities and the multi-hop stage on both stores, through the engine: each memory's entity
mentions are stored with their evidence and follow update, delete and rescore; stage
multihop spreads from the query's and the seeds' entities, adds what it reaches (bounded), says
why in ``why.multihop`` and counts itself in the trace; it is switched per request; bad values
are refused with a 4xx-class error and nothing written."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphmem.contract.responses import SearchResponse
from graphmem.engine import Graphmem
from graphmem.errors import ValidationError
from graphmem.model import window_namespace
from graphmem.views import dump
from tests.helpers.engines import engine_on

TURNS = {
    "s1-0": ("session-1", "Audrey: I signed up for a pottery workshop on Saturdays."),
    "s1-1": ("session-1", "Andrew: Nice, Audrey! I spent the weekend fixing my bike."),
    "s2-0": ("session-2", "Audrey: The pottery workshop teacher praised the vase I made."),
    "s2-1": ("session-2", "Andrew: My girlfriend and I tried a board game cafe."),
    "s3-0": ("session-3", "Audrey: I took my dogs to the beach and they loved the waves."),
    "s3-1": ("session-3", "Andrew: Audrey, my girlfriend wants to try the board game cafe again."),
}


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine(request, tmp_path, embedder):
    with engine_on(request.param, tmp_path, embedder, "ent") as eng:
        yield eng


def seed(eng: Graphmem) -> str:
    ns = eng.test_namespace   # type: ignore[attr-defined]
    items = [{"id": i, "content": text, "thread": thread, "seq": int(i[-1])}
             for i, (thread, text) in TURNS.items()]
    assert {r.status for r in eng.add_batch(items, ns).results} == {"created"}
    return ns


def keys(mem) -> list[str]:
    return [e.entity for e in mem.entities]


def test_mentions_are_stored_with_evidence_and_indexed(engine):
    ns = seed(engine)
    first = engine.get(ns, "s1-0")
    assert keys(first)[:3] == ["audrey", "pottery workshop", "workshop"]
    for memory_id, (_, text) in TURNS.items():          # evidence-gated: each span is in the memory
        mentions = engine.get(ns, memory_id).entities
        assert mentions and all(m.quote in text for m in mentions)
    assert "dog" in keys(engine.get(ns, "s3-0"))               # "my dogs": plural and possessive folded
    store = engine.store
    assert store.entity_members(ns, ["pottery workshop"], 10) == {"pottery workshop": ["s2-0", "s1-0"]}
    assert store.entity_counts(ns, ["audrey", "girlfriend"]) == {"audrey": 5, "girlfriend": 2}
    # a thread member's context window (its companion row) mentions nothing of its own
    assert store.entity_counts(window_namespace(ns), ["audrey"]) == {"audrey": 0}
    top = engine.search("pottery", ns, k=2).results[0]
    assert top.memory.entities[1].entity == "pottery workshop"


def test_update_delete_and_rescore_keep_mentions_exact(engine):
    ns = seed(engine)
    store = engine.store
    engine.update(ns, "s2-0", {"content": "Audrey: The ceramics teacher praised my bowl."})
    assert store.entity_members(ns, ["pottery workshop", "ceramic teacher"], 10) == {
        "pottery workshop": ["s1-0"], "ceramic teacher": ["s2-0"]}
    engine.delete(ns, "s1-0")
    assert store.entity_counts(ns, ["pottery workshop", "audrey"]) == {"pottery workshop": 0, "audrey": 4}
    older = replace(store.get_memories(ns, ["s3-0"])["s3-0"], entities=[])    # as a store written before entities
    store.save_memory(older, [], [])
    assert store.entity_members(ns, ["dog"], 5) == {"dog": []}
    assert engine.rescore(ns)["entities_updated"] == 1
    assert store.entity_members(ns, ["dog"], 5) == {"dog": ["s3-0"]}
    assert engine.rescore(ns)["entities_updated"] == 0            # idempotent


def test_multihop_adds_what_an_entity_links_and_says_why(engine):
    ns = seed(engine)
    query = "What has she signed up for?"          # full text finds s1-0 alone ("signed")
    off = dump(engine.search(query, ns, k=5, recipe="lexical", trace=True))
    assert [r["id"] for r in off["results"]] == ["s1-0"]
    on = dump(engine.search(query, ns, k=5, recipe="lexical", stages={"multihop": True}, trace=True))
    SearchResponse.model_validate(on)
    ids = [r["id"] for r in on["results"]]
    assert ids[0] == "s1-0" and "s2-0" in ids
    reached = next(r for r in on["results"] if r["id"] == "s2-0")
    assert reached["kind"] == "related" and "direct" not in reached["why"]
    shared = reached["why"]["multihop"]["entities"]
    assert shared[0]["reason"] == "shares entity 'pottery workshop' with seed s1-0"
    # the speaker is in 5 of 6 memories: too common to spread
    assert all(e["entity"] != "audrey" for e in shared)
    row = next(r for r in on["trace"]["stages"] if r["stage"] == "multihop")
    assert row["enabled"] and row["added"] == len(ids) - 1 and row["skipped_common"] >= 1
    assert row["list_query"] is False
    assert next(r for r in off["trace"]["stages"] if r["stage"] == "multihop")["enabled"] is False


def test_query_entities_spread_and_the_walk_is_bounded(engine):
    ns = seed(engine)
    out = dump(engine.search("Which board game cafe did his girlfriend like?", ns, k=5, recipe="lexical",
                             stages={"multihop": True}, params={"multihop_max_added": 1}, trace=True))
    row = next(r for r in out["trace"]["stages"] if r["stage"] == "multihop")
    assert "girlfriend" in row["query_entities"] and row["list_query"] is True
    assert row["added"] <= 1
    none = dump(engine.search("board game", ns, k=5, recipe="lexical", stages={"multihop": True},
                              params={"multihop_max_added": 0}, trace=True))
    assert next(r for r in none["trace"]["stages"] if r["stage"] == "multihop")["added"] == 0


@pytest.mark.parametrize("params", [{"multihop_seeds": -1}, {"multihop_per_entity": 0},
                                    {"multihop_max_df_ratio": 1.5}, {"multihop_weight": float("nan")},
                                    {"multihop_max_added": 10**9}])
def test_bad_multihop_values_are_refused(engine, params):
    ns = seed(engine)
    with pytest.raises(ValidationError) as err:
        engine.search("pottery", ns, stages={"multihop": True}, params=params)
    assert err.value.field and "multihop" in err.value.field
    with pytest.raises(ValidationError):
        engine.search("pottery", ns, stages={"multi_hop": True})
    assert engine.stats(namespaces=[ns]).memories == len(TURNS)

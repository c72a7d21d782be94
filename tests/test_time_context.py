"""Time as data and the context block on both stores, through the engine: resolved phrases stored
with their evidence and shown in results and ``why``; ``rescore`` derives them for memories stored
without; stage ``time`` boosts what a query's date fits and says so in the trace; the context block
dates, groups, merges and cuts at its budget; bad budgets are refused with nothing written."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphmem.contract.responses import ContextResponse, SearchResponse
from graphmem.engine import Graphmem
from graphmem.errors import ValidationError
from graphmem.text import llm_tokens
from graphmem.views import dump
from tests.helpers.engines import engine_on

STAMP = "2023-05-08T13:56:00"
TURNS = ["Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
         "Melanie: Wow, that sounds great! How did it feel?",
         "Caroline: Amazing. Last week I also gave a talk at a school about my journey.",
         "Melanie: I ran a charity race last Saturday for mental health.",
         "Caroline: That's awesome, Mel! What got you into running?",
         "Melanie: My kids, honestly. We went camping last weekend and they loved the hikes."]


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine(request, tmp_path, embedder):
    with engine_on(request.param, tmp_path, embedder, "time") as eng:
        yield eng


def seed(eng: Graphmem) -> str:
    ns = eng.test_namespace   # type: ignore[attr-defined]
    items = [{"id": f"s1-{i}", "content": text, "thread": "session-1", "seq": i,
              "metadata": {"speaker": text.split(":")[0], "timestamp": STAMP}} for i, text in enumerate(TURNS)]
    items.append({"id": "note", "content": "Backups of the wiki moved to object storage 3 days ago.",
                  "source": "MEMORY.md", "created_at": "2024-03-10T09:00:00Z"})
    assert {r.status for r in eng.add_batch(items, ns).results} == {"created"}
    return ns


def test_phrases_are_stored_with_evidence_and_shown(engine):
    ns = seed(engine)
    first = engine.get(ns, "s1-0")
    assert dump(first)["times"] == [{"phrase": "yesterday", "span": [44, 53], "value": "2023-05-07",
                                     "text": "7 May 2023"}]
    assert first.content[44:53] == "yesterday"
    assert engine.get(ns, "note").times[0].value == "2024-03-07"       # created_at when no message time
    assert engine.get(ns, "s1-1").times == []
    out = dump(engine.search("When did Caroline go to the support group?", ns, k=3))
    SearchResponse.model_validate(out)
    top = out["results"][0]
    assert top["id"] == "s1-0" and top["memory"]["times"] == dump(first)["times"]
    assert top["why"]["time"] == {"resolved": [{"phrase": "yesterday", "value": "2023-05-07",
                                                "text": "7 May 2023"}]}


def test_patch_re_resolves_and_rescore_derives_for_older_rows(engine):
    ns = seed(engine)
    patched = engine.update(ns, "s1-1", {"content": "Melanie: I went there last year too."})
    assert [(t.phrase, t.value) for t in patched.times] == [("last year", "2022-01-01/2022-12-31")]
    older = replace(engine.store.get_memories(ns, ["s1-2"])["s1-2"], times=[])    # as written before times
    engine.store.save_memory(older, [], [])
    assert engine.get(ns, "s1-2").times == []
    result = engine.rescore(ns)
    assert result["times_updated"] == 1
    assert engine.get(ns, "s1-2").times[0].text == "the week before 8 May 2023"
    assert engine.rescore(ns)["times_updated"] == 0             # idempotent


def test_time_stage_boosts_what_the_query_date_fits(engine):
    ns = seed(engine)
    query = "what happened on 7 May 2023"
    off = dump(engine.search(query, ns, k=7, stages={"time": False}, trace=True))
    weighting = next(r for r in off["trace"]["stages"] if r["stage"] == "weighting")
    assert "time" not in weighting
    on = dump(engine.search(query, ns, k=7, trace=True))                  # on by default
    SearchResponse.model_validate(on)
    row = next(r for r in on["trace"]["stages"] if r["stage"] == "weighting")
    assert row["time"]["phrase"] == "7 May 2023" and row["time"]["range"] == "2023-05-07"
    boosted = {r["id"]: r["why"]["time"]["boost"] for r in on["results"] if "boost" in r["why"].get("time", {})}
    # "yesterday" -> 7 May; "last week" -> 1-7 May; "last weekend" -> 6-7 May
    assert set(boosted) == {"s1-0", "s1-2", "s1-5"}
    assert boosted["s1-0"]["matched"] == "yesterday" and boosted["s1-0"]["multiplier"] == 1.5
    assert row["time"]["boosted"] == 3
    scores_off = {r["id"]: r["score"] for r in off["results"]}
    for r in on["results"]:
        factor = 1.5 if r["id"] in boosted else 1.0
        assert r["score"] == pytest.approx(scores_off[r["id"]] * factor, rel=1e-5)
    as_of = dump(engine.search("what did we do yesterday", ns, k=7, stages={"time": True}, trace=True,
                          filters={"as_of": "2023-05-08T20:00:00Z"}))
    row = next(r for r in as_of["trace"]["stages"] if r["stage"] == "weighting")
    assert row["time"]["range"] == "2023-05-07"                     # read against as_of, not now


def test_context_block_dates_groups_and_cuts_at_the_budget(engine):
    ns = seed(engine)
    query = "When did Caroline go to the support group?"
    whole = engine.context(query, 2000, ns)
    ContextResponse.model_validate(whole.model_dump(by_alias=True))
    lines = whole.text.split("\n")
    assert "## session-1 (8 May 2023)" in lines                   # the session's date once, in its header
    assert ("[yesterday = 7 May 2023] Caroline: I went to the LGBTQ support group yesterday "
            "and it was so powerful.") in lines
    assert "Melanie: Wow, that sounds great! How did it feel?" in lines
    assert "[10 March 2024; 3 days ago = 7 March 2024] (MEMORY.md) Backups of the wiki moved to object " \
           "storage 3 days ago." in lines
    session = [i for i in whole.memories if i.startswith("s1-")]
    assert session == sorted(session, key=lambda i: int(i.split("-")[1]))      # thread order
    assert len(whole.memories) == len(set(whole.memories)) == 7                # each turn once
    assert whole.tokens == llm_tokens(whole.text) <= 2000
    assert whole.trace.block["results_used"] >= 1
    for budget in (1, 12, 30, 45, 80):
        small = engine.context(query, budget, ns)
        assert small.tokens == llm_tokens(small.text) <= budget
        if small.memories:                                                       # whole lines only
            assert all(any(line.endswith(engine.get(ns, i).content) for line in small.text.split("\n"))
                       for i in small.memories)
    assert engine.context(query, 1, ns).memories == []


def test_context_block_adds_neighbouring_turns_once(engine):
    ns = seed(engine)
    block = engine.context("charity race for mental health", 2000, ns, k=2)
    used = block.trace.block
    assert used["results_used"] == 2 and used["neighbours_added"] >= 1
    assert len(block.memories) == len(set(block.memories)) == 2 + used["neighbours_added"]
    session = [i for i in block.memories if i.startswith("s1-")]
    assert session == sorted(session, key=lambda i: int(i.split("-")[1]))


@pytest.mark.parametrize("bad", [0, -5, 10**9, 1.5, "400", True, float("nan"), None])
def test_bad_budgets_are_refused_and_nothing_is_written(engine, bad):
    ns = engine.test_namespace   # type: ignore[attr-defined]
    with pytest.raises(ValidationError) as err:
        engine.context("anything", bad, ns)
    assert err.value.field == "max_tokens"
    assert dump(engine.stats(ns))["memories"] == 0

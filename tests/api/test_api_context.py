"""POST /v1/context over HTTP: the block and its trace match the documented schema; every bad budget
(0, negative, past [limits] max_context_tokens, a fraction, text, a boolean, NaN, 1e400, missing) and
every search field the search request refuses is a 4xx with the JSON error shape, and nothing is written."""

from __future__ import annotations

import json

import pytest

from graphmem.text import llm_tokens

TURNS = [{"id": f"s1-{i}", "content": text, "thread": "session-1", "seq": i,
          "metadata": {"speaker": text.split(":")[0], "timestamp": "2023-05-08T13:56:00"}}
         for i, text in enumerate(["Caroline: I went to the LGBTQ support group yesterday.",
                                   "Melanie: How did it feel?",
                                   "Caroline: Powerful. Last week I gave a talk at a school."])]


def test_the_block_is_dated_grouped_and_within_budget(client):
    assert client.post("/v1/memories:batch", json={"memories": TURNS}).status_code == 200
    resp = client.post("/v1/context", json={"query": "When did Caroline go to the support group?",
                                            "max_tokens": 400})
    assert resp.status_code == 200
    out = resp.get_json()
    assert out["text"].split("\n")[0] == "## session-1 (8 May 2023)"
    assert "[yesterday = 7 May 2023] Caroline: I went to the LGBTQ support group yesterday." in out["text"]
    assert out["memories"] == ["s1-0", "s1-1", "s1-2"] and out["tokens"] == llm_tokens(out["text"]) <= 400
    assert out["trace"]["block"]["results_used"] == 3 and out["trace"]["search"]["k"] == 20
    small = client.post("/v1/context", json={"query": "support group", "max_tokens": 20}).get_json()
    assert small["tokens"] <= 20 and len(small["memories"]) < 3


def test_the_time_stage_can_be_switched_on_for_the_block(client):
    assert client.post("/v1/memories:batch", json={"memories": TURNS}).status_code == 200
    out = client.post("/v1/context", json={"query": "what happened on 7 May 2023", "max_tokens": 400,
                                           "stages": {"time": True}}).get_json()
    weighting = next(r for r in out["trace"]["search"]["stages"] if r["stage"] == "weighting")
    assert weighting["time"] == {"phrase": "7 May 2023", "range": "2023-05-07", "text": "7 May 2023",
                                 "boosted": 2}     # "yesterday" (7 May) and "last week" (1-7 May)


BAD = [  # (body text, status, field)
    ('{"query": "x", "max_tokens": 0}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": -5}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": 8001}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": 9007199254740993}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": 1.5}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": "400"}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": true}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": null}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": 1e400}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": -1e400}', 422, "max_tokens"),
    ('{"query": "x", "max_tokens": NaN}', 400, None),
    ('{"query": "x", "max_tokens": Infinity}', 400, None),
    ('{"query": "x"}', 422, "max_tokens"),
    ('{"max_tokens": 100}', 422, "query"),
    ('{"query": "x", "max_tokens": 100, "k": 0}', 422, "k"),
    ('{"query": "x", "max_tokens": 100, "k": 1e400}', 422, "k"),
    ('{"query": "x", "max_tokens": 100, "params": {"time_boost": -1}}', 422, "params.time_boost"),
    ('{"query": "x", "max_tokens": 100, "params": {"recall_candidates": 1000}}', 422, "params.recall_candidates"),
    ('{"query": "x", "max_tokens": 100, "stages": {"time": "yes"}}', 422, "stages.time"),
    ('{"query": "x", "max_tokens": 100, "filters": {"as_of": "yesterday"}}', 422, "filters.as_of"),
    ('{"query": "x", "max_tokens": 100, "surprise": 1}', 422, "surprise"),
    ('{"query": "back\\u0000ups", "max_tokens": 100}', 422, "query"),
    ('[1, 2]', 400, None),
]


@pytest.mark.parametrize("body, status, field", BAD)
def test_bad_context_requests_are_4xx_and_write_nothing(client, body, status, field):
    resp = client.post("/v1/context", data=body.encode(), content_type="application/json")
    assert resp.status_code == status, resp.get_json()
    error = resp.get_json()["error"]
    assert set(error) == {"code", "message", "field"} and error["message"]
    if field is not None:
        assert error["field"] == field, error
    stats = client.get("/v1/stats").get_json()
    assert stats["memories"] == 0 and sum(stats["edges"].values()) == 0


def test_budget_ceiling_follows_limits(make_engine):
    from api_helpers import make_app

    app = make_app(make_engine({"limits": {"max_context_tokens": 50}}))
    client = app.test_client()
    resp = client.post("/v1/context", data=json.dumps({"query": "x", "max_tokens": 51}),
                       content_type="application/json")
    assert resp.status_code == 422 and "50" in resp.get_json()["error"]["message"]
    assert client.post("/v1/context", json={"query": "x", "max_tokens": 50}).status_code == 200

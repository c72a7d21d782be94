"""The memory_context tool against a real `graphmem mcp --http` process: the block as over HTTP, and
every bad budget (0, negative, past the limit, fraction, text, NaN, 1e400, missing) a tool error with
the API's code and field, nothing stored (arguments sent as raw JSON text, docs/strict-json.md)."""

from __future__ import annotations

import json

import pytest
from mcp_helpers import http_server, raw_tool_call

BAD = [  # (arguments as JSON text, field)
    ('{"query": "x", "max_tokens": 0}', "max_tokens"),
    ('{"query": "x", "max_tokens": -3}', "max_tokens"),
    ('{"query": "x", "max_tokens": 8001}', "max_tokens"),
    ('{"query": "x", "max_tokens": 2.5}', "max_tokens"),
    ('{"query": "x", "max_tokens": "400"}', "max_tokens"),
    ('{"query": "x", "max_tokens": NaN}', "max_tokens"),
    ('{"query": "x", "max_tokens": Infinity}', "max_tokens"),
    ('{"query": "x", "max_tokens": 1e400}', "max_tokens"),
    ('{"query": "x"}', "max_tokens"),
    ('{"query": "x", "max_tokens": 100, "k": 5.5}', "k"),
]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with http_server(tmp_path_factory.mktemp("mcp-context"), {}) as endpoint:
        yield endpoint


@pytest.mark.parametrize("arguments, field", BAD)
def test_bad_budgets_are_tool_errors_and_store_nothing(url, arguments, field):
    result = raw_tool_call(url, "memory_context", arguments)
    assert result["isError"] is True, result
    error = json.loads(result["content"][0]["text"])["error"]
    assert (error["code"], error["field"]) == ("validation_error", field), error
    stats = raw_tool_call(url, "memory_stats", "{}")
    assert stats["isError"] is False and stats["structuredContent"]["memories"] == 0, "nothing was stored"


def test_the_block_over_mcp(url):
    turn = {"id": "t0", "content": "Caroline: I went to the LGBTQ support group yesterday.", "thread": "s1",
            "seq": 0, "metadata": {"speaker": "Caroline", "timestamp": "2023-05-08T13:56:00"}}
    added = raw_tool_call(url, "add_memory", json.dumps(turn))
    assert added["isError"] is False, added
    result = raw_tool_call(url, "memory_context", '{"query": "support group", "max_tokens": 60}')
    assert result["isError"] is False, result
    out = result["structuredContent"]
    assert out["text"] == ("## s1 (8 May 2023)\n"
                           "[yesterday = 7 May 2023] Caroline: I went to the LGBTQ support group yesterday.")
    assert out["memories"] == ["t0"] and 0 < out["tokens"] <= 60


def test_a_block_past_max_result_chars_is_rebuilt_smaller(make_engine):
    from dataclasses import replace

    from graphmem.contract import ContextRequest
    from graphmem.mcp.tools import memory_context

    eng = make_engine()
    turns = [{"id": f"t{i}", "content": f"Turn {i}: we talked about the garden, the roses and the rain again.",
              "thread": "s1", "seq": i} for i in range(40)]
    assert {r.status for r in eng.add_batch(turns).results} == {"created"}
    cfg = replace(eng.settings.mcp, max_result_chars=2500)
    req = ContextRequest.model_validate({"query": "garden roses", "max_tokens": 2000, "k": 40})
    out = memory_context(eng, cfg, "default", req, {})
    assert len(json.dumps(out, ensure_ascii=False)) <= 2500
    assert out["truncated"]["max_tokens"] < 2000 and out["tokens"] <= out["truncated"]["max_tokens"]
    assert out["memories"] and "truncated" not in memory_context(eng, eng.settings.mcp, "default", req, {})

"""Numbers and types outside JSON over MCP (docs/strict-json.md), against a real `graphmem mcp
--http` process, with the arguments sent as raw JSON text (an SDK client would write NaN as null):
each call is a tool error with the API's code and field, and nothing is stored."""

from __future__ import annotations

import json

import pytest
from mcp_helpers import http_server, raw_tool_call

CASES = [  # (tool, arguments as JSON text, field)
    ("search_memories", '{"query": "x", "params": {"vector_weight": Infinity}}', "params.vector_weight"),
    ("search_memories", '{"query": "x", "params": {"vector_weight": NaN}}', "params.vector_weight"),
    ("search_memories", '{"query": "x", "k": 1e400}', "k"),
    ("add_memory", '{"content": "a note", "metadata": {"x": NaN}}', "metadata.x"),
    ("add_memory", '{"content": "a note", "metadata": {"x": 1e400}}', "metadata.x"),
    ("add_memory", '{"content": "a note", "metadata": {"deep": [{"y": -Infinity}]}}', "metadata.deep[0].y"),
    ("add_memory", '{"content": "a note", "metadata": {"n": 9007199254740992}}', "metadata.n"),
    ("add_memory", '{"content": "a note", "thread": "t", "seq": "5"}', "seq"),
    ("add_memory", '{"content": "a\\u0000note"}', "content"),
    ("add_memory", '{"content": "a note", "tags": ["a\\u0000"]}', "tags[0]"),
    ("memory_neighbors", '{"memory_id": "m", "limit": "5"}', "limit"),
    ("search_memories", '{"query": "x", "k": "5"}', "k"),
    ("search_memories", '{"query": "back\\u0000ups"}', "query"),
    ("add_memory", '{"content": "a note", "namespace": "a\\u0000"}', "namespace"),
    ("add_memory", '{"content": "a note", "id": "a\\u0000b"}', "id"),
    ("get_memory", '{"memory_id": "a\\u0000b"}', "memory_id"),
    ("search_memories", '{"query": "x", "k": 5.5}', "k"),
    ("search_memories", '{"query": "x", "k": 9007199254740993}', "k"),
    ("add_memory", '{"content": "a note", "extracted": "true"}', "extracted"),
]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with http_server(tmp_path_factory.mktemp("mcp-strict"), {}) as endpoint:
        yield endpoint


@pytest.mark.parametrize("tool, arguments, field", CASES)
def test_numbers_and_types_outside_json_are_tool_errors(url, tool, arguments, field):
    result = raw_tool_call(url, tool, arguments)
    assert result["isError"] is True, result
    error = json.loads(result["content"][0]["text"])["error"]
    assert (error["code"], error["field"]) == ("validation_error", field), error
    stats = raw_tool_call(url, "memory_stats", "{}")
    assert stats["isError"] is False and stats["structuredContent"]["memories"] == 0, "nothing was stored"

"""The one rule by which tool arguments sent as text are read (graphmem.mcp.arguments)."""

from __future__ import annotations

import pytest

from graphmem.mcp.arguments import read_arguments, read_text_argument


@pytest.mark.parametrize(("text", "json_type", "expected"), [
    ("3", "integer", 3), (" -7 ", "integer", -7), ("0.5", "number", 0.5), ("1", "number", 1),
    ("true", "boolean", True), ("false", "boolean", False),
    ('["staging","db"]', "array", ["staging", "db"]), ("[]", "array", []),
    ('{"tags":["db"]}', "object", {"tags": ["db"]}),
])
def test_text_of_exactly_the_declared_type_is_read(text, json_type, expected):
    out = read_text_argument(text, json_type)
    assert out == expected and type(out) is type(expected)


@pytest.mark.parametrize(("text", "json_type"), [
    ("5.5", "integer"), ("1.0", "integer"), ("1e3", "integer"), ("true", "integer"), ("03", "integer"),
    ("NaN", "number"), ("Infinity", "number"), ("-Infinity", "integer"), ("nan", "number"),
    ("yes", "boolean"), ("1", "boolean"), ('"true"', "boolean"),
    ("a,b", "array"), ('{"a":1}', "array"), ('["a"', "array"), ("null", "array"),
    ('["a"]', "object"), ('{"a": NaN}', "object"), ("", "integer"), ("[" * 5000, "array"),
])
def test_anything_else_is_passed_on_unchanged(text, json_type):
    assert read_text_argument(text, json_type) is text


def test_only_non_string_top_level_arguments_are_read():
    schema = {"properties": {"query": {"type": "string"}, "k": {"type": "integer"},
                             "filters": {"type": "object"}}}
    args = {"query": "3", "k": "3", "filters": '{"tags":["db"]}', "unknown": "4"}
    assert read_arguments(args, schema) == {"query": "3", "k": 3, "filters": {"tags": ["db"]}, "unknown": "4"}
    assert args["k"] == "3", "the caller's dict is not changed"

"""One rule, one wording: a bad search input is refused with the same message and field whether it
comes through the library, the HTTP API, the MCP tool or the CLI, because each surface parses it
with the contract's ``SearchRequest`` and the engine never checks it again. Neighbours, graph,
relate, list and supersession calls likewise, through their own contract models."""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from graphmem.api import create_app
from graphmem.cli import main
from graphmem.errors import ValidationError
from graphmem.mcp.server import GraphmemMcp
from graphmem.model import MemoryFilter

BAD = [  # (request fields, CLI arguments or None when the CLI cannot send it)
    ({"query": "backups", "k": 0}, ["backups", "-k", "0"]),
    ({"query": "backups", "k": 10**6}, ["backups", "-k", str(10**6)]),
    ({"query": "   "}, ["   "]),
    ({"query": "backups", "recipe": "no-such-recipe"}, ["backups", "--recipe", "no-such-recipe"]),
    ({"query": "backups", "params": {"fusion": "max"}}, None),
    ({"query": "backups", "params": {"vector_weight": -1}}, None),
    ({"query": "backups", "stages": {"rerank": True}}, None),
    ({"query": "backups", "filters": {"min_health": 2}}, None),
    ({"query": "backups", "filters": {"tags": [""]}}, ["backups", "--tags", ""]),
]


def _library(engine, fields: dict) -> tuple[str, str | None]:
    with pytest.raises(ValidationError) as err:
        engine.search(fields["query"], k=fields.get("k"), filters=fields.get("filters"),
                      recipe=fields.get("recipe"), stages=fields.get("stages"), params=fields.get("params"))
    return err.value.message, err.value.field


@pytest.mark.parametrize("fields, cli_args", BAD, ids=[str(b[0]) for b in BAD])
def test_a_bad_search_is_worded_alike_everywhere(engine, tmp_path, fields, cli_args):
    message, field = _library(engine, fields)

    http = create_app(engine).test_client().post("/v1/search", json=fields)
    assert http.status_code == 422, http.get_json()
    assert (http.get_json()["error"]["message"], http.get_json()["error"]["field"]) == (message, field)

    with pytest.raises(ValidationError) as by_mcp:
        asyncio.run(GraphmemMcp(engine).call("search_memories", dict(fields)))
    assert (by_mcp.value.message, by_mcp.value.field) == (message, field)

    if cli_args is not None:
        out = CliRunner().invoke(main, ["--data-dir", str(tmp_path / "cli"), "search", *cli_args])
        assert out.exit_code == 1
        assert f"validation_error: {message} (field: {field})" in out.output, out.output


LONG = "x" * 201        # one past [limits] max_id_chars
OTHER = [  # (library call, HTTP request, MCP tool and arguments or None)
    (lambda e, a, b: e.neighbors("default", a, limit=0), ("get", "/v1/memories/{a}/neighbors?limit=0", None),
     ("memory_neighbors", {"memory_id": "{a}", "limit": 0})),
    (lambda e, a, b: e.neighbors("default", a, types=["KNOWS"]),
     ("get", "/v1/memories/{a}/neighbors?types=KNOWS", None), ("memory_neighbors", {"memory_id": "{a}",
                                                                                    "types": ["KNOWS"]})),
    (lambda e, a, b: e.graph("default", ids=[a], hops=99), ("get", "/v1/graph?ids={a}&hops=99", None), None),
    (lambda e, a, b: e.relate("default", a, b, {"source_text": "x y", "quote": "x"}, weight=2.0),
     ("post", "/v1/relations", {"from_id": "{a}", "to_id": "{b}", "weight": 2.0,
                                "evidence": {"source_text": "x y", "quote": "x"}}),
     ("relate_memories", {"from_id": "{a}", "to_id": "{b}", "weight": 2.0,
                          "evidence": {"source_text": "x y", "quote": "x"}})),
    (lambda e, a, b: e.relate("default", a, a, {"source_text": "x y", "quote": "x"}),
     ("post", "/v1/relations", {"from_id": "{a}", "to_id": "{a}",
                                "evidence": {"source_text": "x y", "quote": "x"}}),
     ("relate_memories", {"from_id": "{a}", "to_id": "{a}", "evidence": {"source_text": "x y", "quote": "x"}})),
    (lambda e, a, b: e.search("backups", "default", k=5, params={"expansion_seeds": 10**4}),
     ("post", "/v1/search", {"query": "backups", "k": 5, "params": {"expansion_seeds": 10**4}}),
     ("search_memories", {"query": "backups", "k": 5, "params": {"expansion_seeds": 10**4}})),
    (lambda e, a, b: e.list_memories("default", MemoryFilter(), limit=10**6),
     ("get", "/v1/memories?limit=1000000", None), None),
    (lambda e, a, b: e.supersede("default", a, []), ("post", "/v1/supersessions", {"newer": "{a}", "older": []}),
     None),
    (lambda e, a, b: e.supersede("default", LONG, [a]),
     ("post", "/v1/supersessions", {"newer": LONG, "older": ["{a}"]}), None),
    (lambda e, a, b: e.unsupersede("default", a, LONG), ("delete", f"/v1/supersessions?newer={{a}}&older={LONG}",
                                                        None), None),
    (lambda e, a, b: e.history("default", LONG), ("get", f"/v1/memories/{LONG}/history", None),
     ("memory_history", {"memory_id": LONG})),
    (lambda e, a, b: e.supersede_candidates("default", LONG), ("get", f"/v1/memories/{LONG}/candidates", None),
     ("supersede_candidates", {"memory_id": LONG})),
]


def _fill(value, a: str, b: str):
    if isinstance(value, str):
        return value.replace("{a}", a).replace("{b}", b)
    if isinstance(value, dict):
        return {k: _fill(v, a, b) for k, v in value.items()}
    return value


@pytest.mark.parametrize("call, http, tool", OTHER, ids=["neighbors-limit", "neighbors-type", "graph-hops",
                                                          "relate-weight", "relate-itself", "params-ceiling",
                                                          "list-limit", "supersede-none",
                                                          "supersede-long-id", "undo-long-id", "history-long-id",
                                                          "candidates-long-id"])
def test_graph_and_list_calls_are_worded_alike_everywhere(engine, call, http, tool):
    """Neighbours, graph, relate, list and supersession: the library parses with the same contract models."""
    a = engine.add({"content": "The nightly backup runs at 02:00."}).memory.id
    b = engine.add({"content": "Restores are tested every Friday."}).memory.id
    with pytest.raises(ValidationError) as by_library:
        call(engine, a, b)
    expected = (by_library.value.message, by_library.value.field)

    method, path, body = http
    client = create_app(engine).test_client()
    answer = getattr(client, method)(_fill(path, a, b), json=_fill(body, a, b))
    assert answer.status_code == 422, answer.get_json()
    # a query parameter is named as sent (``types``, not ``types[0]``); a body names the item
    field = expected[1].split("[")[0] if method == "get" and expected[1] else expected[1]
    assert (answer.get_json()["error"]["message"], answer.get_json()["error"]["field"]) == (expected[0], field)

    if tool is not None:
        with pytest.raises(ValidationError) as by_mcp:
            asyncio.run(GraphmemMcp(engine).call(tool[0], _fill(tool[1], a, b)))
        assert (by_mcp.value.message, by_mcp.value.field) == expected

"""One rule, one wording: a bad search input is refused with the same message and field whether it
comes through the library, the HTTP API, the MCP tool or the CLI, because each surface parses it
with the contract's ``SearchRequest`` and the engine never checks it again."""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from graphmem.api import create_app
from graphmem.cli import main
from graphmem.errors import ValidationError
from graphmem.mcp.server import GraphmemMcp

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

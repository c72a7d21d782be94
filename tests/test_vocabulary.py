"""One vocabulary: the CLI, the HTTP API and the MCP tools name a memory's fields as the contract
does, and a memory stored without a source gets the contract's default whichever way it came in."""

from __future__ import annotations

import asyncio
import json

import click
from click.testing import CliRunner

from graphmem.api import create_app
from graphmem.cli import main
from graphmem.contract import MemoryInput, SearchFilters, SearchRequest
from graphmem.contract.requests import DEFAULT_SOURCE
from graphmem.mcp.server import GraphmemMcp

CLI_ONLY = {"memory_id": "id"}        # click's parameter name -> the contract field it sets


def cli_fields(command: click.Command, fields: set[str]) -> dict[str, click.Parameter]:
    """Contract field -> CLI parameter that sets it, checked to be spelled ``--<field>``."""
    out = {}
    for param in command.params:
        name = CLI_ONLY.get(param.name or "", param.name or "")
        if name not in fields:
            continue
        if isinstance(param, click.Option):
            spelled = f"-{name}" if len(name) == 1 else f"--{name}"
            assert spelled in param.opts, f"{spelled} should be how the CLI spells {name} ({param.opts})"
        out[name] = param
    return out


def test_add_fields_have_one_name_everywhere(engine):
    model = MemoryInput
    cli = cli_fields(main.commands["add"], set(model.model_fields))
    assert {"content", "tags", "category", "source", "reason", "id", "namespace"} <= set(cli)
    assert "--tag" in cli["tags"].opts, "--tag stays as an alias"
    parsed = main.commands["add"].make_context("add", ["some content"]).params
    assert parsed["source"] is None, "the CLI leaves the source unset, like HTTP and MCP"
    assert parsed["namespace"] == "default" and parsed["tags"] == ()

    doc = create_app(engine).test_client().get("/openapi.json").get_json()
    body = doc["paths"]["/v1/memories"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    http = doc["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]["properties"]
    assert set(http) == set(model.model_fields)

    mcp = GraphmemMcp(engine).schemas["add_memory"]["properties"]
    assert set(mcp) - {"detail"} == set(model.model_fields)
    for name in ("source", "tags", "category", "extracted"):
        assert mcp[name].get("default") == http[name].get("default"), name
    assert f"default {DEFAULT_SOURCE}" in mcp["source"]["description"] and \
        f"default {DEFAULT_SOURCE}" in json.dumps(http["source"])


def test_search_fields_have_one_name_everywhere(engine):
    model = SearchRequest
    fields = {*model.model_fields, *SearchFilters.model_fields}
    cli = cli_fields(main.commands["search"], fields)
    assert {"query", "namespace", "k", "recipe", "tags", "categories", "explain", "trace"} <= set(cli)
    parsed = main.commands["search"].make_context("search", ["a question"]).params
    assert parsed["k"] is None and model.model_fields["k"].default is None, "k defaults to the recipe's"
    assert "--tag" in cli["tags"].opts and "--category" in cli["categories"].opts, "the old names stay aliases"
    mcp = GraphmemMcp(engine).schemas["search_memories"]["properties"]
    assert "default" not in mcp["k"] and mcp["explain"]["default"] == model.model_fields["explain"].default


def test_unset_source_is_the_contract_default_on_every_interface(engine, tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["--data-dir", str(tmp_path / "cli"), "add", "Backups of the staging database run "
                               "nightly.", "--tags", "staging", "--tag", "db"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    by_cli = json.loads(out.stdout)["memory"]
    assert (by_cli["source"], by_cli["tags"]) == (DEFAULT_SOURCE, ["staging", "db"])

    http = create_app(engine).test_client().post("/v1/memories", json={"content": "HTTP says hello nightly."})
    assert http.status_code == 201, http.get_json()
    assert http.get_json()["memory"]["source"] == DEFAULT_SOURCE

    by_mcp = asyncio.run(GraphmemMcp(engine).call("add_memory", {"content": "MCP says hello nightly.",
                                                                 "detail": "full"}))
    assert by_mcp["memory"]["source"] == DEFAULT_SOURCE

"""The official MCP Inspector CLI (npm ``@modelcontextprotocol/inspector``, pinned in
tests/mcp/inspector/package-lock.json and installed by ``make inspector``) against real servers,
over stdio and over streamable HTTP: the stock client a newcomer tries first.

The Inspector sends ``--tool-arg key=value`` as text and converts it by the property's top-level
``type``, so these calls only work if optional fields are advertised by their plain type.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import ROOT, http_server, mcp_args, server_env

pytestmark = [pytest.mark.slow, pytest.mark.heavy]   # a Node process per call (and a server per stdio call)

INSPECTOR = ROOT / "tests" / "mcp" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
FACT = "The staging database is backed up nightly at 02:00 to the eu-west bucket."
OTHER = "The production database keeps thirty days of point-in-time recovery logs."


def inspector(target: list[str], method: str, tool: str | None = None, **args: str) -> dict[str, Any]:
    if not INSPECTOR.exists():
        pytest.fail("the MCP Inspector CLI is not installed: run `make inspector` (npm ci in tests/mcp/inspector)")
    cmd = [str(INSPECTOR), "--cli", *target, "--method", method]
    if tool:
        cmd += ["--tool-name", tool]
    for key, value in args.items():
        cmd += ["--tool-arg", f"{key}={value}"]
    proc = subprocess.run(cmd, cwd=ROOT, env=server_env(), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return json.loads(proc.stdout)


def ok(target: list[str], tool: str, **args: str) -> dict[str, Any]:
    out = inspector(target, "tools/call", tool, **args)
    assert out["isError"] is False, out["content"][0]["text"]
    return out["structuredContent"]


def error(target: list[str], tool: str, **args: str) -> dict[str, Any]:
    out = inspector(target, "tools/call", tool, **args)
    assert out["isError"] is True, f"{tool} {args} should fail: {out['content'][0]['text']}"
    return json.loads(out["content"][0]["text"])["error"]


@pytest.fixture(scope="module")
def stdio_target(tmp_path_factory) -> list[str]:
    return [sys.executable, *mcp_args(tmp_path_factory.mktemp("inspector-stdio"))]


@pytest.fixture(scope="module")
def http_target(tmp_path_factory):
    with http_server(tmp_path_factory.mktemp("inspector-http"), {}) as url:
        yield [url]


@pytest.fixture(params=["stdio", "http"])
def target(request) -> list[str]:
    return request.getfixturevalue(f"{request.param}_target")


def test_lists_the_tools_with_plain_types(target):
    tools = {t["name"]: t for t in inspector(target, "tools/list")["tools"]}
    assert {"search_memories", "add_memory", "get_memory", "memory_stats"} <= set(tools)
    props = tools["search_memories"]["inputSchema"]["properties"]
    assert props["k"]["type"] == "integer" and props["filters"]["type"] == "object"
    assert tools["add_memory"]["inputSchema"]["properties"]["tags"]["type"] == "array"


def test_add_then_search_over_stdio(stdio_target):
    """Each stdio call is a server process of its own (the model loaded each time): one add, then a
    search in the next process finds it; every other case runs over HTTP below."""
    added = ok(stdio_target, "add_memory", content=FACT, tags='["staging","db"]', id="stdio-staging")
    assert added["status"] == "created" and added["memory"]["tags"] == ["staging", "db"]
    found = ok(stdio_target, "search_memories", query="when is the staging database backed up", k="1",
               filters='{"tags":["staging"]}')
    assert [r["id"] for r in found["results"]] == ["stdio-staging"] and found["results"][0]["why"]


def test_add_with_tags_then_search_with_k_and_filters(http_target):
    target = http_target
    first = ok(target, "add_memory", content=FACT, tags='["staging","db"]', category="operations",
               id="backup-staging")
    assert first["status"] == "created" and first["memory"]["tags"] == ["staging", "db"]
    ok(target, "add_memory", content=OTHER, tags='["production","db"]', category="operations", id="backup-prod")
    assert ok(target, "add_memory", content=FACT, tags='["staging","db"]')["status"] == "duplicate"

    found = ok(target, "search_memories", query="when is the staging database backed up", k="1")
    assert [r["id"] for r in found["results"]] == ["backup-staging"] and found["results"][0]["why"]
    both = ok(target, "search_memories", query="database backups", k="5", filters='{"tags":["db"]}')
    assert {r["id"] for r in both["results"]} == {"backup-staging", "backup-prod"}
    prod = ok(target, "search_memories", query="database backups", k="5", filters='{"tags":["production"]}',
              explain="false")
    assert [r["id"] for r in prod["results"]] == ["backup-prod"] and "why" not in prod["results"][0]
    assert ok(target, "get_memory", memory_id="backup-prod", detail="full")["tags"] == ["production", "db"]


def test_bad_calls_get_the_api_errors_over_stdio(stdio_target):
    """One bad call per kind of answer over stdio (a server process per call); every case over HTTP below."""
    half = error(stdio_target, "search_memories", query="backups", k="5.5")
    assert half == {"code": "validation_error", "message": "k: Input should be a valid integer", "field": "k"}
    assert error(stdio_target, "get_memory", memory_id="no-such-memory")["code"] == "not_found"


def test_bad_calls_get_the_api_errors(http_target):
    target = http_target
    half = error(target, "search_memories", query="backups", k="5.5")
    assert half == {"code": "validation_error", "message": "k: Input should be a valid integer", "field": "k"}
    assert error(target, "search_memories", query="backups", k="0")["field"] == "k"
    assert error(target, "search_memories", query="backups", filters='{"tags":"db"}')["field"] == "filters.tags"
    assert error(target, "add_memory", content="tags that are not a list", tags="staging,db")["field"] == "tags"
    assert error(target, "search_memories", query="backups", bogus="1")["field"] == "bogus"
    assert error(target, "get_memory", memory_id="no-such-memory")["code"] == "not_found"


def test_the_inspector_is_the_pinned_one():
    lock = json.loads((ROOT / "tests/mcp/inspector/package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/@modelcontextprotocol/inspector"]["version"]
    installed = json.loads(Path(INSPECTOR.resolve().parents[2], "package.json").read_text())
    assert installed["name"] == "@modelcontextprotocol/inspector" and installed["version"] == pinned

"""`graphmem mcp --http`: streamable HTTP behind the API's keys, one real server for the module.

Keys as in the API: A -> namespace a, B -> namespace b. The right key works, a wrong or missing
key is refused before any MCP session, and a foreign namespace is refused per tool call.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import requests
from mcp_helpers import BILLING_QUERY, FIXTURE, ROOT, http_client, http_server, mcp_args, server_env

KEY_A, KEY_B = "key-a-7f3c9e1d2b", "key-b-0a8d4f6e5c"
KEYS = f"agent-a:{KEY_A}:a,agent-b:{KEY_B}:b"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with http_server(tmp_path_factory.mktemp("mcp-http"), {"GRAPHMEM_API_KEYS": KEYS}) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def client_a(url):
    with http_client(url, KEY_A) as client:
        yield client


def test_right_key_works_in_its_namespace(client_a):
    assert {t.name for t in client_a.list_tools()} >= {"search_memories", "add_memory", "relate_memories"}
    rows = [line for line in FIXTURE.read_text().splitlines() if line.strip()][:6]
    for row in rows:
        assert client_a.ok("add_memory", json.loads(row))["status"] == "created"
    out = client_a.ok("search_memories", {"query": BILLING_QUERY, "k": 3})
    assert out["namespace"] == "a", "the key's only namespace is the default"
    assert out["results"][0]["id"] == "skill-deploy-billing" and out["results"][0]["why"]
    assert client_a.ok("memory_stats", {})["memories"] == 6


def test_foreign_namespace_is_refused(client_a, url):
    err = client_a.error("search_memories", {"query": BILLING_QUERY, "namespace": "b"})
    assert err == {"code": "forbidden_namespace", "message": "this key may not use namespace 'b'",
                   "field": "namespace"}
    assert client_a.error("add_memory", {"content": "sneaking into b", "namespace": "b"})["code"] == \
        "forbidden_namespace"
    client_a.ok("add_memory", {"content": "Only agent A may read this note about namespaces.", "id": "a-only"})
    with http_client(url, KEY_B) as client_b:
        assert client_b.error("get_memory", {"memory_id": "a-only"})["code"] == "not_found"
        assert client_b.ok("memory_stats", {})["memories"] == 0


def test_missing_or_wrong_key_is_refused(url):
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    missing = requests.post(url, json=INIT, headers=headers, timeout=30)
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "unauthorized"
    wrong = requests.post(url, json=INIT, headers={**headers, "Authorization": "Bearer nope"}, timeout=30)
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"
    right = requests.post(url, json=INIT, headers={**headers, "Authorization": f"Bearer {KEY_A}"}, timeout=30)
    assert right.status_code == 200 and right.json()["result"]["serverInfo"]["name"] == "graphmem"
    with pytest.raises(Exception), http_client(url, "nope") as client:   # noqa: B017 (the SDK's own error)
        client.list_tools()


def test_binding_beyond_loopback_without_keys_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, *mcp_args(tmp_path, None, "--http", "--host", "0.0.0.0")], cwd=ROOT,
                          env=server_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "refusing to listen on '0.0.0.0' without API keys" in proc.stderr

"""`graphmem mcp` on the Neo4j store, through a TCP proxy that can cut the connection: while Neo4j is
unreachable a tool call is a `store_unavailable` tool error (as the API's 503), the server stays
up, and calls succeed again once the store is back."""

from __future__ import annotations

import uuid
from urllib.parse import urlparse

import pytest
from mcp_helpers import BILLING_QUERY, ROOT, SyncClient, TcpProxy, server_env

from tests import neo4j_server
from tests.neo4j_server import open_store

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def proxied(neo4j_uri, tmp_path_factory):
    import sys

    from anyio.from_thread import start_blocking_portal
    from mcp import Client, StdioServerParameters

    target = urlparse(neo4j_uri)
    proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 7687)
    proxy.start()
    namespace = f"mcp-{uuid.uuid4().hex[:10]}"
    bounds = neo4j_server.server_env(tmp_path_factory.mktemp("mcp-neo4j-config"))
    env = server_env({**bounds, "GRAPHMEM_NEO4J_URI": f"bolt://127.0.0.1:{proxy.port}"})
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=env, args=[
        "-m", "graphmem", "--data-dir", str(tmp_path_factory.mktemp("mcp-neo4j")), "--store", "neo4j", "mcp",
        "--namespace", namespace])
    try:
        with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(params)) as client:
            yield SyncClient(portal, client), proxy
    finally:
        proxy.cut()
        store = open_store()
        store.drop_namespace(namespace)
        store.close()


def test_store_outage_is_a_tool_error_and_the_server_recovers(proxied):
    client, proxy = proxied
    added = client.ok("add_memory", {"content": "To deploy the billing service, run the release workflow and "
                                                "watch the canary dashboard.", "tags": ["billing", "deploy"],
                                     "category": "skills", "id": "deploy"})
    assert added["status"] == "created"
    assert client.ok("search_memories", {"query": BILLING_QUERY})["results"][0]["id"] == "deploy"

    proxy.cut()
    down = client.error("search_memories", {"query": BILLING_QUERY})
    assert down["code"] == "store_unavailable" and down["field"] == "store"

    proxy.start()
    assert client.ok("search_memories", {"query": BILLING_QUERY})["results"][0]["id"] == "deploy"
    assert client.ok("memory_stats", {})["memories"] == 1

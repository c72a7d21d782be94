"""The /ui page tests: one live server per store (keyed, one namespace), seeded through the API."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from test_api_server import Server  # noqa: E402

from graphmem.client import GraphmemClient  # noqa: E402
from tests.neo4j_server import neo4j_auth, neo4j_database  # noqa: E402

KEY = "ui-secret-7d1f"
XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> backup notes'
SEED = [
    {"id": "deploy-1", "content": "The deploy pipeline runs on GitHub Actions and pushes images to the registry",
     "tags": ["deploy", "ci"], "category": "infra", "source": "MEMORY.md"},
    {"id": "deploy-2", "content": "Staging deploys run nightly from the main branch through GitHub Actions",
     "tags": ["deploy"], "category": "infra", "source": "memory_tool"},
    {"id": "prefs-1", "content": "The user prefers dark mode in every editor and terminal",
     "tags": ["preferences"], "category": "user", "source": "USER.md"},
    {"id": "db-1", "content": "The primary Postgres database is backed up every six hours to object storage",
     "tags": ["database", "backup"], "category": "infra", "source": "memory_tool"},
    {"id": "chat-1", "content": "We agreed to move the weekly sync to Thursday afternoons", "thread": "standup",
     "seq": 1},
    {"id": "chat-2", "content": "The Thursday sync will start at three and last half an hour", "thread": "standup",
     "seq": 2},
    {"id": "xss-1", "content": XSS, "tags": ["<img src=x onerror=window.__pwned=3>"],
     "category": "<script>window.__pwned=4</script>"},
]


@pytest.fixture(scope="module", params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def live(request, tmp_path_factory):
    """(server, namespace): the seeded memories in a namespace of their own (Neo4j's database is shared)."""
    tmp = tmp_path_factory.mktemp(f"ui-{request.param}")
    ns = f"ui-{uuid.uuid4().hex[:8]}"
    env = None
    if request.param == "neo4j":
        uri = request.getfixturevalue("neo4j_uri")
        user, password = neo4j_auth() or ("neo4j", "")
        env = {"GRAPHMEM_NEO4J_URI": uri, "GRAPHMEM_NEO4J_USER": user, "GRAPHMEM_NEO4J_PASSWORD": password,
               "GRAPHMEM_NEO4J_DATABASE": neo4j_database() or "neo4j"}
    srv = Server(tmp / "data", tmp / "server.log", env_keys=f"ui:{KEY}:{ns}", store=request.param, env=env)
    client = GraphmemClient(srv.url, api_key=KEY)
    for item in SEED:
        client.add(item["content"], **{k: v for k, v in item.items() if k != "content"})
    yield srv, ns
    try:
        for memory_id in [m["id"] for m in client.list_memories(limit=500)["memories"]]:
            client.delete(memory_id)
    finally:
        srv.stop()

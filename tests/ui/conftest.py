"""The /ui page tests: one live server per store (keyed, one namespace), seeded through the API."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from test_api_server import Server  # noqa: E402
from ui_seed import KEY, SEED  # noqa: E402

from graphmem.client import GraphmemClient, GraphmemClientError  # noqa: E402
from tests.neo4j_server import neo4j_auth, neo4j_database  # noqa: E402


def seed(client: GraphmemClient, attempts: int = 3) -> None:
    """One batch (each Neo4j write costs seconds on a busy box). A cold Neo4j can pass its transaction
    timeout on the first batch: that answers 503 and writes nothing, so the batch is sent again."""
    for attempt in range(attempts):
        try:
            client.add_batch(SEED)
            break
        except GraphmemClientError as exc:
            if exc.status != 503 or attempt == attempts - 1:
                raise
    stored = {m["id"] for m in client.list_memories(limit=500)["memories"]}
    assert stored == {item["id"] for item in SEED}, stored


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
    seed(client)
    yield srv, ns
    try:
        for memory_id in [m["id"] for m in client.list_memories(limit=500)["memories"]]:
            client.delete(memory_id)
    finally:
        srv.stop()

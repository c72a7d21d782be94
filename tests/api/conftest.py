"""API fixtures: apps over fresh engines, and a test client that checks every response it
receives against the OpenAPI document (status documented, body matches its schema)."""

from __future__ import annotations

import pytest
from api_helpers import KEY_A, KEY_AB, KEY_B, MEMORIES, ValidatingClient, make_app, sha


@pytest.fixture
def app(engine):
    return make_app(engine)


@pytest.fixture
def client(app) -> ValidatingClient:
    return app.test_client()


@pytest.fixture
def keyed_app(make_engine):
    """Keys: A -> namespace a (config), B -> namespace b (env), AB -> both (config)."""
    engine = make_engine({"api": {"keys": [
        {"name": "agent-a", "sha256": sha(KEY_A), "namespaces": ["a"]},
        {"name": "agent-ab", "sha256": sha(KEY_AB), "namespaces": ["a", "b"]}]}})
    return make_app(engine, {"GRAPHMEM_API_KEYS": f"agent-b:{KEY_B}:b"})


@pytest.fixture
def keyed(keyed_app) -> ValidatingClient:
    return keyed_app.test_client()


@pytest.fixture
def seeded(client) -> ValidatingClient:
    resp = client.post("/v1/memories:batch", json={"memories": MEMORIES})
    assert resp.status_code == 200 and resp.get_json()["summary"]["created"] == len(MEMORIES)
    return client

"""Auth and tenancy: keys map to namespaces; nothing of B is visible, linkable or inferable from A."""

from __future__ import annotations

from dataclasses import replace

import pytest
from api_helpers import KEY_A, KEY_AB, KEY_B, auth, sha

from graphmem.api import create_app
from graphmem.auth import parse_env_keys
from graphmem.errors import ConfigError

SECRET_B = "Project Nightingale launches on the ninth of March with the Falcon rollout"


@pytest.fixture
def two_tenants(keyed):
    a, b = auth(KEY_A), auth(KEY_B)
    assert keyed.post("/v1/memories", json={"id": "a-1", "content": "Team A deploys with GitHub Actions",
                                            "tags": ["deploy"], "category": "infra"}, headers=a).status_code == 201
    assert keyed.post("/v1/memories", json={"id": "shared", "content": "A's own note about staging deploys",
                                            "tags": ["deploy"]}, headers=a).status_code == 201
    batch = keyed.post("/v1/memories:batch", headers=b, json={"memories": [
        {"id": "b-1", "content": SECRET_B, "tags": ["deploy", "launch"], "category": "infra"},
        {"id": "shared", "content": "B's unrelated note with the same id", "tags": ["deploy"]},
        {"id": "b-2", "content": "Team A deploys with GitHub Actions", "tags": ["deploy"]}]})
    assert batch.get_json()["summary"] == {"created": 3, "duplicate": 0, "rejected": 0}
    return keyed, a, b


def test_missing_or_bad_keys_are_401(keyed):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"X-API-Key": "wrong"}, {"Authorization": "Basic abc"},
                    {"Authorization": "Bearer "}):
        resp = keyed.get("/v1/stats", headers=headers)
        assert resp.status_code == 401, headers
        assert resp.get_json()["error"]["code"] in {"unauthorized", "invalid_api_key"}
        assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    assert keyed.get("/v1/stats", headers={"X-API-Key": KEY_A}).status_code == 200
    assert keyed.get("/v1/stats", headers=auth(KEY_B)).status_code == 200
    for path in ("/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"):
        assert keyed.get(path).status_code == 200, path


def test_default_namespace_is_the_keys_only_one(two_tenants):
    keyed, a, b = two_tenants
    assert keyed.get("/v1/memories/shared", headers=a).get_json()["content"].startswith("A's own note")
    assert keyed.get("/v1/memories/shared", headers=b).get_json()["content"].startswith("B's unrelated")
    assert keyed.get("/v1/memories/shared", headers=a).get_json()["namespace"] == "a"


def test_foreign_namespace_is_403_everywhere_and_writes_nothing(two_tenants):
    keyed, a, _ = two_tenants
    calls = [
        ("get", "/v1/memories?namespace=b", None), ("get", "/v1/memories/b-1?namespace=b", None),
        ("get", "/v1/memories/b-1/neighbors?namespace=b", None), ("get", "/v1/graph?ids=b-1&namespace=b", None),
        ("get", "/v1/stats?namespace=b", None), ("delete", "/v1/memories/b-1?namespace=b", None),
        ("post", "/v1/search", {"query": "launch", "namespace": "b"}),
        ("post", "/v1/memories", {"content": "sneaky write into b", "namespace": "b"}),
        ("post", "/v1/memories:batch", {"memories": [{"content": "fine"},
                                                     {"content": "sneaky", "namespace": "b"}]}),
        ("post", "/v1/memories:batch", {"namespace": "b", "memories": [{"content": "sneaky"}]}),
        ("patch", "/v1/memories/b-1", {"namespace": "b", "tags": ["hacked"]}),
        ("post", "/v1/relations", {"namespace": "b", "from_id": "b-1", "to_id": "b-2",
                                   "evidence": {"source_text": "x y", "quote": "x"}}),
    ]
    for method, path, body in calls:
        resp = getattr(keyed, method)(path, headers=a, **({"json": body} if body else {}))
        assert resp.status_code == 403, (method, path, resp.get_json())
        assert resp.get_json()["error"]["code"] == "forbidden_namespace"
    b_stats = keyed.get("/v1/stats", headers=auth(KEY_B)).get_json()
    assert b_stats["memories"] == 3 and b_stats["edges"]["RELATED"] == 0
    assert keyed.get("/v1/memories/b-1", headers=auth(KEY_B)).get_json()["tags"] == ["deploy", "launch"]
    assert keyed.get("/v1/stats", headers=a).get_json()["memories"] == 2   # the batch wrote nothing


def test_no_leak_through_search_neighbors_graph_stats_list_or_ids(two_tenants):
    keyed, a, _ = two_tenants
    hits = keyed.post("/v1/search", json={"query": "Project Nightingale launch Falcon rollout", "k": 10,
                                          "trace": True}, headers=a).get_json()
    assert {r["memory"]["namespace"] for r in hits["results"]} <= {"a"}
    assert all(r["id"] != "b-1" for r in hits["results"])
    assert "b-1" not in str(hits) and "Nightingale" not in str(hits["results"])
    # B's ids are simply unknown in A's namespace
    assert keyed.get("/v1/memories/b-1", headers=a).status_code == 404
    assert keyed.get("/v1/memories/b-1/neighbors", headers=a).status_code == 404
    assert keyed.delete("/v1/memories/b-1", headers=a).status_code == 404
    assert keyed.patch("/v1/memories/b-1", json={"tags": ["x"]}, headers=a).status_code == 404
    assert keyed.get("/v1/graph?ids=b-1,b-2", headers=a).get_json() == {"nodes": [], "edges": []}
    # A's neighbourhood never reaches into B even though B holds near-identical content
    nbrs = keyed.get("/v1/memories/a-1/neighbors", headers=a).get_json()["neighbors"]
    assert {n["memory"]["namespace"] for n in nbrs} <= {"a"}
    graph = keyed.get("/v1/graph?query=deploys&hops=2", headers=a).get_json()
    assert {n["namespace"] for n in graph["nodes"]} == {"a"}
    endpoints = {e["source"] for e in graph["edges"]} | {e["target"] for e in graph["edges"]}
    assert endpoints and not endpoints & {"b-1", "b-2"}
    # linking to B is impossible
    relate = keyed.post("/v1/relations", headers=a, json={"from_id": "a-1", "to_id": "b-1",
                                                          "evidence": {"source_text": "a b", "quote": "a"}})
    assert relate.status_code == 404 and relate.get_json()["error"]["field"] == "to_id"
    listed = keyed.get("/v1/memories", headers=a).get_json()["memories"]
    assert {m["id"] for m in listed} == {"a-1", "shared"}
    stats = keyed.get("/v1/stats", headers=a).get_json()
    assert stats["namespaces"] == {"a": 2} and stats["memories"] == 2
    # identical content in B is not a "duplicate" of A's memory (dedupe is per namespace)
    dup = keyed.post("/v1/memories", json={"content": "Team A deploys with GitHub Actions"}, headers=a)
    assert dup.get_json()["duplicate_of"] == "a-1"


def test_multi_namespace_key_must_name_one_and_sees_both_in_stats(two_tenants):
    keyed, _, _ = two_tenants
    ab = auth(KEY_AB)
    resp = keyed.post("/v1/memories", json={"content": "which namespace am I in?"}, headers=ab)
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "namespace"
    assert keyed.get("/v1/memories", headers=ab).status_code == 422
    assert keyed.get("/v1/memories?namespace=b", headers=ab).status_code == 200
    ok = keyed.post("/v1/memories", json={"content": "explicitly in b", "namespace": "b"}, headers=ab)
    assert ok.status_code == 201 and ok.get_json()["memory"]["namespace"] == "b"
    stats = keyed.get("/v1/stats", headers=ab).get_json()
    assert stats["namespaces"] == {"a": 2, "b": 4} and stats["memories"] == 6
    assert keyed.post("/v1/memories", json={"content": "x", "namespace": "c"}, headers=ab).status_code == 403
    mismatch = keyed.post("/v1/search?namespace=a", json={"query": "x", "namespace": "b"}, headers=ab)  # body only
    assert mismatch.status_code == 422 and mismatch.get_json()["error"]["field"] == "namespace"


def test_key_configuration_is_validated(engine):
    assert [k.namespaces for k in parse_env_keys("x:s:ns1|ns2, y:with:colon:ns3")] == [("ns1", "ns2"), ("ns3",)]
    assert parse_env_keys("y:with:colon:ns3")[0].sha256 == sha("with:colon")
    for env in ("justname", "x::ns", "x:secret:", "x:secret:bad ns", "x:s:a,y:s:b"):
        with pytest.raises(ConfigError):
            create_app(engine, environ={"GRAPHMEM_API_KEYS": env})
    bad_entries = [{"name": "x", "sha256": "nothex", "namespaces": ["a"]},
                   {"name": "x", "sha256": sha("k"), "namespaces": []},
                   {"name": "", "sha256": sha("k"), "namespaces": ["a"]},
                   {"name": "x", "sha256": sha("k"), "namespaces": ["a"], "extra": 1}]
    for entry in bad_entries:
        settings = replace(engine.settings, api=replace(engine.settings.api, keys=[entry]))
        with pytest.raises(ConfigError):
            create_app(engine, settings, environ={})

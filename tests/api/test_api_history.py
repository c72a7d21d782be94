"""The supersession routes over HTTP, each response checked against the OpenAPI document: a chain
made by a write and by POST /v1/supersessions reads back oldest first with times and reasons from
any of its members; unknown or foreign ids answer 404, malformed ones 422, a cycle 409, and none
of these writes anything; undo shortens the chain again."""

from __future__ import annotations

import pytest

V6 = {"id": "pg-14", "content": "The primary database runs PostgreSQL version 14 with streaming replicas.",
      "tags": ["postgres"], "category": "infra", "created_at": "2025-01-05T00:00:00Z"}
V7 = {"id": "pg-15", "content": "The primary database runs PostgreSQL version 15 with streaming replicas.",
      "tags": ["postgres"], "category": "infra", "created_at": "2025-04-02T00:00:00Z",
      "supersedes": ["pg-14"], "reason": "spring upgrade"}
V8 = {"id": "pg-16", "content": "The primary database now runs PostgreSQL version 16, replicas unchanged.",
      "tags": ["postgres"], "category": "infra", "created_at": "2025-09-20T00:00:00Z"}


@pytest.fixture
def chain(client):
    for body in (V6, V7, V8):
        assert client.post("/v1/memories", json=body).status_code == 201
    resp = client.post("/v1/supersessions", json={"newer": "pg-16", "older": ["pg-15"], "reason": "16 rollout"})
    assert resp.status_code == 200, resp.get_json()
    return client


def history(client, memory_id: str, **query):
    return client.get(f"/v1/memories/{memory_id}/history", query_string=query)


def test_history_lists_the_chain_oldest_first_from_any_member(chain):
    bodies = [history(chain, i).get_json() for i in ("pg-14", "pg-15", "pg-16")]
    for body in bodies:
        assert [e["memory"]["id"] for e in body["chain"]] == ["pg-14", "pg-15", "pg-16"]
        assert body["current"] == ["pg-16"] and body["truncated"] is False
        assert [(k["newer"], k["older"], k["reason"]) for k in body["links"]] == [
            ("pg-15", "pg-14", "spring upgrade"), ("pg-16", "pg-15", "16 rollout")]
    links = bodies[0]["links"]
    assert links[0]["older_valid_until"] == "2025-04-02T00:00:00.000000Z"
    assert links[1]["older_valid_until"] == "2025-09-20T00:00:00.000000Z"
    assert links[0]["at"] < links[1]["at"]                   # when each link was made, in order
    chain_mems = [e["memory"] for e in bodies[0]["chain"]]
    assert [m["superseded_by"] for m in chain_mems] == ["pg-15", "pg-16", None]


def test_a_memory_never_superseded_is_a_chain_of_one(client):
    assert client.post("/v1/memories", json=V6).status_code == 201
    body = history(client, "pg-14").get_json()
    assert [e["memory"]["id"] for e in body["chain"]] == ["pg-14"]
    assert body["current"] == ["pg-14"] and body["links"] == []


def test_unknown_foreign_and_malformed_ids(chain):
    resp = history(chain, "no-such-memory")
    assert resp.status_code == 404 and "no-such-memory" in resp.get_json()["error"]["message"]
    assert history(chain, "pg-14", namespace="elsewhere").status_code == 404    # another namespace's
    assert history(chain, "x" * 300).status_code == 422                        # longer than an id may be
    assert history(chain, "pg-14", namespace="Not A Namespace!").status_code == 422


def test_bad_links_answer_4xx_and_write_nothing(chain):
    before = history(chain, "pg-14").get_json()
    cases = [({"newer": "pg-14", "older": ["pg-16"]}, 409),       # would close a cycle
             ({"newer": "pg-16", "older": ["pg-16"]}, 409),       # itself
             ({"newer": "pg-16", "older": ["pg-14"]}, 409),       # already superseded by pg-15
             ({"newer": "pg-16", "older": ["missing"]}, 404),
             ({"newer": "missing", "older": ["pg-14"]}, 404),
             ({"newer": "pg-16", "older": []}, 422),
             ({"newer": "pg-16"}, 422)]
    for body, status in cases:
        resp = chain.post("/v1/supersessions", json=body)
        assert resp.status_code == status, (body, resp.get_json())
        assert history(chain, "pg-14").get_json() == before, body


def test_undo_shortens_the_chain(chain):
    resp = chain.delete("/v1/supersessions", query_string={"newer": "pg-16", "older": "pg-15"})
    assert resp.status_code == 200 and resp.get_json()["memory"]["superseded_by"] is None
    body = history(chain, "pg-16").get_json()
    assert [e["memory"]["id"] for e in body["chain"]] == ["pg-16"] and body["links"] == []
    assert [e["memory"]["id"] for e in history(chain, "pg-14").get_json()["chain"]] == ["pg-14", "pg-15"]
    again = chain.delete("/v1/supersessions", query_string={"newer": "pg-16", "older": "pg-15"})
    assert again.status_code == 404


def test_candidates_route_lists_proposals_with_evidence(client):
    text = "The cache cluster runs Redis {} on three nodes."
    older = {**V6, "id": "cache-6", "content": text.format("6.2"), "tags": ["redis"]}
    newer = {**older, "id": "cache-7", "content": text.format("7.4"), "created_at": "2025-05-01T00:00:00Z"}
    for body in (older, newer):
        assert client.post("/v1/memories", json=body).status_code == 201
    resp = client.get("/v1/memories/cache-6/candidates")
    assert resp.status_code == 200
    found = resp.get_json()["candidates"]
    assert [(c["newer"], c["older"], c["older_spans"][0]["text"], c["newer_spans"][0]["text"]) for c in found] == [
        ("cache-7", "cache-6", "6.2", "7.4")]
    assert client.get("/v1/memories/cache-6").get_json()["superseded_by"] is None     # proposed, not applied
    assert client.get("/v1/memories/nope/candidates").status_code == 404
    bad = client.get("/v1/memories/cache-6/candidates", query_string={"namespace": "Bad Name!"})
    assert bad.status_code == 422

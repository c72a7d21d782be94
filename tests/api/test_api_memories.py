"""Memory endpoints: create (idempotent), batch, get, patch, delete, list with filters and paging."""

from __future__ import annotations

import json

from api_helpers import MEMORIES


def test_create_returns_201_then_duplicate_200(client):
    body = {"id": "m1", "content": "The deploy pipeline uses GitHub Actions", "tags": ["Deploy"],
            "category": "Infra"}
    first = client.post("/v1/memories", json=body)
    assert first.status_code == 201
    data = first.get_json()
    assert data["status"] == "created" and data["id"] == "m1"
    assert data["memory"]["tags"] == ["deploy"] and data["memory"]["namespace"] == "default"
    assert first.headers["Location"].startswith("/v1/memories/m1")
    again = client.post("/v1/memories", json=body)
    assert again.status_code == 200
    assert again.get_json()["status"] == "duplicate" and again.get_json()["duplicate_of"] == "m1"
    # same content without an id is also recognised
    same = client.post("/v1/memories", json={"content": body["content"]})
    assert same.status_code == 200 and same.get_json()["duplicate_of"] == "m1"


def test_extracted_topics_come_apart_from_the_callers_tags(client):
    body = {"content": "Melanie signed up for a pottery class in Boston", "tags": ["speaker:Mel", "Session 1"]}
    memory = client.post("/v1/memories", json=body).get_json()["memory"]
    assert memory["tags"] == ["speaker:mel", "session 1"]           # the caller's, normalised as always
    topics = {t["topic"]: t["quote"] for t in memory["topics"]}
    assert topics["boston"] == "Boston" and topics["pottery"] == "pottery"
    assert all(quote in body["content"] for quote in topics.values())
    assert client.get(f"/v1/memories/{memory['id']}").get_json()["topics"] == memory["topics"]


def test_create_same_id_other_content_is_409_and_writes_nothing(client):
    client.post("/v1/memories", json={"id": "m1", "content": "first version of the note about deploys"})
    resp = client.post("/v1/memories", json={"id": "m1", "content": "a different note entirely about cats"})
    assert resp.status_code == 409
    assert resp.get_json()["error"] == {"code": "conflict", "message": resp.get_json()["error"]["message"],
                                        "field": "id"}
    assert client.get("/v1/memories/m1").get_json()["content"] == "first version of the note about deploys"
    assert client.get("/v1/stats").get_json()["memories"] == 1


def test_create_validation_errors_name_the_field(client):
    cases = [
        ({"content": ""}, 422, "content"),
        ({"tags": ["x"]}, 422, "content"),
        ({"content": "ok content here", "tags": "x"}, 422, "tags"),
        ({"content": "ok content here", "colour": "red"}, 422, "colour"),
        ({"content": "ok content here", "id": "bad id!"}, 422, "id"),
        ({"content": "ok content here", "namespace": "bad ns!"}, 422, "namespace"),
        ({"content": "x" * 9000}, 422, "content"),   # a field over its limit: 422 (413 is the body limit)
        ({"content": "quoted", "extracted": True, "evidence": {"source_text": "abc", "quote": "zzz"}}, 422,
         "evidence.quote"),
    ]
    for body, status, field in cases:
        resp = client.post("/v1/memories", json=body)
        assert resp.status_code == status, (body, resp.get_json())
        assert resp.get_json()["error"]["field"] == field
    assert client.get("/v1/stats").get_json()["memories"] == 0


def test_malformed_and_non_object_bodies_are_400(client):
    for data in ("{not json", "", "[1, 2]", '{"content": NaN}', "\xff\xfe"):
        resp = client.post("/v1/memories", data=data, content_type="application/json")
        assert resp.status_code == 400, data
        assert resp.get_json()["error"]["code"] == "malformed_json"


def test_batch_is_validated_whole_before_anything_is_written(client):
    items = [MEMORIES[0], {"content": ""}, MEMORIES[1], "not an object"]
    resp = client.post("/v1/memories:batch", json={"memories": items})
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "memories[1].content"
    bad_tag = [MEMORIES[0], {**MEMORIES[1], "tags": ["ok", "bad\ud800"]}]     # a lone surrogate
    resp = client.post("/v1/memories:batch", data=json.dumps({"memories": bad_tag}),
                       content_type="application/json")
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "memories[1].tags[1]"
    assert client.get("/v1/stats").get_json()["memories"] == 0


def test_batch_reports_each_item(client):
    conflict = {**MEMORIES[1], "id": "deploy-1"}       # a stored id with other content
    items = [MEMORIES[0], MEMORIES[0], conflict, MEMORIES[2]]
    resp = client.post("/v1/memories:batch", json={"memories": items})
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["summary"] == {"created": 2, "duplicate": 1, "rejected": 1}
    statuses = [(r["index"], r["status"]) for r in data["results"]]
    assert statuses == [(0, "created"), (1, "duplicate"), (2, "rejected"), (3, "created")]
    assert data["results"][1]["duplicate_of"] == "deploy-1"
    assert data["results"][2]["error"]["field"] == "id"


def test_batch_limits_and_shape(client, app):
    limit = app.extensions["graphmem"].settings.limits.max_batch
    too_many = [{"content": f"memory number {i} about things"} for i in range(limit + 1)]
    resp = client.post("/v1/memories:batch", json={"memories": too_many})
    assert resp.status_code == 422 and resp.get_json()["error"]["field"] == "memories"
    for body in ({"memories": []}, {"memories": "x"}, {}, {"memories": [], "extra": 1}):
        resp = client.post("/v1/memories:batch", json=body)
        assert resp.status_code == 422
    assert client.get("/v1/stats").get_json()["memories"] == 0


def test_get_exact_lookup_even_for_unhealthy_memories(client):
    client.post("/v1/memories", json={"id": "cmd", "content": "git push"})  # short + transient: low health
    resp = client.get("/v1/memories/cmd")
    assert resp.status_code == 200
    assert resp.get_json()["health"] < 0.5
    missing = client.get("/v1/memories/nope")
    assert missing.status_code == 404 and missing.get_json()["error"]["field"] == "id"


def test_ids_with_slashes_work(client):
    client.post("/v1/memories", json={"id": "notes/2024/deploy", "content": "Deploys are frozen on Fridays"})
    assert client.get("/v1/memories/notes/2024/deploy").status_code == 200
    assert client.get("/v1/memories/notes%2F2024%2Fdeploy").status_code == 200
    assert client.get("/v1/memories/notes/2024/deploy/neighbors").status_code == 200


def test_patch_relinks_and_reembeds(seeded):
    before = seeded.get("/v1/memories/prefs-1/neighbors").get_json()["neighbors"]
    assert not any(n["memory"]["id"] == "deploy-2" for n in before)
    resp = seeded.patch("/v1/memories/prefs-1", json={"tags": ["deploy"], "category": "infra"})
    assert resp.status_code == 200
    assert resp.get_json()["tags"] == ["deploy"] and resp.get_json()["category"] == "infra"
    after = seeded.get("/v1/memories/prefs-1/neighbors").get_json()["neighbors"]
    assert any(n["memory"]["id"] == "deploy-2" and n["type"] == "SHARES_TAG" for n in after)
    content = seeded.patch("/v1/memories/prefs-1", json={"content": "The user likes light themes now"})
    assert content.get_json()["content"] == "The user likes light themes now"


def test_patch_errors(seeded):
    assert seeded.patch("/v1/memories/nope", json={"tags": ["x"]}).status_code == 404
    for body, field in (({"id": "x"}, "id"), ({}, None), ({"tags": [1]}, "tags[0]"), ({"namespace": "default"},
                                                                                       None)):
        resp = seeded.patch("/v1/memories/prefs-1", json=body)
        assert resp.status_code == 422, body
        assert resp.get_json()["error"]["field"] == field
    assert seeded.patch("/v1/memories/prefs-1", data="nope", content_type="application/json").status_code == 400
    assert seeded.patch("/v1/memories/prefs-1", data='{"tags": ["x"]}').status_code == 415   # not JSON-typed
    assert seeded.get("/v1/memories/prefs-1").get_json()["tags"] == ["preferences"]


def test_delete_removes_memory_and_edges(seeded):
    edges_before = sum(seeded.get("/v1/stats").get_json()["edges"].values())
    assert edges_before > 0
    resp = seeded.delete("/v1/memories/deploy-2")
    assert resp.status_code == 204 and resp.get_data() == b""
    assert seeded.get("/v1/memories/deploy-2").status_code == 404
    graph = seeded.get("/v1/graph?ids=deploy-1,db-1&hops=1").get_json()
    assert all("deploy-2" not in (e["source"], e["target"]) for e in graph["edges"])
    assert seeded.delete("/v1/memories/deploy-2").status_code == 404


def test_list_filters_and_cursor_paging(seeded):
    page = seeded.get("/v1/memories?limit=3").get_json()
    assert len(page["memories"]) == 3 and page["next_cursor"]
    rest = seeded.get(f"/v1/memories?limit=3&cursor={page['next_cursor']}").get_json()
    assert len(rest["memories"]) == 1 and rest["next_cursor"] is None
    ids = [m["id"] for m in page["memories"] + rest["memories"]]
    assert sorted(ids) == sorted(m["id"] for m in MEMORIES)
    infra = seeded.get("/v1/memories?category=infra").get_json()["memories"]
    assert {m["id"] for m in infra} == {"deploy-1", "deploy-2", "db-1"}
    tagged = seeded.get("/v1/memories?tags=deploy&tags=ci").get_json()["memories"]
    assert [m["id"] for m in tagged] == ["deploy-1"]
    sourced = seeded.get("/v1/memories?source=memory_tool,USER.md").get_json()["memories"]
    assert {m["id"] for m in sourced} == {"deploy-2", "prefs-1", "db-1"}
    healthy = seeded.get("/v1/memories?min_health=0.99").get_json()["memories"]
    assert all(m["health"] >= 0.99 for m in healthy)
    assert seeded.get("/v1/memories?created_before=2000-01-01T00:00:00Z").get_json()["memories"] == []
    assert len(seeded.get("/v1/memories?created_after=2000-01-01").get_json()["memories"]) == 4


def test_list_errors(seeded):
    cases = [("limit=0", "limit"), ("limit=abc", "limit"), ("limit=501", "limit"), ("cursor=%%%", "cursor"),
             ("min_health=2", "min_health"), ("created_after=yesterday", "created_after"),
             ("colour=red", "colour"), ("namespace=bad%20ns", "namespace")]
    for query, field in cases:
        resp = seeded.get(f"/v1/memories?{query}")
        assert resp.status_code == 422, query
        assert resp.get_json()["error"]["field"] == field, query

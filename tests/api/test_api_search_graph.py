"""Search (explain, trace, stages, params, filters, recipes), neighbours, subgraphs, relations."""

from __future__ import annotations

import pytest

EVIDENCE = {"source_text": "We back up Postgres before every deploy of the pipeline.",
            "quote": "back up postgres before every deploy"}


def test_search_returns_ranked_results_with_why(seeded):
    resp = seeded.post("/v1/search", json={"query": "how do deploys work", "k": 3})
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["query"] == "how do deploys work" and data["namespace"] == "default"
    assert "trace" not in data
    results = data["results"]
    assert 1 <= len(results) <= 3
    assert results[0]["id"] in {"deploy-1", "deploy-2"}
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    for r in results:
        assert r["why"]["kind"] == r["kind"]
        assert r["why"]["health"]["applied"] and r["why"]["source"]["applied"]


def test_search_explain_off_and_trace_on(seeded):
    data = seeded.post("/v1/search", json={"query": "deploy pipeline", "explain": False, "trace": True}).get_json()
    assert all("why" not in r for r in data["results"])
    stages = [s["stage"] for s in data["trace"]["stages"]]
    assert stages == ["router", "recall", "expansion", "multihop", "weighting", "rank"]
    # each stage is timed inside the search (every figure rounded to the microsecond)
    stage_ms = [s["ms"] for s in data["trace"]["stages"]]
    assert min(stage_ms) >= 0 and sum(stage_ms) <= data["trace"]["total_ms"] + 0.001 * len(stage_ms), data["trace"]
    assert sum(data["trace"]["results_by_kind"].values()) == len(data["results"])


def test_search_stages_recipe_params_and_filters(seeded):
    lexical = seeded.post("/v1/search", json={"query": "postgres backup", "recipe": "lexical",
                                              "trace": True}).get_json()
    recall = next(s for s in lexical["trace"]["stages"] if s["stage"] == "recall")
    assert recall["vector"] == 0 and lexical["results"][0]["id"] == "db-1"
    assert all(r["kind"] == "direct" for r in lexical["results"])
    no_graph = seeded.post("/v1/search", json={"query": "deploys", "stages": {"expansion": False,
                                                                              "health": False}}).get_json()
    assert all(r["kind"] == "direct" for r in no_graph["results"])
    assert all(not r["why"]["health"]["applied"] for r in no_graph["results"])
    tuned = seeded.post("/v1/search", json={"query": "deploys", "params": {
        "fusion": "weighted", "expansion_seeds": 2, "edge_type_weights": {"OVERLAPS": 0},
        "dedupe_near_duplicates": False, "recency_weight": 0.5, "recency_half_life_days": 7}})
    assert tuned.status_code == 200
    filtered = seeded.post("/v1/search", json={"query": "deploys", "filters": {"categories": ["user"]}}).get_json()
    assert {r["id"] for r in filtered["results"]} <= {"prefs-1"}
    tagged = seeded.post("/v1/search", json={"query": "anything", "filters": {"tags": ["backup"]}}).get_json()
    assert [r["id"] for r in tagged["results"]] == ["db-1"]


@pytest.mark.parametrize("body, status, field", [
    ({}, 422, "query"),
    ({"query": "   "}, 422, "query"),
    ({"query": 5}, 422, "query"),
    ({"query": "x" * 2001}, 422, "query"),
    ({"query": "x", "k": 0}, 422, "k"),
    ({"query": "x", "k": 101}, 422, "k"),
    ({"query": "x", "k": "many"}, 422, "k"),
    ({"query": "x", "k": True}, 422, "k"),
    ({"query": "x", "recipe": "nope"}, 422, "recipe"),
    ({"query": "x", "recipe": 3}, 422, "recipe"),
    ({"query": "x", "stages": {"warp": True}}, 422, "stages.warp"),
    ({"query": "x", "stages": {"vector": "yes"}}, 422, "stages.vector"),
    ({"query": "x", "stages": []}, 422, "stages"),
    ({"query": "x", "params": {"nope": 1}}, 422, "params.nope"),
    ({"query": "x", "params": {"fusion": "max"}}, 422, "params.fusion"),
    ({"query": "x", "params": {"rrf_k": -1}}, 422, "params.rrf_k"),
    ({"query": "x", "params": {"expansion_seeds": 2.5}}, 422, "params.expansion_seeds"),
    ({"query": "x", "params": {"recall_candidates": 10 ** 9}}, 422, "params.recall_candidates"),
    ({"query": "x", "params": {"edge_type_weights": "heavy"}}, 422, "params.edge_type_weights"),
    ({"query": "x", "params": {"edge_type_weights": {"FOO": 1}}}, 422, "params.edge_type_weights.FOO"),
    ({"query": "x", "params": {"dedupe_near_duplicates": "no"}}, 422, "params.dedupe_near_duplicates"),
    ({"query": "x", "params": {"recency_weight": 1, "recency_half_life_days": 0}}, 422,
     "params.recency_half_life_days"),
    ({"query": "x", "filters": {"colour": "red"}}, 422, "filters.colour"),
    ({"query": "x", "filters": {"min_health": 3}}, 422, "filters.min_health"),
    ({"query": "x", "filters": []}, 422, "filters"),
    ({"query": "x", "explain": "yes"}, 422, "explain"),
    ({"query": "x", "trace": 1}, 422, "trace"),
    ({"query": "x", "limit": 3}, 422, "limit"),
])
def test_search_validation(seeded, body, status, field):
    resp = seeded.post("/v1/search", json=body)
    assert resp.status_code == status, resp.get_json()
    assert resp.get_json()["error"]["field"] == field


def test_neighbors_lists_typed_weighted_edges(seeded):
    resp = seeded.get("/v1/memories/deploy-1/neighbors")
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["memory"]["id"] == "deploy-1"
    assert data["neighbors"]
    for n in data["neighbors"]:
        assert n["type"] in {"SHARES_TAG", "SAME_CATEGORY", "OVERLAPS", "RELATED"}
        assert 0 < n["weight"] <= 1 and isinstance(n["reason"], dict)
    only = seeded.get("/v1/memories/deploy-1/neighbors?types=SHARES_TAG").get_json()["neighbors"]
    assert only and all(n["type"] == "SHARES_TAG" for n in only)
    strong = seeded.get("/v1/memories/deploy-1/neighbors?min_weight=0.99").get_json()["neighbors"]
    assert all(n["weight"] >= 0.99 for n in strong)
    assert len(seeded.get("/v1/memories/deploy-1/neighbors?limit=1").get_json()["neighbors"]) == 1


def test_neighbors_errors(seeded):
    assert seeded.get("/v1/memories/nope/neighbors").status_code == 404
    for query, field in (("types=FOO", "types"), ("min_weight=2", "min_weight"), ("limit=0", "limit"),
                         ("limit=x", "limit"), ("hops=2", "hops")):
        resp = seeded.get(f"/v1/memories/deploy-1/neighbors?{query}")
        assert resp.status_code == 422 and resp.get_json()["error"]["field"] == field, query


def test_graph_by_ids_and_by_query(seeded):
    by_ids = seeded.get("/v1/graph?ids=deploy-1&hops=1").get_json()
    node_ids = {n["id"] for n in by_ids["nodes"]}
    assert "deploy-1" in node_ids and "deploy-2" in node_ids
    assert all(e["source"] in node_ids and e["target"] in node_ids for e in by_ids["edges"])
    alone = seeded.get("/v1/graph?ids=deploy-1&hops=0").get_json()
    assert [n["id"] for n in alone["nodes"]] == ["deploy-1"] and alone["edges"] == []
    by_query = seeded.get("/v1/graph?query=postgres%20backups&k=1&hops=0").get_json()
    assert [n["id"] for n in by_query["nodes"]] == ["db-1"]
    unknown = seeded.get("/v1/graph?ids=nope").get_json()
    assert unknown == {"nodes": [], "edges": []}
    assert seeded.get("/v1/graph").get_json() == {"nodes": [], "edges": []}   # no seeds: an empty graph
    both = seeded.get("/v1/graph?ids=prefs-1&query=postgres%20backups&k=1&hops=0").get_json()
    assert [n["id"] for n in both["nodes"]] == ["prefs-1", "db-1"]


def test_graph_errors(seeded):
    for query, field in (("ids=a&hops=9", "hops"), ("query=x&k=0", "k"), ("ids=a&hops=1&hops=2", "hops"),
                         ("ids=" + ",".join(f"m{i}" for i in range(21)), "ids"), ("ids=bad%20id", "ids"),
                         ("ids=a&namespace=", "namespace"), ("query=%20", "query")):
        resp = seeded.get(f"/v1/graph?{query}")
        assert resp.status_code == 422 and resp.get_json()["error"]["field"] == field, query


def test_relations_with_evidence(seeded):
    resp = seeded.post("/v1/relations", json={"from_id": "db-1", "to_id": "deploy-1", "label": "precedes",
                                              "evidence": EVIDENCE, "weight": 0.8})
    assert resp.status_code == 201
    edge = resp.get_json()
    assert edge["type"] == "RELATED" and edge["weight"] == 0.8
    assert {edge["source"], edge["target"]} == {"db-1", "deploy-1"}
    assert edge["reason"]["label"] == "precedes"
    neighbours = seeded.get("/v1/memories/db-1/neighbors?types=RELATED").get_json()["neighbors"]
    assert [n["memory"]["id"] for n in neighbours] == ["deploy-1"]
    assert seeded.get("/v1/stats").get_json()["edges"]["RELATED"] == 1


@pytest.mark.parametrize("body, status, code, field", [
    ({"from_id": "db-1", "to_id": "deploy-1", "evidence": {"source_text": "abc", "quote": "xyz"}}, 422,
     "evidence_rejected", "evidence.quote"),
    ({"from_id": "db-1", "to_id": "deploy-1"}, 422, "validation_error", "evidence"),   # required by the schema
    ({"from_id": "db-1", "to_id": "deploy-1", "evidence": EVIDENCE, "label": "x" * 65}, 422, "validation_error",
     "label"),
    ({"from_id": "db-1", "to_id": "nope", "evidence": EVIDENCE}, 404, "not_found", "to_id"),
    ({"from_id": "db-1", "to_id": "db-1", "evidence": EVIDENCE}, 422, "validation_error", "to_id"),
    ({"from_id": "db-1", "to_id": "deploy-1", "evidence": EVIDENCE, "weight": 2}, 422, "validation_error",
     "weight"),
    ({"from_id": "db-1", "to_id": "deploy-1", "evidence": EVIDENCE, "label": ""}, 422, "validation_error",
     "label"),
    ({"to_id": "deploy-1", "evidence": EVIDENCE}, 422, "validation_error", "from_id"),
    ({"from_id": "db-1", "to_id": "deploy-1", "evidence": EVIDENCE, "kind": "x"}, 422, "validation_error",
     "kind"),
])
def test_relation_errors_write_nothing(seeded, body, status, code, field):
    resp = seeded.post("/v1/relations", json=body)
    assert resp.status_code == status, resp.get_json()
    assert resp.get_json()["error"]["code"] == code and resp.get_json()["error"]["field"] == field
    assert seeded.get("/v1/stats").get_json()["edges"]["RELATED"] == 0

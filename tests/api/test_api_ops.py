"""Ops endpoints and the error contract: probes, metrics, request ids, access logs, 4xx/5xx JSON."""

from __future__ import annotations

import json
import logging
import math
import sqlite3

from api_helpers import make_app

from graphmem.errors import StoreUnavailable


def test_healthz_and_readyz(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    server = {"kind": "sqlite", "version": sqlite3.sqlite_version, "edition": "embedded", "topology": "embedded",
              "roles": {}}
    assert ready.get_json() == {"status": "ready", "checks": {"store": "ok", "embedder": "ok"}, "server": server}


def test_readyz_503_when_store_or_embedder_fail(client, engine, monkeypatch):
    def broken(*_a, **_k):
        raise RuntimeError("disk gone")

    monkeypatch.setattr(engine.store, "ping", broken)
    resp = client.get("/readyz")
    assert resp.status_code == 503
    assert resp.headers["Retry-After"] == str(math.ceil(engine.settings.store.neo4j.breaker_cooldown))
    body = resp.get_json()
    assert body["error"]["code"] == "not_ready" and body["checks"]["store"].startswith("error")
    assert body["checks"]["embedder"] == "ok"
    monkeypatch.setattr(engine.embedder, "embed_query", broken)
    assert client.get("/readyz").get_json()["checks"]["embedder"].startswith("error")


def test_store_unavailable_is_503_with_retry_after(client, engine, monkeypatch):
    def down(*_a, **_k):
        raise StoreUnavailable("the store is not answering")

    monkeypatch.setattr(engine, "search_outcome", down)
    resp = client.post("/v1/search", json={"query": "anything"})
    assert resp.status_code == 503
    # no hint from the store: the breaker's cooldown (store.neo4j.breaker_cooldown), rounded up
    assert resp.headers["Retry-After"] == str(math.ceil(engine.settings.store.neo4j.breaker_cooldown))
    assert resp.get_json()["error"]["code"] == "store_unavailable"


def test_unexpected_exception_is_json_500(client, engine, monkeypatch):
    monkeypatch.setattr(engine, "stats", lambda *_a: 1 / 0)
    resp = client.get("/v1/stats")
    assert resp.status_code == 500
    assert resp.get_json()["error"] == {"code": "internal_error",
                                        "message": "internal server error; see the server log", "field": None}


def test_unknown_route_and_wrong_method_are_json(client):
    missing = client.get("/v2/nothing")
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "not_found"
    wrong = client.put("/v1/search", json={})
    assert wrong.status_code == 405 and wrong.get_json()["error"]["code"] == "method_not_allowed"
    assert "POST" in wrong.headers["Allow"]
    assert client.get("/v1/memories:batch").status_code == 405


def test_body_over_limit_is_413_and_writes_nothing(make_engine):
    engine = make_engine({"limits": {"max_body_bytes": 2000}})
    client = make_app(engine).test_client()
    resp = client.post("/v1/memories", json={"content": "y" * 3000})
    assert resp.status_code == 413 and resp.get_json()["error"]["code"] == "too_large"
    assert client.get("/v1/stats").get_json()["memories"] == 0
    assert client.post("/v1/memories", json={"content": "small enough to fit"}).status_code == 201


def test_request_id_is_echoed_or_generated(client):
    assert client.get("/healthz", headers={"X-Request-ID": "trace-42"}).headers["X-Request-ID"] == "trace-42"
    generated = client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"}).headers["X-Request-ID"]
    assert generated != "bad id\twith spaces" and len(generated) == 32
    assert client.get("/nope").headers["X-Request-ID"]


def test_access_log_is_one_structured_record_per_request(client, caplog):
    with caplog.at_level(logging.INFO, logger="graphmem.access"):
        client.post("/v1/memories", json={"content": "log me please, I am a memory"},
                    headers={"X-Request-ID": "req-1"})
        client.get("/v1/memories/missing")
    records = [r for r in caplog.records if r.name == "graphmem.access"]
    assert len(records) == 2
    first, second = records[0].fields, records[1].fields
    assert first == {**first, "method": "POST", "path": "/v1/memories", "status": 201, "request_id": "req-1",
                     "namespace": "default"}
    assert second["status"] == 404 and isinstance(second["ms"], float)
    json.dumps(first)   # serialisable as one JSON line


def test_metrics_count_searches_stages_results_and_ingest(seeded):
    seeded.post("/v1/search", json={"query": "deploy pipeline", "trace": True})
    seeded.post("/v1/search", json={"query": "postgres"})
    seeded.get("/v1/memories/deploy-1")
    resp = seeded.get("/metrics")
    assert resp.status_code == 200 and resp.mimetype == "text/plain"
    text = resp.get_data(as_text=True)
    assert "graphmem_searches_total 2.0" in text
    for stage in ("router", "recall", "expansion", "weighting", "rank"):
        assert f'graphmem_search_stage_duration_seconds_count{{stage="{stage}"}} 2.0' in text
    assert 'graphmem_ingest_results_total{status="created"} 4.0' in text
    assert 'graphmem_search_results_total{kind="direct"}' in text
    assert "graphmem_search_near_duplicates_dropped_total" in text
    assert "graphmem_search_health_changed_top5_total" in text
    assert "graphmem_search_source_reordered_total" in text
    assert 'endpoint="/v1/memories/<memory_id:memory_id>"' in text
    assert "deploy-1" not in text      # the url rule, never the raw path
    assert 'graphmem_http_requests_in_flight 1.0' in text


def metric(text: str, name: str) -> float:
    """The value of one sample line ``name value`` (0.0 when the sample is absent)."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def test_metrics_keep_the_trace_counters(seeded):
    """Per-stage candidates in/out, disabled stages and expansion outcomes add up to the traces."""
    traces = [seeded.post("/v1/search", json={"query": q, "trace": True, **extra}).get_json()["trace"]
              for q, extra in (("deploy pipeline", {}), ("postgres config", {}),
                               ("deploy", {"stages": {"expansion": False, "router": False}}))]
    text = seeded.get("/metrics").get_data(as_text=True)
    for stage in ("router", "recall", "expansion", "weighting", "rank"):
        rows = [row for t in traces for row in t["stages"] if row["stage"] == stage]
        on = [row for row in rows if row["enabled"]]
        for direction in ("in", "out"):
            want = sum(row[direction] for row in on)
            name = f'graphmem_search_stage_candidates_total{{direction="{direction}",stage="{stage}"}}'
            got = metric(text, name)
            assert got == want, (stage, direction)
        assert metric(text, f'graphmem_search_stage_disabled_total{{stage="{stage}"}}') == len(rows) - len(on)
    assert metric(text, 'graphmem_search_stage_disabled_total{stage="expansion"}') == 1.0
    expansion = [row for t in traces for row in t["stages"] if row["stage"] == "expansion"]
    found = {outcome: sum(row.get(outcome, 0) for row in expansion) for outcome in ("added", "merged")}
    assert sum(found.values()) > 0, "the seeded memories should give expansion neighbours"
    for outcome, count in found.items():
        assert metric(text, f'graphmem_search_expansion_neighbours_total{{outcome="{outcome}"}}') == count


def test_each_app_has_its_own_registry(make_engine):
    one = make_app(make_engine(subdir="one")).test_client()
    two = make_app(make_engine(subdir="two")).test_client()
    one.post("/v1/search", json={"query": "x"})
    assert "graphmem_searches_total 1.0" in one.get("/metrics").get_data(as_text=True)
    assert "graphmem_searches_total 0.0" in two.get("/metrics").get_data(as_text=True)


def test_stats_shape(seeded):
    stats = seeded.get("/v1/stats").get_json()
    assert stats["memories"] == 4 and stats["namespaces"] == {"default": 4}
    assert sum(stats["health_histogram"].values()) == 4
    assert stats["edges"]["SHARES_TAG"] >= 1 and stats["degree"]["SHARES_TAG"]["max"] >= 1
    assert stats["server"] == {"kind": "sqlite", "version": sqlite3.sqlite_version, "edition": "embedded",
                               "topology": "embedded", "roles": {}, "servers": {}}
    assert seeded.get("/v1/stats?namespace=other").get_json()["memories"] == 0
    assert seeded.get("/v1/stats?nope=1").status_code == 422

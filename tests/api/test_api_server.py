"""The real thing: ``python -m graphmem serve`` under waitress, driven by ``graphmem.client``.

Covers what the Flask test client cannot: the CLI wiring, waitress, JSON access logs on
stderr, and a SIGTERM that lets an in-flight request finish before a clean exit.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.cli.serve_cmd import is_loopback
from graphmem.client import GraphmemClient, GraphmemClientError
from tests.helpers.server import Server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path / "data", tmp_path / "server.log")
    yield srv
    if srv.proc.poll() is None:
        srv.proc.kill()
        srv.proc.wait()


def test_real_server_end_to_end_with_client(server):
    gm = GraphmemClient(server.url, timeout=30)
    assert gm.ready()["status"] == "ready"
    created = gm.add("The deploy pipeline runs on GitHub Actions", id="d1", tags=["deploy", "ci"],
                     category="infra", source="memory_tool")
    assert created["status"] == "created"
    assert gm.add("The deploy pipeline runs on GitHub Actions", id="d1")["status"] == "duplicate"
    batch = gm.add_batch([{"id": "d2", "content": "Staging deploys run nightly via GitHub Actions",
                           "tags": ["deploy"], "category": "infra"},
                          {"id": "u1", "content": "The user prefers dark mode", "tags": ["prefs"]},
                          {"id": "d1", "content": "Other content under a stored id"}])
    assert batch["summary"] == {"created": 2, "duplicate": 0, "rejected": 1}
    assert gm.get("d2")["tags"] == ["deploy"]
    assert gm.update("u1", tags=["prefs", "editor"])["tags"] == ["prefs", "editor"]
    assert {m["id"] for m in gm.iter_memories(page_size=1)} == {"d1", "d2", "u1"}

    found = gm.search("how do deploys work", k=5, trace=True)
    assert found["results"][0]["id"] in {"d1", "d2"}
    assert all("why" in r for r in found["results"])
    assert [s["stage"] for s in found["trace"]["stages"]][0] == "router"
    nbrs = gm.neighbors("d1")
    assert any(n["memory"]["id"] == "d2" for n in nbrs["neighbors"])
    assert {n["id"] for n in gm.graph(ids=["d1"])["nodes"]} >= {"d1", "d2"}
    edge = gm.relate("d1", "u1", {"source_text": "Dark mode also applies to the deploy dashboard",
                                  "quote": "dark mode also applies"}, label="mentions")
    assert edge["type"] == "RELATED"
    assert gm.stats()["edges"]["RELATED"] == 1

    with pytest.raises(GraphmemClientError) as err:
        gm.relate("d1", "u1", {"source_text": "abc", "quote": "nope"})
    assert (err.value.status, err.value.code, err.value.field) == (422, "evidence_rejected", "evidence.quote")
    gm.delete("d2")
    with pytest.raises(GraphmemClientError) as err:
        gm.get("d2")
    assert (err.value.status, err.value.code, err.value.field) == (404, "not_found", "id")

    metrics = gm.metrics()
    assert "graphmem_searches_total 1.0" in metrics
    assert 'graphmem_ingest_results_total{status="created"} 3.0' in metrics
    assert 'endpoint="/v1/memories/<memory_id:memory_id>"' in metrics
    assert gm.openapi()["openapi"] == "3.1.0"

    assert server.stop() == 0
    lines = server.log_lines()
    events = [line["event"] for line in lines]
    assert "serving" in events and "shutdown requested" in events and events[-1] == "stopped"
    assert any(line.get("auth") == "off" for line in lines)
    access = [line for line in lines if line["logger"] == "graphmem.access"]
    assert {"method", "path", "status", "ms", "request_id", "namespace"} <= set(access[0])
    assert any(a["path"] == "/v1/search" and a["namespace"] == "default" for a in access)
    with pytest.raises(GraphmemClientError) as err:
        GraphmemClient(server.url, timeout=2).health()
    assert err.value.status == 0 and err.value.code == "connection_error"


def test_sigterm_lets_in_flight_requests_finish(tmp_path):
    srv = Server(tmp_path / "data", tmp_path / "server.log", env_keys="tester:tok-123:ns1")
    try:
        anon = GraphmemClient(srv.url)
        with pytest.raises(GraphmemClientError) as err:
            anon.stats()
        assert err.value.status == 401
        gm = GraphmemClient(srv.url, api_key="tok-123", timeout=120)
        items = [{"content": f"Memory {i}: service {i % 17} talks to queue {i % 11} on port {8000 + i}",
                  "tags": [f"svc-{i % 17}"], "category": f"team-{i % 5}"} for i in range(200)]
        outcome: dict = {}
        worker = threading.Thread(target=lambda: outcome.update(batch=gm.add_batch(items)))
        worker.start()
        watcher = GraphmemClient(srv.url, timeout=5)
        deadline = time.monotonic() + 30
        while "graphmem_http_requests_in_flight 2.0" not in watcher.metrics():   # the batch + this scrape
            assert time.monotonic() < deadline and worker.is_alive(), "batch never seen in flight"
            time.sleep(0.02)
        srv.proc.send_signal(signal.SIGTERM)
        worker.join(timeout=120)
        assert outcome["batch"]["summary"]["created"] == 200, "the in-flight batch was answered in full"
        assert srv.stop(signal_it=False) == 0      # exits by itself after the drain
        lines = srv.log_lines()
        events = [line.get("path") or line["event"] for line in lines]
        # the batch was answered after the signal arrived and before the server stopped
        assert events.index("shutdown requested") < events.index("/v1/memories:batch") < events.index("stopped")
        assert any(line.get("key") == "tester" and line.get("namespace") == "ns1" for line in srv.log_lines())
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait()


def test_serve_refuses_public_host_without_keys(tmp_path):
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "serve", "--host", "0.0.0.0"],
                                env={"GRAPHMEM_API_KEYS": ""})
    assert result.exit_code != 0
    assert "refusing to listen on '0.0.0.0' without API keys" in result.output


def test_loopback_detection():
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.5", "example.com"))

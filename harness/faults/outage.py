"""A Neo4j outage seen through the HTTP API: response times while the store is
down, and recovery after it returns, on a private Neo4j started and stopped here.

The API app runs in this process over the real engine and a real Neo4j (``neo4j-local`` with its
own run and data dirs); ``threads`` clients search, add and probe ``/readyz`` in a loop while
the database is stopped, then it is restarted on the same port and data. The test
``tests/reliability/test_neo4j_outage.py`` asserts on this scenario; run as a script it saves
the figures.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from pathlib import Path

from graphmem.api import create_app
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.stores.factory import open_store
from graphmem.stores.neo4j import Neo4jStore
from harness import ROOT
from harness.stats import pct

LAUNCHER = ROOT / "docker" / "neo4j-local" / "neo4j-local"
FALLBACK_VERSION = "5.26.30"          # as tests/run.sh: the LTS on Java 17 when no JDK 21 is installed


class PrivateNeo4j:
    """A Neo4j of this scenario's own (run dir, data dir, port), stoppable and restartable."""

    def __init__(self, root: Path):
        self.env = {**os.environ, "NEO4J_LOCAL_RUN_DIR": str(root / "run")}
        self.data = root / "data"
        self.port = "auto"
        self.uri = ""

    def start(self) -> str:
        args = [str(LAUNCHER), "start", "--data", str(self.data), "--port", self.port]
        done = subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0 and "NEO4J_LOCAL_VERSION" not in self.env:
            self.env["NEO4J_LOCAL_VERSION"] = FALLBACK_VERSION
            done = subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"neo4j-local start failed: {done.stderr[-2000:]}")
        found = re.search(r"GRAPHMEM_NEO4J_URI=(\S+)", done.stdout)
        if found is None:
            raise RuntimeError(f"neo4j-local start printed no URI: {done.stdout[-2000:]}")
        self.uri = found.group(1)
        self.port = self.uri.rsplit(":", 1)[1]
        return self.uri

    def stop(self) -> None:
        subprocess.run([str(LAUNCHER), "stop"], env=self.env, capture_output=True, timeout=120)


def _loop(app, stop: threading.Event, worker: int, out: list[dict]) -> None:
    client = app.test_client()
    i = 0
    while not stop.is_set():
        kind = ("search", "add", "readyz")[(worker + i) % 3]
        t0 = time.perf_counter()
        if kind == "search":
            resp = client.post("/v1/search", json={"query": "backup schedule of the storage volumes"})
        elif kind == "add":
            resp = client.post("/v1/memories", json={"content": f"Outage probe {worker}-{i} during the test"})
        else:
            resp = client.get("/readyz")
        out.append({"kind": kind, "status": resp.status_code, "seconds": time.perf_counter() - t0,
                    "retry_after": resp.headers.get("Retry-After"), "at": time.monotonic()})
        i += 1


def summarise(samples: list[dict]) -> dict:
    out = {}
    for kind in ("search", "add", "readyz"):
        times = [s["seconds"] for s in samples if s["kind"] == kind]
        if times:
            out[kind] = {"n": len(times), "p50_s": round(pct(times, 0.5), 3), "p95_s": round(pct(times, 0.95), 3),
                         "max_s": round(max(times), 3),
                         "statuses": sorted({s["status"] for s in samples if s["kind"] == kind})}
    return out


def run_outage(root: Path, embedder, down_seconds: float = 8.0, threads: int = 4) -> dict:
    """Start, fill, stop, load, restart, recover; every sample and a summary."""
    neo = PrivateNeo4j(root)
    t0 = time.monotonic()
    uri = neo.start()
    phases = {"start_s": round(time.monotonic() - t0, 1)}
    settings = load_settings(overrides={"store": {"kind": "neo4j", "neo4j": {"uri": uri}}}, use_env=False)
    engine = Graphmem(settings, open_store(settings.store), embedder)
    try:
        app = create_app(engine)
        client = app.test_client()
        t0 = time.monotonic()
        acknowledged = [client.post("/v1/memories", json={"content": f"Volume {v} snapshots run every {h} hours",
                                                          "tags": ["storage"]}).get_json()["id"]
                        for v, h in (("alpha", 6), ("beta", 12), ("gamma", 24))]
        phases["first_adds_cold_s"] = round(time.monotonic() - t0, 2)
        t0 = time.monotonic()
        assert client.post("/v1/search", json={"query": "snapshots"}).status_code == 200
        phases["first_search_cold_s"] = round(time.monotonic() - t0, 2)
        t0 = time.monotonic()
        neo.stop()
        phases["stop_s"] = round(time.monotonic() - t0, 1)
        samples: list[dict] = []
        stop = threading.Event()
        workers = [threading.Thread(target=_loop, args=(app, stop, w, samples)) for w in range(threads)]
        for w in workers:
            w.start()
        time.sleep(down_seconds)
        stop.set()
        for w in workers:
            w.join()
        restarted_at = time.monotonic()
        neo.start()
        started = time.monotonic()
        recovered, polls = None, []
        while time.monotonic() - started < 60:
            resp = client.post("/v1/search", json={"query": "snapshots"})
            polls.append((round(time.monotonic() - started, 2), resp.status_code,
                          (resp.get_json() or {}).get("error", {}).get("message", "")[:160]))
            if resp.status_code == 200:
                recovered = time.monotonic() - started
                break
            time.sleep(0.2)
        kept = client.post("/v1/search", json={"query": "volume snapshots every hours", "k": 10}).get_json()
        added = client.post("/v1/memories", json={"content": "Written after the outage ended"})
        return {"samples": samples, "down": summarise(samples), "down_seconds": down_seconds,
                "threads": threads, "phases": {**phases, "restart_s": round(started - restarted_at, 1)},
                "recovered_after_start_s": None if recovered is None else round(recovered, 2),
                "recovery_polls": polls,
                "acknowledged_kept": sorted(set(acknowledged) & {r["id"] for r in kept.get("results", [])}),
                "acknowledged": sorted(acknowledged), "add_after_status": added.status_code,
                "breaker_state": engine.store.breaker.state if isinstance(engine.store, Neo4jStore) else None}
    finally:
        engine.close()
        neo.stop()

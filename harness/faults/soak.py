"""A bounded concurrency soak over HTTP on loopback: writers, readers and deleters
against a real ``graphmem serve`` process, then every acknowledged write is verified.

Counts every 5xx and transport error, and checks afterwards that each acknowledged (201) memory
that was not deleted can be read back, and that each acknowledged delete (204) stays deleted.
``tests/reliability/test_soak.py`` asserts on this scenario; as a script it starts its own
server and saves the figures.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from typing import Any

from graphmem.client import GraphmemClient, GraphmemClientError
from harness.stats import pct

TOPICS = ["billing deploys", "search indexes", "backup rotation", "auth tokens", "email queues", "cache warmup"]
QUERIES = ["how are backups rotated", "billing deploy pipeline", "token expiry rules", "queue retries"]


class Ledger:
    """What the server acknowledged, and every response's outcome (shared by the workers)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.created: list[str] = []
        self.deleted: set[str] = set()
        self.statuses: Counter[str] = Counter()
        self.latency: dict[str, list[float]] = {}
        self.failures: list[str] = []

    def record(self, op: str, status: int, seconds: float, detail: str = "") -> None:
        with self.lock:
            self.statuses[f"{op} {status}"] += 1
            self.latency.setdefault(op, []).append(seconds)
            if status >= 500 or status == 0:
                self.failures.append(f"{op} {status} {detail}"[:300])


def _call(ledger: Ledger, op: str, ok_status: int, fn, *args, **kwargs):
    t0 = time.perf_counter()
    try:
        result = fn(*args, **kwargs)
    except GraphmemClientError as exc:
        ledger.record(op, exc.status, time.perf_counter() - t0, str(exc))
        return None
    ledger.record(op, ok_status, time.perf_counter() - t0)
    return result


def writer(url: str, ledger: Ledger, stop: threading.Event, worker: int) -> None:
    rng = random.Random(worker)
    with GraphmemClient(url, timeout=30) as client:
        i = 0
        while not stop.is_set():
            topic = rng.choice(TOPICS)
            mid = f"w{worker}-{i}"
            out = _call(ledger, "add", 201, client.add,
                        f"Note {mid} on {topic}: step {i} of the runbook for the {topic} service", id=mid,
                        tags=[topic.split()[0], "soak"], category=topic.split()[1])
            if out is not None and out.get("status") == "created":
                with ledger.lock:
                    ledger.created.append(out["id"])
            i += 1


def reader(url: str, ledger: Ledger, stop: threading.Event, worker: int) -> None:
    rng = random.Random(100 + worker)
    with GraphmemClient(url, timeout=30) as client:
        while not stop.is_set():
            _call(ledger, "search", 200, client.search, rng.choice(QUERIES), k=10)
            with ledger.lock:
                pick = rng.choice(ledger.created) if ledger.created else None
            if pick is not None:
                try:
                    t0 = time.perf_counter()
                    client.get(pick)
                    ledger.record("get", 200, time.perf_counter() - t0)
                except GraphmemClientError as exc:   # 404 when a deleter got there first
                    ledger.record("get", exc.status, time.perf_counter() - t0, str(exc))


def _deleted(client: Any) -> Any:
    """``client.delete`` answering True once it returned (``_call`` counts a falsy answer as a failure)."""
    def delete(memory_id: str) -> bool:
        client.delete(memory_id)
        return True
    return delete


def deleter(url: str, ledger: Ledger, stop: threading.Event, worker: int) -> None:
    rng = random.Random(200 + worker)
    with GraphmemClient(url, timeout=30) as client:
        while not stop.is_set():
            with ledger.lock:
                live = [m for m in ledger.created[-50:] if m not in ledger.deleted]
            if not live:
                time.sleep(0.05)
                continue
            victim = rng.choice(live)
            if _call(ledger, "delete", 204, _deleted(client), victim):
                with ledger.lock:
                    ledger.deleted.add(victim)
            time.sleep(0.2)


def verify(url: str, ledger: Ledger) -> dict:
    lost, resurrected = [], []
    with GraphmemClient(url, timeout=30) as client:
        for mid in ledger.created:
            try:
                client.get(mid)
                if mid in ledger.deleted:
                    resurrected.append(mid)
            except GraphmemClientError as exc:
                if exc.status != 404 or mid not in ledger.deleted:
                    lost.append(f"{mid}: {exc.status}")
    return {"lost": lost, "resurrected": resurrected}


def run_soak(url: str, seconds: float = 30.0, writers: int = 2, readers: int = 2, deleters: int = 1) -> dict:
    ledger, stop = Ledger(), threading.Event()
    threads = [threading.Thread(target=writer, args=(url, ledger, stop, w)) for w in range(writers)]
    threads += [threading.Thread(target=reader, args=(url, ledger, stop, w)) for w in range(readers)]
    threads += [threading.Thread(target=deleter, args=(url, ledger, stop, w)) for w in range(deleters)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    checked = verify(url, ledger)
    return {"seconds": seconds, "workers": {"writers": writers, "readers": readers, "deleters": deleters},
            "responses": dict(sorted(ledger.statuses.items())), "server_errors": len(ledger.failures),
            "failures": ledger.failures[:20], "acknowledged_writes": len(ledger.created),
            "acknowledged_deletes": len(ledger.deleted), "lost_acknowledged": checked["lost"],
            "resurrected_deletes": checked["resurrected"],
            "latency_ms": {op: {"n": len(v), "p50": round(pct(v, 0.5) * 1000, 1),
                                "p95": round(pct(v, 0.95) * 1000, 1)} for op, v in sorted(ledger.latency.items())}}

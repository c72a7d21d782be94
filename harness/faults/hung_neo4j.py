"""A hung Neo4j (alive, accepting connections, not answering: SIGSTOP) under real servers.

A private Neo4j (``bench_outage.PrivateNeo4j``, so a shared test server is never frozen), then
``graphmem serve`` and ``graphmem mcp --http`` processes on it. Clients search in a loop (HTTP and
the MCP ``search_memories`` tool, unique queries) while others probe ``/healthz`` and ``/readyz``;
after a healthy spell the database is stopped with SIGSTOP for ``frozen`` seconds, then resumed
with SIGCONT (in a ``finally``: the server is never left frozen). Before the bounds, searches hung
until the database came back and the probes waited behind them.

``tests/reliability/test_hung_neo4j.py`` asserts on this scenario; as a script it saves the
figures.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from graphmem.config import load_settings
from harness.corpus import make_queries
from harness.faults.outage import PrivateNeo4j
from harness.servers import call, child_env, free_port, graphmem, mcp_tool, process, summary

SEED = ["The nightly backup of the storage volumes runs at 02:00 UTC",
        "Deploys to production need a green canary for 30 minutes",
        "The on-call rotation changes every Monday at 09:00"]
BOUND_KEYS = ("neo4j_read_timeout", "neo4j_write_timeout", "neo4j_deadline_grace", "neo4j_ping_timeout",
              "neo4j_acquisition_timeout", "neo4j_breaker_failures", "neo4j_breaker_cooldown")


class Load:
    """Client threads, each calling one kind of request in a loop and recording every sample
    (with its start and end on the monotonic clock)."""

    def __init__(self, api: int, mcp: int, queries: list[str]):
        self.api, self.mcp, self.queries = api, mcp, queries
        self.samples: list[dict[str, Any]] = []
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self._next = 0
        self._lock = threading.Lock()

    def _query(self) -> dict[str, Any]:
        with self._lock:
            self._next += 1
            return {"query": self.queries[self._next % len(self.queries)], "k": 5}

    def _loop(self, kind: str, pause: float) -> None:
        while not self.stop.is_set():
            start = time.monotonic()
            if kind == "search":
                sample = call(self.api, "POST", "/v1/search", self._query(), timeout=60)
            elif kind == "mcp_search":
                sample = mcp_tool(self.mcp, "search_memories", self._query(), timeout=60)
            else:
                sample = call(self.api, "GET", f"/{kind}", timeout=60)
            sample.pop("body", None)
            self.samples.append({"kind": kind, "start": start, "end": time.monotonic(), **sample})
            self.stop.wait(pause)

    def once(self, kind: str, at: float, record_as: str | None = None) -> threading.Event:
        """One search of ``kind`` (``search`` or ``mcp_search``) sent at ``at`` (monotonic), recorded
        as ``record_as`` (default ``new_<kind>``: a search that arrives while the database is already
        stopped). The event is set once the search's start time is taken."""
        started = threading.Event()

        def send() -> None:
            self.stop.wait(max(0.0, at - time.monotonic()))
            start = time.monotonic()
            started.set()
            sample = (call(self.api, "POST", "/v1/search", self._query(), timeout=60) if kind == "search"
                      else mcp_tool(self.mcp, "search_memories", self._query(), timeout=60))
            sample.pop("body", None)
            self.samples.append({"kind": record_as or f"new_{kind}", "start": start, "end": time.monotonic(),
                                 **sample})
        thread = threading.Thread(target=send, daemon=True)
        self.threads.append(thread)
        thread.start()
        return started

    def start(self, searchers: int) -> None:
        kinds = [("search", 0.05)] * searchers + [("mcp_search", 0.05)] * searchers + [
            ("healthz", 0.1), ("readyz", 0.2)]
        threads = [threading.Thread(target=self._loop, args=kind, daemon=True) for kind in kinds]
        self.threads.extend(threads)
        for thread in threads:
            thread.start()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=90)


def _first(samples: list[dict], kind: str, after: float, ok: bool) -> float | None:
    """Seconds from ``after`` until the end of the first ``kind`` sample started after it that
    succeeded (``ok``) or failed."""
    for s in sorted(samples, key=lambda s: s["start"]):
        if s["kind"] == kind and s["start"] >= after:
            good = s["status"] == 200 and not s.get("error_code")
            if good == ok:
                return round(s["end"] - after, 3)
    return None


def _refused(sample: dict) -> bool:
    """A search refused the way a client can act on: 503 with Retry-After over HTTP, the
    ``store_unavailable`` tool error over MCP."""
    if "mcp_search" in sample["kind"]:
        return sample.get("error_code") == "store_unavailable"
    return sample["status"] == 503 and int(sample.get("retry_after") or 0) >= 1


def analyse(samples: list[dict], stopped: float, resumed: float, deadline: float) -> dict[str, Any]:
    """Phases (healthy, frozen, recovered) and the figures a reader looks for. A search is
    ``in flight`` if the stop found it waiting; ``frozen`` holds what started and was answered
    while the database was stopped; ``straddled_resume`` what started then and was answered after
    SIGCONT (bounded by the resume, not the deadline)."""
    def pick(kind: str, lo: float, hi: float) -> list[dict]:
        """Started in [lo, hi) and answered before ``hi`` (the next phase's start)."""
        return [s for s in samples if s["kind"] == kind and lo <= s["start"] < hi and s["end"] < hi]

    kinds = ("search", "mcp_search", "healthz", "readyz")
    searches = ("search", "mcp_search", "new_search", "new_mcp_search")
    in_flight = [s for s in samples if s["kind"] in searches and s["start"] < stopped < s["end"]]
    started_frozen = [s for s in samples if s["kind"] in searches and stopped <= s["start"] < resumed]
    decided = [s for s in started_frozen if s["end"] < resumed]
    new = [s for s in samples if s["kind"].startswith("new_")]
    return {
        "healthy": {k: summary(pick(k, 0, stopped)) for k in kinds},
        "frozen": {k: summary(pick(k, stopped, resumed)) for k in kinds},
        # from one deadline after SIGCONT: a call sent sooner may still wait out what the freeze left queued
        "recovered": {k: summary(pick(k, resumed + deadline, float("inf"))) for k in kinds},
        "in_flight_at_stop": summary(in_flight),
        "in_flight_at_stop_samples": [_brief(s) for s in in_flight],
        "new_search_after_stop": {k: summary([s for s in new if s["kind"] == k])
                                  for k in ("new_search", "new_mcp_search")},
        "new_search_after_stop_samples": [_brief(s) | {"sent_after_stop_s": round(s["start"] - stopped, 3)}
                                          for s in new],
        "searches_started_frozen": summary(started_frozen),
        "straddled_resume": summary([s for s in started_frozen if s["end"] >= resumed]),
        "answered_frozen_not_refused": [_brief(s) for s in decided if not _refused(s)][:5],
        "in_flight_not_refused": [_brief(s) for s in in_flight if not _refused(s)][:5],
        "search_max_s_started_frozen_or_in_flight": round(max(
            (s["seconds"] for s in in_flight + started_frozen), default=0), 3),
        "healthz_max_s": round(max((s["seconds"] for s in samples if s["kind"] == "healthz"), default=0), 3),
        "readyz_unready_after_stop_s": _first(samples, "readyz", stopped, ok=False),
        "readyz_ready_after_resume_s": _first(samples, "readyz", resumed, ok=True),
        "search_ok_after_resume_s": _first(samples, "search", resumed, ok=True),
        "mcp_search_ok_after_resume_s": _first(samples, "mcp_search", resumed, ok=True),
    }


def _brief(sample: dict) -> dict[str, Any]:
    return ({k: sample[k] for k in ("kind", "status", "retry_after")} | {"seconds": round(sample["seconds"], 3)}
            | ({"error_code": sample["error_code"]} if sample.get("error_code") else {}))


def _until_ok(request: Any, status: int, within: float = 60.0) -> None:
    """``request()`` again after a 503 (a cold database on a busy machine may exceed the read
    timeout while it compiles its first queries) until it answers ``status``."""
    deadline = time.monotonic() + within
    while True:
        out = request()
        if out["status"] == status:
            return
        if out["status"] != 503 or time.monotonic() > deadline:
            raise RuntimeError(f"seeding failed: {out}")
        time.sleep(1.0)


def run_hung(root: Path, frozen: float = 14.0, searchers: int = 2, after: float = 6.0,
             new_after: float = 1.0) -> dict[str, Any]:
    """Start, seed, warm, load; SIGSTOP for ``frozen`` s (one more search per interface
    ``new_after`` s into it); SIGCONT; ``after`` s more of load. ``frozen`` past twice the deadline
    shows every phase: in-flight calls given up, new calls given up, then the breaker refusing at once."""
    neo = PrivateNeo4j(root / "neo4j")
    uri = neo.start()
    pid = int((root / "neo4j" / "run" / "neo4j.pid").read_text())
    store = load_settings(use_env=False).store
    deadline = store.neo4j.read_timeout + store.neo4j.deadline_grace
    env = child_env({"GRAPHMEM_NEO4J_URI": uri})
    data = root / "data"
    api, mcp = free_port(), free_port()
    stopped = resumed = 0.0
    try:
        with process(graphmem(data, "neo4j", "serve", "--port", str(api), "--threads", "4"), api, env,
                     root / "serve.log"), \
             process(graphmem(data, "neo4j", "mcp", "--http", "--port", str(mcp)), mcp, env, root / "mcp.log"):
            for text in SEED:
                _until_ok(lambda body=text: call(api, "POST", "/v1/memories", {"content": body}), 201)
            queries = make_queries(5000)
            for query in queries[-5:]:      # warm: pooled connections, compiled queries
                call(api, "POST", "/v1/search", {"query": query})
                mcp_tool(mcp, "search_memories", {"query": query})
            load = Load(api, mcp, queries)
            load.start(searchers)
            try:
                time.sleep(2.0)
                # One search per interface sent just before the stop, so each is surely in flight at
                # it (a query embeds for tens of ms first); the loops' own may all sit in a pause.
                sent = [load.once(kind, time.monotonic(), record_as=kind) for kind in ("search", "mcp_search")]
                for started in sent:
                    started.wait(5.0)
                time.sleep(0.005)
                os.kill(pid, signal.SIGSTOP)
                stopped = time.monotonic()      # after the signal: a probe begun before it may still be answered
                for kind in ("search", "mcp_search"):
                    load.once(kind, stopped + new_after)
                try:
                    time.sleep(frozen)
                finally:
                    os.kill(pid, signal.SIGCONT)
                    resumed = time.monotonic()
                time.sleep(after)
            finally:
                load.finish()
    finally:
        with contextlib.suppress(OSError):     # whatever failed above, never leave it frozen
            os.kill(pid, signal.SIGCONT)
        neo.stop()
    return {"frozen_s": frozen, "searchers_per_interface": searchers, "deadline_s": deadline,
            "new_search_sent_after_stop_s": new_after,
            "bounds": {k: getattr(store.neo4j, k.removeprefix("neo4j_")) for k in BOUND_KEYS},
            **analyse(load.samples, stopped, resumed, deadline)}

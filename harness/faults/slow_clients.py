"""Slow clients against real servers: ``slow`` connections each to ``graphmem serve`` and to
``graphmem mcp --http`` send a request's headers, then its body one byte at a time, while a normal
client probes ``/healthz`` and searches (HTTP and the MCP ``search_memories`` tool) with unique
queries. Before the connection bounds, 110 such connections kept waitress at its connection limit
and every other client waited in the backlog.

``tests/reliability/test_slow_clients.py`` asserts on this scenario; as a script it saves the
figures.
        [--out bench/results/slow_clients.json]
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path
from typing import Any

from harness.corpus import make_queries
from harness.servers import call, child_env, free_port, graphmem, mcp_tool, process, summary

BODY_BYTES = 100_000         # announced Content-Length: the slow bodies never complete in the run
SEED = ["The nightly backup of the storage volumes runs at 02:00 UTC",
        "Deploys to production need a green canary for 30 minutes",
        "The on-call rotation changes every Monday at 09:00"]


class SlowClients:
    """``n`` connections to ``port`` that trickle one body byte each per ``tick`` seconds, on one
    thread; records when the server closed each (a 408, a reset or an end of stream)."""

    def __init__(self, port: int, path: str, n: int, tick: float = 0.25, headers: str = ""):
        self.head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{headers}"
                     f"Content-Length: {BODY_BYTES}\r\n\r\n").encode()
        self.port, self.n, self.tick = port, n, tick
        self.socks: list[socket.socket] = []
        self.opened: list[float] = []
        self.closed: dict[int, tuple[float, str]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        for _ in range(self.n):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            sock.sendall(self.head + b"{")
            sock.setblocking(False)
            self.socks.append(sock)
            self.opened.append(time.monotonic())
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            for i, sock in enumerate(self.socks):
                if i in self.closed:
                    continue
                try:
                    status_line = sock.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
                    self.closed[i] = (time.monotonic() - self.opened[i], status_line or "eof")
                    continue
                except BlockingIOError:
                    pass
                except OSError as exc:
                    self.closed[i] = (time.monotonic() - self.opened[i], type(exc).__name__)
                    continue
                try:
                    sock.send(b" ")
                except BlockingIOError:
                    pass
                except OSError as exc:
                    self.closed[i] = (time.monotonic() - self.opened[i], type(exc).__name__)
            self.stop.wait(self.tick)

    def close(self) -> dict[str, Any]:
        self.stop.set()
        self.thread.join(timeout=10)
        for sock in self.socks:
            with contextlib.suppress(OSError):
                sock.close()
        after = sorted(t for t, _ in self.closed.values())
        return {"connections": self.n, "closed_by_server": len(self.closed),
                "closed_how": sorted({how for _, how in self.closed.values()}),
                "closed_after_s": {"min": round(after[0], 2), "max": round(after[-1], 2)} if after else None}


def _probe(api: int, mcp: int, queries: list[str], stop: threading.Event, out: list[dict]) -> None:
    i = 0
    while not stop.is_set():
        query = {"query": queries[i % len(queries)], "k": 5}
        for kind, sample in (("healthz", call(api, "GET", "/healthz", timeout=20)),
                             ("search", call(api, "POST", "/v1/search", query, timeout=20)),
                             ("mcp_search", mcp_tool(mcp, "search_memories", query, timeout=20))):
            sample.pop("body", None)
            out.append({"kind": kind, "at": time.monotonic(), **sample})
        i += 1
        stop.wait(0.1)


def run_slow_clients(root: Path, slow: int = 200, seconds: float = 10.0,
                     request_timeout: float | None = 5.0) -> dict:
    """Both servers on one data dir, seeded; a baseline; then ``slow`` slow connections to each.
    ``request_timeout`` None keeps the defaults (and runs a release without the setting)."""
    env = child_env()
    if request_timeout is not None:
        config = root / "graphmem.toml"
        config.write_text("".join(f"[{name}]\nrequest_timeout = {request_timeout}\n" for name in ("api", "mcp")))
        env["GRAPHMEM_CONFIG"] = str(config)
    data = root / "data"
    api_port, mcp_port = free_port(), free_port()
    queries = make_queries(400)
    with process(graphmem(data, "sqlite", "serve", "--port", str(api_port), "--threads", "4"), api_port, env,
                 root / "serve.log"):
        for text in SEED:
            assert call(api_port, "POST", "/v1/memories", {"content": text})["status"] == 201
        with process(graphmem(data, "sqlite", "mcp", "--http", "--port", str(mcp_port)), mcp_port, env,
                     root / "mcp.log"):
            samples: list[dict] = []
            stop = threading.Event()
            prober = threading.Thread(target=_probe, args=(api_port, mcp_port, queries, stop, samples))
            prober.start()
            time.sleep(2.0)
            baseline_end = time.monotonic()
            accept = "Accept: application/json, text/event-stream\r\n"
            crowd = [SlowClients(api_port, "/v1/search", slow),
                     SlowClients(mcp_port, "/mcp", slow, headers=accept)]
            try:
                for clients in crowd:
                    clients.start()
                opened = time.monotonic()
                time.sleep(seconds)
            finally:
                stop.set()
                prober.join()
                closed = [clients.close() for clients in crowd]
    base = [s for s in samples if s["at"] < baseline_end]
    loaded = [s for s in samples if s["at"] >= opened]
    by_kind = {phase: {kind: summary([s for s in part if s["kind"] == kind])
                       for kind in ("healthz", "search", "mcp_search")}
               for phase, part in (("baseline", base), ("slow_clients", loaded))}
    return {"slow_connections_per_server": slow, "seconds": seconds, "request_timeout_s": request_timeout,
            "latency": by_kind, "slow_api": closed[0], "slow_mcp": closed[1],
            "failures": [s for s in loaded if s["status"] != 200 or s.get("error_code")][:5]}

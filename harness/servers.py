"""Shared parts of the fault scenarios (``bench_hung_neo4j.py``, ``bench_slow_clients.py``): real
``graphmem serve`` and ``graphmem mcp --http`` processes, raw HTTP calls with their latency, and
an MCP tool call over plain HTTP (stateless JSON mode: one POST per call)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness import ROOT
from harness.stats import pct


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# What a child process keeps of the caller's GRAPHMEM_* variables: the model, its dir, and whether
# ONNX Runtime spins (every process on a store must embed with the model it records).
MODEL_VARS = ("GRAPHMEM_MODEL", "GRAPHMEM_MODEL_DIR", "GRAPHMEM_MODEL_SPIN_WAIT")


def store_config(path: Path, keys: dict[str, float]) -> Path:
    """A config file at ``path`` setting [store] keys named as ``StoreSettings.with_keys`` names them
    (``neo4j_read_timeout`` is [store.neo4j] read_timeout, ``write_wait`` is [store] write_wait)."""
    top = "".join(f"{k} = {v}\n" for k, v in keys.items() if not k.startswith("neo4j_"))
    neo4j = "".join(f"{k.removeprefix('neo4j_')} = {v}\n" for k, v in keys.items() if k.startswith("neo4j_"))
    path.write_text(f"[store]\n{top}" + (f"[store.neo4j]\n{neo4j}" if neo4j else ""))
    return path


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without GRAPHMEM_* (but the model and its dir: every process on a
    store must embed with the model it records), plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GRAPHMEM_") or k in MODEL_VARS}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra or {})
    return env


@contextlib.contextmanager
def process(argv: list[str], port: int, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen]:
    """A server subprocess, yielded once ``port`` accepts connections; SIGTERM (then SIGKILL) on exit."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=out)
        try:
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{argv} exited {proc.returncode}: {log.read_text()[-2000:]}")
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{argv} did not start")
                time.sleep(0.2)
            yield proc
        finally:
            stop(proc)


def serve_ready(argv: list[str], port: int, env: dict[str, str], log: Path,
                within: float = 120.0) -> subprocess.Popen:
    """A ``graphmem serve`` subprocess, returned once its ``/readyz`` answers 200 (the store open and
    the model loaded, not only the port bound); the caller stops it (``stop``)."""
    from graphmem.client import GraphmemClient, GraphmemClientError

    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=open(log, "ab"))
    probe = GraphmemClient(f"http://127.0.0.1:{port}", timeout=1)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{argv} exited {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            probe.ready()
            return proc
        except GraphmemClientError:
            time.sleep(0.2)
    stop(proc)
    raise RuntimeError(f"{argv} did not become ready within {within:g} s")


def stop(proc: subprocess.Popen, timeout: float = 30.0) -> int:
    """SIGTERM, then SIGKILL after ``timeout`` seconds; the exit code."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return proc.returncode


def graphmem(data_dir: Path, store: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), "--store", store, *args]


def call(port: int, method: str, path: str, body: Any = None, timeout: float = 30.0,
         headers: dict[str, str] | None = None) -> dict[str, Any]:
    """One request on a new connection: status, seconds, Retry-After and the JSON body (or None).
    A failure to connect or a timeout is status 0 with the error."""
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        raw = resp.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return {"status": resp.status, "seconds": time.perf_counter() - t0,
                "retry_after": resp.getheader("Retry-After"), "body": parsed}
    except OSError as exc:
        return {"status": 0, "seconds": time.perf_counter() - t0, "retry_after": None, "body": None,
                "error": f"{type(exc).__name__}: {exc}"}
    finally:
        conn.close()


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


def mcp_tool(port: int, name: str, arguments: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """``tools/call`` over streamable HTTP; ``status`` is the HTTP status, ``error_code`` the tool
    error's code (``store_unavailable`` ...) or None when the call succeeded."""
    out = call(port, "POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                      "params": {"name": name, "arguments": arguments}},
               timeout=timeout, headers=MCP_HEADERS)
    result = (out.get("body") or {}).get("result") or {}
    structured = result.get("structuredContent") or {}
    out["error_code"] = (structured.get("error") or {}).get("code") if result.get("isError") else None
    if out["status"] == 200 and not result:
        out["error_code"] = "no_result"
    out.pop("body", None)
    return out


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Count, p50/p95/max seconds and statuses (plus MCP error codes) of some samples."""
    if not samples:
        return {"n": 0}
    times = sorted(s["seconds"] for s in samples)

    out: dict[str, Any] = {"n": len(times), "p50_s": pct(times, 0.5, 3), "p95_s": pct(times, 0.95, 3),
                           "max_s": round(times[-1], 3),
                           "statuses": sorted({s["status"] for s in samples})}
    codes = sorted({str(s["error_code"]) for s in samples if s.get("error_code")})
    if codes:
        out["mcp_error_codes"] = codes
    return out

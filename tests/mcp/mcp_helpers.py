"""Real `graphmem mcp` processes driven by the SDK's own clients, from synchronous tests.

A blocking portal runs the SDK's async client in a background event loop, so one server
process serves every test of a module (the model loads once per process).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from harness.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "e2e_agent.jsonl"
BILLING_QUERY = "How do I ship a new release of the billing service?"


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This environment, minus settings that would point the server at another store or config."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPHMEM_CONFIG", "GRAPHMEM_DATA_DIR",
                                                            "GRAPHMEM_STORE", "GRAPHMEM_API_KEYS")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return {**env, **(extra or {})}


def mcp_args(data_dir: Path, config: Path | None = None, *extra: str) -> list[str]:
    args = ["-m", "graphmem", "--data-dir", str(data_dir), "--store", "sqlite"]
    if config is not None:
        args += ["--config", str(config)]
    return [*args, "mcp", *extra]


class SyncClient:
    """The SDK client's calls, made from sync code through the portal."""

    def __init__(self, portal: BlockingPortal, client: Client):
        self.portal, self.client = portal, client

    def list_tools(self) -> list[Any]:
        return self.portal.call(self.client.list_tools).tools

    def call(self, name: str, args: dict[str, Any]) -> Any:
        return self.portal.call(self.client.call_tool, name, args)

    def ok(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = self.call(name, args)
        assert not result.is_error, result.content[0].text
        assert json.loads(result.content[0].text) == result.structured_content
        return result.structured_content

    def error(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = self.call(name, args)
        assert result.is_error, f"{name} {args} should fail: {result.content[0].text}"
        return json.loads(result.content[0].text)["error"]


@contextlib.contextmanager
def stdio_client(data_dir: Path, config: Path | None = None, *extra: str) -> Iterator[SyncClient]:
    params = StdioServerParameters(command=sys.executable, args=mcp_args(data_dir, config, *extra),
                                   env=server_env(), cwd=str(ROOT))
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(params)) as client:
        yield SyncClient(portal, client)


@contextlib.contextmanager
def http_client(url: str, key: str | None) -> Iterator[SyncClient]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}

    @contextlib.asynccontextmanager
    async def connect():
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                yield client

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(connect()) as client:
        yield SyncClient(portal, client)


@contextlib.contextmanager
def http_server(data_dir: Path, env: dict[str, str], *extra: str, host: str = "127.0.0.1") -> Iterator[str]:
    """`graphmem mcp --http` on a free port of loopback address ``host``; yields the endpoint URL."""
    port = free_port()
    bind = ("--host", host) if host != "127.0.0.1" else ()
    args = mcp_args(data_dir, None, "--http", "--port", str(port), *bind, *extra)
    proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=server_env(env),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"mcp --http exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise TimeoutError("mcp --http did not start listening")
            time.sleep(0.2)
        yield f"http://{host}:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()


class TcpProxy:
    """A loopback TCP forwarder that can be cut and restored: a store outage without touching the store."""

    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self, listener: socket.socket | None = None) -> None:
        """Forward from ``port`` (again, after a cut), or from ``listener``, a bound and listening socket
        (its port becomes the proxy's)."""
        if listener is None:
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(16)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and drop the open ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)     # wakes the accept() blocked in the other thread
            listener.close()
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._conns += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)


def raw_tool_call(url: str, name: str, arguments_json: str, key: str | None = None) -> dict[str, Any]:
    """A ``tools/call`` sent as JSON text, so the arguments may hold what no SDK client writes
    (``NaN``, ``Infinity``, ``1e400``): the server's stateless JSON endpoint needs no session."""
    body = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":' + json.dumps(name)
            + ',"arguments":' + arguments_json + "}}")
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18", **({"Authorization": f"Bearer {key}"} if key else {})}
    resp = httpx2.post(url, content=body.encode(), headers=headers, timeout=60)
    resp.raise_for_status()
    return resp.json()["result"]

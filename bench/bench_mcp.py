"""MCP tool-call latency next to the HTTP API: ``search_memories`` over stdio vs ``POST /v1/search``.

One store of synthetic memories (``bench.corpus``), then three real server processes on it:
``graphmem mcp`` (stdio, driven by the SDK's stdio client), ``graphmem serve`` (the Flask API,
driven by ``graphmem.client``) and ``graphmem mcp --http`` (the SDK's streamable HTTP client).
Every query is sent to each interface in turn, rotating the order, so machine noise falls on
all of them alike; each pass reports p50/p95 per interface and the JSON keeps the median and
spread over passes. Times are client-side round trips and include query embedding.

Usage: python -m bench.bench_mcp [--memories 1000] [--queries 200] [--passes 3] [--k 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench.meta import latency_summary, provenance, summarize_runs, write_result
from graphmem.client import GraphmemClient, GraphmemClientError
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from harness.corpus import make_memories, make_queries
from harness.servers import child_env, free_port, graphmem, process

ROOT = Path(__file__).resolve().parents[1]

NAMESPACE = "bench"


def seed(data_dir: Path, n: int) -> int:
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    eng = Graphmem.open(settings)
    try:
        memories = [{k: v for k, v in m.items() if k != "namespace"} for m in make_memories(n)]
        return sum(r.status == "created" for start in range(0, n, 500)
                   for r in eng.add_batch(memories[start:start + 500], NAMESPACE).results)
    finally:
        eng.close()


def mcp_search(portal: Any, client: Client, k: int, detail: str) -> Callable[[str], None]:
    def call(query: str) -> None:
        result = portal.call(client.call_tool, "search_memories",
                             {"query": query, "k": k, "namespace": NAMESPACE, "detail": detail})
        returned = 0 if result.is_error else len(result.structured_content["results"])
        if returned != k and not (detail == "full" and returned and "truncated" in result.structured_content):
            raise SystemExit(f"search_memories failed: {result.content[0].text[:300]}")
    return call


def http_search(client: GraphmemClient, k: int) -> Callable[[str], None]:
    def call(query: str) -> None:
        if len(client.search(query, k=k, explain=True)["results"]) != k:
            raise SystemExit("POST /v1/search returned too few results")
    return call


def measure(interfaces: dict[str, Callable[[str], None]], queries: list[str]) -> dict[str, list[float]]:
    """Each query on every interface, in an order that rotates per query."""
    names = list(interfaces)
    ms: dict[str, list[float]] = {name: [] for name in names}
    for i, query in enumerate(queries):
        for name in names[i % len(names):] + names[:i % len(names)]:
            t0 = time.perf_counter()
            interfaces[name](query)
            ms[name].append((time.perf_counter() - t0) * 1000)
    return ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200, help="queries per pass")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "mcp.json")
    args = ap.parse_args()
    started = provenance()

    with tempfile.TemporaryDirectory(prefix="graphmem-bench-mcp-") as tmp:
        data = Path(tmp) / "data"
        created = seed(data, args.memories)
        api_port, mcp_port = free_port(), free_port()
        env = child_env()
        stdio = StdioServerParameters(command=sys.executable, args=graphmem(data, "sqlite", "mcp")[1:], env=env,
                                      cwd=str(ROOT))
        with (process(graphmem(data, "sqlite", "serve", "--port", str(api_port)), api_port, env,
                      Path(tmp) / "api.log"),
              process(graphmem(data, "sqlite", "mcp", "--http", "--port", str(mcp_port)), mcp_port, env,
                      Path(tmp) / "mcp.log"),
              start_blocking_portal() as portal,
              portal.wrap_async_context_manager(Client(stdio)) as over_stdio,
              portal.wrap_async_context_manager(Client(streamable_http_client(
                  f"http://127.0.0.1:{mcp_port}/mcp"))) as over_http):
            api = GraphmemClient(f"http://127.0.0.1:{api_port}", timeout=60, namespace=NAMESPACE)
            interfaces = {
                "mcp_stdio": mcp_search(portal, over_stdio, args.k, "compact"),
                "mcp_stdio_full": mcp_search(portal, over_stdio, args.k, "full"),
                "http_api": http_search(api, args.k),
                "mcp_http": mcp_search(portal, over_http, args.k, "compact"),
            }
            measure(interfaces, make_queries(20, seed=5))          # warm-up, not recorded
            passes = []
            for p in range(args.passes):
                ms = measure(interfaces, make_queries(args.queries, seed=100 + p))
                passes.append({f"{name}_{stat}": value for name, values in ms.items()
                               for stat, value in latency_summary(values).items()})
                print(json.dumps(passes[-1]))

    result = {"memories": created, "queries_per_pass": args.queries, "passes": args.passes,
              "k": args.k, "store": "sqlite",
              "interfaces": {"mcp_stdio": "search_memories over stdio, compact results (the default)",
                             "mcp_stdio_full": "search_memories over stdio, detail=full (cut to "
                                               "[mcp].max_result_chars: fewer than k results may return)",
                             "http_api": "POST /v1/search (explain=true) via graphmem.client",
                             "mcp_http": "search_memories over streamable HTTP (stateless, JSON), compact"},
              "note": "client-side round trips incl. query embedding; shared 2-core machine, other jobs ran",
              "per_pass": passes, "summary": summarize_runs(passes)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result, started=started)
    print(json.dumps(result["summary"], indent=2))


if __name__ == "__main__":
    try:
        main()
    except GraphmemClientError as exc:
        raise SystemExit(f"HTTP API error: {exc}") from exc

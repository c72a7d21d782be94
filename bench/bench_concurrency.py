"""HTTP search throughput with 1, 4 and 8 concurrent clients, per ONNX Runtime thread setting.

One ``graphmem serve`` (waitress, embedded store) per setting of ``[model] threads`` and
``[model] spin_wait`` (``--onnx 0,1,1:nospin``: threads, and ``:nospin`` for spin_wait = false) on the same
data dir (imported once through ``POST /v1/memories:batch``); client *processes* (so the client's
GIL does not cap the server) each send their own unique queries, embedded live by the server.
Every setting's server runs at once (idle while another is measured) and the settings take turns
at each client count, so they meet the same machine load (recorded before and after each run).
Reports requests/s and client-side p50/p95 for each (setting, clients) pair, and the highest
throughput whose p95 stays within ``--p95-budget`` ms: what this machine serves.

Usage: python -m bench.bench_concurrency [--memories 10000] [--clients 1,4,8] [--onnx 0,1,0:nospin,1:nospin]
       [--requests 60] [--data-dir DIR] [--out bench/results/concurrency.json]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_api import worker
from bench.meta import latency_summary, write_result
from graphmem.client import GraphmemClient
from harness.corpus import make_memories, pass_queries
from harness.servers import child_env, free_port, serve_ready, stop

ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = "bench"


def serve(data_dir: Path, onnx_threads: int, spin: bool, server_threads: int,
          log: Path) -> tuple[subprocess.Popen, str]:
    """A server on a free loopback port with ``[model] threads`` and ``spin_wait`` set; returns once
    it is ready."""
    config = data_dir.parent / f"threads-{onnx_threads}-{spin}.toml"
    config.write_text(f"[model]\nthreads = {onnx_threads}\nspin_wait = {str(spin).lower()}\n"
                      f"[api]\nthreads = {server_threads}\n")
    port = free_port()
    argv = [sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), "--config", str(config), "serve",
            "--host", "127.0.0.1", "--port", str(port)]
    return serve_ready(argv, port, child_env(), log), f"http://127.0.0.1:{port}"


def load(url: str, n: int) -> int:
    client = GraphmemClient(url, timeout=900, namespace=NAMESPACE)
    have = client.stats().get("namespaces", {}).get(NAMESPACE, 0)
    if have >= n:
        return have
    memories = [{k: v for k, v in m.items() if k != "namespace"} for m in make_memories(n)]
    for start in range(0, n, 500):
        client.add_batch(memories[start:start + 500])
    return client.stats()["namespaces"][NAMESPACE]


def run_clients(url: str, query_lists: list[list[str]], k: int) -> dict:
    load_before = round(os.getloadavg()[0], 2)
    with mp.get_context("spawn").Pool(len(query_lists)) as pool:
        parts = pool.map(worker, [(url, queries, k) for queries in query_lists])
    latencies = [x for p in parts for x in p["latencies_ms"]]
    wall = max(p["ended"] for p in parts) - min(p["started"] for p in parts)
    return {"clients": len(query_lists), "requests": len(latencies), "errors": sum(p["errors"] for p in parts),
            "wall_s": round(wall, 3), "requests_per_s": round(len(latencies) / wall, 2),
            **latency_summary(latencies), "loadavg_before": load_before,
            "loadavg_after": round(os.getloadavg()[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, default=10000)
    ap.add_argument("--clients", default="1,4,8")
    ap.add_argument("--onnx", default="0,1,0:nospin,1:nospin",
                    help="[model] threads values (0: ONNX Runtime default), ':nospin' for spin_wait = false")
    ap.add_argument("--server-threads", type=int, default=8, help="waitress worker threads")
    ap.add_argument("--requests", type=int, default=60, help="search requests per client")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--p95-budget", type=float, default=200.0)
    ap.add_argument("--data-dir", default=None, help="keep the store here and reuse it on the next run")
    ap.add_argument("--out", default="bench/results/concurrency.json")
    args = ap.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    settings = [(int(t.split(":")[0]), not t.endswith(":nospin")) for t in args.onnx.split(",")]
    # every (setting, clients) pair gets its own queries: none is sent twice, none warms another
    lists = iter(pass_queries(args.requests, 1 + len(settings) * sum(clients), seed=31))
    report: dict = {"memories": args.memories, "requests_per_client": args.requests,
                    "server_threads": args.server_threads, "queries": "unique, embedded live by the server",
                    "runs": []}
    with tempfile.TemporaryDirectory(prefix="graphmem-concurrency-") as tmp:
        data_dir = Path(args.data_dir or tmp) / "data"
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        warm = next(lists)[:10]
        servers: list[tuple[int, bool, subprocess.Popen, str]] = []
        try:
            for threads, spin in settings:      # every setting's server up at once, on the same data
                proc, url = serve(data_dir, threads, spin, args.server_threads, data_dir.parent / "server.log")
                servers.append((threads, spin, proc, url))
                report["stored"] = load(url, args.memories)
                for q in warm:                       # plans and caches, with queries not timed
                    GraphmemClient(url, timeout=60, namespace=NAMESPACE).search(q, k=args.k)
            for n in clients:                        # the settings interleaved at each client count
                for threads, spin, _proc, url in servers:
                    row = {"onnx_threads": threads, "spin_wait": spin,
                           **run_clients(url, [next(lists) for _ in range(n)], args.k)}
                    report["runs"].append(row)
                    print(row, flush=True)
        finally:
            for _threads, _spin, proc, _url in servers:
                stop(proc, timeout=60)
    within = [r for r in report["runs"] if r["p95_ms"] <= args.p95_budget and not r["errors"]]
    best = max(within, key=lambda r: r["requests_per_s"], default=None)
    report["serves"] = ({"requests_per_s": best["requests_per_s"], "clients": best["clients"],
                         "onnx_threads": best["onnx_threads"], "spin_wait": best["spin_wait"],
                         "p95_ms": best["p95_ms"],
                         "p95_budget_ms": args.p95_budget} if best else None)
    write_result(args.out, report)


if __name__ == "__main__":
    main()

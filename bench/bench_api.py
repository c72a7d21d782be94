"""HTTP API benchmark: concurrent search throughput and latency over loopback.

Starts ``graphmem serve`` (waitress) as a subprocess on 127.0.0.1 with a fresh store,
imports a synthetic corpus through ``POST /v1/memories:batch``, then worker *processes*
(so the client's GIL does not cap the server) send a bounded number of search requests
each to 127.0.0.1 only. Reports requests/s and client-side p50/p95/p99 latency plus the
server's own per-stage means from ``/metrics``, and writes ``bench/results/api.json``.

Usage: python -m bench.bench_api [--memories 3000] [--workers 4] [--requests 250] [--threads 8]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.meta import pct, write_result
from graphmem.client import GraphmemClient, GraphmemClientError
from harness.corpus import make_memories, make_queries
from harness.servers import child_env, free_port, graphmem, serve_ready, stop

ROOT = Path(__file__).resolve().parents[1]

NAMESPACE = "bench"


def worker(args: tuple[str, list[str], int]) -> dict:
    """One client process: its own keep-alive session, sequential requests, per-request latency."""
    url, queries, k = args
    client = GraphmemClient(url, timeout=60, namespace=NAMESPACE)
    latencies, errors = [], 0
    started = time.time()
    for query in queries:
        t0 = time.perf_counter()
        try:
            client.search(query, k=k, explain=True)
            latencies.append((time.perf_counter() - t0) * 1000)
        except GraphmemClientError:
            errors += 1
    return {"latencies_ms": latencies, "errors": errors, "started": started, "ended": time.time()}


def stage_means(metrics_text: str) -> dict[str, float]:
    sums = dict(re.findall(r'graphmem_search_stage_duration_seconds_sum\{stage="(\w+)"\} ([0-9.e+-]+)',
                           metrics_text))
    counts = dict(re.findall(r'graphmem_search_stage_duration_seconds_count\{stage="(\w+)"\} ([0-9.e+-]+)',
                             metrics_text))
    return {s: round(1000 * float(sums[s]) / float(counts[s]), 3) for s in sums if float(counts.get(s, 0))}


def server_search_ms(metrics_text: str) -> float:
    """Mean time inside the app for successful searches (from the request latency histogram)."""
    found = {}
    for part in ("sum", "count"):
        m = re.search(rf'graphmem_http_request_duration_seconds_{part}\{{[^}}]*endpoint="/v1/search"[^}}]*'
                      rf'status="200"[^}}]*\}} ([0-9.e+-]+)', metrics_text)
        found[part] = float(m.group(1)) if m else 0.0
    return round(1000 * found["sum"] / found["count"], 3) if found["count"] else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memories", type=int, default=3000)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--requests", type=int, default=250, help="search requests per worker")
    ap.add_argument("--threads", type=int, default=8, help="waitress worker threads")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--sequential", type=int, default=50, help="single-client requests measured first")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "api.json")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="graphmem-bench-api-") as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        t0 = time.perf_counter()
        argv = graphmem(Path(tmp) / "data", "sqlite", "serve", "--host", "127.0.0.1", "--port", str(port),
                        "--threads", str(args.threads))
        proc = serve_ready(argv, port, child_env(), Path(tmp) / "server.log")
        startup_s = time.perf_counter() - t0
        try:
            client = GraphmemClient(url, timeout=600, namespace=NAMESPACE)
            memories = [{k: v for k, v in m.items() if k != "namespace"} for m in make_memories(args.memories)]
            t0 = time.perf_counter()
            created = 0
            for start in range(0, len(memories), 500):
                created += client.add_batch(memories[start:start + 500])["summary"]["created"]
            ingest_s = time.perf_counter() - t0
            print(f"imported {created} memories in {ingest_s:.1f}s ({created / ingest_s:.0f}/s)")

            total = args.workers * args.requests
            queries = make_queries(total + 20)
            for q in queries[total:]:            # warm-up: first-request costs are not measured
                client.search(q, k=args.k)
            solo = worker((url, make_queries(args.sequential, seed=23), args.k))["latencies_ms"]
            load_before = os.getloadavg()[0]
            chunks = [(url, queries[i * args.requests:(i + 1) * args.requests], args.k)
                      for i in range(args.workers)]
            with mp.get_context("spawn").Pool(args.workers) as pool:
                parts = pool.map(worker, chunks)
            latencies = [x for p in parts for x in p["latencies_ms"]]
            errors = sum(p["errors"] for p in parts)
            wall = max(p["ended"] for p in parts) - min(p["started"] for p in parts)
            metrics_text = client.metrics()
            stages, in_app_ms = stage_means(metrics_text), server_search_ms(metrics_text)
            load_after = os.getloadavg()[0]
        except GraphmemClientError:
            errors_in_log = [line for line in (Path(tmp) / "server.log").read_text().splitlines()
                             if '"level": "error"' in line]
            print("\n".join(errors_in_log[-3:]), file=sys.stderr)
            raise
        finally:
            exit_code = stop(proc, timeout=60)

    result = {
        "memories": created, "workers": args.workers, "requests_per_worker": args.requests,
        "requests": len(latencies) + errors, "errors": errors, "distinct_queries": len(set(queries[:total])),
        "k": args.k, "server_threads": args.threads, "server_startup_s": round(startup_s, 2),
        "ingest_s": round(ingest_s, 2), "ingest_per_s": round(created / ingest_s, 1),
        "wall_s": round(wall, 3), "requests_per_s": round(len(latencies) / wall, 1),
        "latency_ms": {"p50": pct(latencies, 0.50, 3), "p95": pct(latencies, 0.95, 3),
                       "p99": pct(latencies, 0.99, 3),
                       "mean": round(statistics.fmean(latencies), 3) if latencies else 0.0,
                       "max": round(max(latencies), 3) if latencies else 0.0},
        "single_client_latency_ms": {"requests": len(solo), "p50": pct(solo, 0.50, 3), "p95": pct(solo, 0.95, 3)},
        "server_search_ms_mean": in_app_ms, "server_stage_ms_mean": stages, "server_exit_code": exit_code,
        "loadavg_1min": {"before": round(load_before, 2), "after": round(load_after, 2)},
        "cpu_count": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""What the Neo4j namespace lock costs a single process's ingest: the code before it against this
tree, alternated in one run on one Neo4j (a loaded machine: only the same-repeat ratio means much).

Each repeat runs, for each tree, in a fresh process: a bulk import of ``--n`` memories
(``bench_ingest.import_once``, what ``graphmem import`` runs, ``--batch-size`` per write session)
and ``--single-n`` creates one at a time (``Graphmem.add``, the API's create: one write session each),
every embedding a cache hit. ``--before`` is a copy of the code before the lock, e.g.
``git archive a92da90 | tar -x -C /tmp/before``. Neo4j is the one GRAPHMEM_NEO4J_URI names. Usage:
    python -m bench.bench_neo4j_lock_cost --before /tmp/before [--n 3000] [--single-n 300] [--repeat 3]
        [--out bench/results/neo4j_lock_cost.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.meta import write_result

ROOT = Path(__file__).resolve().parents[1]


def worker(args: argparse.Namespace) -> None:
    """In the tree on PYTHONPATH: the timed imports (or, with --warm, fill the embedding cache)."""
    from bench.bench_ingest import corpus_of, import_once, write_jsonl
    from graphmem.config import load_settings
    from graphmem.embedding.embedder import load_embedder
    from graphmem.engine import Graphmem
    from graphmem.model import window_namespace
    from graphmem.stores.neo4j import Neo4jStore

    cached = load_embedder(cache_path=args.embed_cache)
    corpus = corpus_of(args.n + args.single_n, 7, False)
    if args.warm:
        cached.embed_documents([m["content"] for m in corpus])
        return
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-lockcost-"))
    bulk_s, _ = import_once(tmp, cached, write_jsonl(tmp / "bulk.jsonl", corpus[:args.n]), args.batch_size,
                            "bulk", "neo4j")
    store = Neo4jStore(load_settings().store)
    engine = Graphmem(load_settings(use_env=False), store, cached)
    namespace = f"lockcost-{uuid.uuid4().hex[:8]}"
    try:
        t0 = time.perf_counter()
        for mem in corpus[args.n:]:
            engine.add(mem, namespace=namespace)
        single_s = time.perf_counter() - t0
    finally:
        for ns in (namespace, window_namespace(namespace)):
            store.drop_namespace(ns)
        engine.close()
    print(json.dumps({"bulk_per_s": args.n / bulk_s, "single_per_s": args.single_n / single_s}))


def run_tree(tree: Path, args: argparse.Namespace, warm: bool = False) -> dict:
    # The worker is this file, run as a script from the tree under test, which supplies graphmem and
    # bench (PYTHONPATH and working directory): the same worker times both trees.
    env = {**os.environ, "PYTHONPATH": str(tree)}
    argv = [sys.executable, str(Path(__file__).resolve()), "--worker", "--n", str(args.n), "--single-n",
            str(args.single_n), "--batch-size", str(args.batch_size), "--embed-cache", args.embed_cache]
    done = subprocess.run([*argv, *(["--warm"] if warm else [])], env=env, cwd=tree, capture_output=True,
                          text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"worker on {tree} failed:\n{done.stderr[-3000:]}")
    return {} if warm else json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--before", required=False, help="a copy of the code before the lock")
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--single-n", type=int, default=300)
    ap.add_argument("--batch-size", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--embed-cache", default=None)
    ap.add_argument("--out", default="bench/results/neo4j_lock_cost.json")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return

    if not args.before:
        raise SystemExit("--before DIR is required (a copy of the code before the lock)")
    trees = {"before": Path(args.before).resolve(), "after": ROOT}
    with tempfile.TemporaryDirectory(prefix="graphmem-lockcost-") as tmp:
        args.embed_cache = args.embed_cache or str(Path(tmp) / "embeddings.sqlite")
        run_tree(ROOT, args, warm=True)
        uptime = [subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()]
        runs = []
        for r in range(args.repeat):
            order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
            rates = {name: run_tree(trees[name], args) for name in order}
            after, before = rates["after"], rates["before"]
            runs.append({"repeat": r, "order": order, **{f"{name}_{k}": round(v, 1) for name, got in rates.items()
                                                         for k, v in got.items()},
                         "bulk_after_vs_before": round(after["bulk_per_s"] / before["bulk_per_s"], 3),
                         "single_after_vs_before": round(after["single_per_s"] / before["single_per_s"], 3)})
            print(json.dumps(runs[-1]), flush=True)
        uptime.append(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    report = {"command": "python -m bench.bench_neo4j_lock_cost " + " ".join(sys.argv[1:]),
              "n": args.n, "single_n": args.single_n, "batch_size": args.batch_size,
              "uptime_before_and_after": uptime, "runs": runs,
              "median_bulk_after_vs_before": statistics.median(r["bulk_after_vs_before"] for r in runs),
              "median_single_after_vs_before": statistics.median(r["single_after_vs_before"] for r in runs),
              "note": "rates in memories/s with every embedding a cache hit; the ratio is after/before in the "
                      "same repeat (>1: faster after); the machine is shared, absolute rates are not figures"}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, report)
    print(json.dumps({k: report[k] for k in ("median_bulk_after_vs_before", "median_single_after_vs_before")}))


if __name__ == "__main__":
    main()

"""The vector arm alone on a store ``bench_scale_1m`` loaded: the approximate index against the exact
scan, for several query settings, in one run.

Why: the whole search's top-10 overlap mixes the vector arm's misses with what fusion and expansion
make of them. This times and scores the arm itself, as recall calls it (``NamespaceVectors.search``,
limit 100, no filter), with live-embedded unique LoCoMo questions:

- ``recall@10``: the share of the exact top 10 ids the index's top 10 holds (with a 95% bootstrap
  interval over the queries);
- ``recall@100``: the same for the arm's whole pool of 100;
- ``tie_recall@10``: the share of the index's top 10 whose exact score is at least the exact 10th
  score less ``--tie`` (a near-copy that scores within it is as good an answer);
- the exact rank and score gap of each missed id, and the arm's latency (the index's search and the
  exact re-score of its candidates; query embedding excluded, measured once per query beforehand).

``--builds CONN:EFADD,...`` also builds fresh indexes from the matrix in this process (not saved)
and runs the same variants on each: the store's own index was grown one batch at a time by its load.

Usage: python -m bench.bench_ann_arm --data-dir /tmp/big/flat --variants 128:4,512:8 [--queries 200]
       [--builds 16:128,32:128] --out bench/results/<name>.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.bench_scale import memory_mb
from bench.bench_scale_1m import NS, Base, queries_for
from bench.bench_scale_ann import open_indexed
from bench.meta import latency_summary, run_facts, save_report
from graphmem.eval.dataset import locomo_dir
from graphmem.stores.sqlite.ann import AnnIndex

POOL = 100          # what recall asks the arm for (recall_candidates)


def exact_top(vectors, qvec: np.ndarray, k: int) -> tuple[list[str], np.ndarray]:
    """The exact scan's top ``k`` (the store's own scan and tie rule: the index set aside) and their scores."""
    settings, vectors.ann_settings = vectors.ann_settings, None
    try:
        ids = vectors.search(qvec, k)
    finally:
        vectors.ann_settings = settings
    scores = dict(zip(*vectors._subset_scores(qvec, ids)[::-1], strict=True))
    return ids, np.array([scores[i] for i in ids])


def interval(values: list[float], resamples: int = 2000) -> list[float]:
    """A 95% bootstrap interval of the mean over queries (fixed seed: the same values, the same interval)."""
    rng = np.random.default_rng(0)
    data = np.asarray(values)
    means = data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


def arm(vectors, original, variant: str, qvecs: list, truth: list, tie: float) -> dict:
    """One EF:OVERFETCH setting of the attached index over every query."""
    ef, overfetch = (int(x) for x in variant.split(":"))
    vectors.ann_settings = replace(original, expansion_search=ef, overfetch=overfetch)
    vectors.ann.index.expansion_search = ef
    ms, r10, r100, tie10, misses = [], [], [], [], []
    for qvec, (exact_ids, exact_scores) in zip(qvecs, truth, strict=True):
        t0 = time.perf_counter()
        found = vectors.search(qvec, POOL)
        ms.append((time.perf_counter() - t0) * 1000)
        top10, exact10 = found[:10], exact_ids[:10]
        r10.append(len(set(top10) & set(exact10)) / 10)
        r100.append(len(set(found) & set(exact_ids)) / POOL)
        scores = dict(zip(*vectors._subset_scores(qvec, top10)[::-1], strict=True))
        tie10.append(sum(scores[i] >= exact_scores[9] - tie for i in top10) / 10)
        misses += [{"exact_rank": k + 1, "gap_to_10th": round(float(exact_scores[k] - exact_scores[9]), 5)}
                   for k, i in enumerate(exact10) if i not in top10]
    gaps = [m["gap_to_10th"] for m in misses]
    return {"expansion_search": ef, "overfetch": overfetch,
            "recall@10": round(statistics.mean(r10), 4), "recall@10_ci95": interval(r10),
            "recall@100": round(statistics.mean(r100), 4),
            "tie_recall@10": round(statistics.mean(tie10), 4), "misses_of_top10": len(misses),
            "miss_gap_to_10th_p50": round(statistics.median(gaps), 5) if gaps else None,
            "miss_exact_rank_counts": {str(k): sum(m["exact_rank"] == k for m in misses) for k in range(1, 11)},
            "arm_latency": latency_summary(ms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True, help="a data dir bench_scale_1m loaded")
    parser.add_argument("--variants", default="128:4,512:8", help="EF:OVERFETCH,...")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--tie", type=float, default=1e-3, help="score tolerance of tie_recall@10")
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--builds", default="", help="CONN:EFADD,... fresh indexes to compare too")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    facts = run_facts()
    path = Path(args.data_dir)
    progress, _store, timed, engine, vectors = open_indexed(path)
    try:
        original = vectors.ann_settings
        assert original is not None
        queries = queries_for(Base(locomo_dir()), progress["loaded"], args.queries, seed=args.seed)
        qvecs = [timed.embed_query(q) for q in queries]
        truth = [exact_top(vectors, v, POOL) for v in qvecs]
        indexes = [("the store's index", vectors.ann, None)]
        for build in filter(None, args.builds.split(",")):
            conn, ef_add = (int(x) for x in build.split(":"))
            indexes.append((f"built here {conn}:{ef_add}", None, (conn, ef_add)))
        rows = []
        for label, ann, build in indexes:
            built_s = None
            if build is not None:
                vectors.ann = None          # a built one freed before the next (the list keeps the store's)
                ann = AnnIndex(vectors.dim, replace(original, connectivity=build[0], expansion_add=build[1]))
                t0 = time.perf_counter()
                ann.add_many(vectors.ids[:], vectors.matrix[:len(vectors)])
                built_s = round(time.perf_counter() - t0, 1)
            vectors.ann = ann
            for variant in args.variants.split(","):
                rows.append({"index": label, "build_s": built_s, **arm(vectors, original, variant, qvecs, truth,
                                                                        args.tie)})
                print(json.dumps(rows[-1]), flush=True)
        vectors.ann_settings = original
        vectors.ann = indexes[0][1]         # the store's own: a built one is never saved over it at close
        save_report(args.out, {"facts": facts, "namespace": NS, "memories": len(vectors),
                               "connectivity": original.connectivity, "index_dtype": original.dtype,
                               "matrix_dtype": str(vectors.matrix.dtype), "pool": POOL, "tie": args.tie,
                               "queries": len(queries), "query_embedding": "excluded (embedded beforehand)",
                               "memory": memory_mb(), "variants": rows})
    finally:
        engine.close()


if __name__ == "__main__":
    main()

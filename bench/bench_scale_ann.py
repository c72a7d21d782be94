"""The approximate index's query-time settings on a store ``bench_scale_1m`` loaded, compared in one run.

Loads nothing: for each ``EF:OVERFETCH`` (the index's beam width, and how many candidates it is
asked for per result wanted), the checkpoint of ``bench_scale_1m`` runs again on the store as it
is: whole search on the index and on the exact scan, their top-10 overlap, the bare floor, per
stage. Each setting gets its own unique queries and an emptied row cache. The settings apply to
this process only (``store.sqlite.ann_expansion_search`` / ``ann_overfetch`` set them for good).

Usage: python -m bench.bench_scale_ann --data-dir /work/scale-flat --shape flat --variants 128:4,512:4
       [--queries 200] [--out-prefix bench/results/scale-ann-flat-]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from bench.bench_scale_1m import LOAD_PATH, NS, Base, TimedEmbedder, measure, open_engine, search, size_label
from bench.meta import run_facts, save_report
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir
from graphmem.stores.sqlite import SQLiteStore
from graphmem.stores.sqlite.vectors import NamespaceVectors


def open_indexed(path: Path) -> tuple[dict, SQLiteStore, TimedEmbedder, Graphmem, NamespaceVectors]:
    """A data dir ``bench_scale_1m`` loaded: its progress, store, timed model and engine, and the
    namespace's vectors after a warm-up search (read, the approximate index attached)."""
    progress = json.loads((path / "progress.json").read_text())
    store, timed, engine = open_engine(path, progress["ann_threshold"])
    search(engine, timed, "warm up the matrix and the index")
    assert store.vectors is not None
    vectors = store.vectors.namespaces[NS]
    if vectors.ann is None or vectors.ann_settings is None:
        engine.close()
        raise SystemExit(f"{path}: no approximate index at {progress['loaded']} memories (threshold higher)")
    return progress, store, timed, engine, vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True, help="a data dir bench_scale_1m loaded")
    parser.add_argument("--shape", choices=("threads", "flat"), required=True, help="the shape it was loaded in")
    parser.add_argument("--variants", default="128:4,512:4", help="EF:OVERFETCH,...")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out-prefix", default=None, help="default: bench/results/scale-ann-<shape>-")
    args = parser.parse_args()
    prefix = args.out_prefix or f"bench/results/scale-ann-{args.shape}-"
    facts = run_facts()
    path = Path(args.data_dir)
    progress, store, timed, engine, vectors = open_indexed(path)
    size = progress["loaded"]
    try:
        original = vectors.ann_settings
        assert original is not None and vectors.ann is not None
        for k, variant in enumerate(args.variants.split(",")):
            ef, overfetch = (int(x) for x in variant.split(":"))
            vectors.ann_settings = replace(original, expansion_search=ef, overfetch=overfetch)
            vectors.ann.index.expansion_search = ef
            store.rows.clear()
            row = measure(engine, store, timed, Base(locomo_dir()), size, args.queries, path,
                          seed=size + 1000 * (k + 1))
            row["ann_variant"] = {"expansion_search": ef, "overfetch": overfetch, "dtype": original.dtype,
                                  "connectivity": original.connectivity}
            save_report(f"{prefix}{size_label(size)}-ef{ef}x{overfetch}.json",
                        {"facts": facts, "namespace": NS, "shape": args.shape, "load_path": LOAD_PATH, **row})
            print(json.dumps({key: row[key] for key in ("ann_variant", "recall@10_vs_exact", "search_ann",
                                                        "floor_ratio_p50")}), flush=True)
    finally:
        engine.close()


if __name__ == "__main__":
    main()

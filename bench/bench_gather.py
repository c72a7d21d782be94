"""Linking's candidate reads (``ingest.candidates.gather``) timed on a loaded store, read only.

Why: ``gather`` is the part of a batch's write that grows with the store (term holders, candidate
rows). This builds the next ``--chunks`` chunks of the scale bench's memories (``bench_scale_1m``'s
items and vectors, not saved) and times ``gather`` on each, so two versions of the code can be
compared on one store without loading it twice; a digest of every memory's candidates shows that
both find the same ones.

Usage: python -m bench.bench_gather --data-dir /tmp/scale/flat [--chunks 8] [--shape flat]
       [--out bench/results/gather-100k-flat.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np

from bench.bench_load import PrecomputedEmbedder
from bench.bench_scale_1m import CHUNK, NS, Base, items
from bench.meta import run_facts, save_report
from bench.scale_vectors import derived
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir
from graphmem.ingest.candidates import gather
from graphmem.ingest.validate import validate_memory
from graphmem.stores.sqlite import SQLiteStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--shape", choices=("flat", "threads"), default="flat")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    facts = run_facts()
    path = Path(args.data_dir)
    settings = load_settings(overrides={"store": {"data_dir": str(path), "sqlite": {"synchronous": "NORMAL"}}},
                             use_env=False)
    store = SQLiteStore(path, settings.store)
    base_vecs = np.load(path / "base-vectors.npy")
    engine = Graphmem(settings, store, PrecomputedEmbedder(base_vecs.shape[1]))    # type: ignore[arg-type]
    size = store.stats(NS).namespaces.get(NS, 0)
    loaded = int(json.loads((path / "progress.json").read_text())["loaded"])
    base = Base(locomo_dir())
    seconds, digests = [], []
    for c in range(args.chunks):
        lo = loaded + CHUNK * c
        batch = items(base, lo, lo + CHUNK, args.shape)
        memories = [engine.ingestor.build(NS, validate_memory(item, settings.limits, NS), vector)
                    for item, vector in zip(batch, derived(base_vecs, lo, CHUNK), strict=True)]
        t0 = time.perf_counter()
        inputs = gather(store, NS, memories, settings.edges)
        seconds.append(round(time.perf_counter() - t0, 4))
        found = [(i.mem.id, [m.id for m in i.candidates], i.labels, sorted(i.tag_df.items())) for i in inputs]
        digests.append(hashlib.sha256(repr(found).encode()).hexdigest()[:16])
    engine.close()
    report = {"facts": facts, "size": size, "shape": args.shape, "chunk": CHUNK, "seconds_per_chunk": seconds,
              "median_s": round(float(np.median(seconds)), 4), "candidates_digest": digests,
              "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]}
    print(report)
    if args.out:
        save_report(args.out, report)


if __name__ == "__main__":
    main()

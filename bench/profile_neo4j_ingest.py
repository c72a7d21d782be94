"""Where batched ingest spends its time on each store: seconds inside each call of the
store contract (outermost calls only, with their counts), the rest (validation, linking, scoring in Python).

Ingests the same ``--n`` bench-corpus memories (document embeddings from ``--embed-cache``) through
``Graphmem.add_batch`` (500 a batch) into a fresh namespace of the embedded store and of Neo4j
(``GRAPHMEM_NEO4J_URI``), one after the other. Usage:
    python -m bench.profile_neo4j_ingest --n 2000 --embed-cache FILE
        [--out bench/results/profile-neo4j-ingest.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from bench.meta import provenance, write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.stores.base import MemoryStore
from graphmem.stores.neo4j import Neo4jStore
from graphmem.stores.sqlite import SQLiteStore
from harness.corpus import make_memories


def split(engine: Graphmem, namespace: str, corpus: list[dict]) -> dict[str, Any]:
    store = engine.store
    spent: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    depth = [0]
    names = [n for n, v in vars(MemoryStore).items() if not n.startswith("_") and callable(v)]

    def timed(name: str, fn):
        def call(*args, **kwargs):
            depth[0] += 1
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:        # outermost store call only (one store method may call another)
                    spent[name] += time.perf_counter() - t0
                    calls[name] += 1
        return call

    for name in names:
        setattr(store, name, timed(name, getattr(store, name)))
    t0 = time.perf_counter()
    for start in range(0, len(corpus), 500):
        engine.add_batch(corpus[start:start + 500], namespace)
    total = time.perf_counter() - t0
    for name in names:
        delattr(store, name)
    inside = sum(spent.values())
    return {"seconds": round(total, 2), "per_s": round(len(corpus) / total, 1),
            "store_seconds": round(inside, 2), "outside_store_seconds": round(total - inside, 2),
            "store_calls": {n: {"seconds": round(s, 2), "calls": calls[n]} for n, s in spent.most_common()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--embed-cache", required=True)
    parser.add_argument("--out", default="bench/results/profile-neo4j-ingest.json")
    args = parser.parse_args()
    started = provenance()
    embedder = load_embedder(cache_path=args.embed_cache)
    corpus = make_memories(args.n, namespace="")
    for item in corpus:
        item.pop("namespace")
    embedder.embed_documents([m["content"] for m in corpus])        # warm the cache
    tmp = Path(tempfile.mkdtemp(prefix="graphmem-ingest-profile-"))
    settings = load_settings(overrides={"store": {"data_dir": str(tmp)}}, use_env=False)
    neo = Neo4jStore(load_settings().store)
    namespace = f"ingest-{uuid.uuid4().hex[:8]}"
    report: dict[str, Any] = {"n": args.n, "document_embeddings": "cached",
                              "ingest_path": "Graphmem.add_batch, 500 a batch"}
    try:
        report["sqlite"] = split(Graphmem(settings, SQLiteStore(tmp, settings.store), embedder), namespace, corpus)
        report["neo4j"] = split(Graphmem(settings, neo, embedder), namespace, corpus)
    finally:
        neo.drop_namespace(namespace)
        neo.close()
    write_result(args.out, report, started=started)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

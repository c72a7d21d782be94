"""How often query-time grouping of copies fires on conversational data (locomo-dev, one
conversation), with group_copies switched on per request: queries with a group, copies grouped.

    PYTHONPATH=. python -m bench.group_check --only conv-26   # writes bench/results/group-copies-conv26.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from bench.meta import write_result
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.prepare import default_cache_root
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir, read_jsonl
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="conv-26")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "group-copies-conv26.json")
    args = ap.parse_args()
    base = locomo_dir()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(overrides={"store": {"data_dir": tmp}}, use_env=False)
        engine = Graphmem(settings, SQLiteStore(Path(tmp), settings.store),
                          load_embedder(cache_path=default_cache_root() / "eval-embedding-cache.sqlite"))
        mems = [m for m in read_jsonl(base / "memories.jsonl") if m["metadata"]["conversation"] == args.only]
        for start in range(0, len(mems), 200):
            engine.add_batch(mems[start:start + 200], "c")
        queries = [q for q in read_jsonl(base / "queries_no_adv.jsonl") if q["conversation"] == args.only]
        grouped, with_groups, examples = 0, 0, []
        for q in queries:
            out = dump(engine.search(q["text"], "c", params={"group_copies": True}, trace=True))
            n = next(r for r in out["trace"]["stages"] if r["stage"] == "rank").get("copies_grouped", 0)
            grouped += n
            with_groups += bool(n)
            lead = next((r for r in out["results"] if r["why"].get("near_duplicates_merged")), None)
            if n and lead is not None and len(examples) < 5:     # groups below the top k are not shown
                examples.append({"query": q["text"], "leader": lead["id"],
                                 "grouped": lead["why"]["near_duplicates_merged"]})
        engine.close()
    result = {"conversation": args.only, "queries": len(queries), "queries_with_groups": with_groups,
              "copies_grouped": grouped, "examples": examples}
    write_result(args.out, result, inputs=[base / "memories.jsonl", base / "queries_no_adv.jsonl"],
                 config=settings.raw)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

"""Linking's newest-holders lookup on a store's full-text index: the previous three-pass cut
against the one-pass cut (one hit past the cut tells whether it splits an instant).

Why: ``term_holders`` runs one ordered tantivy search per distinct lookup term of a batch; the
previous rule ran two more passes over a term's postings (a tie count and a tie read) whenever the
term had more holders than the limit, a share that grows with the store. The result must be the same
rowids per term; this reads a stored index (read-only, any data dir made by graphmem or
bench/bench_load.py) and compares both rules on the terms of the namespace's first memories.

Usage: python -m bench.bench_holders_cut --data-dir /tmp/graphmem-load-flat [--namespace scale]
       [--memories 400] [--limit 200] [--out bench/results/holders-cut.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import time
from pathlib import Path

import tantivy

from bench.meta import run_facts, save_report
from graphmem.stores.sqlite import lexical as lex
from graphmem.stores.sqlite.holders import newest_rowids


def three_pass(searcher: tantivy.Searcher, namespace: str, term: str, fetch: int) -> list[int]:
    """The previous rule: a cut at ``fetch`` always followed by the tie count and read."""
    base = lex.LexicalIndex._in_namespace(namespace, lex.Q.term_query(lex.SCHEMA, "terms", term))
    hits = searcher.search(base, fetch, count=False, order_by_field="created_us").hits
    addresses = [a for _, a in hits]
    if len(hits) == fetch:
        edge = int(hits[-1][0])
        tie = lex.Q.boolean_query([(lex.MUST, base), (lex.MUST, lex.Q.range_query(
            lex.SCHEMA, "created_us", tantivy.FieldType.Integer, edge, edge))])
        size = int(getattr(searcher.search(tie, 1, count=True), "count", 0) or 0)
        addresses = [a for key, a in hits if int(key) != edge] + [a for _, a in searcher.search(
            tie, max(size, 1), count=False).hits]
    return lex.fast_ints(searcher, "rowid", addresses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--namespace", default="scale")
    parser.add_argument("--memories", type=int, default=400)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    facts = run_facts()
    path = Path(args.data_dir)
    searcher = tantivy.Index(lex.SCHEMA, path=str(path / "graphmem.lexical")).searcher()
    db = sqlite3.connect(f"file:{path / 'graphmem.sqlite'}?mode=ro", uri=True)
    terms: set[str] = set()
    for (counts,) in db.execute("SELECT term_counts_json FROM memories WHERE namespace = ? LIMIT ?",
                                (args.namespace, args.memories)):
        terms.update(json.loads(counts))
    ordered = sorted(terms)
    runs: dict[str, list[float]] = {"three_pass_s": [], "one_pass_s": []}
    same = True
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        before = [sorted(three_pass(searcher, args.namespace, t, args.limit)) for t in ordered]
        t1 = time.perf_counter()
        after = [sorted(newest_rowids(searcher, args.namespace, t, args.limit)) for t in ordered]
        t2 = time.perf_counter()
        runs["three_pass_s"].append(round(t1 - t0, 3))
        runs["one_pass_s"].append(round(t2 - t1, 3))
        same = same and before == after
    report = {"facts": facts, "documents": searcher.num_docs, "terms": len(ordered),
              "terms_past_the_limit": sum(searcher.doc_freq("terms", t) > args.limit for t in ordered),
              "limit": args.limit, "identical_rowids": same, **runs,
              "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(report, indent=1))
    if args.out:
        save_report(args.out, report)


if __name__ == "__main__":
    main()

"""A whole graphmem search at up to 1M memories in one namespace of the embedded store, resumable.

Memories: LoCoMo-like dialogue turns (``shared/datasets/locomo-dev``, read in place, never copied).
Memory i is conversation i // 500, session (i % 500) // 25 + 1, turn i % 25; its vector is
``bench/scale_vectors.derived`` (a mixture of real e5 embeddings of the ~4k LoCoMo turns and
observations, plus noise) and its text is the dominant sentence of that mixture with the
conversation's two speakers renamed (names built from syllables: ~900 entities), plus a clause of
the second sentence half of the time. Tags ``speaker:* session:* date:*``, category
``conv-N/session_S``, thread = the session with seq = the turn (so context windows exist), a
source drawn from the usual ones. So the text matches the vector, vocabulary is real English,
tags and categories are as skewed as real ones.

Load: graphmem's real write path (``Graphmem.add_prepared``: dedupe, health, linking with its
degree caps, thread windows, one transaction per 500) with the precomputed vectors standing in for
the model's; nothing is written around it. Progress lives in ``<data-dir>/progress.json``: a rerun
continues after the last chunk written (a chunk written twice dedupes by id). Checkpoints measure:

- whole search (default recipe: router, lexical + vector recall, context windows, expansion,
  health and source weighting, rank; k=10) with the query embedded live (intfloat/e5-small-v2 unless
  GRAPHMEM_MODEL says otherwise), unique queries: LoCoMo questions with their speakers renamed to a
  loaded conversation's; each query runs on the approximate index and on the exact scan (the same
  store and pipeline, the namespace's index settings cleared for that run), order alternating;
  recall@10 = overlap of the two top 10s. The row cache is emptied before each of the two runs, so
  the second does not find the rows the first read (a user's query is new to the cache; rows of
  earlier queries go too, so this errs slow). The embedding part is timed apart (``embed_query``),
  stage times come from the trace. Before each query, the bare floor (``bench.floor.Floor``: live
  query embedding, the vector index's top 100, tantivy's top 100) runs it under the same load.
- per stage (trace), p50 and p95; RSS (now, peak; and both before measuring: the load's own, without
  the exact reference scan), disk (SQLite files, index), load seconds so
  far, the load rate per tenth of the size (each with the mean 1-minute load average while it
  ran), edges per type, first-search time (matrix load, index build or load), ``os.getloadavg()``
  while measuring.

Each size's checkpoint is also saved alone (``<out-prefix><size>.json``, e.g. ``scale-1m-threads-100k.json``).
``--shape flat`` loads the same memories without thread and seq (no FOLLOWS edges, no windows).

Usage: nice -n 15 python -m bench.bench_scale_1m [--data-dir /work/scale1m-data] [--target 1000000]
       [--checkpoints 10000,100000,250000,500000,750000,1000000] [--queries 200]
       [--stop-at 22:20] (UTC; the load stops before a chunk that would start later)
       [--shape threads|flat] [--warm-after N] [--out bench/results/scale-1m-<shape>.json]
       [--out-prefix bench/results/scale-1m-<shape>-]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.bench_scale import disk, memory_mb
from bench.floor import Floor
from bench.meta import latency_summary, run_facts, save_report, time_calls
from bench.scale_vectors import derived, dominant_picks
from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.engine import Graphmem
from graphmem.eval.dataset import locomo_dir, read_jsonl
from graphmem.ingest.service import PreparedBatch
from graphmem.ingest.validate import validate_memory
from graphmem.stores.sqlite import SQLiteStore

NS = "scale"
CHUNK = 500
PER_CONV, PER_SESSION = 500, 25
SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "to", "vel", "na", "ri", "dan", "el", "jo", "mar", "ta", "ni",
             "bel", "cor", "da", "fi", "gar", "ha", "is", "lu", "mo", "pe", "quin", "ro", "sil", "ve", "zan"]
SOURCES = ["memory_tool", "USER.md", "MEMORY.md", "session_search", "chat_import", "manual_fix"]


def name(k: int) -> str:
    return (SYLLABLES[k % 30] + SYLLABLES[(k // 30) % 30]).capitalize()


def speakers(conv: int) -> tuple[str, str]:
    rng = random.Random(conv)
    a = rng.randrange(900)
    return name(a), name((a + 1 + rng.randrange(899)) % 900)


class Base:
    """The real sentences behind the vectors, each with its conversation's speaker names."""

    def __init__(self, folder: Path) -> None:
        rows = read_jsonl(folder / "memories.jsonl") + read_jsonl(folder / "observations.jsonl")
        by_conv: dict[str, set[str]] = {}
        for r in rows:
            by_conv.setdefault(r["metadata"]["conversation"], set()).add(r["metadata"]["speaker"])
        self.convs = {c: sorted(s) for c, s in by_conv.items()}
        self.texts = [r["content"] for r in rows]
        self.names = [self.convs[r["metadata"]["conversation"]] for r in rows]
        self.queries = [(q["text"], self.convs[q["conversation"]])
                        for f in ("queries.jsonl", "queries_observations.jsonl") for q in read_jsonl(folder / f)]

    def vectors(self, cache: Path) -> np.ndarray:
        """e5 (the configured model) embeddings of the sentences, saved in the data dir. A saved
        file is checked first: a sample of its rows must be the model's embeddings of their
        sentences (a file of other vectors would make every vector figure meaningless)."""
        embedder = load_embedder()
        if cache.exists():
            saved = np.load(cache)
            sample = list(range(0, len(self.texts), max(1, len(self.texts) // 8)))
            fresh = embedder.embed_documents([self.texts[k] for k in sample])
            agree = np.sum(fresh * saved[sample], axis=1) if len(saved) == len(self.texts) else np.zeros(1)
            if float(agree.min()) < 0.99:
                raise SystemExit(f"{cache}: not {embedder.model_id}'s embeddings of the LoCoMo sentences "
                                 f"(cosine {float(agree.min()):.3f} on a sample); remove it to re-embed")
            return saved
        out = np.concatenate([embedder.embed_documents(self.texts[s:s + 128])
                              for s in range(0, len(self.texts), 128)])
        np.save(cache, out.astype(np.float32))
        return out.astype(np.float32)


def rename(text: str, old: list[str], new: tuple[str, str]) -> str:
    for o, n in zip(old, new, strict=False):
        text = text.replace(o, n)
        if o == "Melanie":
            text = text.replace("Mel", n)
    return text


def items(base: Base, lo: int, hi: int, shape: str = "threads") -> list[dict[str, Any]]:
    picks = dominant_picks(len(base.texts), lo, hi - lo)
    out = []
    for i, (p0, p1, _) in zip(range(lo, hi), picks.tolist(), strict=True):
        conv, turn = divmod(i, PER_CONV)
        session, seq = turn // PER_SESSION + 1, turn % PER_SESSION
        names = speakers(conv)
        text = rename(base.texts[p0], base.names[p0], names)
        if i % 2:
            clause = rename(base.texts[p1], base.names[p1], names).split(": ", 1)[-1].split()[:10]
            text += " Also, " + " ".join(clause)
        day = date(2021, 1, 1) + timedelta(days=(conv * 7) % 1000 + session * 10)
        who = names[seq % 2]
        item = {"id": f"m{i:07d}", "content": text, "category": f"conv-{conv}/session_{session}",
                "tags": [f"speaker:{who}", f"session:{session}", f"date:{day.isoformat()}"],
                "source": SOURCES[(i * 7919) % len(SOURCES)], "thread": f"conv-{conv}/session_{session}",
                "seq": seq, "created_at": f"{day.isoformat()}T{10 + seq // 4:02d}:{(seq * 7) % 60:02d}:00Z"}
        if shape == "flat":
            del item["thread"], item["seq"]
        out.append(item)
    return out


class TimedEmbedder:
    """The real embedder; ``embed_query`` times are kept so the embedding part is reported apart."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.query_ms: list[float] = []

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.inner, attr)

    def embed_documents(self, texts: Any) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        t0 = time.perf_counter()
        out = self.inner.embed_query(text)
        self.query_ms.append((time.perf_counter() - t0) * 1000)
        return out


def load_chunk(engine: Graphmem, base_vecs: np.ndarray, base: Base, lo: int, hi: int,
               shape: str = "threads") -> dict[str, int]:
    """Memories lo..hi through the real write path, the precomputed vectors in place of the model's."""
    vecs = derived(base_vecs, lo, hi - lo)
    limits = engine.settings.limits
    group = [(k, validate_memory(it, limits, NS), vecs[k]) for k, it in enumerate(items(base, lo, hi, shape))]
    results = engine.add_prepared(PreparedBatch([None] * len(group), {NS: group}))
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    return counts


def queries_for(base: Base, size: int, n: int, seed: int) -> list[str]:
    """``n`` distinct LoCoMo questions, speakers renamed to those of loaded conversations."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    convs = max(1, size // PER_CONV)
    while len(out) < n:
        text, old = rng.choice(base.queries)
        out.setdefault(rename(text, old, speakers(rng.randrange(convs))))
    return list(out)


def search(engine: Graphmem, timed: TimedEmbedder, query: str) -> tuple[float, float, list[str], dict[str, float]]:
    before = len(timed.query_ms)
    t0 = time.perf_counter()
    outcome = engine.search_outcome(query, NS, 10)
    ms = (time.perf_counter() - t0) * 1000
    embed = sum(timed.query_ms[before:])
    stages = {row["stage"]: row["ms"] for row in outcome.trace["stages"]}
    return ms, embed, [c.memory.id for c in outcome.candidates], stages


def measure(engine: Graphmem, store: SQLiteStore, timed: TimedEmbedder, base: Base, size: int,
            n_queries: int, path: Path, seed: int | None = None) -> dict[str, Any]:
    cache = store.vectors
    assert cache is not None
    row: dict[str, Any] = {"size": size, "facts": run_facts(), "ann_threshold": cache.ann.threshold
                           if cache.ann else None, "warm_after": store.warm_after}
    t0 = time.perf_counter()
    search(engine, timed, "warm up the matrix and the index")
    row["first_search_s"] = round(time.perf_counter() - t0, 1)
    row["ann_events"] = dict(cache.ann_events)
    vectors = cache.namespaces[NS]
    row["vectors"] = len(vectors)
    row["approximate"] = vectors.ann is not None
    queries = queries_for(base, size, n_queries + 5, seed=size if seed is None else seed)
    for q in queries[:5]:
        search(engine, timed, q)
    runs: dict[str, dict[str, list]] = {m: {"ms": [], "embed": [], "ids": [], "stages": []}
                                        for m in ("ann", "exact")}
    floor, floor_ms = Floor(timed.inner, store, NS), []
    ann_settings = vectors.ann_settings     # None for a mode: the scan; the index stays attached
    for k, q in enumerate(queries[5:]):
        floor_ms += time_calls(floor.search, [q])       # the bare floor, under the same load, query by query
        for mode in (("ann", "exact") if k % 2 == 0 else ("exact", "ann")):
            vectors.ann_settings = ann_settings if mode == "ann" else None
            store.rows.clear()          # neither run of a query finds the rows its other run read
            ms, embed, ids, stages = search(engine, timed, q)
            for key, value in (("ms", ms), ("embed", embed), ("ids", ids), ("stages", stages)):
                runs[mode][key].append(value)
    vectors.ann_settings = ann_settings
    for mode, r in runs.items():
        row[f"search_{mode}"] = {**latency_summary(r["ms"]), "embed_query": latency_summary(r["embed"]),
                                 "without_embedding": latency_summary([a - b for a, b in zip(r["ms"], r["embed"],
                                                                                            strict=True)]),
                                 "stage_p50_ms": {s: round(statistics.median(x[s] for x in r["stages"]), 3)
                                                  for s in r["stages"][0]},
                                 "stage_ms": {s: latency_summary([x[s] for x in r["stages"]])
                                              for s in r["stages"][0]}}
    row["floor"] = {**latency_summary(floor_ms), "arms": floor.arms}
    row["floor_ratio_p50"] = round(row["search_ann"]["p50_ms"] / row["floor"]["p50_ms"], 3)
    row["floor_ratio_per_query_p50"] = round(statistics.median(
        a / b for a, b in zip(runs["ann"]["ms"], floor_ms, strict=True)), 3)
    overlaps = [len(set(a) & set(e)) / max(1, len(e)) for a, e in zip(runs["ann"]["ids"], runs["exact"]["ids"],
                                                                        strict=True)]
    row["recall@10_vs_exact"] = round(float(np.mean(overlaps)), 4)
    row["queries"] = len(overlaps)
    stats = store.stats(NS)
    row["memories_in_namespace"] = stats.namespaces.get(NS, 0)
    row["edges"] = stats.edges
    row["memory"] = memory_mb()
    cache.save()
    row["disk"] = disk(path)
    row["loadavg_while_measuring"] = [round(x, 2) for x in os.getloadavg()]
    return row


def deciles(chunks: list[list[float]], size: int) -> list[dict[str, float | None]]:
    """Load rate per tenth of ``size`` from (memories loaded after the chunk, seconds, 1-min load average)."""
    out = []
    step = max(1, size // 10)
    previous = 0.0
    for d in range(10):
        part = [c for c in chunks if d * step < c[0] <= (d + 1) * step]
        if part:
            seconds = sum(c[1] for c in part)
            out.append({"up_to": int(part[-1][0]), "rate_per_s": round((part[-1][0] - previous) / seconds, 1)
                        if seconds else None, "loadavg_1m_mean": round(statistics.mean(c[2] for c in part), 2)})
            previous = part[-1][0]
    return out


LOAD_PATH = ("Graphmem.add_prepared (dedupe, health, linking, thread windows), 500 per transaction, "
             "precomputed vectors (bench/scale_vectors.derived over e5 embeddings of LoCoMo sentences)")


def size_label(size: int) -> str:
    if size % 1_000_000 == 0:
        return f"{size // 1_000_000}m"
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def open_engine(path: Path, threshold: int, warm_after: int | None = None
                ) -> tuple[SQLiteStore, TimedEmbedder, Graphmem]:
    """The bench's store (the index from ``threshold`` memories on; ``warm_after``: the configured
    one unless given) and engine, the query model timed."""
    sqlite: dict[str, Any] = {"synchronous": "NORMAL", "ann_threshold": threshold}
    if warm_after is not None:
        sqlite["warm_after"] = warm_after
    settings = load_settings(overrides={"store": {"data_dir": str(path), "sqlite": sqlite}}, use_env=False)
    store = SQLiteStore(path, settings.store)
    timed = TimedEmbedder(load_embedder())
    return store, timed, Graphmem(settings, store, timed)    # type: ignore[arg-type]


def write_report(out: str, facts: dict, progress: dict, args: argparse.Namespace) -> None:
    save_report(out, {"facts": facts, "namespace": NS, "target": args.target, "shape": args.shape,
                      "load_path": LOAD_PATH,
                      "progress": {k: v for k, v in progress.items() if k not in ("checkpoints", "chunks")},
                      "checkpoints": [progress["checkpoints"][k]
                                      for k in sorted(progress["checkpoints"], key=int)]})


def write_size(prefix: str, facts: dict, row: dict, args: argparse.Namespace) -> None:
    """One size's figures alone: the file a curve plots from."""
    save_report(f"{prefix}{size_label(row['size'])}.json", {"facts": facts, "namespace": NS, "shape": args.shape,
                                                             "load_path": LOAD_PATH, **row})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default="/work/scale1m-data")
    parser.add_argument("--target", type=int, default=1_000_000)
    parser.add_argument("--checkpoints", default="10000,100000,250000,500000,750000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ann-threshold", type=int, default=None,
                        help="store.sqlite_ann_threshold (default: the configured one, or the one this data "
                             "dir was started with)")
    parser.add_argument("--warm-after", type=int, default=None,
                        help="store.sqlite.warm_after (default: the configured one; 0: the load never "
                             "keeps the vectors in step, so the first search catches up)")
    parser.add_argument("--measure-nice", type=int, default=0, help="niceness while measuring (the load "
                        "keeps the one it was started with)")
    parser.add_argument("--stop-at", default=None, help="HH:MM UTC: start no chunk after this")
    parser.add_argument("--out", default=None, help="default: bench/results/scale-1m-<shape>.json")
    parser.add_argument("--out-prefix", default=None,
                        help="one JSON per checkpoint size (default: bench/results/scale-1m-<shape>-)")
    parser.add_argument("--shape", choices=("threads", "flat"), default="threads")
    args = parser.parse_args()
    args.out = args.out or f"bench/results/scale-1m-{args.shape}.json"
    args.out_prefix = args.out_prefix or f"bench/results/scale-1m-{args.shape}-"
    facts = run_facts()
    path = Path(args.data_dir)
    path.mkdir(parents=True, exist_ok=True)
    progress_file = path / "progress.json"
    progress: dict[str, Any] = json.loads(progress_file.read_text()) if progress_file.exists() else {
        "loaded": 0, "load_seconds": 0.0, "statuses": {}, "checkpoints": {}}
    progress.setdefault("chunks", [])
    base = Base(locomo_dir())
    base_vecs = base.vectors(path / "base-vectors.npy")
    threshold = args.ann_threshold or progress.get("ann_threshold") or load_settings(
        use_env=False).store.sqlite.ann_threshold
    progress["ann_threshold"] = threshold
    load_nice = os.getpriority(os.PRIO_PROCESS, 0)
    store, timed, engine = open_engine(path, threshold, args.warm_after)
    marks = sorted(int(c) for c in args.checkpoints.split(",") if int(c) <= args.target)
    segment_t, segment_n = 0.0, 0
    try:
        while True:
            loaded = progress["loaded"]
            due = [m for m in marks if m <= loaded and str(m) not in progress["checkpoints"]]
            if due:
                before = memory_mb()        # the load's own, before the measurement's exact reference scan
                os.setpriority(os.PRIO_PROCESS, 0, args.measure_nice)
                try:
                    row = measure(engine, store, timed, base, loaded, args.queries, path)
                finally:
                    os.setpriority(os.PRIO_PROCESS, 0, load_nice)
                row["nice"] = {"load": load_nice, "measure": args.measure_nice}
                row["memory_before_measuring"] = before
                row["load_seconds_so_far"] = round(progress["load_seconds"], 1)
                row["segment_rate_per_s"] = round(segment_n / segment_t, 1) if segment_t else None
                row["load_rate_per_decile"] = deciles(progress["chunks"], loaded)
                progress["checkpoints"][str(due[-1])] = row
                write_size(args.out_prefix, facts, row, args)
                segment_t, segment_n = 0.0, 0
                progress_file.write_text(json.dumps(progress))
                write_report(args.out, facts, progress, args)
                print(json.dumps({k: row[k] for k in ("size", "recall@10_vs_exact", "search_ann", "memory")}),
                      flush=True)
            if loaded >= args.target or (args.stop_at and time.strftime("%H:%M", time.gmtime()) >= args.stop_at):
                if str(loaded) not in progress["checkpoints"] and loaded not in marks:     # the partial size
                    marks = sorted({*marks, loaded})
                    continue
                break
            hi = min(args.target, loaded + CHUNK, *[m for m in marks if m > loaded])
            t0 = time.perf_counter()
            for status, n in load_chunk(engine, base_vecs, base, loaded, hi, args.shape).items():
                progress["statuses"][status] = progress["statuses"].get(status, 0) + n
            took = time.perf_counter() - t0
            segment_t, segment_n = segment_t + took, segment_n + hi - loaded
            progress["load_seconds"] += took
            progress["chunks"].append([hi, round(took, 4), round(os.getloadavg()[0], 2)])
            progress["loaded"] = hi
            progress_file.write_text(json.dumps(progress))
            if hi % 10_000 == 0:
                print(json.dumps({"loaded": hi, "rate_per_s": round(segment_n / segment_t, 1),
                                  "utc": time.strftime("%H:%M:%S", time.gmtime())}), flush=True)
                write_report(args.out, facts, progress, args)
    finally:
        write_report(args.out, facts, progress, args)
        engine.close()


if __name__ == "__main__":
    main()

"""The docs site's speed tables, generated from bench/results/.

Every row reads one saved result and names it with its command, commit and load average, so
the tables say nothing that no file holds. ``python -m tools.docs_speed`` rewrites each block
between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` in docs/benchmarks/speed.md (``speed``: the embedded
store; ``neo4j-speed``: Neo4j beside it); ``--check`` only reports whether the page is current.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
PAGE = ROOT / "docs" / "benchmarks" / "speed.md"
def markers(block: str) -> tuple[str, str]:
    return f"<!-- {block}:begin -->", f"<!-- {block}:end -->"


def _load(name: str) -> dict | None:
    path = RESULTS / name
    return json.loads(path.read_text()) if path.exists() else None


def _spread(s: dict, digits: int = 2) -> str:
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}-{s['max']:.{digits}f})"


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def _run(d: dict) -> tuple[str, str, float] | None:
    """Command, commit and load average at the start of a saved result: ``provenance`` as
    ``bench.meta.write_result`` saves it, or ``facts`` as older results carry it."""
    if isinstance(d.get("provenance"), dict) and "loadavg" in d["provenance"]:
        prov = d["provenance"]
        return prov["command"], prov["commit"], prov["loadavg"][0]
    facts = d.get("facts")
    if not facts:
        return None
    return facts["command"], facts["git_commit"], facts["machine"]["loadavg_at_start"][0]


def _source(name: str, d: dict) -> str:
    run = _run(d)
    if run is None:
        return f"`bench/results/{name}` (an earlier version: no command or commit saved)"
    command, commit, load = run
    landed = d.get("commits_landed_as", {}).get(commit, commit)
    command = re.sub(r"--note '[^']*'", "--note '...'", command)   # the note is in the file
    return f"`{command}` at {landed[:7]}, load {load:.1f} at start; `bench/results/{name}`"


def embedder(d: dict) -> list[tuple[str, str]]:
    return [("embedding, batch 64 (2,000 sentences)", f"{d['docs_per_second']:.0f} docs/s"),
            ("embedding, one query", f"p50 {d['query_ms_p50']:.1f} / p95 {d['query_ms_p95']:.1f} ms")]


def _ratios(s: dict, p50_target: float, p95_target: float | None) -> str:
    """Ratios against the bare floor and, when measured, the floor over graphmem's own lookup terms."""
    out = [f"p50 ratio {_spread(s['ratio_p50'])} "
           f"(target <= {p50_target:g}: {_met(s['ratio_p50']['median'] <= p50_target)})"]
    if p95_target:
        out.append(f"p95 ratio {_spread(s['ratio_p95'])} (target <= {p95_target:g}: "
                   f"{_met(s['ratio_p95']['median'] <= p95_target)})")
    if "ratio_lookup_p50" in s:
        out.append(f"against the floor over graphmem's lookup terms p50 {_spread(s['ratio_lookup_p50'])}, "
                   f"p95 {_spread(s['ratio_lookup_p95'])}")
    if "ratio_per_query_p50" in s:
        out.append(f"median of per-query ratios {_spread(s['ratio_per_query_p50'])}")
    out.append(f"graphmem p50 {_spread(s['graphmem_p50_ms'], 1)} ms, floor p50 {_spread(s['floor_p50_ms'], 1)} ms")
    return "; ".join(out)


def floor_10k(d: dict) -> list[tuple[str, str]]:
    """One row per model, each against its own floor (a result of one model has ``sizes`` alone)."""
    models = d.get("models") or {"the configured model": {"sizes": d["sizes"]}}
    rows = []
    for model, by_size in models.items():
        size, row = next(iter(by_size["sizes"].items()))
        first, load = row["runs"][0], row["summary"].get("loadavg_1m")
        rows.append((f"search (k=10, every stage, query embedded live) against its floor, {model}, "
                     f"{int(size):,} memories with edges, {d['queries']} unique queries x {d['repeats']} passes",
                     _ratios(row["summary"], 2, 3) + f"; first pass alone (fewest rows in the row cache): p50 "
                     f"ratio {first['ratio_p50']:.2f}, p95 {first['ratio_p95']:.2f}"
                     + (f"; load {_spread(load, 1)} during the passes" if load else "")))
    return rows


def scale_floor(d: dict) -> list[tuple[str, str]]:
    rows = []
    for row in d["sizes"]:
        s = row["against_floor"]["summary"]
        rows.append((f"search against its floor, {row['size']:,} memories (precomputed vectors, no edges), "
                     f"{d['queries']} queries x {len(row['against_floor']['runs'])} passes",
                     f"{_ratios(s, 2.5, None)}; vector recall alone p50 "
                     f"{row['vector_recall_only']['p50_ms']:.1f} ms; one save_memory p50 "
                     f"{row['insert']['save_memory_p50_ms']:.2f} ms; RSS {row['memory']['rss_mb']:.0f} MB, "
                     f"SQLite {row['disk']['sqlite_bytes'] / 1e6:.0f} MB"))
    return rows


def profile(d: dict) -> list[tuple[str, str]]:
    wanted = {"embed_query": "query embedding", "lexical_candidates": "full-text lookup",
              "get_memories": "memory reads", "_expansion": "expansion stage", "vector_candidates": "vector scan"}
    shares = []
    for row in d["by_cumulative"]:
        name = row["function"].rsplit("(", 1)[-1].rstrip(")")
        if name in wanted:
            shares.append(f"{wanted.pop(name)} {100 * row['cum_share']:.0f}%")
    return [(f"where a search's time goes, cProfile over {d['queries']} live searches",
             f"{d['per_query_ms_profiled']:.1f} ms a search under the profiler: " + ", ".join(shares))]


def ann_compare(d: dict) -> list[tuple[str, str]]:
    parts = []
    for r in d["results"]:
        by_ef = ", ".join(f"ef {e['ef_search']}: recall@10 {e['recall@10_pool50_rescored']:.3f} "
                          f"p50 {e['p50_ms']:.2f} ms" for e in r["by_ef"])
        parts.append(f"{r['library']} {r['dtype']}: {by_ef}, {r['bytes'] / 1e6:.0f} MB")
    return [(f"approximate index choice, {d['size']:,} vectors", "; ".join(parts) +
             f"; exact numpy scan p50 {d['exact_numpy']['p50_ms']:.0f} ms")]


def ann_1m(d: dict) -> list[tuple[str, str]]:
    return [(f"vector recall at {d['size']:,} (query vectors precomputed)",
             f"approximate p50 {d['approximate_search_pool50']['p50_ms']:.1f} / p95 "
             f"{d['approximate_search_pool50']['p95_ms']:.1f} ms (target p50 <= 50, vector part only: "
             f"{_met(d['approximate_search_pool50']['p50_ms'] <= 50)}); recall@10 vs exact "
             f"{d['recall@10_vs_exact']:.3f} (target >= 0.95: {_met(d['recall@10_vs_exact'] >= 0.95)}); "
             "exact scan "
             f"p50 {d['exact_scan']['p50_ms']:.0f} ms; index build {d['index_build_s']:.0f} s")]


def insert_interleaved(d: dict) -> list[tuple[str, str]]:
    low, high = sorted(int(n) for n in d["stores"].values())
    means = {n: [r[str(n)]["mean_ms"] for r in d["rounds"]] for n in (low, high)}
    return [(f"insert one memory (embed + dedupe + link + save) at {high:,} vs {low:,} stored, "
             f"{len(d['rounds'])} probe rounds of 200 alternating between the two stores",
             f"ratio {_spread(d['ratio'])}, target <= 1.5: {_met(d['ratio']['median'] <= 1.5)}; mean per insert "
             f"{min(means[low]):.0f}-{max(means[low]):.0f} ms at {low:,}, "
             f"{min(means[high]):.0f}-{max(means[high]):.0f} ms at {high:,}")]


def insert_sequential(d: dict) -> list[tuple[str, str]]:
    low, high = sorted(int(n) for n in d["inserts"])
    means = {n: [r["mean_ms"] for r in d["inserts"][str(n)]["rounds"]] for n in (low, high)}
    return [(f"the same, sequential in one store: {len(means[low])} rounds at {low:,}, load to {high:,} through "
             f"batched ingest ({d['load_seconds'][str(high)]:.0f} s), {len(means[high])} rounds at {high:,}",
             f"ratio {_spread(d['insert_ratio_rounds'])} (round against round); mean per insert "
             + ", ".join(f"{m:.0f}" for m in means[low]) + f" ms at {low:,}, "
             + ", ".join(f"{m:.0f}" for m in means[high]) + f" ms at {high:,}: the machine's load rose from "
             f"{(_run(d) or ('', '', 0.0))[2]:.0f} to {d['loadavg_at_end'][0]:.0f} meanwhile")]


def ingest(d: dict) -> list[tuple[str, str]]:
    s, runs = d["summary"], d["runs"]
    if "cached_per_s" in s:         # a result from before both stores were measured
        s = {**s, "sqlite_cached_per_s": s["cached_per_s"], "sqlite_live_vs_embedder": s["live_vs_embedder"]}
        runs = [{**r, "sqlite_insert_ms_at_end": r["insert_ms_at_end"],
                 "sqlite_insert_ms_at_flat_at": r["insert_ms_at_flat_at"]} for r in runs]
    flat = [r["sqlite_insert_ms_at_end"] / r["sqlite_insert_ms_at_flat_at"] for r in runs]
    rate = s["sqlite_cached_per_s"]
    rows = [(f"bulk import (`import_jsonl`), {d['n']:,} memories, embeddings cached, embedded store, "
             f"{d['completed_repeats']} repeats",
             f"{_spread(rate, 0)} memories/s, target >= 300: {_met(rate['median'] >= 300)}; "
             f"link+write per memory near {d['n']:,} vs at 1-2k: {min(flat):.2f}-{max(flat):.2f}")]
    if "neo4j_vs_sqlite_cached" in s:
        ratio = s["neo4j_vs_sqlite_cached"]
        rows.append(("the same on Neo4j, against the embedded store's rate in the same repeat",
                     f"{_spread(s['neo4j_cached_per_s'], 0)} memories/s, {_spread(ratio)}x, target >= 0.6: "
                     f"{_met(ratio['median'] >= 0.6)}"))
    turns = " as thread turns (FOLLOWS edges, context windows)" if d.get("threaded") in ("live", "all") else ""
    live = s["sqlite_live_vs_embedder"]
    rows.append((f"bulk import with live embedding, {d['live_n']:,} memories{turns}, against the embedder's own "
                 "docs/s in the same repeat", f"{_spread(live)}x, target >= 0.5: {_met(live['median'] >= 0.5)}"))
    return rows


def ingest_profile(d: dict) -> list[tuple[str, str]]:
    total = d["by_cumulative"][0]["cum_s"]
    picks = [r for r in d["by_cumulative"] if r["cum_share"] < 0.9 and not r["function"].startswith("~")
             and "comp>" not in r["function"]][:7]
    return [(f"where a cached import's time goes, cProfile over {d['n']:,} memories",
             f"{d['profiled_per_s']:.0f} memories/s under the profiler ({total:.0f} s); "
             + ", ".join(f"`{r['function']}` {100 * r['cum_share']:.0f}%" for r in picks))]


def stores(d: dict) -> list[tuple[str, str]]:
    s = d["summary"]
    ingest, p50 = s["neo4j_vs_sqlite_ingest"], s["neo4j_vs_sqlite_search_p50"]
    rate, p50_ms, p95_ms = s["ingest_per_s"], s["search_p50_ms"], s["search_p95_ms"]
    when = f", {d['note']}" if "note" in d else ""
    return [(f"Neo4j vs the embedded store, batched ingest of {d['n']:,} memories ({d['ingest_path']}; "
             f"document embeddings cached in both), {s['repeats']} repeats on fresh stores{when}",
             f"{_spread(rate['neo4j'], 1)} vs {_spread(rate['sqlite'], 1)} memories/s: Neo4j "
             f"{_spread(ingest)}x, target >= 0.5: {_met(ingest['median'] >= 0.5)}"),
            (f"Neo4j vs the embedded store, search at {d['n']:,} (k=10, every stage, query embedded live in "
             f"both), {d['queries_per_pass']} queries x {s['passes']} passes, each pass on both stores in "
             f"turn{when}",
             f"p50 {_spread(p50_ms['neo4j'], 1)} vs {_spread(p50_ms['sqlite'], 1)} ms: Neo4j {_spread(p50)}x, "
             f"target <= 1.5: {_met(p50['median'] <= 1.5)}; p95 {_spread(p95_ms['neo4j'], 1)} vs "
             f"{_spread(p95_ms['sqlite'], 1)} ms" + _in_turn(s) + _separate_reads(s))]


def _separate_reads(s: dict) -> str:
    """Neo4j with ``store.recall`` as its separate reads, and the first pass alone, when measured."""
    if "neo4j_separate_reads_search_p50_ms" not in s:
        return ""
    first, separate = s["first_pass"], s["neo4j_separate_reads_search_p50_ms"]
    return (f"; Neo4j with recall as its five separate reads: p50 {_spread(separate, 1)} ms, "
            f"{_spread(s['neo4j_separate_reads_vs_sqlite_search_p50'])}x the embedded store; first pass "
            f"alone: Neo4j {first['neo4j_vs_sqlite_search_p50']:.2f}x; load {_spread(s['load_1m'], 1)} "
            "during the passes")


def concurrency(d: dict) -> list[tuple[str, str]]:
    """Requests/s and p95 per (ONNX Runtime setting, clients), and what the machine serves."""
    parts = []
    for r in d["runs"]:
        setting = f"threads {r['onnx_threads'] or 'default'}{'' if r.get('spin_wait', True) else ', no spin'}"
        parts.append(f"{setting}, {r['clients']} clients: {r['requests_per_s']:.1f} req/s, "
                     f"p95 {r['p95_ms']:.0f} ms (load {r.get('loadavg_before', r['loadavg_after']):.1f})")
    best = d.get("serves")
    serves = (f"serves {best['requests_per_s']:.1f} req/s at p95 <= {best['p95_budget_ms']:.0f} ms "
              f"({best['clients']} clients, threads {best['onnx_threads'] or 'default'}"
              f"{'' if best.get('spin_wait', True) else ', no spin'})" if best else
              "no setting kept p95 within the budget")
    return [(f"HTTP search (embedded store, {d['memories']:,} memories, unique queries embedded by the "
             f"server, {d['requests_per_client']} per client), on this 2-core machine",
             f"{serves}; " + "; ".join(parts))]


def _in_turn(s: dict) -> str:
    """The same passes with every search step in turn (no recall overlap), when the run timed them."""
    if "search_p50_ms_in_turn" not in s:
        return ""
    turn, gain = s["search_p50_ms_in_turn"], s["overlap_p50_vs_in_turn"]
    return (f"; every step in turn: p50 {_spread(turn['neo4j'], 1)} vs {_spread(turn['sqlite'], 1)} ms, Neo4j "
            f"{_spread(s['neo4j_vs_sqlite_search_p50_in_turn'])}x; the defaults' p50 against in turn: Neo4j "
            f"{_spread(gain['neo4j'])}, embedded {_spread(gain['sqlite'])}")


def tenants(d: dict) -> list[tuple[str, str]]:
    ratio, parts = d["p50_after_vs_before"], []
    for kind, name in (("neo4j", "Neo4j"), ("sqlite", "SQLite")):
        before, after = d["before"][f"{kind}_p50_ms"]["median"], d["after"][f"{kind}_p50_ms"]["median"]
        parts.append(f"{name} {before:.1f} -> {after:.1f} ms ({ratio[kind]:.3f}x, target within 20%: "
                     f"{_met(abs(ratio[kind] - 1) <= 0.2)})")
    return [(f"a {d['small']:,}-memory namespace's search p50 while another namespace grows from "
             f"{d['other_before']:,} to {d['other_after']:,} ({d['queries_per_pass']} queries x "
             f"{len(d['after']['passes'])} passes, median of passes)", "; ".join(parts))]


def neo4j_search_profile(d: dict) -> list[tuple[str, str]]:
    neo, lite = d["search"]["neo4j"], d["search"]["sqlite"]
    steps = sorted((k for k in neo if k not in ("total", "store_calls_sum", "python_above_store")),
                   key=lambda k: -neo[k]["p50_ms"])
    trips = sum(d["neo4j_transactions_per_search"].values())
    how = f", steps {d['steps'].split(',')[0]}" if "steps" in d else ""
    return [(f"where a search's time goes at {d['memories']:,} memories, Neo4j vs the embedded store "
             f"(p50 of each step over {d['queries']} queries{how})",
             f"whole search {neo['total']['p50_ms']:.0f} vs {lite['total']['p50_ms']:.0f} ms; "
             + ", ".join(f"`{k}` {neo[k]['p50_ms']:.1f} vs {lite.get(k, {}).get('p50_ms', 0):.1f}" for k in steps)
             + f"; Python above the store {neo['python_above_store']['p50_ms']:.1f} vs "
             f"{lite['python_above_store']['p50_ms']:.1f}; {trips:.0f} Neo4j round trips a search")]


def neo4j_ingest_profile(d: dict) -> list[tuple[str, str]]:
    neo, lite = d["neo4j"], d["sqlite"]
    top = sorted(neo["store_calls"].items(), key=lambda kv: -kv[1]["seconds"])[:4]
    return [(f"where batched ingest's time goes, {d['n']:,} memories ({d['ingest_path']}; embeddings "
             f"{d['document_embeddings']}), seconds in store calls",
             f"Neo4j {neo['per_s']:.1f} memories/s, {neo['store_seconds']:.0f} s in the store, "
             f"{neo['outside_store_seconds']:.0f} s above it (embedded store: {lite['per_s']:.1f}/s, "
             f"{lite['store_seconds']:.0f} s, {lite['outside_store_seconds']:.0f} s); Neo4j's largest: "
             + ", ".join(f"`{name}` {row['seconds']:.1f} s" for name, row in top))]


def probe_reads(d: dict) -> list[tuple[str, str]]:
    over, shape = d["vector_overfetch"], d["read_shape"]
    recall_key = next(k for k in next(iter(over.values())) if k.startswith("recall@"))
    return [(f"Neo4j read choices on {d['n']:,} memories, {d['queries']} queries x {d['rounds']} rounds, "
             "configurations alternating",
             "vector over-fetch " + ", ".join(f"{f}: p50 {r['p50_ms']:.1f} ms, {recall_key} {r[recall_key]:.3f}"
                                              for f, r in over.items())
             + f"; {shape['ids']} memories as a record per row vs one record: "
             f"{shape['memories_rows']['p50_ms']:.1f} vs {shape['memories_one_record']['p50_ms']:.1f} ms "
             f"(ids alone {shape['ids_rows']['p50_ms']:.1f} vs {shape['ids_one_record']['p50_ms']:.1f} ms)")]


Rows = list[tuple[str, Callable[[dict], list[tuple[str, str]]]]]
ROWS: Rows = [
    ("embedder.json", embedder), ("floor-10k.json", floor_10k), ("profile-search-10k.json", profile),
    ("scale-floor-100k.json", scale_floor), ("ann_compare.json", ann_compare), ("ann_scale_1m.json", ann_1m),
    ("insert-flat-1k-50k.json", insert_interleaved), ("insert-flat-50k-sequential.json", insert_sequential),
    ("ingest.json", ingest),
    ("profile-ingest-10k.json", ingest_profile), ("concurrency-10k.json", concurrency),
]
NEO4J_ROWS: Rows = [
    ("stores-10k.json", stores), ("stores-10k-before-reads.json", stores), ("tenants.json", tenants),
    ("profile-neo4j-search-10k.json", neo4j_search_profile),
    ("profile-neo4j-ingest-10k.json", neo4j_ingest_profile), ("probe-neo4j-reads.json", probe_reads),
]
BLOCKS: dict[str, Rows] = {"speed": ROWS, "neo4j-speed": NEO4J_ROWS}


def table(rows: Rows = ROWS) -> str:
    lines = ["| what | figure | command, commit, file |", "|---|---|---|"]
    for name, render in rows:
        d = _load(name)
        if d is None:
            continue
        for what, figure in render(d):
            lines.append(f"| {what} | {figure} | {_source(name, d)} |")
    return "\n".join(lines)


def render(text: str) -> str:
    """``text`` (the speed page) with every block's table regenerated."""
    for block, rows in BLOCKS.items():
        begin, end = markers(block)
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{begin}\n{table(rows)}\n{end}{tail}"
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text = PAGE.read_text()
    new = render(text)
    if args.check:
        sys.exit(0 if new == text else 1)
    PAGE.write_text(new)


if __name__ == "__main__":
    main()

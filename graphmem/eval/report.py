"""Turn raw eval runs into the report: metrics per configuration (overall and by query
field), the recall@k curve, context size and health of what is returned, candidate counts
and latency per stage; then render it as a rich table, ``report.json`` and PNG plots.

Why the split between ``quality`` and ``latency_ms``: everything outside ``latency_ms`` is a
pure function of the data and the settings, so two runs on the same input give the same
numbers there (the tests compare exactly that); latency is measured, never asserted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from graphmem.eval import metrics as M
from graphmem.eval.edge_report import expansion_row, print_edges, summarize_edges
from graphmem.eval.runner import LOW_HEALTH, STAGE_NAMES, EvalRun, QueryRun

COUNT_METRICS = ("low_health_above_relevant_top3",)      # summed over queries, not averaged


def query_metrics(run: QueryRun, relevance: dict[str, float], k: int, depth: int) -> dict[str, float]:
    """Every per-query number; the list is cut to k for everything but the curve."""
    groups = [(r["id"], *r["merged"]) for r in run.results]
    top = run.results[:k]
    healths = [r["health"] for r in top]
    out = {
        "recall@5": M.recall_at_k(groups, relevance, 5),
        f"recall@{k}": M.recall_at_k(groups, relevance, k),
        "precision@5": M.precision_at_k(groups, relevance, 5),
        f"precision@{k}": M.precision_at_k(groups, relevance, k),
        f"ndcg@{k}": M.ndcg_at_k(groups, relevance, k),
        "mrr": M.reciprocal_rank(groups[:k], relevance),
        "hit@1": M.hit_at_k(groups, relevance, 1),
        f"hit@{k}": M.hit_at_k(groups, relevance, k),
        "context_results": float(len(top)),
        "context_chars": float(sum(r["chars"] for r in top)),
        "low_health_share": M.low_health_share(healths, LOW_HEALTH),
        "low_health_above_relevant_top3": float(M.low_health_above_relevant(
            groups[:k], healths, relevance, top=3, threshold=LOW_HEALTH)),
        "related_in_top_k": float(sum(r["kind"] == "related" for r in top)),
        "credited_via_merge": float(sum(
            1 for r in top if r["id"] not in relevance and any(m in relevance for m in r["merged"]))),
    }
    for cut in range(1, depth + 1):
        out[f"curve@{cut}"] = M.recall_at_k(groups, relevance, cut)
    return out


def coverage_metrics(run: QueryRun, contents: dict[str, str], answer: Any,
                     ks: tuple[int, ...] = (5, 10)) -> dict[str, float]:
    """Answer coverage and context size of the top k (what an agent would be handed)."""
    out: dict[str, float] = {}
    for k in ks:
        texts = [contents.get(r["id"], "") for r in run.results[:k]]
        out[f"answer@{k}"] = float(M.answer_covered(str(answer), texts))
        out[f"context_tokens@{k}"] = float(M.context_tokens(texts))
    return out


def _aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {"n": 0}
    out: dict[str, float] = {"n": len(rows)}
    for key in rows[0]:
        values = [r[key] for r in rows]
        out[key] = round(sum(values) if key in COUNT_METRICS else M.mean(values), 6)
    return out


def _split_curve(agg: dict[str, float]) -> tuple[dict[str, float], list[float]]:
    curve = [agg.pop(key) for key in sorted((k for k in agg if k.startswith("curve@")),
                                            key=lambda k: int(k.split("@")[1]))]
    return agg, curve


def _latency(runs: list[QueryRun]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    series = {stage: [r.stage_ms.get(stage, 0.0) for r in runs] for stage in STAGE_NAMES}
    series["pipeline_total"] = [r.total_ms for r in runs]
    series["end_to_end"] = [r.wall_ms for r in runs]
    for name, values in series.items():
        out[name] = {"p50": round(M.percentile(values, 50), 3), "p95": round(M.percentile(values, 95), 3)}
    return out


def build_report(run: EvalRun) -> dict[str, Any]:
    """The whole report as plain data (this is ``report.json``)."""
    opts = run.options
    k, depth = opts.k, max(opts.k, opts.depth)
    queries = run.dataset.queries
    configs: dict[str, Any] = {}
    answers = [q.fields.get("answer") for q in queries]
    contents = {m["id"]: m["content"] for m in run.dataset.memories} if all(
        a is not None for a in answers) and answers else None
    for name, qruns in run.runs.items():
        per_query = [query_metrics(r, run.relevance[r.query_id], k, depth) for r in qruns]
        if contents is not None:
            for row, r, answer in zip(per_query, qruns, answers, strict=True):
                row.update(coverage_metrics(r, contents, answer))
        overall, curve = _split_curve(_aggregate(per_query))
        by: dict[str, dict[str, dict[str, float]]] = {}
        for fld in opts.by:
            groups: dict[str, list[dict[str, float]]] = {}
            for q, row in zip(queries, per_query, strict=True):
                groups.setdefault(json.dumps(q.fields.get(fld)).strip('"'), []).append(row)
            by[fld] = {value: _split_curve(_aggregate(rows))[0] for value, rows in sorted(groups.items())}
        keys = qruns[0].counts if qruns else {}
        counts = {key: round(M.mean([r.counts[key] for r in qruns]), 3) for key in keys}
        edges = summarize_edges({r.query_id: expansion_row(r, run.relevance[r.query_id], k) for r in qruns}, k=k)
        configs[name] = {"overall": overall, "recall_curve": curve, "by": by,
                         "candidates_mean": counts, "latency_ms": _latency(qruns),
                         **({"edge_precision": edges} if edges else {})}
    report = {
        "dataset": {
            "memories_file": str(opts.memories), "queries_file": str(opts.queries), "scope": opts.scope,
            "memories": len(run.dataset.memories), "queries": len(queries),
            "unlabelled_queries_dropped": run.dataset.unlabelled_queries,
            "namespaces": run.dataset.namespaces(), "ids_renamed": run.dataset.renamed,
            "graded": any(q.graded for q in queries),
            "relevant_not_stored": sum(1 for rel in run.relevance.values() for i in rel
                                       if i.startswith("<missing>")),
            "ingest": {"created": run.ingest.created, "duplicate": run.ingest.duplicate,
                       "rejected": run.ingest.rejected, "rejections": run.ingest.rejections[:20]},
            "store": {ns: {key: s.get(key) for key in ("memories", "edges", "degree", "health_histogram")}
                      for ns, s in run.store_stats.items()},
        },
        "settings": {"k": k, "depth": depth, "store": opts.store,
                     "query_embeddings": "cache" if opts.cache_queries else "model",
                     "config_file": str(opts.config) if opts.config else None,
                     "by": list(opts.by),
                     "recipes": {n: c.to_dict() for n, c in run.configs.items()}},
        "configs": configs,
        "lift_vs_hybrid": lifts(configs, k),
        "timing": {"ingest_seconds": round(run.ingest.seconds, 2)},
    }
    return report


def lifts(configs: dict[str, Any], k: int) -> dict[str, Any]:
    """Relative recall@k and nDCG@k of each configuration over ``hybrid`` (overall and per
    group): the question the ablation asks is what expansion and weighting add to recall."""
    if "hybrid" not in configs:
        return {}
    base = configs["hybrid"]
    out: dict[str, Any] = {}
    for name, cfg in configs.items():
        if name == "hybrid":
            continue
        entry: dict[str, Any] = {}
        for metric in (f"recall@{k}", f"ndcg@{k}"):
            lift = M.relative_lift(cfg["overall"][metric], base["overall"][metric])
            entry[metric] = None if lift is None else round(lift, 4)
        entry["by"] = {}
        for fld, groups in cfg["by"].items():
            entry["by"][fld] = {}
            for value, row in groups.items():
                lift = M.relative_lift(row[f"recall@{k}"], base["by"][fld][value][f"recall@{k}"])
                entry["by"][fld][value] = None if lift is None else round(lift, 4)
        out[name] = entry
    return out


def deterministic_view(report: dict[str, Any]) -> dict[str, Any]:
    """The report minus wall-clock numbers: equal for equal inputs."""
    view = json.loads(json.dumps(report))
    view.pop("timing", None)
    for cfg in view["configs"].values():
        cfg.pop("latency_ms", None)
    return view


# -- rendering -------------------------------------------------------------------------------

def print_tables(report: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    k = report["settings"]["k"]
    table = Table(title=f"graphmem eval: {report['dataset']['queries']} queries, k={k}")
    cols = [("config", None), ("R@5", "recall@5"), (f"R@{k}", f"recall@{k}"), (f"P@{k}", f"precision@{k}"),
            (f"nDCG@{k}", f"ndcg@{k}"), ("MRR", "mrr"), (f"hit@{k}", f"hit@{k}"), ("chars", "context_chars"),
            ("lowH%", "low_health_share"), ("LH>rel@3", "low_health_above_relevant_top3"),
            ("nbrs", "related_in_top_k"), ("p50 ms", None), ("p95 ms", None)]
    for label, _ in cols:
        table.add_column(label, justify="left" if label == "config" else "right")
    for name, cfg in report["configs"].items():
        o, lat = cfg["overall"], cfg["latency_ms"]["end_to_end"]
        cells = [name]
        for _label, key in cols[1:-2]:
            value = o[key]
            cells.append(f"{value:.0f}" if key in ("context_chars", *COUNT_METRICS)
                         else f"{100 * value:.1f}" if key == "low_health_share"
                         else f"{value:.2f}" if key == "related_in_top_k" else f"{value:.3f}")
        cells += [f"{lat['p50']:.1f}", f"{lat['p95']:.1f}"]
        table.add_row(*cells)
    console.print(table)
    for fld in report["settings"]["by"]:
        for metric in (f"recall@{k}", f"ndcg@{k}"):
            first = next(iter(report["configs"].values()))
            values = list(first["by"].get(fld, {}))
            sub = Table(title=f"{metric} by {fld}")
            sub.add_column("config")
            for value in values:
                sub.add_column(f"{value} (n={first['by'][fld][value]['n']})", justify="right")
            for name, cfg in report["configs"].items():
                sub.add_row(name, *(f"{cfg['by'][fld][v][metric]:.3f}" for v in values))
            console.print(sub)
    print_edges({name: cfg.get("edge_precision") for name, cfg in report["configs"].items()},
                "expansion additions by edge: relevant share (edge precision)", console)


def write_json(report: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(report, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def plot_all(report: dict[str, Any], outdir: Path) -> list[Path]:
    """metric_by_config.png, recall_curve.png, latency_by_stage.png, and one
    recall_by_<field>.png per breakdown; Agg backend, so no display is needed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = report["settings"]["k"]
    names = list(report["configs"])
    written: list[Path] = []

    def save(fig, filename: str) -> None:
        path = outdir / filename
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    def bars(ax, groups: list[str], series: dict[str, list[float]]) -> None:
        width = 0.8 / max(1, len(series))
        for i, (label, values) in enumerate(series.items()):
            ax.bar([g + i * width for g in range(len(groups))], values, width, label=label)
        ax.set_xticks([g + width * (len(series) - 1) / 2 for g in range(len(groups))], groups)

    metrics = ["recall@5", f"recall@{k}", f"precision@{k}", f"ndcg@{k}", "mrr"]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    bars(ax, metrics, {n: [report["configs"][n]["overall"][m] for m in metrics] for n in names})
    ax.set_ylim(0, 1)
    ax.set_title("metric by configuration")
    ax.legend(fontsize=8)
    save(fig, "metric_by_config.png")

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for n in names:
        curve = report["configs"][n]["recall_curve"]
        ax.plot(range(1, len(curve) + 1), curve, marker=".", label=n)
    ax.axvline(k, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("k")
    ax.set_ylabel("recall@k")
    ax.set_ylim(0, 1)
    ax.set_title("recall@k")
    ax.legend(fontsize=8)
    save(fig, "recall_curve.png")

    fig, ax = plt.subplots(figsize=(9, 4.5))
    stages = list(STAGE_NAMES)
    bars(ax, stages + ["end_to_end"],
         {n: [report["configs"][n]["latency_ms"][s]["p50"] for s in [*stages, "end_to_end"]] for n in names})
    ax.set_ylabel("p50 ms")
    ax.set_title("latency by stage (p50)")
    ax.legend(fontsize=8)
    save(fig, "latency_by_stage.png")

    for fld in report["settings"]["by"]:
        values = list(report["configs"][names[0]]["by"].get(fld, {}))
        fig, ax = plt.subplots(figsize=(9, 4.5))
        bars(ax, values, {n: [report["configs"][n]["by"][fld][v][f"recall@{k}"] for v in values] for n in names})
        ax.set_ylim(0, 1)
        ax.set_xlabel(fld)
        ax.set_ylabel(f"recall@{k}")
        ax.set_title(f"recall@{k} by {fld}")
        ax.legend(fontsize=8)
        save(fig, f"recall_by_{fld}.png")
    return written
